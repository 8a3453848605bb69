/* standin_cublas.c: a stand-in for cuBLAS (libcublas.so) for the CUDA module's tests on machines
 * without a GPU. A test double, not NVIDIA software: the calls of backends/cuda/cuda_blas.c
 * (gemm, trsm), column-major as cuBLAS defines them, computed naively over the driver stand-in's
 * host memory (float16 and bfloat16 in float), with cuBLAS's status for arguments it refuses. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "mt_half.h"

#define EXPORT __attribute__((visibility("default")))

enum { OK = 0, NOT_INITIALIZED = 1, ALLOC_FAILED = 3, INVALID_VALUE = 7, NOT_SUPPORTED = 15 };
enum { OP_N = 0, OP_T = 1 };
enum { R_32F = 0, R_16F = 2, R_16BF = 14 };

typedef struct handle {
    void *stream;
} handle;

EXPORT int cublasCreate_v2(handle **h) {
    *h = calloc(1, sizeof **h);
    return *h ? OK : ALLOC_FAILED;
}

EXPORT int cublasSetStream_v2(handle *h, void *s) {
    if (!h) return NOT_INITIALIZED;
    h->stream = s;
    return OK;
}

static int check(handle *h, int ta, int tb, int m, int n, int k, int lda, int ldb, int ldc,
                 int batch) {
    if (!h) return NOT_INITIALIZED;
    int ra = ta == OP_N ? m : k, rb = tb == OP_N ? k : n;
    if ((ta != OP_N && ta != OP_T) || (tb != OP_N && tb != OP_T) || m < 0 || n < 0 || k < 0 ||
        batch < 0 || lda < (ra > 1 ? ra : 1) || ldb < (rb > 1 ? rb : 1) || ldc < (m > 1 ? m : 1))
        return INVALID_VALUE;
    return OK;
}

/* element (i, j) of op(X) */
#define AT(X, t, ld, i, j)                                                                         \
    ((t) == OP_N ? (X)[(i) + (int64_t)(j) * (ld)] : (X)[(j) + (int64_t)(i) * (ld)])

#define GEMM(T, NAME)                                                                              \
    EXPORT int NAME(handle *h, int ta, int tb, int m, int n, int k, const T *alpha, const T *A,    \
                    int lda, long long sa, const T *B, int ldb, long long sb, const T *beta, T *C, \
                    int ldc, long long sc, int batch) {                                            \
        int st = check(h, ta, tb, m, n, k, lda, ldb, ldc, batch);                                  \
        if (st != OK) return st;                                                                   \
        for (int b = 0; b < batch; b++) {                                                          \
            const T *a = A + b * sa, *bb = B + b * sb;                                             \
            T *c = C + b * sc;                                                                     \
            for (int j = 0; j < n; j++)                                                            \
                for (int i = 0; i < m; i++) {                                                      \
                    T s = 0;                                                                       \
                    for (int l = 0; l < k; l++) s += AT(a, ta, lda, i, l) * AT(bb, tb, ldb, l, j); \
                    T *d = &c[i + (int64_t)j * ldc];                                               \
                    *d = *alpha * s + (*beta != 0 ? *beta * *d : 0);                               \
                }                                                                                  \
        }                                                                                          \
        return OK;                                                                                 \
    }
GEMM(float, cublasSgemmStridedBatched)
GEMM(double, cublasDgemmStridedBatched)

static float get(const void *p, int type, int64_t i) {
    uint16_t v = ((const uint16_t *)p)[i];
    return type == R_16F ? mt_f16_to_f32(v) : mt_bf16_to_f32(v);
}

