/* cuda_ops_reduce.c: reductions (sum, mean, max, min, amax, amin, of everything or over dims)
 * and softmax / log_softmax on CUDA. A reduction is one launch of kernels/ck_reduce.cuh when each
 * output has few elements or there are many outputs; otherwise each output's elements are split
 * into parts that a first launch sums into partials (in the accumulation type: float for the
 * float types, double, int64), and the partials are reduced again until one part is left. */
#include <math.h>
#include <string.h>

#include "cuda_launch.h"
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"

/* at least this many threads before a reduction is split into parts, and at most this many
 * elements per part */
enum { WANT_THREADS = 1 << 16, MAX_CHUNK = 1024 };

static mt_dtype accumulate_type(mt_dtype dt) {
    return dt == MT_FLOAT64 ? MT_FLOAT64 : mt_dtype_is_floating(dt) ? MT_FLOAT32 : MT_INT64;
}

static cuda_fn reduce_fn(mt_dtype acc) {
    return acc == MT_FLOAT64   ? CUDA_FN_REDUCE_F64
           : acc == MT_FLOAT32 ? CUDA_FN_REDUCE_F32
                               : CUDA_FN_REDUCE_I64;
}

/* out (contiguous, in the kept dimensions' order) <- op over the dims of self marked in `red`;
 * mean divides by the count of each output's elements */
static int reduce(mt_tensor *self, mt_tensor *out, const bool *red, int op, bool mean,
                  mt_dtype compute) {
    if (!mt_tensor_is_contiguous(out))
        return mt_error(MT_ERR_RUNTIME, "a CUDA reduction writes a contiguous result");
    ck_reduce_args a;
    memset(&a, 0, sizeof a);
    a.op = op;
    a.R = 1;
    for (int d = 0; d < self->ndim; d++) {
        if (red[d]) {
            a.rsizes[a.rdim] = self->sizes[d];
            a.rstrides[a.rdim++] = self->strides[d];
            a.R *= self->sizes[d];
        } else {
            a.ksizes[a.kdim] = self->sizes[d];
            a.kstrides[a.kdim++] = self->strides[d];
        }
    }
    a.M = out->numel;
    if (a.M == 0) return 0;
    a.in.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(self);
    a.in.dtype = self->dtype;
    a.count = a.R;
    mt_dtype acc = accumulate_type(compute);
    int device = cuda_device_of(out);
    mt_tensor *partial = NULL;
    int rc = 0;
    bool arg = op == CK_RARGMAX || op == CK_RARGMIN; /* one pass: positions do not split */
    for (;;) {
        int64_t parts = 1;
        if (!arg && a.R > MAX_CHUNK && a.M < WANT_THREADS) {
            parts = (a.R + MAX_CHUNK - 1) / MAX_CHUNK;
            int64_t enough = (WANT_THREADS + a.M - 1) / a.M;
            if (parts > enough) parts = enough;
        }
        a.chunk = parts > 1 ? (a.R + parts - 1) / parts : a.R;
        a.parts = parts > 1 ? (a.R + a.chunk - 1) / a.chunk : 1;
        mt_tensor *dst = out;
        if (a.parts > 1) {
            int64_t n[1] = {a.M * a.parts};
            dst = mt_tensor_empty(1, n, acc, (mt_device){(int8_t)cuda_devtype, (int8_t)device});
            if (!dst) {
                rc = -1;
                break;
            }
        }
        a.out.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(dst);
        a.out.dtype = dst->dtype;
        a.scale_by_count = mean && a.parts == 1;
        rc = cuda_launch(device, reduce_fn(acc), a.M * a.parts, &a);
        /* the last partials may go now: later work on this stream is queued after the launch */
        if (partial) mt_tensor_decref(partial);
        partial = dst == out ? NULL : dst;
        if (rc || dst == out) break;
        /* the next pass reduces the partials: M rows of `parts` contiguous values (a NaN
         * among nansum's partials came from infinities of both signs, and stays) */
        if (a.op == CK_RNANSUM) a.op = CK_RSUM;
        a.in.ptr = a.out.ptr;
        a.in.dtype = acc;
        a.kdim = a.rdim = 1;
        a.ksizes[0] = a.M;
        a.kstrides[0] = a.parts;
        a.rsizes[0] = a.R = a.parts;
        a.rstrides[0] = 1;
    }
    if (partial) mt_tensor_decref(partial);
    return rc;
}

