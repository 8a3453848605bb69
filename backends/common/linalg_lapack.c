/* linalg_lapack.c: the meta functions of the LAPACK-backed factorizations (src/ops/
 * linalg_lapack.lua): PyTorch's checks in PyTorch's order, result shapes, and the column-major
 * layout LAPACK writes, so the meta device, the pipeline and every backend agree. */
#include "linalg_lapack.h"

#include "common_ops.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <stdio.h>
#include <string.h>

/* ---- shared checks -------------------------------------------------------------------------- */

int mt_la_check_matrix(const mt_tensor *t, const char *fname, const char *arg) {
    if (t->ndim < 2)
        return mt_error(MT_ERR_RUNTIME, "%s: The input tensor %s must have at least 2 dimensions.",
                        fname, arg);
    return 0;
}

int mt_la_check_square(const mt_tensor *t, const char *fname, const char *arg) {
    if (mt_la_check_matrix(t, fname, arg)) return -1;
    int64_t m = t->sizes[t->ndim - 2], n = t->sizes[t->ndim - 1];
    if (m != n)
        return mt_error(MT_ERR_RUNTIME,
                        "%s: %s must be batches of square matrices, but they are %lld by %lld "
                        "matrices",
                        fname, arg, (long long)m, (long long)n);
    return 0;
}

int mt_la_check_floating(const mt_tensor *t, const char *fname) {
    if (!mt_dtype_is_floating((mt_dtype)t->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "%s: Expected a floating point or complex tensor as input. Got %s", fname,
                        mt_dtype_scalar_name((mt_dtype)t->dtype));
    return 0;
}

int mt_la_check_lapack_dtype(const mt_tensor *t, const char *kname) {
    if (t->dtype != MT_FLOAT32 && t->dtype != MT_FLOAT64)
        return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kname,
                        mt_dtype_scalar_name((mt_dtype)t->dtype));
    return 0;
}

int mt_la_check_square_float(const mt_tensor *t, const char *fname, const char *arg) {
    if (mt_la_check_square(t, fname, arg) || mt_la_check_floating(t, fname)) return -1;
    return 0;
}

bool mt_la_on_cuda(const mt_tensor *t) {
    return strcmp(mt_devtype_name(t->device.type), "cuda") == 0;
}

