/* statistics.c: reductions and statistics written with other ops (src/ops/statistics.lua):
 * aminmax, nanmean, count_nonzero, median, nanmedian, mode, quantile, nanquantile, diff, dist,
 * renorm, cdist, pdist, cov, corrcoef, trapezoid, cumulative_trapezoid, histc, bincount,
 * histogram, histogramdd, gradient; and the meta function of the scans cummax, cummin and
 * logcumsumexp, whose CPU kernels are in backends/cpu/cpu_stats.c. They run above every dispatch
 * key, so the meta device and the pipeline see sort, gather, cumsum ...; autograd too unless the op
 * declares its own formula.
 *
 * Every temporary goes into a scope that releases them all at the end; an op that fails
 * (or a check) jumps back to the kernel's entry, which releases what was made and returns -1. */
#include "common_ops.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#define NODEV ((mt_device){-1, -1})

/* ---- the scope of temporaries ------------------------------------------------------------- */

#define SCOPE_MAX 512

typedef struct scope {
    jmp_buf jb;
    mt_tensor *t[SCOPE_MAX];
    int n;
} scope;

static void release(scope *s) {
    for (int i = 0; i < s->n; i++) mt_tensor_decref(s->t[i]);
    s->n = 0;
}

/* t kept until the scope ends; a NULL t (an op's error) leaves the kernel */
static mt_tensor *keep(scope *s, mt_tensor *t) {
    if (!t) longjmp(s->jb, 1);
    if (s->n == SCOPE_MAX) {
        mt_tensor_decref(t);
        mt_error(MT_ERR_RUNTIME, "statistics: too many temporaries");
        longjmp(s->jb, 1);
    }
    s->t[s->n++] = t;
    return t;
}

static void check(scope *s, int status) {
    if (status) longjmp(s->jb, 1);
}

#define BEGIN                                                                                      \
    scope sc_;                                                                                     \
    sc_.n = 0;                                                                                     \
    scope *S = &sc_;                                                                               \
    if (setjmp(sc_.jb)) {                                                                          \
        release(S);                                                                                \
        return -1;                                                                                 \
    }
#define K(x) keep(S, (x))
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        mt_error(__VA_ARGS__);                                                                     \
        longjmp(S->jb, 1);                                                                         \
    } while (0)

/* the kernel's results: new references in r, the temporaries released */
static int done(scope *s, mt_value *r, int n, mt_tensor *a, mt_tensor *b) {
    mt_tensor *ts[2] = {a, b};
    for (int i = 0; i < n; i++) {
        mt_tensor_incref(ts[i]);
        r[i] = mt_vtensor(ts[i]);
    }
    release(s);
    return 0;
}

static mt_ilist ilist_of(mt_value v) {
    return v.tag == MT_V_INTLIST ? (mt_ilist){v.il, v.n} : MT_ILIST_NONE;
}

static int dtype_of(mt_value v) {
    return v.tag == MT_V_DTYPE ? (int)v.dtype : -1;
}

/* a 0-d int64 zero on t's device: the position of a 0-d tensor's only element */
static mt_tensor *zero_index(scope *S, mt_tensor *t) {
    return K(mto_zeros((mt_ilist){NULL, 0}, MT_INT64, t->device, false, false));
}

static mt_tensor *sort_stable(scope *S, mt_tensor *x, int64_t d, mt_tensor **idx) {
    mt_tensor *v = NULL, *i = NULL;
    check(S, mto_sort_stable(x, mt_vbool(true), d, false, &v, &i));
    K(v);
    *idx = K(i);
    return v;
}

/* ---- aminmax, nanmean, count_nonzero ------------------------------------------------------ */

static int c_aminmax(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    BEGIN;
    mt_tensor *x = a[0].t;
    bool keepdim = a[2].b;
    mt_ilist dims = {NULL, 0};
    int64_t d64;
    if (x->dtype == MT_FLOAT16) FAIL(MT_ERR_RUNTIME, "\"aminmax_cpu\" not implemented for 'Half'");
    if (a[1].tag == MT_V_INT) {
        int d;
        check(S, mt_wrap_dim(a[1].i, x->ndim, &d));
        if (x->ndim > 0 && x->sizes[d] == 0)
            FAIL(MT_ERR_INDEX, "aminmax: Expected reduction dim %lld to have non-zero size.",
                 mt_user_dim(d));
        d64 = d;
        dims = (mt_ilist){&d64, 1};
        if (x->dtype == MT_BFLOAT16) /* PyTorch 1.13's CPU kernel along a dim lacks it */
            FAIL(MT_ERR_RUNTIME, "\"aminmax_cpu\" not implemented for 'BFloat16'");
    } else if (x->numel == 0) {
        FAIL(MT_ERR_RUNTIME, "aminmax(): cannot compute aminmax over an empty dimension as the "
                             "operation has no identity.");
    }
    mt_tensor *lo = K(mto_amin(x, dims, keepdim)), *hi = K(mto_amax(x, dims, keepdim));
    return done(S, r, 2, lo, hi);
}

static int c_nanmean(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    BEGIN;
    mt_tensor *x = a[0].t;
    if (!mt_dtype_is_floating((mt_dtype)x->dtype))
        FAIL(MT_ERR_RUNTIME, "nanmean(): expected input to have floating point dtype but got %s",
             mt_dtype_scalar_name((mt_dtype)x->dtype));
    mt_ilist dims = ilist_of(a[1]);
    mt_tensor *count =
        K(mto_sum_dim_IntList(K(mto_logical_not(K(mto_isnan(x)))), dims, a[2].b, -1));
    mt_tensor *sum = K(mto_nansum(x, dims, a[2].b, dtype_of(a[3])));
    return done(S, r, 1, K(mto_div_Tensor(sum, count)), NULL);
}

static int c_count_nonzero(mt_call *c, mt_value *a, mt_value *r) {
    BEGIN;
    mt_tensor *nz = K(mto_ne_Scalar(a[0].t, mt_vint(0)));
    mt_ilist dims = {NULL, 0};
    int64_t d;
    if (c->op->id == MT_OP_count_nonzero_dim_IntList) {
        dims = ilist_of(a[1]);
        if (dims.n < 0) dims.n = 0;
    } else if (a[1].tag == MT_V_INT) {
        d = a[1].i;
        dims = (mt_ilist){&d, 1};
    }
    /* an empty list sums over everything, as PyTorch's */
    mt_tensor *n =
        dims.n ? K(mto_sum_dim_IntList(nz, dims, false, MT_INT64)) : K(mto_sum(nz, MT_INT64));
    return done(S, r, 1, n, NULL);
}

/* ---- median, nanmedian, mode -------------------------------------------------------------- */

/* The lower median along dim d of x (ndim > 0) with its position: the element at rank k of a
 * stable sort (NaN last), k = (n - 1) / 2 or, for nanmedian, (non-NaN count - 1) / 2; a row
 * with a NaN gives (median) its first NaN, the first one the sort put after the numbers. */
static void median_along(scope *S, mt_tensor *x, int64_t d, bool keepdim, bool ignore_nan,
                         mt_tensor **vals, mt_tensor **inds) {
    int64_t n = x->sizes[d];
    mt_tensor *perm, *sorted = sort_stable(S, x, d, &perm);
    int64_t dl = d;
    mt_tensor *count = K(mto_sum_dim_IntList(K(mto_logical_not(K(mto_isnan(sorted)))),
                                             (mt_ilist){&dl, 1}, true, MT_INT64));
    mt_tensor *k;
    if (ignore_nan) {
        mt_tensor *half = K(mto_div_Scalar_mode(K(mto_sub_Scalar(count, mt_vint(1), mt_vint(1))),
                                                mt_vint(2), "floor"));
        k = K(mto_clamp(half, mt_vint(0), MT_NONE));
    } else {
        k = K(mto_where_ScalarOther(K(mto_lt_Scalar(count, mt_vint(n))), count,
                                    mt_vint((n - 1) / 2)));
    }
    *vals = K(mto_gather(sorted, d, k, false));
    *inds = K(mto_gather(perm, d, k, false));
    if (!keepdim) {
        *vals = K(mto_squeeze_dim(*vals, d));
        *inds = K(mto_squeeze_dim(*inds, d));
    }
}

static void median_dtype_check(scope *S, mt_tensor *x, const char *kname) {
    if (x->dtype == MT_BOOL || x->dtype == MT_FLOAT16)
        FAIL(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kname,
             mt_dtype_scalar_name((mt_dtype)x->dtype));
}

static int c_median(mt_call *c, mt_value *a, mt_value *r) {
    BEGIN;
    mt_tensor *x = a[0].t;
    bool nan = c->op->id == MT_OP_nanmedian;
    median_dtype_check(S, x, "median_cpu");
    if (x->numel == 0) { /* NaN; in an integer type what x86 makes of it, as PyTorch's */
        mt_dtype dt = (mt_dtype)x->dtype;
        mt_value v = mt_dtype_is_floating(dt) ? mt_vdouble(NAN)
                     : dt == MT_INT64         ? mt_vint(INT64_MIN)
                     : dt == MT_INT32         ? mt_vint(INT32_MIN)
                                              : mt_vint(0);
        return done(S, r, 1, K(mto_full((mt_ilist){NULL, 0}, v, dt, x->device, false, false)),
                    NULL);
    }
    mt_tensor *v, *i, *flat = K(mto_reshape(x, MT_ILIST(-1)));
    median_along(S, flat, 0, false, nan, &v, &i);
    return done(S, r, 1, v, NULL);
}

