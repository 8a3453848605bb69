/* cpu_conv.c: convolutions on the CPU as im2col + OpenBLAS gemm, in float32 and float64 (other
 * dtypes compute in float32 or float64 and are converted back).
 *
 * Every convolution is one of three routines over the geometry of nn_shapes.h, where the "big"
 * side is a convolution's input and the "small" side its output: big_to_small (columns of big
 * times the weight: a convolution, and a transposed one's input gradient), small_to_big (the
 * weight transposed times small, columns added back: a transposed convolution, and a
 * convolution's input gradient) and weight_grad (small times the columns of big transposed:
 * both kinds' weight gradient). Samples are taken in chunks whose column buffer stays under
 * COLS_BUDGET elements, so one gemm covers many samples when the planes are small. Float32
 * layers with few taps per output (LeNet-sized) take the direct loops of cpu_conv_direct_avx2.c
 * instead on CPUs with AVX2 and FMA: forward, the weight gradient, and stride-1 small_to_big as
 * a forward with the kernel flipped. */
#include "cpu_conv_direct.h"
#include "cpu_kernels.h"
#include "mt_parallel.h"
#include "mt_ops_gen.h"
#include "nn_shapes.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#define COLS_BUDGET ((int64_t)1 << 21)

enum { BIG_TO_SMALL, SMALL_TO_BIG, WEIGHT_GRAD };

/* A 1x1 kernel with stride 1 and no padding reads each input element once, where it lies: the
 * convolution is a matrix product per sample and group, with no columns to copy. Taken when the
 * planes are large enough that one gemm per sample keeps OpenBLAS busy (a ResNet block's 1x1
 * layers); small planes batch their samples through the columns instead. */
static bool pointwise(const mt_conv_geom *g) {
    return g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0 &&
           g->H == g->Ho && g->W == g->Wo && (g->H * g->W >= 256 || g->N == 1);
}

/* samples per chunk: as many as fit the column budget, at least one */
static int64_t chunk_of(const mt_conv_geom *g) {
    int64_t per = (g->Cb / g->G) * g->kh * g->kw * g->Ho * g->Wo;
    int64_t n = per > 0 ? COLS_BUDGET / per : g->N;
    return n < 1 ? 1 : n > g->N ? g->N : n;
}

/* the valid output columns [lo, hi) of a kernel column whose first input column is iw0 */
static void valid_cols(const mt_conv_geom *g, int64_t iw0, int64_t *lo, int64_t *hi) {
    int64_t l = iw0 >= 0 ? 0 : (-iw0 + g->sw - 1) / g->sw;
    int64_t h = iw0 >= g->W ? 0 : (g->W - 1 - iw0) / g->sw + 1;
    if (h > g->Wo) h = g->Wo;
    if (l > h) l = h;
    *lo = l, *hi = h;
}

/* a BLAS leading dimension: at least 1 even for empty matrices */
static inline int ld1(int64_t n) {
    return n > 0 ? (int)n : 1;
}

static const mt_conv_direct *direct_impl(void);

/* C (M x N) += A (M x P) B^T (N x P): every weight gradient's product. Float32 takes
 * cpu_gemm_nt_avx512.c's loop where the CPU has AVX-512 (and MT_CONV_DIRECT does not turn it off,
 * as it turns off the direct loops). */
static void gemm_nt_f32(int64_t M, int64_t N, int64_t P, const float *A, int64_t lda,
                        const float *B, int64_t ldb, float *C, int64_t ldc) {
    if (direct_impl() == &mt_conv_direct_avx512) {
        mt_cpu_sgemm_nt_avx512(M, N, P, A, lda, B, ldb, C, ldc);
        return;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)N, (int)P, 1, A, ld1(lda), B,
                ld1(ldb), 1, C, ld1(ldc));
}
/* C (M x N) = op(A) B with op(A) = A (M x K) or, with trans, A^T (A: K x M): the forward's and
 * the input gradient's product. Float32 takes cpu_gemm_nn_avx512.c's loop where the CPU has
 * AVX-512, as gemm_nt_f32. */
