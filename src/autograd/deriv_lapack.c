/* deriv_lapack.c: derivative formulas of the factorizations and solvers of torch.linalg
 * (src/ops/linalg_lapack.lua), as PyTorch's FunctionsManual derives them for real matrices.
 * Gradients computed over broadcast batches are summed back to each argument's shape by the
 * engine. */
#include "formula.h"

#include <string.h>

static mt_tensor *mT(mt_bw *b, mt_tensor *t) {
    return K(mto_transpose_int(t, -2, -1));
}

static mt_tensor *mm(mt_bw *b, mt_tensor *x, mt_tensor *y) {
    return K(mto_matmul(x, y));
}

static mt_tensor *trsolve(mt_bw *b, mt_tensor *A, mt_tensor *B, bool upper, bool left, bool unit) {
    return K(mto_linalg_solve_triangular(A, B, upper, left, unit));
}

/* x[..., None, None]: a batch of scalars against a batch of matrices */
static mt_tensor *as_matrix_scale(mt_bw *b, mt_tensor *x) {
    return K(mto_unsqueeze(K(mto_unsqueeze(x, -1)), -1));
}

/* A^{-T}, without erroring on a singular A (its entries are then inf or nan, as PyTorch's) */
static mt_tensor *inv_t(mt_bw *b, mt_tensor *A) {
    mt_tensor *X = NULL, *info = NULL;
    CHECK(mto_linalg_inv_ex(A, false, &X, &info));
    K(info);
    return mT(b, K(X));
}

/* whether some determinant of the batch is zero (read on the host; never on the meta device) */
static bool some_zero(mt_bw *b, mt_tensor *det) {
    if (det->device.type == MT_DEV_META || det->numel == 0) return false;
    mt_tensor *any = K(mto_any(K(mto_eq_Scalar(det, SI(0)))));
    mt_tensor *h = K(mto_to_device(any, (mt_device){MT_DEV_CPU, 0}, MT_BOOL, false, true, NULL));
    CHECK(mt_tensor_sync(h));
    return *(const bool *)mt_tensor_data(h);
}

/* The cofactor matrix of A = U diag(s) V^T: det(U) det(V) U diag(prod_{j != i} s_j) V^T, the
 * products without s_i from exclusive cumulative products (no division: exact when A is
 * singular, where det A^{-T} is not defined) */
static mt_tensor *cofactors_svd(mt_bw *b, mt_tensor *A) {
    mt_tensor *U = NULL, *Sv = NULL, *Vh = NULL;
    CHECK(mto__linalg_svd(A, false, true, NULL, &U, &Sv, &Vh));
    K(U), K(Sv), K(Vh);
    int64_t n = Sv->sizes[Sv->ndim - 1];
    int64_t shape[MT_MAX_DIM];
    for (int i = 0; i < Sv->ndim; i++) shape[i] = Sv->sizes[i];
    shape[Sv->ndim - 1] = 1;
    mt_tensor *one = K(mto_ones((mt_ilist){shape, Sv->ndim}, Sv->dtype, Sv->device, false, false));
    mt_tensor *lp[2] = {one, K(mto_narrow(Sv, -1, 0, n - 1))};
    mt_tensor *left = K(mto_cumprod(K(mto_cat(lp, 2, -1)), -1, -1));
    mt_tensor *rp[2] = {K(mto_narrow(Sv, -1, 1, n - 1)), one};
    mt_tensor *rev = K(mto_flip(K(mto_cat(rp, 2, -1)), MT_ILIST(-1)));
    mt_tensor *right = K(mto_flip(K(mto_cumprod(rev, -1, -1)), MT_ILIST(-1)));
    mt_tensor *others = K(mto_mul_Tensor(left, right));
    mt_tensor *sign = K(mto_mul_Tensor(K(mto_linalg_det(U)), K(mto_linalg_det(Vh))));
    mt_tensor *cof = mm(b, mm(b, U, K(mto_diag_embed(others, 0, -2, -1))), Vh);
    return K(mto_mul_Tensor(as_matrix_scale(b, sign), cof));
}

/* det: g det A^{-T} (g times the cofactor matrix, from the SVD when some det is zero) */
void mt_d_linalg_det(mt_bw *b) {
    mt_tensor *A = A(0);
    if (A->sizes[A->ndim - 1] > 0 && some_zero(b, R(0))) {
        SET(0, K(mto_mul_Tensor(as_matrix_scale(b, G(0)), cofactors_svd(b, A))));
        return;
    }
    mt_tensor *s = as_matrix_scale(b, K(mto_mul_Tensor(G(0), R(0))));
    SET(0, K(mto_mul_Tensor(s, inv_t(b, A))));
}

