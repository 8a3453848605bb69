/* cpu_exp16_avx512.h: exp of 16 float32 lanes with AVX-512F, for the files built with
 * -mavx512f: the EXP family's loop (cpu_exp_avx512.c) and its streaming-store loop
 * (cpu_ew_stream_avx512.c), so both give each element the same value.
 *
 * The method is the textbook one (as Cephes' and Sleef's): x = n ln2 + r with n = round(x /
 * ln2) and ln2 split in a part exact in n * ln2_hi and a correction (Cody and Waite), e^r by a
 * polynomial of degree 6 on |r| <= ln2 / 2, and 2^n applied by vscalefps, which rounds overflow
 * to infinity and underflow to the subnormals or zero itself.
 *
 * The coefficients of r^2 .. r^6 (those of 1 and r are 1) come near the polynomial with the
 * smallest largest relative error over the interval: a weighted least-squares fit iterated
 * towards it, the top coefficient rounded to float, the others fitted again, and so down (3.9e-9;
 * rounding all five at once gave 1.7e-8, and 1.04 ulp at worst). The Taylor series needs degree
 * 7 for that accuracy, and the multiply-add saved matters: exp of 10M float32 is bound by its
 * arithmetic, and with this polynomial and streaming stores it runs at 0.88-0.92 of the copy
 * bandwidth in a C loop (the degree-7 series with streaming stores: 0.78-0.87). Largest error
 * over every 7th float in [-110, 100] against exp in double: 0.88 ulp (the series: 0.93). */
#ifndef MT_CPU_EXP16_AVX512_H
#define MT_CPU_EXP16_AVX512_H

#include <immintrin.h>

static inline __attribute__((always_inline)) __m512 mt_exp16_f32(__m512 x) {
    /* clamped so that n stays finite (infinities included); NaN passes (max/min return their
     * second operand when one is NaN) */
    x = _mm512_min_ps(_mm512_set1_ps(100.0f), _mm512_max_ps(_mm512_set1_ps(-110.0f), x));
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.375313383e-03f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.369066752e-03f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.166932032e-02f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.666651815e-01f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.999999106e-01f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, n);
}

#endif
