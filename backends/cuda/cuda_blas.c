/* cuda_blas.c: the matrix products on CUDA (mm, addmm, bmm, baddbmm, mv, addmv, dot) and the
 * triangular solves of torch.linalg (trsm) through cuBLAS, opened with dlopen like the driver
 * (libcublas.so.13, .12, .11; MINDTORCH_CUBLAS names another file: the test stand-in). cuBLAS is
 * column-major: a row-major C = A B is computed as the column-major C^T = B^T A^T, each operand
 * passed as it lies when one of its strides is 1 (a transposed view costs nothing), else made
 * contiguous first. float32 and float64 use sgemm/dgemm, float16 and bfloat16 cublasGemmEx
 * accumulating in float; each thread keeps a handle per device.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"

typedef int cublasStatus_t;
typedef struct cublasContext *cublasHandle_t;
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 };
enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1 };
enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 };
enum { CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14 };
enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_GEMM_DEFAULT = -1 };

#define MT_CUBLAS_FUNCS(X)                                                                         \
    X(cublasStatus_t, cublasCreate_v2, (cublasHandle_t * h))                                       \
    X(cublasStatus_t, cublasSetStream_v2, (cublasHandle_t h, CUstream s))                          \
    X(cublasStatus_t, cublasSgemmStridedBatched,                                                   \
      (cublasHandle_t h, int ta, int tb, int m, int n, int k, const float *alpha, const float *A,  \
       int lda, long long sa, const float *B, int ldb, long long sb, const float *beta, float *C,  \
       int ldc, long long sc, int batch))                                                          \
    X(cublasStatus_t, cublasDgemmStridedBatched,                                                   \
      (cublasHandle_t h, int ta, int tb, int m, int n, int k, const double *alpha,                 \
       const double *A, int lda, long long sa, const double *B, int ldb, long long sb,             \
       const double *beta, double *C, int ldc, long long sc, int batch))                           \
    X(cublasStatus_t, cublasGemmStridedBatchedEx,                                                  \
      (cublasHandle_t h, int ta, int tb, int m, int n, int k, const void *alpha, const void *A,    \
       int atype, int lda, long long sa, const void *B, int btype, int ldb, long long sb,          \
       const void *beta, void *C, int ctype, int ldc, long long sc, int batch, int compute,        \
       int algo))                                                                                  \
    X(cublasStatus_t, cublasStrsm_v2,                                                              \
      (cublasHandle_t h, int side, int uplo, int trans, int diag, int m, int n,                    \
       const float *alpha, const float *A, int lda, float *B, int ldb))                            \
    X(cublasStatus_t, cublasDtrsm_v2,                                                              \
      (cublasHandle_t h, int side, int uplo, int trans, int diag, int m, int n,                    \
       const double *alpha, const double *A, int lda, double *B, int ldb))

static struct {
#define X(ret, name, params) ret(*name) params;
    MT_CUBLAS_FUNCS(X)
#undef X
} blas;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why_not[512];
static __thread cublasHandle_t handles[ACCEL_MAX_DEVICES];

static void open_blas(void) {
    const char *env = getenv("MINDTORCH_CUBLAS");
    const char *names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"};
    void *lib = cuda_open_library("MINDTORCH_CUBLAS", names, MT_ARRAY_LEN(names));
    if (!lib) {
        snprintf(why_not, sizeof why_not,
                 "the matrix products on CUDA need cuBLAS, which was not found (%s)",
                 env && *env ? env : "libcublas.so.13, .12 or .11");
        return;
    }
#define X(ret, name, params)                                                                       \
    if (!(*(void **)&blas.name = dlsym(lib, #name))) {                                             \
        snprintf(why_not, sizeof why_not, "cuBLAS has no %s: it is too old", #name);               \
        return;                                                                                    \
    }
    MT_CUBLAS_FUNCS(X)
#undef X
}

static int check(cublasStatus_t st, const char *what) {
    return st == 0
               ? 0
               : mt_error(MT_ERR_RUNTIME, "CUDA error: %s failed with cuBLAS status %d", what, st);
}

/* this thread's handle for `device`, on its current stream */
static cublasHandle_t handle_for(int device) {
    pthread_once(&once, open_blas);
    if (why_not[0]) return mt_error_null(MT_ERR_RUNTIME, "%s", why_not);
    if (cuda_bind(device)) return NULL;
    CUstream s = cuda_current_stream(device);
    if (!s) return NULL;
    if (!handles[device] && check(blas.cublasCreate_v2(&handles[device]), "cublasCreate"))
        return NULL;
    if (check(blas.cublasSetStream_v2(handles[device], s), "cublasSetStream")) return NULL;
    return handles[device];
}

