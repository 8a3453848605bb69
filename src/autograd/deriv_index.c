/* deriv_index.c: derivative formulas of gathers, scatters, masks, sorting and the random
 * in-place ops (whose inputs get zero gradients, as in PyTorch). Index tensors are 0-based here. */
#include "formula.h"

#include <string.h>

static void gather_bw(mt_bw *b) {
    SET(0, K(mto_scatter_add(mt_bw_grad_zeros(b, 0), V(1).i, A(2), G(0))));
}

static void scatter_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_scatter_value(G(0), V(1).i, A(2), SD(0))));
    if (NEEDS(3)) SET(3, K(mto_gather(G(0), V(1).i, A(2), false)));
}

static void scatter_add_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, G(0));
    if (NEEDS(3)) SET(3, K(mto_gather(G(0), V(1).i, A(2), false)));
}

static void index_bw(mt_bw *b) {
    mt_tensor *z = mt_bw_grad_zeros(b, 0);
    K(mto__index_put_int_(z, V(1).tl, V(1).n, G(0), true));
    SET(0, z);
}

static void index_put_bw(mt_bw *b) {
    if (NEEDS(0)) {
        if (V(3).b) {
            SET(0, G(0));
        } else { /* the overwritten positions get nothing */
            mt_tensor *zero = K(mto_zeros(MT_ILIST(), G(0)->dtype, G(0)->device, false, false));
            mt_tensor *g = K(mto_clone(G(0), NULL));
            K(mto__index_put_int_(g, V(1).tl, V(1).n, zero, false));
            SET(0, g);
        }
    }
    if (NEEDS(2)) SET(2, K(mto__index_int(G(0), V(1).tl, V(1).n)));
}

static void index_select_bw(mt_bw *b) {
    SET(0, K(mto_index_add(mt_bw_grad_zeros(b, 0), V(1).i, A(2), G(0), SI(1))));
}

static void index_add_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, G(0));
    if (NEEDS(3)) {
        mt_tensor *g = K(mto_index_select(G(0), V(1).i, A(2)));
        SET(3, mt_scalar_double(V(4)) == 1 ? g : K(mto_mul_Scalar(g, V(4))));
    }
}

static void index_copy_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_index_copy(G(0), V(1).i, A(2), mt_bw_grad_zeros(b, 3))));
    if (NEEDS(3)) SET(3, K(mto_index_select(G(0), V(1).i, A(2))));
}

static void masked_fill_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_masked_fill_Scalar(G(0), A(1), SD(0))));
}

static void masked_fill_tensor_bw(mt_bw *b) {
    masked_fill_bw(b);
    if (NEEDS(2))
        SET(2, K(mto_sum(K(mto_masked_fill_Scalar(G(0), K(mto_logical_not(A(1))), SD(0))), -1)));
}

static void masked_select_bw(mt_bw *b) {
    /* zeros of the shape self and mask broadcast to (the engine sums back to self's) */
    mt_tensor *zm =
        K(mto_mul_Scalar(K(mto_to_dtype(A(1), (mt_dtype)G(0)->dtype, false, false, NULL)), SI(0)));
    mt_tensor *z = K(mto_add_Tensor(zm, mt_bw_grad_zeros(b, 0), SI(1)));
    SET(0, K(mto_masked_scatter(z, A(1), G(0))));
}

static void masked_scatter_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_masked_fill_Scalar(G(0), A(1), SD(0))));
    if (NEEDS(2)) { /* the first mask.sum() source elements were used, in order */
        const mt_input_meta *m = META(2);
        int64_t n = 1;
        for (int i = 0; i < m->ndim; i++) n *= m->sizes[i];
        mt_tensor *used = K(mto_masked_select(G(0), A(1)));
        int64_t rest = n - used->sizes[0];
        mt_tensor *pad =
            K(mto_zeros((mt_ilist){&rest, 1}, G(0)->dtype, G(0)->device, false, false));
        mt_tensor *parts[2] = {used, pad};
        SET(2, K(mto_reshape(K(mto_cat(parts, 2, 0)), (mt_ilist){m->sizes, m->ndim})));
    }
}

static void take_bw(mt_bw *b) {
    const mt_input_meta *m = META(0);
    int64_t all = -1;
    mt_tensor *flat = K(mto_reshape(mt_bw_grad_zeros(b, 0), (mt_ilist){&all, 1}));
    mt_tensor *idx[1] = {K(mto_reshape(A(1), (mt_ilist){&all, 1}))};
    flat = K(mto_index_put(flat, idx, 1, K(mto_reshape(G(0), (mt_ilist){&all, 1})), true));
    SET(0, K(mto_reshape(flat, (mt_ilist){m->sizes, m->ndim})));
}