static int c_median_dim(mt_call *c, mt_value *a, mt_value *r) {
    BEGIN;
    mt_tensor *x = a[0].t;
    bool nan = c->op->id == MT_OP_nanmedian_dim, keepdim = a[2].b;
    int d;
    check(S, mt_wrap_dim(a[1].i, x->ndim, &d));
    median_dtype_check(S, x, "median_out");
    if (x->ndim == 0) return done(S, r, 2, K(mto_clone(x, NULL)), zero_index(S, x));
    if (x->sizes[d] == 0)
        FAIL(MT_ERR_INDEX, "median(): Expected reduction dim %lld to have non-zero size.",
             mt_user_dim(d)); /* nanmedian's says median() too */
    mt_tensor *v, *i;
    median_along(S, x, d, keepdim, nan, &v, &i);
    return done(S, r, 2, v, i);
}

/* The most frequent value along dim: runs of equal values in a stable sort, the first longest
 * run (so the smallest value) wins, and its last element's position is the index (PyTorch's
 * CPU kernel scans the sorted pairs the same way). */
static int c_mode(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    BEGIN;
    mt_tensor *x = a[0].t;
    bool keepdim = a[2].b;
    int d;
    check(S, mt_wrap_dim(a[1].i, x->ndim, &d));
    if (x->ndim == 0) return done(S, r, 2, K(mto_clone(x, NULL)), zero_index(S, x));
    int64_t n = x->sizes[d];
    if (n == 0)
        FAIL(MT_ERR_INDEX, "mode(): Expected reduction dim %lld to have non-zero size.",
             mt_user_dim(d));
    mt_tensor *perm, *sorted = sort_stable(S, x, d, &perm);
    /* run ids along d: 0 at the start of a row, +1 where the value changes */
    mt_tensor *head = K(mto_narrow(sorted, d, 1, n - 1)),
              *prev = K(mto_narrow(sorted, d, 0, n - 1));
    mt_tensor *changed =
        K(mto_to_dtype(K(mto_ne_Tensor(head, prev)), MT_INT64, false, false, NULL));
    mt_tensor *first =
        K(mto_zeros_like(K(mto_narrow(sorted, d, 0, 1)), MT_INT64, NODEV, false, NULL));
    mt_tensor *parts[2] = {first, changed};
    mt_tensor *run = K(mto_cumsum(K(mto_cat(parts, 2, d)), d, -1));
    /* each element's run length: ones added per run id, read back per element */
    mt_tensor *ones = K(mto_ones_like(run, -1, NODEV, false, NULL));
    mt_tensor *len =
        K(mto_scatter_add(K(mto_zeros_like(run, -1, NODEV, false, NULL)), d, run, ones));
    mt_tensor *count = K(mto_gather(len, d, run, false));
    mt_tensor *j = K(mto_argmax(count, mt_vint(d), true)); /* the first longest run's start */
    mt_tensor *end =
        K(mto_sub_Scalar(K(mto_add_Tensor(j, K(mto_gather(count, d, j, false)), mt_vint(1))),
                         mt_vint(1), mt_vint(1)));
    mt_tensor *v = K(mto_gather(sorted, d, j, false)), *i = K(mto_gather(perm, d, end, false));
    if (!keepdim) {
        v = K(mto_squeeze_dim(v, d));
        i = K(mto_squeeze_dim(i, d));
    }
    return done(S, r, 2, v, i);
}

/* ---- cummax, cummin, logcumsumexp: structured scans (kernels in backends/<device>/) -------- */

