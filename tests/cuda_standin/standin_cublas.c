/* standin_cublas.c: a stand-in for cuBLAS (libcublas.so) for the CUDA module's tests on machines
 * without a GPU. A test double, not NVIDIA software: the calls of backends/cuda/cuda_blas.c
 * (gemm, trsm), column-major as cuBLAS defines them, computed naively over the driver stand-in's
 * host memory (float16 and bfloat16 in float), with cuBLAS's status for arguments it refuses. A
 * call checks its arguments and queues its arithmetic on the handle's stream (standin_library.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "mt_half.h"
#include "standin_library.h"

#define EXPORT __attribute__((visibility("default")))

enum {
    OK = 0,
    NOT_INITIALIZED = 1,
    ALLOC_FAILED = 3,
    INVALID_VALUE = 7,
    EXECUTION_FAILED = 13,
    NOT_SUPPORTED = 15
};
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

static int queue(handle *h, void (*run)(void *), const void *arg, size_t n, const char *what) {
    return standin_queue(h->stream, run, arg, n, what) ? EXECUTION_FAILED : OK;
}

/* element (i, j) of op(X) */
#define AT(X, t, ld, i, j)                                                                         \
    ((t) == OP_N ? (X)[(i) + (int64_t)(j) * (ld)] : (X)[(j) + (int64_t)(i) * (ld)])

/* a strided batched product as queued: the scalars by value */
#define GEMM_CALL(T)                                                                               \
    struct {                                                                                       \
        int ta, tb, m, n, k, lda, ldb, ldc, batch;                                                 \
        long long sa, sb, sc;                                                                      \
        T alpha, beta;                                                                             \
        const T *A, *B;                                                                            \
        T *C;                                                                                      \
    }

#define GEMM(T, NAME)                                                                              \
    typedef GEMM_CALL(T) NAME##_call;                                                              \
    static void NAME##_run(void *arg) {                                                            \
        NAME##_call *g = arg;                                                                      \
        for (int b = 0; b < g->batch; b++) {                                                       \
            const T *a = g->A + b * g->sa, *bb = g->B + b * g->sb;                                 \
            T *c = g->C + b * g->sc;                                                               \
            for (int j = 0; j < g->n; j++)                                                         \
                for (int i = 0; i < g->m; i++) {                                                   \
                    T s = 0;                                                                       \
                    for (int l = 0; l < g->k; l++)                                                 \
                        s += AT(a, g->ta, g->lda, i, l) * AT(bb, g->tb, g->ldb, l, j);             \
                    T *d = &c[i + (int64_t)j * g->ldc];                                            \
                    *d = g->alpha * s + (g->beta != 0 ? g->beta * *d : 0);                         \
                }                                                                                  \
        }                                                                                          \
    }                                                                                              \
    EXPORT int NAME(handle *h, int ta, int tb, int m, int n, int k, const T *alpha, const T *A,    \
                    int lda, long long sa, const T *B, int ldb, long long sb, const T *beta, T *C, \
                    int ldc, long long sc, int batch) {                                            \
        int st = check(h, ta, tb, m, n, k, lda, ldb, ldc, batch);                                  \
        if (st != OK) return st;                                                                   \
        NAME##_call g = {                                                                          \
            ta, tb, m, n, k, lda, ldb, ldc, batch, sa, sb, sc, *alpha, *beta, A, B, C};            \
        return queue(h, NAME##_run, &g, sizeof g, #NAME);                                          \
    }
GEMM(float, cublasSgemmStridedBatched)
GEMM(double, cublasDgemmStridedBatched)

static float get(const void *p, int type, int64_t i) {
    uint16_t v = ((const uint16_t *)p)[i];
    return type == R_16F ? mt_f16_to_f32(v) : mt_bf16_to_f32(v);
}
/* float16 or bfloat16 operands and result, float scalars and accumulation */
typedef struct gemm_ex_call {
    int ta, tb, m, n, k, type, lda, ldb, ldc, batch;
    long long sa, sb, sc;
    float alpha, beta;
    const void *A, *B;
    void *C;
} gemm_ex_call;

