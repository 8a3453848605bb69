/* cpu_conv_direct_avx2.c: direct float32 convolution (big -> small, horizontal stride 1) for CPUs
 * with AVX2 and FMA; the Makefile compiles this file with -mavx2 -mfma and cpu_conv.c calls it
 * only where the CPU has both.
 *
 * Small layers (LeNet's: one to sixteen channels, 5x5 kernels) spend most of an im2col + gemm
 * convolution copying columns and waking OpenBLAS's threads for a gemm with a handful of rows.
 * Here each thread takes whole samples: it copies a sample's channels into a zero-padded buffer
 * of its own, then computes each output row as blocks of 16 columns for up to six output
 * channels at once, in registers, over every tap of the kernel (each input vector loaded once
 * serves all the channels of the block). */
#include "cpu_conv_direct.h"
#include "mt_parallel.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#define OB_MAX 6 /* output channels per register block: 12 accumulators */

typedef struct {
    const mt_conv_geom *g;
    const float *x, *w, *bias;
    float *y;
    int64_t Hp, Wp;         /* the padded buffer's plane */
    float *gw;              /* weight gradient: one partial sum per part */
    float *bufs;            /* one padded buffer per part, zeroed */
    int64_t buf_len, chunk; /* a buffer's floats; samples per part */
} direct_job;

/* out[o][0..16) for output channels [0, ob) of row `rows` (the padded input rows of channel 0
 * at the output row's first kernel row), 16 columns from column `col` */
static inline __attribute__((always_inline)) void block16(const direct_job *j, int ob,
                                                          const float *rows, const float *w,
                                                          const float *bias, float *out[OB_MAX],
                                                          int64_t col, int64_t valid) {
    const mt_conv_geom *g = j->g;
    int64_t Cbg = g->Cb / g->G, khw = g->kh * g->kw, K = Cbg * khw, plane = j->Hp * j->Wp;
    __m256 acc[OB_MAX][2];
    for (int o = 0; o < OB_MAX; o++)
        if (o < ob) acc[o][0] = acc[o][1] = _mm256_set1_ps(bias ? bias[o] : 0.0f);
    for (int64_t c = 0; c < Cbg; c++)
        for (int64_t ki = 0; ki < g->kh; ki++) {
            const float *r = rows + c * plane + ki * g->dh * j->Wp + col;
            const float *wk = w + c * khw + ki * g->kw;
            for (int64_t kj = 0; kj < g->kw; kj++) {
                __m256 x0 = _mm256_loadu_ps(r + kj * g->dw),
                       x1 = _mm256_loadu_ps(r + kj * g->dw + 8);
                for (int o = 0; o < OB_MAX; o++)
                    if (o < ob) {
                        __m256 wv = _mm256_broadcast_ss(wk + o * K + kj);
                        acc[o][0] = _mm256_fmadd_ps(wv, x0, acc[o][0]);
                        acc[o][1] = _mm256_fmadd_ps(wv, x1, acc[o][1]);
                    }
            }
        }
    for (int o = 0; o < OB_MAX; o++)
        if (o < ob) {
            if (valid == 16) {
                _mm256_storeu_ps(out[o] + col, acc[o][0]);
                _mm256_storeu_ps(out[o] + col + 8, acc[o][1]);
            } else {
                float t[16];
                _mm256_storeu_ps(t, acc[o][0]);
                _mm256_storeu_ps(t + 8, acc[o][1]);
                memcpy(out[o] + col, t, sizeof(float) * (size_t)valid);
            }
        }
}

/* the channels of group gi of sample n into the padded buffer (whose borders stay zero) */
static void fill_padded(const direct_job *j, float *pad, int64_t n, int64_t gi) {
    const mt_conv_geom *g = j->g;
    int64_t Cbg = g->Cb / g->G, plane = j->Hp * j->Wp;
    for (int64_t c = 0; c < Cbg; c++) {
        const float *src = j->x + ((n * g->Cb) + gi * Cbg + c) * g->H * g->W;
        float *dst = pad + c * plane + g->ph * j->Wp + g->pw;
        for (int64_t h = 0; h < g->H; h++)
            memcpy(dst + h * j->Wp, src + h * g->W, sizeof(float) * (size_t)g->W);
    }
}

/* one output row of channels [o0, o0 + ob) of group gi of the sample whose padded channels are
 * `pad` and whose output is y */