int mt_la_pivot_permutation(const int32_t *pv, int64_t m, int64_t k, int64_t *perm, char *P,
                            size_t es) {
    for (int64_t i = 0; i < m; i++) perm[i] = i;
    for (int64_t i = 0; i < k; i++) {
        int64_t j = (int64_t)pv[i] - 1;
        if (j < 0 || j >= m)
            return mt_error(MT_ERR_RUNTIME,
                            "pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                            "inclusive.Did you properly pass the result of lu_factor?");
        int64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    if (m == 0) return 0; /* no rows: P is empty, and may have no storage to clear */
    memset(P, 0, (size_t)(m * m) * es);
    for (int64_t i = 0; i < m; i++) {
        char *e = P + (size_t)(perm[i] * m + i) * es;
        if (es == 8)
            *(double *)e = 1;
        else
            *(float *)e = 1;
    }
    return 0;
}

int mt_la_broadcast_batch(const mt_tensor *a, const mt_tensor *b, int *nb, int64_t *batch) {
    return mt_broadcast_shapes(a->ndim - 2, a->sizes, b->ndim - 2, b->sizes, nb, batch);
}

int mt_la_info_error(mt_la_failure kind, const char *fname, int64_t batch, int info) {
    char prefix[64] = "";
    if (batch > 0) snprintf(prefix, sizeof prefix, "(Batch element %lld): ", (long long)batch);
    switch (kind) {
    case MT_LA_LU:
        return mt_error(
            MT_ERR_RUNTIME,
            "%s: %sU[%d,%d] is zero and using it on lu_solve would result in a division "
            "by zero. If you still want to perform the factorization, consider calling "
            "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
            fname, prefix, info, info);
    case MT_LA_INV:
        return mt_error(
            MT_ERR_RUNTIME,
            "%s: %sThe diagonal element %d is zero, the inversion could not be completed "
            "because the input matrix is singular.",
            fname, prefix, info);
    case MT_LA_SOLVE:
        return mt_error(MT_ERR_RUNTIME,
                        "%s: %sThe solver failed because the input matrix is singular.", fname,
                        prefix);
    case MT_LA_CHOLESKY:
        return mt_error(MT_ERR_RUNTIME,
                        "%s: %sThe factorization could not be completed because the input is not "
                        "positive-definite (the leading minor of order %d is not "
                        "positive-definite).",
                        fname, prefix, info);
    case MT_LA_EIGH:
        return mt_error(MT_ERR_RUNTIME,
                        "%s: %sThe algorithm failed to converge because the input matrix is "
                        "ill-conditioned or has too many repeated eigenvalues (error code: %d).",
                        fname, prefix, info);
    case MT_LA_SVD:
        return mt_error(MT_ERR_RUNTIME,
                        "%s: %sThe algorithm failed to converge because the input matrix is "
                        "ill-conditioned or has too many repeated singular values (error code: "
                        "%d).",
                        fname, prefix, info);
    case MT_LA_LDL:
        return mt_error(MT_ERR_RUNTIME,
                        "%s: %sD[%d,%d] is zero: the factorization is complete but the matrix is "
                        "singular",
                        fname, prefix, info, info);
    }
    return mt_error(MT_ERR_RUNTIME, "%s: LAPACK failed (info %d)", fname, info);
}

int mt_la_check_infos(const int32_t *info, int64_t n, bool batched, mt_la_failure kind,
                      const char *fname) {
    for (int64_t i = 0; i < n; i++)
        if (info[i] > 0) return mt_la_info_error(kind, fname, batched ? i + 1 : 0, info[i]);
    return 0;
}

/* ---- layouts -------------------------------------------------------------------------------- */

static void colmajor_strides(int nb, const int64_t *batch, int64_t rows, int64_t cols,
                             int64_t *strides) {
    strides[nb] = 1;
    strides[nb + 1] = rows > 1 ? rows : 1;
    int64_t s = rows * cols > 1 ? rows * cols : 1;
    for (int i = nb - 1; i >= 0; i--) {
        strides[i] = s;
        s *= batch[i] > 1 ? batch[i] : 1;
    }
}

void mt_la_out_colmajor(mt_outspec *o, int nb, const int64_t *batch, int64_t rows, int64_t cols,
                        mt_dtype dt) {
    o->ndim = (int8_t)(nb + 2);
    if (nb) memcpy(o->sizes, batch, sizeof(int64_t) * (size_t)nb);
    o->sizes[nb] = rows;
    o->sizes[nb + 1] = cols;
    colmajor_strides(nb, batch, rows, cols, o->strides);
    o->has_strides = 1;
    o->dtype = (uint8_t)dt;
}

void mt_la_out_rowmajor(mt_outspec *o, int nb, const int64_t *batch, int nlast, const int64_t *last,
                        mt_dtype dt) {
    o->ndim = (int8_t)(nb + nlast);
    if (nb) memcpy(o->sizes, batch, sizeof(int64_t) * (size_t)nb);
    if (nlast) memcpy(o->sizes + nb, last, sizeof(int64_t) * (size_t)nlast);
    o->has_strides = 0;
    o->dtype = (uint8_t)dt;
}

mt_tensor *mt_la_empty_colmajor(int nb, const int64_t *batch, int64_t rows, int64_t cols,
                                mt_dtype dt, mt_device dev) {
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM];
    if (nb) memcpy(sizes, batch, sizeof(int64_t) * (size_t)nb);
    sizes[nb] = rows;
    sizes[nb + 1] = cols;
    colmajor_strides(nb, batch, rows, cols, strides);
    return mt_tensor_empty_strided(nb + 2, sizes, strides, dt, dev);
}

/* ---- meta functions ------------------------------------------------------------------------- */

static int legacy_matrix_check(const mt_tensor *t, const char *fname) {
    if (t->ndim >= 2) return 0;
    char s[256];
    mt_fmt_ilist(s, sizeof s, t->sizes, t->ndim);
    return mt_error(MT_ERR_RUNTIME,
                    "%s: Expected tensor with 2 or more dimensions. Got size: %s instead", fname,
                    s);
}

/* linalg_lu_factor_ex(A, pivot, check_errors) -> LU, pivots, info */
static int meta_lu_factor_ex(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    if (legacy_matrix_check(A, "torch.lu_factor") || mt_la_check_lapack_dtype(A, "lu_cpu"))
        return -1;
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1], k = m < n ? m : n;
    mt_la_out_colmajor(&o[0], nb, A->sizes, m, n, (mt_dtype)A->dtype);
    mt_la_out_rowmajor(&o[1], nb, A->sizes, 1, &k, MT_INT32);
    mt_la_out_rowmajor(&o[2], nb, A->sizes, 0, NULL, MT_INT32);
    return 0;
}

/* lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots) -> P, L, U */
static int meta_lu_unpack(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *LU = a[0].t, *piv = a[1].t;
    if (legacy_matrix_check(LU, "torch.lu_unpack")) return -1;
    if (piv->dtype != MT_INT32)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                        "torch.int32 dtype.\nNote: this function is intended to be used with the "
                        "output produced by torch.linalg.lu_factor");
    int nb = LU->ndim - 2;
    int64_t m = LU->sizes[nb], n = LU->sizes[nb + 1], k = m < n ? m : n;
    if (piv->ndim < 1 || piv->sizes[piv->ndim - 1] != k)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.lu_unpack: Expected LU_pivots.size(-1) == min(LU_data.size(-1), "
                        "LU_data.size(-2)), but got %lld",
                        (long long)(piv->ndim ? piv->sizes[piv->ndim - 1] : 0));
    int64_t zero = 0, mm[2] = {m, m}, mk[2] = {m, k}, kn[2] = {k, n};
    mt_dtype dt = (mt_dtype)LU->dtype;
    if (a[3].b)
        mt_la_out_rowmajor(&o[0], nb, LU->sizes, 2, mm, dt);
    else
        mt_la_out_rowmajor(&o[0], 0, NULL, 1, &zero, dt);
    if (a[2].b) {
        mt_la_out_rowmajor(&o[1], nb, LU->sizes, 2, mk, dt);
        mt_la_out_rowmajor(&o[2], nb, LU->sizes, 2, kn, dt);
    } else {
        mt_la_out_rowmajor(&o[1], 0, NULL, 1, &zero, dt);
        mt_la_out_rowmajor(&o[2], 0, NULL, 1, &zero, dt);
    }
    return 0;
}

/* A X = B (X A = B when !left): A square, B a matrix whose rows (columns) match A's */
static int check_solver(const mt_tensor *A, const mt_tensor *B, bool left, const char *fname,
                        const char *square_fname) {
    if (mt_la_check_square(A, square_fname, "A") || mt_la_check_matrix(B, fname, "B")) return -1;
    int64_t n = A->sizes[A->ndim - 1];
    int64_t br = B->sizes[B->ndim - 2], bc = B->sizes[B->ndim - 1];
    if ((left ? br : bc) != n)
        return mt_error(MT_ERR_RUNTIME,
                        "%s: Incompatible shapes of A and B for the equation %s (%lldx%lld and "
                        "%lldx%lld)",
                        fname, left ? "AX = B" : "XA = B", (long long)n, (long long)n,
                        (long long)br, (long long)bc);
    return 0;
}

/* linalg_lu_solve(LU, pivots, B, left, adjoint) */
static int meta_lu_solve(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *LU = a[0].t, *piv = a[1].t, *B = a[2].t;
    bool left = a[3].b;
    if (mt_la_check_floating(LU, "torch.linalg.lu_solve")) return -1;
    if (LU->dtype != B->dtype)
        return mt_error(
            MT_ERR_RUNTIME,
            "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of "
            "type %s and B of type %s instead",
            mt_dtype_scalar_name((mt_dtype)LU->dtype), mt_dtype_scalar_name((mt_dtype)B->dtype));
    if (piv->dtype != MT_INT32)
        return mt_error(MT_ERR_RUNTIME,
                        "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32");
    if (check_solver(LU, B, left, "linalg.lu_solve", "torch.linalg.lu_solve")) return -1;
    if (piv->ndim < 1 || piv->sizes[piv->ndim - 1] != LU->sizes[LU->ndim - 1])
        return mt_error(MT_ERR_RUNTIME, "linalg.lu_solve: Number of pivots per batch should be "
                                        "same as the dimension of the matrix");
    if (piv->ndim != LU->ndim - 1 ||
        memcmp(piv->sizes, LU->sizes, sizeof(int64_t) * (size_t)(LU->ndim - 1)) != 0) {
        char s[256];
        mt_fmt_ilist(s, sizeof s, piv->sizes, piv->ndim);
        return mt_error(MT_ERR_RUNTIME,
                        "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, "
                        "but got pivots with shape %s instead",
                        s);
    }
    if (mt_la_check_lapack_dtype(LU, "lu_solve_cpu")) return -1;
    int nb;
    int64_t batch[MT_MAX_DIM];
    if (mt_la_broadcast_batch(B, LU, &nb, batch)) return -1;
    int64_t r = B->sizes[B->ndim - 2], k = B->sizes[B->ndim - 1];
    if (left) {
        mt_la_out_colmajor(o, nb, batch, r, k, (mt_dtype)LU->dtype);
    } else { /* computed as the transpose of a left solve */
        int64_t last[2] = {r, k};
        mt_la_out_rowmajor(o, nb, batch, 2, last, (mt_dtype)LU->dtype);
    }
    return 0;
}

