/* cpu_cast_stream_avx512.c: conversions between float32 and int32 or float64 whose result is
 * written with streaming stores (cpu_stream.h), for results of MT_STREAM_MIN_BYTES and more that
 * overlap their source (cpu_copy.c asks mt_iter_output_streamable). AVX-512F; the Makefile
 * builds this file with -mavx512f.
 *
 * Why: the ordinary conversion loops are plain C built for any x86-64, and their stores read
 * each line before writing it. Converting 10M float32 to int32 on 2 threads ran at 53-71 GB/s
 * (PyTorch 85-103, a copy 117-130).
 *
 * Each value is the ordinary loop's (cpu_copy.c, C's conversions through cpu_types.h): int32 and
 * float64 to float32 round to nearest as vcvtdq2ps and vcvtpd2ps do in the default rounding
 * mode, float32 to float64 is exact, float32 to int32 truncates where the value lies in int32's
 * range (vcvttps2dq). Sixteen values that do not (NaN, infinities, beyond +-2^31) are left to
 * the ordinary loop, as are a row's unaligned head and its tail and strided rows. */
#include "cpu_kernels.h"

#include <immintrin.h>
#include <stdint.h>

/* n elements of a contiguous row from (o, a) on through the ordinary loop */
static void plain_part(const mt_cpu_cast_ctx *c, char *o, const char *a, const int64_t *st,
                       int64_t n) {
    char *p[2] = {o, (char *)a};
    if (n > 0) c->plain(p, st, n, NULL);
}

/* CAST_LOOP(name, DT, ST, per 16 elements: BODY storing through `o + i` from `a + i`) */
#define CAST_LOOP(NAME, DT, ST, BODY)                                                              \
    static void NAME(char **dp, const int64_t *st, int64_t n, void *vctx) {                        \
        const mt_cpu_cast_ctx *c = vctx;                                                           \
        if (st[0] != (int64_t)sizeof(DT) || st[1] != (int64_t)sizeof(ST)) {                        \
            c->plain(dp, st, n, NULL);                                                             \
            return;                                                                                \
        }                                                                                          \
        DT *o = (DT *)dp[0];                                                                       \
        const ST *a = (const ST *)dp[1];                                                           \
        /* ordinary stores up to the first 64-byte line of the result, streaming ones after */     \
        int64_t head = (int64_t)(((64 - ((uintptr_t)o & 63)) & 63) / sizeof(DT)), i;               \
        if (head > n) head = n;                                                                    \
        plain_part(c, (char *)o, (const char *)a, st, head);                                       \
        for (i = head; i + 16 <= n; i += 16) {                                                     \
            BODY                                                                                   \
        }                                                                                          \
        plain_part(c, (char *)(o + i), (const char *)(a + i), st, n - i);                          \
        _mm_sfence(); /* the stores are weakly ordered: before the threads join */                 \
    }

CAST_LOOP(stream_i32_f32, int32_t, float, {
    __m512 v = _mm512_loadu_ps(a + i);
    __mmask16 in = _mm512_cmp_ps_mask(v, _mm512_set1_ps(-2147483648.0f), _CMP_GE_OQ) &
                   _mm512_cmp_ps_mask(v, _mm512_set1_ps(2147483648.0f), _CMP_LT_OQ);
    if (in == 0xFFFF)
        _mm512_stream_si512((__m512i *)(o + i), _mm512_cvttps_epi32(v));
    else
        plain_part(c, (char *)(o + i), (const char *)(a + i), st, 16);
})
CAST_LOOP(stream_f32_i32, float, int32_t,
          { _mm512_stream_ps(o + i, _mm512_cvtepi32_ps(_mm512_loadu_si512(a + i))); })
CAST_LOOP(stream_f64_f32, double, float, {
    _mm512_stream_pd(o + i, _mm512_cvtps_pd(_mm256_loadu_ps(a + i)));
    _mm512_stream_pd(o + i + 8, _mm512_cvtps_pd(_mm256_loadu_ps(a + i + 8)));
})
CAST_LOOP(stream_f32_f64, float, double, {
    __m256 lo = _mm512_cvtpd_ps(_mm512_loadu_pd(a + i));
    __m256 hi = _mm512_cvtpd_ps(_mm512_loadu_pd(a + i + 8));
    __m512d both =
        _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(lo)), _mm256_castps_pd(hi), 1);
    _mm512_stream_ps(o + i, _mm512_castpd_ps(both));
})

mt_loop_fn mt_cpu_cast_stream(mt_dtype dst, mt_dtype src) {
    if (dst == MT_INT32 && src == MT_FLOAT32) return stream_i32_f32;
    if (dst == MT_FLOAT32 && src == MT_INT32) return stream_f32_i32;
    if (dst == MT_FLOAT64 && src == MT_FLOAT32) return stream_f64_f32;
    if (dst == MT_FLOAT32 && src == MT_FLOAT64) return stream_f32_f64;
    return NULL;
}
