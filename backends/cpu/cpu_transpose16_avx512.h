/* cpu_transpose16_avx512.h: a 16 x 16 block of floats transposed through AVX-512 registers (four
 * rounds of shuffles), for the files built with -mavx512f: the iterator's staged tiles
 * (cpu_transpose_avx512.c), the matrix product's packing (cpu_gemm_avx512.c) and the element-wise
 * tiles with a transposed input (cpu_ew_tile_avx512.c). */
#ifndef MT_CPU_TRANSPOSE16_AVX512_H
#define MT_CPU_TRANSPOSE16_AVX512_H

#include <immintrin.h>
#include <stdint.h>

/* r[c] = column c of the block whose row k is r[k], in place */
static inline __attribute__((always_inline)) void mt_tr16_regs(__m512 r[16]) {
    __m512 t[16];
    /* pairs of rows interleaved: each 128-bit lane holds 2 rows x 2 columns */
    for (int a = 0; a < 8; a++) {
        t[2 * a] = _mm512_unpacklo_ps(r[2 * a], r[2 * a + 1]);
        t[2 * a + 1] = _mm512_unpackhi_ps(r[2 * a], r[2 * a + 1]);
    }
    /* then pairs of pairs: t[4b + m]'s lane k holds column 4k + m of rows 4b .. 4b + 3 */
    for (int b = 0; b < 4; b++) {
        __m512d lo0 = _mm512_castps_pd(t[4 * b]), hi0 = _mm512_castps_pd(t[4 * b + 1]);
        __m512d lo1 = _mm512_castps_pd(t[4 * b + 2]), hi1 = _mm512_castps_pd(t[4 * b + 3]);
        t[4 * b] = _mm512_castpd_ps(_mm512_unpacklo_pd(lo0, lo1));
        t[4 * b + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(lo0, lo1));
        t[4 * b + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(hi0, hi1));
        t[4 * b + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(hi0, hi1));
    }
    /* a 4 x 4 transpose of 128-bit lanes for each m: column 4k + m gets lane k of t[m],
     * t[4 + m], t[8 + m], t[12 + m] */
    for (int m = 0; m < 4; m++) {
        __m512 v0 = _mm512_shuffle_f32x4(t[m], t[4 + m], 0x88);
        __m512 v1 = _mm512_shuffle_f32x4(t[m], t[4 + m], 0xdd);
        __m512 w0 = _mm512_shuffle_f32x4(t[8 + m], t[12 + m], 0x88);
        __m512 w1 = _mm512_shuffle_f32x4(t[8 + m], t[12 + m], 0xdd);
        r[m] = _mm512_shuffle_f32x4(v0, w0, 0x88);
        r[4 + m] = _mm512_shuffle_f32x4(v1, w1, 0x88);
        r[8 + m] = _mm512_shuffle_f32x4(v0, w0, 0xdd);
        r[12 + m] = _mm512_shuffle_f32x4(v1, w1, 0xdd);
    }
}

/* dst row c (dst + c * dld, lanes of st_mask) = column c of the block whose row r is src + r *
 * sld (lanes of ld_mask), for c < out_rows; rows from `rows` on read as zeros. sld and dld are in
 * floats. */
static inline __attribute__((always_inline)) void mt_tr16(const float *src, int64_t sld, int rows,
                                                          __mmask16 ld_mask, float *dst,
                                                          int64_t dld, int out_rows,
                                                          __mmask16 st_mask) {
    __m512 r[16];
    for (int i = 0; i < 16; i++)
        r[i] = i < rows ? _mm512_maskz_loadu_ps(ld_mask, src + i * sld) : _mm512_setzero_ps();
    mt_tr16_regs(r);
    for (int c = 0; c < out_rows; c++) _mm512_mask_storeu_ps(dst + c * dld, st_mask, r[c]);
}

#endif