/* linalg_cholesky_ex(self, upper, check_errors) -> L, info */
static int meta_cholesky_ex(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    if (mt_la_check_square_float(A, "linalg.cholesky", "A") ||
        mt_la_check_lapack_dtype(A, "cholesky_cpu"))
        return -1;
    int nb = A->ndim - 2;
    int64_t n = A->sizes[nb];
    mt_la_out_colmajor(&o[0], nb, A->sizes, n, n, (mt_dtype)A->dtype);
    mt_la_out_rowmajor(&o[1], nb, A->sizes, 0, NULL, MT_INT32);
    return 0;
}

/* linalg_solve_triangular(A, B, upper, left, unitriangular): the result has A's dtype */
static int meta_solve_triangular(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *B = a[1].t;
    if (check_solver(A, B, a[3].b, "linalg.solve_triangular", "linalg.solve_triangular") ||
        mt_la_check_lapack_dtype(A, "triangular_solve_cpu"))
        return -1;
    int nb;
    int64_t batch[MT_MAX_DIM];
    if (mt_la_broadcast_batch(B, A, &nb, batch)) return -1;
    mt_la_out_colmajor(o, nb, batch, B->sizes[B->ndim - 2], B->sizes[B->ndim - 1],
                       (mt_dtype)A->dtype);
    return 0;
}

/* linalg_qr(A, mode) -> Q, R */
static int meta_qr(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    const char *mode = a[1].s;
    if (mt_la_check_matrix(A, "linalg.qr", "A") || mt_la_check_floating(A, "linalg.qr")) return -1;
    bool complete = strcmp(mode, "complete") == 0, ronly = strcmp(mode, "r") == 0;
    if (!complete && !ronly && strcmp(mode, "reduced") != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "qr received unrecognized mode '%s' but expected one of 'reduced' "
                        "(default), 'r', or 'complete'",
                        mode);
    if (mt_la_check_lapack_dtype(A, "geqrf_cpu")) return -1;
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1], k = m < n ? m : n, zero = 0;
    mt_dtype dt = (mt_dtype)A->dtype;
    if (ronly)
        mt_la_out_rowmajor(&o[0], 0, NULL, 1, &zero, dt);
    else
        mt_la_out_colmajor(&o[0], nb, A->sizes, m, complete ? m : k, dt);
    mt_la_out_colmajor(&o[1], nb, A->sizes, complete ? m : k, n, dt);
    return 0;
}

/* geqrf(A) -> a, tau */
static int meta_geqrf(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    if (A->ndim < 2)
        return mt_error(MT_ERR_RUNTIME, "torch.geqrf: input must have at least 2 dimensions.");
    if (mt_la_check_lapack_dtype(A, "geqrf_cpu")) return -1;
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1], k = m < n ? m : n;
    mt_la_out_colmajor(&o[0], nb, A->sizes, m, n, (mt_dtype)A->dtype);
    mt_la_out_rowmajor(&o[1], nb, A->sizes, 1, &k, (mt_dtype)A->dtype);
    return 0;
}