/* the dims a reduction takes: all of them without a list (or with an empty one) */
static int dims_of(mt_tensor *self, const mt_value *dims, bool *red) {
    memset(red, 0, sizeof(bool) * MT_MAX_DIM);
    bool all = !dims || dims->tag != MT_V_INTLIST || dims->n == 0;
    for (int d = 0; d < self->ndim; d++) red[d] = all;
    if (all) return 0;
    for (int i = 0; i < dims->n; i++) {
        int d;
        if (mt_wrap_dim(dims->il[i], self->ndim, &d)) return -1;
        if (self->ndim) red[d] = true;
    }
    return 0;
}

#define OUT(r) ((mt_dtype)(r)[0].t->dtype)

static int k_sum_all(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    bool red[MT_MAX_DIM];
    dims_of(a[0].t, NULL, red);
    return reduce(a[0].t, r[0].t, red, CK_RSUM, false, OUT(r));
}

static int k_sum_dims(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    bool red[MT_MAX_DIM];
    return dims_of(a[0].t, &a[1], red) ? -1 : reduce(a[0].t, r[0].t, red, CK_RSUM, false, OUT(r));
}

static int k_mean_all(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    bool red[MT_MAX_DIM];
    dims_of(a[0].t, NULL, red);
    return reduce(a[0].t, r[0].t, red, CK_RSUM, true, OUT(r));
}

static int k_mean_dims(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    bool red[MT_MAX_DIM];
    return dims_of(a[0].t, &a[1], red) ? -1 : reduce(a[0].t, r[0].t, red, CK_RSUM, true, OUT(r));
}

/* nansum(self, dim?, keepdim, dtype): NaN counts as zero */
static int k_nansum(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    bool red[MT_MAX_DIM];
    return dims_of(a[0].t, &a[1], red) ? -1
                                       : reduce(a[0].t, r[0].t, red, CK_RNANSUM, false, OUT(r));
}

/* max(self), min(self): NaN propagates */
static int k_max_all(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    bool red[MT_MAX_DIM];
    dims_of(a[0].t, NULL, red);
    return reduce(a[0].t, r[0].t, red, CK_RMAX, false, OUT(r));
}

static int k_min_all(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    bool red[MT_MAX_DIM];
    dims_of(a[0].t, NULL, red);
    return reduce(a[0].t, r[0].t, red, CK_RMIN, false, OUT(r));
}

/* amax(self, dims, keepdim), amin */
static int k_amax(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    bool red[MT_MAX_DIM];
    return dims_of(a[0].t, &a[1], red) ? -1 : reduce(a[0].t, r[0].t, red, CK_RMAX, false, OUT(r));
}

static int k_amin(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    bool red[MT_MAX_DIM];
    return dims_of(a[0].t, &a[1], red) ? -1 : reduce(a[0].t, r[0].t, red, CK_RMIN, false, OUT(r));
}

/* any(self), all(self), and along a dim: written as bool (a NaN counts as true) */
static int any_all(mt_value *a, mt_value *r, int op, bool along) {
    bool red[MT_MAX_DIM];
    mt_value one = along ? mt_vilist(&a[1].i, 1) : MT_NONE;
    return dims_of(a[0].t, along ? &one : NULL, red)
               ? -1
               : reduce(a[0].t, r[0].t, red, op, false, (mt_dtype)a[0].t->dtype);
}

static int k_any(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return any_all(a, r, CK_RANY, false);
}
static int k_any_dim(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return any_all(a, r, CK_RANY, true);
}
static int k_all(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return any_all(a, r, CK_RALL, false);
}
static int k_all_dim(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return any_all(a, r, CK_RALL, true);
}

/* max.dim(self, dim, keepdim) -> (values, indices), min.dim: the positions by the arg
 * reduction, the values gathered at them */
