/* deriv_shape.c: derivative formulas of views, copies, joins and splits. */
#include "formula.h"

#include <stdlib.h>
#include <string.h>

static void reshape_bw(mt_bw *b) {
    SET(0, K(mto_reshape(G(0), mt_meta_sizes(META(0)))));
}

static void transpose_bw(mt_bw *b) {
    SET(0, K(mto_transpose_int(G(0), V(1).i, V(2).i)));
}
static void t_bw(mt_bw *b) {
    SET(0, K(mto_t(G(0))));
}

static void permute_bw(mt_bw *b) {
    int n = V(1).n;
    int64_t inv[MT_MAX_DIM];
    for (int i = 0; i < n; i++) inv[mt_wrap(V(1).il[i], n)] = i;
    SET(0, K(mto_permute(G(0), (mt_ilist){inv, n})));
}

static void expand_bw(mt_bw *b) {
    const mt_input_meta *m = META(0);
    SET(0, K(mt_sum_to(G(0), m->sizes, m->ndim)));
}

static void squeeze_bw(mt_bw *b) {
    SET(0, K(mto_reshape(G(0), mt_meta_sizes(META(0)))));
}
static void unsqueeze_bw(mt_bw *b) {
    SET(0, K(mto_squeeze_dim(G(0), mt_wrap(V(1).i, G(0)->ndim))));
}

static void narrow_bw(mt_bw *b) {
    mt_tensor *z = mt_bw_grad_zeros(b, 0);
    K(mto_copy_(K(mto_narrow(z, V(1).i, V(2).i, V(3).i)), G(0), false));
    SET(0, z);
}

static void select_bw(mt_bw *b) {
    mt_tensor *z = mt_bw_grad_zeros(b, 0);
    K(mto_copy_(K(mto_select_int(z, V(1).i, V(2).i)), G(0), false));
    SET(0, z);
}

/* the storage positions (relative to base) of the elements of a layout, flattened */
static mt_tensor *storage_positions(mt_bw *b, const int64_t *sizes, const int64_t *strides, int n,
                                    int64_t off) {
    mt_tensor *pos = K(mto_full(MT_ILIST(), SI(off), MT_INT64, G(0)->device, false, false));
    for (int i = 0; i < n; i++) {
        int64_t shape[MT_MAX_DIM];
        for (int k = 0; k < n; k++) shape[k] = k == i ? sizes[i] : 1;
        mt_tensor *r = K(mto_arange(SI(sizes[i]), MT_INT64, G(0)->device, false, false));
        r = K(mto_view(K(mto_mul_Scalar(r, SI(strides[i]))), (mt_ilist){shape, n}));
        pos = K(mto_add_Tensor(pos, r, SI(1)));
    }
    int64_t all = -1;
    return K(mto_reshape(K(mto_expand(pos, (mt_ilist){sizes, n}, false)), (mt_ilist){&all, 1}));
}

/* may two elements of the layout share a storage position? (dims sorted by stride, each must
 * step past everything the smaller ones reach) */
static bool may_overlap(const mt_geometry *g) {
    int64_t st[MT_MAX_DIM], sz[MT_MAX_DIM];
    int n = 0;
    for (int i = 0; i < g->ndim; i++) {
        if (g->sizes[i] == 0) return false;
        if (g->sizes[i] == 1) continue;
        int64_t s = g->strides[i] < 0 ? -g->strides[i] : g->strides[i];
        if (s == 0) return true;
        int j = n++;
        for (; j > 0 && st[j - 1] > s; j--) {
            st[j] = st[j - 1];
            sz[j] = sz[j - 1];
        }
        st[j] = s;
        sz[j] = g->sizes[i];
    }
    int64_t reach = 0;
    for (int i = 0; i < n; i++) {
        if (st[i] <= reach) return true;
        reach += (sz[i] - 1) * st[i];
    }
    return false;
}

/* as_strided: the gradient of each output element added at its storage position, read back
 * through the input's own geometry (self may have been any view of its storage); where the
 * input's elements share positions (an overlapping view, unfold of unfold) the sum is divided
 * among them, as PyTorch's as_strided_backward does */