static void row_block(const direct_job *j, int ob, const float *pad, int64_t gi, int64_t o0,
                      int64_t oh, float *y) {
    const mt_conv_geom *g = j->g;
    int64_t Cbg = g->Cb / g->G, Csg = g->Cs / g->G, K = Cbg * g->kh * g->kw, L = g->Ho * g->Wo;
    const float *rows = pad + oh * g->sh * j->Wp;
    const float *w = j->w + (gi * Csg + o0) * K;
    const float *bias = j->bias ? j->bias + gi * Csg + o0 : NULL;
    float *out[OB_MAX];
    for (int o = 0; o < ob; o++) out[o] = y + (gi * Csg + o0 + o) * L + oh * g->Wo;
    for (int64_t col = 0; col < g->Wo; col += 16) {
        int64_t valid = g->Wo - col < 16 ? g->Wo - col : 16;
        switch (ob) { /* a constant block size each, so the accumulators stay in registers */
        case 6:
            block16(j, 6, rows, w, bias, out, col, valid);
            break;
        case 5:
            block16(j, 5, rows, w, bias, out, col, valid);
            break;
        case 4:
            block16(j, 4, rows, w, bias, out, col, valid);
            break;
        case 3:
            block16(j, 3, rows, w, bias, out, col, valid);
            break;
        case 2:
            block16(j, 2, rows, w, bias, out, col, valid);
            break;
        default:
            block16(j, 1, rows, w, bias, out, col, valid);
            break;
        }
    }
}

/* samples [n0, n1), in the padded buffer of the part that starts at n0 */
static void direct_part(void *job, int64_t n0, int64_t n1) {
    direct_job *j = job;
    const mt_conv_geom *g = j->g;
    int64_t Csg = g->Cs / g->G;
    float *pad = j->bufs + n0 / j->chunk * j->buf_len;
    for (int64_t n = n0; n < n1; n++)
        for (int64_t gi = 0; gi < g->G; gi++) {
            fill_padded(j, pad, n, gi);
            float *y = j->y + n * g->Cs * g->Ho * g->Wo;
            /* output channels in blocks of at most six, as even as they come */
            int64_t nblk = (Csg + OB_MAX - 1) / OB_MAX;
            for (int64_t oh = 0; oh < g->Ho; oh++)
                for (int64_t b = 0, o0 = 0; b < nblk; b++) {
                    int ob = (int)((Csg - o0) / (nblk - b));
                    row_block(j, ob, pad, gi, o0, oh, y);
                    o0 += ob;
                }
        }
}

bool mt_cpu_conv_direct_fits(const mt_conv_geom *g) {
    return g->sw == 1 && g->Cb / g->G * g->kh * g->kw <= 256 && g->Wo >= 8;
}

int mt_cpu_conv_direct_f32(const mt_conv_geom *g, const float *x, const float *w, const float *bias,
                           float *y) {
    int64_t Hp = g->H + 2 * g->ph, Wp = g->W + 2 * g->pw;
    int64_t need = (g->Wo + 15) / 16 * 16 + (g->kw - 1) * g->dw; /* the last block's reach */
    if (Wp < need) Wp = need;
    int64_t work = g->N * g->Cs * g->Ho * g->Wo * (g->Cb / g->G) * g->kh * g->kw;
    int nt = mt_threads_for(work / 16);
    if (nt > g->N) nt = (int)g->N;
    if (nt < 1) nt = 1;
    int64_t buf_len = g->Cb / g->G * Hp * Wp;
    float *bufs = calloc((size_t)(nt * buf_len), sizeof(float));
    if (!bufs) return mt_error(MT_ERR_MEMORY, "out of memory in convolution");
    direct_job j = {g, x, w, bias, y, Hp, Wp, NULL, bufs, buf_len, (g->N + nt - 1) / nt};
    mt_parallel_range(g->N, nt, direct_part, &j);
    free(bufs);
    return 0;
}

/* ---- the weight gradient ---- */

#define WB_O 2 /* output channels per register block */
#define WB_K 6 /* kernel columns per register block: 12 accumulators */

/* gw[o][c][ki][kj0 + t] += the sum over the sample's output of go[o] times the padded input
 * shifted by the tap, for o in [0, ob), t in [0, nk) */
static inline __attribute__((always_inline)) void wgrad_block(const direct_job *j, int ob, int nk,
                                                              const float *xr, const float *gor,
                                                              int64_t L, float *gw, int64_t K) {
    const mt_conv_geom *g = j->g;
    __m256 acc[WB_O][WB_K];
    for (int o = 0; o < WB_O; o++)
        for (int t = 0; t < WB_K; t++) acc[o][t] = _mm256_setzero_ps();
    int64_t full = g->Wo / 8 * 8, rest = g->Wo - full;
    int32_t lanes[8];
    for (int i = 0; i < 8; i++) lanes[i] = i < rest ? -1 : 0;
    __m256i mask = _mm256_loadu_si256((const __m256i *)lanes);
    for (int64_t oh = 0; oh < g->Ho; oh++) {
        const float *x = xr + oh * g->sh * j->Wp, *go = gor + oh * g->Wo;
        for (int64_t col = 0; col < g->Wo; col += 8) {
            __m256 gv[WB_O];
            if (col < full) {
                for (int o = 0; o < WB_O; o++)
                    if (o < ob) gv[o] = _mm256_loadu_ps(go + o * L + col);
                for (int t = 0; t < WB_K; t++)
                    if (t < nk) {
                        __m256 xv = _mm256_loadu_ps(x + col + t * g->dw);
                        for (int o = 0; o < WB_O; o++)
                            if (o < ob) acc[o][t] = _mm256_fmadd_ps(gv[o], xv, acc[o][t]);
                    }
            } else {
                for (int o = 0; o < WB_O; o++)
                    if (o < ob) gv[o] = _mm256_maskload_ps(go + o * L + col, mask);
                for (int t = 0; t < WB_K; t++)
                    if (t < nk) {
                        __m256 xv = _mm256_maskload_ps(x + col + t * g->dw, mask);
                        for (int o = 0; o < WB_O; o++)
                            if (o < ob) acc[o][t] = _mm256_fmadd_ps(gv[o], xv, acc[o][t]);
                    }
            }
        }
    }
    for (int o = 0; o < WB_O; o++)
        for (int t = 0; t < WB_K; t++)
            if (o < ob && t < nk) {
                __m128 s = _mm_add_ps(_mm256_castps256_ps128(acc[o][t]),
                                      _mm256_extractf128_ps(acc[o][t], 1));
                s = _mm_add_ps(s, _mm_movehl_ps(s, s));
                s = _mm_add_ss(s, _mm_movehdup_ps(s));
                gw[o * K + t] += _mm_cvtss_f32(s);
            }
}