/* values chosen by indices along dim (sort, topk): the gradient scattered back */
static void chosen_bw(mt_bw *b, int64_t dim) {
    const mt_input_meta *m = META(0);
    if (m->ndim == 0) {
        SET(0, G(0));
        return;
    }
    SET(0, K(mto_scatter_src(mt_bw_grad_zeros(b, 0), mt_wrap(dim, m->ndim), R(1), G(0))));
}
static void sort_bw(mt_bw *b) {
    chosen_bw(b, V(1).i);
}
static void sort_stable_bw(mt_bw *b) {
    chosen_bw(b, V(2).i);
}
static void topk_bw(mt_bw *b) {
    chosen_bw(b, V(2).i);
}

static mt_derivative table[] = {
    D(gather, "GatherBackward0", gather_bw, "self: index"),
    D(scatter_src, "ScatterBackward0", scatter_bw, "self: index; src: index"),
    D(scatter__src, "ScatterBackward0", scatter_bw, "self: index; src: index"),
    D(scatter_value, "ScatterBackward1", scatter_bw, "self: index"),
    D(scatter__value, "ScatterBackward1", scatter_bw, "self: index"),
    D(scatter_add, "ScatterAddBackward0", scatter_add_bw, "self:; src: index"),
    D(scatter_add_, "ScatterAddBackward0", scatter_add_bw, "self:; src: index"),
    D(_index_int, "IndexBackward0", index_bw, "self: indices"),
    D(_index_put_int_, "IndexPutBackward0", index_put_bw, "self: indices; values: indices"),
    D(index_select, "IndexSelectBackward0", index_select_bw, "self: index"),
    D(index_add, "IndexAddBackward0", index_add_bw, "self:; source: index"),
    D(index_add_, "IndexAddBackward0", index_add_bw, "self:; source: index"),
    D(index_copy, "IndexCopyBackward0", index_copy_bw, "self: index; source: index"),
    D(index_copy_, "IndexCopyBackward0", index_copy_bw, "self: index; source: index"),
    D(masked_fill_Scalar, "MaskedFillBackward0", masked_fill_bw, "self: mask"),
    D(masked_fill__Scalar, "MaskedFillBackward0", masked_fill_bw, "self: mask"),
    D(masked_fill_Tensor, "MaskedFillBackward1", masked_fill_tensor_bw, "self: mask; value: mask"),
    D(masked_fill__Tensor, "MaskedFillBackward1", masked_fill_tensor_bw, "self: mask; value: mask"),
    D(masked_select, "MaskedSelectBackward0", masked_select_bw, "self: mask"),
    D(masked_scatter, "MaskedScatterBackward0", masked_scatter_bw, "self: mask; source: mask"),
    D(masked_scatter_, "MaskedScatterBackward0", masked_scatter_bw, "self: mask; source: mask"),
    D(take, "TakeBackward0", take_bw, "self: index"),
    D(sort, "SortBackward0", sort_bw, "self: result1"),
    D(sort_stable, "SortBackward1", sort_stable_bw, "self: result1"),
    D(topk, "TopkBackward0", topk_bw, "self: result1"),
    D_NOT_IMPLEMENTED(unique, "Unique2Backward0", "self:", "_unique2"),
    D(uniform_, "UniformBackward0", mt_bw_zero_grads, "self:"),
    D(normal_, "NormalBackward0", mt_bw_zero_grads, "self:"),
    D(random__from, "RandomBackward0", mt_bw_zero_grads, "self:"),
    D(random__to, "RandomBackward1", mt_bw_zero_grads, "self:"),
    D(random_, "RandomBackward2", mt_bw_zero_grads, "self:"),
    D(exponential_, "ExponentialBackward0", mt_bw_zero_grads, "self:"),
    D(bernoulli__Tensor, "BernoulliBackward1", mt_bw_zero_grads, "self:; p:"),
    D(bernoulli__float, "BernoulliBackward2", mt_bw_zero_grads, "self:"),
    D(bernoulli, "BernoulliBackward0", mt_bw_zero_grads, "self:"),
    D(normal_Tensor_float, "NormalBackward1", mt_bw_zero_grads, "mean:"),
    D(normal_float_Tensor, "NormalBackward2", mt_bw_zero_grads, "std:"),
    D(normal_Tensor_Tensor, "NormalBackward3", mt_bw_zero_grads, "mean:; std:"),
};

void mt_deriv_index_register(void) {
    mt_derivatives_register(table, (int)MT_ARRAY_LEN(table));
}

/* ---- scatter_reduce ------------------------------------------------------------------------- */

/* where(c, x, 0) for a bool c */
static mt_tensor *keep_where(mt_bw *b, mt_tensor *c, mt_tensor *x) {
    return K(mto_where_ScalarOther(c, x, SI(0)));
}

