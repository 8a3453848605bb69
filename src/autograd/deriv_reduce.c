/* deriv_reduce.c: derivative formulas of reductions, scans and softmax, named by the `grad`
 * fields of their declarations (src/ops/reductions.lua, kthvalue in indexing.lua). */
#include "formula.h"

#include "mt_pipeline.h"

#include <string.h>

/* Which dims of an argument with `ndim` dims a dim-list argument reduces (None or [] is all). */
static void reduced_dims(mt_value dims, int ndim, bool *red) {
    bool all = dims.tag != MT_V_INTLIST || dims.n == 0;
    for (int i = 0; i < ndim; i++) red[i] = all;
    if (!all)
        for (int k = 0; k < dims.n; k++) red[mt_wrap(dims.il[k], ndim)] = true;
}

/* a reduction's gradient (or result) brought back to its input's rank: the reduced dims
 * unsqueezed where keepdim dropped them */
static mt_tensor *unreduce(mt_bw *b, mt_tensor *g, const bool *red, int ndim, bool keepdim) {
    if (keepdim || g->ndim == ndim) return g;
    for (int i = 0; i < ndim; i++)
        if (red[i]) g = K(mto_unsqueeze(g, i));
    return g;
}

static mt_tensor *expand_to(mt_bw *b, mt_tensor *g, const mt_input_meta *m) {
    return K(mto_expand(g, (mt_ilist){m->sizes, m->ndim}, false));
}

static int64_t reduced_count(const mt_input_meta *m, const bool *red) {
    int64_t n = 1;
    for (int i = 0; i < m->ndim; i++)
        if (red[i]) n *= m->sizes[i];
    return n;
}

/* the dims as a list for ops (all of them when none given) */
static mt_ilist dim_list(const bool *red, int ndim, int64_t *buf) {
    int n = 0;
    for (int i = 0; i < ndim; i++)
        if (red[i]) buf[n++] = i;
    return (mt_ilist){buf, n};
}

mt_tensor *mt_f_sum_backward(mt_bw *b, mt_tensor *g, const mt_input_meta *m, mt_value dims,
                             bool keepdim) {
    if (!g) return NULL;
    bool red[MT_MAX_DIM];
    reduced_dims(dims, m->ndim, red);
    return expand_to(b, unreduce(b, g, red, m->ndim, keepdim), m);
}

void mt_d_mean(mt_bw *b) {
    const mt_input_meta *m = META(0);
    bool red[MT_MAX_DIM];
    reduced_dims(MT_NONE, m->ndim, red);
    SET(0, K(mto_div_Scalar(expand_to(b, G(0), m), SI(reduced_count(m, red)))));
}

void mt_d_mean_dim(mt_bw *b) {
    const mt_input_meta *m = META(0);
    bool red[MT_MAX_DIM];
    reduced_dims(V(1), m->ndim, red);
    mt_tensor *g = expand_to(b, unreduce(b, G(0), red, m->ndim, V(2).b), m);
    SET(0, K(mto_div_Scalar(g, SI(reduced_count(m, red)))));
}

/* the product of every other element along dim (exact with zeros): exclusive scans from both
 * ends multiplied */
static mt_tensor *prod_of_others(mt_bw *b, mt_tensor *x, int64_t dim) {
    int64_t n = x->sizes[dim];
    if (n <= 1) return K(mto_ones_like(x, -1, NODEV, false, NULL));
    mt_tensor *one = K(mto_ones_like(K(mto_narrow(x, dim, 0, 1)), -1, NODEV, false, NULL));
    mt_tensor *l[2] = {one, K(mto_narrow(x, dim, 0, n - 1))};
    mt_tensor *left = K(mto_cumprod(K(mto_cat(l, 2, dim)), dim, -1));
    mt_tensor *r[2] = {K(mto_narrow(x, dim, 1, n - 1)), one};
    int64_t d = dim;
    mt_ilist flip = {&d, 1};
    mt_tensor *right =
        K(mto_flip(K(mto_cumprod(K(mto_flip(K(mto_cat(r, 2, dim)), flip)), dim, -1)), flip));
    return K(mto_mul_Tensor(left, right));
}

void mt_d_prod(mt_bw *b) {
    mt_tensor *x = A(0);
    if (x->ndim == 0) {
        SET(0, G(0));
        return;
    }
    int64_t n = -1;
    mt_tensor *flat = K(mto_reshape(x, (mt_ilist){&n, 1}));
    mt_tensor *others = K(mto_reshape(prod_of_others(b, flat, 0), (mt_ilist){x->sizes, x->ndim}));
    SET(0, K(mto_mul_Tensor(G(0), others)));
}

