/* cpu_blas.c: the CPU matrix products: float32 on cpu_gemm_avx512.c's loop where the CPU has
 * AVX-512, else (and float64) OpenBLAS (strided views are handed over as transposes, without
 * copies, whenever one of their strides is 1), float accumulation for bfloat16, and exact
 * wrapping int64 loops for integer types. */
#include "cpu_kernels.h"
#include "linalg.h"
#include "mt_half.h"
#include "mt_ops_gen.h"
#include "mt_parallel.h"
#include "mt_pool.h"
#include "shape.h"

#include <cblas.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A matrix operand: element pointer, shape and element strides. */
typedef struct mat {
    char *p;
    int64_t rows, cols, rs, cs;
} mat;

static mat mat_of(mt_tensor *t, int64_t batch) {
    int n = t->ndim;
    size_t isz = mt_dtype_size((mt_dtype)t->dtype);
    mat m;
    m.p = mt_tensor_raw(t) + (n == 3 ? batch * t->strides[0] : 0) * (int64_t)isz;
    m.rows = t->sizes[n - 2];
    m.cols = t->sizes[n - 1];
    m.rs = t->strides[n - 2];
    m.cs = t->strides[n - 1];
    return m;
}

/* How BLAS can read m: row-major (NoTrans) with ld, transposed (Trans) with ld, or not at all. */
static bool blas_view(const mat *m, CBLAS_TRANSPOSE *tr, int64_t *ld) {
    int64_t r = m->rows, c = m->cols;
    if ((m->cs == 1 || c == 1) && (r == 1 || m->rs >= (c > 1 ? c : 1))) {
        *tr = CblasNoTrans;
        *ld = r == 1 ? (c > 1 ? c : 1) : m->rs;
        return true;
    }
    if ((m->rs == 1 || r == 1) && (c == 1 || m->cs >= (r > 1 ? r : 1))) {
        *tr = CblasTrans;
        *ld = c == 1 ? (r > 1 ? r : 1) : m->cs;
        return true;
    }
    return false;
}

/* element (i, j) of m as a double / int64 */
#define AT(m, T, i, j) (*(T *)((m).p + ((i) * (m).rs + (j) * (m).cs) * (int64_t)sizeof(T)))

/* Whether float32 products take cpu_gemm_avx512.c's loop: on CPUs with AVX-512F, unless
 * MT_GEMM=blas asks for OpenBLAS (tests and benchmarks compare the two). */
static bool own_sgemm(void) {
    static atomic_int which = -1; /* read once; any thread may ask first, and each finds the same */
    int v = atomic_load_explicit(&which, memory_order_relaxed);
    if (v < 0) {
        const char *env = getenv("MT_GEMM");
        v = __builtin_cpu_supports("avx512f") && !(env && !strcmp(env, "blas"));
        atomic_store_explicit(&which, v, memory_order_relaxed);
    }
    return v;
}

/* bfloat16 operands widened to float32 (exactly), the float32 product, and one rounding per
 * result: float accumulation as the element loop below, at the float32 loop's speed */
static int bf16_by_f32(mat A, mat B, char *C, mt_value alpha, mt_value beta) {
    int64_t m = A.rows, k = A.cols, n = B.cols;
    /* the pool's blocks: large ones are reused, where malloc maps fresh pages (a fault per
     * 4 KiB, most of a 512 x 512 product's time) */
    size_t na = sizeof(float) * (size_t)(m * k), nb = sizeof(float) * (size_t)(k * n),
           nc = sizeof(float) * (size_t)(m * n);
    float *a = mt_pool_alloc_aligned(na), *b = mt_pool_alloc_aligned(nb),
          *c = mt_pool_alloc_aligned(nc);
    uint16_t *cb = (uint16_t *)C;
    int st = -1;
    if (a && b && c) {
        for (int64_t i = 0; i < m; i++)
            for (int64_t t = 0; t < k; t++) a[i * k + t] = mt_bf16_to_f32(AT(A, uint16_t, i, t));
        for (int64_t t = 0; t < k; t++)
            for (int64_t j = 0; j < n; j++) b[t * n + j] = mt_bf16_to_f32(AT(B, uint16_t, t, j));
        float be = (float)mt_scalar_double(beta);
        for (int64_t i = 0; i < m * n; i++) c[i] = be != 0 ? mt_bf16_to_f32(cb[i]) : 0;
        st = mt_cpu_sgemm_avx512(m, n, k, (float)mt_scalar_double(alpha), a, k, 1, b, n, 1, be, c,
                                 n);
        if (st == 0)
            for (int64_t i = 0; i < m * n; i++) cb[i] = mt_f32_to_bf16(c[i]);
    } else {
        mt_error(MT_ERR_MEMORY, "out of memory in a matrix product");
    }
    mt_pool_free_aligned(a, na);
    mt_pool_free_aligned(b, nb);
    mt_pool_free_aligned(c, nc);
    return st;
}

