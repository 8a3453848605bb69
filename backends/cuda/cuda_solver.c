/* cuda_solver.c: dense cuSOLVER (cusolverDn) for the linear algebra kernels, opened with dlopen
 * like cuBLAS (libcusolver.so.12, .11; MINDTORCH_CUSOLVER names another file: the test
 * stand-in). Each routine is bound twice, float32 (S) and float64 (D), through one prototype:
 * the two differ only in the element type behind their pointers. A call asks *_bufferSize for its
 * workspace first, as cuSOLVER requires; the session's workspace grows to the largest asked. */
#define _GNU_SOURCE
#include "cuda_solver.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "cuda_ops.h"

typedef int cusolverStatus_t;
typedef void *dn_handle;
enum { FILL_LOWER = 0, FILL_UPPER = 1, SIDE_LEFT = 0, SIDE_RIGHT = 1, OP_N = 0, OP_T = 1 };
enum { EIG_NOVECTOR = 0, EIG_VECTOR = 1, R_32F = 0, R_64F = 1 };

/* X(field, float32 name, float64 name, parameters) */
#define MT_CUSOLVER_PAIRS(X)                                                                       \
    X(getrf_bs, cusolverDnSgetrf_bufferSize, cusolverDnDgetrf_bufferSize,                          \
      (dn_handle h, int m, int n, void *A, int lda, int *lwork))                                   \
    X(getrf, cusolverDnSgetrf, cusolverDnDgetrf,                                                   \
      (dn_handle h, int m, int n, void *A, int lda, void *work, int *ipiv, int *info))             \
    X(getrs, cusolverDnSgetrs, cusolverDnDgetrs,                                                   \
      (dn_handle h, int trans, int n, int nrhs, const void *A, int lda, const int *ipiv, void *B,  \
       int ldb, int *info))                                                                        \
    X(potrf_bs, cusolverDnSpotrf_bufferSize, cusolverDnDpotrf_bufferSize,                          \
      (dn_handle h, int uplo, int n, void *A, int lda, int *lwork))                                \
    X(potrf, cusolverDnSpotrf, cusolverDnDpotrf,                                                   \
      (dn_handle h, int uplo, int n, void *A, int lda, void *work, int lwork, int *info))          \
    X(geqrf_bs, cusolverDnSgeqrf_bufferSize, cusolverDnDgeqrf_bufferSize,                          \
      (dn_handle h, int m, int n, void *A, int lda, int *lwork))                                   \
    X(geqrf, cusolverDnSgeqrf, cusolverDnDgeqrf,                                                   \
      (dn_handle h, int m, int n, void *A, int lda, void *tau, void *work, int lwork, int *info))  \
    X(orgqr_bs, cusolverDnSorgqr_bufferSize, cusolverDnDorgqr_bufferSize,                          \
      (dn_handle h, int m, int n, int k, const void *A, int lda, const void *tau, int *lwork))     \
    X(orgqr, cusolverDnSorgqr, cusolverDnDorgqr,                                                   \
      (dn_handle h, int m, int n, int k, void *A, int lda, const void *tau, void *work, int lwork, \
       int *info))                                                                                 \
    X(ormqr_bs, cusolverDnSormqr_bufferSize, cusolverDnDormqr_bufferSize,                          \
      (dn_handle h, int side, int trans, int m, int n, int k, const void *A, int lda,              \
       const void *tau, const void *C, int ldc, int *lwork))                                       \
    X(ormqr, cusolverDnSormqr, cusolverDnDormqr,                                                   \
      (dn_handle h, int side, int trans, int m, int n, int k, const void *A, int lda,              \
       const void *tau, void *C, int ldc, void *work, int lwork, int *info))                       \
    X(syevd_bs, cusolverDnSsyevd_bufferSize, cusolverDnDsyevd_bufferSize,                          \
      (dn_handle h, int jobz, int uplo, int n, const void *A, int lda, const void *W, int *lwork)) \
    X(syevd, cusolverDnSsyevd, cusolverDnDsyevd,                                                   \
      (dn_handle h, int jobz, int uplo, int n, void *A, int lda, void *W, void *work, int lwork,   \
       int *info))                                                                                 \
    X(gesvd_bs, cusolverDnSgesvd_bufferSize, cusolverDnDgesvd_bufferSize,                          \
      (dn_handle h, int m, int n, int *lwork))                                                     \
    X(gesvd, cusolverDnSgesvd, cusolverDnDgesvd,                                                   \
      (dn_handle h, signed char jobu, signed char jobvt, int m, int n, void *A, int lda, void *S,  \
       void *U, int ldu, void *VT, int ldvt, void *work, int lwork, void *rwork, int *info))       \
    X(gesvdj_bs, cusolverDnSgesvdj_bufferSize, cusolverDnDgesvdj_bufferSize,                       \
      (dn_handle h, int jobz, int econ, int m, int n, const void *A, int lda, const void *S,       \
       const void *U, int ldu, const void *V, int ldv, int *lwork, void *params))                  \
    X(gesvdj, cusolverDnSgesvdj, cusolverDnDgesvdj,                                                \
      (dn_handle h, int jobz, int econ, int m, int n, void *A, int lda, void *S, void *U, int ldu, \
       void *V, int ldv, void *work, int lwork, int *info, void *params))                          \
    X(sytrf_bs, cusolverDnSsytrf_bufferSize, cusolverDnDsytrf_bufferSize,                          \
      (dn_handle h, int n, void *A, int lda, int *lwork))                                          \
    X(sytrf, cusolverDnSsytrf, cusolverDnDsytrf,                                                   \
      (dn_handle h, int uplo, int n, void *A, int lda, int *ipiv, void *work, int lwork,           \
       int *info))