/* tau's batch dims must be input's */
static int check_tau_batch(const mt_tensor *A, const mt_tensor *tau, const char *fname) {
    if (tau->ndim != A->ndim - 1 ||
        memcmp(tau->sizes, A->sizes, sizeof(int64_t) * (size_t)(A->ndim - 2)) != 0) {
        char s[256];
        mt_fmt_ilist(s, sizeof s, tau->sizes, tau->ndim > 0 ? tau->ndim - 1 : 0);
        return mt_error(MT_ERR_RUNTIME,
                        "%s: Expected batch dimensions of tau to be equal to input.shape[:-2], but "
                        "got %s",
                        fname, s);
    }
    return 0;
}

static int check_same_dtype(const mt_tensor *x, const mt_tensor *tau, const char *fname) {
    if (x->dtype != tau->dtype)
        return mt_error(MT_ERR_RUNTIME, "%s: tau dtype %s does not match input dtype %s", fname,
                        mt_dtype_scalar_name((mt_dtype)tau->dtype),
                        mt_dtype_scalar_name((mt_dtype)x->dtype));
    return 0;
}

/* linalg_householder_product(input, tau) */
static int meta_householder(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *tau = a[1].t;
    const char *f = "torch.linalg.householder_product";
    if (A->ndim < 2)
        return mt_error(MT_ERR_RUNTIME, "%s: input must have at least 2 dimensions.", f);
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1];
    if (m < n)
        return mt_error(MT_ERR_RUNTIME,
                        "%s: input.shape[-2] must be greater than or equal to input.shape[-1]", f);
    if (tau->ndim < 1 || n < tau->sizes[tau->ndim - 1])
        return mt_error(MT_ERR_RUNTIME,
                        "%s: input.shape[-1] must be greater than or equal to tau.shape[-1]", f);
    if (check_tau_batch(A, tau, f) || check_same_dtype(A, tau, f) ||
        mt_la_check_lapack_dtype(A, "orgqr_cpu"))
        return -1;
    mt_la_out_colmajor(o, nb, A->sizes, m, n, (mt_dtype)A->dtype);
    return 0;
}

/* ormqr(input, tau, other, left, transpose) */
static int meta_ormqr(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *tau = a[1].t, *C = a[2].t;
    bool left = a[3].b;
    const char *f = "torch.ormqr";
    if (A->ndim < 2)
        return mt_error(MT_ERR_RUNTIME, "%s: input must have at least 2 dimensions.", f);
    if (C->ndim < 2)
        return mt_error(MT_ERR_RUNTIME, "%s: other must have at least 2 dimensions.", f);
    int64_t cdim = left ? C->sizes[C->ndim - 2] : C->sizes[C->ndim - 1];
    int64_t ntau = tau->ndim ? tau->sizes[tau->ndim - 1] : 0;
    if (cdim != A->sizes[A->ndim - 2])
        return mt_error(MT_ERR_RUNTIME, "%s: other.shape[%d] must be equal to input.shape[-2]", f,
                        left ? -2 : -1);
    if (ntau > cdim)
        return mt_error(MT_ERR_RUNTIME,
                        "%s: other.shape[%d] must be greater than or equal to tau.shape[-1]", f,
                        left ? -2 : -1);
    if (ntau > A->sizes[A->ndim - 1])
        return mt_error(MT_ERR_RUNTIME,
                        "%s: input.shape[-1] must be greater than or equal to tau.shape[-1]", f);
    if (A->dtype != C->dtype)
        return mt_error(
            MT_ERR_RUNTIME,
            "%s: Expected input and other to have the same dtype, but input has dtype%s "
            "and other has dtype %s",
            f, mt_dtype_scalar_name((mt_dtype)A->dtype), mt_dtype_scalar_name((mt_dtype)C->dtype));
    if (check_tau_batch(A, tau, f) || check_same_dtype(A, tau, f) ||
        mt_la_check_lapack_dtype(A, "ormqr_cpu"))
        return -1;
    if (C->ndim != A->ndim ||
        memcmp(C->sizes, A->sizes, sizeof(int64_t) * (size_t)(A->ndim - 2)) != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "%s: Expected batch dimensions of other to be equal to input.shape[:-2]",
                        f);
    int nb = C->ndim - 2;
    mt_la_out_colmajor(o, nb, C->sizes, C->sizes[nb], C->sizes[nb + 1], (mt_dtype)C->dtype);
    return 0;
}

