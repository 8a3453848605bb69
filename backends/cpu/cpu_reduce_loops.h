/* cpu_reduce_loops.h: the reductions' inner loops over contiguous data, in two builds
 * (cpu_reduce_loops.c): any x86-64, and AVX2 + FMA, chosen at run time. Both builds add and
 * compare in the same order, so they give the same values. */
#ifndef MT_CPU_REDUCE_LOOPS_H
#define MT_CPU_REDUCE_LOOPS_H

#include <stdint.h>

#define MT_SUM_BLOCK 4096

typedef struct mt_reduce_loops {
    /* sums of a row: blocks of MT_SUM_BLOCK elements summed with vector partials (in float for
     * float32), the blocks' sums added in order in double: so a row split at block boundaries
     * and its parts' sums added in order gives the same value */
    double (*sum_f32)(const float *x, int64_t n);
    double (*sum_f64)(const double *x, int64_t n);
    /* the largest / smallest value of a row (NaN if any), no index */
    float (*amax_f32)(const float *x, int64_t n);
    float (*amin_f32)(const float *x, int64_t n);
    double (*amax_f64)(const double *x, int64_t n);
    double (*amin_f64)(const double *x, int64_t n);
    /* column sums: acc[k] += x[i * ld + k] over i < R, k < K (float32 into double
     * accumulators) */
    void (*cols_sum_f32)(const float *x, int64_t K, int64_t ld, int64_t R, double *acc);
    void (*cols_sum_f64)(const double *x, int64_t K, int64_t ld, int64_t R, double *acc);
    /* the moments variance takes, in double with 16 running partials (lane j of the partials
     * takes the elements j, j + 16, ... of the row), the partials added in a fixed tree: the
     * sum of a float32 row, and the sums of squared deviations from m */
    double (*dsum_f32)(const float *x, int64_t n);
    double (*sqdev_f32)(const float *x, int64_t n, double m);
    double (*sqdev_f64)(const double *x, int64_t n, double m);
} mt_reduce_loops;

extern const mt_reduce_loops mt_reduce_loops_base, mt_reduce_loops_avx2;

#endif