/* slogdet: only logabsdet is differentiable: g A^{-T} */
void mt_d_linalg_slogdet(mt_bw *b) {
    SET(0, K(mto_mul_Tensor(as_matrix_scale(b, G(1)), inv_t(b, A(0)))));
}

/* inv: -A^{-T} g A^{-T} */
void mt_d_linalg_inv_ex(mt_bw *b) {
    mt_tensor *it = mT(b, R(0));
    SET(0, K(mto_neg(mm(b, mm(b, it, G(0)), it))));
}

/* solve_ex(A, B, left): X = A^{-1} B (left) or B A^{-1}; vectors are solved as 1-column
 * (1-row) matrices */
void mt_d_linalg_solve_ex(mt_bw *b) {
    mt_tensor *A = A(0), *X = R(0), *g = G(0);
    bool left = V(2).b;
    bool vec = X->ndim < A->ndim;                      /* a matrix B gives X at least A's dims */
    mt_tensor *gX = vec ? K(mto_unsqueeze(g, -1)) : g; /* vectors are columns */
    mt_tensor *Xm = vec ? K(mto_unsqueeze(X, -1)) : X;
    mt_tensor *gB = NULL, *info = NULL;
    CHECK(mto_linalg_solve_ex(mT(b, A), gX, left, false, &gB, &info));
    K(gB);
    K(info);
    if (NEEDS(1)) SET(1, vec ? K(mto_squeeze_dim(gB, -1)) : gB);
    if (NEEDS(0)) SET(0, K(mto_neg(left ? mm(b, gB, mT(b, Xm)) : mm(b, mT(b, Xm), gB))));
}

/* cholesky: A^{-T}... with L lower: gA = sym(L^{-T} phi(L^T gL) L^{-1}), phi keeping the lower
 * triangle with the diagonal halved */
void mt_d_cholesky_ex(mt_bw *b) {
    bool upper = V(1).b;
    mt_tensor *L = upper ? mT(b, R(0)) : R(0), *gL = upper ? mT(b, G(0)) : G(0);
    mt_tensor *M = mm(b, mT(b, L), gL);
    mt_tensor *phi = K(mto_sub_Tensor(
        K(mto_tril(M, 0)), K(mto_diag_embed(K(mto_diagonal(M, 0, -2, -1)), 0, -2, -1)), SD(0.5)));
    mt_tensor *x = trsolve(b, mT(b, L), phi, true, true, false);
    mt_tensor *gA = trsolve(b, L, x, false, false, false);
    SET(0, K(mto_mul_Scalar(K(mto_add_Tensor(gA, mT(b, gA), SI(1))), SD(0.5))));
}

/* solve_triangular(A, B, upper, left, unit): gB = A^{-T} gX (gX A^{-T}); gA = -gB X^T
 * (-X^T gB), restricted to A's triangle */
void mt_d_solve_triangular(mt_bw *b) {
    mt_tensor *A = A(0), *X = R(0);
    bool upper = V(2).b, left = V(3).b, unit = V(4).b;
    mt_tensor *gB = trsolve(b, mT(b, A), G(0), !upper, left, unit);
    if (NEEDS(1)) SET(1, gB);
    if (NEEDS(0)) {
        mt_tensor *gA = K(mto_neg(left ? mm(b, gB, mT(b, X)) : mm(b, mT(b, X), gB)));
        int64_t k = unit ? 1 : 0;
        SET(0, upper ? K(mto_triu(gA, k)) : K(mto_tril(gA, -k)));
    }
}

/* ---- LU ------------------------------------------------------------------------------------- */

/* zeros appended to t along dim d up to size n */
static mt_tensor *pad_to(mt_bw *b, mt_tensor *t, int d, int64_t n) {
    int dd = d < 0 ? t->ndim + d : d;
    if (t->sizes[dd] == n) return t;
    int64_t sizes[MT_MAX_DIM];
    for (int i = 0; i < t->ndim; i++) sizes[i] = t->sizes[i];
    sizes[dd] = n - t->sizes[dd];
    mt_tensor *z = K(mto_zeros((mt_ilist){sizes, t->ndim}, t->dtype, t->device, false, false));
    mt_tensor *parts[2] = {t, z};
    return K(mto_cat(parts, 2, dd));
}