/* results shaped like self (and int64 positions), after PyTorch's checks */
static int meta_scan(mt_call *c, mt_value *a, mt_outspec *o) {
    mt_tensor *x = a[0].t;
    int d, id = c->op->id;
    if (mt_wrap_dim(a[1].i, x->ndim, &d)) return -1;
    mt_dtype dt = (mt_dtype)x->dtype;
    if (id == MT_OP_logcumsumexp) {
        if (!mt_dtype_is_floating(dt) || mt_lacks_float16_kernel(x->device, dt))
            return mt_error(MT_ERR_RUNTIME, "\"logcumsumexp_out_cpu\" not implemented for '%s'",
                            mt_dtype_scalar_name(dt));
    } else if (mt_lacks_float16_kernel(x->device, dt)) {
        return mt_error(MT_ERR_RUNTIME, "\"%s_cpu\" not implemented for 'Half'",
                        id == MT_OP_cummax ? "cummax" : "cummin");
    }
    o[0].ndim = x->ndim;
    memcpy(o[0].sizes, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
    o[0].dtype = (uint8_t)dt;
    if (id != MT_OP_logcumsumexp) {
        o[1] = o[0];
        o[1].dtype = MT_INT64;
    }
    return 0;
}

/* ---- quantile, nanquantile ---------------------------------------------------------------- */

enum { Q_LINEAR, Q_LOWER, Q_HIGHER, Q_MIDPOINT, Q_NEAREST };

/* PyTorch's quantile: sort, ranks q * (n - 1) (of the non-NaN count for nanquantile; the last
 * rank for rows with a NaN in quantile), the values at the ranks below and above, lerp. */
static int c_quantile(mt_call *c, mt_value *a, mt_value *r) {
    BEGIN;
    int id = c->op->id;
    bool scalar_q = id == MT_OP_quantile_scalar || id == MT_OP_nanquantile_scalar;
    bool ignore_nan = id == MT_OP_nanquantile || id == MT_OP_nanquantile_scalar;
    const char *name = "quantile"; /* nanquantile's messages say quantile() too */
    mt_tensor *x = a[0].t;
    bool keepdim = a[3].b;
    if (scalar_q && !(a[1].d >= 0 && a[1].d <= 1))
        FAIL(MT_ERR_RUNTIME, "%s() q must be in the range [0, 1] but got %g", name, a[1].d);
    const char *interp = a[4].s;
    static const char *modes[] = {"linear", "lower", "higher", "midpoint", "nearest"};
    int mode = -1;
    for (int k = 0; k < 5; k++)
        if (!strcmp(interp, modes[k])) mode = k;
    if (mode < 0)
        FAIL(MT_ERR_RUNTIME,
             "%s() interpolation must be one of linear, lower, higher, midpoint or nearest, but "
             "got %s",
             name, interp);
    mt_tensor *q = scalar_q ? K(mto_full((mt_ilist){NULL, 0}, mt_vdouble(a[1].d),
                                         (mt_dtype)x->dtype, x->device, false, false))
                            : a[1].t;
    if (x->numel == 0) FAIL(MT_ERR_RUNTIME, "%s() input tensor must be non-empty", name);
    if (q->ndim > 1) FAIL(MT_ERR_RUNTIME, "%s() q must be a scalar or 1D tensor", name);
    if (x->dtype != MT_FLOAT32 && x->dtype != MT_FLOAT64)
        FAIL(MT_ERR_RUNTIME, "%s() input tensor must be either float or double dtype", name);
    if (q->dtype != x->dtype)
        FAIL(MT_ERR_RUNTIME, "%s() q tensor must be same dtype as the input tensor", name);
    if (q->device.type != x->device.type || q->device.index != x->device.index)
        FAIL(MT_ERR_RUNTIME, "%s() q tensor must be on the same device as the input tensor", name);
    bool has_dim = a[2].tag == MT_V_INT;
    int d = 0;
    if (has_dim) check(S, mt_wrap_dim(a[2].i, x->ndim, &d));
    if (!scalar_q && q->device.type == MT_DEV_CPU) { /* PyTorch checks values on the CPU only */
        mt_tensor *in =
            K(mto_logical_and(K(mto_ge_Scalar(q, mt_vint(0))), K(mto_le_Scalar(q, mt_vint(1)))));
        mt_tensor *all = K(mto_all(in));
        check(S, mt_tensor_sync(all));
        if (!*(bool *)mt_tensor_raw(all))
            FAIL(MT_ERR_RUNTIME, "%s() q values must be in the range [0, 1]", name);
    }
    /* the result's shape without q's dim, and the sorted rows of that shape + [n] */
    int64_t base[MT_MAX_DIM + 1];
    int nb = 0;
    mt_tensor *sorted, *perm;
    if (has_dim && x->ndim > 0) {
        for (int k = 0; k < x->ndim; k++)
            if (k != d || keepdim) base[nb++] = k == d ? 1 : x->sizes[k];
        mt_tensor *moved =
            d == x->ndim - 1 ? x : K(mto_transpose_int(K(mto_unsqueeze(x, -1)), d, -1));
        sorted = sort_stable(S, moved, -1, &perm);
    } else {
        if (keepdim)
            for (int k = 0; k < x->ndim; k++) base[nb++] = 1;
        sorted = sort_stable(S, K(mto_reshape(x, MT_ILIST(-1))), -1, &perm);
    }
    int64_t n = sorted->sizes[sorted->ndim - 1];
    base[nb] = n;
    sorted = K(mto_reshape(sorted, (mt_ilist){base, nb + 1}));
    mt_tensor *q1 = K(mto_reshape(q, MT_ILIST(-1)));
    int64_t rshape[MT_MAX_DIM + 1];
    memcpy(rshape, base, sizeof(int64_t) * (size_t)nb);
    rshape[nb] = q1->numel;
    int64_t last = nb;
    mt_tensor *ranks;
    if (ignore_nan) {
        mt_tensor *count = K(mto_sum_dim_IntList(K(mto_logical_not(K(mto_isnan(sorted)))),
                                                 MT_ILIST(last), true, -1));
        ranks = K(mto_mul_Tensor(q1, K(mto_sub_Scalar(count, mt_vint(1), mt_vint(1)))));
        ranks = K(mto_masked_fill_Scalar(ranks, K(mto_lt_Scalar(ranks, mt_vint(0))), mt_vint(0)));
    } else {
        mt_tensor *nanrow = K(mto_any_dim(K(mto_isnan(sorted)), last, true));
        ranks =
            K(mto_expand(K(mto_mul_Scalar(q1, mt_vint(n - 1))), (mt_ilist){rshape, nb + 1}, false));
        ranks = K(mto_masked_fill_Scalar(ranks, nanrow, mt_vint(n - 1)));
    }
    if (mode == Q_LOWER) ranks = K(mto_floor(ranks));
    if (mode == Q_HIGHER) ranks = K(mto_ceil(ranks));
    if (mode == Q_NEAREST) ranks = K(mto_round(ranks));
    mt_tensor *below = K(mto_to_dtype(ranks, MT_INT64, false, false, NULL));
    mt_tensor *v = K(mto_gather(sorted, last, below, false));
    if (mode == Q_LINEAR || mode == Q_MIDPOINT) {
        mt_tensor *w = mode == Q_MIDPOINT
                           ? K(mto_full_like(ranks, mt_vdouble(0.5), -1, NODEV, false, NULL))
                           : K(mto_sub_Tensor(ranks, below, mt_vint(1)));
        mt_tensor *above = K(mto_to_dtype(K(mto_ceil(ranks)), MT_INT64, false, false, NULL));
        v = K(mto_lerp_Tensor(v, K(mto_gather(sorted, last, above, false)), w));
    }
    if (scalar_q || q->ndim == 0)
        v = K(mto_squeeze_dim(v, -1));
    else /* q's dim first, laid out as PyTorch leaves it */
        v = K(mto_squeeze_dim(K(mto_transpose_int(K(mto_unsqueeze(v, 0)), 0, -1)), -1));
    return done(S, r, 1, v, NULL);
}

/* ---- diff, dist, renorm ------------------------------------------------------------------- */

static void diff_check_other(scope *S, mt_tensor *x, mt_value o, int d) {
    if (o.tag != MT_V_TENSOR) return;
    mt_tensor *t = o.t;
    if (t->ndim != x->ndim)
        FAIL(MT_ERR_RUNTIME, "diff expects prepend or append to be the same dimension as input");
    for (int k = 0; k < x->ndim; k++)
        if (k != d && t->sizes[k] != x->sizes[k])
            FAIL(MT_ERR_RUNTIME,
                 "diff expects the shape of tensor to prepend or append to match that of input "
                 "except along the differencing dimension; input.size(%lld) = %lld, but got "
                 "tensor.size(%lld) = %lld",
                 mt_user_dim(k), (long long)x->sizes[k], mt_user_dim(k), (long long)t->sizes[k]);
}

static int c_diff(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    BEGIN;
    mt_tensor *x = a[0].t;
    int64_t n = a[1].i;
    if (x->ndim < 1) FAIL(MT_ERR_RUNTIME, "diff expects input to be at least one-dimensional");
    int d;
    check(S, mt_wrap_dim(a[2].i, x->ndim, &d));
    diff_check_other(S, x, a[3], d);
    diff_check_other(S, x, a[4], d);
    if (a[3].tag == MT_V_TENSOR || a[4].tag == MT_V_TENSOR) {
        mt_tensor *parts[3];
        int np = 0;
        if (a[3].tag == MT_V_TENSOR) parts[np++] = a[3].t;
        parts[np++] = x;
        if (a[4].tag == MT_V_TENSOR) parts[np++] = a[4].t;
        x = K(mto_cat(parts, np, d));
    }
    int64_t len = x->sizes[d];
    if (n <= 0) return done(S, r, 1, K(mto_clone(x, NULL)), NULL);
    if (n > len) n = len;
    mt_tensor *v = x;
    for (int64_t k = 0; k < n; k++, len--) {
        mt_tensor *hi = K(mto_narrow(v, d, 1, len - 1)), *lo = K(mto_narrow(v, d, 0, len - 1));
        v = v->dtype == MT_BOOL ? K(mto_logical_xor(hi, lo))
                                : K(mto_sub_Tensor(hi, lo, mt_vint(1)));
    }
    return done(S, r, 1, v, NULL);
}

static int c_dist(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    BEGIN;
    mt_tensor *dx = K(mto_sub_Tensor(a[0].t, a[1].t, mt_vint(1)));
    return done(S, r, 1, K(mto_norm_Scalar(dx, a[2])), NULL);
}

/* self scaled by maxnorm / (norm + 1e-7) in the slices along dim whose p-norm exceeds maxnorm
 * (16-bit types computed in float, PyTorch's accumulate type) */
static mt_tensor *renorm(scope *S, mt_tensor *x, mt_value p, int64_t dim, mt_value maxnorm) {
    double pv = mt_scalar_double(p), mv = mt_scalar_double(maxnorm);
    if (!(pv > 0)) FAIL(MT_ERR_RUNTIME, "renorm: non-positive-norm not supported");
    if (!(mv >= 0)) FAIL(MT_ERR_RUNTIME, "renorm: expected maxnorm to be >= 0 but got %g", mv);
    if (x->ndim <= 1)
        FAIL(MT_ERR_RUNTIME, "renorm: input needs at least 2 dimensions, got %d dimensions",
             x->ndim);
    int d;
    check(S, mt_wrap_dim(dim, x->ndim, &d));
    if (!mt_dtype_is_floating((mt_dtype)x->dtype))
        FAIL(MT_ERR_RUNTIME,
             "linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s",
             mt_dtype_scalar_name((mt_dtype)x->dtype));
    bool narrow16 = x->dtype == MT_FLOAT16 || x->dtype == MT_BFLOAT16;
    mt_tensor *xf = narrow16 ? K(mto_to_dtype(x, MT_FLOAT32, false, false, NULL)) : x;
    int64_t dims[MT_MAX_DIM];
    int nd = 0;
    for (int k = 0; k < x->ndim; k++)
        if (k != d) dims[nd++] = k;
    mt_tensor *norm = K(mto_norm_ScalarOpt_dim(xf, p, (mt_ilist){dims, nd}, true));
    mt_tensor *den = K(mto_add_Scalar(norm, mt_vdouble(1e-7), mt_vint(1)));
    mt_tensor *scale =
        K(mto_div_Tensor(K(mto_full_like(den, maxnorm, -1, NODEV, false, NULL)), den));
    mt_tensor *factor =
        K(mto_where_ScalarOther(K(mto_gt_Scalar(norm, maxnorm)), scale, mt_vint(1)));
    mt_tensor *out = K(mto_contiguous(K(mto_mul_Tensor(xf, factor)), NULL)); /* PyTorch's layout */
    return narrow16 ? K(mto_to_dtype(out, (mt_dtype)x->dtype, false, false, NULL)) : out;
}

static int c_renorm(mt_call *c, mt_value *a, mt_value *r) {
    BEGIN;
    bool inplace = c->op->id == MT_OP_renorm_;
    /* in place: computed from a copy, so the gradient never needs self's old values */
    mt_tensor *v = renorm(S, inplace ? K(mto_clone(a[0].t, NULL)) : a[0].t, a[1], a[2].i, a[3]);
    if (inplace) v = K(mto_copy_(a[0].t, v, false));
    return done(S, r, 1, v, NULL);
}

/* ---- cdist, pdist ------------------------------------------------------------------------- */

static void float_input(scope *S, mt_tensor *t, const char *what) {
    if (!mt_dtype_is_floating((mt_dtype)t->dtype))
        FAIL(MT_ERR_RUNTIME, "cdist only supports floating-point dtypes, %s got: %s", what,
             mt_dtype_scalar_name((mt_dtype)t->dtype));
}

/* PyTorch's matrix-product form of Euclidean distances: [-2 x1, |x1|^2, 1] against
 * [x2, 1, |x2|^2], clamped at 1e-30 before the square root */
static mt_tensor *euclidean_mm(scope *S, mt_tensor *x1, mt_tensor *x2) {
    mt_tensor *n1 =
        K(mto_sum_dim_IntList(K(mto_pow_Tensor_Scalar(x1, mt_vint(2))), MT_ILIST(-1), true, -1));
    mt_tensor *n2 =
        K(mto_sum_dim_IntList(K(mto_pow_Tensor_Scalar(x2, mt_vint(2))), MT_ILIST(-1), true, -1));
    mt_tensor *p1[3] = {K(mto_mul_Scalar(x1, mt_vint(-2))), n1,
                        K(mto_ones_like(n1, -1, NODEV, false, NULL))};
    mt_tensor *p2[3] = {x2, K(mto_ones_like(n2, -1, NODEV, false, NULL)), n2};
    mt_tensor *a1 = K(mto_cat(p1, 3, -1)), *a2 = K(mto_cat(p2, 3, -1));
    mt_tensor *m = K(mto_matmul(a1, K(mto_transpose_int(a2, -2, -1))));
    return K(mto_sqrt(K(mto_clamp(m, mt_vdouble(1e-30), MT_NONE))));
}

static int c_cdist(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    BEGIN;
    mt_tensor *x1 = a[0].t, *x2 = a[1].t;
    double p = a[2].d;
    const char *cm = a[3].s;
    int mode = !strcmp(cm, "use_mm_for_euclid_dist_if_necessary") ? 0
               : !strcmp(cm, "use_mm_for_euclid_dist")            ? 1
               : !strcmp(cm, "donot_use_mm_for_euclid_dist")      ? 2
                                                                  : -1;
    if (mode < 0) FAIL(MT_ERR_VALUE, "%s is not a valid value for compute_mode", cm);
    if (x1->ndim < 2)
        FAIL(MT_ERR_RUNTIME, "cdist only supports at least 2D tensors, X1 got: %dD", x1->ndim);
    if (x2->ndim < 2)
        FAIL(MT_ERR_RUNTIME, "cdist only supports at least 2D tensors, X2 got: %dD", x2->ndim);
    int64_t c1 = x1->sizes[x1->ndim - 1], c2 = x2->sizes[x2->ndim - 1];
    if (c1 != c2)
        FAIL(MT_ERR_RUNTIME, "X1 and X2 must have the same number of columns. X1: %lld X2: %lld",
             (long long)c1, (long long)c2);
    float_input(S, x1, "X1");
    float_input(S, x2, "X2");
    if (!(p >= 0)) FAIL(MT_ERR_RUNTIME, "cdist only supports non-negative p values");
    /* the batch dims broadcast; each side expanded to them */
    int64_t batch[MT_MAX_DIM], s1[MT_MAX_DIM], s2[MT_MAX_DIM];
    int nb;
    check(S, mt_broadcast_shapes(x1->ndim - 2, x1->sizes, x2->ndim - 2, x2->sizes, &nb, batch));
    if (x1->dtype != x2->dtype)
        FAIL(MT_ERR_RUNTIME, "expected scalar type %s but found %s",
             mt_dtype_scalar_name((mt_dtype)x1->dtype), mt_dtype_scalar_name((mt_dtype)x2->dtype));
    int64_t r1 = x1->sizes[x1->ndim - 2], r2 = x2->sizes[x2->ndim - 2];
    memcpy(s1, batch, sizeof(int64_t) * (size_t)nb);
    memcpy(s2, batch, sizeof(int64_t) * (size_t)nb);
    s1[nb] = r1, s1[nb + 1] = c1, s2[nb] = r2, s2[nb + 1] = c2;
    mt_tensor *e1 = K(mto_expand(x1, (mt_ilist){s1, nb + 2}, false));
    mt_tensor *e2 = K(mto_expand(x2, (mt_ilist){s2, nb + 2}, false));
    if (x1->numel == 0 || x2->numel == 0 || e1->numel == 0 || e2->numel == 0) {
        int64_t os[MT_MAX_DIM];
        memcpy(os, batch, sizeof(int64_t) * (size_t)nb);
        os[nb] = r1, os[nb + 1] = r2;
        return done(S, r, 1,
                    K(mto_zeros((mt_ilist){os, nb + 2}, x1->dtype, x1->device, false, false)),
                    NULL);
    }
    if (p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25))))
        return done(S, r, 1, euclidean_mm(S, e1, e2), NULL);
    mt_tensor *dx =
        K(mto_sub_Tensor(K(mto_unsqueeze(e1, -2)), K(mto_unsqueeze(e2, -3)), mt_vint(1)));
    return done(S, r, 1, K(mto_norm_ScalarOpt_dim(dx, mt_vdouble(p), MT_ILIST(-1), false)), NULL);
}