static void gemm_ex_run(void *arg) {
    gemm_ex_call *g = arg;
    for (int b = 0; b < g->batch; b++)
        for (int j = 0; j < g->n; j++)
            for (int i = 0; i < g->m; i++) {
                float s = 0;
                for (int l = 0; l < g->k; l++) {
                    int64_t ia = g->ta == OP_N ? i + (int64_t)l * g->lda : l + (int64_t)i * g->lda;
                    int64_t ib = g->tb == OP_N ? l + (int64_t)j * g->ldb : j + (int64_t)l * g->ldb;
                    s += get(g->A, g->type, b * g->sa + ia) * get(g->B, g->type, b * g->sb + ib);
                }
                int64_t ic = b * g->sc + i + (int64_t)j * g->ldc;
                float v = g->alpha * s + (g->beta != 0 ? g->beta * get(g->C, g->type, ic) : 0);
                ((uint16_t *)g->C)[ic] = g->type == R_16F ? mt_f32_to_f16(v) : mt_f32_to_bf16(v);
            }
}

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
    gemm_ex_call g = {ta,
                      tb,
                      m,
                      n,
                      k,
                      atype,
                      lda,
                      ldb,
                      ldc,
                      batch,
                      sa,
                      sb,
                      sc,
                      *(const float *)alpha,
                      *(const float *)beta,
                      A,
                      B,
                      C};
    return queue(h, gemm_ex_run, &g, sizeof g, "cublasGemmStridedBatchedEx");
}

/* op(A)'s element (i, j) for a column-major A */
#define OPA(A, lda, trans, i, j)                                                                   \
    ((trans) ? (A)[(j) + (int64_t)(i) * (lda)] : (A)[(i) + (int64_t)(j) * (lda)])

/* B := op(A)^-1 B (left) or B op(A)^-1 (right) by substitution, one column (row) of B at a time */
#define TRSM(T, NAME)                                                                              \
    typedef struct NAME##_call {                                                                   \
        int side, uplo, trans, diag, m, n, lda, ldb;                                               \
        T alpha;                                                                                   \
        const T *A;                                                                                \
        T *B;                                                                                      \
    } NAME##_call;                                                                                 \
    static void NAME##_run(void *arg) {                                                            \
        NAME##_call *c = arg;                                                                      \
        int m = c->m, n = c->n, lda = c->lda, ldb = c->ldb, trans = c->trans, diag = c->diag;      \
        const T *A = c->A;                                                                         \
        T *B = c->B;                                                                               \
        bool up = (c->uplo == 1) != (trans == 1); /* op(A) is upper triangular */                  \
        for (int64_t i = 0; i < (int64_t)m * n; i++) B[i % m + i / m * (int64_t)ldb] *= c->alpha;  \
        if (c->side == 0)                                                                          \
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
    }                                                                                              \
    EXPORT int NAME(handle *h, int side, int uplo, int trans, int diag, int m, int n,              \
                    const T *alpha, const T *A, int lda, T *B, int ldb) {                          \
        int na = side == 0 ? m : n;                                                                \
        if (!h) return NOT_INITIALIZED;                                                            \
        if (side < 0 || side > 1 || uplo < 0 || uplo > 1 || trans < 0 || trans > 1 || diag < 0 ||  \
            diag > 1 || m < 0 || n < 0 || lda < (na > 1 ? na : 1) || ldb < (m > 1 ? m : 1))        \
            return INVALID_VALUE;                                                                  \
        NAME##_call c = {side, uplo, trans, diag, m, n, lda, ldb, *alpha, A, B};                   \
        return queue(h, NAME##_run, &c, sizeof c, #NAME);                                          \
    }
TRSM(float, cublasStrsm_v2)
TRSM(double, cublasDtrsm_v2)