static void gemm_nn_f32(bool trans, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
                        const float *B, int64_t ldb, float *C, int64_t ldc) {
    if (direct_impl() == &mt_conv_direct_avx512) {
        mt_cpu_sgemm_nn_avx512(M, N, K, A, trans ? 1 : lda, trans ? lda : 1, B, ldb, C, ldc);
        return;
    }
    cblas_sgemm(CblasRowMajor, trans ? CblasTrans : CblasNoTrans, CblasNoTrans, (int)M, (int)N,
                (int)K, 1, A, ld1(lda), B, ld1(ldb), 0, C, ld1(ldc));
}
static void gemm_nn_f64(bool trans, int64_t M, int64_t N, int64_t K, const double *A, int64_t lda,
                        const double *B, int64_t ldb, double *C, int64_t ldc) {
    cblas_dgemm(CblasRowMajor, trans ? CblasTrans : CblasNoTrans, CblasNoTrans, (int)M, (int)N,
                (int)K, 1, A, ld1(lda), B, ld1(ldb), 0, C, ld1(ldc));
}
static void gemm_nt_f64(int64_t M, int64_t N, int64_t P, const double *A, int64_t lda,
                        const double *B, int64_t ldb, double *C, int64_t ldc) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)N, (int)P, 1, A, ld1(lda), B,
                ld1(ldb), 1, C, ld1(ldc));
}

/* a column routine's operands, for the thread pool */
typedef struct {
    const mt_conv_geom *g;
    const void *src;
    int64_t nb;
    void *dst;
} conv_job;

