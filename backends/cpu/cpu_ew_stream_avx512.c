/* cpu_ew_stream_avx512.c: float32 add, sub, mul and div whose result is written with streaming
 * stores (cpu_stream.h), for results of MT_STREAM_MIN_BYTES and more that overlap no input
 * (cpu_ew.c asks mt_iter_output_streamable). AVX-512F only; the Makefile builds this file with
 * -mavx512f.
 *
 * Why loops of their own: streaming stores pay only issued beside the loads and arithmetic
 * that produce them. The generic loops (plain C the compiler vectorises) cannot issue them, and
 * writing their results into an L1 buffer first and streaming that after lost (cpu_stream.h).
 * In a C loop over 10M float32 on this project's machines, 2 threads: a + b 66-96 GB/s with
 * ordinary stores, 92-105 with streaming ones; exp gained nothing (86-98 both: it is bound by
 * its arithmetic), so only these families have a streaming loop.
 *
 * Each value is the generic loop's: the same operation in float, alpha folded with one fused
 * multiply-add as EW_FMA does (fmaf in the scalar head and tail, vfmadd in the body). */
#include "cpu_ew_families.h"
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
    default:
        return NULL;
    }
}
