/* cpu_conv_cvec_weight_avx512.c: the weight gradient of a float32 convolution with 16 output
 * channels per AVX-512 register, for the layers cpu_conv_cvec_avx512.c runs forward (output rows
 * narrower than a vector, output channels in 16s) with unit horizontal stride and dilation and a
 * kernel 3 or 5 wide and at most 5 high.
 *
 * Why: through columns (im2col) and a product, LeNet's second layer (6 -> 16 channels, 5x5 over
 * 64 samples of 14x14) spent 43% of its weight gradient copying columns (430 us in all, PyTorch
 * 325). Here one input channel's kh x kw taps of 16 output channels are kh x kw vectors of sums
 * in registers; for every output pixel its 16 channels' gradient is one vector, multiplied by the
 * input values of the pixel's window (broadcast) into the sums. Threads take input channels, so
 * each sum runs over the samples and pixels in one order whatever the thread count. */
#include "cpu_conv_direct.h"
#include "mt_parallel.h"

#include <immintrin.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { VW = 16, KH_MAX = 5, KW_MAX = 5 }; /* lanes; the largest kernel taken */

typedef struct {
    const mt_conv_geom *g;
    const float *x, *gt; /* gt: the output's gradient as (N, Ho, Wo, Cs) */
    float *gw;
    int64_t Hp, Wp; /* the padded input plane */
    atomic_int failed;
} wjob;

/* the sums of one input channel and output channels [ob, ob + 16), a kernel KH x KW (constants,
 * so the sums stay in registers): every sample's padded plane of that channel is in `planes` */
static inline __attribute__((always_inline)) void
taps(const wjob *j, int KH, int KW, const float *planes, int64_t ob, float *out) {
    const mt_conv_geom *g = j->g;
    int64_t plane = j->Hp * j->Wp;
    __m512 acc[KH_MAX * KW_MAX]; /* here, not the caller's: so they live in registers */
    for (int t = 0; t < KH * KW; t++) acc[t] = _mm512_setzero_ps();
    for (int64_t n = 0; n < g->N; n++)
        for (int64_t oh = 0; oh < g->Ho; oh++) {
            const float *gp = j->gt + ((n * g->Ho + oh) * g->Wo) * g->Cs + ob;
            for (int ki = 0; ki < KH; ki++) {
                const float *xr = planes + n * plane + (oh * g->sh + ki * g->dh) * j->Wp;
                for (int64_t ow = 0; ow < g->Wo; ow++) {
                    __m512 gv = _mm512_loadu_ps(gp + ow * g->Cs);
                    for (int kj = 0; kj < KW; kj++)
                        acc[ki * KW + kj] =
                            _mm512_fmadd_ps(gv, _mm512_set1_ps(xr[ow + kj]), acc[ki * KW + kj]);
                }
            }
        }
    for (int t = 0; t < KH * KW; t++) _mm512_storeu_ps(out + t * VW, acc[t]);
}

static void channels(void *job, int64_t c0, int64_t c1) {
    wjob *j = job;
    const mt_conv_geom *g = j->g;
    int64_t plane = j->Hp * j->Wp, HW = g->H * g->W;
    float *planes = mt_conv_alloc64(sizeof(float) * (size_t)(g->N * plane));
    if (!planes) {
        atomic_store(&j->failed, 1);
        return;
    }
    memset(planes, 0, sizeof(float) * (size_t)(g->N * plane)); /* the border stays zero */
    _Alignas(64) float out[KH_MAX * KW_MAX * VW];
    for (int64_t c = c0; c < c1; c++) {
        for (int64_t n = 0; n < g->N; n++) /* channel c of every sample, padded */
            for (int64_t h = 0; h < g->H; h++)
                memcpy(planes + n * plane + (h + g->ph) * j->Wp + g->pw,
                       j->x + (n * g->Cb + c) * HW + h * g->W, sizeof(float) * (size_t)g->W);
        for (int64_t ob = 0; ob < g->Cs; ob += VW) {
            int nt = (int)(g->kh * g->kw);
            switch ((int)(g->kh * 8 + g->kw)) {
#define KHW_CASE(h)                                                                                \
    case h * 8 + 3:                                                                                \
        taps(j, h, 3, planes, ob, out);                                                            \
        break;                                                                                     \
    case h * 8 + 5:                                                                                \
        taps(j, h, 5, planes, ob, out);                                                            \
        break;
                KHW_CASE(1)
                KHW_CASE(2)
                KHW_CASE(3)
                KHW_CASE(4)
                KHW_CASE(5)
#undef KHW_CASE
            }
            for (int o = 0; o < VW; o++) /* gw[ob + o][c][ki][kj] */
                for (int t = 0; t < nt; t++)
                    j->gw[((ob + o) * g->Cb + c) * nt + t] = out[t * VW + o];
        }
    }
    free(planes);
}

bool mt_cpu_conv_cvec_weight_fits(const mt_conv_geom *g) {
    return mt_cpu_conv_cvec_fits(g) && g->sw == 1 && g->dw == 1 && (g->kw == 3 || g->kw == 5) &&
           g->kh <= KH_MAX && g->kw <= KW_MAX &&
           g->N * (g->H + 2 * g->ph) * (g->W + 2 * g->pw) <= ((int64_t)1 << 22);
}

/* the output's gradient of samples [n0, n1) as (N, Ho, Wo, Cs) */
typedef struct {
    const mt_conv_geom *g;
    const float *go;
    float *gt;
} transpose_job;

static void transpose_part(void *job, int64_t n0, int64_t n1) {
    const transpose_job *t = job;
    int64_t L = t->g->Ho * t->g->Wo, Cs = t->g->Cs;
    for (int64_t n = n0; n < n1; n++)
        for (int64_t o = 0; o < Cs; o++)
            for (int64_t p = 0; p < L; p++)
                t->gt[(n * L + p) * Cs + o] = t->go[(n * Cs + o) * L + p];
}

int mt_cpu_conv_cvec_weight(const mt_conv_geom *g, const float *go, const float *x, float *gw) {
    int64_t L = g->Ho * g->Wo;
    float *gt = mt_conv_alloc64(sizeof(float) * (size_t)(g->N * L * g->Cs));
    if (!gt) return mt_error(MT_ERR_MEMORY, "out of memory in convolution");
    transpose_job tj = {g, go, gt};
    mt_parallel_range(g->N, mt_threads_for(g->N * L * g->Cs), transpose_part, &tj);
    wjob j = {.g = g, .x = x, .gt = gt, .gw = gw};
    j.Hp = g->H + 2 * g->ph, j.Wp = g->W + 2 * g->pw;
    atomic_init(&j.failed, 0);
    mt_parallel_range(g->Cb, mt_threads_for(g->N * L * g->Cs * g->kh * g->kw * g->Cb / 16),
                      channels, &j);
    free(gt);
    return atomic_load(&j.failed) ? mt_error(MT_ERR_MEMORY, "out of memory in convolution") : 0;
}