/* linalg_eigh(A, UPLO) -> eigenvalues, eigenvectors */
static int meta_eigh(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    const char *uplo = a[1].s;
    if (mt_la_check_square(A, "linalg.eigh", "A")) return -1;
    if (strcmp(uplo, "L") != 0 && strcmp(uplo, "U") != 0 && strcmp(uplo, "l") != 0 &&
        strcmp(uplo, "u") != 0)
        return mt_error(MT_ERR_RUNTIME, "Expected UPLO argument to be 'L' or 'U', but got %s",
                        uplo);
    if (mt_la_check_lapack_dtype(A, "linalg_eigh_cpu")) return -1;
    int nb = A->ndim - 2;
    int64_t n = A->sizes[nb];
    mt_la_out_rowmajor(&o[0], nb, A->sizes, 1, &n, (mt_dtype)A->dtype);
    mt_la_out_colmajor(&o[1], nb, A->sizes, n, n, (mt_dtype)A->dtype);
    return 0;
}

/* _linalg_svd(A, full_matrices, compute_uv, driver) -> U, S, Vh */
static int meta_svd(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    bool full = a[1].b, uv = a[2].b;
    if (mt_la_check_matrix(A, "linalg.svd", "A") || mt_la_check_floating(A, "linalg.svd"))
        return -1;
    bool cusolver = mt_la_on_cuda(A);
    if (a[3].tag == MT_V_STR && !cusolver)
        return mt_error(MT_ERR_RUNTIME, "torch.linalg.svd: keyword argument `driver=` is only "
                                        "supported on CUDA inputs with cuSOLVER backend.");
    if (mt_la_check_lapack_dtype(A, "linalg_svd_cpu")) return -1;
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1], k = m < n ? m : n, zero = 0;
    mt_dtype dt = (mt_dtype)A->dtype;
    if (uv) {
        mt_la_out_colmajor(&o[0], nb, A->sizes, m, full ? m : k, dt);
        /* cuSOLVER computes V, column-major: Vh is then row-major, as PyTorch lays it out */
        int64_t vh[2] = {full ? n : k, n};
        if (cusolver)
            mt_la_out_rowmajor(&o[2], nb, A->sizes, 2, vh, dt);
        else
            mt_la_out_colmajor(&o[2], nb, A->sizes, vh[0], n, dt);
    } else {
        mt_la_out_rowmajor(&o[0], 0, NULL, 1, &zero, dt);
        mt_la_out_rowmajor(&o[2], 0, NULL, 1, &zero, dt);
    }
    mt_la_out_rowmajor(&o[1], nb, A->sizes, 1, &k, dt);
    return 0;
}

/* _linalg_lstsq_raw(A, B, rcond, driver) -> X (max(m, n) rows), rank, singular_values */
static int meta_lstsq_raw(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *B = a[1].t;
    const char *drv = a[3].s;
    if (A->ndim < 2 || B->ndim < 2 || A->sizes[A->ndim - 2] != B->sizes[B->ndim - 2])
        return mt_error(MT_ERR_RUNTIME, "_linalg_lstsq_raw: expected matrices with matching rows");
    if (A->dtype != B->dtype) return mt_error(MT_ERR_RUNTIME, "_linalg_lstsq_raw: dtypes differ");
    bool gels = strcmp(drv, "gels") == 0, gelsy = strcmp(drv, "gelsy") == 0,
         svd = strcmp(drv, "gelsd") == 0 || strcmp(drv, "gelss") == 0;
    if (!gels && !gelsy && !svd)
        return mt_error(MT_ERR_RUNTIME, "torch.linalg.lstsq: parameter `driver` should be one of "
                                        "(gels, gelsy, gelsd, gelss)");
    if (mt_la_check_lapack_dtype(A, "linalg_lstsq_cpu")) return -1;
    int nb;
    int64_t batch[MT_MAX_DIM];
    if (mt_la_broadcast_batch(A, B, &nb, batch)) return -1;
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1], k = m < n ? m : n, zero = 0;
    mt_dtype dt = (mt_dtype)A->dtype;
    mt_la_out_colmajor(&o[0], nb, batch, m > n ? m : n, B->sizes[B->ndim - 1], dt);
    if (gels)
        mt_la_out_rowmajor(&o[1], 0, NULL, 1, &zero, MT_INT64);
    else
        mt_la_out_rowmajor(&o[1], nb, batch, 0, NULL, MT_INT64);
    if (svd)
        mt_la_out_rowmajor(&o[2], nb, batch, 1, &k, dt);
    else
        mt_la_out_rowmajor(&o[2], 0, NULL, 1, &zero, dt);
    return 0;
}