#define CONV_TYPED(T, SFX)                                                                         \
    /* cols[K][nb * L] from samples [n0, n1) of nb of one group of big (big points at its first    \
     * channel) */                                                                                 \
    static void im2col_range_##SFX(const mt_conv_geom *g, const T *big, int64_t nb, T *cols,       \
                                   int64_t c0, int64_t c1) {                                       \
        int64_t L = g->Ho * g->Wo, HW = g->H * g->W, ld = nb * L;                                  \
        for (int64_t c = c0; c < c1; c++)                                                          \
            for (int64_t ki = 0; ki < g->kh; ki++)                                                 \
                for (int64_t kj = 0; kj < g->kw; kj++) {                                           \
                    T *row = cols + ((c * g->kh + ki) * g->kw + kj) * ld;                          \
                    int64_t iw0 = kj * g->dw - g->pw, lo, hi;                                      \
                    valid_cols(g, iw0, &lo, &hi);                                                  \
                    for (int64_t n = 0; n < nb; n++) {                                             \
                        const T *plane = big + (n * g->Cb + c) * HW;                               \
                        for (int64_t oh = 0; oh < g->Ho; oh++) {                                   \
                            T *d = row + n * L + oh * g->Wo;                                       \
                            int64_t ih = oh * g->sh - g->ph + ki * g->dh;                          \
                            if (ih < 0 || ih >= g->H) {                                            \
                                memset(d, 0, sizeof(T) * (size_t)g->Wo);                           \
                                continue;                                                          \
                            }                                                                      \
                            const T *src = plane + ih * g->W + iw0;                                \
                            for (int64_t ow = 0; ow < lo; ow++) d[ow] = 0;                         \
                            if (g->sw == 1) /* rows are short: a loop the compiler vectorises      \
                                               beats memcpy */                                     \
                                for (int64_t ow = lo; ow < hi; ow++) d[ow] = src[ow];              \
                            else                                                                   \
                                for (int64_t ow = lo; ow < hi; ow++) d[ow] = src[ow * g->sw];      \
                            for (int64_t ow = hi; ow < g->Wo; ow++) d[ow] = 0;                     \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
    }                                                                                              \
    /* big += the columns folded back (the adjoint of im2col), samples [n0, n1) */                 \
    static void col2im_range_##SFX(const mt_conv_geom *g, const T *cols, int64_t nb, T *big,       \
                                   int64_t c0, int64_t c1) {                                       \
        int64_t L = g->Ho * g->Wo, HW = g->H * g->W, ld = nb * L;                                  \
        for (int64_t c = c0; c < c1; c++)                                                          \
            for (int64_t ki = 0; ki < g->kh; ki++)                                                 \
                for (int64_t kj = 0; kj < g->kw; kj++) {                                           \
                    const T *row = cols + ((c * g->kh + ki) * g->kw + kj) * ld;                    \
                    int64_t iw0 = kj * g->dw - g->pw, lo, hi;                                      \
                    valid_cols(g, iw0, &lo, &hi);                                                  \
                    for (int64_t n = 0; n < nb; n++) {                                             \
                        T *plane = big + (n * g->Cb + c) * HW;                                     \
                        for (int64_t oh = 0; oh < g->Ho; oh++) {                                   \
                            int64_t ih = oh * g->sh - g->ph + ki * g->dh;                          \
                            if (ih < 0 || ih >= g->H) continue;                                    \
                            const T *s = row + n * L + oh * g->Wo;                                 \
                            T *dst = plane + ih * g->W + iw0;                                      \
                            if (g->sw == 1)                                                        \
                                for (int64_t ow = lo; ow < hi; ow++) dst[ow] += s[ow];             \
                            else                                                                   \
                                for (int64_t ow = lo; ow < hi; ow++) dst[ow * g->sw] += s[ow];     \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
    }                                                                                              \
    /* both over the channels on several threads (each channel's rows and planes are its own; one  \
     * sample has as many as many samples) */                                                      \
    static void im2col_part_##SFX(void *job, int64_t n0, int64_t n1) {                             \
        conv_job *j = job;                                                                         \
        im2col_range_##SFX(j->g, j->src, j->nb, j->dst, n0, n1);                                   \
    }                                                                                              \
    static void im2col_##SFX(const mt_conv_geom *g, const T *big, int64_t nb, T *cols) {           \
        conv_job j = {g, big, nb, cols};                                                           \
        mt_parallel_range(g->Cb / g->G,                                                            \
                          mt_threads_for(nb * g->Cb / g->G * g->kh * g->kw * g->Ho * g->Wo),       \
                          im2col_part_##SFX, &j);                                                  \
    }                                                                                              \
    static void col2im_part_##SFX(void *job, int64_t n0, int64_t n1) {                             \
        conv_job *j = job;                                                                         \
        col2im_range_##SFX(j->g, j->src, j->nb, j->dst, n0, n1);                                   \
    }                                                                                              \
    static void col2im_##SFX(const mt_conv_geom *g, const T *cols, int64_t nb, T *big) {           \
        conv_job j = {g, cols, nb, big};                                                           \
        mt_parallel_range(g->Cb / g->G,                                                            \
                          mt_threads_for(nb * g->Cb / g->G * g->kh * g->kw * g->Ho * g->Wo),       \
                          col2im_part_##SFX, &j);                                                  \
    }                                                                                              \
    /* tmp[Csg][nb * L] <- group g of nb samples of small (the layout the gemms want) */           \
    static void gather_small_##SFX(const mt_conv_geom *g, const T *small, int64_t nb, T *tmp) {    \
        int64_t Csg = g->Cs / g->G, L = g->Ho * g->Wo;                                             \
        for (int64_t o = 0; o < Csg; o++)                                                          \
            for (int64_t n = 0; n < nb; n++)                                                       \
                memcpy(tmp + (o * nb + n) * L, small + (n * g->Cs + o) * L,                        \
                       sizeof(T) * (size_t)L);                                                     \
    }                                                                                              \
    /* pointwise(g): small = W big, big = W^T small, or gw += small big^T, per sample and group    \
     * (for WEIGHT_GRAD, a is small and w is big) */                                               \
    static void pointwise_##SFX(int routine, const mt_conv_geom *g, const T *a, const T *w,        \
                                const T *bias, T *out) {                                           \
        int64_t Cbg = g->Cb / g->G, Csg = g->Cs / g->G, L = g->H * g->W;                           \
        if (routine == WEIGHT_GRAD) memset(out, 0, sizeof(T) * (size_t)(g->Cs * Cbg));             \
        for (int64_t n = 0; n < g->N; n++)                                                         \
            for (int64_t gi = 0; gi < g->G; gi++) {                                                \
                const T *wg = w + gi * Csg * Cbg;                                                  \
                int64_t bo = (n * g->Cb + gi * Cbg) * L, so = (n * g->Cs + gi * Csg) * L;          \
                if (routine == BIG_TO_SMALL)                                                       \
                    gemm_nn_##SFX(false, Csg, L, Cbg, wg, Cbg, a + bo, L, out + so, L);            \
                else if (routine == SMALL_TO_BIG)                                                  \
                    gemm_nn_##SFX(true, Cbg, L, Csg, wg, Cbg, a + so, L, out + bo, L);             \
                else                                                                               \
                    gemm_nt_##SFX(Csg, Cbg, L, a + so, L, w + bo, L, out + gi * Csg * Cbg, Cbg);   \
            }                                                                                      \
        if (!bias || routine == WEIGHT_GRAD) return;                                               \
        int64_t C = routine == BIG_TO_SMALL ? g->Cs : g->Cb;                                       \
        for (int64_t p = 0; p < g->N * C; p++) {                                                   \
            T bv = bias[p % C], *d = out + p * L;                                                  \
            for (int64_t i = 0; i < L; i++) d[i] += bv;                                            \
        }                                                                                          \
    }                                                                                              \
    static void big_to_small_##SFX(const mt_conv_geom *g, const T *big, const T *w, const T *bias, \
                                   T *small, T *cols, T *tmp) {                                    \
        int64_t Cbg = g->Cb / g->G, Csg = g->Cs / g->G, K = Cbg * g->kh * g->kw,                   \
                L = g->Ho * g->Wo;                                                                 \
        int64_t chunk = chunk_of(g);                                                               \
        for (int64_t n0 = 0; n0 < g->N; n0 += chunk) {                                             \
            int64_t nb = g->N - n0 < chunk ? g->N - n0 : chunk;                                    \
            for (int64_t gi = 0; gi < g->G; gi++) {                                                \
                im2col_##SFX(g, big + (n0 * g->Cb + gi * Cbg) * g->H * g->W, nb, cols);            \
                T *res = nb == 1 ? small + (n0 * g->Cs + gi * Csg) * L                             \
                                 : tmp; /* one sample: straight in */                              \
                gemm_nn_##SFX(false, Csg, nb *L, K, w + gi * Csg * K, K, cols, nb * L, res,        \
                              nb * L);                                                             \
                for (int64_t o = 0; o < Csg; o++)                                                  \
                    for (int64_t n = 0; n < nb; n++) {                                             \
                        T *d = small + ((n0 + n) * g->Cs + gi * Csg + o) * L;                      \
                        const T *s = res + (o * nb + n) * L;                                       \
                        T bv = bias ? bias[gi * Csg + o] : 0;                                      \
                        if (d != s)                                                                \
                            for (int64_t l = 0; l < L; l++) d[l] = s[l] + bv;                      \
                        else if (bias)                                                             \
                            for (int64_t l = 0; l < L; l++) d[l] += bv;                            \
                    }                                                                              \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void small_to_big_##SFX(const mt_conv_geom *g, const T *small, const T *w,              \
                                   const T *bias, T *big, T *cols, T *tmp) {                       \
        int64_t Cbg = g->Cb / g->G, Csg = g->Cs / g->G, K = Cbg * g->kh * g->kw,                   \
                L = g->Ho * g->Wo;                                                                 \
        int64_t HW = g->H * g->W, chunk = chunk_of(g);                                             \
        memset(big, 0, sizeof(T) * (size_t)(g->N * g->Cb * HW));                                   \
        for (int64_t n0 = 0; n0 < g->N; n0 += chunk) {                                             \
            int64_t nb = g->N - n0 < chunk ? g->N - n0 : chunk;                                    \
            for (int64_t gi = 0; gi < g->G; gi++) {                                                \
                const T *s = small + (n0 * g->Cs + gi * Csg) * L;                                  \
                if (nb > 1) {                                                                      \
                    gather_small_##SFX(g, s, nb, tmp);                                             \
                    s = tmp;                                                                       \
                }                                                                                  \
                gemm_nn_##SFX(true, K, nb *L, Csg, w + gi * Csg * K, K, s, nb * L, cols, nb * L);  \
                col2im_##SFX(g, cols, nb, big + (n0 * g->Cb + gi * Cbg) * HW);                     \
            }                                                                                      \
        }                                                                                          \
        if (bias)                                                                                  \
            for (int64_t p = 0; p < g->N * g->Cb; p++) {                                           \
                T bv = bias[p % g->Cb], *d = big + p * HW;                                         \
                for (int64_t i = 0; i < HW; i++) d[i] += bv;                                       \
            }                                                                                      \
    }                                                                                              \
    static void weight_grad_##SFX(const mt_conv_geom *g, const T *small, const T *big, T *gw,      \
                                  T *cols, T *tmp) {                                               \
        int64_t Cbg = g->Cb / g->G, Csg = g->Cs / g->G, K = Cbg * g->kh * g->kw,                   \
                L = g->Ho * g->Wo;                                                                 \
        int64_t chunk = chunk_of(g);                                                               \
        memset(gw, 0, sizeof(T) * (size_t)(g->Cs * K));                                            \
        for (int64_t n0 = 0; n0 < g->N; n0 += chunk) {                                             \
            int64_t nb = g->N - n0 < chunk ? g->N - n0 : chunk;                                    \
            for (int64_t gi = 0; gi < g->G; gi++) {                                                \
                im2col_##SFX(g, big + (n0 * g->Cb + gi * Cbg) * g->H * g->W, nb, cols);            \
                const T *s = small + (n0 * g->Cs + gi * Csg) * L;                                  \
                if (nb > 1) {                                                                      \
                    gather_small_##SFX(g, s, nb, tmp);                                             \
                    s = tmp;                                                                       \
                }                                                                                  \
                gemm_nt_##SFX(Csg, K, nb *L, s, nb *L, cols, nb *L, gw + gi * Csg * K, K);         \
            }                                                                                      \
        }                                                                                          \
    }