/* X(name, parameters): the routines without a type letter */
#define MT_CUSOLVER_FUNCS(X)                                                                       \
    X(cusolverDnCreate, (dn_handle * h))                                                           \
    X(cusolverDnSetStream, (dn_handle h, CUstream s))                                              \
    X(cusolverDnCreateGesvdjInfo, (void **params))                                                 \
    X(cusolverDnXsytrs_bufferSize, (dn_handle h, int uplo, int64_t n, int64_t nrhs, int typeA,     \
                                    const void *A, int64_t lda, const int64_t *ipiv, int typeB,    \
                                    void *B, int64_t ldb, size_t *dev_bytes, size_t *host_bytes))  \
    X(cusolverDnXsytrs,                                                                            \
      (dn_handle h, int uplo, int64_t n, int64_t nrhs, int typeA, const void *A, int64_t lda,      \
       const int64_t *ipiv, int typeB, void *B, int64_t ldb, void *dev_work, size_t dev_bytes,     \
       void *host_work, size_t host_bytes, int *info))

static struct {
#define X(field, sname, dname, params) cusolverStatus_t(*field[2]) params;
    MT_CUSOLVER_PAIRS(X)
#undef X
#define X(name, params) cusolverStatus_t(*name) params;
    MT_CUSOLVER_FUNCS(X)
#undef X
} sv;