/* float16 or bfloat16 operands and result, float scalars and accumulation */
EXPORT int cublasGemmStridedBatchedEx(handle *h, int ta, int tb, int m, int n, int k,
                                      const void *alpha, const void *A, int atype, int lda,
                                      long long sa, const void *B, int btype, int ldb, long long sb,
                                      const void *beta, void *C, int ctype, int ldc, long long sc,
                                      int batch, int compute, int algo) {
    (void)algo;
    int st = check(h, ta, tb, m, n, k, lda, ldb, ldc, batch);
    if (st != OK) return st;
    if (atype != btype || atype != ctype || (atype != R_16F && atype != R_16BF) || compute != 68)
        return NOT_SUPPORTED;
    float al = *(const float *)alpha, be = *(const float *)beta;
    for (int b = 0; b < batch; b++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                float s = 0;
                for (int l = 0; l < k; l++) {
                    int64_t ia = ta == OP_N ? i + (int64_t)l * lda : l + (int64_t)i * lda;
                    int64_t ib = tb == OP_N ? l + (int64_t)j * ldb : j + (int64_t)l * ldb;
                    s += get(A, atype, b * sa + ia) * get(B, btype, b * sb + ib);
                }
                int64_t ic = b * sc + i + (int64_t)j * ldc;
                float v = al * s + (be != 0 ? be * get(C, ctype, ic) : 0);
                ((uint16_t *)C)[ic] = ctype == R_16F ? mt_f32_to_f16(v) : mt_f32_to_bf16(v);
            }
    return OK;
}

/* op(A)'s element (i, j) for a column-major A */
#define OPA(A, lda, trans, i, j)                                                                   \
    ((trans) ? (A)[(j) + (int64_t)(i) * (lda)] : (A)[(i) + (int64_t)(j) * (lda)])

/* B := op(A)^-1 B (left) or B op(A)^-1 (right) by substitution, one column (row) of B at a time */
#define TRSM(T, NAME)                                                                              \
    EXPORT int NAME(handle *h, int side, int uplo, int trans, int diag, int m, int n,              \
                    const T *alpha, const T *A, int lda, T *B, int ldb) {                          \
        int na = side == 0 ? m : n;                                                                \
        if (!h) return NOT_INITIALIZED;                                                            \
        if (side < 0 || side > 1 || uplo < 0 || uplo > 1 || trans < 0 || trans > 1 || diag < 0 ||  \
            diag > 1 || m < 0 || n < 0 || lda < (na > 1 ? na : 1) || ldb < (m > 1 ? m : 1))        \
            return INVALID_VALUE;                                                                  \
        bool up = (uplo == 1) != (trans == 1); /* op(A) is upper triangular */                     \
        for (int64_t i = 0; i < (int64_t)m * n; i++) B[i % m + i / m * (int64_t)ldb] *= *alpha;    \
        if (side == 0)                                                                             \
            for (int j = 0; j < n; j++) {                                                          \
                T *x = B + (int64_t)j * ldb;                                                       \
                for (int s = 0; s < m; s++) {                                                      \
                    int i = up ? m - 1 - s : s;                                                    \
                    T v = x[i];                                                                    \
                    for (int l = up ? i + 1 : 0; l < (up ? m : i); l++)                            \
                        v -= OPA(A, lda, trans, i, l) * x[l];                                      \
                    x[i] = diag == 1 ? v : v / OPA(A, lda, trans, i, i);                           \
                }                                                                                  \
            }                                                                                      \
        else                                                                                       \
            for (int i = 0; i < m; i++)                                                            \
                for (int s = 0; s < n; s++) {                                                      \
                    int q = up ? s : n - 1 - s;                                                    \
                    T v = B[i + (int64_t)q * ldb];                                                 \
                    for (int p = up ? 0 : q + 1; p < (up ? q : n); p++)                            \
                        v -= B[i + (int64_t)p * ldb] * OPA(A, lda, trans, p, q);                   \
                    B[i + (int64_t)q * ldb] = diag == 1 ? v : v / OPA(A, lda, trans, q, q);        \
                }                                                                                  \
        return OK;                                                                                 \
    }
TRSM(float, cublasStrsm_v2)
TRSM(double, cublasDtrsm_v2)
