/* cpu_ew_stream_avx512.c: float32 add, sub, mul, div and exp whose result is written with streaming
 * stores (cpu_stream.h), for results of MT_STREAM_MIN_BYTES and more that overlap no input
 * (cpu_ew.c asks mt_iter_output_streamable). AVX-512F only; the Makefile builds this file with
 * -mavx512f.
 *
 * Why loops of their own: streaming stores pay only issued beside the loads and arithmetic
 * that produce them. The generic loops (plain C the compiler vectorises) cannot issue them, and
 * writing their results into an L1 buffer first and streaming that after lost (cpu_stream.h).
 * In a C loop over 10M float32 on this project's machines, 2 threads: a + b 66-96 GB/s with
 * ordinary stores, 92-105 with streaming ones. exp gained with them only once its polynomial
 * lost a degree (cpu_exp16_avx512.h: 91-101 GB/s ordinary, 105-116 streamed, copy 119-127;
 * the degree-7 one was bound by its arithmetic, 86-98 both ways).
 *
 * Each value is the generic loop's: the same operation in float, alpha folded with one fused
 * multiply-add as EW_FMA does (fmaf in the scalar head and tail, vfmadd in the body). */
#include "cpu_ew_families.h"
#include "cpu_exp16_avx512.h"
#include "cpu_ew_loops.h"
#include "cpu_kernels.h"
#include "elementwise.h"

#include <immintrin.h>
#include <math.h>
#include <stdint.h>

/* STREAM_LOOP(name, VEXPR, SEXPR): VEXPR of __m512 a, b and p (alpha), SEXPR of float a, b, p */
#define STREAM_LOOP(NAME, VEXPR, SEXPR)                                                            \
    static void NAME(char **dp, const int64_t *st, int64_t n, void *vctx) {                        \
        ew_ctx *ctx = vctx;                                                                        \
        const float ps = (float)ctx->d[0];                                                         \
        const __m512 p = _mm512_set1_ps(ps);                                                       \
        (void)p;                                                                                   \
        float *o = (float *)dp[0];                                                                 \
        const char *x = dp[1], *y = dp[2];                                                         \
        const int64_t sx = st[1], sy = st[2];                                                      \
        if (st[0] != 4 || (sx != 4 && sx != 0) || (sy != 4 && sy != 0)) {                          \
            for (int64_t i = 0; i < n; i++) {                                                      \
                float a = *(const float *)(x + i * sx), b = *(const float *)(y + i * sy);          \
                *(float *)((char *)o + i * st[0]) = SEXPR;                                         \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        /* ordinary stores up to the first 64-byte line of the result, streaming ones after */     \
        int64_t head = (int64_t)(((64 - ((uintptr_t)o & 63)) & 63) / 4), i = 0;                    \
        if (head > n) head = n;                                                                    \
        for (; i < head; i++) {                                                                    \
            float a = *(const float *)(x + i * sx), b = *(const float *)(y + i * sy);              \
            o[i] = SEXPR;                                                                          \
        }                                                                                          \
        const int64_t vx = sx / 4, vy = sy / 4; /* 1: a row, 0: one value */                       \
        const float *xf = (const float *)x, *yf = (const float *)y;                                \
        const __m512 ax = _mm512_set1_ps(xf[0]), by = _mm512_set1_ps(yf[0]);                       \
        for (; i + 16 <= n; i += 16) {                                                             \
            __m512 a = vx ? _mm512_loadu_ps(xf + i) : ax;                                          \
            __m512 b = vy ? _mm512_loadu_ps(yf + i) : by;                                          \
            _mm512_stream_ps(o + i, VEXPR);                                                        \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            float a = xf[i * vx], b = yf[i * vy];                                                  \
            o[i] = SEXPR;                                                                          \
        }                                                                                          \
        _mm_sfence(); /* the stores are weakly ordered: before the threads join */                 \
    }

STREAM_LOOP(stream_add, _mm512_add_ps(a, b), a + b)
STREAM_LOOP(stream_add_alpha, _mm512_fmadd_ps(b, p, a), fmaf(b, ps, a))
STREAM_LOOP(stream_sub, _mm512_sub_ps(a, b), a - b)
STREAM_LOOP(stream_sub_alpha, _mm512_fmadd_ps(b, -p, a), fmaf(b, -ps, a))
STREAM_LOOP(stream_mul, _mm512_mul_ps(a, b), a *b)
STREAM_LOOP(stream_div, _mm512_div_ps(a, b), a / b)

/* exp: the head up to the first 64-byte line and the tail through masked lanes of the same
 * vector code, so every element has the value cpu_exp_avx512.c gives it */
static void stream_exp(char **dp, const int64_t *st, int64_t n, void *vctx) {
    if (st[0] != 4 || st[1] != 4) {
        mt_cpu_exp_f32_avx512(dp, st, n, vctx);
        return;
    }
    float *o = (float *)dp[0];
    const float *a = (const float *)dp[1];
    int64_t head = (int64_t)(((64 - ((uintptr_t)o & 63)) & 63) / 4), i = 0;
    if (head > n) head = n;
    if (head) {
        __mmask16 m = (__mmask16)((1u << head) - 1);
        _mm512_mask_storeu_ps(o, m, mt_exp16_f32(_mm512_maskz_loadu_ps(m, a)));
        i = head;
    }
    for (; i + 16 <= n; i += 16) _mm512_stream_ps(o + i, mt_exp16_f32(_mm512_loadu_ps(a + i)));
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(o + i, m, mt_exp16_f32(_mm512_maskz_loadu_ps(m, a + i)));
    }
    _mm_sfence();
}

mt_loop_fn mt_cpu_ew_stream_f32(int fam) {
    switch (fam) {
    case MT_F_ADD:
        return stream_add;
    case MT_CPU_EW_ADD_ALPHA:
        return stream_add_alpha;
    case MT_F_SUB:
        return stream_sub;
    case MT_CPU_EW_SUB_ALPHA:
        return stream_sub_alpha;
    case MT_F_MUL:
        return stream_mul;
    case MT_F_DIV:
        return stream_div;
    case MT_F_EXP:
        return stream_exp;
    default:
        return NULL;
    }
}
