/* mt_value.c: boxed values: releasing what results own, owned copies, and checked stores of
 * scalars into a dtype. */
#include "mt_value.h"

#include <stdlib.h>
#include <string.h>

void mt_value_release(mt_value *v) {
    if (v->tag == MT_V_TENSOR) {
        mt_tensor_decref(v->t);
    } else if (v->tag == MT_V_TENSORLIST) {
        for (int i = 0; i < v->n; i++) mt_tensor_decref(v->tl[i]);
        free(v->tl);
    }
    v->tag = MT_V_NONE;
}

int mt_value_copy_owned(mt_value *dst, const mt_value *src, const char *what) {
    *dst = *src;
    if (src->tag == MT_V_INTLIST || src->tag == MT_V_DOUBLELIST) {
        size_t bytes = (size_t)(src->n ? src->n : 1) * 8; /* both element types are 8 bytes */
        void *v = malloc(bytes);
        if (!v) return mt_error(MT_ERR_MEMORY, "out of memory %s", what);
        if (src->n)
            memcpy(v, src->tag == MT_V_INTLIST ? (const void *)src->il : (const void *)src->dl,
                   bytes);
        if (src->tag == MT_V_INTLIST)
            dst->il = v;
        else
            dst->dl = v;
    } else if (src->tag == MT_V_STR) {
        if (!(dst->s = strdup(src->s))) return mt_error(MT_ERR_MEMORY, "out of memory %s", what);
    }
    return 0;
}

#include <float.h>
#include <math.h>

static const char *cpp_type_name(mt_dtype dt) {
    switch (dt) {
    case MT_UINT8:
        return "uint8_t";
    case MT_INT8:
        return "int8_t";
    case MT_INT16:
        return "int16_t";
    case MT_INT32:
        return "int";
    case MT_INT64:
        return "int64_t";
    case MT_FLOAT16:
        return "at::Half";
    case MT_BFLOAT16:
        return "at::BFloat16";
    case MT_FLOAT32:
        return "float";
    case MT_FLOAT64:
        return "double";
    default:
        return "bool";
    }
}

static void int_range(mt_dtype dt, double *lo, double *hi) {
    switch (dt) {
    case MT_UINT8:
        *lo = 0;
        *hi = 255;
        break;
    case MT_INT8:
        *lo = -128;
        *hi = 127;
        break;
    case MT_INT16:
        *lo = -32768;
        *hi = 32767;
        break;
    case MT_INT32:
        *lo = -2147483648.0;
        *hi = 2147483647.0;
        break;
    default:
        *lo = -9223372036854775808.0;
        *hi = 9223372036854775807.0;
        break;
    }
}

static bool overflows(mt_value v, mt_dtype dt) {
    if (v.tag == MT_V_BOOL || dt == MT_BOOL) return false;
    if (mt_dtype_is_floating(dt)) {
        if (dt == MT_FLOAT64 || v.tag != MT_V_DOUBLE) return false;
        double f = v.d, max = dt == MT_FLOAT16    ? 65504.0
                              : dt == MT_BFLOAT16 ? 3.3895313892515355e38
                                                  : FLT_MAX;
        if (isinf(f) || isnan(f)) return false;
        return f < -max || f > max;
    }
    double lo, hi;
    int_range(dt, &lo, &hi);
    if (v.tag == MT_V_DOUBLE) {
        if (isnan(v.d)) return true;
        if (dt == MT_INT64) return !(v.d >= -9223372036854775808.0 && v.d < 9223372036854775808.0);
        return v.d < lo || v.d > hi;
    }
    int64_t i = v.i;
    if (dt == MT_INT64) return false;
    if (dt == MT_UINT8) return i > 255 || i < -255; /* negatives wrap, as two's complement */
    return (double)i < lo || (double)i > hi;
}

int mt_scalar_store_checked(mt_value v, mt_dtype dt, void *out, bool torch_names) {
    if (overflows(v, dt))
        return mt_error(MT_ERR_RUNTIME, "value cannot be converted to type %s without overflow",
                        torch_names ? mt_dtype_name(dt) : cpp_type_name(dt));
    if (v.tag == MT_V_DOUBLE)
        mt_store_double(out, dt, v.d);
    else
        mt_store_int64(out, dt, v.tag == MT_V_BOOL ? (int64_t)v.b : v.i);
    return 0;
}