static void as_strided_bw(mt_bw *b) {
    const mt_geometry *in = b->node->extra;
    const mt_value *size = &V(1), *stride = &V(2);
    int64_t out_off = V(3).tag == MT_V_NONE ? in->offset : V(3).i;
    /* the storage span both layouts touch */
    int64_t lo = in->offset, hi = in->offset, olo = out_off, ohi = out_off;
    for (int i = 0; i < in->ndim; i++) {
        if (in->sizes[i] == 0) lo = hi + 1;
        int64_t e = (in->sizes[i] - 1) * in->strides[i];
        if (e > 0)
            hi += e;
        else
            lo += e;
    }
    bool out_empty = false;
    for (int i = 0; i < size->n; i++) {
        if (size->il[i] == 0) out_empty = true;
        int64_t e = (size->il[i] - 1) * stride->il[i];
        if (e > 0)
            ohi += e;
        else
            olo += e;
    }
    if (lo > hi || out_empty) {
        SET(0, mt_bw_grad_zeros(b, 0));
        return;
    }
    int64_t base = lo < olo ? lo : olo, top = hi > ohi ? hi : ohi, span = top - base + 1;
    mt_tensor *flat = K(mto_zeros((mt_ilist){&span, 1}, G(0)->dtype, G(0)->device, false, false));
    int64_t all = -1;
    mt_tensor *idx[1] = {storage_positions(b, size->il, stride->il, size->n, out_off - base)};
    mt_tensor *vals = K(mto_reshape(G(0), (mt_ilist){&all, 1}));
    flat = K(mto_index_put(flat, idx, 1, vals, true));
    if (may_overlap(in)) {
        mt_tensor *count =
            K(mto_zeros((mt_ilist){&span, 1}, G(0)->dtype, G(0)->device, false, false));
        mt_tensor *in_idx[1] = {
            storage_positions(b, in->sizes, in->strides, in->ndim, in->offset - base)};
        count = K(mto_index_put(
            count, in_idx, 1, K(mto_ones_like(in_idx[0], G(0)->dtype, NODEV, false, NULL)), true));
        flat = K(mto_div_Tensor(flat, K(mto_clamp(count, SI(1), MT_NONE))));
    }
    SET(0, K(mto_as_strided(flat, (mt_ilist){in->sizes, in->ndim},
                            (mt_ilist){in->strides, in->ndim}, SI(in->offset - base))));
}

static void copy_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_zeros_like(G(0), -1, NODEV, false, NULL)));
    if (NEEDS(1)) SET(1, G(0));
}

static void fill_tensor_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_zeros_like(G(0), -1, NODEV, false, NULL)));
    if (NEEDS(1)) SET(1, K(mto_sum(G(0), -1)));
}

/* ---- joins and splits ----------------------------------------------------------------------- */

static void cat_bw(mt_bw *b) {
    int n = V(0).n, e0 = b->edge_of[0];
    int64_t dim = mt_wrap(V(1).i, G(0)->ndim), at = 0;
    for (int k = 0; k < n; k++) {
        const mt_input_meta *m = &b->node->next_meta[e0 + k];
        if (m->ndim == 1 && m->sizes[0] == 0 &&
            G(0)->ndim != 1) { /* skipped by cat (legacy empty) */
            if (b->node->next[e0 + k].fn) mt_bw_set_entry(b, 0, k, K(mt_zeros_meta(m)));
            continue;
        }
        int64_t len = m->sizes[dim];
        if (b->node->next[e0 + k].fn) mt_bw_set_entry(b, 0, k, K(mto_narrow(G(0), dim, at, len)));
        at += len;
    }
}

static void stack_bw(mt_bw *b) {
    int n = V(0).n, e0 = b->edge_of[0];
    int64_t dim = mt_wrap(V(1).i, G(0)->ndim);
    for (int k = 0; k < n; k++)
        if (b->node->next[e0 + k].fn) mt_bw_set_entry(b, 0, k, K(mto_select_int(G(0), dim, k)));
}

/* the gradients of split's outputs joined back along dim */
static void split_bw_at(mt_bw *b, int64_t dim_arg) {
    int n = b->node->ninputs;
    const mt_input_meta *m = META(0);
    if (n == 0) {
        SET(0, mt_bw_zeros(b, 0));
        return;
    }
    int64_t dim = mt_wrap(dim_arg, m->ndim);
    SET(0, K(mto_cat(b->grads, n, dim)));
}
static void split_bw(mt_bw *b) {
    split_bw_at(b, V(2).i);
}
static void chunk_bw(mt_bw *b) {
    split_bw_at(b, V(2).i);
}