static int extreme_dim(mt_value *a, mt_value *r, int op) {
    mt_tensor *self = a[0].t, *values = r[0].t, *indices = r[1].t;
    if (indices->numel == 0) return 0;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    bool red[MT_MAX_DIM] = {false};
    if (self->ndim) red[d] = true;
    if (reduce(self, indices, red, op, false, (mt_dtype)self->dtype)) return -1;
    if (self->ndim == 0) {
        mt_tensor *in[1] = {self};
        return cuda_ew(values, CK_COPY, 1, in, NULL, NULL, (mt_dtype)self->dtype);
    }
    /* both results seen with the dim kept (size 1) */
    int64_t sizes[MT_MAX_DIM], vstr[MT_MAX_DIM], istr[MT_MAX_DIM];
    bool kept = values->ndim == self->ndim;
    for (int k = 0, j = 0; k < self->ndim; k++) {
        sizes[k] = k == d ? 1 : self->sizes[k];
        vstr[k] = k == d ? 0 : values->strides[kept ? k : j];
        istr[k] = k == d ? 0 : indices->strides[kept ? k : j];
        if (k != d) j++;
    }
    mt_tensor *v = mt_tensor_view_of(values, self->ndim, sizes, vstr, values->offset);
    mt_tensor *i = v ? mt_tensor_view_of(indices, self->ndim, sizes, istr, indices->offset) : NULL;
    int rc = i ? cuda_gather(self, d, i, v) : -1;
    if (v) mt_tensor_decref(v);
    if (i) mt_tensor_decref(i);
    return rc;
}

static int k_max_dim(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return extreme_dim(a, r, CK_RARGMAX);
}

static int k_min_dim(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return extreme_dim(a, r, CK_RARGMIN);
}

/* norm.Scalar(self, p), norm.ScalarOpt_dim(self, p?, dims, keepdim): the p-norm, from |self|:
 * inf and -inf its largest and smallest, 0 the count of nonzeros, else (sum |x|^p)^(1/p) */
static int norm(mt_tensor *self, const mt_value *pv, const mt_value *dims, mt_tensor *out) {
    double p = !pv || pv->tag == MT_V_NONE ? 2 : pv->tag == MT_V_DOUBLE ? pv->d : (double)pv->i;
    bool red[MT_MAX_DIM];
    if (dims_of(self, dims, red)) return -1;
    mt_dtype dt = (mt_dtype)out->dtype;
    mt_tensor *mag = mt_tensor_empty(self->ndim, self->sizes, dt, self->device);
    if (!mag) return -1;
    mt_tensor *in[1] = {self}, *m[1] = {mag}, *o[1] = {out};
    int rc = cuda_ew(mag, CK_ABS, 1, in, NULL, NULL, dt);
    if (!rc && isinf(p)) {
        rc = reduce(mag, out, red, p > 0 ? CK_RMAX : CK_RMIN, false, dt);
    } else if (!rc) {
        mt_value pw = mt_vdouble(p), zero = mt_vint(0), inv = mt_vdouble(1 / p);
        if (p == 0)
            rc = cuda_ew(mag, CK_NE, 1, m, &zero, NULL, dt);
        else if (p != 1)
            rc = cuda_ew(mag, CK_POW, 1, m, &pw, NULL, dt);
        if (!rc) rc = reduce(mag, out, red, CK_RSUM, false, dt);
        if (!rc && p != 0 && p != 1) rc = cuda_ew(out, CK_POW, 1, o, &inv, NULL, dt);
    }
    mt_tensor_decref(mag);
    return rc;
}

static int k_norm(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return norm(a[0].t, &a[1], NULL, r[0].t);
}

static int k_norm_dim(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return norm(a[0].t, &a[1], &a[2], r[0].t);
}

/* argmax(self, dim?, keepdim), argmin: the first position of the extreme, over everything
 * (of the flattened tensor) without a dim */
static int arg_extreme(mt_value *a, mt_value *r, int op) {
    mt_tensor *self = a[0].t;
    bool red[MT_MAX_DIM];
    mt_value one = a[1].tag == MT_V_INT ? mt_vilist(&a[1].i, 1) : MT_NONE;
    /* a position counts the reduced dims in row-major order whatever the strides: over every
     * dim, the flattened index */
    return dims_of(self, &one, red) ? -1
                                    : reduce(self, r[0].t, red, op, false, (mt_dtype)self->dtype);
}