/* C (contiguous, ldc = n) = alpha * A @ B + beta * C */
static int gemm(mt_dtype dt, mat A, mat B, char *C, mt_value alpha, mt_value beta) {
    int64_t m = A.rows, k = A.cols, n = B.cols;
    if (m == 0 || n == 0) return 0;
    if (dt == MT_FLOAT32 && own_sgemm()) /* any strides: the loop packs its operands */
        return mt_cpu_sgemm_avx512(m, n, k, (float)mt_scalar_double(alpha), (const float *)A.p,
                                   A.rs, A.cs, (const float *)B.p, B.rs, B.cs,
                                   (float)mt_scalar_double(beta), (float *)C, n);
    if (dt == MT_FLOAT32 || dt == MT_FLOAT64) {
        CBLAS_TRANSPOSE ta = CblasNoTrans, tb = CblasNoTrans;
        int64_t lda = 1, ldb = 1;
        mt_tensor *ca = NULL, *cb = NULL;
        if (k > 0 && !blas_view(&A, &ta, &lda)) { /* neither stride is 1: a contiguous copy */
            mt_tensor src = {0};
            src.ndim = 2, src.dtype = (uint8_t)dt, src.sizes[0] = A.rows, src.sizes[1] = A.cols;
            ca = mt_tensor_empty(2, src.sizes, dt, MT_CPU);
            if (!ca) return -1;
            for (int64_t i = 0; i < A.rows; i++)
                for (int64_t j = 0; j < A.cols; j++)
                    if (dt == MT_FLOAT32)
                        ((float *)mt_tensor_raw(ca))[i * A.cols + j] = AT(A, float, i, j);
                    else
                        ((double *)mt_tensor_raw(ca))[i * A.cols + j] = AT(A, double, i, j);
            A = mat_of(ca, 0);
            blas_view(&A, &ta, &lda);
        }
        if (k > 0 && !blas_view(&B, &tb, &ldb)) {
            int64_t sz[2] = {B.rows, B.cols};
            cb = mt_tensor_empty(2, sz, dt, MT_CPU);
            if (!cb) {
                mt_tensor_decref(ca);
                return -1;
            }
            for (int64_t i = 0; i < B.rows; i++)
                for (int64_t j = 0; j < B.cols; j++)
                    if (dt == MT_FLOAT32)
                        ((float *)mt_tensor_raw(cb))[i * B.cols + j] = AT(B, float, i, j);
                    else
                        ((double *)mt_tensor_raw(cb))[i * B.cols + j] = AT(B, double, i, j);
            B = mat_of(cb, 0);
            blas_view(&B, &tb, &ldb);
        }
        if (k == 0) { /* nothing to multiply: C = beta * C */
            ta = tb = CblasNoTrans;
            lda = 1;
            ldb = n > 1 ? n : 1;
        }
        double a = mt_scalar_double(alpha), b = mt_scalar_double(beta);
        if (dt == MT_FLOAT32)
            cblas_sgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, (float)a, (const float *)A.p,
                        (int)lda, (const float *)B.p, (int)ldb, (float)b, (float *)C, (int)n);
        else
            cblas_dgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, a, (const double *)A.p,
                        (int)lda, (const double *)B.p, (int)ldb, b, (double *)C, (int)n);
        mt_tensor_decref(ca);
        mt_tensor_decref(cb);
        return 0;
    }
    if (dt == MT_BFLOAT16 && own_sgemm() && k > 0) return bf16_by_f32(A, B, C, alpha, beta);
    if (dt == MT_BFLOAT16) { /* float accumulation, one rounding per result */
        float a = (float)mt_scalar_double(alpha), b = (float)mt_scalar_double(beta);
        uint16_t *c = (uint16_t *)C;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                float s = 0;
                for (int64_t t = 0; t < k; t++)
                    s += mt_bf16_to_f32(AT(A, uint16_t, i, t)) *
                         mt_bf16_to_f32(AT(B, uint16_t, t, j));
                float prev = b != 0 ? b * mt_bf16_to_f32(c[i * n + j]) : 0;
                c[i * n + j] = mt_f32_to_bf16(prev + a * s);
            }
        return 0;
    }
    /* integers: exact, wrapping like the C++ PyTorch uses */
    int64_t a = mt_scalar_int(alpha), b = mt_scalar_int(beta);
    size_t isz = mt_dtype_size(dt);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            uint64_t s = 0;
            for (int64_t t = 0; t < k; t++) {
                int64_t x = mt_load_int64(A.p + (i * A.rs + t * A.cs) * (int64_t)isz, dt);
                int64_t y = mt_load_int64(B.p + (t * B.rs + j * B.cs) * (int64_t)isz, dt);
                s += (uint64_t)x * (uint64_t)y;
            }
            char *cp = C + (i * n + j) * (int64_t)isz;
            uint64_t prev = b != 0 ? (uint64_t)b * (uint64_t)mt_load_int64(cp, dt) : 0;
            mt_store_int64(cp, dt, (int64_t)(prev + (uint64_t)a * s));
        }
    return 0;
}