void mt_d_prod_dim(mt_bw *b) {
    mt_tensor *x = A(0);
    if (x->ndim == 0) {
        SET(0, G(0));
        return;
    }
    int64_t dim = mt_wrap(V(1).i, x->ndim);
    mt_tensor *g = V(2).b ? G(0) : K(mto_unsqueeze(G(0), dim));
    SET(0, K(mto_mul_Tensor(g, prod_of_others(b, x, dim))));
}

/* max()/min() of everything: the gradient shared evenly by the elements equal to the result */
void mt_d_extreme_all(mt_bw *b) {
    mt_tensor *x = A(0), *r = R(0);
    mt_tensor *mask = K(mto_logical_or(K(mto_eq_Tensor(x, r)),
                                       K(mto_logical_and(K(mto_isnan(x)), K(mto_isnan(r))))));
    mt_tensor *count = K(mto_sum(mask, -1));
    mt_tensor *share = K(mto_div_Tensor(G(0), count));
    SET(0, K(mto_mul_Tensor(K(mto_to_dtype(mask, (mt_dtype)x->dtype, false, false, NULL)), share)));
}

/* values picked by indices along dim (max.dim, kthvalue): the gradient scattered back */
static mt_tensor *scatter_back(mt_bw *b, mt_tensor *g, mt_tensor *idx, int64_t dim, bool keepdim,
                               const mt_input_meta *m) {
    if (m->ndim == 0) return g;
    dim = mt_wrap(dim, m->ndim);
    if (!keepdim) {
        g = K(mto_unsqueeze(g, dim));
        idx = K(mto_unsqueeze(idx, dim));
    }
    mt_tensor *z = K(mt_zeros_meta(m));
    if (z->dtype != g->dtype) z = K(mto_to_dtype(z, (mt_dtype)g->dtype, false, false, NULL));
    return K(mto_scatter_src(z, dim, idx, g));
}

void mt_d_extreme_dim(mt_bw *b) {
    SET(0, scatter_back(b, G(0), R(1), V(1).i, V(2).b, META(0)));
}
void mt_d_kthvalue(mt_bw *b) {
    SET(0, scatter_back(b, G(0), R(1), V(2).i, V(3).b, META(0)));
}

void mt_d_amax(mt_bw *b) { /* evenly among the extremes of each slice */
    mt_tensor *x = A(0);
    bool red[MT_MAX_DIM];
    int64_t buf[MT_MAX_DIM];
    reduced_dims(V(1), x->ndim, red);
    bool keep = V(2).b;
    mt_tensor *r = unreduce(b, R(0), red, x->ndim, keep),
              *g = unreduce(b, G(0), red, x->ndim, keep);
    mt_tensor *mask =
        K(mto_to_dtype(K(mto_eq_Tensor(x, r)), (mt_dtype)x->dtype, false, false, NULL));
    mt_tensor *count = K(mto_sum_dim_IntList(mask, dim_list(red, x->ndim, buf), true, -1));
    SET(0, K(mto_mul_Tensor(K(mto_div_Tensor(g, count)), mask)));
}

/* ---- variance and standard deviation --------------------------------------------------------- */

typedef struct moments {
    bool red[MT_MAX_DIM];
    bool keepdim;
    double correction;
} moments;

/* the reduced dims, keepdim and correction of each var/std overload (by its schema) */
static void moments_of(mt_bw *b, moments *mo) {
    const mt_input_meta *m = META(0);
    const char *ov = b->node->op->schema->overload;
    mo->keepdim = false;
    mo->correction = 1;
    if (*ov == 0) { /* var(self, unbiased) */
        reduced_dims(MT_NONE, m->ndim, mo->red);
        mo->correction = V(1).b ? 1 : 0;
    } else if (strcmp(ov, "dim") == 0) { /* (self, dim, unbiased, keepdim) */
        reduced_dims(V(1), m->ndim, mo->red);
        mo->correction = V(2).b ? 1 : 0;
        mo->keepdim = V(3).b;
    } else { /* correction: (self, dim, correction, keepdim) */
        reduced_dims(V(1), m->ndim, mo->red);
        mo->correction = V(2).tag == MT_V_NONE ? 1 : mt_scalar_double(V(2));
        mo->keepdim = V(3).b;
    }
}

