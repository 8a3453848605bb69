/* deriv_linalg.c: derivative formulas of the matrix products and triangular/diagonal ops. */
#include "formula.h"

static mt_tensor *scaled(mt_bw *b, mt_tensor *t, mt_value s) {
    return mt_scalar_double(s) == 1 ? t : K(mto_mul_Scalar(t, s));
}

static mt_tensor *bt(mt_bw *b, mt_tensor *t) {
    return K(mto_transpose_int(t, 1, 2));
}

/* x @ y as the transpose of y^T @ x^T when the argument it is the gradient of was laid out
 * transposed (the result then has that layout too) */
static mt_tensor *mm_like(mt_bw *b, mt_tensor *x, mt_tensor *y, int arg) {
    if (b->node->transposed & (1u << arg)) return K(mto_t(K(mto_mm(K(mto_t(y)), K(mto_t(x))))));
    return K(mto_mm(x, y));
}

static void mm_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, mm_like(b, G(0), K(mto_t(A(1))), 0));
    if (NEEDS(1)) SET(1, mm_like(b, K(mto_t(A(0))), G(0), 1));
}

static void bmm_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_bmm(G(0), bt(b, A(1)))));
    if (NEEDS(1)) SET(1, K(mto_bmm(bt(b, A(0)), G(0))));
}

static void mv_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_outer(G(0), A(1))));
    if (NEEDS(1)) SET(1, K(mto_mv(K(mto_t(A(0))), G(0))));
}

static void dot_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_mul_Tensor(G(0), A(1))));
    if (NEEDS(1)) SET(1, K(mto_mul_Tensor(G(0), A(0))));
}

/* addmm(self, mat1, mat2, beta, alpha) = beta self + alpha mat1 @ mat2 */
static void addmm_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, scaled(b, G(0), V(3)));
    if (NEEDS(1)) SET(1, scaled(b, mm_like(b, G(0), K(mto_t(A(2))), 1), V(4)));
    if (NEEDS(2)) SET(2, scaled(b, mm_like(b, K(mto_t(A(1))), G(0), 2), V(4)));
}

static void addmv_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, scaled(b, G(0), V(3)));
    if (NEEDS(1)) SET(1, scaled(b, K(mto_outer(G(0), A(2))), V(4)));
    if (NEEDS(2)) SET(2, scaled(b, K(mto_mv(K(mto_t(A(1))), G(0))), V(4)));
}

static void baddbmm_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, scaled(b, G(0), V(3)));
    if (NEEDS(1)) SET(1, scaled(b, K(mto_bmm(G(0), bt(b, A(2)))), V(4)));
    if (NEEDS(2)) SET(2, scaled(b, K(mto_bmm(bt(b, A(1)), G(0))), V(4)));
}

static void tril_bw(mt_bw *b) {
    SET(0, K(mto_tril(G(0), V(1).i)));
}
static void triu_bw(mt_bw *b) {
    SET(0, K(mto_triu(G(0), V(1).i)));
}

/* the diagonal's gradient written into zeros of the input's shape */
static void diagonal_bw(mt_bw *b) {
    mt_tensor *z = mt_bw_zeros(b, 0);
    if (z->dtype != G(0)->dtype) z = K(mto_to_dtype(z, (mt_dtype)G(0)->dtype, false, false, NULL));
    mt_tensor *d = K(mto_diagonal(z, V(1).i, V(2).i, V(3).i));
    CHECK(!K(mto_copy_(d, G(0), false)));
    SET(0, z);
}

static mt_derivative table[] = {
    D(mm, "MmBackward0", mm_bw, "self: mat2; mat2: self"),
    D(bmm, "BmmBackward0", bmm_bw, "self: mat2; mat2: self"),
    D(mv, "MvBackward0", mv_bw, "self: vec; vec: self"),
    D(dot, "DotBackward0", dot_bw, "self: tensor; tensor: self"),
    D(addmm, "AddmmBackward0", addmm_bw, "self:; mat1: mat2; mat2: mat1"),
    D(addmv, "AddmvBackward0", addmv_bw, "self:; mat: vec; vec: mat"),
    D(baddbmm, "BaddbmmBackward0", baddbmm_bw, "self:; batch1: batch2; batch2: batch1"),
    D(tril, "TrilBackward0", tril_bw, "self:"),
    D(tril_, "TrilBackward0", tril_bw, "self:"),
    D(triu, "TriuBackward0", triu_bw, "self:"),
    D(triu_, "TriuBackward0", triu_bw, "self:"),
    D(diagonal, "DiagonalBackward0", diagonal_bw, "self:"),
};

void mt_deriv_linalg_register(void) {
    mt_derivatives_register(table, (int)MT_ARRAY_LEN(table));
}
