/* cpu_lapack.c: the CPU kernels of the factorizations (src/ops/linalg_lapack.lua), on LAPACK
 * (liblapacke, which Debian routes to OpenBLAS's optimized LAPACK) and BLAS's trsm. Each kernel
 * copies its input into the result (or a scratch tensor) laid out column-major, one matrix after
 * another, as LAPACK reads and writes it, then calls LAPACK once per matrix. The meta functions
 * (backends/common/linalg_lapack.c) have checked shapes and dtypes (float32, float64). */
#include "cpu_lapack.h"
#include "mt_ops_gen.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

/* ---- the LAPACK calls, for float32 (d false) and float64 ------------------------------------ */

static lapack_int getrf(bool d, int m, int n, void *a, int lda, lapack_int *ipiv) {
    return d ? LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, a, lda, ipiv)
             : LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, a, lda, ipiv);
}

static lapack_int getrs(bool d, char trans, int n, int nrhs, const void *a, int lda,
                        const lapack_int *ipiv, void *b, int ldb) {
    return d ? LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs, a, lda, ipiv, b, ldb)
             : LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs, a, lda, ipiv, b, ldb);
}

static lapack_int potrf(bool d, char uplo, int n, void *a, int lda) {
    return d ? LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, uplo, n, a, lda)
             : LAPACKE_spotrf_work(LAPACK_COL_MAJOR, uplo, n, a, lda);
}

static void trsm(bool d, bool left, bool upper, bool unit, int m, int n, const void *a, int lda,
                 void *b, int ldb) {
    enum CBLAS_SIDE side = left ? CblasLeft : CblasRight;
    enum CBLAS_UPLO uplo = upper ? CblasUpper : CblasLower;
    enum CBLAS_DIAG diag = unit ? CblasUnit : CblasNonUnit;
    if (d)
        cblas_dtrsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, 1.0, a, lda, b, ldb);
    else
        cblas_strsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, 1.0f, a, lda, b, ldb);
}

/* pivots come from users too: getrs would read out of bounds on a bad one */
static int check_pivots(const int32_t *p, int64_t count, int64_t bound, const char *msg) {
    for (int64_t i = 0; i < count; i++)
        if (p[i] < 1 || p[i] > bound) return mt_error(MT_ERR_RUNTIME, "%s", msg);
    return 0;
}

/* ---- LU ------------------------------------------------------------------------------------- */

static int k_lu_factor_ex(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *LU = r[0].t, *piv = r[1].t, *info = r[2].t;
    if (!a[1].b)
        return mt_error(MT_ERR_RUNTIME,
                        "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1], k = m < n ? m : n, count = batch_count(A, nb);
    if (check_lapack_sizes("linalg.lu_factor", m, n) || mt_cpu_copy(LU, A)) return -1;
    bool d = LU->dtype == MT_FLOAT64;
    size_t es = d ? 8 : 4;
    char *p = mt_tensor_data(LU);
    int32_t *pv = mt_tensor_data(piv), *inf = mt_tensor_data(info);
    for (int64_t b = 0; b < count; b++)
        inf[b] = k ? getrf(d, (int)m, (int)n, p + (size_t)(b * m * n) * es, ld(m), pv + b * k) : 0;
    if (a[2].b) return mt_la_check_infos(inf, count, nb > 0, MT_LA_LU, "torch.linalg.lu_factor_ex");
    return 0;
}

static int k_lu_solve(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *LU = a[0].t, *piv = a[1].t, *B = a[2].t, *X = r[0].t;
    bool left = a[3].b, adjoint = a[4].b, d = X->dtype == MT_FLOAT64;
    int nb = X->ndim - 2;
    int64_t n = LU->sizes[LU->ndim - 1], count = batch_count(X, nb);
    int64_t rows = X->sizes[nb], cols = X->sizes[nb + 1], nrhs = left ? cols : rows;
    if (check_lapack_sizes("linalg.lu_solve", rows, cols)) return -1;
    mt_tensor *LUc = colmajor_copy(LU, nb, X->sizes, n, n, (mt_dtype)X->dtype);
    mt_tensor *pc = LUc ? pivots_copy(piv, nb, X->sizes, n) : NULL;
    int st = -1;
    if (!pc || mt_cpu_copy(X, B)) goto done;
    int32_t *pv = mt_tensor_data(pc);
    if (check_pivots(pv, count * n, n, "linalg.lu_solve: pivots must be between 1 and n inclusive"))
        goto done;
    /* left: X is column-major (n x nrhs); right: X is row-major, i.e. X^T column-major, and
     * X A = B is A^T X^T = B^T */
    char trans = (left != adjoint) ? 'N' : 'T';
    size_t es = d ? 8 : 4;
    char *lp = mt_tensor_data(LUc), *xp = mt_tensor_data(X);
    if (n && nrhs)
        for (int64_t b = 0; b < count; b++)
            getrs(d, trans, (int)n, (int)nrhs, lp + (size_t)(b * n * n) * es, ld(n), pv + b * n,
                  xp + (size_t)(b * n * nrhs) * es, ld(n));
    st = 0;
done:
    mt_tensor_decref(LUc);
    mt_tensor_decref(pc);
    return st;
}

/* L (m x k, unit lower) and U (k x n, upper), row-major, from column-major LU (m x n) */
static void unpack_factors(const char *lu, int64_t m, int64_t n, int64_t k, char *L, char *U,
                           bool d) {
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < k; j++) {
            double v = i > j
                           ? (d ? ((const double *)lu)[j * m + i] : ((const float *)lu)[j * m + i])
                           : i == j;
            if (d)
                ((double *)L)[i * k + j] = v;
            else
                ((float *)L)[i * k + j] = (float)v;
        }
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < n; j++) {
            double v =
                j >= i ? (d ? ((const double *)lu)[j * m + i] : ((const float *)lu)[j * m + i]) : 0;
            if (d)
                ((double *)U)[i * n + j] = v;
            else
                ((float *)U)[i * n + j] = (float)v;
        }
}