static void wgrad_part(void *job, int64_t n0, int64_t n1) {
    direct_job *j = job;
    const mt_conv_geom *g = j->g;
    int64_t Cbg = g->Cb / g->G, Csg = g->Cs / g->G, plane = j->Hp * j->Wp, L = g->Ho * g->Wo;
    int64_t khw = g->kh * g->kw, K = Cbg * khw, part = n0 / j->chunk;
    float *pad = j->bufs + part * j->buf_len, *gw = j->gw + part * g->Cs * K;
    for (int64_t n = n0; n < n1; n++)
        for (int64_t gi = 0; gi < g->G; gi++) {
            fill_padded(j, pad, n, gi);
            for (int64_t c = 0; c < Cbg; c++)
                for (int64_t o0 = 0; o0 < Csg; o0 += WB_O) {
                    int ob = Csg - o0 < WB_O ? (int)(Csg - o0) : WB_O;
                    const float *gor = j->y + (n * g->Cs + gi * Csg + o0) * L;
                    for (int64_t ki = 0; ki < g->kh; ki++)
                        for (int64_t kj = 0; kj < g->kw; kj += WB_K) {
                            int nk = g->kw - kj < WB_K ? (int)(g->kw - kj) : WB_K;
                            const float *xr = pad + c * plane + ki * g->dh * j->Wp + kj * g->dw;
                            float *d = gw + (gi * Csg + o0) * K + c * khw + ki * g->kw + kj;
                            if (ob == WB_O && nk == 5)
                                wgrad_block(j, WB_O, 5, xr, gor, L, d, K);
                            else if (ob == WB_O && nk == 3)
                                wgrad_block(j, WB_O, 3, xr, gor, L, d, K);
                            else if (ob == WB_O && nk == WB_K)
                                wgrad_block(j, WB_O, WB_K, xr, gor, L, d, K);
                            else
                                for (int o = 0; o < ob; o++) /* the rest, one by one */
                                    for (int t = 0; t < nk; t++)
                                        wgrad_block(j, 1, 1, xr + t * g->dw, gor + o * L, L,
                                                    d + o * K + t, K);
                        }
                }
        }
}

int mt_cpu_conv_direct_weight_f32(const mt_conv_geom *g, const float *go, const float *x,
                                  float *gw) {
    int64_t Hp = g->H + 2 * g->ph, Wp = g->W + 2 * g->pw;
    int64_t need = (g->Wo + 7) / 8 * 8 + (g->kw - 1) * g->dw; /* a masked block's reach */
    if (Wp < need) Wp = need;
    int64_t K = g->Cb / g->G * g->kh * g->kw, gw_len = g->Cs * K;
    int64_t work = g->N * g->Cs * g->Ho * g->Wo * K;
    int nt = mt_threads_for(work / 16);
    if (nt > g->N) nt = (int)g->N;
    if (nt < 1) nt = 1;
    int64_t buf_len = g->Cb / g->G * Hp * Wp;
    float *bufs = calloc((size_t)(nt * (buf_len + gw_len)), sizeof(float));
    if (!bufs) return mt_error(MT_ERR_MEMORY, "out of memory in convolution");
    float *parts = bufs + nt * buf_len;
    direct_job j = {g,  x,     NULL, NULL,    (float *)go,         Hp,
                    Wp, parts, bufs, buf_len, (g->N + nt - 1) / nt};
    mt_parallel_range(g->N, nt, wgrad_part, &j);
    for (int64_t i = 0; i < gw_len; i++) {
        float s = 0;
        for (int p = 0; p < nt; p++) s += parts[p * gw_len + i];
        gw[i] = s;
    }
    free(bufs);
    return 0;
}