static int c_pdist(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    BEGIN;
    mt_tensor *x = a[0].t;
    double p = a[1].d;
    if (x->ndim != 2) FAIL(MT_ERR_RUNTIME, "pdist only supports 2D tensors, got: %dD", x->ndim);
    if (!mt_dtype_is_floating((mt_dtype)x->dtype))
        FAIL(MT_ERR_RUNTIME, "pdist only supports floating-point dtypes");
    if (!(p >= 0)) FAIL(MT_ERR_RUNTIME, "pdist only supports non-negative p values");
    int64_t n = x->sizes[0];
    if (n <= 1)
        return done(S, r, 1, K(mto_empty(MT_ILIST(0), x->dtype, x->device, false, false, NULL)),
                    NULL);
    mt_tensor *ij = K(mto_triu_indices(n, n, 1, MT_INT64, x->device, false, false));
    mt_tensor *xi = K(mto_index_select(x, 0, K(mto_select_int(ij, 0, 0))));
    mt_tensor *xj = K(mto_index_select(x, 0, K(mto_select_int(ij, 0, 1))));
    mt_tensor *dx = K(mto_sub_Tensor(xi, xj, mt_vint(1)));
    return done(S, r, 1, K(mto_norm_ScalarOpt_dim(dx, mt_vdouble(p), MT_ILIST(-1), false)), NULL);
}

/* ---- cov, corrcoef ------------------------------------------------------------------------ */

/* a 0-d or 1-element tensor's value, read on the host (after pending work) */
static double host_value(scope *S, mt_tensor *t) {
    mt_tensor *h = K(mto__to_copy(t, MT_FLOAT64, MT_CPU, false, NULL));
    check(S, mt_tensor_sync(h));
    return *(double *)mt_tensor_raw(h);
}

static void check_weights(scope *S, mt_tensor *w, int64_t n, const char *what, bool integral) {
    if (w->ndim > 1)
        FAIL(MT_ERR_RUNTIME,
             "cov(): expected %s to have one or fewer dimensions but got %s with %d dimensions",
             what, what, w->ndim);
    if (integral ? !mt_dtype_is_integral((mt_dtype)w->dtype, false)
                 : !mt_dtype_is_floating((mt_dtype)w->dtype))
        FAIL(MT_ERR_RUNTIME, "cov(): expected %s to have %s dtype but got %s with %s dtype", what,
             integral ? "integral" : "floating point", what,
             mt_dtype_scalar_name((mt_dtype)w->dtype));
    if (w->numel != n)
        FAIL(MT_ERR_RUNTIME,
             "cov(): expected %s to have the same numel as there are observations in the input but "
             "got %lld != %lld",
             what, (long long)w->numel, (long long)n);
    if (n > 0 && w->device.type != MT_DEV_META &&
        host_value(S, K(mto_amin(w, (mt_ilist){NULL, 0}, false))) < 0)
        FAIL(MT_ERR_RUNTIME, "cov(): %s cannot be negative", what);
}

static mt_tensor *cov(scope *S, mt_tensor *x, int64_t correction, mt_value fw, mt_value aw) {
    if (x->ndim > 2)
        FAIL(MT_ERR_RUNTIME,
             "cov(): expected input to have two or fewer dimensions but got an input with %d "
             "dimensions",
             x->ndim);
    if (x->dtype == MT_BOOL) FAIL(MT_ERR_RUNTIME, "cov(): bool dtype is not supported for input");
    mt_tensor *in = x->ndim < 2 ? K(mto_view(x, MT_ILIST(1, -1))) : x;
    int64_t n = in->sizes[1];
    mt_tensor *w = NULL;
    if (fw.tag == MT_V_TENSOR) {
        check_weights(S, fw.t, n, "fweights", true);
        w = fw.t;
    }
    if (aw.tag == MT_V_TENSOR) {
        check_weights(S, aw.t, n, "aweights", false);
        w = w ? K(mto_mul_Tensor(w, aw.t)) : aw.t;
    }
    mt_tensor *wsum =
        w ? K(mto_sum(w, -1))
          : K(mto_full((mt_ilist){NULL, 0}, mt_vint(n), MT_INT64, x->device, false, false));
    if (w && w->device.type != MT_DEV_META && host_value(S, wsum) == 0)
        FAIL(MT_ERR_RUNTIME, "cov(): weights sum to zero, can't be normalized");
    mt_tensor *avg = K(mto_div_Tensor(
        K(mto_sum_dim_IntList(w ? K(mto_mul_Tensor(in, w)) : in, MT_ILIST(1), false, -1)), wsum));
    mt_tensor *nf;
    if (w && correction != 0 && aw.tag == MT_V_TENSOR) {
        mt_tensor *wa = K(mto_sum(K(mto_mul_Tensor(w, aw.t)), -1));
        nf = K(mto_sub_Tensor(
            wsum, K(mto_div_Tensor(K(mto_mul_Scalar(wa, mt_vint(correction))), wsum)), mt_vint(1)));
    } else {
        nf = K(mto_sub_Scalar(wsum, mt_vint(correction), mt_vint(1)));
    }
    /* no degrees of freedom left: PyTorch warns and divides by zero */
    if (nf->device.type != MT_DEV_META && host_value(S, nf) <= 0)
        nf = K(mto_zeros_like(nf, -1, NODEV, false, NULL));
    mt_tensor *centred = K(mto_sub_Tensor(in, K(mto_unsqueeze(avg, 1)), mt_vint(1)));
    mt_tensor *cm = K(mto_mm(centred, K(mto_t(w ? K(mto_mul_Tensor(centred, w)) : centred))));
    return K(mto_squeeze(K(mto_div_Tensor(cm, nf))));
}

static int c_cov(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    BEGIN;
    return done(S, r, 1, cov(S, a[0].t, a[1].i, a[2], a[3]), NULL);
}

static int c_corrcoef(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    BEGIN;
    mt_tensor *x = a[0].t;
    if (x->ndim > 2)
        FAIL(MT_ERR_RUNTIME,
             "corrcoef(): expected input to have two or fewer dimensions but got an input with %d "
             "dimensions",
             x->ndim);
    mt_tensor *cv = cov(S, x, 1, MT_NONE, MT_NONE);
    if (cv->ndim == 0) return done(S, r, 1, K(mto_div_Tensor(cv, cv)), NULL);
    mt_tensor *sd = K(mto_sqrt(K(mto_diag(cv, 0))));
    cv = K(mto_div_Tensor(cv, K(mto_view(sd, MT_ILIST(-1, 1)))));
    cv = K(mto_div_Tensor(cv, K(mto_view(sd, MT_ILIST(1, -1)))));
    return done(S, r, 1, K(mto_clamp(cv, mt_vint(-1), mt_vint(1))), NULL);
}

/* ---- trapezoid, trapz, cumulative_trapezoid ----------------------------------------------- */

/* x's differences along dim, laid out to broadcast against y's (NumPy's rule: a 1-D x along
 * dim, a shorter x padded with leading 1s) */
