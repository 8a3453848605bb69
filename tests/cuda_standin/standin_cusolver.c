/* standin_cusolver.c: a stand-in for cuSOLVER (libcusolver.so) for the CUDA module's tests on
 * machines without a GPU. A test double, not NVIDIA software: the dense calls of
 * backends/cuda/cuda_solver.c, column-major as cusolverDn defines them, computed with LAPACKE over
 * the driver stand-in's host memory, with cuSOLVER's protocol: a *_bufferSize call first, then the
 * call with a workspace at least that large (a smaller one is refused), devInfo written through its
 * pointer (LAPACK's info: > 0 for a failure of the matrix, -i for a bad parameter i), and the
 * status cuSOLVER returns for parameters it refuses. gesvdj's Jacobi sweeps are LAPACK's gesdd
 * here (non-convergence reported as min(m, n) + 1, as gesvdj reports it). */
#include <lapacke.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

enum { OK = 0, NOT_INITIALIZED = 1, ALLOC_FAILED = 2, INVALID_VALUE = 3 };
enum { R_32F = 0, R_64F = 1 };

typedef struct handle {
    void *stream;
} handle;

EXPORT int cusolverDnCreate(handle **h) {
    *h = calloc(1, sizeof **h);
    return *h ? OK : ALLOC_FAILED;
}

EXPORT int cusolverDnSetStream(handle *h, void *s) {
    if (!h) return NOT_INITIALIZED;
    h->stream = s;
    return OK;
}

EXPORT int cusolverDnCreateGesvdjInfo(void **params) {
    *params = calloc(1, 16);
    return *params ? OK : ALLOC_FAILED;
}

static int lead(int rows) {
    return rows > 1 ? rows : 1;
}

/* the workspace each call asks for (elements): enough to catch a caller that skips the query */
static int need(int m, int n) {
    return 8 + (m > n ? m : n);
}

static int fill(int uplo) {
    return uplo == 1 ? 'U' : 'L';
}

#define BAD(cond)                                                                                  \
    do {                                                                                           \
        if (cond) return INVALID_VALUE;                                                            \
    } while (0)

/* LU without pivoting (cuSOLVER's getrf with no ipiv; LAPACK has none): U[j,j] = 0 is recorded
 * as LAPACK records it and the elimination goes on */
#define NOPIV(T)                                                                                   \
    static int nopiv_##T(int m, int n, T *A, int lda) {                                            \
        int info = 0, k = m < n ? m : n;                                                           \
        for (int j = 0; j < k; j++) {                                                              \
            T p = A[j + (int64_t)j * lda];                                                         \
            if (p != 0)                                                                            \
                for (int i = j + 1; i < m; i++) A[i + (int64_t)j * lda] /= p;                      \
            else if (!info)                                                                        \
                info = j + 1;                                                                      \
            for (int l = j + 1; l < n; l++)                                                        \
                for (int i = j + 1; i < m; i++)                                                    \
                    A[i + (int64_t)l * lda] -= A[i + (int64_t)j * lda] * A[j + (int64_t)l * lda];  \
        }                                                                                          \
        return info;                                                                               \
    }
NOPIV(float)
NOPIV(double)

