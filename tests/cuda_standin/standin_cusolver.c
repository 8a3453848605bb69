/* standin_cusolver.c: a stand-in for cuSOLVER (libcusolver.so) for the CUDA module's tests on
 * machines without a GPU. A test double, not NVIDIA software: the dense calls of
 * backends/cuda/cuda_solver.c, column-major as cusolverDn defines them, computed with LAPACKE over
 * the driver stand-in's host memory, with cuSOLVER's protocol: a *_bufferSize call first, then the
 * call with a workspace at least that large (a smaller one is refused), devInfo written through its
 * pointer (LAPACK's info: > 0 for a failure of the matrix, -i for a bad parameter i), and the
 * status cuSOLVER returns for parameters it refuses. A call checks its arguments and queues its
 * arithmetic on the handle's stream (standin_library.h): devInfo and the results are there only
 * once that stream ran it. gesvdj's Jacobi sweeps are LAPACK's gesdd
 * here (non-convergence reported as min(m, n) + 1, as gesvdj reports it). */
#include <lapacke.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "standin_library.h"

#define EXPORT __attribute__((visibility("default")))

enum { OK = 0, NOT_INITIALIZED = 1, ALLOC_FAILED = 2, INVALID_VALUE = 3, EXECUTION_FAILED = 6 };
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

static int queue(handle *h, void (*run)(void *), const void *arg, size_t n, const char *what) {
    return standin_queue(h->stream, run, arg, n, what) ? EXECUTION_FAILED : OK;
}

/* a routine's exported call checks its arguments, then queues NAME_run on a copy of them (a
 * NAME_call) */
