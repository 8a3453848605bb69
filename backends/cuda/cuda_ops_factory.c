/* cuda_ops_factory.c: the creation ops whose values are computed (arange, range, linspace,
 * logspace, eye) on a cuda device: one element-wise launch each over the index of the result's
 * elements (kernels/ck_elementwise.cuh's sequences), in the arithmetic the CPU's kernels use
 * (backends/cpu/cpu_creation.c) so both give the same values. The meta functions have checked
 * the arguments and sized the result. */
#include <string.h>

#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"

/* v stored in dtype dt and read back: a bound rounded to the result's dtype */
static double in_dtype(double v, mt_dtype dt) {
    uint64_t b = 0;
    mt_store_double(&b, dt, v);
    return mt_load_double(&b, dt);
}

/* start + step * i: int64 arithmetic for integer results, double for floating ones */
static int arange_from(mt_tensor *out, mt_value start, mt_value step) {
    if (!mt_dtype_is_floating((mt_dtype)out->dtype)) {
        mt_value s = mt_vint(mt_scalar_int(start)), st = mt_vint(mt_scalar_int(step));
        return cuda_ew(out, CK_ARANGE, 0, NULL, &s, &st, MT_INT64);
    }
    mt_value s = mt_vdouble(mt_scalar_double(start)), st = mt_vdouble(mt_scalar_double(step));
    return cuda_ew(out, CK_ARANGE, 0, NULL, &s, &st, MT_FLOAT64);
}

/* arange(end), arange(start, end), arange(start, end, step) */
static int k_arange(mt_call *c, mt_value *a, mt_value *r) {
    const char *ov = c->op->schema->overload;
    if (!ov[0]) return arange_from(r[0].t, mt_vint(0), mt_vint(1));
    return arange_from(r[0].t, a[0], strcmp(ov, "start") ? a[2] : mt_vint(1));
}

/* range(start, end, step): the end included; bfloat16 counts in float, as on the CPU */
static int k_range(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *out = r[0].t;
    if (out->dtype != MT_BFLOAT16) return arange_from(out, a[0], a[2]);
    mt_value s = mt_vdouble((float)mt_scalar_double(a[0]));
    mt_value st = mt_vdouble((float)mt_scalar_double(a[2]));
    return cuda_ew(out, CK_ARANGE, 0, NULL, &s, &st, MT_FLOAT32);
}

/* linspace(start, end, steps): float arithmetic for float32 and the half types (the bounds
 * rounded to the dtype first), double for float64 and integers (integer bounds) */
static int k_linspace(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *out = r[0].t;
    mt_dtype dt = (mt_dtype)out->dtype;
    int64_t steps = out->numel;
    if (dt == MT_FLOAT32 || dt == MT_FLOAT16 || dt == MT_BFLOAT16) {
        float start = (float)in_dtype((float)mt_scalar_double(a[0]), dt);
        float end = (float)in_dtype((float)mt_scalar_double(a[1]), dt);
        float step = steps > 1 ? (end - start) / (float)(steps - 1) : 0.0f;
        mt_value s = mt_vdouble(start), st = mt_vdouble(step);
        return cuda_ew_ex(out, CK_LINSPACE, 0, NULL, &s, &st, end, 0, MT_FLOAT32);
    }
    bool fl = mt_dtype_is_floating(dt);
    double start = fl ? mt_scalar_double(a[0]) : (double)mt_scalar_int(a[0]);
    double end = fl ? mt_scalar_double(a[1]) : (double)mt_scalar_int(a[1]);
    double step = steps > 1 ? (end - start) / (double)(steps - 1) : 0.0;
    mt_value s = mt_vdouble(start), st = mt_vdouble(step);
    return cuda_ew_ex(out, CK_LINSPACE, 0, NULL, &s, &st, end, 0, MT_FLOAT64);
}

/* logspace(start, end, steps, base): base ** x in double, x as linspace's but unfused; the
 * bounds take the result's dtype and their difference is computed in it (float for the
 * narrower floats); one step is base ** start itself */
static int k_logspace(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *out = r[0].t;
    mt_dtype dt = (mt_dtype)out->dtype;
    int64_t steps = out->numel;
    double start, end, diff;
    if (mt_dtype_is_floating(dt)) {
        start = in_dtype(mt_scalar_double(a[0]), dt);
        end = in_dtype(mt_scalar_double(a[1]), dt);
        diff = dt == MT_FLOAT64 ? end - start : in_dtype((float)end - (float)start, dt);
    } else {
        uint64_t b[2] = {0, 0};
        mt_store_int64(&b[0], dt, mt_scalar_int(a[0]));
        mt_store_int64(&b[1], dt, mt_scalar_int(a[1]));
        start = (double)mt_load_int64(&b[0], dt);
        end = (double)mt_load_int64(&b[1], dt);
        diff = end - start;
    }
    if (steps == 1) start = mt_scalar_double(a[0]);
    mt_value s = mt_vdouble(start), st = mt_vdouble(steps > 1 ? diff / (double)(steps - 1) : 0);
    return cuda_ew_ex(out, CK_LOGSPACE, 0, NULL, &s, &st, end, a[3].d, MT_FLOAT64);
}

/* eye(n), eye(n, m): zeros, then ones along the diagonal (a header over the result's storage
 * with the two strides summed, for this launch only) */
static int k_eye(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    (void)a;
    mt_tensor *out = r[0].t;
    if (cuda_zero(out)) return -1;
    mt_tensor diag = *out;
    diag.ndim = 1;
    diag.sizes[0] = out->sizes[0] < out->sizes[1] ? out->sizes[0] : out->sizes[1];
    diag.strides[0] = out->strides[0] + out->strides[1];
    diag.numel = diag.sizes[0];
    mt_value one = mt_vint(1);
    return cuda_ew(&diag, CK_FILL, 0, NULL, &one, NULL, (mt_dtype)out->dtype);
}

const mt_kernel_entry cuda_factory_kernels[] = {
    {"arange", k_arange},    {"arange.start", k_arange}, {"arange.start_step", k_arange},
    {"range.step", k_range}, {"linspace", k_linspace},   {"logspace", k_logspace},
    {"eye", k_eye},          {"eye.m", k_eye},
};
const size_t cuda_factory_kernels_count = MT_ARRAY_LEN(cuda_factory_kernels);
