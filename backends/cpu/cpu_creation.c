/* cpu_creation.c: CPU kernels of the creation ops (results arrive allocated and shaped). */
#include "cpu_kernels.h"
#include "cpu_types.h"
#include "factory.h"
#include "mt_ops_gen.h"

#include <math.h>
#include <string.h>

int mt_cpu_empty_impl(mt_call *c, mt_value *args, mt_value *rets) {
    MT_UNUSED(c);
    MT_UNUSED(args);
    MT_UNUSED(rets);
    return 0;
}

int mt_cpu_zeros_impl(mt_call *c, mt_value *args, mt_value *rets) {
    MT_UNUSED(c);
    MT_UNUSED(args);
    mt_tensor *t = rets[0].t;
    if (t->storage->nbytes) memset(t->storage->data, 0, t->storage->nbytes);
    return 0;
}

int mt_cpu_ones_impl(mt_call *c, mt_value *args, mt_value *rets) {
    MT_UNUSED(c);
    MT_UNUSED(args);
    return mt_cpu_fill(rets[0].t, mt_vint(1));
}

/* full(size, fill_value, ...) and scalar_tensor(s, ...): the value is the op's Scalar arg */
int mt_cpu_full_impl(mt_call *c, mt_value *args, mt_value *rets) {
    return mt_cpu_fill(rets[0].t, args[c->op->id == MT_OP_full ? 1 : 0]);
}

/* start + step * i, computed in int64 for integer dtypes and double for floating ones
 * (PyTorch's accumulate types on the CPU), then stored as the result dtype. */
#define ARANGE_CASE(E, T, N, K)                                                                    \
    case E: {                                                                                      \
        T *p = (T *)data;                                                                          \
        if (integral) {                                                                            \
            for (int64_t i = 0; i < n; i++) p[i] = MT_STORE_I_##N(istart + istep * i);             \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) p[i] = MT_STORE_F_##N(dstart + dstep * (double)i);     \
        }                                                                                          \
        break;                                                                                     \
    }

int mt_cpu_arange_impl(mt_call *c, mt_value *args, mt_value *rets) {
    mt_range r;
    if (mt_arange_args(c, args, &r)) return -1;
    mt_tensor *t = rets[0].t;
    bool integral = !mt_dtype_is_floating(r.dtype);
    int64_t istart = mt_scalar_int(r.start), istep = mt_scalar_int(r.step), n = t->numel;
    double dstart = mt_scalar_double(r.start), dstep = mt_scalar_double(r.step);
    void *data = mt_tensor_raw(t);
    switch ((mt_dtype)t->dtype) {
        MT_FOR_ALL_DTYPES(ARANGE_CASE)
    default:
        break;
    }
    return 0;
}

/* PyTorch's linspace: the first half counts up from start, the second half down from end,
 * in the result's own arithmetic (float for float32, double for float64 and integers). */
int mt_cpu_linspace_impl(mt_call *c, mt_value *args, mt_value *rets) {
    MT_UNUSED(c);
    mt_tensor *t = rets[0].t;
    int64_t steps = t->numel, halfway = steps / 2;
    mt_dtype dt = (mt_dtype)t->dtype;
    char *p = mt_tensor_raw(t);
    size_t isz = mt_dtype_size(dt);
    if (steps == 0) return 0;
    if (dt == MT_FLOAT32 || dt == MT_FLOAT16 || dt == MT_BFLOAT16) {
        float start = (float)mt_scalar_double(args[0]), end = (float)mt_scalar_double(args[1]);
        if (dt != MT_FLOAT32) { /* the bounds themselves are first rounded to the dtype */
            uint16_t b[2];
            mt_store_double(&b[0], dt, start);
            mt_store_double(&b[1], dt, end);
            start = (float)mt_load_double(&b[0], dt);
            end = (float)mt_load_double(&b[1], dt);
        }
        float step = steps > 1 ? (end - start) / (float)(steps - 1) : 0.0f;
        for (int64_t i = 0; i < steps; i++) {
            /* fused multiply-adds, as PyTorch's vectorised CPU build computes them */
            float v = i < halfway ? fmaf(step, (float)i, start)
                                  : fmaf(-step, (float)(steps - i - 1), end);
            if (steps == 1) v = start;
            mt_store_double(p + i * (int64_t)isz, dt, v);
        }
        return 0;
    }
    double start, end;
    if (mt_dtype_is_floating(dt)) {
        start = mt_scalar_double(args[0]);
        end = mt_scalar_double(args[1]);
    } else { /* integer results: the bounds are converted to the integer type first */
        start = (double)mt_scalar_int(args[0]);
        end = (double)mt_scalar_int(args[1]);
    }
    double step = steps > 1 ? (end - start) / (double)(steps - 1) : 0.0;
    for (int64_t i = 0; i < steps; i++) {
        double v =
            i < halfway ? fma(step, (double)i, start) : fma(-step, (double)(steps - i - 1), end);
        if (steps == 1) v = start;
        mt_store_double(p + i * (int64_t)isz, dt, v);
    }
    return 0;
}

