/* cpu_reduce_loops.c: the reductions' inner loops (cpu_reduce_loops.h). Compiled as is and,
 * through cpu_reduce_loops_avx2.c, with AVX2 and FMA; the partial sums are laid out so the
 * compiler keeps them in vector registers. */
#include "cpu_reduce_loops.h"

#include <math.h>
#include <stdbool.h>

#ifndef MT_REDUCE_LOOPS
#define MT_REDUCE_LOOPS mt_reduce_loops_base
#endif

/* Vectors of GCC's vector extension: the AVX2 build maps them to ymm registers, the other one
 * to pairs of xmm registers; either way lane j of a vector is partial j, in the same order. */
typedef float v8f __attribute__((vector_size(32), aligned(4)));
typedef double v4d __attribute__((vector_size(32), aligned(8)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef int64_t v4l __attribute__((vector_size(32)));

/* float sums: 32 running partials over blocks of 4096, blocks added in double. Past the caches
 * (prefetch) the values 16 KiB ahead are asked for: a 10M float32 sum on 2 threads went from
 * 99-125 to 116-144 GB/s alternating (PyTorch's 116-141 in the same minutes); in cache the two
 * prefetches cost 3% (64K values, 1 thread), so smaller sums go without. */
#define SUM_PREFETCH_FLOATS 4096
#define SUM_PREFETCH_MIN ((int64_t)1 << 18)

static inline __attribute__((always_inline)) double sum_f32_run(const float *x, int64_t n,
                                                                bool prefetch) {
    double total = 0;
    for (int64_t b = 0; b < n; b += 4096) {
        int64_t e = b + 4096 < n ? b + 4096 : n, i = b;
        v8f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
        for (; i + 32 <= e; i += 32) {
            if (prefetch) { /* the two lines of values SUM_PREFETCH_FLOATS on */
                __builtin_prefetch(x + i + SUM_PREFETCH_FLOATS);
                __builtin_prefetch(x + i + SUM_PREFETCH_FLOATS + 16);
            }
            a0 += *(const v8f *)(x + i);
            a1 += *(const v8f *)(x + i + 8);
            a2 += *(const v8f *)(x + i + 16);
            a3 += *(const v8f *)(x + i + 24);
        }
        v8f a = (a0 + a1) + (a2 + a3);
        float s = 0;
        for (int j = 0; j < 8; j++) s += a[j];
        for (; i < e; i++) s += x[i];
        total += s;
    }
    return total;
}

static double sum_f32(const float *x, int64_t n) {
    return n >= SUM_PREFETCH_MIN ? sum_f32_run(x, n, true) : sum_f32_run(x, n, false);
}

/* double sums: 16 running partials over blocks of 4096, blocks added in order */
static double sum_f64(const double *x, int64_t n) {
    double total = 0;
    for (int64_t b = 0; b < n; b += 4096) {
        int64_t e = b + 4096 < n ? b + 4096 : n, i = b;
        v4d a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
        for (; i + 16 <= e; i += 16) {
            a0 += *(const v4d *)(x + i);
            a1 += *(const v4d *)(x + i + 4);
            a2 += *(const v4d *)(x + i + 8);
            a3 += *(const v4d *)(x + i + 12);
        }
        v4d a = (a0 + a1) + (a2 + a3);
        double s = 0;
        for (int j = 0; j < 4; j++) s += a[j];
        for (; i < e; i++) s += x[i];
        total += s;
    }
    return total;
}

/* extrema without an index: lane-wise extremes and a NaN flag; a zero result is settled by a
 * scan in order, so -0.0 and 0.0 ties resolve as the first one met, as the indexed loop does */
#define EXTREME(T, VT, MT, W, NAME, CMP, INIT)                                                     \
    static T NAME(const T *x, int64_t n) {                                                         \
        VT best = {0};                                                                             \
        MT nan = {0};                                                                              \
        for (int j = 0; j < W; j++) best[j] = INIT;                                                \
        int64_t i = 0;                                                                             \
        VT best2 = best;                                                                           \
        for (; i + 2 * W <= n; i += 2 * W) {                                                       \
            VT v = *(const VT *)(x + i), u = *(const VT *)(x + i + W);                             \
            nan |= (v != v) | (u != u);                                                            \
            MT take = v CMP best, take2 = u CMP best2;                                             \
            best = (VT)(((MT)v & take) | ((MT)best & ~take));                                      \
            best2 = (VT)(((MT)u & take2) | ((MT)best2 & ~take2));                                  \
        }                                                                                          \
        MT take = best2 CMP best;                                                                  \
        best = (VT)(((MT)best2 & take) | ((MT)best & ~take));                                      \
        T r = INIT;                                                                                \
        bool any_nan = false;                                                                      \
        for (int j = 0; j < W; j++) {                                                              \
            r = best[j] CMP r ? best[j] : r;                                                       \
            any_nan |= nan[j] != 0;                                                                \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            T v = x[i];                                                                            \
            any_nan |= v != v;                                                                     \
            r = v CMP r ? v : r;                                                                   \
        }                                                                                          \
        if (any_nan) return (T)NAN;                                                                \
        if (r == 0) {                                                                              \
            r = x[0];                                                                              \
            for (int64_t k = 1; k < n; k++)                                                        \
                if (x[k] CMP r) r = x[k];                                                          \
        }                                                                                          \
        return r;                                                                                  \
    }
EXTREME(float, v8f, v8i, 8, amax_f32, >, -INFINITY)
EXTREME(float, v8f, v8i, 8, amin_f32, <, INFINITY)
EXTREME(double, v4d, v4l, 4, amax_f64, >, -INFINITY)
EXTREME(double, v4d, v4l, 4, amin_f64, <, INFINITY)

/* four rows per pass over the accumulators: a quarter of their traffic */
/* eight rows at a time are added in float (in a tree, 3 roundings deep), then into the double
 * running values: one conversion per 8 elements keeps the loop at the memory's pace */
static void cols_sum_f32(const float *x, int64_t K, int64_t ld, int64_t R, double *acc) {
    int64_t i = 0;
    for (; i + 8 <= R; i += 8) {
        const float *r0 = x + i * ld;
        for (int64_t k = 0; k < K; k++) {
            float a = (r0[k] + r0[ld + k]) + (r0[2 * ld + k] + r0[3 * ld + k]);
            float b = (r0[4 * ld + k] + r0[5 * ld + k]) + (r0[6 * ld + k] + r0[7 * ld + k]);
            acc[k] += (double)(a + b);
        }
    }
    for (; i + 4 <= R; i += 4) {
        const float *r0 = x + i * ld, *r1 = r0 + ld, *r2 = r1 + ld, *r3 = r2 + ld;
        for (int64_t k = 0; k < K; k++)
            acc[k] += ((double)r0[k] + (double)r1[k]) + ((double)r2[k] + (double)r3[k]);
    }
    for (; i < R; i++) {
        const float *row = x + i * ld;
        for (int64_t k = 0; k < K; k++) acc[k] += row[k];
    }
}

static void cols_sum_f64(const double *x, int64_t K, int64_t ld, int64_t R, double *acc) {
    int64_t i = 0;
    for (; i + 4 <= R; i += 4) {
        const double *r0 = x + i * ld, *r1 = r0 + ld, *r2 = r1 + ld, *r3 = r2 + ld;
        for (int64_t k = 0; k < K; k++) acc[k] += (r0[k] + r1[k]) + (r2[k] + r3[k]);
    }
    for (; i < R; i++) {
        const double *row = x + i * ld;
        for (int64_t k = 0; k < K; k++) acc[k] += row[k];
    }
}

typedef float v4f __attribute__((vector_size(16), aligned(4)));

/* 16 double partials in four vectors, a row of T read 16 at a time; EXPR(v) the term of v */
#define MOMENT(NAME, T, LOAD, EXPR, ...)                                                           \
    static double NAME(const T *x, int64_t n __VA_OPT__(, ) __VA_ARGS__) {                         \
        v4d a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};                                                \
        int64_t i = 0;                                                                             \
        for (; i + 16 <= n; i += 16) {                                                             \
            v4d v0 = LOAD(x + i), v1 = LOAD(x + i + 4), v2 = LOAD(x + i + 8),                      \
                v3 = LOAD(x + i + 12);                                                             \
            a0 += EXPR(v0), a1 += EXPR(v1), a2 += EXPR(v2), a3 += EXPR(v3);                        \
        }                                                                                          \
        v4d a = (a0 + a1) + (a2 + a3);                                                             \
        double s = (a[0] + a[1]) + (a[2] + a[3]);                                                  \
        for (; i < n; i++) {                                                                       \
            v4d v = {(double)x[i], 0, 0, 0};                                                       \
            s += EXPR(v)[0];                                                                       \
        }                                                                                          \
        return s;                                                                                  \
    }
#define LOAD_F32(p) __builtin_convertvector(*(const v4f *)(p), v4d)
#define LOAD_F64(p) (*(const v4d *)(p))
#define SAME(v) (v)
#define SQDEV(v) (((v)-m) * ((v)-m))
MOMENT(dsum_f32, float, LOAD_F32, SAME)
MOMENT(sqdev_f32, float, LOAD_F32, SQDEV, double m)
MOMENT(sqdev_f64, double, LOAD_F64, SQDEV, double m)

const mt_reduce_loops MT_REDUCE_LOOPS = {sum_f32,  sum_f64,   amax_f32,     amin_f32,
                                         amax_f64, amin_f64,  cols_sum_f32, cols_sum_f64,
                                         dsum_f32, sqdev_f32, sqdev_f64};