/* lu_unpack: L's strict lower triangle and U's upper triangle are LU's entries */
void mt_d_lu_unpack(mt_bw *b) {
    const mt_input_meta *m = META(0);
    if (!V(2).b) {
        SET(0, mt_bw_zeros(b, 0));
        return;
    }
    int64_t rows = m->sizes[m->ndim - 2], cols = m->sizes[m->ndim - 1];
    mt_tensor *gL = pad_to(b, K(mto_tril(G(1), -1)), -1, cols);
    mt_tensor *gU = pad_to(b, K(mto_triu(G(2), 0)), -2, rows);
    SET(0, K(mto_add_Tensor(gL, gU, SI(1))));
}

/* The gradient of A = P L U with respect to the packed LU, from A's gradient gA:
 * gL = tril(P^T gA U^T, -1), gU = triu(L^T P^T gA) */
static mt_tensor *lu_grad_from_a(mt_bw *b, mt_tensor *P, mt_tensor *L, mt_tensor *U,
                                 mt_tensor *gA) {
    mt_tensor *pg = mm(b, mT(b, P), gA);
    mt_tensor *gL = K(mto_tril(mm(b, pg, mT(b, U)), -1));
    mt_tensor *gU = K(mto_triu(mm(b, mT(b, L), pg), 0));
    return K(mto_add_Tensor(gL, gU, SI(1)));
}

static void unpack(mt_bw *b, mt_tensor *LU, mt_tensor *piv, mt_tensor **P, mt_tensor **L,
                   mt_tensor **U) {
    *P = *L = *U = NULL;
    CHECK(mto_lu_unpack(LU, piv, true, true, P, L, U));
    K(*P);
    K(*L);
    K(*U);
}

/* the square case, A = P L U: gA = P L^{-T} (tril(L^T gL, -1) + triu(gU U^T)) U^{-T} */
static mt_tensor *lu_square_grad(mt_bw *b, mt_tensor *L, mt_tensor *U, mt_tensor *gL,
                                 mt_tensor *gU) {
    mt_tensor *phi = K(mto_add_Tensor(K(mto_tril(mm(b, mT(b, L), gL), -1)),
                                      K(mto_triu(mm(b, gU, mT(b, U)), 0)), SI(1)));
    mt_tensor *x = trsolve(b, mT(b, L), phi, true, true, true);
    return trsolve(b, mT(b, U), x, false, false, false);
}

/* lu_factor_ex: the gradient of the packed LU (L's strict lower part, U's upper part) taken back
 * to A. A wide A = P L [U1 | U2] adds U2's part to L's gradient first; a tall A = P [L1; L2] U
 * adds L2's part to U's. */
void mt_d_lu_factor_ex(mt_bw *b) {
    mt_tensor *LU = R(0), *g = G(0);
    int64_t m = LU->sizes[LU->ndim - 2], n = LU->sizes[LU->ndim - 1];
    mt_tensor *P, *L, *U;
    unpack(b, LU, R(1), &P, &L, &U);
    mt_tensor *gA;
    if (m == n) {
        gA = lu_square_grad(b, L, U, K(mto_tril(g, -1)), K(mto_triu(g, 0)));
    } else if (m < n) { /* L m x m, U = [U1 | U2] */
        mt_tensor *U1 = K(mto_narrow(U, -1, 0, m)), *U2 = K(mto_narrow(U, -1, m, n - m));
        mt_tensor *g1 = K(mto_narrow(g, -1, 0, m)), *gU2 = K(mto_narrow(g, -1, m, n - m));
        mt_tensor *gX2 = trsolve(b, mT(b, L), gU2, true, true, true); /* L^{-T} gU2 */
        mt_tensor *gL = K(mto_sub_Tensor(K(mto_tril(g1, -1)), mm(b, gX2, mT(b, U2)), SI(1)));
        mt_tensor *parts[2] = {lu_square_grad(b, L, U1, gL, K(mto_triu(g1, 0))), gX2};
        gA = K(mto_cat(parts, 2, -1));
    } else { /* L = [L1; L2] m x n, U n x n */
        mt_tensor *L1 = K(mto_narrow(L, -2, 0, n)), *L2 = K(mto_narrow(L, -2, n, m - n));
        mt_tensor *g1 = K(mto_narrow(g, -2, 0, n)), *gL2 = K(mto_narrow(g, -2, n, m - n));
        mt_tensor *gX2 = trsolve(b, mT(b, U), gL2, false, false, false); /* gL2 U^{-T} */
        mt_tensor *gU = K(mto_sub_Tensor(K(mto_triu(g1, 0)), mm(b, mT(b, L2), gX2), SI(1)));
        mt_tensor *parts[2] = {lu_square_grad(b, L1, U, K(mto_tril(g1, -1)), gU), gX2};
        gA = K(mto_cat(parts, 2, -2));
    }
    SET(0, mm(b, P, gA));
}