/* a vector seen as an n x 1 matrix */
static mat col_of(mt_tensor *v) {
    mat m = {mt_tensor_raw(v), v->sizes[0], 1, v->strides[0], 1};
    return m;
}

/* A batch of float32 products each too small to be split between threads (attention's heads):
 * the threads split the batch instead, each product on one thread. */
static bool small_products(const mt_tensor *b1, const mt_tensor *b2, const mt_tensor *out) {
    int64_t work = b1->sizes[1] * b1->sizes[2] * b2->sizes[2] / 64;
    return out->sizes[0] > 1 && mt_threads_for(work) <= 1;
}

typedef struct {
    mt_tensor *b1, *b2, *out;
    float alpha, beta;
    int failed;
} batches_job;

static void batches_part(void *job, int64_t b0, int64_t b1) {
    batches_job *J = job;
    int64_t per = J->out->sizes[1] * J->out->sizes[2];
    for (int64_t b = b0; b < b1; b++) {
        mat A = mat_of(J->b1, b), B = mat_of(J->b2, b);
        if (mt_cpu_sgemm_avx512(A.rows, B.cols, A.cols, J->alpha, (const float *)A.p, A.rs, A.cs,
                                (const float *)B.p, B.rs, B.cs, J->beta,
                                (float *)mt_tensor_raw(J->out) + b * per, B.cols))
            __atomic_store_n(&J->failed, 1, __ATOMIC_RELAXED);
    }
}

static int sgemm_batches(mt_tensor *b1, mt_tensor *b2, mt_tensor *out, mt_value alpha,
                         mt_value beta) {
    batches_job J = {b1, b2, out, (float)mt_scalar_double(alpha), (float)mt_scalar_double(beta), 0};
    int64_t n = out->sizes[0];
    int64_t work = n * b1->sizes[1] * b1->sizes[2] * b2->sizes[2] / 64;
    mt_parallel_range(n, mt_threads_for(work), batches_part, &J);
    /* a worker's error is its own thread's: say it again on this one */
    return J.failed ? mt_error(MT_ERR_MEMORY, "out of memory in a matrix product") : 0;
}

/* out = bias broadcast to out's shape (for beta != 0) */
static int load_bias(mt_tensor *out, mt_tensor *bias, mt_value beta) {
    if (mt_scalar_double(beta) == 0 && beta.tag != MT_V_BOOL) return 0;
    return mt_cpu_copy(out, bias);
}