CONV_TYPED(float, f32)
CONV_TYPED(double, f64)

/* the dtype the routines compute a dtype in */
static mt_dtype compute_dtype(mt_dtype dt) {
    return dt == MT_FLOAT32 || dt == MT_BFLOAT16 ? MT_FLOAT32 : MT_FLOAT64;
}

mt_tensor *mt_cpu_as_dense(mt_tensor *t, mt_dtype dt) {
    if (!t) return NULL;
    if (t->dtype == dt && mt_tensor_is_contiguous(t)) {
        mt_tensor_incref(t);
        return t;
    }
    mt_tensor *c = mt_tensor_empty(t->ndim, t->sizes, dt, MT_CPU);
    if (c && mt_cpu_copy(c, t)) {
        mt_tensor_decref(c);
        return NULL;
    }
    return c;
}

/* the direct routines for this CPU, or NULL */
static const mt_conv_direct *direct_impl(void) {
    static int which = -1;
    if (which < 0) {
        const char *env = getenv("MT_CONV_DIRECT"); /* "avx2", "off": for tests and benchmarks */
        bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        which = !avx2 || (env && !strcmp(env, "off"))                                 ? 0
                : __builtin_cpu_supports("avx512f") && !(env && !strcmp(env, "avx2")) ? 2
                                                                                      : 1;
    }
    return which == 2 ? &mt_conv_direct_avx512 : which == 1 ? &mt_conv_direct_avx2 : NULL;
}

