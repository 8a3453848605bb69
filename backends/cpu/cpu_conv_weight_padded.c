/* cpu_conv_weight_padded.c: the weight gradient of a wide stride-1 convolution (a ResNet block's
 * 3x3 layers) without columns, for CPUs with AVX-512.
 *
 * With the input zero-padded into planes of Hp x Wp and the output's gradient laid out on the
 * same pitch (zeros past its Ho x Wo corner), the column of tap (c, ki, kj) is the padded plane
 * of channel c read from offset ki * dh * Wp + kj * dw, contiguous: the weight gradient is
 * gw += go_pad . cols^T with every row of cols a pointer into the padded input
 * (cpu_gemm_nt_avx512.c's loop over row pointers). Samples are stacked plane after plane, so one
 * product covers several. The columns' copy was 14% of the layer's weight gradient.
 *
 * The pitch adds terms: the output gradient's zeros times input values next to them. They add
 * nothing unless an input value is infinite or NaN (0 * inf is NaN, where the true sum has no
 * such term), so the input is checked first and such inputs take the columns instead. */
#include "cpu_conv_direct.h"
#include "cpu_kernels.h"
#include "mt_parallel.h"
#include "mt_pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* floats of padded planes (input and output gradient) per chunk of samples */
#define CHUNK_FLOATS ((int64_t)1 << 21)

/* stride 1 (the column's reads are the plane's), one group, and rows long enough that the
 * pitch's extra columns (2 * pw per row) add little */
bool mt_cpu_conv_weight_padded_fits(const mt_conv_geom *g) {
    return g->sh == 1 && g->sw == 1 && g->G == 1 && g->Wo >= 16;
}

typedef struct {
    const float *x;
    int64_t n;
    int bad;
} finite_job;

/* an infinity or NaN has every exponent bit set; the integer test vectorises */
static void finite_part(void *job, int64_t b, int64_t e) {
    finite_job *J = job;
    const uint32_t *bits = (const uint32_t *)J->x;
    uint32_t bad = 0;
    for (int64_t i = b; i < e; i++) bad |= (bits[i] & 0x7f800000u) == 0x7f800000u;
    if (bad) __atomic_store_n(&J->bad, 1, __ATOMIC_RELAXED);
}

typedef struct {
    const mt_conv_geom *g;
    const float *x, *go;
    float *xpad, *gop;
    int64_t n0, samples, Q, Wp, plane;
} fill_job;

/* rows are short (a few hundred bytes): an inline loop, where memcpy's call costs as much */
static inline void copy_row(float *restrict d, const float *restrict s, int64_t n) {
    for (int64_t i = 0; i < n; i++) d[i] = s[i];
}

/* channels [c0, c1) of the stacked planes: the input's first, then the output gradient's */
static void fill_part(void *job, int64_t c0, int64_t c1) {
    const fill_job *J = job;
    const mt_conv_geom *g = J->g;
    for (int64_t c = c0; c < c1; c++)
        for (int64_t s = 0; s < J->samples; s++) {
            int64_t n = J->n0 + s;
            if (c < g->Cb) {
                const float *src = J->x + (n * g->Cb + c) * g->H * g->W;
                float *dst = J->xpad + c * J->Q + s * J->plane + g->ph * J->Wp + g->pw;
                for (int64_t h = 0; h < g->H; h++) copy_row(dst + h * J->Wp, src + h * g->W, g->W);
            } else {
                int64_t o = c - g->Cb;
                const float *src = J->go + (n * g->Cs + o) * g->Ho * g->Wo;
                float *dst = J->gop + o * J->Q + s * J->plane;
                for (int64_t h = 0; h < g->Ho; h++)
                    copy_row(dst + h * J->Wp, src + h * g->Wo, g->Wo);
            }
        }
}

int mt_cpu_conv_weight_padded(const mt_conv_geom *g, const float *go, const float *x, float *gw) {
    int64_t nx = g->N * g->Cb * g->H * g->W;
    finite_job fj = {x, nx, 0};
    mt_parallel_range(nx, mt_threads_for(nx), finite_part, &fj);
    if (fj.bad) return 0;

    int64_t Hp = g->H + 2 * g->ph, Wp = g->W + 2 * g->pw, plane = Hp * Wp;
    int64_t reach = (g->kh - 1) * g->dh * Wp + (g->kw - 1) * g->dw;
    int64_t S = CHUNK_FLOATS / ((g->Cb + g->Cs) * plane);
    S = S < 1 ? 1 : S > g->N ? g->N : S;
    int64_t Q = S * plane, K = g->Cb * g->kh * g->kw;
    /* the pool's blocks (reused, where fresh pages cost a fault each), zeroed once: the fills
     * rewrite only the planes' interiors, the rest stays zero */
    size_t nxb = sizeof(float) * (size_t)(g->Cb * Q + reach),
           ngb = sizeof(float) * (size_t)(g->Cs * Q);
    float *xpad = mt_pool_alloc_aligned(nxb), *gop = mt_pool_alloc_aligned(ngb);
    const float **rows = malloc(sizeof(float *) * (size_t)K);
    if (!xpad || !gop || !rows) {
        mt_pool_free_aligned(xpad, nxb);
        mt_pool_free_aligned(gop, ngb);
        free(rows);
        return mt_error(MT_ERR_MEMORY, "out of memory in convolution");
    }
    memset(xpad, 0, nxb);
    memset(gop, 0, ngb);
    for (int64_t c = 0, t = 0; c < g->Cb; c++)
        for (int64_t ki = 0; ki < g->kh; ki++)
            for (int64_t kj = 0; kj < g->kw; kj++, t++)
                rows[t] = xpad + c * Q + ki * g->dh * Wp + kj * g->dw;
    memset(gw, 0, sizeof(float) * (size_t)(g->Cs * K));
    for (int64_t n0 = 0; n0 < g->N; n0 += S) {
        int64_t samples = g->N - n0 < S ? g->N - n0 : S;
        fill_job J = {g, x, go, xpad, gop, n0, samples, Q, Wp, plane};
        mt_parallel_range(g->Cb + g->Cs, mt_threads_for((g->Cb + g->Cs) * samples * plane),
                          fill_part, &J);
        /* the last chunk may hold fewer samples: its reduction stops at their planes */
        mt_cpu_sgemm_nt_rows_avx512(g->Cs, K, samples * plane, gop, Q, rows, gw, K);
    }
    mt_pool_free_aligned(xpad, nxb);
    mt_pool_free_aligned(gop, ngb);
    free(rows);
    return 1;
}
