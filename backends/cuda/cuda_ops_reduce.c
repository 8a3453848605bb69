/* cuda_ops_reduce.c: reductions (sum, mean, max, min, amax, amin, of everything or over dims)
 * and softmax / log_softmax on CUDA. A reduction is one launch of kernels/ck_reduce.cuh when each
 * output has few elements or there are many outputs; otherwise each output's elements are split
 * into parts that a first launch sums into partials (in the accumulation type: float for the
 * float types, double, int64), and the partials are reduced again until one part is left. */
#include <string.h>

#include "cuda_launch.h"
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"

/* at least this many threads before a reduction is split into parts, and at most this many
 * elements per part */
enum { WANT_THREADS = 1 << 16, MAX_CHUNK = 1024 };

static int dev_of(const mt_tensor *t) {
    return t->device.index < 0 ? cuda_current_device() : t->device.index;
}

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
    int device = dev_of(out);
    mt_tensor *partial = NULL;
    int rc = 0;
    for (;;) {
        int64_t parts = 1;
        if (a.R > MAX_CHUNK && a.M < WANT_THREADS) {
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
        /* the next pass reduces the partials: M rows of `parts` contiguous values */
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

/* softmax(self, dim, dtype), log_softmax: computed in the result's type (float for the half
 * types) */
static int softmax(mt_value *a, mt_value *r, bool log) {
    mt_tensor *self = a[0].t, *out = r[0].t;
    if (out->numel == 0) return 0;
    int dim;
    if (mt_wrap_dim(a[1].i, self->ndim, &dim)) return -1;
    ck_softmax_args k;
    memset(&k, 0, sizeof k);
    k.log = log;
    k.rows = 1;
    k.len = self->ndim ? self->sizes[dim] : 1;
    k.in_step = self->ndim ? self->strides[dim] : 0;
    k.out_step = out->ndim ? out->strides[dim] : 0;
    for (int d = 0; d < self->ndim; d++) {
        if (d == dim) continue;
        k.ksizes[k.kdim] = self->sizes[d];
        k.in.strides[k.kdim] = self->strides[d];
        k.out.strides[k.kdim++] = out->strides[d];
        k.rows *= self->sizes[d];
    }
    k.in.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(self);
    k.in.dtype = self->dtype;
    k.out.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(out);
    k.out.dtype = out->dtype;
    cuda_fn fn = out->dtype == MT_FLOAT64 ? CUDA_FN_SOFTMAX_F64 : CUDA_FN_SOFTMAX_F32;
    return cuda_launch(dev_of(out), fn, k.rows, &k);
}

static int k_softmax(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return softmax(a, r, false);
}

static int k_log_softmax(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return softmax(a, r, true);
}

const mt_kernel_entry cuda_reduce_kernels[] = {
    {"sum", k_sum_all},         {"sum.dim_IntList", k_sum_dims},
    {"mean", k_mean_all},       {"mean.dim", k_mean_dims},
    {"max", k_max_all},         {"min", k_min_all},
    {"amax", k_amax},           {"amin", k_amin},
    {"softmax.int", k_softmax}, {"log_softmax.int", k_log_softmax},
};
const size_t cuda_reduce_kernels_count = MT_ARRAY_LEN(cuda_reduce_kernels);
