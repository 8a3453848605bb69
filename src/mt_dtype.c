/* mt_dtype.c: dtype table, names, promotion and scalar load/store helpers. */
#include "mt_dtype.h"
#include "mt_half.h"

#include <string.h>

static const mt_dtype_info infos[MT_NUM_DTYPES] = {
    [MT_BOOL] = {"bool", NULL, "Bool", "BoolTensor", 1, false, false},
    [MT_UINT8] = {"uint8", NULL, "Byte", "ByteTensor", 1, false, false},
    [MT_INT8] = {"int8", NULL, "Char", "CharTensor", 1, false, true},
    [MT_INT16] = {"int16", "short", "Short", "ShortTensor", 2, false, true},
    [MT_INT32] = {"int32", "int", "Int", "IntTensor", 4, false, true},
    [MT_INT64] = {"int64", "long", "Long", "LongTensor", 8, false, true},
    [MT_FLOAT16] = {"float16", "half", "Half", "HalfTensor", 2, true, true},
    [MT_BFLOAT16] = {"bfloat16", NULL, "BFloat16", "BFloat16Tensor", 2, true, true},
    [MT_FLOAT32] = {"float32", "float", "Float", "FloatTensor", 4, true, true},
    [MT_FLOAT64] = {"float64", "double", "Double", "DoubleTensor", 8, true, true},
};

const mt_dtype_info *mt_dtype_get(mt_dtype t) {
    return &infos[t];
}
const char *mt_dtype_name(mt_dtype t) {
    return infos[t].name;
}
const char *mt_dtype_scalar_name(mt_dtype t) {
    return infos[t].scalar_name;
}

const char *mt_dtype_cxx_name(mt_dtype t) {
    switch (t) {
    case MT_FLOAT16:
        return "c10::Half";
    case MT_BFLOAT16:
        return "c10::BFloat16";
    case MT_FLOAT32:
        return "float";
    case MT_FLOAT64:
        return "double";
    case MT_INT64:
        return "long int";
    case MT_INT32:
        return "int";
    case MT_INT16:
        return "short int";
    case MT_INT8:
        return "signed char";
    case MT_UINT8:
        return "unsigned char";
    default:
        return "bool";
    }
}

int mt_dtype_from_name(const char *name) {
    for (int i = 0; i < MT_NUM_DTYPES; i++) {
        if (strcmp(name, infos[i].name) == 0) return i;
        if (infos[i].alias && strcmp(name, infos[i].alias) == 0) return i;
    }
    return MT_DTYPE_NONE;
}

mt_dtype mt_promote_types(mt_dtype a, mt_dtype b) {
    if (a == b) return a;
    if (a == MT_BOOL) return b;
    if (b == MT_BOOL) return a;
    bool fa = mt_dtype_is_floating(a), fb = mt_dtype_is_floating(b);
    if (fa != fb) return fa ? a : b;
    if (fa) { /* two different floating types */
        if ((a == MT_FLOAT16 && b == MT_BFLOAT16) || (a == MT_BFLOAT16 && b == MT_FLOAT16))
            return MT_FLOAT32;
        return infos[a].itemsize >= infos[b].itemsize ? a : b;
    }
    /* two different integer types: uint8 meets a signed type */
    if (a == MT_UINT8 || b == MT_UINT8) {
        mt_dtype s = a == MT_UINT8 ? b : a;
        return s == MT_INT8 ? MT_INT16 : s;
    }
    return infos[a].itemsize >= infos[b].itemsize ? a : b;
}

bool mt_can_cast(mt_dtype from, mt_dtype to) {
    /* PyTorch forbids only narrowing across categories: float -> integral, non-bool -> bool */
    if (mt_dtype_is_floating(from) && !mt_dtype_is_floating(to)) return false;
    if (from != MT_BOOL && to == MT_BOOL) return false;
    return true;
}

static _Thread_local int default_dtype = -1;

mt_dtype mt_default_dtype(void) {
    return default_dtype < 0 ? MT_FLOAT32 : (mt_dtype)default_dtype;
}

int mt_set_default_dtype(mt_dtype t) {
    if (!mt_dtype_is_floating(t))
        return mt_error(MT_ERR_TYPE, "only floating-point types are supported as the default type");
    default_dtype = (int)t;
    return 0;
}

double mt_load_double(const void *p, mt_dtype t) {
    switch (t) {
    case MT_BOOL:
        return *(const uint8_t *)p ? 1.0 : 0.0;
    case MT_UINT8:
        return *(const uint8_t *)p;
    case MT_INT8:
        return *(const int8_t *)p;
    case MT_INT16:
        return *(const int16_t *)p;
    case MT_INT32:
        return *(const int32_t *)p;
    case MT_INT64:
        return (double)*(const int64_t *)p;
    case MT_FLOAT16:
        return mt_f16_to_f32(*(const uint16_t *)p);
    case MT_BFLOAT16:
        return mt_bf16_to_f32(*(const uint16_t *)p);
    case MT_FLOAT32:
        return *(const float *)p;
    case MT_FLOAT64:
        return *(const double *)p;
    default:
        return 0;
    }
}

int64_t mt_load_int64(const void *p, mt_dtype t) {
    switch (t) {
    case MT_BOOL:
        return *(const uint8_t *)p != 0;
    case MT_UINT8:
        return *(const uint8_t *)p;
    case MT_INT8:
        return *(const int8_t *)p;
    case MT_INT16:
        return *(const int16_t *)p;
    case MT_INT32:
        return *(const int32_t *)p;
    case MT_INT64:
        return *(const int64_t *)p;
    default:
        return (int64_t)mt_load_double(p, t);
    }
}

void mt_store_double(void *p, mt_dtype t, double v) {
    switch (t) {
    case MT_BOOL:
        *(uint8_t *)p = v != 0;
        break;
    case MT_UINT8:
        *(uint8_t *)p = (uint8_t)mt_d2i(v);
        break;
    case MT_INT8:
        *(int8_t *)p = (int8_t)mt_d2i(v);
        break;
    case MT_INT16:
        *(int16_t *)p = (int16_t)mt_d2i(v);
        break;
    case MT_INT32:
        *(int32_t *)p = (int32_t)mt_d2i(v);
        break;
    case MT_INT64:
        *(int64_t *)p = mt_d2i(v);
        break;
    case MT_FLOAT16:
        *(uint16_t *)p = mt_f32_to_f16((float)v);
        break;
    case MT_BFLOAT16:
        *(uint16_t *)p = mt_f32_to_bf16((float)v);
        break;
    case MT_FLOAT32:
        *(float *)p = (float)v;
        break;
    case MT_FLOAT64:
        *(double *)p = v;
        break;
    default:
        break;
    }
}

void mt_store_int64(void *p, mt_dtype t, int64_t v) {
    switch (t) {
    case MT_BOOL:
        *(uint8_t *)p = v != 0;
        break;
    case MT_UINT8:
        *(uint8_t *)p = (uint8_t)v;
        break;
    case MT_INT8:
        *(int8_t *)p = (int8_t)v;
        break;
    case MT_INT16:
        *(int16_t *)p = (int16_t)v;
        break;
    case MT_INT32:
        *(int32_t *)p = (int32_t)v;
        break;
    case MT_INT64:
        *(int64_t *)p = v;
        break;
    default:
        mt_store_double(p, t, (double)v);
        break;
    }
}
