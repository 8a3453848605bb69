/* cpu_conv_direct_impl.h: direct float32 convolution (big -> small, horizontal stride 1) and its
 * weight gradient, written once over a vector of CD_VW floats and included by
 * cpu_conv_direct_avx2.c (8, AVX2 + FMA) and cpu_conv_direct_avx512.c (16, AVX-512F), which
 * the Makefile compiles for those instruction sets; cpu_conv.c picks one by what the CPU has.
 * Define CD_VW and CD_TABLE (the name of the mt_conv_direct table) before including it.
 *
 * Small layers (LeNet's: one to sixteen channels, 5x5 kernels) spend most of an im2col + gemm
 * convolution copying columns and waking OpenBLAS's threads for a gemm with a handful of rows.
 * Here each thread takes whole samples: it copies a sample's channels into a zero-padded buffer
 * of its own, then computes each output row as blocks of 16 columns for several output
 * channels at once, in registers, over every tap of the kernel (each input vector loaded once
 * serves all the channels of the block). The weight gradient runs over the same buffers: for
 * two output channels and up to six kernel columns at once it accumulates the products of
 * output-gradient rows and shifted input rows, one partial sum per thread. */
#include "cpu_conv_direct.h"
#include "mt_parallel.h"
#include "mt_pool.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#if CD_VW == 16
typedef __m512 vf;
#define VLOAD(p) _mm512_loadu_ps(p)
#define VSTORE(p, v) _mm512_storeu_ps(p, v)
#define VSET1(x) _mm512_set1_ps(x)
#define VZERO() _mm512_setzero_ps()
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VHSUM(v) _mm512_reduce_add_ps(v)
typedef __mmask16 vmask;
static inline vmask vmask_first(int64_t n) {
    return (vmask)((1u << n) - 1u);
}
#define VMASKLOAD(p, m) _mm512_maskz_loadu_ps(m, p)
#define VMASKSTORE(p, m, v) _mm512_mask_storeu_ps(p, m, v)
/* output rows per register block: 6 channels x 4 rows is 24 accumulators (6 x 2 ran the
 * 32 x 64 x 56 x 56 3x3 layer at 269-277 GFLOP/s, this at 293-295; 8 x 3 and 12 x 2 no better) */