/* A small_to_big with stride 1 (a stride-1 convolution's input gradient) is the big_to_small of
 * the other side with the kernel flipped and the channel roles swapped, padded by the kernel's
 * reach less the padding: its geometry, when that fits (no output_padding) */
static bool flipped_geom(const mt_conv_geom *g, mt_conv_geom *f) {
    int64_t ph = g->dh * (g->kh - 1) - g->ph, pw = g->dw * (g->kw - 1) - g->pw;
    if (g->sh != 1 || g->sw != 1 || ph < 0 || pw < 0 || g->H != g->Ho + ph - g->ph ||
        g->W != g->Wo + pw - g->pw)
        return false;
    *f = (mt_conv_geom){.N = g->N,
                        .Cb = g->Cs,
                        .Cs = g->Cb,
                        .G = g->G,
                        .H = g->Ho,
                        .W = g->Wo,
                        .Ho = g->H,
                        .Wo = g->W,
                        .kh = g->kh,
                        .kw = g->kw,
                        .sh = 1,
                        .sw = 1,
                        .ph = ph,
                        .pw = pw,
                        .dh = g->dh,
                        .dw = g->dw};
    return mt_cpu_conv_direct_fits(f);
}

/* the direct float32 routines where they take the geometry: 1 when done, 0 when not taken, -1
 * on error */
