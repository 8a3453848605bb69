/* cpu_conv_cvec_avx512.c: direct float32 convolution with the output channels across the vector
 * (16 per AVX-512 register), for layers whose output rows are narrower than a vector.
 *
 * cpu_conv_direct_impl.h puts 16 output columns in a vector: LeNet's second layer (6 -> 16
 * channels, 14x14 -> 10x10, 5x5) fills 10 of the 16 lanes there. Here each vector holds 16
 * output channels of one output pixel instead: for every tap (input channel, kernel row, kernel
 * column) one load of the 16 channels' weights serves every pixel of an output row, each pixel's
 * input value broadcast, so every lane does useful work whatever the width. Threads take whole
 * samples; a padded layer's sample is first copied into a zero-padded buffer of the thread's
 * own, an unpadded one is read in place (LeNet's 6 -> 16 layer: the copies were 4% of it). */
#include "cpu_conv_direct.h"
#include "mt_parallel.h"

#include <immintrin.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum {
    VW = 16,
    PB_MAX = 14,
    KW_MAX = 5
}; /* lanes; output pixels per register block; the widest
    * kernel row_block_unit takes */

typedef struct {
    const mt_conv_geom *g;
    const float *x, *wt, *bias; /* wt: (C, kh, kw, Cs) */
    float *y;
    int64_t Hp, Wp, buf_len; /* the padded sample: its plane and floats */
    atomic_int failed;       /* a part could not allocate its buffer */
} cvec_job;

/* out pixels [0, pb) of one output row for 16 output channels: acc[p] over every tap */
static inline __attribute__((always_inline)) void
row_block(const cvec_job *j, int pb, const float *xrow0, const float *wt, float *tmp) {
    const mt_conv_geom *g = j->g;
    __m512 acc[PB_MAX];
    for (int p = 0; p < pb; p++) acc[p] = _mm512_setzero_ps();
    int64_t plane = j->Hp * j->Wp;
    for (int64_t c = 0; c < g->Cb; c++)
        for (int64_t ki = 0; ki < g->kh; ki++) {
            const float *xr = xrow0 + c * plane + ki * g->dh * j->Wp;
            const float *wr = wt + ((c * g->kh + ki) * g->kw) * g->Cs;
            for (int64_t kj = 0; kj < g->kw; kj++) {
                __m512 wv = _mm512_loadu_ps(wr + kj * g->Cs);
                const float *xp = xr + kj * g->dw;
                for (int p = 0; p < pb; p++)
                    acc[p] = _mm512_fmadd_ps(wv, _mm512_set1_ps(xp[p * g->sw]), acc[p]);
            }
        }
    for (int p = 0; p < pb; p++) _mm512_storeu_ps(tmp + p * VW, acc[p]);
}

/* The same for unit strides and dilations and a kernel KW wide, for NR output rows at once (the
 * second row's input rows rstep floats on, its pixels at tmp + tstep): the KW weight vectors of
 * a kernel row are loaded once for the NR rows and each input value of a row is broadcast once,
 * to every output pixel it reaches, where row_block broadcasts it once per tap (LeNet's 5x5
 * layer: 19 loads per 50 multiply-adds instead of 55). Two rows give twice the independent
 * accumulators (each takes KW dependent multiply-adds per kernel row): LeNet's 6 -> 16 layer,
 * 64 samples, 196-198 -> 176-181 us on 1 thread, 100-102 -> 95-100 on 2. Two rows hold
 * 2 x pb + KW vectors: at most pb = 12 for KW = 5 (the pragmas below unroll the loops whole;
 * otherwise the accumulators went to memory, at a third of the speed). */
enum { PB_PAIR_MAX = 12 };

static inline __attribute__((always_inline)) void row_block_unit(const cvec_job *j, int pb, int KW,
                                                                 int NR, const float *xrow0,
                                                                 int64_t rstep, const float *wt,
                                                                 float *tmp, int64_t tstep) {
    const mt_conv_geom *g = j->g;
    __m512 acc[2][PB_MAX], wv[KW_MAX];
    for (int r = 0; r < NR; r++)
        for (int p = 0; p < pb; p++) acc[r][p] = _mm512_setzero_ps();
    int64_t plane = j->Hp * j->Wp;
    for (int64_t c = 0; c < g->Cb; c++)
        for (int64_t ki = 0; ki < g->kh; ki++) {
            const float *xr = xrow0 + c * plane + ki * g->dh * j->Wp;
            const float *wr = wt + ((c * g->kh + ki) * KW) * g->Cs;
            for (int kj = 0; kj < KW; kj++) wv[kj] = _mm512_loadu_ps(wr + kj * g->Cs);
                /* unrolled whole, or the accumulators go to memory */
#pragma GCC unroll 32
            for (int q = 0; q < pb + KW - 1; q++)
#pragma GCC unroll 2
                for (int r = 0; r < NR; r++) {
                    __m512 xv = _mm512_set1_ps(xr[r * rstep + q]);
#pragma GCC unroll 8
                    for (int kj = 0; kj < KW; kj++)
                        if (q - kj >= 0 && q - kj < pb)
                            acc[r][q - kj] = _mm512_fmadd_ps(wv[kj], xv, acc[r][q - kj]);
                }
        }
    for (int r = 0; r < NR; r++)
        for (int p = 0; p < pb; p++) _mm512_storeu_ps(tmp + r * tstep + p * VW, acc[r][p]);
}