/* scatter_reduce(self, dim, index, src, reduce, include_self): each contribution to a position
 * (self's value when included, the src values scattered there) gets the gradient of that
 * position through the reduction; positions nothing was scattered to pass theirs to self */
void mt_d_scatter_reduce(mt_bw *b) {
    mt_tensor *self = A(0), *index = A(2), *src = A(3), *res = R(0), *g = G(0);
    int64_t dim = V(1).i;
    const char *red = V(4).s;
    bool incl = V(5).b;
    mt_tensor *zs = K(mto_zeros_like(self, -1, NODEV, false, NULL));
    mt_tensor *ones_src = K(mto_ones_like(src, -1, NODEV, false, NULL));
    mt_tensor *touched = K(mto_ne_Scalar(K(mto_scatter_add(zs, dim, index, ones_src)), SI(0)));
    mt_tensor *self_in = incl ? NULL : K(mto_logical_not(touched)); /* self counts here only */
    mt_tensor *gsrc = NULL, *gself = NULL;
    if (strcmp(red, "sum") == 0 || strcmp(red, "mean") == 0) {
        mt_tensor *gg = g;
        if (red[0] == 'm') { /* the count of contributions per position */
            mt_tensor *base = incl ? K(mto_ones_like(self, -1, NODEV, false, NULL)) : zs;
            mt_tensor *n = K(mto_scatter_add(base, dim, index, ones_src));
            gg = K(mto_div_Tensor(g, K(mto_clamp(n, SD(1), MT_NONE))));
        }
        gself = incl ? gg : keep_where(b, self_in, g);
        gsrc = K(mto_gather(gg, dim, index, false));
    } else if (strcmp(red, "amax") == 0 || strcmp(red, "amin") == 0) {
        /* evenly among the contributions equal to the result */
        mt_tensor *self_hit = K(mto_eq_Tensor(self, res));
        if (!incl) self_hit = K(mto_logical_and(self_hit, self_in));
        mt_tensor *src_hit = K(mto_eq_Tensor(src, K(mto_gather(res, dim, index, false))));
        mt_tensor *src_f = K(mto_to_dtype(src_hit, (mt_dtype)g->dtype, false, false, NULL));
        mt_tensor *self_f = K(mto_to_dtype(self_hit, (mt_dtype)g->dtype, false, false, NULL));
        mt_tensor *n = K(mto_scatter_add(self_f, dim, index, src_f));
        mt_tensor *share = K(mto_div_Tensor(g, K(mto_clamp(n, SD(1), MT_NONE))));
        gself = keep_where(b, self_hit, share);
        gsrc = K(mto_mul_Tensor(K(mto_gather(share, dim, index, false)), src_f));
    } else { /* prod: the product of the other contributions, exact where some are zero */
        mt_tensor *src0 = K(mto_eq_Scalar(src, SI(0))), *self0 = K(mto_eq_Scalar(self, SI(0)));
        if (!incl) self0 = K(mto_logical_and(self0, self_in));
        mt_tensor *zeros_n = K(
            mto_scatter_add(K(mto_to_dtype(self0, (mt_dtype)g->dtype, false, false, NULL)), dim,
                            index, K(mto_to_dtype(src0, (mt_dtype)g->dtype, false, false, NULL))));
        mt_tensor *src1 = K(mto_where_ScalarSelf(src0, SI(1), src));
        mt_tensor *self1 = K(mto_where_ScalarSelf(self0, SI(1), self));
        mt_tensor *res1 = K(mto_scatter_reduce_two(self1, dim, index, src1, "prod", incl));
        /* others(x) = x != 0 ? res / x : (one zero in the group ? res1 : 0) */
        mt_tensor *one_zero = K(mto_eq_Scalar(zeros_n, SI(1)));
        mt_tensor *alt = keep_where(b, one_zero, res1);
        mt_tensor *oth_self = K(mto_where_self(self0, alt, K(mto_div_Tensor(res, self))));
        gself = incl ? K(mto_mul_Tensor(g, oth_self))
                     : K(mto_where_self(self_in, g, K(mto_zeros_like(g, -1, NODEV, false, NULL))));
        mt_tensor *alt_s = K(mto_gather(alt, dim, index, false));
        mt_tensor *res_s = K(mto_gather(res, dim, index, false));
        mt_tensor *oth_src = K(mto_where_self(src0, alt_s, K(mto_div_Tensor(res_s, src))));
        gsrc = K(mto_mul_Tensor(K(mto_gather(g, dim, index, false)), oth_src));
    }
    if (NEEDS(0)) SET(0, gself);
    if (NEEDS(3)) SET(3, gsrc);
}