static int try_direct(int routine, const mt_conv_geom *g, const float *a, const float *w,
                      const float *bias, float *out) {
    const mt_conv_direct *d = direct_impl();
    if (!d) return 0;
    /* a 1x1 layer with AVX-512 is one product per sample in cpu_gemm_nn_avx512.c's loop, 2.6
     * times as fast as the direct loops (8 x 64 x 56 x 56, 64 -> 64: 710 vs 1880 us) */
    if (d == &mt_conv_direct_avx512 && pointwise(g) && routine != WEIGHT_GRAD) return 0;
    if (routine == BIG_TO_SMALL && d == &mt_conv_direct_avx512 && mt_cpu_conv_cvec_fits(g))
        return mt_cpu_conv_cvec_forward(g, a, w, bias, out) ? -1 : 1;
    if (routine == BIG_TO_SMALL)
        return mt_cpu_conv_direct_fits(g) ? (d->forward(g, a, w, bias, out) ? -1 : 1) : 0;
    if (routine == WEIGHT_GRAD && d == &mt_conv_direct_avx512 && mt_cpu_conv_cvec_weight_fits(g))
        return mt_cpu_conv_cvec_weight(g, a, w, out) ? -1 : 1;
    if (routine == WEIGHT_GRAD) { /* a: small (the output's gradient), w: big (the input) */
        /* with AVX-512, columns + gemm_nt_f32 overtake the direct loops from about 144 taps per
         * output (16 channels of 3x3: 708 vs 916 us for 32 samples of 16x16; 6 of 5x5 are even) */
        bool wide = d == &mt_conv_direct_avx512 && g->Cb / g->G * g->kh * g->kw > 128;
        /* wide stride-1 layers: over padded planes, no columns (22% faster on a ResNet 3x3
         * layer); 0 from it (an input that is not finite) leaves them to the columns */
        if (wide && mt_cpu_conv_weight_padded_fits(g)) {
            int done = mt_cpu_conv_weight_padded(g, a, w, out);
            if (done) return done;
        }
        return mt_cpu_conv_direct_weight_fits(g) && !wide ? (d->weight(g, a, w, out) ? -1 : 1) : 0;
    }
    mt_conv_geom f;
    if (routine != SMALL_TO_BIG || !flipped_geom(g, &f)) return 0;
    /* wf[gi][c][o][kh - 1 - ki][kw - 1 - kj] = w[gi][o][c][ki][kj] */
    int64_t Cbg = g->Cb / g->G, Csg = g->Cs / g->G, khw = g->kh * g->kw;
    float *wf = malloc(sizeof(float) * (size_t)(g->Cs * Cbg * khw));
    if (!wf) return mt_error(MT_ERR_MEMORY, "out of memory in convolution");
    for (int64_t gi = 0; gi < g->G; gi++)
        for (int64_t o = 0; o < Csg; o++)
            for (int64_t c = 0; c < Cbg; c++)
                for (int64_t t = 0; t < khw; t++)
                    wf[((gi * Cbg + c) * Csg + o) * khw + khw - 1 - t] =
                        w[((gi * Csg + o) * Cbg + c) * khw + t];
    int st = d->forward(&f, a, wf, bias, out);
    free(wf);
    return st ? -1 : 1;
}

/* run one routine: `a` is the routine's first operand, `w` the weight (or the second operand
 * of WEIGHT_GRAD), `out` the result (written through a compute-dtype copy when needed) */