/* the pixels of each block: a constant count, so the accumulators stay in registers. Two rows
 * (nr 2) only where unit_pair says; otherwise nr is 1. */
static void row_block_any(const cvec_job *j, int pb, int nr, const float *xrow0, int64_t rstep,
                          const float *wt, float *tmp, int64_t tstep) {
    const mt_conv_geom *g = j->g;
    if (g->sw == 1 && g->dw == 1 && (g->kw == 3 || g->kw == 5)) {
        switch ((pb * 8 + (int)g->kw) * 2 + nr - 1) {
#define PBK_CASE(n, NR)                                                                            \
    case (n * 8 + 3) * 2 + NR - 1:                                                                 \
        row_block_unit(j, n, 3, NR, xrow0, rstep, wt, tmp, tstep);                                 \
        return;                                                                                    \
    case (n * 8 + 5) * 2 + NR - 1:                                                                 \
        row_block_unit(j, n, 5, NR, xrow0, rstep, wt, tmp, tstep);                                 \
        return;
#define PBK_CASES(n) PBK_CASE(n, 1) PBK_CASE(n, 2)
            PBK_CASES(1)
            PBK_CASES(2)
            PBK_CASES(3)
            PBK_CASES(4)
            PBK_CASES(5)
            PBK_CASES(6)
            PBK_CASES(7)
            PBK_CASES(8)
            PBK_CASES(9)
            PBK_CASES(10)
            PBK_CASES(11)
            PBK_CASES(12)
            PBK_CASE(13, 1)
            PBK_CASE(14, 1)
#undef PBK_CASES
#undef PBK_CASE
        }
    }
    switch (pb) {
#define PB_CASE(n)                                                                                 \
    case n:                                                                                        \
        row_block(j, n, xrow0, wt, tmp);                                                           \
        break;
        PB_CASE(1)
        PB_CASE(2)
        PB_CASE(3)
        PB_CASE(4)
        PB_CASE(5)
        PB_CASE(6)
        PB_CASE(7)
        PB_CASE(8)
        PB_CASE(9)
        PB_CASE(10)
        PB_CASE(11)
        PB_CASE(12)
        PB_CASE(13)
        PB_CASE(14)
#undef PB_CASE
    }
}

/* whether row_block_any takes two output rows of pb pixels at once */
static bool unit_pair(const mt_conv_geom *g, int pb) {
    return g->sw == 1 && g->dw == 1 && (g->kw == 3 || g->kw == 5) && pb <= PB_PAIR_MAX;
}

/* r: 16 vectors, transposed in place (row i lane k <- row k lane i): three rounds of shuffles,
 * within 128-bit lanes, then of the lanes */
static inline void transpose16(__m512 *r) {
    __m512 t[16];
    for (int i = 0; i < 16; i += 4) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
        t[i + 2] = _mm512_unpacklo_ps(r[i + 2], r[i + 3]);
        t[i + 3] = _mm512_unpackhi_ps(r[i + 2], r[i + 3]);
    }
    for (int i = 0; i < 16; i += 4) {
        r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
        r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
        r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (int i = 0; i < 4; i++) {
        t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
        t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xDD);
        t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);
        t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xDD);
    }
    for (int i = 0; i < 8; i++) {
        r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
        r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
    }
}

/* pix holds np output pixels x 16 channels; each channel's np values (bias added) go to its
 * plane at y + o * L, 16 pixels at a time through transpose16 */
static void scatter_channels(const float *pix, int64_t np, const float *bias, float *y, int64_t L) {
    for (int64_t q0 = 0; q0 < np; q0 += VW) {
        __m512 r[VW];
        for (int i = 0; i < VW; i++) r[i] = _mm512_loadu_ps(pix + (q0 + i) * VW);
        transpose16(r);
        if (bias)
            for (int o = 0; o < VW; o++) r[o] = _mm512_add_ps(r[o], _mm512_set1_ps(bias[o]));
        if (np - q0 >= VW) /* plain stores: a masked one costs several times more here */
            for (int o = 0; o < VW; o++) _mm512_storeu_ps(y + o * L + q0, r[o]);
        else {
            __mmask16 m = (__mmask16)((1u << (np - q0)) - 1);
            for (int o = 0; o < VW; o++) _mm512_mask_storeu_ps(y + o * L + q0, m, r[o]);
        }
    }
}