static int k_argmax(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return arg_extreme(a, r, CK_RARGMAX);
}

static int k_argmin(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return arg_extreme(a, r, CK_RARGMIN);
}

/* var and std over the dims marked in `red`: the mean (kept as a dim of size 1), the squared
 * deviations from it summed, divided by max(0, n - correction); mean_out, when asked, gets the
 * mean */
static int variance(mt_tensor *self, const bool *red, int64_t correction, mt_tensor *var_out,
                    mt_tensor *mean_out, bool take_sqrt) {
    if (var_out->numel == 0) return 0;
    mt_dtype dt = (mt_dtype)var_out->dtype;
    int64_t ks[MT_MAX_DIM], n = 1;
    for (int d = 0; d < self->ndim; d++) {
        ks[d] = red[d] ? 1 : self->sizes[d];
        if (red[d]) n *= self->sizes[d];
    }
    mt_tensor *mean = mt_tensor_empty(self->ndim, ks, dt, self->device);
    mt_tensor *dev = mean ? mt_tensor_empty(self->ndim, self->sizes, dt, self->device) : NULL;
    int rc = dev ? reduce(self, mean, red, CK_RSUM, true, dt) : -1;
    mt_tensor *in[2] = {self, mean}, *sq[2] = {dev, dev};
    if (!rc) rc = cuda_ew(dev, CK_SUB, 2, in, NULL, NULL, dt);
    if (!rc) rc = cuda_ew(dev, CK_MUL, 2, sq, NULL, NULL, dt);
    if (!rc) rc = reduce(dev, var_out, red, CK_RSUM, false, dt);
    mt_value divisor = mt_vint(n - correction > 0 ? n - correction : 0);
    mt_tensor *v[1] = {var_out};
    if (!rc) rc = cuda_ew(var_out, CK_DIV, 1, v, &divisor, NULL, dt);
    if (!rc && take_sqrt) rc = cuda_ew(var_out, CK_SQRT, 1, v, NULL, NULL, dt);
    if (!rc && mean_out && mean_out->numel) { /* the same numbers, in mean_out's shape */
        mt_tensor *flat = mt_tensor_view_of(mean, mean_out->ndim, mean_out->sizes,
                                            mean_out->strides, mean->offset);
        mt_tensor *m[1] = {flat};
        rc = flat ? cuda_ew(mean_out, CK_COPY, 1, m, NULL, NULL, dt) : -1;
        if (flat) mt_tensor_decref(flat);
    }
    if (mean) mt_tensor_decref(mean);
    if (dev) mt_tensor_decref(dev);
    return rc;
}

/* var.correction(self, dim?, *, correction?, keepdim) and its std and var_mean forms; var.dim
 * (self, dim, unbiased, keepdim); var(self, unbiased) */
static int64_t correction_of(const mt_value *v) {
    return v->tag == MT_V_NONE ? 1 : v->tag == MT_V_BOOL ? v->b : v->i;
}

#define K_VARIANCE(fn, SQRT)                                                                       \
    static int k_##fn##_correction(mt_call *c, mt_value *a, mt_value *r) {                         \
        (void)c;                                                                                   \
        bool red[MT_MAX_DIM];                                                                      \
        return dims_of(a[0].t, &a[1], red)                                                         \
                   ? -1                                                                            \
                   : variance(a[0].t, red, correction_of(&a[2]), r[0].t, NULL, SQRT);              \
    }                                                                                              \
    static int k_##fn##_dim(mt_call *c, mt_value *a, mt_value *r) {                                \
        (void)c;                                                                                   \
        bool red[MT_MAX_DIM];                                                                      \
        return dims_of(a[0].t, &a[1], red) ? -1                                                    \
                                           : variance(a[0].t, red, a[2].b, r[0].t, NULL, SQRT);    \
    }                                                                                              \
    static int k_##fn##_all(mt_call *c, mt_value *a, mt_value *r) {                                \
        (void)c;                                                                                   \
        bool red[MT_MAX_DIM];                                                                      \
        dims_of(a[0].t, NULL, red);                                                                \
        return variance(a[0].t, red, a[1].b, r[0].t, NULL, SQRT);                                  \
    }