static int run(int routine, const mt_conv_geom *g, mt_tensor *a, mt_tensor *w, mt_tensor *bias,
               mt_tensor *out) {
    mt_dtype dt = compute_dtype((mt_dtype)out->dtype);
    int64_t K = (g->Cb / g->G) * g->kh * g->kw, chunk = chunk_of(g), L = g->Ho * g->Wo;
    int64_t ncols = K * chunk * L, ntmp = (g->Cs / g->G) * chunk * L;
    int64_t scratch_sz[1] = {ncols + ntmp};
    mt_tensor *ca = mt_cpu_as_dense(a, dt), *cw = mt_cpu_as_dense(w, dt),
              *cb = bias ? mt_cpu_as_dense(bias, dt) : NULL, *scratch = NULL;
    mt_tensor *res = (out->dtype == dt && mt_tensor_is_contiguous(out))
                         ? out
                         : mt_tensor_empty(out->ndim, out->sizes, dt, MT_CPU);
    int st = -1, direct = 0;
    if (ca && cw && (cb || !bias) && res && dt == MT_FLOAT32)
        direct = try_direct(routine, g, mt_tensor_data(ca), mt_tensor_data(cw),
                            cb ? mt_tensor_data(cb) : NULL, mt_tensor_data(res));
    /* the column buffer only for im2col + gemm (the direct loops and 1x1 products need none) */
    if (direct) {
        st = direct < 0 ? -1 : 0;
    } else if (ca && cw && (cb || !bias) && res && pointwise(g)) {
        st = 0;
        if (dt == MT_FLOAT32)
            pointwise_f32(routine, g, mt_tensor_data(ca), mt_tensor_data(cw),
                          cb ? mt_tensor_data(cb) : NULL, mt_tensor_data(res));
        else
            pointwise_f64(routine, g, mt_tensor_data(ca), mt_tensor_data(cw),
                          cb ? mt_tensor_data(cb) : NULL, mt_tensor_data(res));
    } else if (ca && cw && (cb || !bias) && res &&
               (scratch = mt_tensor_empty(1, scratch_sz, dt, MT_CPU))) {
        st = 0;
        if (dt == MT_FLOAT32) {
            float *sc = mt_tensor_data(scratch), *x = mt_tensor_data(ca), *y = mt_tensor_data(cw),
                  *o = mt_tensor_data(res);
            const float *bv = cb ? mt_tensor_data(cb) : NULL;
            if (routine == BIG_TO_SMALL)
                big_to_small_f32(g, x, y, bv, o, sc, sc + ncols);
            else if (routine == SMALL_TO_BIG)
                small_to_big_f32(g, x, y, bv, o, sc, sc + ncols);
            else
                weight_grad_f32(g, x, y, o, sc, sc + ncols);
        } else {
            double *sc = mt_tensor_data(scratch), *x = mt_tensor_data(ca), *y = mt_tensor_data(cw),
                   *o = mt_tensor_data(res);
            const double *bv = cb ? mt_tensor_data(cb) : NULL;
            if (routine == BIG_TO_SMALL)
                big_to_small_f64(g, x, y, bv, o, sc, sc + ncols);
            else if (routine == SMALL_TO_BIG)
                small_to_big_f64(g, x, y, bv, o, sc, sc + ncols);
            else
                weight_grad_f64(g, x, y, o, sc, sc + ncols);
        }
    }
    if (res && res != out && st == 0) st = mt_cpu_copy(out, res);
    mt_tensor_decref(ca);
    mt_tensor_decref(cw);
    mt_tensor_decref(cb);
    mt_tensor_decref(scratch);
    if (res != out) mt_tensor_decref(res);
    return st;
}

static int conv_impl(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_conv_geom g;
    int64_t sizes[MT_MAX_DIM];
    if (mt_conv_check(a, sizes, &g)) return -1;
    mt_tensor *bias = a[2].tag == MT_V_TENSOR ? a[2].t : NULL;
    if (r[0].t->numel == 0) return 0;
    return run(a[6].b ? SMALL_TO_BIG : BIG_TO_SMALL, &g, a[0].t, a[1].t, bias, r[0].t);
}

/* convolution_backward_weight(grad_output, input, weight_size, ...): small is grad_output for a
 * convolution, input for a transposed one */
static int conv_weight_impl(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_conv_geom g;
    if (mt_conv_weight_geom(a, &g)) return -1;
    bool transposed = a[6].b;
    return run(WEIGHT_GRAD, &g, transposed ? a[1].t : a[0].t, transposed ? a[0].t : a[1].t, NULL,
               r[0].t);
}

void mt_cpu_conv_register(void) {
    mt_disp_impl(MT_OP_convolution, MT_KEY_CPU, conv_impl);
    mt_disp_impl(MT_OP_convolution_backward_weight, MT_KEY_CPU, conv_weight_impl);
}