/* float32 addmm with the bias read by the product's own stores (each thread adds it to the part
 * of the result it writes) instead of copied into the result first: one pass over the result
 * less, and none by a thread other than the one writing it (Linear(784, 256) at batch 64, 2
 * threads: the copy and the worker's reads of it cost 10 us of 125). 1 when done, 0 when another
 * path must, -1 with the error set. */
static int addmm_f32_fused(mt_tensor *out, mt_value *a) {
    mt_tensor *self = a[0].t;
    double beta = mt_scalar_double(a[3]);
    if (out->dtype != MT_FLOAT32 || self->dtype != MT_FLOAT32 || !own_sgemm() || beta == 0 ||
        a[3].tag == MT_V_BOOL || self->ndim > 2 || mt_tensors_overlap(self, out))
        return 0;
    mat A = mat_of(a[1].t, 0), B = mat_of(a[2].t, 0);
    if (A.rows == 0 || B.cols == 0) return 1;
    /* self's strides as broadcast to the result's M x N (0 where it has size 1 or no dim) */
    int64_t st[2] = {0, 0};
    for (int d = 0; d < self->ndim; d++) {
        int od = 2 - self->ndim + d;
        st[od] = self->sizes[d] == 1 ? 0 : self->strides[d];
    }
    return mt_cpu_sgemm_avx512_c0(A.rows, B.cols, A.cols, (float)mt_scalar_double(a[4]),
                                  (const float *)A.p, A.rs, A.cs, (const float *)B.p, B.rs, B.cs,
                                  (float)beta, (const float *)mt_tensor_raw(self), st[0], st[1],
                                  (float *)mt_tensor_raw(out), B.cols)
               ? -1
               : 1;
}