/* lu_solve(LU, pivots, B, left, adjoint) */
void mt_d_lu_solve(mt_bw *b) {
    mt_tensor *LU = A(0), *piv = A(1), *X = R(0);
    bool left = V(3).b, adjoint = V(4).b;
    /* gB solves the transposed system: A^{-T} gX (left) or gX A^{-T} (right), adjoint flipped */
    mt_tensor *gB = K(mto_linalg_lu_solve(LU, piv, G(0), left, !adjoint));
    if (NEEDS(2)) SET(2, gB);
    if (NEEDS(0)) {
        mt_tensor *gA;
        if (left)
            gA = adjoint ? mm(b, X, mT(b, gB)) : mm(b, gB, mT(b, X));
        else
            gA = adjoint ? mm(b, mT(b, gB), X) : mm(b, mT(b, X), gB);
        gA = K(mto_neg(gA));
        mt_tensor *P, *L, *U;
        unpack(b, LU, piv, &P, &L, &U);
        SET(0, lu_grad_from_a(b, P, L, U, gA));
    }
}

/* ---- QR, eigh, SVD -------------------------------------------------------------------------- */

/* the tall or square case (R square): gA = (gQ + Q copyltu(M)) R^{-T}, M = R gR^T - gQ^T Q,
 * copyltu(M) the symmetric matrix with M's lower triangle */
static mt_tensor *qr_tall_grad(mt_bw *b, mt_tensor *Q, mt_tensor *R, mt_tensor *gQ, mt_tensor *gR) {
    mt_tensor *M = K(mto_sub_Tensor(mm(b, R, mT(b, gR)), mm(b, mT(b, gQ), Q), SI(1)));
    mt_tensor *low = K(mto_tril(M, -1));
    mt_tensor *sym = K(mto_add_Tensor(K(mto_tril(M, 0)), mT(b, low), SI(1)));
    mt_tensor *rhs = K(mto_add_Tensor(gQ, mm(b, Q, sym), SI(1)));
    return trsolve(b, mT(b, R), rhs, false, false, false); /* X R^T = rhs */
}

void mt_d_linalg_qr(mt_bw *b) {
    mt_tensor *Q = R(0), *Rm = R(1);
    const char *mode = V(1).s;
    if (strcmp(mode, "r") == 0) {
        mt_error(MT_ERR_RUNTIME,
                 "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                 "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                 "through linalg.qr.");
        mt_bw_fail(b);
    }
    int64_t m = Q->sizes[Q->ndim - 2], n = Rm->sizes[Rm->ndim - 1];
    if (strcmp(mode, "complete") == 0 && m > n) {
        mt_error(MT_ERR_RUNTIME, "The QR decomposition is not differentiable when mode='complete' "
                                 "and nrows > ncols.");
        mt_bw_fail(b);
    }
    if (m >= n) {
        SET(0, qr_tall_grad(b, Q, Rm, G(0), G(1)));
        return;
    }
    /* wide: A = [X | Y], R = [U | W] with X = Q U: gY = Q gW, gX from (Q, U) with gQ + Y gW^T */
    mt_tensor *U = K(mto_narrow(Rm, -1, 0, m)), *gU = K(mto_narrow(G(1), -1, 0, m));
    mt_tensor *gW = K(mto_narrow(G(1), -1, m, n - m));
    mt_tensor *Y = K(mto_narrow(mm(b, Q, Rm), -1, m, n - m));
    mt_tensor *gX = qr_tall_grad(b, Q, U, K(mto_add_Tensor(G(0), mm(b, Y, mT(b, gW)), SI(1))), gU);
    mt_tensor *parts[2] = {gX, mm(b, Q, gW)};
    SET(0, K(mto_cat(parts, 2, -1)));
}