static mt_tensor *sample_gaps(scope *S, mt_tensor *y, mt_tensor *x, int d, const char *name) {
    mt_tensor *xv = x;
    if (x->ndim == 1) {
        if (x->sizes[0] != y->sizes[d])
            FAIL(MT_ERR_RUNTIME, "%s: There must be one `x` value for each sample point", name);
        int64_t shape[MT_MAX_DIM];
        for (int k = 0; k < y->ndim; k++) shape[k] = k == d ? x->sizes[0] : 1;
        xv = K(mto_view(x, (mt_ilist){shape, y->ndim}));
    } else if (x->ndim < y->ndim) {
        int64_t shape[MT_MAX_DIM];
        int pad = y->ndim - x->ndim;
        for (int k = 0; k < y->ndim; k++) shape[k] = k < pad ? 1 : x->sizes[k - pad];
        xv = K(mto_view(x, (mt_ilist){shape, y->ndim}));
    }
    int64_t m = xv->sizes[d], k = m > 0 ? m - 1 : 0;
    return K(mto_sub_Tensor(K(mto_narrow(xv, d, m > 0 ? 1 : 0, k)), K(mto_narrow(xv, d, 0, k)),
                            mt_vint(1)));
}

static int c_trapezoid(mt_call *c, mt_value *a, mt_value *r) {
    BEGIN;
    int id = c->op->id;
    bool with_x = id == MT_OP_trapezoid_x || id == MT_OP_trapz_x;
    bool cumulative = id == MT_OP_cumulative_trapezoid_x || id == MT_OP_cumulative_trapezoid_dx;
    with_x = with_x || id == MT_OP_cumulative_trapezoid_x;
    const char *name = cumulative ? "cumulative_trapezoid" : "trapezoid";
    mt_tensor *y = a[0].t;
    int64_t dim = a[2].i;
    if (y->ndim == 0)
        FAIL(MT_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions",
             mt_user_dim(dim));
    int d;
    check(S, mt_wrap_dim(dim, y->ndim, &d));
    int64_t n = y->sizes[d];
    if (!cumulative && n == 0) { /* NumPy's 0 for no samples */
        int64_t shape[MT_MAX_DIM];
        int k2 = 0;
        for (int k = 0; k < y->ndim; k++)
            if (k != d) shape[k2++] = y->sizes[k];
        return done(S, r, 1, K(mto_zeros((mt_ilist){shape, k2}, y->dtype, y->device, false, false)),
                    NULL);
    }
    if (y->dtype == MT_BOOL || (with_x && a[1].t->dtype == MT_BOOL))
        FAIL(MT_ERR_RUNTIME, "%s: received a bool input for `%s`, but bool is not supported", name,
             with_x ? "x` or `y" : "y");
    if (!with_x && id != MT_OP_trapz_dx && a[1].tag == MT_V_BOOL)
        FAIL(MT_ERR_RUNTIME, "%s: Currently, we only support dx as a real number.", name);
    int64_t m = n > 0 ? n - 1 : 0;
    mt_tensor *right = K(mto_narrow(y, d, n > 0 ? 1 : 0, m)), *left = K(mto_narrow(y, d, 0, m));
    mt_tensor *sum = K(mto_add_Tensor(right, left, mt_vint(1)));
    mt_tensor *v;
    if (with_x) {
        mt_tensor *gaps = sample_gaps(S, y, a[1].t, d, name);
        v = K(mto_div_Scalar(K(mto_mul_Tensor(gaps, sum)), mt_vdouble(2.0)));
        v = cumulative ? K(mto_cumsum(v, d, -1))
                       : K(mto_sum_dim_IntList(v, MT_ILIST(d), false, -1));
    } else {
        double dx = mt_scalar_double(a[1]);
        if (cumulative) {
            v = K(mto_cumsum(K(mto_mul_Scalar(sum, mt_vdouble(dx / 2.0))), d, -1));
        } else { /* PyTorch's form: (sum - (first + last) / 2) * dx */
            mt_tensor *ends = K(mto_add_Tensor(K(mto_select_int(y, d, 0)),
                                               K(mto_select_int(y, d, n - 1)), mt_vint(1)));
            mt_tensor *total = K(mto_sum_dim_IntList(y, MT_ILIST(d), false, -1));
            v = K(mto_sub_Tensor(total, K(mto_mul_Scalar(ends, mt_vdouble(0.5))), mt_vint(1)));
            v = K(mto_mul_Scalar(v, mt_vdouble(dx)));
        }
    }
    return done(S, r, 1, v, NULL);
}

/* ---- histc, bincount, histogram ----------------------------------------------------------- */

static void no_meta(scope *S, mt_tensor *t, const char *op) {
    if (t->device.type == MT_DEV_META) /* the bins' range or the counts' length come from data */
        FAIL(MT_ERR_NOT_IMPLEMENTED,
             "Could not run 'aten::%s' with arguments from the 'Meta' backend.", op);
}

/* The bin of each value of the 1-D x among the nb bins between edges (0-based), and in
 * *inside_out whether it is counted at all (in [edges[0], edges[nb]], not NaN). */
static mt_tensor *bin_positions(scope *S, mt_tensor *x, mt_tensor *edges, int64_t nb, bool linear,
                                bool local_search, bool nan_first, mt_tensor **inside_out) {
    mt_tensor *lo = K(mto_narrow(edges, 0, 0, 1)), *hi = K(mto_narrow(edges, 0, nb, 1));
    mt_tensor *inside = K(mto_logical_and(K(mto_ge_Tensor(x, lo)), K(mto_le_Tensor(x, hi))));
    if (nan_first) { /* histc counts NaN in its first bin, as PyTorch 1.13's */
        mt_tensor *nan = K(mto_isnan(x));
        inside = K(mto_logical_or(inside, nan));
        x = K(mto_where_self(nan, lo, x));
    }
    mt_tensor *pos;
    if (linear) {
        mt_tensor *xin = K(mto_where_self(inside, x, lo)); /* no NaN or infinity in the map */
        mt_tensor *t = K(mto_mul_Scalar(K(mto_sub_Tensor(xin, lo, mt_vint(1))), mt_vint(nb)));
        pos = K(mto_to_dtype(K(mto_div_Tensor(t, K(mto_sub_Tensor(hi, lo, mt_vint(1))))), MT_INT64,
                             false, false, NULL));
        if (local_search) { /* upper_bound among edges pos-1 .. pos+1, less one */
            mt_tensor *start =
                K(mto_clamp(K(mto_sub_Scalar(pos, mt_vint(1), mt_vint(1))), mt_vint(0), MT_NONE));
            mt_tensor *n = K(mto_zeros_like(pos, -1, NODEV, false, NULL));
            for (int o = -1; o <= 1; o++) {
                mt_tensor *k = K(mto_add_Scalar(pos, mt_vint(o), mt_vint(1)));
                mt_tensor *valid = K(mto_logical_and(K(mto_ge_Scalar(k, mt_vint(0))),
                                                     K(mto_le_Scalar(k, mt_vint(nb)))));
                mt_tensor *e =
                    K(mto_gather(edges, 0, K(mto_clamp(k, mt_vint(0), mt_vint(nb))), false));
                mt_tensor *le = K(mto_logical_and(valid, K(mto_le_Tensor(e, xin))));
                n = K(mto_add_Tensor(n, le, mt_vint(1)));
            }
            pos =
                K(mto_sub_Scalar(K(mto_add_Tensor(start, n, mt_vint(1))), mt_vint(1), mt_vint(1)));
        }
    } else {
        pos = K(mto_sub_Scalar(K(mto_searchsorted_Tensor(edges, x, false, true, NULL, NULL)),
                               mt_vint(1), mt_vint(1)));
    }
    pos = K(mto_clamp(pos, mt_vint(0), mt_vint(nb > 0 ? nb - 1 : 0))); /* the last bin is closed */
    if (nb == 0) inside = K(mto_zeros_like(inside, -1, NODEV, false, NULL));
    *inside_out = inside;
    return pos;
}

/* Counts (or weights' sums) of the points (rows of pts, one column per dim) in the bins of
 * each dim between its edges; a point outside any dim's range (or NaN) is left out, each dim's
 * last bin includes its right edge. A bin's position: the linear map (x - lo) * nb / (hi - lo)
 * in x's type, as PyTorch's kernel (with local_search, moved to agree with the edges either
 * side, as histogram's), or a binary search in arbitrary edges (linear false). */
static mt_tensor *count_bins_nd(scope *S, mt_tensor *pts, mt_tensor **edges, const int64_t *nb,
                                int nd, bool linear, bool local_search, mt_tensor *w,
                                bool nan_first) {
    int64_t total = 1;
    for (int j = 0; j < nd; j++)
        if (__builtin_mul_overflow(total, nb[j], &total) || total == INT64_MAX)
            FAIL(MT_ERR_RUNTIME, "torch.histogramdd: too many bins");
    mt_tensor *slot = NULL, *inside = NULL;
    int64_t stride = total;
    for (int j = 0; j < nd; j++) {
        mt_tensor *in_j, *col = K(mto_select_int(pts, 1, j));
        mt_tensor *pos =
            bin_positions(S, col, edges[j], nb[j], linear, local_search, nan_first, &in_j);
        stride = nb[j] ? stride / nb[j] : 0;
        mt_tensor *term = K(mto_mul_Scalar(pos, mt_vint(stride)));
        slot = slot ? K(mto_add_Tensor(slot, term, mt_vint(1))) : term;
        inside = inside ? K(mto_logical_and(inside, in_j)) : in_j;
    }
    slot = K(mto_where_ScalarOther(inside, slot, mt_vint(total))); /* total: left out */
    mt_tensor *src = w ? w : K(mto_ones_like(K(mto_select_int(pts, 1, 0)), -1, NODEV, false, NULL));
    mt_tensor *hist = K(mto_zeros(MT_ILIST(total + 1), src->dtype, pts->device, false, false));
    hist = K(mto_scatter_add(hist, 0, slot, src));
    return K(mto_reshape(K(mto_clone(K(mto_narrow(hist, 0, 0, total)), NULL)), (mt_ilist){nb, nd}));
}

