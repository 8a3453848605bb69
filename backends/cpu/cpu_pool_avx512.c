/* cpu_pool_avx512.c: float32 max pooling with 2 x 2 windows at stride 2 (LeNet's and VGG's
 * MaxPool2d(2)), 16 outputs at a time, for CPUs with AVX-512F; the Makefile builds this file with
 * -mavx512f. Other windows take cpu_pool.c's loop.
 *
 * Each output row reads two input rows; 32 input columns load as two vectors and split into
 * their even and odd columns, the four taps of 16 windows. The taps are taken in the scalar
 * loop's order (row by row, left to right) with its rule: a tap replaces the maximum when it is
 * greater or NaN, so ties keep the first tap and the last NaN wins, as PyTorch's kernel. */
#include "cpu_kernels.h"
#include "nn_shapes.h"

#include <immintrin.h>
#include <stdint.h>

bool mt_cpu_max_pool_2x2_fits(const mt_pool_geom *g) {
    return g->kh == 2 && g->kw == 2 && g->sh == 2 && g->sw == 2 && g->ph == 0 && g->pw == 0 &&
           g->dh == 1 && g->dw == 1 && 2 * g->Ho <= g->H && 2 * g->Wo <= g->W &&
           g->H * g->W <= INT32_MAX; /* a plane's indices in int32 lanes */
}

/* tap k of the window (its row k / 2, column k % 2) replaces the maximum where take */
static inline void take(__m512 v, int k, __m512 *best, __m512i *which) {
    __mmask16 t = _mm512_cmp_ps_mask(v, *best, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    *best = _mm512_mask_mov_ps(*best, t, v);
    *which = _mm512_mask_mov_epi32(*which, t, _mm512_set1_epi32(k));
}

void mt_cpu_max_pool_2x2_f32(const mt_pool_geom *g, const float *in, float *out, int64_t *idx,
                             int64_t p0, int64_t p1) {
    const __m512i even =
        _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const int64_t W = g->W;
    /* a tap's offset from its window's first element: 0, 1, W, W + 1 */
    const __m512i tap_offset =
        _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (int)W + 1, (int)W, 1, 0);
    for (int64_t p = p0; p < p1; p++) {
        const float *x = in + p * g->H * W;
        float *o = out + p * g->Ho * g->Wo;
        int64_t *oi = idx + p * g->Ho * g->Wo;
        for (int64_t oh = 0; oh < g->Ho; oh++) {
            const float *r0 = x + 2 * oh * W, *r1 = r0 + W;
            for (int64_t ow = 0; ow < g->Wo; ow += 16) {
                int64_t n = g->Wo - ow < 16 ? g->Wo - ow : 16; /* outputs in this step */
                /* the 2n input columns from 2 * ow: lanes of the two loads */
                int64_t cols = 2 * n;
                __mmask16 mlo = (__mmask16)(cols >= 16 ? 0xFFFF : (1u << cols) - 1);
                __mmask16 mhi = (__mmask16)(cols <= 16 ? 0 : (1u << (cols - 16)) - 1);
                __m512 a_lo = _mm512_maskz_loadu_ps(mlo, r0 + 2 * ow),
                       a_hi = _mm512_maskz_loadu_ps(mhi, r0 + 2 * ow + 16);
                __m512 b_lo = _mm512_maskz_loadu_ps(mlo, r1 + 2 * ow),
                       b_hi = _mm512_maskz_loadu_ps(mhi, r1 + 2 * ow + 16);
                __m512 best = _mm512_permutex2var_ps(a_lo, even, a_hi);
                __m512i which = _mm512_setzero_si512();
                take(_mm512_permutex2var_ps(a_lo, odd, a_hi), 1, &best, &which);
                take(_mm512_permutex2var_ps(b_lo, even, b_hi), 2, &best, &which);
                take(_mm512_permutex2var_ps(b_lo, odd, b_hi), 3, &best, &which);
                __mmask16 m = (__mmask16)((1u << n) - 1);
                _mm512_mask_storeu_ps(o + oh * g->Wo + ow, m, best);
                /* the input index of each maximum: its window's first element plus the tap's
                 * offset, in int64 (plane indices; PyTorch's are int64 too) */
                __m512i first =
                    _mm512_add_epi32(_mm512_set1_epi32((int)(2 * oh * W + 2 * ow)), even);
                __m512i at = _mm512_add_epi32(first, _mm512_permutexvar_epi32(which, tap_offset));
                int64_t *dst = oi + oh * g->Wo + ow;
                _mm512_mask_storeu_epi64(dst, (__mmask8)m,
                                         _mm512_cvtepi32_epi64(_mm512_castsi512_si256(at)));
                _mm512_mask_storeu_epi64(dst + 8, (__mmask8)(m >> 8),
                                         _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(at, 1)));
            }
        }
    }
}