/* linalg_ldl_factor_ex(A, hermitian, check_errors) -> LD, pivots, info */
static int meta_ldl_factor_ex(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    if (mt_la_check_square_float(A, "torch.linalg.ldl_factor_ex", "A") ||
        mt_la_check_lapack_dtype(A, "ldl_factor_cpu"))
        return -1;
    int nb = A->ndim - 2;
    int64_t n = A->sizes[nb];
    mt_la_out_colmajor(&o[0], nb, A->sizes, n, n, (mt_dtype)A->dtype);
    mt_la_out_rowmajor(&o[1], nb, A->sizes, 1, &n, MT_INT32);
    mt_la_out_rowmajor(&o[2], nb, A->sizes, 0, NULL, MT_INT32);
    return 0;
}

/* linalg_ldl_solve(LD, pivots, B, hermitian) */
static int meta_ldl_solve(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *LD = a[0].t, *piv = a[1].t, *B = a[2].t;
    const char *f = "torch.linalg.ldl_solve";
    if (mt_la_check_square(LD, f, "LD")) return -1;
    if (B->ndim < 2)
        return mt_error(MT_ERR_RUNTIME,
                        "Dimension out of range (expected to be in range of [-1, 1], but got -1)");
    if (LD->dtype != B->dtype)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected b and A to have the same dtype, but found b of type %s and A of "
                        "type %s instead.",
                        mt_dtype_scalar_name((mt_dtype)B->dtype),
                        mt_dtype_scalar_name((mt_dtype)LD->dtype));
    int64_t n = LD->sizes[LD->ndim - 1];
    if (B->sizes[B->ndim - 2] != n)
        return mt_error(
            MT_ERR_RUNTIME,
            "Incompatible matrix sizes for %s: each A matrix is %lld by %lld but each b "
            "matrix is %lld by %lld",
            f, (long long)n, (long long)n, (long long)B->sizes[B->ndim - 2],
            (long long)B->sizes[B->ndim - 1]);
    if (piv->dtype != MT_INT32 && piv->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME, "%s: Expected pivots to be integers. Got %s", f,
                        mt_dtype_scalar_name((mt_dtype)piv->dtype));
    if (piv->ndim != LD->ndim - 1 ||
        memcmp(piv->sizes, LD->sizes, sizeof(int64_t) * (size_t)(LD->ndim - 1)) != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "%s: Expected LD.shape[:-1] and pivots.shape to be the same", f);
    if (mt_la_check_lapack_dtype(LD, "ldl_solve_cpu")) return -1;
    int nb;
    int64_t batch[MT_MAX_DIM];
    if (mt_la_broadcast_batch(B, LD, &nb, batch)) return -1;
    mt_la_out_colmajor(o, nb, batch, n, B->sizes[B->ndim - 1], (mt_dtype)LD->dtype);
    return 0;
}

void mt_linalg_lapack_register(void) {
    mt_disp_meta(MT_OP_linalg_lu_factor_ex, meta_lu_factor_ex);
    mt_disp_meta(MT_OP_lu_unpack, meta_lu_unpack);
    mt_disp_meta(MT_OP_linalg_lu_solve, meta_lu_solve);
    mt_disp_meta(MT_OP_linalg_cholesky_ex, meta_cholesky_ex);
    mt_disp_meta(MT_OP_linalg_solve_triangular, meta_solve_triangular);
    mt_disp_meta(MT_OP_linalg_qr, meta_qr);
    mt_disp_meta(MT_OP_geqrf, meta_geqrf);
    mt_disp_meta(MT_OP_linalg_householder_product, meta_householder);
    mt_disp_meta(MT_OP_ormqr, meta_ormqr);
    mt_disp_meta(MT_OP_linalg_eigh, meta_eigh);
    mt_disp_meta(MT_OP__linalg_svd, meta_svd);
    mt_disp_meta(MT_OP__linalg_lstsq_raw, meta_lstsq_raw);
    mt_disp_meta(MT_OP_linalg_ldl_factor_ex, meta_ldl_factor_ex);
    mt_disp_meta(MT_OP_linalg_ldl_solve, meta_ldl_solve);
}