static mt_tensor *count_bins(scope *S, mt_tensor *x, mt_tensor *edges, int64_t nb, bool linear,
                             bool local_search, mt_tensor *w, bool nan_first) {
    mt_tensor *pts = K(mto_reshape(x, MT_ILIST(-1, 1)));
    return count_bins_nd(S, pts, &edges, &nb, 1, linear, local_search, w, nan_first);
}

static int c_histc(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    BEGIN;
    mt_tensor *x = a[0].t;
    int64_t bins = a[1].i;
    if (bins <= 0)
        FAIL(MT_ERR_RUNTIME, "torch.histogram(): bins must be > 0, but got %lld for dimension 1",
             (long long)bins);
    no_meta(S, x, "histc");
    double lo = mt_scalar_double(a[2]), hi = mt_scalar_double(a[3]);
    if (lo == hi && x->numel > 0) { /* the data's range */
        if (x->dtype == MT_FLOAT16)
            FAIL(MT_ERR_RUNTIME, "\"aminmax_cpu\" not implemented for 'Half'");
        lo = host_value(S, K(mto_amin(x, (mt_ilist){NULL, 0}, false)));
        hi = host_value(S, K(mto_amax(x, (mt_ilist){NULL, 0}, false)));
    }
    if (lo == hi) lo -= 1, hi += 1;
    if (isinf(lo) || isinf(hi) || isnan(lo) || isnan(hi))
        FAIL(MT_ERR_RUNTIME, "torch.histc: range of [%g, %g] is not finite", lo, hi);
    if (!(lo < hi)) FAIL(MT_ERR_RUNTIME, "torch.histc: max must be larger than min");
    if (!mt_dtype_is_floating((mt_dtype)x->dtype) || x->dtype == MT_FLOAT16)
        FAIL(MT_ERR_RUNTIME, "\"histogram_cpu\" not implemented for '%s'",
             mt_dtype_scalar_name((mt_dtype)x->dtype));
    mt_tensor *edges = K(
        mto_linspace(mt_vdouble(lo), mt_vdouble(hi), bins + 1, x->dtype, x->device, false, false));
    mt_tensor *flat = K(mto_reshape(x, MT_ILIST(-1)));
    return done(S, r, 1, count_bins(S, flat, edges, bins, true, false, NULL, true), NULL);
}

static int c_bincount(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    BEGIN;
    mt_tensor *x = a[0].t, *w = a[1].tag == MT_V_TENSOR ? a[1].t : NULL;
    int64_t minlength = a[2].i;
    if (!mt_dtype_is_integral((mt_dtype)x->dtype, false))
        FAIL(MT_ERR_RUNTIME, "\"bincount_cpu\" not implemented for '%s'",
             mt_dtype_scalar_name((mt_dtype)x->dtype));
    if (minlength < 0) FAIL(MT_ERR_RUNTIME, "minlength should be >= 0");
    if (x->ndim == 1 && x->numel == 0) /* int64 zeros, weights or not (PyTorch's) */
        return done(S, r, 1, K(mto_zeros(MT_ILIST(minlength), MT_INT64, x->device, false, false)),
                    NULL);
    no_meta(S, x, "bincount");
    if (x->ndim != 1 || host_value(S, K(mto_amin(x, (mt_ilist){NULL, 0}, false))) < 0)
        FAIL(MT_ERR_RUNTIME, "bincount only supports 1-d non-negative integral inputs.");
    if (w && (w->ndim != 1 || w->sizes[0] != x->sizes[0]))
        FAIL(MT_ERR_RUNTIME, "weights should be 1-d and have the same length as input");
    mt_tensor *top =
        K(mto__to_copy(K(mto_amax(x, (mt_ilist){NULL, 0}, false)), MT_INT64, MT_CPU, false, NULL));
    check(S, mt_tensor_sync(top));
    int64_t n = *(int64_t *)mt_tensor_raw(top);
    if (n == INT64_MAX) FAIL(MT_ERR_RUNTIME, "Storage size calculation overflowed");
    n += 1;
    if (n < minlength) n = minlength;
    mt_dtype out = !w ? MT_INT64 : w->dtype == MT_FLOAT32 ? MT_FLOAT32 : MT_FLOAT64;
    mt_tensor *src = w ? K(mto_to_dtype(w, out, false, false, NULL))
                       : K(mto_ones_like(x, MT_INT64, NODEV, false, NULL));
    mt_tensor *hist = K(mto_zeros(MT_ILIST(n), out, x->device, false, false));
    mt_tensor *idx = K(mto_to_dtype(x, MT_INT64, false, false, NULL));
    return done(S, r, 1, K(mto_scatter_add(hist, 0, idx, src)), NULL);
}

static int c_histogram(mt_call *c, mt_value *a, mt_value *r) {
    BEGIN;
    bool ct = c->op->id == MT_OP_histogram_bin_ct;
    mt_tensor *x = a[0].t;
    mt_value wv = ct ? a[3] : a[2];
    bool density = ct ? a[4].b : a[3].b;
    mt_tensor *w = wv.tag == MT_V_TENSOR ? wv.t : NULL, *edges;
    int64_t nb;
    no_meta(S, x, "histogram");
    if (ct) {
        nb = a[1].i;
        if (nb <= 0)
            FAIL(MT_ERR_RUNTIME,
                 "torch.histogram(): bins must be > 0, but got %lld for dimension 1",
                 (long long)nb);
        mt_value rg = a[2];
        if (rg.tag == MT_V_DOUBLELIST && rg.n != 2)
            FAIL(MT_ERR_RUNTIME,
                 "torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, "
                 "but got %d",
                 rg.n);
        double lo = 0, hi = 1;
        if (rg.tag == MT_V_DOUBLELIST) {
            lo = rg.dl[0], hi = rg.dl[1];
        } else if (x->numel > 0) {
            lo = host_value(S, K(mto_amin(x, (mt_ilist){NULL, 0}, false)));
            hi = host_value(S, K(mto_amax(x, (mt_ilist){NULL, 0}, false)));
        }
        if (!isfinite(lo) || !isfinite(hi))
            FAIL(MT_ERR_RUNTIME, "torch.histogramdd: dimension 1's range [%g, %g] is not finite",
                 lo, hi);
        if (!(lo <= hi))
            FAIL(MT_ERR_RUNTIME,
                 "torch.histogramdd: min should not exceed max, but got min %g max %g for "
                 "dimension 1",
                 lo, hi);
        if (lo == hi) lo -= 0.5, hi += 0.5; /* NumPy's widening of an empty range */
        edges = K(mto_linspace(mt_vdouble(lo), mt_vdouble(hi), nb + 1, x->dtype, x->device, false,
                               false));
    } else {
        mt_tensor *b = a[1].t;
        if (b->numel - 1 <= 0)
            FAIL(MT_ERR_RUNTIME,
                 "torch.histogram(): bins must be > 0, but got %lld for dimension 1",
                 (long long)(b->numel - 1));
        if (b->dtype != x->dtype)
            FAIL(MT_ERR_RUNTIME,
                 "torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                 "got "
                 "input with dtype %s and bins for dimension 1 with dtype %s",
                 mt_dtype_cxx_name((mt_dtype)x->dtype), mt_dtype_cxx_name((mt_dtype)b->dtype));
        if (b->ndim != 1)
            FAIL(MT_ERR_RUNTIME,
                 "torch.histogramdd: bins tensor should have one dimension, but got %d dimensions "
                 "in "
                 "the bins tensor for dimension 1",
                 b->ndim);
        if (b->numel == 0)
            FAIL(MT_ERR_RUNTIME, "torch.histogramdd: bins tensor should have at least 1 element, "
                                 "but got 0 elements in "
                                 "the bins tensor for dimension 1");
        nb = b->numel - 1;
        edges = K(mto_contiguous(b, NULL));
    }
    if (w) {
        if (w->dtype != x->dtype)
            FAIL(MT_ERR_RUNTIME,
                 "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                 "should have the same dtype, but got input(%s), and weight(%s)",
                 mt_dtype_cxx_name((mt_dtype)x->dtype), mt_dtype_cxx_name((mt_dtype)w->dtype));
        if (w->numel != x->numel || (w->ndim == 0 && x->numel != 1)) {
            char ws[256];
            mt_fmt_ilist(ws, sizeof ws, w->sizes, w->ndim);
            FAIL(MT_ERR_RUNTIME,
                 "torch.histogramdd: if weight tensor is provided it should have the same shape as "
                 "the input tensor excluding its innermost dimension, but got input with shape "
                 "[%lld, "
                 "1] and weight with shape %s",
                 (long long)x->numel, ws);
        }
    }
    if (x->dtype != MT_FLOAT32 && x->dtype != MT_FLOAT64)
        FAIL(MT_ERR_RUNTIME, "\"histogramdd\" not implemented for '%s'",
             mt_dtype_scalar_name((mt_dtype)x->dtype));
    mt_tensor *flat = K(mto_reshape(x, MT_ILIST(-1)));
    mt_tensor *wf = w ? K(mto_reshape(w, MT_ILIST(-1))) : NULL;
    mt_tensor *hist = count_bins(S, flat, edges, nb, ct, true, wf, false);
    if (density) { /* hist / its sum / each bin's width */
        mt_tensor *widths = K(mto_sub_Tensor(K(mto_narrow(edges, 0, 1, nb)),
                                             K(mto_narrow(edges, 0, 0, nb)), mt_vint(1)));
        hist = K(mto_div_Tensor(K(mto_div_Tensor(hist, K(mto_sum(hist, -1)))), widths));
    }
    return done(S, r, 2, hist, ct ? edges : K(mto_clone(edges, NULL)));
}