K_VARIANCE(var, false)
K_VARIANCE(std, true)

/* var_mean and std_mean: the variance (or its root) and the mean */
#define K_MOMENT_MEAN(fn, SQRT)                                                                    \
    static int k_##fn##_correction(mt_call *c, mt_value *a, mt_value *r) {                         \
        (void)c;                                                                                   \
        bool red[MT_MAX_DIM];                                                                      \
        return dims_of(a[0].t, &a[1], red)                                                         \
                   ? -1                                                                            \
                   : variance(a[0].t, red, correction_of(&a[2]), r[0].t, r[1].t, SQRT);            \
    }                                                                                              \
    static int k_##fn##_dim(mt_call *c, mt_value *a, mt_value *r) {                                \
        (void)c;                                                                                   \
        bool red[MT_MAX_DIM];                                                                      \
        return dims_of(a[0].t, &a[1], red) ? -1                                                    \
                                           : variance(a[0].t, red, a[2].b, r[0].t, r[1].t, SQRT);  \
    }                                                                                              \
    static int k_##fn##_all(mt_call *c, mt_value *a, mt_value *r) {                                \
        (void)c;                                                                                   \
        bool red[MT_MAX_DIM];                                                                      \
        dims_of(a[0].t, NULL, red);                                                                \
        return variance(a[0].t, red, a[1].b, r[0].t, r[1].t, SQRT);                                \
    }
K_MOMENT_MEAN(var_mean, false)
K_MOMENT_MEAN(std_mean, true)

/* equal(self, other): the same sizes and every element equal in their common type, as eq (an
 * empty pair is equal); the verdict comes back to the host */
static int k_equal(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *x = a[0].t, *y = a[1].t;
    bool same =
        x->ndim == y->ndim && !memcmp(x->sizes, y->sizes, sizeof(int64_t) * (size_t)x->ndim);
    r[0] = mt_vbool(same);
    if (!same || x->numel == 0) return 0;
    mt_tensor *eq = mt_tensor_empty(x->ndim, x->sizes, MT_BOOL, x->device);
    mt_tensor *all = eq ? mt_tensor_empty(0, NULL, MT_BOOL, x->device) : NULL;
    mt_tensor *in[2] = {x, y};
    bool red[MT_MAX_DIM];
    dims_of(x, NULL, red);
    uint8_t verdict = 0;
    int rc = all ? cuda_ew(eq, CK_EQ, 2, in, NULL, NULL,
                           mt_promote_types((mt_dtype)x->dtype, (mt_dtype)y->dtype))
                 : -1;
    if (!rc) rc = reduce(eq, all, red, CK_RALL, false, MT_BOOL);
    if (!rc) rc = cuda_copy_bytes(&verdict, MT_CPU, mt_tensor_raw(all), all->device, 1);
    if (all) mt_tensor_decref(all);
    if (eq) mt_tensor_decref(eq);
    r[0] = mt_vbool(verdict != 0);
    return rc;
}

/* softmax(self, dim, dtype), log_softmax, cumsum(self, dim, dtype), cumprod, logcumsumexp(self,
 * dim), cummax(self, dim) and cummin (values and positions): along one dim, in the result's
 * type (float for the half types, int64 for integers and bool) */