int mt_cpu_eye_impl(mt_call *c, mt_value *args, mt_value *rets) {
    MT_UNUSED(c);
    MT_UNUSED(args);
    mt_tensor *t = rets[0].t;
    if (t->storage->nbytes) memset(t->storage->data, 0, t->storage->nbytes);
    int64_t n = t->sizes[0] < t->sizes[1] ? t->sizes[0] : t->sizes[1];
    mt_dtype dt = (mt_dtype)t->dtype;
    char *p = mt_tensor_raw(t);
    size_t isz = mt_dtype_size(dt);
    for (int64_t i = 0; i < n; i++)
        mt_store_int64(p + i * (t->strides[0] + t->strides[1]) * (int64_t)isz, dt, 1);
    return 0;
}

/* PyTorch's logspace: base^x with x counted up from start for the first half and down from end
 * for the second, in double; the bounds first take the result's dtype, and their difference is
 * computed in it. */
int mt_cpu_logspace_impl(mt_call *c, mt_value *args, mt_value *rets) {
    MT_UNUSED(c);
    mt_tensor *t = rets[0].t;
    int64_t steps = t->numel, halfway = steps / 2;
    mt_dtype dt = (mt_dtype)t->dtype;
    char *p = mt_tensor_raw(t);
    size_t isz = mt_dtype_size(dt);
    double base = args[3].d;
    if (steps == 0) return 0;
    if (steps == 1) { /* fill_(base^start) */
        mt_store_double(p, dt, pow(base, mt_scalar_double(args[0])));
        return 0;
    }
    double start, end, diff;
    if (mt_dtype_is_floating(dt)) {
        uint64_t b[2]; /* the bounds in the dtype */
        mt_store_double(&b[0], dt, mt_scalar_double(args[0]));
        mt_store_double(&b[1], dt, mt_scalar_double(args[1]));
        start = mt_load_double(&b[0], dt);
        end = mt_load_double(&b[1], dt);
        if (dt == MT_FLOAT64) {
            diff = end - start;
        } else { /* the difference in float, rounded to the dtype */
            float d = (float)end - (float)start;
            mt_store_double(&b[0], dt, d);
            diff = mt_load_double(&b[0], dt);
        }
    } else {
        int64_t s = mt_scalar_int(args[0]), e = mt_scalar_int(args[1]);
        uint64_t b[2];
        mt_store_int64(&b[0], dt, s); /* the bounds in the integer type; their difference in int */
        mt_store_int64(&b[1], dt, e);
        start = (double)mt_load_int64(&b[0], dt);
        end = (double)mt_load_int64(&b[1], dt);
        diff = end - start;
    }
    double step = diff / (double)(steps - 1);
    for (int64_t i = 0; i < steps; i++) { /* unfused, as PyTorch's scalar loop */
        double x = i < halfway ? start + step * (double)i : end - step * (double)(steps - i - 1);
        mt_store_double(p + i * (int64_t)isz, dt, pow(base, x));
    }
    return 0;
}

/* torch.range: start + i * step in the dtype's accumulation type (factory.c, mt_range_args) */
int mt_cpu_range_impl(mt_call *c, mt_value *args, mt_value *rets) {
    MT_UNUSED(c);
    mt_tensor *t = rets[0].t;
    mt_dtype dt = (mt_dtype)t->dtype;
    char *p = mt_tensor_raw(t);
    size_t isz = mt_dtype_size(dt);
    if (!mt_dtype_is_floating(dt)) {
        int64_t s = mt_scalar_int(args[0]), st = mt_scalar_int(args[2]);
        for (int64_t i = 0; i < t->numel; i++)
            mt_store_int64(p + i * (int64_t)isz, dt,
                           (int64_t)((uint64_t)s + (uint64_t)i * (uint64_t)st));
        return 0;
    }
    double s = mt_scalar_double(args[0]), st = mt_scalar_double(args[2]);
    for (int64_t i = 0; i < t->numel; i++) {
        /* unfused, as PyTorch's build computes this loop */
        double v =
            dt == MT_BFLOAT16 ? (double)((float)s + (float)i * (float)st) : s + (double)i * st;
        mt_store_double(p + i * (int64_t)isz, dt, v);
    }
    return 0;
}