/* output pixels computed before their channels are spread to the planes (rows of them, at least
 * one row: a row is narrower than 16) */
enum { CHUNK_PIX = 256 };

static void cvec_samples(void *job, int64_t n0, int64_t n1) {
    cvec_job *j = job;
    const mt_conv_geom *g = j->g;
    /* a chunk's pixels, 16 channels each, and one vector of slack the last transpose reads */
    _Alignas(64) float pix[(CHUNK_PIX + VW) * VW];
    memset(pix, 0, sizeof pix);
    /* this part's padded sample; without padding the sample itself is read in place */
    bool padded = g->ph > 0 || g->pw > 0;
    float *buf = padded ? mt_conv_alloc64(sizeof(float) * (size_t)j->buf_len) : NULL;
    if (padded && !buf) {
        atomic_store(&j->failed, 1);
        return;
    }
    int64_t HW = g->H * g->W, L = g->Ho * g->Wo, plane = j->Hp * j->Wp;
    if (padded) memset(buf, 0, sizeof(float) * (size_t)j->buf_len); /* the border stays zero */
    for (int64_t n = n0; n < n1; n++) {
        const float *xp = buf;
        if (padded)
            for (int64_t c = 0; c < g->Cb; c++)
                for (int64_t h = 0; h < g->H; h++)
                    memcpy(buf + c * plane + (h + g->ph) * j->Wp + g->pw,
                           j->x + (n * g->Cb + c) * HW + h * g->W, sizeof(float) * (size_t)g->W);
        else
            xp = j->x + n * g->Cb * HW;
        int64_t rows = CHUNK_PIX / g->Wo; /* Wo < 16: at least 16 rows */
        for (int64_t ob = 0; ob < g->Cs; ob += VW) {
            float *yo = j->y + (n * g->Cs + ob) * L;
            for (int64_t r0 = 0; r0 < g->Ho; r0 += rows) {
                int64_t r1 = r0 + rows < g->Ho ? r0 + rows : g->Ho;
                for (int64_t c0 = 0; c0 < g->Wo; c0 += PB_MAX) {
                    int pb = g->Wo - c0 < PB_MAX ? (int)(g->Wo - c0) : PB_MAX;
                    int step = unit_pair(g, pb) ? 2 : 1;
                    for (int64_t r = r0, nr; r < r1; r += nr) {
                        nr = r + step <= r1 ? step : 1;
                        row_block_any(j, pb, (int)nr, xp + r * g->sh * j->Wp + c0 * g->sw,
                                      g->sh * j->Wp, j->wt + ob, pix + ((r - r0) * g->Wo + c0) * VW,
                                      g->Wo * VW);
                    }
                }
                scatter_channels(pix, (r1 - r0) * g->Wo, j->bias ? j->bias + ob : NULL,
                                 yo + r0 * g->Wo, L);
            }
        }
    }
    free(buf);
}

bool mt_cpu_conv_cvec_fits(const mt_conv_geom *g) {
    return g->G == 1 && g->Cs % VW == 0 && g->Wo < VW && g->Cb * g->kh * g->kw <= 4608;
}

int mt_cpu_conv_cvec_forward(const mt_conv_geom *g, const float *x, const float *w,
                             const float *bias, float *y) {
    int64_t taps = g->Cb * g->kh * g->kw;
    float *wt = mt_conv_alloc64(sizeof(float) * (size_t)(taps * g->Cs)); /* (C, kh, kw, Cs) */
    if (!wt) return mt_error(MT_ERR_MEMORY, "out of memory in convolution");
    for (int64_t o = 0; o < g->Cs; o++)
        for (int64_t t = 0; t < taps; t++) wt[t * g->Cs + o] = w[o * taps + t];
    cvec_job j = {.g = g, .x = x, .wt = wt, .bias = bias, .y = y};
    j.Hp = g->H + 2 * g->ph, j.Wp = g->W + 2 * g->pw, j.buf_len = g->Cb * j.Hp * j.Wp;
    atomic_init(&j.failed, 0);
    /* samples in about four chunks per thread, taken as threads come free (each chunk pads its
     * samples into a buffer of its own), as the direct loops do (cpu_conv_direct_impl.h) */
    int nt = mt_threads_for(g->N * g->Cs * g->Ho * g->Wo * taps / 16);
    int64_t grain = g->N / (4 * (int64_t)nt);
    mt_parallel_dynamic(g->N, grain > 0 ? grain : 1, nt, cvec_samples, &j);
    free(wt);
    return atomic_load(&j.failed) ? mt_error(MT_ERR_MEMORY, "out of memory in convolution") : 0;
}
