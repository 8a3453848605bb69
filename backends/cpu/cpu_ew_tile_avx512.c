/* cpu_ew_tile_avx512.c: float32 add, sub, mul and div, and copies of 4-byte elements, over the
 * tiles of an iteration with a transposed input (mt_iter_run_tiles), the transpose fused into
 * the loop and the result written with streaming stores (cpu_stream.h). AVX-512F only; the Makefile
 * builds this file with -mavx512f.
 *
 * Otherwise the tiled iteration stages each tile of the transposed input into a buffer and runs
 * the ordinary row loop over it (cpu_iter.c), whose stores read every line of the result first.
 * Here each 16 x 16 block of the transposed input goes through registers
 * (cpu_transpose16_avx512.h) straight into the arithmetic, and every whole 64-byte line of the
 * result is streamed: a result column that starts mid-line takes its values shifted by its
 * offset into the line (one permute of the block before and the block after), so its lines are
 * whole too. Inputs are asked for ahead of the loop, the transposed one PREFETCH_ROWS rows on
 * (it is read one 64-byte piece per row, which the hardware prefetchers do not follow; both
 * lines of a piece that straddles two), the others PREFETCH_ALONG (16 columns' streams at once
 * are too many for them to follow in time). The iterator hands over strips of 16 columns by
 * the whole inner dim (cpu_iter.c): nothing is kept for later, so a tile's height buys nothing.
 *
 * Measured in a C harness on bench/ops' transposed add (10M float32, inner dim 1000, 2 threads,
 * this project's machines; GB/s as bytes read + written): staged with ordinary stores 44-53;
 * fused and streamed 37-49; with the transposed input asked for ahead 57-67; with the other
 * input too 62-65, against a copy of 58-84 in the same minutes. Each prefetch alone was worth
 * 10-25%; distances of 32 to 128 rows read the same. This kernel and a loop written for that one
 * shape (bench/machine.c, `transposed_add_10M`), alternating in one process: 59-65 and 57-68.
 * In the library, 10M float32 `a:t() + b` by inner dim, against the staged loop, alternating:
 * 500: 70-73 / 53-58, 800: 82-83 / 57, 1000: 88 / 63-64, 1600: 84-85 / 55-58, 2000: 86-90 /
 * 58, 4000: 71-72 / 43-44, 10000: 48-49 / 42-45 (rows not on lines, 800 to 2000, ran at 27-30
 * before the second prefetch; inner dims past 2048, at 36-39 in 128 x 128 tiles).
 *
 * Each value is the generic loop's: the same operation in float, alpha folded with one fused
 * multiply-add (cpu_ew_stream_avx512.c). */
#include "cpu_ew_families.h"
#include "cpu_ew_loops.h"
#include "cpu_kernels.h"
#include "cpu_transpose16_avx512.h"
#include "elementwise.h"

#include <immintrin.h>
#include <stdint.h>

/* rows of a transposed input asked for ahead of the block being worked, and of an input read
 * along the result's columns */
#define PREFETCH_ROWS 64
#define PREFETCH_ALONG 32

enum { OP_ADD, OP_ADD_ALPHA, OP_SUB, OP_SUB_ALPHA, OP_MUL, OP_DIV, OP_COPY /* one input */ };

static inline __attribute__((always_inline)) __m512 apply(int op, __m512 a, __m512 b, __m512 p) {
    switch (op) {
    case OP_ADD:
        return _mm512_add_ps(a, b);
    case OP_ADD_ALPHA:
    case OP_SUB_ALPHA: /* p is -alpha */
        return _mm512_fmadd_ps(b, p, a);
    case OP_SUB:
        return _mm512_sub_ps(a, b);
    case OP_MUL:
        return _mm512_mul_ps(a, b);
    case OP_DIV:
        return _mm512_div_ps(a, b);
    default: /* a copy: the bits moved, whatever the 4-byte type */
        return a;
    }
}

/* cur[c] = rows [i, i + 16) of column c of an input read across the result's columns (the 16
 * columns from the row at p, row step s0 bytes; those of wmask), transposed; rows from n on read
 * as zeros. The rows PREFETCH_ROWS further on are asked for, each row's second line only when
 * rows are not on lines (on_lines). Whole blocks load without masks or row checks: with the
 * single prefetch, 5% faster on bench/ops' transposed add (6 of 6 alternating pairs, 10M). */