static int c_histogramdd(mt_call *c, mt_value *a, mt_value *r) {
    BEGIN;
    bool tensors = c->op->id == MT_OP_histogramdd_TensorList_bins;
    mt_tensor *x = a[0].t, *w = a[3].tag == MT_V_TENSOR ? a[3].t : NULL;
    mt_value rg = a[2];
    no_meta(S, x, "histogramdd");
    if (x->ndim < 2)
        FAIL(MT_ERR_RUNTIME, "torch.histogramdd: input tensor should have at least 2 dimensions");
    int64_t N = x->sizes[x->ndim - 1];
    if (N > MT_MAX_DIM)
        FAIL(MT_ERR_RUNTIME, "torch.histogramdd: at most %d dimensions", MT_MAX_DIM);
    int nd = (int)N;
    mt_tensor *pts = K(mto_reshape(x, MT_ILIST(-1, N))), *edges[MT_MAX_DIM];
    int64_t nb[MT_MAX_DIM];
    int given =
        c->op->id == MT_OP_histogramdd_int_bins ? nd : a[1].n; /* bin counts or edge lists */
    if (given < nd)
        FAIL(MT_ERR_RUNTIME,
             "torch.histogramdd: expected %d sequences of bin edges for a %d-dimensional histogram "
             "but got %d",
             nd, nd, given);
    for (int j = 0; j < nd; j++) {
        nb[j] = tensors                                   ? a[1].tl[j]->numel - 1
                : c->op->id == MT_OP_histogramdd_int_bins ? a[1].i
                                                          : a[1].il[j];
        if (nb[j] <= 0)
            FAIL(MT_ERR_RUNTIME,
                 "torch.histogram(): bins must be > 0, but got %lld for dimension %d",
                 (long long)nb[j], j + 1);
    }
    if (tensors) {
        for (int j = 0; j < nd; j++) {
            mt_tensor *b = a[1].tl[j];
            if (b->dtype != x->dtype)
                FAIL(MT_ERR_RUNTIME,
                     "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                     "but "
                     "got input with dtype %s and bins for dimension %d with dtype %s",
                     mt_dtype_cxx_name((mt_dtype)x->dtype), j + 1,
                     mt_dtype_cxx_name((mt_dtype)b->dtype));
            if (b->ndim != 1)
                FAIL(MT_ERR_RUNTIME,
                     "torch.histogramdd: bins tensor should have one dimension, but got %d "
                     "dimensions "
                     "in the bins tensor for dimension %d",
                     b->ndim, j + 1);
            edges[j] = K(mto_contiguous(b, NULL));
        }
    } else {
        if (rg.tag == MT_V_DOUBLELIST && rg.n != 2 * nd)
            FAIL(MT_ERR_RUNTIME,
                 "torch.histogramdd: for a %d-dimensional histogram range should have %d elements, "
                 "but got %d",
                 nd, 2 * nd, rg.n);
        const double *lo_d = NULL, *hi_d = NULL;
        if (rg.tag != MT_V_DOUBLELIST && pts->numel > 0) { /* each dim's data range */
            mt_tensor *lo = K(mto__to_copy(K(mto_amin(pts, MT_ILIST(0), false)), MT_FLOAT64, MT_CPU,
                                           false, NULL));
            mt_tensor *hi = K(mto__to_copy(K(mto_amax(pts, MT_ILIST(0), false)), MT_FLOAT64, MT_CPU,
                                           false, NULL));
            check(S, mt_tensor_sync(lo));
            check(S, mt_tensor_sync(hi));
            lo_d = (const double *)mt_tensor_raw(lo);
            hi_d = (const double *)mt_tensor_raw(hi);
        }
        for (int j = 0; j < nd; j++) {
            double lo = rg.tag == MT_V_DOUBLELIST ? rg.dl[2 * j] : lo_d ? lo_d[j] : 0;
            double hi = rg.tag == MT_V_DOUBLELIST ? rg.dl[2 * j + 1] : hi_d ? hi_d[j] : 1;
            if (!isfinite(lo) || !isfinite(hi))
                FAIL(MT_ERR_RUNTIME,
                     "torch.histogramdd: dimension %d's range [%g, %g] is not finite", j + 1, lo,
                     hi);
            if (!(lo <= hi))
                FAIL(MT_ERR_RUNTIME,
                     "torch.histogramdd: min should not exceed max, but got min %g max %g for "
                     "dimension %d",
                     lo, hi, j + 1);
            if (lo == hi) lo -= 0.5, hi += 0.5;
            edges[j] = K(mto_linspace(mt_vdouble(lo), mt_vdouble(hi), nb[j] + 1, x->dtype,
                                      x->device, false, false));
        }
    }
    if (w) {
        if (w->dtype != x->dtype)
            FAIL(MT_ERR_RUNTIME,
                 "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                 "should have the same dtype, but got input(%s), and weight(%s)",
                 mt_dtype_cxx_name((mt_dtype)x->dtype), mt_dtype_cxx_name((mt_dtype)w->dtype));
        bool same = w->ndim == 0 ? x->ndim == 2 && x->sizes[0] == 1 : w->ndim == x->ndim - 1;
        for (int k = 0; same && k < w->ndim; k++) same = w->sizes[k] == x->sizes[k];
        if (!same) {
            char xs[256], ws[256];
            mt_fmt_ilist(xs, sizeof xs, x->sizes, x->ndim);
            mt_fmt_ilist(ws, sizeof ws, w->sizes, w->ndim);
            FAIL(MT_ERR_RUNTIME,
                 "torch.histogramdd: if weight tensor is provided it should have the same shape as "
                 "the input tensor excluding its innermost dimension, but got input with shape %s "
                 "and "
                 "weight with shape %s",
                 xs, ws);
        }
    }
    if (x->dtype != MT_FLOAT32 && x->dtype != MT_FLOAT64)
        FAIL(MT_ERR_RUNTIME, "\"histogramdd\" not implemented for '%s'",
             mt_dtype_scalar_name((mt_dtype)x->dtype));
    mt_tensor *wf = w ? K(mto_reshape(w, MT_ILIST(-1))) : NULL;
    mt_tensor *hist = count_bins_nd(S, pts, edges, nb, nd, !tensors, true, wf, false);
    if (a[4].b) { /* density: hist / its sum / each bin's width in each dim */
        hist = K(mto_div_Tensor(hist, K(mto_sum(hist, -1))));
        for (int j = 0; j < nd; j++) {
            int64_t shape[MT_MAX_DIM];
            for (int k = 0; k < nd; k++) shape[k] = k == j ? -1 : 1;
            mt_tensor *wd = K(mto_sub_Tensor(K(mto_narrow(edges[j], 0, 1, nb[j])),
                                             K(mto_narrow(edges[j], 0, 0, nb[j])), mt_vint(1)));
            hist = K(mto_div_Tensor(hist, K(mto_reshape(wd, (mt_ilist){shape, nd}))));
        }
    }
    mt_tensor *outs[MT_MAX_DIM];
    for (int j = 0; j < nd; j++) outs[j] = tensors ? K(mto_clone(edges[j], NULL)) : edges[j];
    mt_tensor **list = mt_calloc((size_t)(nd ? nd : 1), sizeof(mt_tensor *));
    if (!list) FAIL(MT_ERR_MEMORY, "out of memory");
    for (int j = 0; j < nd; j++) {
        mt_tensor_incref(outs[j]);
        list[j] = outs[j];
    }
    mt_tensor_incref(hist);
    release(S);
    r[0] = mt_vtensor(hist);
    r[1] = mt_vtlist(list, nd);
    return 0;
}

/* ---- gradient ------------------------------------------------------------------------------ */

#define SL(x, d, start, len) K(mto_narrow((x), (d), (start), (len)))
#define ADD(p, q) K(mto_add_Tensor((p), (q), mt_vint(1)))
#define SUB(p, q) K(mto_sub_Tensor((p), (q), mt_vint(1)))
#define MUL(p, q) K(mto_mul_Tensor((p), (q)))
#define DIV(p, q) K(mto_div_Tensor((p), (q)))
#define MULS(p, v) K(mto_mul_Scalar((p), (v)))

/* along d with samples s apart (PyTorch's gradient_helper_float) */
static mt_tensor *gradient_uniform(scope *S, mt_tensor *x, int d, mt_value s, int64_t edge) {
    int64_t n = x->sizes[d];
    mt_tensor *center = K(mto_div_Scalar(SUB(SL(x, d, 2, n - 2), SL(x, d, 0, n - 2)), s)), *pre,
              *app;
    if (edge == 1) {
        pre = K(mto_div_Scalar(SUB(SL(x, d, 1, 1), SL(x, d, 0, 1)), s));
        app = K(mto_div_Scalar(SUB(SL(x, d, n - 1, 1), SL(x, d, n - 2, 1)), s));
    } else {
        pre = SUB(ADD(MULS(SL(x, d, 0, 1), mt_vdouble(-1.5)), MULS(SL(x, d, 1, 1), mt_vint(2))),
                  MULS(SL(x, d, 2, 1), mt_vdouble(0.5)));
        pre = K(mto_div_Scalar(pre, s));
        app = ADD(
            ADD(MULS(SL(x, d, n - 3, 1), mt_vdouble(0.5)), MULS(SL(x, d, n - 2, 1), mt_vint(-2))),
            MULS(SL(x, d, n - 1, 1), mt_vdouble(1.5)));
        app = K(mto_div_Scalar(app, s));
    }
    mt_tensor *parts[3] = {pre, K(mto_div_Scalar(center, mt_vint(2))), app};
    return K(mto_cat(parts, 3, d));
}

/* along d at the 1-D sample coordinates co (PyTorch's gradient_helper: second-order central
 * differences for uneven spacing) */