static int along(mt_value *a, mt_value *r, int mode) {
    mt_tensor *self = a[0].t, *out = r[0].t;
    if (out->numel == 0) return 0;
    int dim;
    if (mt_wrap_dim(a[1].i, self->ndim, &dim)) return -1;
    ck_softmax_args k;
    memset(&k, 0, sizeof k);
    k.mode = mode;
    k.rows = 1;
    k.len = self->ndim ? self->sizes[dim] : 1;
    k.in_step = self->ndim ? self->strides[dim] : 0;
    k.out_step = out->ndim ? out->strides[dim] : 0;
    mt_tensor *idx = mode == CK_CUMMAX || mode == CK_CUMMIN ? r[1].t : NULL;
    if (idx) {
        k.idx.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(idx);
        k.idx.dtype = idx->dtype;
        k.idx_step = idx->ndim ? idx->strides[dim] : 0;
    }
    for (int d = 0; d < self->ndim; d++) {
        if (d == dim) continue;
        k.ksizes[k.kdim] = self->sizes[d];
        k.in.strides[k.kdim] = self->strides[d];
        if (idx) k.idx.strides[k.kdim] = idx->strides[d];
        k.out.strides[k.kdim++] = out->strides[d];
        k.rows *= self->sizes[d];
    }
    k.in.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(self);
    k.in.dtype = self->dtype;
    k.out.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(out);
    k.out.dtype = out->dtype;
    mt_dtype dt = (mt_dtype)out->dtype;
    cuda_fn fn = dt == MT_FLOAT64           ? CUDA_FN_SOFTMAX_F64
                 : mt_dtype_is_floating(dt) ? CUDA_FN_SOFTMAX_F32
                                            : CUDA_FN_SOFTMAX_I64;
    return cuda_launch(cuda_device_of(out), fn, k.rows, &k);
}

static int k_softmax(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return along(a, r, CK_SOFTMAX);
}

static int k_cumsum(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return along(a, r, CK_CUMSUM);
}

static int k_cumprod(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return along(a, r, CK_CUMPROD);
}

static int k_cummax(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return along(a, r, CK_CUMMAX);
}

static int k_cummin(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return along(a, r, CK_CUMMIN);
}

static int k_logcumsumexp(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return along(a, r, CK_LOGCUMSUMEXP);
}

/* prod(self, dtype), prod.dim_int(self, dim, keepdim, dtype) */
static int k_prod_all(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    bool red[MT_MAX_DIM];
    dims_of(a[0].t, NULL, red);
    return reduce(a[0].t, r[0].t, red, CK_RPROD, false, OUT(r));
}

static int k_prod_dim(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    bool red[MT_MAX_DIM];
    mt_value one = mt_vilist(&a[1].i, 1);
    return dims_of(a[0].t, &one, red) ? -1 : reduce(a[0].t, r[0].t, red, CK_RPROD, false, OUT(r));
}

static int k_log_softmax(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return along(a, r, CK_LOG_SOFTMAX);
}

const mt_kernel_entry cuda_reduce_kernels[] = {
    {"sum", k_sum_all},
    {"sum.dim_IntList", k_sum_dims},
    {"mean", k_mean_all},
    {"mean.dim", k_mean_dims},
    {"max", k_max_all},
    {"min", k_min_all},
    {"amax", k_amax},
    {"amin", k_amin},
    {"softmax.int", k_softmax},
    {"log_softmax.int", k_log_softmax},
    {"var.correction", k_var_correction},
    {"var.dim", k_var_dim},
    {"var", k_var_all},
    {"std.correction", k_std_correction},
    {"std.dim", k_std_dim},
    {"std", k_std_all},
    {"var_mean.correction", k_var_mean_correction},
    {"var_mean.dim", k_var_mean_dim},
    {"var_mean", k_var_mean_all},
    {"std_mean.correction", k_std_mean_correction},
    {"std_mean.dim", k_std_mean_dim},
    {"std_mean", k_std_mean_all},
    {"nansum", k_nansum},
    {"equal", NULL, k_equal},
    {"any", k_any},
    {"any.dim", k_any_dim},
    {"all", k_all},
    {"all.dim", k_all_dim},
    {"max.dim", k_max_dim},
    {"min.dim", k_min_dim},
    {"norm.Scalar", k_norm},
    {"norm.ScalarOpt_dim", k_norm_dim},
    {"cumsum", k_cumsum},
    {"cumprod", k_cumprod},
    {"cummax", k_cummax},
    {"cummin", k_cummin},
    {"logcumsumexp", k_logcumsumexp},
    {"prod", k_prod_all},
    {"prod.dim_int", k_prod_dim},
    {"argmax", k_argmax},
    {"argmin", k_argmin},
};
const size_t cuda_reduce_kernels_count = MT_ARRAY_LEN(cuda_reduce_kernels);