static inline __attribute__((always_inline)) void load_block(const char *p, int64_t s0, int64_t i,
                                                             int64_t n, __mmask16 wmask,
                                                             bool on_lines, __m512 cur[16]) {
    if (i + PREFETCH_ROWS + 16 <= n)
        for (int k = 0; k < 16; k++) {
            /* both lines of a row's 64 bytes when they straddle two (rows not on lines) */
            _mm_prefetch(p + (PREFETCH_ROWS + k) * s0, _MM_HINT_T0);
            if (!on_lines) _mm_prefetch(p + (PREFETCH_ROWS + k) * s0 + 60, _MM_HINT_T0);
        }
    if (i + 16 <= n && wmask == 0xFFFF) /* a whole block: no lane or row cut */
        for (int k = 0; k < 16; k++) cur[k] = _mm512_loadu_ps(p + k * s0);
    else
        for (int k = 0; k < 16; k++)
            cur[k] = i + k < n ? _mm512_maskz_loadu_ps(wmask, p + k * s0) : _mm512_setzero_ps();
    mt_tr16_regs(cur);
}

/* lanes of a 16-row chunk from row r0 that fall in [0, n) */
static inline __mmask16 rows_in(int64_t r0, int64_t n) {
    int64_t lo = r0 < 0 ? -r0 : 0, hi = n - r0 < 16 ? n - r0 : 16;
    return lo >= hi ? 0 : (__mmask16)(((1u << hi) - 1) & ~((1u << lo) - 1));
}

/* The strip of up to 16 result columns from jb; input x (y) read across them when xa (ya); a
 * copy has no y.
 * Block i of rows completes, for column c, the chunk of rows [i - 16 + shift, i + shift): a
 * whole line of the result when it lies in [0, n), streamed; part of one at the ends. */
static inline __attribute__((always_inline)) void strip(int op, bool xa, bool ya, char **data,
                                                        const int64_t *s0, const int64_t *s1,
                                                        int64_t n, int64_t jb, int w, __m512 p) {
    const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __mmask16 wmask = (__mmask16)((1u << w) - 1);
    float *out[16];
    const float *xs[16], *ys[16];
    int shift[16]; /* rows from each result column's start to its first whole line */
    __m512i idx[16];
    for (int c = 0; c < w; c++) {
        out[c] = (float *)(data[0] + (jb + c) * s1[0]);
        xs[c] = (const float *)(data[1] + (jb + c) * s1[1]);
        ys[c] = op == OP_COPY ? NULL : (const float *)(data[2] + (jb + c) * s1[2]);
        shift[c] = (int)(((64 - ((uintptr_t)out[c] & 63)) & 63) / 4);
        idx[c] = _mm512_add_epi32(lane, _mm512_set1_epi32(shift[c]));
    }
    const char *xb = data[1] + jb * s1[1], *yb = op == OP_COPY ? NULL : data[2] + jb * s1[2];
    /* rows whose 64 bytes lie on one line each: one prefetch per row */
    bool x_lines = s0[1] % 64 == 0 && (uintptr_t)xb % 64 == 0;
    bool y_lines = yb && s0[2] % 64 == 0 && (uintptr_t)yb % 64 == 0;
    __m512 xp[16], xc[16], yp[16], yc[16];
    for (int c = 0; c < 16; c++) xc[c] = yc[c] = _mm512_setzero_ps();
    /* blocks whose every chunk is whole and whose rows all exist: no masks, no branches */
    int64_t steady_end = w == 16 ? n - 15 : 0;
    for (int64_t i = 0; i < n + 16; i += 16) {
        if (xa) {
            for (int c = 0; c < 16; c++) xp[c] = xc[c];
            load_block(xb + i * s0[1], s0[1], i, n, wmask, x_lines, xc);
        }
        if (ya) {
            for (int c = 0; c < 16; c++) yp[c] = yc[c];
            load_block(yb + i * s0[2], s0[2], i, n, wmask, y_lines, yc);
        }
        if (i >= 16 && i < steady_end) {
            /* the inputs read along the columns are asked for PREFETCH_ALONG rows ahead: the
             * hardware follows 16 columns' worth of streams too late */
            if (i + PREFETCH_ALONG + 16 <= n)
                for (int c = 0; c < 16; c++) {
                    if (!xa) _mm_prefetch((const char *)(xs[c] + i + PREFETCH_ALONG), _MM_HINT_T0);
                    if (!ya && op != OP_COPY)
                        _mm_prefetch((const char *)(ys[c] + i + PREFETCH_ALONG), _MM_HINT_T0);
                }
            for (int c = 0; c < 16; c++) {
                int64_t r0 = i - 16 + shift[c];
                __m512 a =
                    xa ? _mm512_permutex2var_ps(xp[c], idx[c], xc[c]) : _mm512_loadu_ps(xs[c] + r0);
                __m512 b = op == OP_COPY ? a
                           : ya          ? _mm512_permutex2var_ps(yp[c], idx[c], yc[c])
                                         : _mm512_loadu_ps(ys[c] + r0);
                _mm512_stream_ps(out[c] + r0, apply(op, a, b, p));
            }
            continue;
        }
        for (int c = 0; c < w; c++) {
            int64_t r0 = i - 16 + shift[c];
            __mmask16 m = rows_in(r0, n);
            if (!m) continue;
            __m512 a = xa ? _mm512_permutex2var_ps(xp[c], idx[c], xc[c])
                          : _mm512_maskz_loadu_ps(m, xs[c] + r0);
            __m512 b = op == OP_COPY ? a
                       : ya          ? _mm512_permutex2var_ps(yp[c], idx[c], yc[c])
                                     : _mm512_maskz_loadu_ps(m, ys[c] + r0);
            __m512 v = apply(op, a, b, p);
            if (m == 0xFFFF)
                _mm512_stream_ps(out[c] + r0, v);
            else
                _mm512_mask_storeu_ps(out[c] + r0, m, v);
        }
    }
}