int mt_cpu_linalg_impl(mt_call *c, mt_value *a, mt_value *rets) {
    int id = c->op->id;
    mt_tensor *out = rets[0].t;
    mt_dtype dt = (mt_dtype)out->dtype;
    mt_value one = mt_vint(1), zero = mt_vint(0);
    switch (id) {
    case MT_OP_mm:
        return gemm(dt, mat_of(a[0].t, 0), mat_of(a[1].t, 0), mt_tensor_raw(out), one, zero);
    case MT_OP_addmm:
        switch (addmm_f32_fused(out, a)) {
        case 1:
            return 0;
        case -1:
            return -1;
        }
        if (load_bias(out, a[0].t, a[3])) return -1;
        return gemm(dt, mat_of(a[1].t, 0), mat_of(a[2].t, 0), mt_tensor_raw(out), a[4],
                    mt_scalar_double(a[3]) == 0 ? zero : a[3]);
    case MT_OP_bmm:
    case MT_OP_baddbmm: {
        mt_tensor *b1 = a[id == MT_OP_bmm ? 0 : 1].t, *b2 = a[id == MT_OP_bmm ? 1 : 2].t;
        mt_value alpha = id == MT_OP_bmm ? one : a[4], beta = id == MT_OP_bmm ? zero : a[3];
        if (id == MT_OP_baddbmm && load_bias(out, a[0].t, beta)) return -1;
        if (mt_scalar_double(beta) == 0) beta = zero;
        size_t isz = mt_dtype_size(dt);
        int64_t per = out->sizes[1] * out->sizes[2];
        if (dt == MT_FLOAT32 && own_sgemm() && small_products(b1, b2, out))
            return sgemm_batches(b1, b2, out, alpha, beta);
        for (int64_t b = 0; b < out->sizes[0]; b++)
            if (gemm(dt, mat_of(b1, b), mat_of(b2, b), mt_tensor_raw(out) + b * per * (int64_t)isz,
                     alpha, beta))
                return -1;
        return 0;
    }
    case MT_OP_mv:
    case MT_OP_addmv: {
        mt_tensor *m = a[id == MT_OP_mv ? 0 : 1].t, *v = a[id == MT_OP_mv ? 1 : 2].t;
        mt_value alpha = id == MT_OP_mv ? one : a[4], beta = id == MT_OP_mv ? zero : a[3];
        if (id == MT_OP_addmv && load_bias(out, a[0].t, beta)) return -1;
        if (mt_scalar_double(beta) == 0) beta = zero;
        mat A = mat_of(m, 0);
        CBLAS_TRANSPOSE ta;
        int64_t lda;
        if ((dt == MT_FLOAT32 || dt == MT_FLOAT64) && A.rows > 0 && A.cols > 0 &&
            v->strides[0] > 0 && blas_view(&A, &ta, &lda)) {
            /* gemv sees the row-major matrix, or its transpose with rows and cols swapped */
            int rows = (int)(ta == CblasNoTrans ? A.rows : A.cols),
                cols = (int)(ta == CblasNoTrans ? A.cols : A.rows);
            double al = mt_scalar_double(alpha), be = mt_scalar_double(beta);
            if (dt == MT_FLOAT32)
                cblas_sgemv(CblasRowMajor, ta, rows, cols, (float)al, (const float *)A.p, (int)lda,
                            (const float *)mt_tensor_raw(v), (int)v->strides[0], (float)be,
                            (float *)mt_tensor_raw(out), 1);
            else
                cblas_dgemv(CblasRowMajor, ta, rows, cols, al, (const double *)A.p, (int)lda,
                            (const double *)mt_tensor_raw(v), (int)v->strides[0], be,
                            (double *)mt_tensor_raw(out), 1);
            return 0;
        }
        return gemm(dt, A, col_of(v), mt_tensor_raw(out), alpha, beta);
    }
    case MT_OP_dot: {
        mt_tensor *x = a[0].t, *y = a[1].t;
        int64_t n = x->sizes[0];
        char *o = mt_tensor_raw(out);
        bool strided = x->strides[0] > 0 && y->strides[0] > 0;
        if (dt == MT_FLOAT32 && strided) {
            *(float *)o =
                n ? cblas_sdot((int)n, (const float *)mt_tensor_raw(x), (int)x->strides[0],
                               (const float *)mt_tensor_raw(y), (int)y->strides[0])
                  : 0.0f;
            return 0;
        }
        if (dt == MT_FLOAT64 && strided) {
            *(double *)o =
                n ? cblas_ddot((int)n, (const double *)mt_tensor_raw(x), (int)x->strides[0],
                               (const double *)mt_tensor_raw(y), (int)y->strides[0])
                  : 0.0;
            return 0;
        }
        mat row = {mt_tensor_raw(x), 1, n, n ? x->strides[0] * n : 1, x->strides[0]};
        return gemm(dt, row, col_of(y), o, one, zero);
    }
    default:
        return mt_error(MT_ERR_RUNTIME, "not a matrix product");
    }
}

/* OpenBLAS's build line ("OpenBLAS 0.3.21 DYNAMIC_ARCH ..."), for torch.__config__ */
const char *mt_cpu_blas_config(void) {
    return openblas_get_config();
}

/* OpenBLAS starts its workers when it loads, and they poll (sched_yield) before they sleep:
 * about 120 ms of one of this machine's two CPUs at every start, which a short script or the
 * first steps of a training loop pay in full. Where float32 products are ours, a process may
 * never call OpenBLAS's threads: they are stopped at start, and OpenBLAS starts them again at
 * its next threaded call (what it does after a fork, through this same function). */
static void stop_blas_workers(void) {
    int (*shutdown)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "blas_thread_shutdown_");
    const char *env = getenv("MT_BLAS_WORKERS"); /* "keep": benchmarks compare */
    if (shutdown && !(env && !strcmp(env, "keep"))) shutdown();
}

/* OpenBLAS keeps its own threads: it follows torch.set_num_threads (which starts its workers,
 * so they are stopped again where its threads are rarely needed) */
static void blas_threads(int n) {
    openblas_set_num_threads(n);
    if (own_sgemm()) stop_blas_workers();
}

void mt_cpu_blas_register(void) {
    mt_set_num_threads_hook(blas_threads);
    if (own_sgemm()) stop_blas_workers();
}
