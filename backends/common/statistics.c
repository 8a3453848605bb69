/* statistics.c: reductions and statistics written with other ops (src/ops/statistics.lua):
 * aminmax, nanmean, count_nonzero, median, nanmedian, mode, cummax, cummin, logcumsumexp,
 * quantile, nanquantile. They run above every dispatch key, so the meta device and the
 * pipeline see sort, gather, cumsum ...; autograd too unless the op declares its own formula.
 *
 * Every temporary goes into a scope that releases them all at the end; an op that fails
 * (or a check) jumps back to the kernel's entry, which releases what was made and returns -1. */
#include "common_ops.h"
#include "mt_ops_gen.h"

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

/* a temporary no longer needed (the running values of a scan), released at once */
static void drop(scope *s, mt_tensor *t) {
    for (int i = s->n - 1; i >= 0; i--)
        if (s->t[i] == t) {
            mt_tensor_decref(t);
            s->t[i] = s->t[--s->n];
            return;
        }
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
    mt_tensor *count = K(mto_sum_dim_IntList(K(mto_logical_not(K(mto_isnan(x)))), dims, a[2].b, -1));
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
    mt_tensor *n = dims.n ? K(mto_sum_dim_IntList(nz, dims, false, MT_INT64)) : K(mto_sum(nz, MT_INT64));
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
    if (x->numel == 0) { /* PyTorch's NaN in the dtype */
        mt_tensor *f = K(mto_full((mt_ilist){NULL, 0}, mt_vdouble(NAN), MT_FLOAT64, x->device, false,
                                  false));
        return done(S, r, 1, K(mto_to_dtype(f, (mt_dtype)x->dtype, false, false)), NULL);
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
    mt_tensor *head = K(mto_narrow(sorted, d, 1, n - 1)), *prev = K(mto_narrow(sorted, d, 0, n - 1));
    mt_tensor *changed = K(mto_to_dtype(K(mto_ne_Tensor(head, prev)), MT_INT64, false, false));
    mt_tensor *first = K(mto_zeros_like(K(mto_narrow(sorted, d, 0, 1)), MT_INT64, NODEV, false));
    mt_tensor *parts[2] = {first, changed};
    mt_tensor *run = K(mto_cumsum(K(mto_cat(parts, 2, d)), d, -1));
    /* each element's run length: ones added per run id, read back per element */
    mt_tensor *ones = K(mto_ones_like(run, -1, NODEV, false));
    mt_tensor *len = K(mto_scatter_add(K(mto_zeros_like(run, -1, NODEV, false)), d, run, ones));
    mt_tensor *count = K(mto_gather(len, d, run, false));
    mt_tensor *j = K(mto_argmax(count, mt_vint(d), true)); /* the first longest run's start */
    mt_tensor *end = K(mto_sub_Scalar(K(mto_add_Tensor(j, K(mto_gather(count, d, j, false)), mt_vint(1))),
                                      mt_vint(1), mt_vint(1)));
    mt_tensor *v = K(mto_gather(sorted, d, j, false)), *i = K(mto_gather(perm, d, end, false));
    if (!keepdim) {
        v = K(mto_squeeze_dim(v, d));
        i = K(mto_squeeze_dim(i, d));
    }
    return done(S, r, 2, v, i);
}

/* ---- cummax, cummin, logcumsumexp: scans by doubling --------------------------------------- */

/* Running extremes along d with their last positions, as PyTorch's sequential scan gives them
 * (a NaN, or a value at least as large as the running one, takes over): the rule is
 * associative, so log2(n) rounds of combining each element with the one 2^k before suffice. */
static int c_cummaxmin(mt_call *c, mt_value *a, mt_value *r) {
    BEGIN;
    mt_tensor *x = a[0].t;
    bool is_max = c->op->id == MT_OP_cummax;
    int d;
    check(S, mt_wrap_dim(a[1].i, x->ndim, &d));
    if (x->dtype == MT_FLOAT16)
        FAIL(MT_ERR_RUNTIME, "\"%s_cpu\" not implemented for 'Half'", is_max ? "cummax" : "cummin");
    if (x->ndim == 0) return done(S, r, 2, K(mto_clone(x, NULL)), zero_index(S, x));
    int64_t n = x->sizes[d];
    int64_t shape[MT_MAX_DIM];
    for (int k = 0; k < x->ndim; k++) shape[k] = k == d ? n : 1;
    mt_tensor *pos = K(mto_arange(mt_vint(n), MT_INT64, x->device, false, false));
    pos = K(mto_expand(K(mto_view(pos, (mt_ilist){shape, x->ndim})),
                       (mt_ilist){x->sizes, x->ndim}, false));
    mt_tensor *v = x, *i = pos;
    bool floating = mt_dtype_is_floating((mt_dtype)x->dtype);
    for (int64_t s = 1; s < n; s *= 2) {
        mt_tensor *pv = K(mto_narrow(v, d, 0, n - s)), *cv = K(mto_narrow(v, d, s, n - s));
        mt_tensor *pi = K(mto_narrow(i, d, 0, n - s)), *ci = K(mto_narrow(i, d, s, n - s));
        mt_tensor *take = is_max ? K(mto_ge_Tensor(cv, pv)) : K(mto_le_Tensor(cv, pv));
        if (floating) { /* isnan(cur) or (!isnan(prev) and cur beats prev) */
            mt_tensor *ok = K(mto_logical_and(K(mto_logical_not(K(mto_isnan(pv)))), take));
            take = K(mto_logical_or(K(mto_isnan(cv)), ok));
        }
        mt_tensor *nv = K(mto_where_self(take, cv, pv)), *ni = K(mto_where_self(take, ci, pi));
        mt_tensor *vp[2] = {K(mto_narrow(v, d, 0, s)), nv}, *ip[2] = {K(mto_narrow(i, d, 0, s)), ni};
        mt_tensor *v2 = K(mto_cat(vp, 2, d)), *i2 = K(mto_cat(ip, 2, d));
        /* this round's temporaries (all but the new running values) go now */
        mt_tensor *tmp[] = {pv, cv, pi, ci, take, nv, ni, vp[0], ip[0]};
        for (size_t k = 0; k < MT_ARRAY_LEN(tmp); k++) drop(S, tmp[k]);
        if (v != x) drop(S, v);
        if (i != pos) drop(S, i);
        v = v2;
        i = i2;
    }
    if (v == x) v = K(mto_clone(x, NULL));
    if (i == pos) i = K(mto_contiguous(pos));
    return done(S, r, 2, v, i);
}

static int c_logcumsumexp(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    BEGIN;
    mt_tensor *x = a[0].t;
    int d;
    check(S, mt_wrap_dim(a[1].i, x->ndim, &d));
    if (!mt_dtype_is_floating((mt_dtype)x->dtype) || x->dtype == MT_FLOAT16)
        FAIL(MT_ERR_RUNTIME, "\"logcumsumexp_out_cpu\" not implemented for '%s'",
             mt_dtype_scalar_name((mt_dtype)x->dtype));
    if (x->ndim == 0) return done(S, r, 1, K(mto_clone(x, NULL)), NULL);
    int64_t n = x->sizes[d];
    mt_tensor *v = x;
    for (int64_t s = 1; s < n; s *= 2) {
        mt_tensor *pv = K(mto_narrow(v, d, 0, n - s)), *cv = K(mto_narrow(v, d, s, n - s));
        mt_tensor *nv = K(mto_logaddexp(pv, cv));
        mt_tensor *parts[2] = {K(mto_narrow(v, d, 0, s)), nv};
        mt_tensor *v2 = K(mto_cat(parts, 2, d));
        mt_tensor *tmp[] = {pv, cv, nv, parts[0]};
        for (size_t k = 0; k < MT_ARRAY_LEN(tmp); k++) drop(S, tmp[k]);
        if (v != x) drop(S, v);
        v = v2;
    }
    if (v == x) v = K(mto_clone(x, NULL));
    return done(S, r, 1, v, NULL);
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
        mt_tensor *in = K(mto_logical_and(K(mto_ge_Scalar(q, mt_vint(0))),
                                          K(mto_le_Scalar(q, mt_vint(1)))));
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
        mt_tensor *moved = d == x->ndim - 1 ? x : K(mto_transpose_int(K(mto_unsqueeze(x, -1)), d, -1));
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
        ranks = K(mto_expand(K(mto_mul_Scalar(q1, mt_vint(n - 1))), (mt_ilist){rshape, nb + 1},
                             false));
        ranks = K(mto_masked_fill_Scalar(ranks, nanrow, mt_vint(n - 1)));
    }
    if (mode == Q_LOWER) ranks = K(mto_floor(ranks));
    if (mode == Q_HIGHER) ranks = K(mto_ceil(ranks));
    if (mode == Q_NEAREST) ranks = K(mto_round(ranks));
    mt_tensor *below = K(mto_to_dtype(ranks, MT_INT64, false, false));
    mt_tensor *v = K(mto_gather(sorted, last, below, false));
    if (mode == Q_LINEAR || mode == Q_MIDPOINT) {
        mt_tensor *w = mode == Q_MIDPOINT ? K(mto_full_like(ranks, mt_vdouble(0.5), -1, NODEV, false))
                                          : K(mto_sub_Tensor(ranks, below, mt_vint(1)));
        mt_tensor *above = K(mto_to_dtype(K(mto_ceil(ranks)), MT_INT64, false, false));
        v = K(mto_lerp_Tensor(v, K(mto_gather(sorted, last, above, false)), w));
    }
    if (scalar_q || q->ndim == 0)
        v = K(mto_squeeze_dim(v, -1));
    else /* q's dim first, laid out as PyTorch leaves it */
        v = K(mto_squeeze_dim(K(mto_transpose_int(K(mto_unsqueeze(v, 0)), 0, -1)), -1));
    return done(S, r, 1, v, NULL);
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
        {MT_OP_cummax, c_cummaxmin},
        {MT_OP_cummin, c_cummaxmin},
        {MT_OP_logcumsumexp, c_logcumsumexp},
        {MT_OP_quantile, c_quantile},
        {MT_OP_quantile_scalar, c_quantile},
        {MT_OP_nanquantile, c_quantile},
        {MT_OP_nanquantile_scalar, c_quantile},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(composites); i++)
        mt_disp_composite(composites[i].op, composites[i].k);
}