static int k_lu_unpack(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *LU = a[0].t, *piv = a[1].t;
    bool data = a[2].b, pivots = a[3].b, d = LU->dtype == MT_FLOAT64;
    if (LU->dtype != MT_FLOAT32 && LU->dtype != MT_FLOAT64)
        return mt_la_check_lapack_dtype(LU, "lu_unpack");
    int nb = LU->ndim - 2;
    int64_t m = LU->sizes[nb], n = LU->sizes[nb + 1], k = m < n ? m : n,
            count = batch_count(LU, nb);
    size_t es = d ? 8 : 4;
    mt_tensor *LUc = colmajor_copy(LU, nb, LU->sizes, m, n, (mt_dtype)LU->dtype);
    mt_tensor *pc = LUc ? pivots_copy(piv, nb, LU->sizes, k) : NULL;
    int64_t *perm = pc ? malloc(sizeof(int64_t) * (size_t)(m ? m : 1)) : NULL;
    int st = -1;
    if (!perm) {
        if (pc) mt_error(MT_ERR_MEMORY, "lu_unpack: out of memory");
        goto done;
    }
    const char *lp = mt_tensor_data(LUc);
    const int32_t *pv = mt_tensor_data(pc);
    char *P = pivots ? mt_tensor_data(r[0].t) : NULL;
    char *L = data ? mt_tensor_data(r[1].t) : NULL, *U = data ? mt_tensor_data(r[2].t) : NULL;
    for (int64_t b = 0; b < count; b++) {
        if (pivots &&
            mt_la_pivot_permutation(pv + b * k, m, k, perm, P + (size_t)(b * m * m) * es, es))
            goto done;
        if (data)
            unpack_factors(lp + (size_t)(b * m * n) * es, m, n, k, L + (size_t)(b * m * k) * es,
                           U + (size_t)(b * k * n) * es, d);
    }
    st = 0;
done:
    free(perm);
    mt_tensor_decref(LUc);
    mt_tensor_decref(pc);
    return st;
}

/* ---- Cholesky, triangular solves ------------------------------------------------------------ */

static int k_cholesky_ex(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *Lt = r[0].t, *info = r[1].t;
    bool upper = a[1].b, d = A->dtype == MT_FLOAT64;
    int nb = A->ndim - 2;
    int64_t n = A->sizes[nb], count = batch_count(A, nb);
    if (check_lapack_sizes("linalg.cholesky", n, n) || mt_cpu_copy(Lt, A)) return -1;
    size_t es = d ? 8 : 4;
    char *p = mt_tensor_data(Lt);
    int32_t *inf = mt_tensor_data(info);
    for (int64_t b = 0; b < count; b++) {
        char *m = p + (size_t)(b * n * n) * es;
        inf[b] = n ? potrf(d, upper ? 'U' : 'L', (int)n, m, ld(n)) : 0;
        for (int64_t j = 0; j < n; j++) /* LAPACK leaves the other triangle as it was */
            for (int64_t i = upper ? j + 1 : 0; i < (upper ? n : j); i++)
                zero_bytes(m + (size_t)(j * n + i) * es, es);
    }
    if (a[2].b) return mt_la_check_infos(inf, count, nb > 0, MT_LA_CHOLESKY, "linalg.cholesky_ex");
    return 0;
}

static int k_solve_triangular(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *B = a[1].t, *X = r[0].t;
    bool upper = a[2].b, left = a[3].b, unit = a[4].b, d = X->dtype == MT_FLOAT64;
    int nb = X->ndim - 2;
    int64_t n = A->sizes[A->ndim - 1], rows = X->sizes[nb], cols = X->sizes[nb + 1],
            count = batch_count(X, nb);
    if (check_lapack_sizes("linalg.solve_triangular", rows, cols)) return -1;
    mt_tensor *Ac = colmajor_copy(A, nb, X->sizes, n, n, (mt_dtype)X->dtype);
    int st = -1;
    if (!Ac || mt_cpu_copy(X, B)) goto done;
    size_t es = d ? 8 : 4;
    char *ap = mt_tensor_data(Ac), *xp = mt_tensor_data(X);
    if (rows && cols)
        for (int64_t b = 0; b < count; b++)
            trsm(d, left, upper, unit, (int)rows, (int)cols, ap + (size_t)(b * n * n) * es, ld(n),
                 xp + (size_t)(b * rows * cols) * es, ld(rows));
    st = 0;
done:
    mt_tensor_decref(Ac);
    return st;
}

void mt_cpu_lapack_register(void) {
    static const struct {
        int op;
        mt_impl_fn fn;
    } impls[] = {
        {MT_OP_linalg_lu_factor_ex, k_lu_factor_ex},
        {MT_OP_linalg_lu_solve, k_lu_solve},
        {MT_OP_lu_unpack, k_lu_unpack},
        {MT_OP_linalg_cholesky_ex, k_cholesky_ex},
        {MT_OP_linalg_solve_triangular, k_solve_triangular},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(impls); i++)
        mt_disp_impl(impls[i].op, MT_KEY_CPU, impls[i].fn);
}
