/* cpu_reduce_rows_avx512.c: float32 sums and means of many short rows, 16 rows at a time, for
 * CPUs with AVX-512F (the Makefile builds this file with -mavx512f).
 *
 * One row at a time (cpu_reduce_loops.c's sum_f32 through reduce_row), a row of a few dozen values
 * costs a call, a few vector adds, eight lanes added one by one and a scalar tail: a global
 * average pooling (the mean of each 7 x 7 plane of 32 x 512 planes) ran at 30 GB/s. Here 16 rows
 * are transposed through registers (cpu_transpose16_avx512.h) so that lane r of every vector
 * belongs to row r, and each row's sum is formed exactly as sum_f32 forms it for a row of at
 * most MT_SUM_BLOCK values: its 32 partials (value i of each 32 into partial i mod 32), the
 * partials added as ((p[j] + p[8 + j]) + (p[16 + j] + p[24 + j])) and those eight one by one
 * onto 0, then the values past the last whole 32 one by one; the float sum is added to a double
 * 0, and a mean divides that by the row's length in double and rounds to float. The same
 * operations in the same order, so the same values. */
#include "cpu_kernels.h"
#include "cpu_reduce_loops.h"
#include "cpu_transpose16_avx512.h"

#include <immintrin.h>

/* the 16 rows' values [k0, k0 + w) as columns: col[c] lane r = x[r * ld + k0 + c] */
static inline __attribute__((always_inline)) void columns(const float *x, int64_t ld, int64_t k0,
                                                          int w, __m512 col[16]) {
    __mmask16 m = (__mmask16)((1u << w) - 1);
    for (int r = 0; r < 16; r++)
        col[r] =
            w == 16 ? _mm512_loadu_ps(x + r * ld + k0) : _mm512_maskz_loadu_ps(m, x + r * ld + k0);
    mt_tr16_regs(col);
}

void mt_cpu_sum_rows16_f32(const float *x, int64_t ld, int64_t n, bool mean, float *out) {
    __m512 p[32], col[16];
    for (int m = 0; m < 32; m++) p[m] = _mm512_setzero_ps();
    int64_t whole = n / 32 * 32;
    for (int64_t k0 = 0; k0 < whole; k0 += 16) {
        columns(x, ld, k0, 16, col);
        __m512 *q = p + (k0 % 32);
        for (int c = 0; c < 16; c++) q[c] = _mm512_add_ps(q[c], col[c]);
    }
    __m512 s = _mm512_setzero_ps();
    for (int j = 0; j < 8; j++)
        s = _mm512_add_ps(
            s, _mm512_add_ps(_mm512_add_ps(p[j], p[8 + j]), _mm512_add_ps(p[16 + j], p[24 + j])));
    for (int64_t k0 = whole; k0 < n; k0 += 16) {
        int w = n - k0 < 16 ? (int)(n - k0) : 16;
        columns(x, ld, k0, w, col);
        for (int c = 0; c < w; c++) s = _mm512_add_ps(s, col[c]);
    }
    if (!mean) { /* the double total holds the float sum exactly */
        _mm512_storeu_ps(out, s);
        return;
    }
    const __m512d zero = _mm512_setzero_pd(), count = _mm512_set1_pd((double)n);
    __m512d lo = _mm512_add_pd(zero, _mm512_cvtps_pd(_mm512_castps512_ps256(s)));
    __m512d hi = _mm512_add_pd(
        zero, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(s), 1))));
    _mm256_storeu_ps(out, _mm512_cvtpd_ps(_mm512_div_pd(lo, count)));
    _mm256_storeu_ps(out + 8, _mm512_cvtpd_ps(_mm512_div_pd(hi, count)));
}