static mt_tensor *gradient_coords(scope *S, mt_tensor *x, int d, mt_tensor *co, int64_t edge) {
    if (co->ndim != 1)
        FAIL(MT_ERR_RUNTIME,
             "torch.gradient expected each element of spacing to have one dimension, but got an "
             "element with %d dimensions!",
             co->ndim);
    int64_t n = x->sizes[d], shape[MT_MAX_DIM];
    for (int k = 0; k < x->ndim; k++) shape[k] = k == d ? -1 : 1;
    mt_ilist sh = {shape, x->ndim};
    mt_tensor *dx = K(mto_diff(co, 1, 0, NULL, NULL));
    int64_t m = dx->sizes[0];
    if (m < 2)
        FAIL(MT_ERR_RUNTIME,
             "torch.gradient expected each dimension size to be at least edge_order+1");
    mt_tensor *dx1 = SL(dx, 0, 0, m - 1), *dx2 = SL(dx, 0, 1, m - 1), *sum = ADD(dx1, dx2);
    mt_tensor *a = K(mto_reshape(DIV(K(mto_neg(dx2)), MUL(dx1, sum)), sh));
    mt_tensor *b = K(mto_reshape(DIV(SUB(dx2, dx1), MUL(dx1, dx2)), sh));
    mt_tensor *c = K(mto_reshape(DIV(dx1, MUL(dx2, sum)), sh));
    mt_tensor *center = ADD(ADD(MUL(a, SL(x, d, 0, n - 2)), MUL(b, SL(x, d, 1, n - 2))),
                            MUL(c, SL(x, d, 2, n - 2)));
    mt_tensor *d0 = K(mto_select_int(dx, 0, 0)), *d1 = K(mto_select_int(dx, 0, 1));
    mt_tensor *dl = K(mto_select_int(dx, 0, m - 1)), *dm = K(mto_select_int(dx, 0, m - 2)), *pre,
              *app;
    if (edge == 1) {
        pre = DIV(SUB(SL(x, d, 1, 1), SL(x, d, 0, 1)), d0);
        app = DIV(SUB(SL(x, d, n - 1, 1), SL(x, d, n - 2, 1)), dl);
    } else {
        mt_tensor *s01 = ADD(d0, d1), *slm = ADD(dl, dm);
        a = K(mto_neg(DIV(ADD(MULS(d0, mt_vdouble(2.0)), d1), MUL(d0, s01))));
        b = DIV(s01, MUL(d0, d1));
        c = DIV(K(mto_neg(d0)), MUL(d1, s01));
        pre = ADD(ADD(MUL(a, SL(x, d, 0, 1)), MUL(b, SL(x, d, 1, 1))), MUL(c, SL(x, d, 2, 1)));
        a = DIV(dl, MUL(dm, slm));
        b = K(mto_neg(DIV(slm, MUL(dl, dm))));
        c = DIV(ADD(MULS(dl, mt_vint(2)), dm), MUL(dl, slm));
        app = ADD(ADD(MUL(a, SL(x, d, n - 3, 1)), MUL(b, SL(x, d, n - 2, 1))),
                  MUL(c, SL(x, d, n - 1, 1)));
    }
    mt_tensor *parts[3] = {pre, center, app};
    return K(mto_cat(parts, 3, d));
}

static int c_gradient(mt_call *c, mt_value *a, mt_value *r) {
    BEGIN;
    int id = c->op->id;
    mt_tensor *x = a[0].t;
    bool no_spacing_arg = id == MT_OP_gradient_array;
    mt_value sp = no_spacing_arg ? MT_NONE : a[1], dv = no_spacing_arg ? a[1] : a[2];
    int64_t edge = no_spacing_arg ? a[2].i : a[3].i;
    int64_t dims[MT_MAX_DIM];
    int nd = 0;
    bool dim_given = dv.tag == MT_V_INTLIST || dv.tag == MT_V_INT;
    if (dv.tag == MT_V_INTLIST) {
        if (dv.n > MT_MAX_DIM) FAIL(MT_ERR_RUNTIME, "torch.gradient: too many dims");
        for (int k = 0; k < dv.n; k++) dims[nd++] = dv.il[k];
    } else if (dv.tag == MT_V_INT) {
        dims[nd++] = dv.i;
    } else {
        for (int k = 0; k < x->ndim; k++) dims[nd++] = k;
    }
    /* how many spacings were given (-1: none) */
    int64_t ns = -1;
    if (id == MT_OP_gradient_scalarint)
        ns = sp.tag == MT_V_NONE ? -1 : dim_given ? 1 : x->ndim;
    else if (id == MT_OP_gradient_scalararray || id == MT_OP_gradient_array)
        ns = nd;
    else
        ns = sp.n;
    if (x->dtype == MT_UINT8) FAIL(MT_ERR_RUNTIME, "torch.gradient does not support uint8 input.");
    if (ns >= 0 && !dim_given && ns != x->ndim) /* the check of PyTorch's Python wrapper */
        FAIL(MT_ERR_RUNTIME,
             "torch.gradient expected spacing to be unspecified, a scalar or a list of length %d "
             "but "
             "got a list of length %lld",
             x->ndim, (long long)ns);
    if (ns >= 0 && dim_given && ns != nd)
        FAIL(MT_ERR_RUNTIME,
             "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
             "arguments to have the same length, but got a spacing argument of length %lld and a "
             "dim argument of length %d.",
             (long long)ns, nd);
    if (edge != 1 && edge != 2)
        FAIL(MT_ERR_RUNTIME, "torch.gradient only supports edge_order=1 and edge_order=2.");
    int wd[MT_MAX_DIM];
    bool seen[MT_MAX_DIM] = {0};
    for (int k = 0; k < nd; k++) {
        check(S, mt_wrap_dim(dims[k], x->ndim, &wd[k]));
        if (dim_given && seen[wd[k]])
            FAIL(MT_ERR_RUNTIME, "dim %lld appears multiple times in the list of dims",
                 mt_user_dim(wd[k]));
        seen[wd[k]] = true;
    }
    for (int k = 0; k < nd; k++)
        if (x->ndim == 0 || x->sizes[wd[k]] < edge + 1)
            FAIL(MT_ERR_RUNTIME,
                 "torch.gradient expected each dimension size to be at least edge_order+1");
    mt_tensor *gs[MT_MAX_DIM];
    for (int k = 0; k < nd; k++) {
        if (sp.tag == MT_V_TENSORLIST) {
            gs[k] = gradient_coords(S, x, wd[k], sp.tl[k], edge);
        } else {
            mt_value s = sp.tag == MT_V_DOUBLELIST ? mt_vdouble(sp.dl[k])
                         : sp.tag == MT_V_NONE     ? mt_vdouble(1.0)
                                                   : sp;
            gs[k] = gradient_uniform(S, x, wd[k], s, edge);
        }
    }
    mt_tensor **out = mt_calloc((size_t)(nd ? nd : 1), sizeof(mt_tensor *));
    if (!out) FAIL(MT_ERR_MEMORY, "out of memory");
    for (int k = 0; k < nd; k++) {
        mt_tensor_incref(gs[k]);
        out[k] = gs[k];
    }
    release(S);
    r[0] = mt_vtlist(out, nd);
    return 0;
}

void mt_statistics_register(void) {
    static const struct {
        int op;
        mt_kernel k;
    } composites[] = {
        {MT_OP_aminmax, c_aminmax},
        {MT_OP_nanmean, c_nanmean},
        {MT_OP_count_nonzero_dim_IntList, c_count_nonzero},
        {MT_OP_count_nonzero, c_count_nonzero},
        {MT_OP_median, c_median},
        {MT_OP_nanmedian, c_median},
        {MT_OP_median_dim, c_median_dim},
        {MT_OP_nanmedian_dim, c_median_dim},
        {MT_OP_mode, c_mode},
        {MT_OP_quantile, c_quantile},
        {MT_OP_quantile_scalar, c_quantile},
        {MT_OP_nanquantile, c_quantile},
        {MT_OP_nanquantile_scalar, c_quantile},
        {MT_OP_diff, c_diff},
        {MT_OP_dist, c_dist},
        {MT_OP_renorm, c_renorm},
        {MT_OP_renorm_, c_renorm},
        {MT_OP_cdist, c_cdist},
        {MT_OP_pdist, c_pdist},
        {MT_OP_cov, c_cov},
        {MT_OP_corrcoef, c_corrcoef},
        {MT_OP_trapezoid_x, c_trapezoid},
        {MT_OP_trapezoid_dx, c_trapezoid},
        {MT_OP_trapz_x, c_trapezoid},
        {MT_OP_trapz_dx, c_trapezoid},
        {MT_OP_cumulative_trapezoid_x, c_trapezoid},
        {MT_OP_cumulative_trapezoid_dx, c_trapezoid},
        {MT_OP_histc, c_histc},
        {MT_OP_bincount, c_bincount},
        {MT_OP_histogram_bins_tensor, c_histogram},
        {MT_OP_histogram_bin_ct, c_histogram},
        {MT_OP_histogramdd, c_histogramdd},
        {MT_OP_histogramdd_int_bins, c_histogramdd},
        {MT_OP_histogramdd_TensorList_bins, c_histogramdd},
        {MT_OP_gradient_scalarint, c_gradient},
        {MT_OP_gradient_scalararray, c_gradient},
        {MT_OP_gradient_array, c_gradient},
        {MT_OP_gradient_scalarrayint, c_gradient},
        {MT_OP_gradient_scalarrayarray, c_gradient},
        {MT_OP_gradient_tensorarrayint, c_gradient},
        {MT_OP_gradient_tensorarray, c_gradient},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(composites); i++)
        mt_disp_composite(composites[i].op, composites[i].k);
    mt_disp_meta(MT_OP_cummax, meta_scan);
    mt_disp_meta(MT_OP_cummin, meta_scan);
    mt_disp_meta(MT_OP_logcumsumexp, meta_scan);
}