int cuda_gemm(int device, mt_dtype dt, int64_t batch, int64_t M, int64_t N, int64_t K, double alpha,
              cuda_matrix A, cuda_matrix B, double beta, void *C, int64_t ldc, int64_t c_stride) {
    if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX || batch > INT32_MAX || A.ld > INT32_MAX ||
        B.ld > INT32_MAX || ldc > INT32_MAX)
        return mt_error(MT_ERR_RUNTIME, "a CUDA matrix product has a dimension past 2^31 - 1");
    if (M == 0 || N == 0 || batch == 0) return 0;
    cublasHandle_t h = handle_for(device);
    if (!h) return -1;
    /* column-major C^T [N, M] = B^T [N, K] A^T [K, M]: a row-major operand is its own transpose
     * there, so one stored as it is goes in as N, one stored transposed as T */
    int tb = B.trans ? CUBLAS_OP_T : CUBLAS_OP_N, ta = A.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
    int m = (int)N, n = (int)M, k = (int)K, lda = (int)(B.ld > 0 ? B.ld : 1),
        ldb = (int)(A.ld > 0 ? A.ld : 1), lc = (int)(ldc > 0 ? ldc : 1), nb = (int)batch;
    if (dt == MT_FLOAT32) {
        float al = (float)alpha, be = (float)beta;
        return check(blas.cublasSgemmStridedBatched(h, tb, ta, m, n, k, &al, B.p, lda,
                                                    B.batch_stride, A.p, ldb, A.batch_stride, &be,
                                                    C, lc, c_stride, nb),
                     "cublasSgemmStridedBatched");
    }
    if (dt == MT_FLOAT64)
        return check(blas.cublasDgemmStridedBatched(h, tb, ta, m, n, k, &alpha, B.p, lda,
                                                    B.batch_stride, A.p, ldb, A.batch_stride, &beta,
                                                    C, lc, c_stride, nb),
                     "cublasDgemmStridedBatched");
    if (dt == MT_FLOAT16 || dt == MT_BFLOAT16) {
        float al = (float)alpha, be = (float)beta;
        int t = dt == MT_FLOAT16 ? CUDA_R_16F : CUDA_R_16BF;
        return check(blas.cublasGemmStridedBatchedEx(h, tb, ta, m, n, k, &al, B.p, t, lda,
                                                     B.batch_stride, A.p, t, ldb, A.batch_stride,
                                                     &be, C, t, lc, c_stride, nb,
                                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmStridedBatchedEx");
    }
    return mt_error(MT_ERR_RUNTIME, "\"addmm_cuda\" not implemented for '%s'",
                    mt_dtype_get(dt)->scalar_name);
}

int cuda_trsm(int device, mt_dtype dt, bool left, bool upper, bool trans, bool unit, int64_t m,
              int64_t n, const void *A, int64_t lda, void *B, int64_t ldb) {
    if (m > INT32_MAX || n > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX)
        return mt_error(MT_ERR_RUNTIME, "a CUDA triangular solve has a dimension past 2^31 - 1");
    if (m == 0 || n == 0) return 0;
    cublasHandle_t h = handle_for(device);
    if (!h) return -1;
    int side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
    int uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    int op = trans ? CUBLAS_OP_T : CUBLAS_OP_N,
        diag = unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    if (dt == MT_FLOAT64) {
        double one = 1;
        return check(blas.cublasDtrsm_v2(h, side, uplo, op, diag, (int)m, (int)n, &one, A, (int)lda,
                                         B, (int)ldb),
                     "cublasDtrsm");
    }
    float one = 1;
    return check(blas.cublasStrsm_v2(h, side, uplo, op, diag, (int)m, (int)n, &one, A, (int)lda, B,
                                     (int)ldb),
                 "cublasStrsm");
}

/* the matrix at the last two dims of t (and the batch stride of a 3-d t) when one of its
 * strides is 1 */
static bool as_matrix(const mt_tensor *t, cuda_matrix *o) {
    int n = t->ndim;
    int64_t rows = t->sizes[n - 2], cols = t->sizes[n - 1];
    int64_t s0 = t->strides[n - 2], s1 = t->strides[n - 1];
    o->p = mt_tensor_raw(t);
    o->batch_stride = n == 3 ? t->strides[0] : 0;
    if ((s1 == 1 || cols == 1) && s0 >= (cols > 1 ? cols : 1)) {
        o->trans = false;
        o->ld = s0;
        return true;
    }
    if ((s0 == 1 || rows == 1) && s1 >= (rows > 1 ? rows : 1)) {
        o->trans = true;
        o->ld = s1;
        return true;
    }
    return false;
}

/* t itself when cuBLAS can read it as it lies, else a contiguous copy (a new reference either
 * way); NULL with the error set */
static mt_tensor *readable(mt_tensor *t, cuda_matrix *m) {
    if (as_matrix(t, m)) {
        mt_tensor_incref(t);
        return t;
    }
    mt_tensor *c = cuda_dense(t);
    if (c) as_matrix(c, m);
    return c;
}

/* out[b] = alpha * a[b] @ b[b] + beta * out[b] for 3-d (batched) or 2-d operands; out contiguous */
static int gemm(mt_tensor *out, mt_tensor *a, mt_tensor *b, double alpha, double beta) {
    int n = out->ndim;
    int64_t M = out->sizes[n - 2], N = out->sizes[n - 1], K = a->sizes[n - 1];
    if (out->numel == 0) return 0;
    cuda_matrix A, B;
    mt_tensor *ra = readable(a, &A), *rb = ra ? readable(b, &B) : NULL;
    int rc = ra && rb
                 ? cuda_gemm(cuda_device_of(out), (mt_dtype)out->dtype, n == 3 ? out->sizes[0] : 1,
                             M, N, K, alpha, A, B, beta, mt_tensor_raw(out), N, M * N)
                 : -1;
    if (ra) mt_tensor_decref(ra);
    if (rb) mt_tensor_decref(rb);
    return rc;
}

/* a view of t with the given sizes and strides (a vector as a one-column or one-row matrix) */
static mt_tensor *matrix_view(mt_tensor *t, int64_t r, int64_t c, int64_t s0, int64_t s1) {
    int64_t sizes[2] = {r, c}, strides[2] = {s0, s1};
    return mt_tensor_view_of(t, 2, sizes, strides, t->offset);
}

static int k_mm(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return gemm(r[0].t, a[0].t, a[1].t, 1, 0);
}

static int k_bmm(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return gemm(r[0].t, a[0].t, a[1].t, 1, 0);
}

static double scalar_of(const mt_value *v) {
    return v->tag == MT_V_DOUBLE ? v->d : v->tag == MT_V_BOOL ? v->b : (double)v->i;
}

/* addmm(self, mat1, mat2, beta, alpha): self broadcast into the result, then the product added
 * (beta 0 ignores self, NaN included, as PyTorch) */
static int k_addmm(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    double beta = scalar_of(&a[3]), alpha = scalar_of(&a[4]);
    mt_tensor *out = r[0].t, *in[1] = {a[0].t};
    if (beta != 0 && cuda_ew(out, CK_COPY, 1, in, NULL, NULL, (mt_dtype)a[0].t->dtype)) return -1;
    return gemm(out, a[1].t, a[2].t, alpha, beta);
}

/* baddbmm(self, batch1, batch2, beta, alpha): addmm's rule per matrix of the batch */
static int k_baddbmm(mt_call *c, mt_value *a, mt_value *r) {
    return k_addmm(c, a, r);
}

/* addmv(self, mat [n, m], vec [m], beta, alpha) -> [n]: a one-column gemm over self's copy
 * (self not read when beta is 0, as PyTorch: its NaN does not propagate) */
static int k_addmv(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    double beta = scalar_of(&a[3]), alpha = scalar_of(&a[4]);
    mt_tensor *v = a[2].t, *out = r[0].t, *in[1] = {a[0].t};
    if (beta != 0 && cuda_ew(out, CK_COPY, 1, in, NULL, NULL, (mt_dtype)a[0].t->dtype)) return -1;
    mt_tensor *vm = matrix_view(v, v->sizes[0], 1, v->strides[0], 1);
    mt_tensor *om = matrix_view(out, out->sizes[0], 1, 1, 1);
    int rc = vm && om ? gemm(om, a[1].t, vm, alpha, beta) : -1;
    if (vm) mt_tensor_decref(vm);
    if (om) mt_tensor_decref(om);
    return rc;
}

/* mv(self [n, m], vec [m]) -> [n]; dot(a [n], b [n]) -> [] */
static int k_mv(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *m = a[0].t, *v = a[1].t, *out = r[0].t;
    mt_tensor *vm = matrix_view(v, v->sizes[0], 1, v->strides[0], 1);
    mt_tensor *om = matrix_view(out, out->sizes[0], 1, 1, 1);
    int rc = vm && om ? gemm(om, m, vm, 1, 0) : -1;
    if (vm) mt_tensor_decref(vm);
    if (om) mt_tensor_decref(om);
    return rc;
}

static int k_dot(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *x = a[0].t, *y = a[1].t, *out = r[0].t;
    mt_tensor *xm = matrix_view(x, 1, x->sizes[0],
                                x->sizes[0] * (x->strides[0] ? x->strides[0] : 1), x->strides[0]);
    mt_tensor *ym = matrix_view(y, y->sizes[0], 1, y->strides[0], 1);
    mt_tensor *om = matrix_view(out, 1, 1, 1, 1);
    int rc = xm && ym && om ? gemm(om, xm, ym, 1, 0) : -1;
    if (xm) mt_tensor_decref(xm);
    if (ym) mt_tensor_decref(ym);
    if (om) mt_tensor_decref(om);
    return rc;
}

const mt_kernel_entry cuda_blas_kernels[] = {
    {"mm", k_mm}, {"bmm", k_bmm},     {"addmm", k_addmm}, {"baddbmm", k_baddbmm},
    {"mv", k_mv}, {"addmv", k_addmv}, {"dot", k_dot},
};
const size_t cuda_blas_kernels_count = MT_ARRAY_LEN(cuda_blas_kernels);
