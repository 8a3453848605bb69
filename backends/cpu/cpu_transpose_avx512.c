/* cpu_transpose_avx512.c: a tile of 4-byte elements transposed with AVX-512, for the iterator's
 * transposed operands (cpu_iter.c): 16 x 16 blocks through registers (four rounds of shuffles),
 * the tile's ragged edges one element at a time. */
#include "cpu_kernels.h"

#include <immintrin.h>
#include <string.h>

/* dst row c (16 floats, dst + c * dld) = column c of the 16 x 16 block at src (rows sld apart);
 * sld and dld in floats */
static inline void block16(const float *src, int64_t sld, float *dst, int64_t dld) {
    __m512 r[16], t[16];
    for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_ps(src + i * sld);
    /* pairs of rows interleaved: each 128-bit lane holds 2 rows x 2 columns */
    for (int a = 0; a < 8; a++) {
        t[2 * a] = _mm512_unpacklo_ps(r[2 * a], r[2 * a + 1]);
        t[2 * a + 1] = _mm512_unpackhi_ps(r[2 * a], r[2 * a + 1]);
    }
    /* then pairs of pairs: r[4b + m]'s lane k holds column 4k + m of rows 4b .. 4b + 3 */
    for (int b = 0; b < 4; b++) {
        __m512d lo0 = _mm512_castps_pd(t[4 * b]), hi0 = _mm512_castps_pd(t[4 * b + 1]);
        __m512d lo1 = _mm512_castps_pd(t[4 * b + 2]), hi1 = _mm512_castps_pd(t[4 * b + 3]);
        r[4 * b] = _mm512_castpd_ps(_mm512_unpacklo_pd(lo0, lo1));
        r[4 * b + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(lo0, lo1));
        r[4 * b + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(hi0, hi1));
        r[4 * b + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(hi0, hi1));
    }
    /* a 4 x 4 transpose of 128-bit lanes for each m: column 4k + m gets lane k of r[m],
     * r[4 + m], r[8 + m], r[12 + m] */
    for (int m = 0; m < 4; m++) {
        __m512 v0 = _mm512_shuffle_f32x4(r[m], r[4 + m], 0x88);
        __m512 v1 = _mm512_shuffle_f32x4(r[m], r[4 + m], 0xdd);
        __m512 w0 = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0x88);
        __m512 w1 = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0xdd);
        _mm512_storeu_ps(dst + m * dld, _mm512_shuffle_f32x4(v0, w0, 0x88));
        _mm512_storeu_ps(dst + (4 + m) * dld, _mm512_shuffle_f32x4(v1, w1, 0x88));
        _mm512_storeu_ps(dst + (8 + m) * dld, _mm512_shuffle_f32x4(v0, w0, 0xdd));
        _mm512_storeu_ps(dst + (12 + m) * dld, _mm512_shuffle_f32x4(v1, w1, 0xdd));
    }
}

void mt_cpu_transpose4_avx512(const char *src, int64_t s0, int64_t rows, int64_t cols, char *dst,
                              int64_t dld) {
    int64_t full_r = rows / 16 * 16, full_c = cols / 16 * 16;
    /* whole blocks need the row step as a whole number of floats (a 4-byte element's view) */
    if (s0 % 4 != 0) full_r = full_c = 0;
    for (int64_t i = 0; i < full_r; i += 16)
        for (int64_t j = 0; j < full_c; j += 16)
            block16((const float *)(src + i * s0) + j, s0 / 4, (float *)(dst + j * dld) + i,
                    dld / 4);
    /* the edges: rows past the last whole block, then columns past it for the block rows */
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = i < full_r ? full_c : 0; j < cols; j++)
            memcpy(dst + j * dld + i * 4, src + i * s0 + j * 4, 4);
}