/* d var / d x = 2 (x - mean) / (N - correction) */
static mt_tensor *var_grad(mt_bw *b, const moments *mo, mt_tensor *g) {
    mt_tensor *x = A(0);
    int64_t buf[MT_MAX_DIM];
    mt_ilist dims = dim_list(mo->red, x->ndim, buf);
    int64_t n = reduced_count(META(0), mo->red);
    g = unreduce(b, g, mo->red, x->ndim, mo->keepdim);
    mt_tensor *centered = K(mto_sub_Tensor(x, K(mto_mean_dim(x, dims, true, -1)), SI(1)));
    return K(
        mto_mul_Tensor(K(mto_mul_Scalar(g, SD(2.0 / ((double)n - mo->correction)))), centered));
}

static mt_tensor *std_grad(mt_bw *b, const moments *mo, mt_tensor *g, mt_tensor *result) {
    mt_tensor *r = unreduce(b, result, mo->red, A(0)->ndim, mo->keepdim);
    mt_tensor *half = K(mto_div_Tensor(unreduce(b, g, mo->red, A(0)->ndim, mo->keepdim),
                                       K(mto_mul_Scalar(r, SI(2)))));
    moments keep = *mo;
    keep.keepdim = true;
    return var_grad(b, &keep, half);
}

static mt_tensor *mean_grad(mt_bw *b, const moments *mo, mt_tensor *g) {
    const mt_input_meta *m = META(0);
    g = expand_to(b, unreduce(b, g, mo->red, m->ndim, mo->keepdim), m);
    return K(mto_div_Scalar(g, SI(reduced_count(m, mo->red))));
}

void mt_d_var(mt_bw *b) {
    moments mo;
    moments_of(b, &mo);
    SET(0, var_grad(b, &mo, G(0)));
}

void mt_d_std(mt_bw *b) {
    moments mo;
    moments_of(b, &mo);
    SET(0, std_grad(b, &mo, G(0), R(0)));
}

void mt_d_var_mean(mt_bw *b) {
    moments mo;
    moments_of(b, &mo);
    SET(0, K(mto_add_Tensor(var_grad(b, &mo, G(0)), mean_grad(b, &mo, G(1)), SI(1))));
}

void mt_d_std_mean(mt_bw *b) {
    moments mo;
    moments_of(b, &mo);
    SET(0, K(mto_add_Tensor(std_grad(b, &mo, G(0), R(0)), mean_grad(b, &mo, G(1)), SI(1))));
}

/* ---- norms --------------------------------------------------------------------------------- */

static void norm_common(mt_bw *b, double p, mt_value dims, bool keepdim) {
    mt_tensor *x = A(0);
    bool red[MT_MAX_DIM];
    int64_t buf[MT_MAX_DIM];
    reduced_dims(dims, x->ndim, red);
    mt_tensor *g = unreduce(b, G(0), red, x->ndim, keepdim);
    if (p == 0) {
        SET(0, mt_bw_zeros(b, 0));
        return;
    }
    if (p == 1) {
        SET(0, K(mto_mul_Tensor(K(mto_sign(x)), g)));
        return;
    }
    mt_tensor *r = unreduce(b, R(0), red, x->ndim, keepdim);
    if (isinf(p)) { /* shared evenly by the elements whose magnitude is the norm */
        mt_tensor *mask = K(mto_to_dtype(K(mto_eq_Tensor(K(mto_abs(x)), r)), (mt_dtype)x->dtype,
                                         false, false, NULL));
        mt_tensor *count = K(mto_sum_dim_IntList(mask, dim_list(red, x->ndim, buf), true, -1));
        SET(0, K(mto_mul_Tensor(K(mto_mul_Tensor(K(mto_sign(x)), mask)),
                                K(mto_div_Tensor(g, count)))));
        return;
    }
    mt_tensor *num =
        p == 2 ? x : K(mto_mul_Tensor(x, K(mto_pow_Tensor_Scalar(K(mto_abs(x)), SD(p - 2)))));
    mt_tensor *den = p == 2 ? r : K(mto_pow_Tensor_Scalar(r, SD(p - 1)));
    mt_tensor *out = K(mto_div_Tensor(K(mto_mul_Tensor(num, g)), den));
    SET(0, K(mto_masked_fill_Scalar(out, K(mto_eq_Scalar(r, SI(0))), SD(0))));
}

void mt_d_norm(mt_bw *b) {
    norm_common(b, NUM(1), MT_NONE, false);
}
void mt_d_norm_dim(mt_bw *b) {
    norm_common(b, V(1).tag == MT_V_NONE ? 2 : NUM(1), V(2), V(3).b);
}