static void unbind_bw(mt_bw *b) {
    int n = b->node->ninputs;
    if (n == 0) {
        SET(0, mt_bw_zeros(b, 0));
        return;
    }
    SET(0, K(mto_stack(b->grads, n, mt_wrap(V(1).i, META(0)->ndim))));
}

static void flip_bw(mt_bw *b) {
    SET(0, K(mto_flip(G(0), mt_vlist(V(1)))));
}

static void roll_bw(mt_bw *b) {
    int64_t neg[MT_MAX_DIM * 2];
    int n = V(1).n < MT_MAX_DIM * 2 ? V(1).n : MT_MAX_DIM * 2;
    for (int i = 0; i < n; i++) neg[i] = -V(1).il[i];
    SET(0, K(mto_roll(G(0), (mt_ilist){neg, n}, mt_vlist(V(2)))));
}

/* repeat: each block's gradient summed back onto self (leading new dims summed away) */
static void repeat_bw(mt_bw *b) {
    const mt_input_meta *m = META(0);
    int nr = V(1).n, lead = nr - m->ndim;
    int64_t split[2 * MT_MAX_DIM], dims[MT_MAX_DIM];
    int ns = 0, nd = 0;
    for (int i = 0; i < nr; i++) {
        int64_t s = i < lead ? 1 : m->sizes[i - lead];
        dims[nd++] = ns;
        split[ns++] = V(1).il[i];
        split[ns++] = s;
    }
    mt_tensor *g = K(mto_reshape(G(0), (mt_ilist){split, ns}));
    g = K(mto_sum_dim_IntList(g, (mt_ilist){dims, nd}, false, -1));
    SET(0, K(mto_reshape(g, mt_meta_sizes(m))));
}

static mt_derivative table[] = {
    D(view, "ViewBackward0", reshape_bw, "self:"),
    D_VIEW_OR_COPY(reshape, "ReshapeAliasBackward0", "UnsafeViewBackward0", reshape_bw, "self:"),
    D(transpose_int, "TransposeBackward0", transpose_bw, "self:"),
    D(t, "TBackward0", t_bw, "self:"),
    D(permute, "PermuteBackward0", permute_bw, "self:"),
    D(expand, "ExpandBackward0", expand_bw, "self:"),
    D(narrow, "SliceBackward0", narrow_bw, "self:"),
    D(select_int, "SelectBackward0", select_bw, "self:"),
    D(squeeze, "SqueezeBackward0", squeeze_bw, "self:"),
    D(squeeze_dim, "SqueezeBackward1", squeeze_bw, "self:"),
    D(unsqueeze, "UnsqueezeBackward0", unsqueeze_bw, "self:"),
    DF(as_strided, "AsStridedBackward0", as_strided_bw, "self:", MT_D_SELF_GEOMETRY),
    D(clone, "CloneBackward0", mt_bw_pass, "self:"),
    D(alias, "AliasBackward0", mt_bw_pass, "self:"),
    D(_to_copy, "ToCopyBackward0", mt_bw_pass, "self:"),
    D(copy_, "torch::autograd::CopyBackwards", copy_bw, "self:; src:"),
    D(fill__Scalar, "FillBackward2", mt_bw_zero_grads, "self:"),
    D(fill__Tensor, "FillBackward3", fill_tensor_bw, "self:; value:"),
    D(zero_, "ZeroBackward0", mt_bw_zero_grads, "self:"),
    D_REFUSE(resize_, "self:", "cannot resize variables that require grad"),
    D(cat, "CatBackward0", cat_bw, "tensors:"),
    D(stack, "StackBackward0", stack_bw, "tensors:"),
    D(split_Tensor, "SplitBackward0", split_bw, "self:"),
    D(split_sizes, "SplitWithSizesBackward0", split_bw, "self:"),
    D(chunk, "SplitBackward0", chunk_bw, "self:"),
    D(unbind_int, "UnbindBackward0", unbind_bw, "self:"),
    D(flip, "FlipBackward0", flip_bw, "self:"),
    D(roll, "RollBackward0", roll_bw, "self:"),
    D(repeat, "RepeatBackward0", repeat_bw, "self:"),
};

void mt_deriv_shape_register(void) {
    mt_derivatives_register(table, (int)MT_ARRAY_LEN(table));
}