#define QUEUE(NAME, ...)                                                                           \
    return queue(h, NAME##_run, &(NAME##_call){__VA_ARGS__}, sizeof(NAME##_call), #NAME)

/* every routine for one element type: T, cuSOLVER's letter L (S, D), LAPACKE's l (s, d) */
#define ROUTINES(T, L, l)                                                                          \
    EXPORT int cusolverDn##L##getrf_bufferSize(handle *h, int m, int n, T *A, int lda, int *lw) {  \
        BAD(!h || m < 0 || n < 0 || lda < lead(m));                                                \
        (void)A;                                                                                   \
        *lw = need(m, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    typedef struct {                                                                               \
        int m, n, lda;                                                                             \
        T *A;                                                                                      \
        int *ipiv, *info;                                                                          \
    } L##getrf_call;                                                                               \
    static void L##getrf_run(void *arg) {                                                          \
        L##getrf_call *c = arg;                                                                    \
        if (!c->m || !c->n)                                                                        \
            *c->info = 0;                                                                          \
        else if (c->ipiv)                                                                          \
            *c->info =                                                                             \
                LAPACKE_##l##getrf_work(LAPACK_COL_MAJOR, c->m, c->n, c->A, c->lda, c->ipiv);      \
        else                                                                                       \
            *c->info = nopiv_##T(c->m, c->n, c->A, c->lda);                                        \
    }                                                                                              \
    EXPORT int cusolverDn##L##getrf(handle *h, int m, int n, T *A, int lda, T *work, int *ipiv,    \
                                    int *info) {                                                   \
        BAD(!h || m < 0 || n < 0 || lda < lead(m) || !work);                                       \
        QUEUE(L##getrf, m, n, lda, A, ipiv, info);                                                 \
    }                                                                                              \
    typedef struct {                                                                               \
        int trans, n, nrhs, lda, ldb;                                                              \
        const T *A;                                                                                \
        const int *ipiv;                                                                           \
        T *B;                                                                                      \
        int *info;                                                                                 \
    } L##getrs_call;                                                                               \
    static void L##getrs_run(void *arg) {                                                          \
        L##getrs_call *c = arg;                                                                    \
        for (int i = 0; i < c->n; i++) /* LAPACK would swap rows outside B */                      \
            if (c->ipiv[i] < 1 || c->ipiv[i] > c->n) {                                             \
                *c->info = -7;                                                                     \
                return;                                                                            \
            }                                                                                      \
        *c->info = c->n && c->nrhs                                                                 \
                       ? LAPACKE_##l##getrs_work(LAPACK_COL_MAJOR, c->trans ? 'T' : 'N', c->n,     \
                                                 c->nrhs, c->A, c->lda, c->ipiv, c->B, c->ldb)     \
                       : 0;                                                                        \
    }                                                                                              \
    EXPORT int cusolverDn##L##getrs(handle *h, int trans, int n, int nrhs, const T *A, int lda,    \
                                    const int *ipiv, T *B, int ldb, int *info) {                   \
        BAD(!h || (trans != 0 && trans != 1) || n < 0 || nrhs < 0 || lda < lead(n) ||              \
            ldb < lead(n));                                                                        \
        QUEUE(L##getrs, trans, n, nrhs, lda, ldb, A, ipiv, B, info);                               \
    }                                                                                              \
    EXPORT int cusolverDn##L##potrf_bufferSize(handle *h, int uplo, int n, T *A, int lda,          \
                                               int *lw) {                                          \
        BAD(!h || (uplo != 0 && uplo != 1) || n < 0 || lda < lead(n));                             \
        (void)A;                                                                                   \
        *lw = need(n, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    typedef struct {                                                                               \
        int uplo, n, lda;                                                                          \
        T *A;                                                                                      \
        int *info;                                                                                 \
    } L##potrf_call;                                                                               \
    static void L##potrf_run(void *arg) {                                                          \
        L##potrf_call *c = arg;                                                                    \
        *c->info =                                                                                 \
            c->n ? LAPACKE_##l##potrf_work(LAPACK_COL_MAJOR, fill(c->uplo), c->n, c->A, c->lda)    \
                 : 0;                                                                              \
    }                                                                                              \
    EXPORT int cusolverDn##L##potrf(handle *h, int uplo, int n, T *A, int lda, T *work, int lw,    \
                                    int *info) {                                                   \
        BAD(!h || (uplo != 0 && uplo != 1) || n < 0 || lda < lead(n) || !work || lw < need(n, n)); \
        QUEUE(L##potrf, uplo, n, lda, A, info);                                                    \
    }                                                                                              \
    EXPORT int cusolverDn##L##geqrf_bufferSize(handle *h, int m, int n, T *A, int lda, int *lw) {  \
        BAD(!h || m < 0 || n < 0 || lda < lead(m));                                                \
        (void)A;                                                                                   \
        *lw = need(m, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    typedef struct {                                                                               \
        int m, n, lda;                                                                             \
        T *A, *tau;                                                                                \
        int *info;                                                                                 \
    } L##geqrf_call;                                                                               \
    static void L##geqrf_run(void *arg) {                                                          \
        L##geqrf_call *c = arg;                                                                    \
        *c->info = c->m && c->n                                                                    \
                       ? LAPACKE_##l##geqrf(LAPACK_COL_MAJOR, c->m, c->n, c->A, c->lda, c->tau)    \
                       : 0;                                                                        \
    }                                                                                              \
    EXPORT int cusolverDn##L##geqrf(handle *h, int m, int n, T *A, int lda, T *tau, T *work,       \
                                    int lw, int *info) {                                           \
        BAD(!h || m < 0 || n < 0 || lda < lead(m) || !work || lw < need(m, n));                    \
        QUEUE(L##geqrf, m, n, lda, A, tau, info);                                                  \
    }                                                                                              \
    EXPORT int cusolverDn##L##orgqr_bufferSize(handle *h, int m, int n, int k, const T *A,         \
                                               int lda, const T *tau, int *lw) {                   \
        BAD(!h || m < 0 || n < 0 || n > m || k < 0 || k > n || lda < lead(m));                     \
        (void)A, (void)tau;                                                                        \
        *lw = need(m, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    typedef struct {                                                                               \
        int m, n, k, lda;                                                                          \
        T *A;                                                                                      \
        const T *tau;                                                                              \
        int *info;                                                                                 \
    } L##orgqr_call;                                                                               \
    static void L##orgqr_run(void *arg) {                                                          \
        L##orgqr_call *c = arg;                                                                    \
        *c->info = c->m && c->n ? LAPACKE_##l##orgqr(LAPACK_COL_MAJOR, c->m, c->n, c->k, c->A,     \
                                                     c->lda, c->tau)                               \
                                : 0;                                                               \
    }                                                                                              \
    EXPORT int cusolverDn##L##orgqr(handle *h, int m, int n, int k, T *A, int lda, const T *tau,   \
                                    T *work, int lw, int *info) {                                  \
        BAD(!h || m < 0 || n < 0 || n > m || k < 0 || k > n || lda < lead(m) || !work ||           \
            lw < need(m, n));                                                                      \
        QUEUE(L##orgqr, m, n, k, lda, A, tau, info);                                               \
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
    typedef struct {                                                                               \
        int side, trans, m, n, k, lda, ldc;                                                        \
        const T *A, *tau;                                                                          \
        T *C;                                                                                      \
        int *info;                                                                                 \
    } L##ormqr_call;                                                                               \
    static void L##ormqr_run(void *arg) {                                                          \
        L##ormqr_call *c = arg;                                                                    \
        *c->info =                                                                                 \
            c->m && c->n && c->k                                                                   \
                ? LAPACKE_##l##ormqr(LAPACK_COL_MAJOR, c->side ? 'R' : 'L', c->trans ? 'T' : 'N',  \
                                     c->m, c->n, c->k, c->A, c->lda, c->tau, c->C, c->ldc)         \
                : 0;                                                                               \
    }                                                                                              \
    EXPORT int cusolverDn##L##ormqr(handle *h, int side, int trans, int m, int n, int k,           \
                                    const T *A, int lda, const T *tau, T *C, int ldc, T *work,     \
                                    int lw, int *info) {                                           \
        int nq = side == 0 ? m : n;                                                                \
        BAD(!h || (side != 0 && side != 1) || (trans != 0 && trans != 1) || m < 0 || n < 0 ||      \
            k < 0 || k > nq || lda < lead(nq) || ldc < lead(m) || !work || lw < need(m, n));       \
        QUEUE(L##ormqr, side, trans, m, n, k, lda, ldc, A, tau, C, info);                          \
    }                                                                                              \
    EXPORT int cusolverDn##L##syevd_bufferSize(handle *h, int jobz, int uplo, int n, const T *A,   \
                                               int lda, const T *W, int *lw) {                     \
        BAD(!h || (jobz != 0 && jobz != 1) || (uplo != 0 && uplo != 1) || n < 0 || lda < lead(n)); \
        (void)A, (void)W;                                                                          \
        *lw = need(n, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    typedef struct {                                                                               \
        int jobz, uplo, n, lda;                                                                    \
        T *A, *W;                                                                                  \
        int *info;                                                                                 \
    } L##syevd_call;                                                                               \
    static void L##syevd_run(void *arg) {                                                          \
        L##syevd_call *c = arg;                                                                    \
        *c->info = c->n ? LAPACKE_##l##syevd(LAPACK_COL_MAJOR, c->jobz ? 'V' : 'N', fill(c->uplo), \
                                             c->n, c->A, c->lda, c->W)                             \
                        : 0;                                                                       \
    }                                                                                              \
    EXPORT int cusolverDn##L##syevd(handle *h, int jobz, int uplo, int n, T *A, int lda, T *W,     \
                                    T *work, int lw, int *info) {                                  \
        BAD(!h || (jobz != 0 && jobz != 1) || (uplo != 0 && uplo != 1) || n < 0 ||                 \
            lda < lead(n) || !work || lw < need(n, n));                                            \
        QUEUE(L##syevd, jobz, uplo, n, lda, A, W, info);                                           \
    }                                                                                              \
    EXPORT int cusolverDn##L##gesvd_bufferSize(handle *h, int m, int n, int *lw) {                 \
        BAD(!h || m < 0 || n < 0 || m < n);                                                        \
        *lw = need(m, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    typedef struct {                                                                               \
        signed char jobu, jobvt;                                                                   \
        int m, n, lda, ldu, ldvt;                                                                  \
        T *A, *S, *U, *VT, *rwork;                                                                 \
        int *info;                                                                                 \
    } L##gesvd_call;                                                                               \
    /* rwork holds LAPACK's min(m, n) - 1 unconverged superdiagonal elements, as cuSOLVER's */     \
    static void L##gesvd_run(void *arg) {                                                          \
        L##gesvd_call *c = arg;                                                                    \
        T one[1];                                                                                  \
        bool nu = c->jobu == 'N', nv = c->jobvt == 'N';                                            \
        *c->info = c->n ? LAPACKE_##l##gesvd(LAPACK_COL_MAJOR, c->jobu, c->jobvt, c->m, c->n,      \
                                             c->A, c->lda, c->S, nu ? one : c->U, nu ? 1 : c->ldu, \
                                             nv ? one : c->VT, nv ? 1 : c->ldvt, c->rwork)         \
                        : 0;                                                                       \
    }                                                                                              \
    EXPORT int cusolverDn##L##gesvd(handle *h, signed char jobu, signed char jobvt, int m, int n,  \
                                    T *A, int lda, T *S, T *U, int ldu, T *VT, int ldvt, T *work,  \
                                    int lw, T *rwork, int *info) {                                 \
        bool ju = jobu == 'A' || jobu == 'S' || jobu == 'N',                                       \
             jv = jobvt == 'A' || jobvt == 'S' || jobvt == 'N';                                    \
        BAD(!h || !ju || !jv || m < n || n < 0 || lda < lead(m) || !work || lw < need(m, n) ||     \
            (jobu != 'N' && (!U || ldu < lead(m))) || (jobvt != 'N' && (!VT || ldvt < lead(n))));  \
        QUEUE(L##gesvd, jobu, jobvt, m, n, lda, ldu, ldvt, A, S, U, VT, rwork, info);              \
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
    typedef struct {                                                                               \
        int jobz, econ, m, n, lda, ldu, ldv;                                                       \
        T *A, *S, *U, *V;                                                                          \
        int *info;                                                                                 \
    } L##gesvdj_call;                                                                              \
    /* gesvdj computes V, not V^T: gesdd's V^T transposed into it; not converging is min(m, n) + 1 \
     */                                                                                            \
    static void L##gesvdj_run(void *arg) {                                                         \
        L##gesvdj_call *c = arg;                                                                   \
        int k = c->m < c->n ? c->m : c->n, vr = c->econ ? k : c->n;                                \
        T *vt = k ? malloc(sizeof(T) * (size_t)vr * (size_t)c->n) : NULL;                          \
        char job = !c->jobz ? 'N' : c->econ ? 'S' : 'A';                                           \
        int r = !k   ? 0                                                                           \
                : vt ? LAPACKE_##l##gesdd(LAPACK_COL_MAJOR, job, c->m, c->n, c->A, c->lda, c->S,   \
                                          c->U, c->ldu, vt, lead(vr))                              \
                     : 1;                                                                          \
        *c->info = r > 0 ? k + 1 : r;                                                              \
        for (int i = 0; k && c->jobz && r == 0 && i < vr; i++)                                     \
            for (int j = 0; j < c->n; j++)                                                         \
                c->V[j + (int64_t)i * c->ldv] = vt[i + (int64_t)j * vr];                           \
        free(vt);                                                                                  \
    }                                                                                              \
    EXPORT int cusolverDn##L##gesvdj(handle *h, int jobz, int econ, int m, int n, T *A, int lda,   \
                                     T *S, T *U, int ldu, T *V, int ldv, T *work, int lw,          \
                                     int *info, void *p) {                                         \
        BAD(!h || !p || (jobz != 0 && jobz != 1) || m < 0 || n < 0 || lda < lead(m) ||             \
            ldu < lead(m) || ldv < lead(n) || !U || !V || !work || lw < need(m, n));               \
        QUEUE(L##gesvdj, jobz, econ, m, n, lda, ldu, ldv, A, S, U, V, info);                       \
    }                                                                                              \
    EXPORT int cusolverDn##L##sytrf_bufferSize(handle *h, int n, T *A, int lda, int *lw) {         \
        BAD(!h || n < 0 || lda < lead(n));                                                         \
        (void)A;                                                                                   \
        *lw = need(n, n);                                                                          \
        return OK;                                                                                 \
    }                                                                                              \
    typedef struct {                                                                               \
        int uplo, n, lda;                                                                          \
        T *A;                                                                                      \
        int *ipiv, *info;                                                                          \
    } L##sytrf_call;                                                                               \
    static void L##sytrf_run(void *arg) {                                                          \
        L##sytrf_call *c = arg;                                                                    \
        *c->info = c->n ? LAPACKE_##l##sytrf(LAPACK_COL_MAJOR, fill(c->uplo), c->n, c->A, c->lda,  \
                                             c->ipiv)                                              \
                        : 0;                                                                       \
    }                                                                                              \
    EXPORT int cusolverDn##L##sytrf(handle *h, int uplo, int n, T *A, int lda, int *ipiv, T *work, \
                                    int lw, int *info) {                                           \
        BAD(!h || (uplo != 0 && uplo != 1) || n < 0 || lda < lead(n) || !work || lw < need(n, n)); \
        QUEUE(L##sytrf, uplo, n, lda, A, ipiv, info);                                              \
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

typedef struct {
    int uplo, type, n, nrhs, lda, ldb;
    const void *A;
    const int64_t *ipiv;
    void *B;
    int *info;
} Xsytrs_call;

static void Xsytrs_run(void *arg) {
    Xsytrs_call *c = arg;
    lapack_int *p = malloc(sizeof(lapack_int) * (size_t)(c->n ? c->n : 1));
    if (!p) {
        *c->info = -1;
        return;
    }
    for (int64_t i = 0; i < c->n; i++) p[i] = (lapack_int)c->ipiv[i];
    char u = (char)fill(c->uplo);
    *c->info =
        !c->n || !c->nrhs ? 0
        : c->type == R_64F
            ? LAPACKE_dsytrs(LAPACK_COL_MAJOR, u, c->n, c->nrhs, c->A, c->lda, p, c->B, c->ldb)
            : LAPACKE_ssytrs(LAPACK_COL_MAJOR, u, c->n, c->nrhs, c->A, c->lda, p, c->B, c->ldb);
    free(p);
}

EXPORT int cusolverDnXsytrs(handle *h, int uplo, int64_t n, int64_t nrhs, int ta, const void *A,
                            int64_t lda, const int64_t *ipiv, int tb, void *B, int64_t ldb,
                            void *dev_work, size_t dev_bytes, void *host_work, size_t host_bytes,
                            int *info) {
    BAD(!h || (uplo != 0 && uplo != 1) || n < 0 || nrhs < 0 || n > INT32_MAX || nrhs > INT32_MAX ||
        lda < lead((int)n) || ldb < lead((int)n) || ta != tb || (ta != R_32F && ta != R_64F) ||
        !dev_work || dev_bytes < (size_t)need((int)n, (int)nrhs) * 8);
    (void)host_work, (void)host_bytes;
    QUEUE(Xsytrs, uplo, ta, (int)n, (int)nrhs, (int)lda, (int)ldb, A, ipiv, B, info);
}