void mt_d_logsumexp(mt_bw *b) {
    mt_tensor *x = A(0);
    bool red[MT_MAX_DIM];
    reduced_dims(V(1), x->ndim, red);
    bool keep = V(2).b;
    mt_tensor *r = unreduce(b, R(0), red, x->ndim, keep),
              *g = unreduce(b, G(0), red, x->ndim, keep);
    SET(0, K(mto_mul_Tensor(g, K(mto_exp(K(mto_sub_Tensor(x, r, SI(1))))))));
}

/* ---- scans and softmax ----------------------------------------------------------------------- */

static mt_tensor *reverse_cumsum(mt_bw *b, mt_tensor *g, int64_t dim) {
    mt_ilist f = {&dim, 1};
    return K(mto_flip(K(mto_cumsum(K(mto_flip(g, f)), dim, -1)), f));
}

void mt_d_cumsum(mt_bw *b) {
    const mt_input_meta *m = META(0);
    if (m->ndim == 0) {
        SET(0, G(0));
        return;
    }
    SET(0, reverse_cumsum(b, G(0), mt_wrap(V(1).i, m->ndim)));
}

static bool any_zero(mt_bw *b, mt_tensor *x) {
    if (x->device.type != MT_DEV_CPU) return false; /* meta tensors have no values to look at */
    mt_tensor *z = K(mto_any(K(mto_eq_Scalar(x, SI(0)))));
    if (mt_pipeline_active() && mt_pipeline_flush()) mt_bw_fail(b);
    return *(const bool *)mt_tensor_raw(z);
}

/* d out_j / d x_k = prod_{i <= j, i != k} x_i for j >= k */
void mt_d_cumprod(mt_bw *b) {
    mt_tensor *x = A(0);
    if (x->ndim == 0) {
        SET(0, G(0));
        return;
    }
    int64_t dim = mt_wrap(V(1).i, x->ndim), n = x->sizes[dim];
    if (!any_zero(b, x)) { /* sum_{j>=k} grad_j out_j / x_k */
        SET(0, K(mto_div_Tensor(reverse_cumsum(b, K(mto_mul_Tensor(G(0), R(0))), dim), x)));
        return;
    }
    /* with zeros: each position's gradient from the scan with that element set to one */
    int64_t shape[MT_MAX_DIM];
    for (int i = 0; i < x->ndim; i++) shape[i] = i == dim ? n : 1;
    mt_tensor *pos = K(mto_view(K(mto_arange(SI(n), MT_INT64, x->device, false, false)),
                                (mt_ilist){shape, x->ndim}));
    mt_tensor *g = mt_bw_zeros(b, 0);
    for (int64_t k = 0; k < n; k++) {
        mt_tensor *at_k = K(mto_eq_Scalar(pos, SI(k)));
        mt_tensor *scan = K(mto_cumprod(K(mto_masked_fill_Scalar(x, at_k, SD(1))), dim, -1));
        mt_tensor *contrib = K(mto_masked_fill_Scalar(K(mto_mul_Tensor(G(0), scan)),
                                                      K(mto_lt_Scalar(pos, SI(k))), SD(0)));
        mt_tensor *sum = K(mto_sum_dim_IntList(contrib, (mt_ilist){&dim, 1}, true, -1));
        g = K(mto_add_Tensor(
            g,
            K(mto_mul_Tensor(sum, K(mto_to_dtype(at_k, (mt_dtype)sum->dtype, false, false, NULL)))),
            SI(1)));
    }
    SET(0, g);
}

void mt_d_softmax(mt_bw *b) {
    const mt_input_meta *m = META(0);
    if (m->ndim == 0) {
        SET(0, K(mto_mul_Scalar(G(0), SI(0))));
        return;
    }
    int64_t dim = mt_wrap(V(1).i, m->ndim);
    mt_tensor *gy = K(mto_mul_Tensor(G(0), R(0)));
    mt_tensor *s = K(mto_sum_dim_IntList(gy, (mt_ilist){&dim, 1}, true, -1));
    SET(0, K(mto_sub_Tensor(gy, K(mto_mul_Tensor(R(0), s)), SI(1))));
}

void mt_d_log_softmax(mt_bw *b) {
    const mt_input_meta *m = META(0);
    if (m->ndim == 0) {
        SET(0, K(mto_mul_Scalar(G(0), SI(0))));
        return;
    }
    int64_t dim = mt_wrap(V(1).i, m->ndim);
    mt_tensor *s = K(mto_sum_dim_IntList(G(0), (mt_ilist){&dim, 1}, true, -1));
    SET(0, K(mto_sub_Tensor(G(0), K(mto_mul_Tensor(K(mto_exp(R(0))), s)), SI(1))));
}
