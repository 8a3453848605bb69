/* cpu_exp_avx512.c: exp of float32, 16 lanes at a time with AVX-512F, the element-wise EXP
 * family's float32 loop on CPUs that have it (cpu_ew.c).
 *
 * Why: with libmvec's 8-lane expf exp of 10M float32 on 2 threads ran at 0.76 of the copy
 * bandwidth, compute-bound; this one is memory-bound. The method is the textbook one (as
 * Cephes' and Sleef's): x = n ln2 + r with n = round(x / ln2) and ln2 split in a part exact in
 * n * ln2_hi and a correction (Cody and Waite), e^r by its Taylor series to r^7 on
 * |r| <= ln2 / 2 (truncation under 0.1 ulp), and 2^n applied by vscalefps, which rounds
 * overflow to infinity and underflow to the subnormals or zero itself. Every lane, strided
 * elements too, goes through the same vector code, so a result does not depend on layout. */
#include "cpu_kernels.h"

#include <immintrin.h>

static inline __m512 exp16(__m512 x) {
    /* clamped so that n stays finite (infinities included); NaN passes (max/min return their
     * second operand when one is NaN) */
    x = _mm512_min_ps(_mm512_set1_ps(100.0f), _mm512_max_ps(_mm512_set1_ps(-110.0f), x));
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.0f / 5040);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, n);
}

/* the loop of mt_loop_fn: data[0] the result, data[1] the input, both float32 */
void mt_cpu_exp_f32_avx512(char **data, const int64_t *strides, int64_t n, void *ctx) {
    (void)ctx;
    if (strides[0] == 4 && strides[1] == 4) {
        float *o = (float *)data[0];
        const float *a = (const float *)data[1];
        int64_t i = 0;
        for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, exp16(_mm512_loadu_ps(a + i)));
        if (i < n) {
            __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
            _mm512_mask_storeu_ps(o + i, m, exp16(_mm512_maskz_loadu_ps(m, a + i)));
        }
        return;
    }
    for (int64_t i = 0; i < n; i += 16) { /* strided: 16 gathered, computed, scattered */
        float t[16] = {0};
        int k = n - i < 16 ? (int)(n - i) : 16;
        for (int j = 0; j < k; j++) t[j] = *(const float *)(data[1] + (i + j) * strides[1]);
        _mm512_storeu_ps(t, exp16(_mm512_loadu_ps(t)));
        for (int j = 0; j < k; j++) *(float *)(data[0] + (i + j) * strides[0]) = t[j];
    }
}