#define RB 4
#else
typedef __m256 vf;
#define VLOAD(p) _mm256_loadu_ps(p)
#define VSTORE(p, v) _mm256_storeu_ps(p, v)
#define VSET1(x) _mm256_set1_ps(x)
#define VZERO() _mm256_setzero_ps()
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
static inline float VHSUM(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
typedef __m256i vmask;
static inline vmask vmask_first(int64_t n) {
    int32_t lanes[8];
    for (int i = 0; i < 8; i++) lanes[i] = i < n ? -1 : 0;
    return _mm256_loadu_si256((const __m256i *)lanes);
}
#define VMASKLOAD(p, m) _mm256_maskload_ps(p, m)
#define VMASKSTORE(p, m, v) _mm256_maskstore_ps(p, m, v)
#define RB 1
#endif

#define OB_MAX 6        /* output channels per block (OB_MAX * NV * RB accumulators) */
#define BW 16           /* output columns per block */
#define NV (BW / CD_VW) /* vectors per block */

typedef struct {
    const mt_conv_geom *g;
    const float *x, *w, *bias;
    float *y;
    int64_t Hp, Wp;         /* the padded buffer's plane */
    float *gw;              /* weight gradient: one partial sum per part */
    float *bufs;            /* one padded buffer per part, zeroed */
    int64_t buf_len, chunk; /* a buffer's floats; samples (weight gradient: blocks) per part */
    int64_t nblk;           /* weight gradient: blocks of samples, one partial sum each */
    int failed;             /* forward: a chunk found no memory for its buffer */
} direct_job;

/* out[o][r * Wo + col .. + valid) for output channels [0, ob) and output rows [0, rb) from
 * `rows` (the padded input rows of channel 0 at the first output row's first kernel row) */
static inline __attribute__((always_inline)) void block(const direct_job *j, int ob, int rb,
                                                        const float *rows, const float *w,
                                                        const float *bias, float *out[OB_MAX],
                                                        int64_t col, int64_t valid) {
    const mt_conv_geom *g = j->g;
    int64_t Cbg = g->Cb / g->G, khw = g->kh * g->kw, K = Cbg * khw, plane = j->Hp * j->Wp;
    int64_t rstep = g->sh * j->Wp;
    vf acc[OB_MAX][RB][NV];
    for (int o = 0; o < OB_MAX; o++)
        for (int r = 0; r < RB; r++)
            for (int v = 0; v < NV; v++)
                if (o < ob && r < rb) acc[o][r][v] = VSET1(bias ? bias[o] : 0.0f);
    for (int64_t c = 0; c < Cbg; c++)
        for (int64_t ki = 0; ki < g->kh; ki++) {
            const float *in = rows + c * plane + ki * g->dh * j->Wp + col;
            const float *wk = w + c * khw + ki * g->kw;
            for (int64_t kj = 0; kj < g->kw; kj++) {
                vf x[RB][NV];
                for (int r = 0; r < RB; r++)
                    for (int v = 0; v < NV; v++)
                        if (r < rb) x[r][v] = VLOAD(in + r * rstep + kj * g->dw + v * CD_VW);
                for (int o = 0; o < OB_MAX; o++)
                    if (o < ob) {
                        vf wv = VSET1(wk[o * K + kj]);
                        for (int r = 0; r < RB; r++)
                            for (int v = 0; v < NV; v++)
                                if (r < rb) acc[o][r][v] = VFMA(wv, x[r][v], acc[o][r][v]);
                    }
            }
        }
    for (int r = 0; r < RB; r++) {
        if (r >= rb) break;
        if (valid == BW) {
            for (int o = 0; o < OB_MAX; o++)
                for (int v = 0; v < NV; v++)
                    if (o < ob) VSTORE(out[o] + r * g->Wo + col + v * CD_VW, acc[o][r][v]);
        } else { /* the row's last columns: masked stores of the lanes inside it */
            for (int v = 0; v < NV; v++) {
                int64_t n = valid - v * CD_VW;
                vmask m = vmask_first(n < 0 ? 0 : n > CD_VW ? CD_VW : n);
                for (int o = 0; o < OB_MAX; o++)
                    if (o < ob) VMASKSTORE(out[o] + r * g->Wo + col + v * CD_VW, m, acc[o][r][v]);
            }
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

#define BLOCK_CASE(k)                                                                              \
    case k:                                                                                        \
        if (rb == RB)                                                                              \
            block(j, k, RB, rows, w, bias, out, col, valid);                                       \
        else if (RB > 2 && rb == 2)                                                                \
            block(j, k, 2, rows, w, bias, out, col, valid);                                        \
        else                                                                                       \
            block(j, k, 1, rows, w, bias, out, col, valid);                                        \
        break;

/* output rows [oh, oh + rb) (rb is RB, 2 or 1) of channels [o0, o0 + ob) of group gi of the sample
 * whose padded channels are `pad` and whose output is y */
static void row_block(const direct_job *j, int ob, int rb, const float *pad, int64_t gi, int64_t o0,
                      int64_t oh, float *y) {
    const mt_conv_geom *g = j->g;
    int64_t Cbg = g->Cb / g->G, Csg = g->Cs / g->G, K = Cbg * g->kh * g->kw, L = g->Ho * g->Wo;
    const float *rows = pad + oh * g->sh * j->Wp;
    const float *w = j->w + (gi * Csg + o0) * K;
    const float *bias = j->bias ? j->bias + gi * Csg + o0 : NULL;
    float *out[OB_MAX];
    for (int o = 0; o < ob; o++) out[o] = y + (gi * Csg + o0 + o) * L + oh * g->Wo;
    for (int64_t col = 0; col < g->Wo; col += BW) {
        int64_t valid = g->Wo - col < BW ? g->Wo - col : BW;
        switch (ob) { /* constant block sizes, so the accumulators stay in registers */
            BLOCK_CASE(6)
            BLOCK_CASE(5)
            BLOCK_CASE(4)
            BLOCK_CASE(3)
            BLOCK_CASE(2)
            BLOCK_CASE(1)
        }
    }
}

/* samples [n0, n1) (a chunk the threads take in turn), in a padded buffer of the chunk's own
 * (from the pool: reused, zeroed here; the fills rewrite only its interior) */
static void direct_part(void *job, int64_t n0, int64_t n1) {
    direct_job *j = job;
    const mt_conv_geom *g = j->g;
    int64_t Csg = g->Cs / g->G;
    size_t bytes = sizeof(float) * (size_t)j->buf_len;
    float *pad = mt_pool_alloc_aligned(bytes);
    if (!pad) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    memset(pad, 0, bytes);
    for (int64_t n = n0; n < n1; n++)
        for (int64_t gi = 0; gi < g->G; gi++) {
            fill_padded(j, pad, n, gi);
            float *y = j->y + n * g->Cs * g->Ho * g->Wo;
            /* output channels in blocks of at most OB_MAX, as even as they come */
            int64_t nblk = (Csg + OB_MAX - 1) / OB_MAX;
            for (int64_t oh = 0, rb; oh < g->Ho; oh += rb) {
                int64_t left = g->Ho - oh;
                rb = left >= RB ? RB : left >= 2 ? 2 : 1;
                for (int64_t b = 0, o0 = 0; b < nblk; b++) {
                    int ob = (int)((Csg - o0) / (nblk - b));
                    row_block(j, ob, (int)rb, pad, gi, o0, oh, y);
                    o0 += ob;
                }
            }
        }
    mt_pool_free_aligned(pad, bytes);
}

/* threads for a direct routine and their buffers: a padded plane set each, plus `extra` floats
 * each; NULL (and the error set) when out of memory */
static float *part_buffers(const mt_conv_geom *g, int64_t Hp, int64_t Wp, int64_t extra,
                           int *nt_out, int64_t *buf_len) {
    int64_t work = g->N * g->Cs * g->Ho * g->Wo * (g->Cb / g->G) * g->kh * g->kw;
    int nt = mt_threads_for(work / 16);
    if (nt > g->N) nt = (int)g->N;
    if (nt < 1) nt = 1;
    *buf_len = g->Cb / g->G * Hp * Wp;
    float *bufs = calloc((size_t)(nt * (*buf_len + extra)), sizeof(float));
    if (!bufs) mt_error(MT_ERR_MEMORY, "out of memory in convolution");
    *nt_out = nt;
    return bufs;
}

static int direct_forward(const mt_conv_geom *g, const float *x, const float *w, const float *bias,
                          float *y) {
    int64_t Hp = g->H + 2 * g->ph, Wp = g->W + 2 * g->pw;
    int64_t need = (g->Wo + BW - 1) / BW * BW + (g->kw - 1) * g->dw; /* the last block's reach */
    if (Wp < need) Wp = need;
    int64_t work = g->N * g->Cs * g->Ho * g->Wo * (g->Cb / g->G) * g->kh * g->kw;
    int nt = mt_threads_for(work / 16);
    /* samples in about four chunks per thread, taken as threads come free: on these machines
     * one virtual CPU at times runs slower, and an even split waits for it (LeNet's 5x5 layer:
     * the join's polling 8% -> 2.5% of its time, 291-298 -> 234-262 us, under load) */
    int64_t grain = g->N / (4 * (int64_t)nt);
    direct_job j = {g, x, w, bias, y, Hp, Wp, NULL, NULL, g->Cb / g->G * Hp * Wp, 0, 0, 0};
    mt_parallel_dynamic(g->N, grain > 0 ? grain : 1, nt, direct_part, &j);
    return j.failed ? mt_error(MT_ERR_MEMORY, "out of memory in convolution") : 0;
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
    vf acc[WB_O][WB_K];
    for (int o = 0; o < WB_O; o++)
        for (int t = 0; t < WB_K; t++) acc[o][t] = VZERO();
    int64_t full = g->Wo / CD_VW * CD_VW;
    vmask mask = vmask_first(g->Wo - full);
    for (int64_t oh = 0; oh < g->Ho; oh++) {
        const float *x = xr + oh * g->sh * j->Wp, *go = gor + oh * g->Wo;
        for (int64_t col = 0; col < g->Wo; col += CD_VW) {
            vf gv[WB_O];
            if (col < full) {
                for (int o = 0; o < WB_O; o++)
                    if (o < ob) gv[o] = VLOAD(go + o * L + col);
                for (int t = 0; t < WB_K; t++)
                    if (t < nk) {
                        vf xv = VLOAD(x + col + t * g->dw);
                        for (int o = 0; o < WB_O; o++)
                            if (o < ob) acc[o][t] = VFMA(gv[o], xv, acc[o][t]);
                    }
            } else { /* the last columns: lanes past the row load zeros */
                for (int o = 0; o < WB_O; o++)
                    if (o < ob) gv[o] = VMASKLOAD(go + o * L + col, mask);
                for (int t = 0; t < WB_K; t++)
                    if (t < nk) {
                        vf xv = VMASKLOAD(x + col + t * g->dw, mask);
                        for (int o = 0; o < WB_O; o++)
                            if (o < ob) acc[o][t] = VFMA(gv[o], xv, acc[o][t]);
                    }
            }
        }
    }
    for (int o = 0; o < WB_O; o++)
        for (int t = 0; t < WB_K; t++)
            if (o < ob && t < nk) gw[o * K + t] += VHSUM(acc[o][t]);
}

/* blocks of samples [b0, b1), each into its own partial sum */
static void wgrad_part(void *job, int64_t b0, int64_t b1) {
    direct_job *j = job;
    const mt_conv_geom *g = j->g;
    int64_t Cbg = g->Cb / g->G, Csg = g->Cs / g->G, plane = j->Hp * j->Wp, L = g->Ho * g->Wo;
    int64_t khw = g->kh * g->kw, K = Cbg * khw;
    float *pad = j->bufs + b0 / j->chunk * j->buf_len;
    for (int64_t b = b0; b < b1; b++) {
        float *gw = j->gw + b * g->Cs * K;
        for (int64_t n = b * g->N / j->nblk; n < (b + 1) * g->N / j->nblk; n++)
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
}

/* The samples go in a fixed number of blocks whatever the thread count, each block's partial
 * sum summed in order: the result does not depend on the threads. */
#define WGRAD_BLOCKS 16

static int direct_weight(const mt_conv_geom *g, const float *go, const float *x, float *gw) {
    int64_t Hp = g->H + 2 * g->ph, Wp = g->W + 2 * g->pw;
    int64_t need = (g->Wo + CD_VW - 1) / CD_VW * CD_VW + (g->kw - 1) * g->dw; /* a block's reach */
    if (Wp < need) Wp = need;
    int64_t gw_len = g->Cs * (g->Cb / g->G) * g->kh * g->kw, buf_len;
    int64_t nblk = g->N < WGRAD_BLOCKS ? g->N : WGRAD_BLOCKS;
    int nt;
    float *bufs = part_buffers(g, Hp, Wp, 0, &nt, &buf_len);
    if (!bufs) return -1;
    if (nt > nblk) nt = (int)nblk;
    float *parts = calloc((size_t)(nblk * gw_len), sizeof(float));
    if (!parts) {
        free(bufs);
        return mt_error(MT_ERR_MEMORY, "out of memory in convolution");
    }
    direct_job j = {g,  x,     NULL, NULL,    (float *)go,          Hp,
                    Wp, parts, bufs, buf_len, (nblk + nt - 1) / nt, nblk};
    mt_parallel_range(nblk, nt, wgrad_part, &j);
    for (int64_t i = 0; i < gw_len; i++) {
        float s = 0;
        for (int64_t b = 0; b < nblk; b++) s += parts[b * gw_len + i];
        gw[i] = s;
    }
    free(parts);
    free(bufs);
    return 0;
}

const mt_conv_direct CD_TABLE = {direct_forward, direct_weight};