/* every routine for one element type: T, cuSOLVER's letter L (S, D), LAPACKE's l (s, d) */
#define ROUTINES(T, L, l)                                                                          \
    EXPORT int cusolverDn##L##getrf_bufferSize(handle *h, int m, int n, T *A, int lda, int *lw) {  \
        BAD(!h || m < 0 || n < 0 || lda < lead(m));                                                \
        (void)A;                                                                                   \
        *lw = need(m, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##getrf(handle *h, int m, int n, T *A, int lda, T *work, int *ipiv,    \
                                    int *info) {                                                   \
        BAD(!h || m < 0 || n < 0 || lda < lead(m) || !work);                                       \
        if (m && n)                                                                                \
            *info = ipiv ? LAPACKE_##l##getrf_work(LAPACK_COL_MAJOR, m, n, A, lda, ipiv)           \
                         : nopiv_##T(m, n, A, lda);                                                \
        else                                                                                       \
            *info = 0;                                                                             \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##getrs(handle *h, int trans, int n, int nrhs, const T *A, int lda,    \
                                    const int *ipiv, T *B, int ldb, int *info) {                   \
        BAD(!h || (trans != 0 && trans != 1) || n < 0 || nrhs < 0 || lda < lead(n) ||              \
            ldb < lead(n));                                                                        \
        for (int i = 0; i < n; i++) /* LAPACK would swap rows outside B */                         \
            if (ipiv[i] < 1 || ipiv[i] > n) {                                                      \
                *info = -7;                                                                        \
                return OK;                                                                         \
            }                                                                                      \
        *info = n && nrhs ? LAPACKE_##l##getrs_work(LAPACK_COL_MAJOR, trans ? 'T' : 'N', n, nrhs,  \
                                                    A, lda, ipiv, B, ldb)                          \
                          : 0;                                                                     \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##potrf_bufferSize(handle *h, int uplo, int n, T *A, int lda,          \
                                               int *lw) {                                          \
        BAD(!h || (uplo != 0 && uplo != 1) || n < 0 || lda < lead(n));                             \
        (void)A;                                                                                   \
        *lw = need(n, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##potrf(handle *h, int uplo, int n, T *A, int lda, T *work, int lw,    \
                                    int *info) {                                                   \
        BAD(!h || (uplo != 0 && uplo != 1) || n < 0 || lda < lead(n) || !work || lw < need(n, n)); \
        *info = n ? LAPACKE_##l##potrf_work(LAPACK_COL_MAJOR, fill(uplo), n, A, lda) : 0;          \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##geqrf_bufferSize(handle *h, int m, int n, T *A, int lda, int *lw) {  \
        BAD(!h || m < 0 || n < 0 || lda < lead(m));                                                \
        (void)A;                                                                                   \
        *lw = need(m, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##geqrf(handle *h, int m, int n, T *A, int lda, T *tau, T *work,       \
                                    int lw, int *info) {                                           \
        BAD(!h || m < 0 || n < 0 || lda < lead(m) || !work || lw < need(m, n));                    \
        *info = m && n ? LAPACKE_##l##geqrf(LAPACK_COL_MAJOR, m, n, A, lda, tau) : 0;              \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##orgqr_bufferSize(handle *h, int m, int n, int k, const T *A,         \
                                               int lda, const T *tau, int *lw) {                   \
        BAD(!h || m < 0 || n < 0 || n > m || k < 0 || k > n || lda < lead(m));                     \
        (void)A, (void)tau;                                                                        \
        *lw = need(m, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##orgqr(handle *h, int m, int n, int k, T *A, int lda, const T *tau,   \
                                    T *work, int lw, int *info) {                                  \
        BAD(!h || m < 0 || n < 0 || n > m || k < 0 || k > n || lda < lead(m) || !work ||           \
            lw < need(m, n));                                                                      \
        *info = m && n ? LAPACKE_##l##orgqr(LAPACK_COL_MAJOR, m, n, k, A, lda, tau) : 0;           \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##ormqr_bufferSize(handle *h, int side, int trans, int m, int n,       \
                                               int k, const T *A, int lda, const T *tau,           \
                                               const T *C, int ldc, int *lw) {                     \
        int nq = side == 0 ? m : n;                                                                \
        BAD(!h || (side != 0 && side != 1) || (trans != 0 && trans != 1) || m < 0 || n < 0 ||      \
            k < 0 || k > nq || lda < lead(nq) || ldc < lead(m));                                   \
        (void)A, (void)tau, (void)C;                                                               \
        *lw = need(m, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##ormqr(handle *h, int side, int trans, int m, int n, int k,           \
                                    const T *A, int lda, const T *tau, T *C, int ldc, T *work,     \
                                    int lw, int *info) {                                           \
        int nq = side == 0 ? m : n;                                                                \
        BAD(!h || (side != 0 && side != 1) || (trans != 0 && trans != 1) || m < 0 || n < 0 ||      \
            k < 0 || k > nq || lda < lead(nq) || ldc < lead(m) || !work || lw < need(m, n));       \
        *info = m && n && k ? LAPACKE_##l##ormqr(LAPACK_COL_MAJOR, side ? 'R' : 'L',               \
                                                 trans ? 'T' : 'N', m, n, k, A, lda, tau, C, ldc)  \
                            : 0;                                                                   \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##syevd_bufferSize(handle *h, int jobz, int uplo, int n, const T *A,   \
                                               int lda, const T *W, int *lw) {                     \
        BAD(!h || (jobz != 0 && jobz != 1) || (uplo != 0 && uplo != 1) || n < 0 || lda < lead(n)); \
        (void)A, (void)W;                                                                          \
        *lw = need(n, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##syevd(handle *h, int jobz, int uplo, int n, T *A, int lda, T *W,     \
                                    T *work, int lw, int *info) {                                  \
        BAD(!h || (jobz != 0 && jobz != 1) || (uplo != 0 && uplo != 1) || n < 0 ||                 \
            lda < lead(n) || !work || lw < need(n, n));                                            \
        *info =                                                                                    \
            n ? LAPACKE_##l##syevd(LAPACK_COL_MAJOR, jobz ? 'V' : 'N', fill(uplo), n, A, lda, W)   \
              : 0;                                                                                 \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##gesvd_bufferSize(handle *h, int m, int n, int *lw) {                 \
        BAD(!h || m < 0 || n < 0 || m < n);                                                        \
        *lw = need(m, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    /* rwork holds LAPACK's min(m, n) - 1 unconverged superdiagonal elements, as cuSOLVER's */     \
    EXPORT int cusolverDn##L##gesvd(handle *h, signed char jobu, signed char jobvt, int m, int n,  \
                                    T *A, int lda, T *S, T *U, int ldu, T *VT, int ldvt, T *work,  \
                                    int lw, T *rwork, int *info) {                                 \
        bool ju = jobu == 'A' || jobu == 'S' || jobu == 'N',                                       \
             jv = jobvt == 'A' || jobvt == 'S' || jobvt == 'N';                                    \
        BAD(!h || !ju || !jv || m < n || n < 0 || lda < lead(m) || !work || lw < need(m, n) ||     \
            (jobu != 'N' && (!U || ldu < lead(m))) || (jobvt != 'N' && (!VT || ldvt < lead(n))));  \
        T one[1];                                                                                  \
        *info = n ? LAPACKE_##l##gesvd(LAPACK_COL_MAJOR, jobu, jobvt, m, n, A, lda, S,             \
                                       jobu == 'N' ? one : U, jobu == 'N' ? 1 : ldu,               \
                                       jobvt == 'N' ? one : VT, jobvt == 'N' ? 1 : ldvt, rwork)    \
                  : 0;                                                                             \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##gesvdj_bufferSize(handle *h, int jobz, int econ, int m, int n,       \
                                                const T *A, int lda, const T *S, const T *U,       \
                                                int ldu, const T *V, int ldv, int *lw, void *p) {  \
        BAD(!h || !p || (jobz != 0 && jobz != 1) || m < 0 || n < 0 || lda < lead(m) ||             \
            ldu < lead(m) || ldv < lead(n));                                                       \
        (void)econ, (void)A, (void)S, (void)U, (void)V;                                            \
        *lw = need(m, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    /* gesvdj computes V, not V^T: gesdd's V^T transposed into it */                               \
    EXPORT int cusolverDn##L##gesvdj(handle *h, int jobz, int econ, int m, int n, T *A, int lda,   \
                                     T *S, T *U, int ldu, T *V, int ldv, T *work, int lw,          \
                                     int *info, void *p) {                                         \
        BAD(!h || !p || (jobz != 0 && jobz != 1) || m < 0 || n < 0 || lda < lead(m) ||             \
            ldu < lead(m) || ldv < lead(n) || !U || !V || !work || lw < need(m, n));               \
        int k = m < n ? m : n, vr = econ ? k : n;                                                  \
        *info = 0;                                                                                 \
        if (!k) return OK;                                                                         \
        T *vt = malloc(sizeof(T) * (size_t)vr * (size_t)n);                                        \
        if (!vt) return ALLOC_FAILED;                                                              \
        char job = !jobz ? 'N' : econ ? 'S' : 'A';                                                 \
        int r = LAPACKE_##l##gesdd(LAPACK_COL_MAJOR, job, m, n, A, lda, S, U, ldu, vt, lead(vr));  \
        if (r > 0) *info = k + 1;                                                                  \
        for (int i = 0; jobz && r == 0 && i < vr; i++)                                             \
            for (int j = 0; j < n; j++) V[j + (int64_t)i * ldv] = vt[i + (int64_t)j * vr];         \
        free(vt);                                                                                  \
        return r < 0 ? INVALID_VALUE : OK;                                                         \
    }                                                                                              \
    EXPORT int cusolverDn##L##sytrf_bufferSize(handle *h, int n, T *A, int lda, int *lw) {         \
        BAD(!h || n < 0 || lda < lead(n));                                                         \
        (void)A;                                                                                   \
        *lw = need(n, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    EXPORT int cusolverDn##L##sytrf(handle *h, int uplo, int n, T *A, int lda, int *ipiv, T *work, \
                                    int lw, int *info) {                                           \
        BAD(!h || (uplo != 0 && uplo != 1) || n < 0 || lda < lead(n) || !work || lw < need(n, n)); \
        *info = n ? LAPACKE_##l##sytrf(LAPACK_COL_MAJOR, fill(uplo), n, A, lda, ipiv) : 0;         \
        return OK;                                                                                 \
    }
ROUTINES(float, S, s)
ROUTINES(double, D, d)

/* the 64-bit API's sytrs: int64 pivots, the type named by a cudaDataType */
EXPORT int cusolverDnXsytrs_bufferSize(handle *h, int uplo, int64_t n, int64_t nrhs, int ta,
                                       const void *A, int64_t lda, const int64_t *ipiv, int tb,
                                       void *B, int64_t ldb, size_t *dev_bytes,
                                       size_t *host_bytes) {
    BAD(!h || (uplo != 0 && uplo != 1) || n < 0 || nrhs < 0 || n > INT32_MAX || nrhs > INT32_MAX ||
        lda < lead((int)n) || ldb < lead((int)n) || ta != tb || (ta != R_32F && ta != R_64F));
    (void)A, (void)ipiv, (void)B;
    *dev_bytes = (size_t)need((int)n, (int)nrhs) * 8;
    *host_bytes = 0;
    return OK;
}

EXPORT int cusolverDnXsytrs(handle *h, int uplo, int64_t n, int64_t nrhs, int ta, const void *A,
                            int64_t lda, const int64_t *ipiv, int tb, void *B, int64_t ldb,
                            void *dev_work, size_t dev_bytes, void *host_work, size_t host_bytes,
                            int *info) {
    BAD(!h || (uplo != 0 && uplo != 1) || n < 0 || nrhs < 0 || n > INT32_MAX || nrhs > INT32_MAX ||
        lda < lead((int)n) || ldb < lead((int)n) || ta != tb || (ta != R_32F && ta != R_64F) ||
        !dev_work || dev_bytes < (size_t)need((int)n, (int)nrhs) * 8);
    (void)host_work, (void)host_bytes;
    lapack_int *p = malloc(sizeof(lapack_int) * (size_t)(n ? n : 1));
    if (!p) return ALLOC_FAILED;
    for (int64_t i = 0; i < n; i++) p[i] = (lapack_int)ipiv[i];
    char u = (char)fill(uplo);
    *info =
        !n || !nrhs ? 0
        : ta == R_64F
            ? LAPACKE_dsytrs(LAPACK_COL_MAJOR, u, (int)n, (int)nrhs, A, (int)lda, p, B, (int)ldb)
            : LAPACKE_ssytrs(LAPACK_COL_MAJOR, u, (int)n, (int)nrhs, A, (int)lda, p, B, (int)ldb);
    free(p);
    return OK;
}