static inline __attribute__((always_inline)) void tile(int op, char **data, const int64_t *s0,
                                                       const int64_t *s1, int64_t n, int64_t cols,
                                                       void *vctx) {
    const ew_ctx *ctx = vctx; /* none for a copy */
    const float alpha = op == OP_COPY ? 0 : (float)ctx->d[0];
    const __m512 p = _mm512_set1_ps(op == OP_SUB_ALPHA ? -alpha : alpha);
    bool xa = s0[1] != 4, ya = op != OP_COPY && s0[2] != 4;
    for (int64_t jb = 0; jb < cols; jb += 16) {
        int w = cols - jb < 16 ? (int)(cols - jb) : 16;
        if (xa && ya)
            strip(op, true, true, data, s0, s1, n, jb, w, p);
        else if (xa || op == OP_COPY) /* a copy's input is read across: mt_cpu_copy_stream_tile4 */
            strip(op, true, false, data, s0, s1, n, jb, w, p);
        else
            strip(op, false, true, data, s0, s1, n, jb, w, p);
    }
}

#define TILE_FN(NAME, OP)                                                                          \
    static void NAME(char **data, const int64_t *s0, const int64_t *s1, int64_t n, int64_t cols,   \
                     void *ctx) {                                                                  \
        tile(OP, data, s0, s1, n, cols, ctx);                                                      \
    }
TILE_FN(tile_add, OP_ADD)
TILE_FN(tile_add_alpha, OP_ADD_ALPHA)
TILE_FN(tile_sub, OP_SUB)
TILE_FN(tile_sub_alpha, OP_SUB_ALPHA)
TILE_FN(tile_mul, OP_MUL)
TILE_FN(tile_div, OP_DIV)
TILE_FN(tile_copy, OP_COPY)

/* an input read across the result's columns: rows of whole 4-byte elements */
static bool across(int64_t s0, int64_t s1) {
    return s1 == 4 && s0 > 0 && s0 % 4 == 0;
}

/* the result along the inner dim, on whole 4-byte elements */
static bool result_along(const mt_iter *it) {
    return it->strides[0][0] == 4 && it->strides[1][0] % 4 == 0 && (uintptr_t)it->data[0] % 4 == 0;
}

/* A copy only from rows that start on lines: with one input, reading each row's 64 bytes from
 * two lines cost more than the fused loop saved (10M float32, rows of 4000 bytes: 40 GB/s
 * against the staged loop's 46; rows of 8000 and 40000 bytes: 68-87 against 47-49). */
mt_tile_fn mt_cpu_copy_stream_tile4(const mt_iter *it) {
    return it->nops == 2 && it->itemsize[0] == 4 && it->itemsize[1] == 4 && result_along(it) &&
                   across(it->strides[0][1], it->strides[1][1]) && it->strides[0][1] % 64 == 0 &&
                   (uintptr_t)it->data[1] % 64 == 0
               ? tile_copy
               : NULL;
}

mt_tile_fn mt_cpu_ew_stream_tile_f32(int fam, const mt_iter *it) {
    /* each input along the result's inner dim or across it */
    if (it->nops != 3 || !result_along(it)) return NULL;
    for (int k = 1; k < 3; k++)
        if (it->strides[0][k] != 4 && !across(it->strides[0][k], it->strides[1][k])) return NULL;
    switch (fam) {
    case MT_F_ADD:
        return tile_add;
    case MT_CPU_EW_ADD_ALPHA:
        return tile_add_alpha;
    case MT_F_SUB:
        return tile_sub;
    case MT_CPU_EW_SUB_ALPHA:
        return tile_sub_alpha;
    case MT_F_MUL:
        return tile_mul;
    case MT_F_DIV:
        return tile_div;
    default:
        return NULL;
    }
}