static const char *const pair_names[][2] = {
#define X(field, sname, dname, params) {#sname, #dname},
    MT_CUSOLVER_PAIRS(X)
#undef X
};
enum {
#define X(field, sname, dname, params) IX_##field,
    MT_CUSOLVER_PAIRS(X)
#undef X
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why_not[512];
static __thread dn_handle handles[ACCEL_MAX_DEVICES];
static __thread void *gesvdj_params[ACCEL_MAX_DEVICES];

static bool bind(void *lib, void **slot, const char *name) {
    if ((*slot = dlsym(lib, name))) return true;
    snprintf(why_not, sizeof why_not, "cuSOLVER has no %s: it is too old", name);
    return false;
}

static void open_solver(void) {
    const char *env = getenv("MINDTORCH_CUSOLVER");
    const char *names[] = {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"};
    void *lib = cuda_open_library("MINDTORCH_CUSOLVER", names, MT_ARRAY_LEN(names));
    if (!lib) {
        snprintf(why_not, sizeof why_not,
                 "torch.linalg on CUDA needs cuSOLVER, which was not found (%s)",
                 env && *env ? env : "libcusolver.so.12 or .11");
        return;
    }
#define X(field, sname, dname, params)                                                             \
    if (!bind(lib, (void **)&sv.field[0], #sname) || !bind(lib, (void **)&sv.field[1], #dname))    \
        return;
    MT_CUSOLVER_PAIRS(X)
#undef X
#define X(name, params)                                                                            \
    if (!bind(lib, (void **)&sv.name, #name)) return;
    MT_CUSOLVER_FUNCS(X)
#undef X
}

static const char *status_name(cusolverStatus_t st) {
    static const char *const names[] = {
        "CUSOLVER_STATUS_SUCCESS",
        "CUSOLVER_STATUS_NOT_INITIALIZED",
        "CUSOLVER_STATUS_ALLOC_FAILED",
        "CUSOLVER_STATUS_INVALID_VALUE",
        "CUSOLVER_STATUS_ARCH_MISMATCH",
        "CUSOLVER_STATUS_MAPPING_ERROR",
        "CUSOLVER_STATUS_EXECUTION_FAILED",
        "CUSOLVER_STATUS_INTERNAL_ERROR",
        "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
        "CUSOLVER_STATUS_NOT_SUPPORTED",
    };
    return st >= 0 && st < (int)MT_ARRAY_LEN(names) ? names[st] : "an unknown cuSOLVER status";
}

/* PyTorch's wording for a failed cuSOLVER call */
static int check(cusolverStatus_t st, const char *what) {
    if (st == 0) return 0;
    return mt_error(MT_ERR_RUNTIME, "cusolver error: %s (%d), when calling `%s`", status_name(st),
                    st, what);
}

static int check_pair(cusolverStatus_t st, int ix, bool d) {
    return check(st, pair_names[ix][d]);
}

int cuda_solver_check_sizes(const char *fname, int64_t m, int64_t n) {
    if (m > INT_MAX || n > INT_MAX)
        return mt_error(MT_ERR_RUNTIME,
                        "%s: matrices of %lld by %lld exceed cuSOLVER's int sizes (at most %d "
                        "rows and columns)",
                        fname, (long long)m, (long long)n, INT_MAX);
    return 0;
}

static mt_tensor *device_bytes(mt_device dev, int64_t n) {
    int64_t size = n > 0 ? n : 1;
    return mt_tensor_empty(1, &size, MT_UINT8, dev);
}

int cuda_solver_begin(cuda_solver *s, const mt_tensor *t, mt_dtype dt) {
    memset(s, 0, sizeof *s);
    s->d = dt == MT_FLOAT64;
    s->dev = t->device;
    pthread_once(&once, open_solver);
    if (why_not[0]) return mt_error(MT_ERR_RUNTIME, "%s", why_not);
    int device = cuda_device_of(t);
    if (cuda_bind(device)) return -1;
    CUstream st = cuda_current_stream(device);
    if (!st) return -1;
    if (!handles[device] && check(sv.cusolverDnCreate(&handles[device]), "cusolverDnCreate"))
        return -1;
    if (check(sv.cusolverDnSetStream(handles[device], st), "cusolverDnSetStream")) return -1;
    s->handle = handles[device];
    s->dev.index = (int8_t)device;
    int64_t one = 1;
    s->info = mt_tensor_empty(1, &one, MT_INT32, s->dev);
    return s->info ? 0 : -1;
}

void cuda_solver_end(cuda_solver *s) {
    mt_tensor_decref(s->work);
    mt_tensor_decref(s->info);
    s->work = s->info = NULL;
}

/* the workspace, of at least lwork elements (cuSOLVER counts them in the matrix's type) */
static void *workspace(cuda_solver *s, int lwork) {
    int64_t bytes = (int64_t)(lwork > 0 ? lwork : 1) * (s->d ? 8 : 4);
    if (!s->work || s->work->numel < bytes) {
        mt_tensor_decref(s->work);
        if (!(s->work = device_bytes(s->dev, bytes))) return NULL;
    }
    return mt_tensor_raw(s->work);
}

static int *scratch_info(cuda_solver *s) {
    return (int *)mt_tensor_raw(s->info);
}

int cuda_solver_getrf(cuda_solver *s, int m, int n, void *A, int lda, int32_t *ipiv,
                      int32_t *info) {
    int lwork = 0;
    if (check_pair(sv.getrf_bs[s->d](s->handle, m, n, A, lda, &lwork), IX_getrf_bs, s->d))
        return -1;
    void *w = workspace(s, lwork);
    return w ? check_pair(sv.getrf[s->d](s->handle, m, n, A, lda, w, ipiv, info), IX_getrf, s->d)
             : -1;
}

int cuda_solver_getrs(cuda_solver *s, bool trans, int n, int nrhs, const void *A, int lda,
                      const int32_t *ipiv, void *B, int ldb) {
    return check_pair(sv.getrs[s->d](s->handle, trans ? OP_T : OP_N, n, nrhs, A, lda, ipiv, B, ldb,
                                     scratch_info(s)),
                      IX_getrs, s->d);
}

int cuda_solver_potrf(cuda_solver *s, bool upper, int n, void *A, int lda, int32_t *info) {
    int lwork = 0, uplo = upper ? FILL_UPPER : FILL_LOWER;
    if (check_pair(sv.potrf_bs[s->d](s->handle, uplo, n, A, lda, &lwork), IX_potrf_bs, s->d))
        return -1;
    void *w = workspace(s, lwork);
    return w ? check_pair(sv.potrf[s->d](s->handle, uplo, n, A, lda, w, lwork, info), IX_potrf,
                          s->d)
             : -1;
}

int cuda_solver_geqrf(cuda_solver *s, int m, int n, void *A, int lda, void *tau) {
    int lwork = 0;
    if (check_pair(sv.geqrf_bs[s->d](s->handle, m, n, A, lda, &lwork), IX_geqrf_bs, s->d))
        return -1;
    void *w = workspace(s, lwork);
    return w ? check_pair(sv.geqrf[s->d](s->handle, m, n, A, lda, tau, w, lwork, scratch_info(s)),
                          IX_geqrf, s->d)
             : -1;
}

int cuda_solver_orgqr(cuda_solver *s, int m, int n, int k, void *A, int lda, const void *tau) {
    int lwork = 0;
    if (check_pair(sv.orgqr_bs[s->d](s->handle, m, n, k, A, lda, tau, &lwork), IX_orgqr_bs, s->d))
        return -1;
    void *w = workspace(s, lwork);
    return w ? check_pair(
                   sv.orgqr[s->d](s->handle, m, n, k, A, lda, tau, w, lwork, scratch_info(s)),
                   IX_orgqr, s->d)
             : -1;
}

int cuda_solver_ormqr(cuda_solver *s, bool left, bool trans, int m, int n, int k, const void *A,
                      int lda, const void *tau, void *C, int ldc) {
    int lwork = 0, side = left ? SIDE_LEFT : SIDE_RIGHT, op = trans ? OP_T : OP_N;
    if (check_pair(sv.ormqr_bs[s->d](s->handle, side, op, m, n, k, A, lda, tau, C, ldc, &lwork),
                   IX_ormqr_bs, s->d))
        return -1;
    void *w = workspace(s, lwork);
    return w ? check_pair(sv.ormqr[s->d](s->handle, side, op, m, n, k, A, lda, tau, C, ldc, w,
                                         lwork, scratch_info(s)),
                          IX_ormqr, s->d)
             : -1;
}

int cuda_solver_syevd(cuda_solver *s, bool upper, int n, void *A, int lda, void *W, int32_t *info) {
    int lwork = 0, uplo = upper ? FILL_UPPER : FILL_LOWER;
    if (check_pair(sv.syevd_bs[s->d](s->handle, EIG_VECTOR, uplo, n, A, lda, W, &lwork),
                   IX_syevd_bs, s->d))
        return -1;
    void *w = workspace(s, lwork);
    return w ? check_pair(sv.syevd[s->d](s->handle, EIG_VECTOR, uplo, n, A, lda, W, w, lwork, info),
                          IX_syevd, s->d)
             : -1;
}

int cuda_solver_gesvd(cuda_solver *s, char job, int m, int n, void *A, int lda, void *S, void *U,
                      int ldu, void *VT, int ldvt, int32_t *info) {
    int lwork = 0;
    if (check_pair(sv.gesvd_bs[s->d](s->handle, m, n, &lwork), IX_gesvd_bs, s->d)) return -1;
    /* rwork: min(m, n) - 1 superdiagonal elements; it follows the workspace proper */
    int64_t total = (int64_t)lwork + (m < n ? m : n);
    if (total > INT_MAX)
        return mt_error(MT_ERR_RUNTIME, "linalg.svd: cuSOLVER's workspace exceeds its int sizes");
    char *w = workspace(s, (int)total);
    if (!w) return -1;
    void *rwork = w + (size_t)lwork * (s->d ? 8 : 4);
    return check_pair(sv.gesvd[s->d](s->handle, (signed char)job, (signed char)job, m, n, A, lda, S,
                                     U, ldu, VT, ldvt, w, lwork, rwork, info),
                      IX_gesvd, s->d);
}

int cuda_solver_gesvdj(cuda_solver *s, bool vectors, bool econ, int m, int n, void *A, int lda,
                       void *S, void *U, int ldu, void *V, int ldv, int32_t *info) {
    int device = s->dev.index, lwork = 0, jobz = vectors ? EIG_VECTOR : EIG_NOVECTOR;
    /* the default tolerance and sweeps, as PyTorch leaves them */
    if (!gesvdj_params[device] &&
        check(sv.cusolverDnCreateGesvdjInfo(&gesvdj_params[device]), "cusolverDnCreateGesvdjInfo"))
        return -1;
    void *p = gesvdj_params[device];
    if (check_pair(
            sv.gesvdj_bs[s->d](s->handle, jobz, econ, m, n, A, lda, S, U, ldu, V, ldv, &lwork, p),
            IX_gesvdj_bs, s->d))
        return -1;
    void *w = workspace(s, lwork);
    return w ? check_pair(sv.gesvdj[s->d](s->handle, jobz, econ, m, n, A, lda, S, U, ldu, V, ldv, w,
                                          lwork, info, p),
                          IX_gesvdj, s->d)
             : -1;
}

int cuda_solver_sytrf(cuda_solver *s, int n, void *A, int lda, int32_t *ipiv, int32_t *info) {
    int lwork = 0;
    if (check_pair(sv.sytrf_bs[s->d](s->handle, n, A, lda, &lwork), IX_sytrf_bs, s->d)) return -1;
    void *w = workspace(s, lwork);
    return w ? check_pair(sv.sytrf[s->d](s->handle, FILL_LOWER, n, A, lda, ipiv, w, lwork, info),
                          IX_sytrf, s->d)
             : -1;
}

int cuda_solver_sytrs(cuda_solver *s, int n, int nrhs, const void *A, int lda, const int64_t *ipiv,
                      void *B, int ldb) {
    int type = s->d ? R_64F : R_32F;
    size_t dev_bytes = 0, host_bytes = 0;
    if (check(sv.cusolverDnXsytrs_bufferSize(s->handle, FILL_LOWER, n, nrhs, type, A, lda, ipiv,
                                             type, B, ldb, &dev_bytes, &host_bytes),
              "cusolverDnXsytrs_bufferSize"))
        return -1;
    if (dev_bytes > (size_t)INT_MAX * 4)
        return mt_error(MT_ERR_RUNTIME, "linalg.ldl_solve: cuSOLVER's workspace is too large");
    void *w = workspace(s, (int)((dev_bytes + 3) / 4));
    void *host = w ? malloc(host_bytes ? host_bytes : 1) : NULL;
    if (!host) return w ? mt_error(MT_ERR_MEMORY, "linalg.ldl_solve: out of memory") : -1;
    int st = check(sv.cusolverDnXsytrs(s->handle, FILL_LOWER, n, nrhs, type, A, lda, ipiv, type, B,
                                       ldb, w, dev_bytes, host, host_bytes, scratch_info(s)),
                   "cusolverDnXsytrs");
    /* the host workspace must outlive the call, which the stream may still be running */
    if (!st) {
        CUstream stream = cuda_current_stream(s->dev.index);
        CUresult e = stream ? cuda_drv.cuStreamSynchronize(stream) : CUDA_SUCCESS;
        st = !stream ? -1 : e != CUDA_SUCCESS ? cuda_error(e, "cuStreamSynchronize") : 0;
    }
    free(host);
    return st;
}