/* eigh: gA = V (diag(gL) + (V^T gV) / E) V^T with E_ij = L_j - L_i off the diagonal */
void mt_d_linalg_eigh(mt_bw *b) {
    mt_tensor *L = R(0), *Vm = R(1);
    mt_tensor *E = K(mto_sub_Tensor(K(mto_unsqueeze(L, -2)), K(mto_unsqueeze(L, -1)), SI(1)));
    mt_tensor *I = K(mto_eye(L->sizes[L->ndim - 1], L->dtype, L->device, false, false));
    E = K(mto_add_Tensor(E, I, SI(1))); /* the diagonal (zero) made 1: it is replaced below */
    mt_tensor *inner = K(mto_div_Tensor(mm(b, mT(b, Vm), G(1)), E));
    inner = K(mto_sub_Tensor(inner, K(mto_diag_embed(K(mto_diagonal(inner, 0, -2, -1)), 0, -2, -1)),
                             SI(1)));
    inner = K(mto_add_Tensor(inner, K(mto_diag_embed(G(0), 0, -2, -1)), SI(1)));
    SET(0, mm(b, mm(b, Vm, inner), mT(b, Vm)));
}

/* svd (real, with U and V): gA = U [(skew(U^T gU) S_j + S_i skew(V^T gV)) / (S_j^2 - S_i^2) +
 * diag(gS)] V^T, plus the parts of gU and gV outside the spans of U and V */
void mt_d_linalg_svd(mt_bw *b) {
    if (!V(2).b) {
        mt_error(MT_ERR_RUNTIME, "linalg.svd: the derivative needs U and Vh: call it with "
                                 "compute_uv=true");
        mt_bw_fail(b);
    }
    mt_tensor *U = R(0), *Sv = R(1), *Vh = R(2), *gU = G(0), *gS = G(1), *gVh = G(2);
    int64_t m = U->sizes[U->ndim - 2], n = Vh->sizes[Vh->ndim - 1], k = Sv->sizes[Sv->ndim - 1];
    if (V(1).b) { /* full matrices: the columns past k do not enter A */
        U = K(mto_narrow(U, -1, 0, k));
        gU = K(mto_narrow(gU, -1, 0, k));
        Vh = K(mto_narrow(Vh, -2, 0, k));
        gVh = K(mto_narrow(gVh, -2, 0, k));
    }
    mt_tensor *Vm = mT(b, Vh), *gV = mT(b, gVh);
    mt_tensor *UgU = mm(b, mT(b, U), gU), *VgV = mm(b, mT(b, Vm), gV);
    mt_tensor *skU = K(mto_sub_Tensor(UgU, mT(b, UgU), SI(1)));
    mt_tensor *skV = K(mto_sub_Tensor(VgV, mT(b, VgV), SI(1)));
    mt_tensor *Srow = K(mto_unsqueeze(Sv, -2)), *Scol = K(mto_unsqueeze(Sv, -1));
    mt_tensor *S2 = K(mto_mul_Tensor(Sv, Sv));
    mt_tensor *E = K(mto_sub_Tensor(K(mto_unsqueeze(S2, -2)), K(mto_unsqueeze(S2, -1)), SI(1)));
    mt_tensor *I = K(mto_eye(k, Sv->dtype, Sv->device, false, false));
    E = K(mto_add_Tensor(E, I, SI(1))); /* skew parts are zero on the diagonal */
    mt_tensor *inner = K(mto_div_Tensor(
        K(mto_add_Tensor(K(mto_mul_Tensor(skU, Srow)), K(mto_mul_Tensor(Scol, skV)), SI(1))), E));
    inner = K(mto_add_Tensor(inner, K(mto_diag_embed(gS, 0, -2, -1)), SI(1)));
    mt_tensor *gA = mm(b, mm(b, U, inner), Vh);
    if (m > k) { /* (I - U U^T) gU S^{-1} V^T */
        mt_tensor *perp = K(mto_sub_Tensor(gU, mm(b, U, UgU), SI(1)));
        gA = K(mto_add_Tensor(gA, mm(b, K(mto_div_Tensor(perp, Srow)), Vh), SI(1)));
    }
    if (n > k) { /* U S^{-1} gV^T (I - V V^T) */
        mt_tensor *perp = K(mto_sub_Tensor(gV, mm(b, Vm, VgV), SI(1)));
        gA = K(mto_add_Tensor(gA, mm(b, U, mT(b, K(mto_div_Tensor(perp, Srow)))), SI(1)));
    }
    SET(0, gA);
}
