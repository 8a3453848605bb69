/* cpu_reduce.c: CPU reductions (sum, prod, mean, max/min with indices, argmax, all/any,
 * var/std, norm) and ops along a dim (cumsum, cumprod, softmax, log_softmax).
 *
 * A reduction first arranges its input as rows: K kept positions by R reduced elements,
 * each row contiguous in the accumulation dtype. When the input already is (contiguous,
 * reduced dims last) it is used in place; when the reduced dims come first, sums and
 * extrema accumulate whole rows into K running values (one pass, vectorized); otherwise one
 * copy permutes and converts it. */
#include "cpu_kernels.h"
#include "cpu_reduce_loops.h"
#include "mt_half.h"
#include "mt_parallel.h"
#include "reduce.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- row kernels ----------------------------------------------------------------------------- */

/* the contiguous inner loops, in the build the CPU can run (mt_cpu_reduce_select) */
static const mt_reduce_loops *L = &mt_reduce_loops_base;
/* float32 softmax rows 16 lanes at a time (cpu_softmax_avx512.c) */
static bool softmax_avx512;

void mt_cpu_reduce_select(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) L = &mt_reduce_loops_avx2;
    softmax_avx512 = __builtin_cpu_supports("avx512f");
}

/* A long row on several threads: each thread sums whole blocks, the blocks' sums are added in
 * order, so the value is the one-thread value. */
typedef struct {
    const void *x;
    int64_t n;
    double *parts;
} sum_job;

#define PAR_SUM(T, NAME, LOOP)                                                                     \
    static void NAME##_blocks(void *job, int64_t b0, int64_t b1) {                                 \
        sum_job *j = job;                                                                          \
        const T *x = j->x;                                                                         \
        for (int64_t b = b0; b < b1; b++) {                                                        \
            int64_t at = b * MT_SUM_BLOCK,                                                         \
                    len = j->n - at < MT_SUM_BLOCK ? j->n - at : MT_SUM_BLOCK;                     \
            j->parts[b] = L->LOOP(x + at, len);                                                    \
        }                                                                                          \
    }                                                                                              \
    static double NAME(const T *x, int64_t n) {                                                    \
        int nt = mt_threads_for(n);                                                                \
        int64_t nb = (n + MT_SUM_BLOCK - 1) / MT_SUM_BLOCK;                                        \
        double *parts = nt > 1 && nb > 1 ? malloc(sizeof(double) * (size_t)nb) : NULL;             \
        if (!parts) return L->LOOP(x, n);                                                          \
        sum_job job = {x, n, parts};                                                               \
        mt_parallel_range(nb, nt, NAME##_blocks, &job);                                            \
        double total = 0;                                                                          \
        for (int64_t b = 0; b < nb; b++) total += parts[b];                                        \
        free(parts);                                                                               \
        return total;                                                                              \
    }
PAR_SUM(float, sum_f32, sum_f32)
PAR_SUM(double, sum_f64, sum_f64)

/* extrema of a long row on several threads: exact whatever the split (a zero is settled by
 * the one-thread loop, which orders -0.0 and 0.0 ties) */
typedef struct {
    const void *x;
    int64_t n, chunk;
    void *parts;
} ext_job;

#define PAR_EXT(T, NAME, LOOP, CMP)                                                                \
    static void NAME##_chunks(void *job, int64_t t0, int64_t t1) {                                 \
        ext_job *j = job;                                                                          \
        const T *x = j->x;                                                                         \
        T *parts = j->parts;                                                                       \
        for (int64_t t = t0; t < t1; t++) {                                                        \
            int64_t at = t * j->chunk, len = j->n - at < j->chunk ? j->n - at : j->chunk;          \
            parts[t] = len > 0 ? L->LOOP(x + at, len) : x[0];                                      \
        }                                                                                          \
    }                                                                                              \
    static T NAME(const T *x, int64_t n) {                                                         \
        int nt = mt_threads_for(n);                                                                \
        if (nt <= 1) return L->LOOP(x, n);                                                         \
        T parts[64];                                                                               \
        if (nt > 64) nt = 64;                                                                      \
        ext_job job = {x, n, (n + nt - 1) / nt, parts};                                            \
        mt_parallel_range(nt, nt, NAME##_chunks, &job);                                            \
        T r = parts[0];                                                                            \
        for (int t = 0; t < nt; t++) {                                                             \
            if (parts[t] != parts[t]) return parts[t];                                             \
            if (parts[t] CMP r) r = parts[t];                                                      \
        }                                                                                          \
        return r == 0 ? L->LOOP(x, n) : r;                                                         \
    }
PAR_EXT(float, amax_f32, amax_f32, >)
PAR_EXT(float, amin_f32, amin_f32, <)
PAR_EXT(double, amax_f64, amax_f64, >)
PAR_EXT(double, amin_f64, amin_f64, <)

static int64_t sum_i64(const int64_t *x, int64_t n) {
    uint64_t s = 0; /* wraps like PyTorch's int64 sum */
    for (int64_t i = 0; i < n; i++) s += (uint64_t)x[i];
    return (int64_t)s;
}

/* nansum: NaN counts as zero; accumulated in double */
#define NANSUM_FN(T, NAME)                                                                         \
    static double NAME(const T *x, int64_t n) {                                                    \
        double s = 0;                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            if (x[i] == x[i]) s += x[i];                                                           \
        return s;                                                                                  \
    }
NANSUM_FN(float, nansum_f32)
NANSUM_FN(double, nansum_f64)

#define PROD_FN(T, NAME)                                                                           \
    static T NAME(const T *x, int64_t n) {                                                         \
        T p = 1;                                                                                   \
        for (int64_t i = 0; i < n; i++) p *= x[i];                                                 \
        return p;                                                                                  \
    }
PROD_FN(float, prod_f32)
PROD_FN(double, prod_f64)
PROD_FN(int64_t, prod_i64)

/* extrema: the first NaN wins (and its index); otherwise the first extreme */
#define EXT_FN(T, NAME, CMP)                                                                       \
    static T NAME(const T *x, int64_t n, int64_t *index) {                                         \
        T best = x[0];                                                                             \
        int64_t bi = 0;                                                                            \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T v = x[i];                                                                            \
            if (v != v) {                                                                          \
                best = v;                                                                          \
                bi = i;                                                                            \
                break;                                                                             \
            }                                                                                      \
            if (v CMP best) {                                                                      \
                best = v;                                                                          \
                bi = i;                                                                            \
            }                                                                                      \
        }                                                                                          \
        if (index) *index = bi;                                                                    \
        return best;                                                                               \
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtautological-compare"
EXT_FN(int64_t, max_i64, >)
EXT_FN(int64_t, min_i64, <)
#pragma GCC diagnostic pop

/* The same for floats, a block at a time: the block's extreme by the vector loop (NaN if it has
 * one), and only a block that has a NaN or beats the best so far is searched for the position
 * (the first NaN, or the first element equal to the block's extreme). Same answers as EXT_FN
 * (the value returned is the element found, so a zero keeps its sign), about 4x as fast on
 * rows of random values, where few blocks beat the best. */
#define EXT_BLOCK 256
#define EXT_BLOCKED_FN(T, NAME, LOOP, CMP)                                                         \
    static T NAME(const T *x, int64_t n, int64_t *index) {                                         \
        T best = x[0];                                                                             \
        int64_t bi = 0;                                                                            \
        for (int64_t b = 0; b < n; b += EXT_BLOCK) {                                               \
            int64_t m = n - b < EXT_BLOCK ? n - b : EXT_BLOCK;                                     \
            T e = L->LOOP(x + b, m);                                                               \
            if (e != e) {                                                                          \
                int64_t i = b;                                                                     \
                while (x[i] == x[i]) i++;                                                          \
                best = x[i], bi = i;                                                               \
                break;                                                                             \
            }                                                                                      \
            if (e CMP best) {                                                                      \
                int64_t i = b;                                                                     \
                while (x[i] != e) i++;                                                             \
                best = x[i], bi = i;                                                               \
            }                                                                                      \
        }                                                                                          \
        if (index) *index = bi;                                                                    \
        return best;                                                                               \
    }
EXT_BLOCKED_FN(float, max_f32, amax_f32, >)
EXT_BLOCKED_FN(double, max_f64, amax_f64, >)
EXT_BLOCKED_FN(float, min_f32, amin_f32, <)
EXT_BLOCKED_FN(double, min_f64, amin_f64, <)

/* the variance from the sum of squared deviations of n values (PyTorch's max(n - correction, 0)
 * divides: 0/0 is NaN, x/0 inf) */
static double var_of(double ss, int64_t n, int64_t correction) {
    double div = (double)(n - correction);
    return ss / (div > 0 ? div : 0);
}

/* two passes in double: the mean, then the squared deviations from it */
static double var_row(const double *x, int64_t n, int64_t correction, double *mean_out) {
    double m = n ? sum_f64(x, n) / (double)n : NAN;
    double ss = L->sqdev_f64(x, n, m);
    if (mean_out) *mean_out = m;
    return var_of(ss, n, correction);
}

/* Variance over every dim but one (batch norm's statistics over N, H and W) of a contiguous
 * float32 or float64 input: each kept index's values are `outer` segments of `inner` contiguous
 * ones, read where they lie in both passes. The rows' way first copied them into rows of float64
 * (a transposing copy of twice the input's bytes): var_mean of a 32 x 64 x 56 x 56 float32
 * input over (1, 3, 4) took 5.4 ms, a sum over the same dims 1.2. */
typedef struct {
    const char *src;
    bool f32;
    int64_t outer, K, inner, correction;
    bool std;
    double *vals, *means;
} seg_job;

static void var_segments_part(void *job, int64_t k0, int64_t k1) {
    const seg_job *j = job;
    size_t isz = j->f32 ? sizeof(float) : sizeof(double);
    int64_t n = j->outer * j->inner;
    for (int64_t k = k0; k < k1; k++) {
        const char *first = j->src + (size_t)(k * j->inner) * isz;
        size_t step = (size_t)(j->K * j->inner) * isz;
        double s = 0, ss = 0;
        for (int64_t o = 0; o < j->outer; o++) {
            const char *seg = first + o * step;
            s += j->f32 ? L->dsum_f32((const float *)seg, j->inner)
                        : L->sum_f64((const double *)seg, j->inner);
        }
        double m = n ? s / (double)n : NAN;
        for (int64_t o = 0; o < j->outer; o++) {
            const char *seg = first + o * step;
            ss += j->f32 ? L->sqdev_f32((const float *)seg, j->inner, m)
                         : L->sqdev_f64((const double *)seg, j->inner, m);
        }
        double v = var_of(ss, n, j->correction);
        j->vals[k] = j->std ? sqrt(v) : v;
        if (j->means) j->means[k] = m;
    }
}

/* the one kept dim of a variance the segments take, or -1 */
static int var_segments_dim(const mt_red *r, const mt_tensor *self) {
    if ((r->kind != MT_R_VAR && r->kind != MT_R_STD) || r->compute != MT_FLOAT64 ||
        (self->dtype != MT_FLOAT32 && self->dtype != MT_FLOAT64) || !mt_tensor_is_contiguous(self))
        return -1;
    int kept = -1;
    for (int i = 0; i < self->ndim; i++)
        if (!r->reduce[i]) {
            if (kept >= 0) return -1;
            kept = i;
        }
    int64_t inner = 1;
    for (int i = kept + 1; i < self->ndim; i++) inner *= self->sizes[i];
    /* segments long enough to run the vector loops (a kept last dim reads one value each) */
    return kept >= 0 && inner >= 64 ? kept : -1;
}

static double norm_row(const double *x, int64_t n, double p) {
    double s = 0;
    if (p == 2) {
        for (int64_t i = 0; i < n; i++) s += x[i] * x[i];
        return sqrt(s);
    }
    if (p == 1) {
        for (int64_t i = 0; i < n; i++) s += fabs(x[i]);
        return s;
    }
    if (isinf(p)) {
        s = n ? fabs(x[0]) : (p > 0 ? 0 : INFINITY);
        for (int64_t i = 0; i < n; i++) {
            double a = fabs(x[i]);
            if (a != a) return a;
            if (p > 0 ? a > s : a < s) s = a;
        }
        return s;
    }
    if (p == 0) {
        for (int64_t i = 0; i < n; i++) s += x[i] != 0;
        return s;
    }
    for (int64_t i = 0; i < n; i++) s += pow(fabs(x[i]), p);
    return pow(s, 1.0 / p);
}

/* ---- arranging the input as rows ------------------------------------------------------------- */

typedef struct rows {
    mt_tensor *src; /* K x R contiguous in the compute dtype (a new reference) */
    int64_t K, R;
    bool columns; /* R x K instead (reduced dims first, accumulated by columns) */
} rows;

static int arrange(mt_tensor *self, const bool *reduce, mt_dtype ct, bool allow_columns,
                   rows *out) {
    int nd = self->ndim, nk = 0, nr = 0;
    int perm[MT_MAX_DIM], kept[MT_MAX_DIM], red[MT_MAX_DIM];
    out->K = out->R = 1;
    for (int i = 0; i < nd; i++) {
        if (reduce[i]) {
            red[nr++] = i;
            out->R *= self->sizes[i];
        } else {
            kept[nk++] = i;
            out->K *= self->sizes[i];
        }
    }
    bool trailing = true, leading = true;
    for (int i = 0; i < nr; i++) trailing &= red[i] == nk + i, leading &= red[i] == i;
    out->columns = false;
    if (self->dtype == ct && mt_tensor_is_contiguous(self) &&
        (trailing || (allow_columns && leading))) {
        out->columns = !trailing;
        mt_tensor_incref(self);
        out->src = self;
        return 0;
    }
    /* a permuted, converted copy with the reduced dims last */
    int64_t sizes[MT_MAX_DIM];
    for (int i = 0; i < nk; i++) perm[i] = kept[i];
    for (int i = 0; i < nr; i++) perm[nk + i] = red[i];
    for (int i = 0; i < nd; i++) sizes[i] = self->sizes[perm[i]];
    mt_tensor *dst = mt_tensor_empty(nd, sizes, ct, MT_CPU);
    if (!dst) return -1;
    mt_tensor view = *self; /* self seen in the permuted order */
    for (int i = 0; i < nd; i++) {
        view.sizes[i] = self->sizes[perm[i]];
        view.strides[i] = self->strides[perm[i]];
    }
    mt_cpu_copy(dst, &view);
    out->src = dst;
    return 0;
}

/* ---- the reduction kernel -------------------------------------------------------------------- */

/* one row: writes the value (compute dtype) and possibly an index */
static void reduce_row(const mt_red *r, mt_dtype ct, const char *row, int64_t R, char *val,
                       int64_t *idx, double *mean) {
#define ROW(T) ((const T *)row)
    switch (r->kind) {
    case MT_R_SUM:
    case MT_R_MEAN: {
        double s = ct == MT_FLOAT32   ? sum_f32(ROW(float), R)
                   : ct == MT_FLOAT64 ? sum_f64(ROW(double), R)
                                      : 0;
        if (ct == MT_INT64) {
            *(int64_t *)val = sum_i64(ROW(int64_t), R);
            return;
        }
        if (r->kind == MT_R_MEAN) s /= (double)R;
        if (ct == MT_FLOAT32)
            *(float *)val = (float)s;
        else
            *(double *)val = s;
        return;
    }
    case MT_R_NANSUM: /* integers have no NaN: their sum */
        if (ct == MT_FLOAT32)
            *(float *)val = (float)nansum_f32(ROW(float), R);
        else if (ct == MT_FLOAT64)
            *(double *)val = nansum_f64(ROW(double), R);
        else
            *(int64_t *)val = sum_i64(ROW(int64_t), R);
        return;
    case MT_R_PROD:
        if (ct == MT_FLOAT32)
            *(float *)val = prod_f32(ROW(float), R);
        else if (ct == MT_FLOAT64)
            *(double *)val = prod_f64(ROW(double), R);
        else
            *(int64_t *)val = prod_i64(ROW(int64_t), R);
        return;
    case MT_R_MAX:
    case MT_R_ARGMAX:
        if (!idx && ct == MT_FLOAT32)
            *(float *)val = amax_f32(ROW(float), R);
        else if (!idx && ct == MT_FLOAT64)
            *(double *)val = amax_f64(ROW(double), R);
        else if (ct == MT_FLOAT32)
            *(float *)val = max_f32(ROW(float), R, idx);
        else if (ct == MT_FLOAT64)
            *(double *)val = max_f64(ROW(double), R, idx);
        else
            *(int64_t *)val = max_i64(ROW(int64_t), R, idx);
        return;
    case MT_R_MIN:
    case MT_R_ARGMIN:
        if (!idx && ct == MT_FLOAT32)
            *(float *)val = amin_f32(ROW(float), R);
        else if (!idx && ct == MT_FLOAT64)
            *(double *)val = amin_f64(ROW(double), R);
        else if (ct == MT_FLOAT32)
            *(float *)val = min_f32(ROW(float), R, idx);
        else if (ct == MT_FLOAT64)
            *(double *)val = min_f64(ROW(double), R, idx);
        else
            *(int64_t *)val = min_i64(ROW(int64_t), R, idx);
        return;
    case MT_R_ALL:
    case MT_R_ANY: {
        bool want_all = r->kind == MT_R_ALL, res = want_all;
        size_t isz = mt_dtype_size(ct);
        for (int64_t i = 0; i < R; i++) {
            double v = mt_load_double(row + i * (int64_t)isz, ct);
            if (want_all ? v == 0 : v != 0) {
                res = !want_all;
                break;
            }
        }
        *(int64_t *)val = res;
        return;
    }
    case MT_R_VAR:
    case MT_R_STD: {
        double v = var_row(ROW(double), R, r->correction, mean);
        *(double *)val = r->kind == MT_R_STD ? sqrt(v) : v;
        return;
    }
    case MT_R_NORM:
        *(double *)val = norm_row(ROW(double), R, r->p);
        return;
    }
#undef ROW
}

/* Reduced dims first: running values over K columns, one row at a time. Threads split the
 * columns in units of COL_UNIT and walk their share in stretches of at most COL_STRETCH, whose
 * running values stay in L2 while every row passes; each column is summed in the same order
 * whatever the split, so the values do not depend on the threads. Stretches of 8192 columns
 * (32 KB of each row, 64 KB of float32 sums' double running values) rather than 2048 (whose
 * running values fit L1): a 1000 x 10000 float32 sum over the rows, 2 threads, 6 alternating
 * runs of each: best 43 -> 59 GB/s, mean 36 -> 45. The rows' stretches are what the memory
 * streams, and longer ones stream better. */
#define COL_UNIT 64
#define COL_STRETCH 8192

typedef struct cols_job {
    const mt_red *r;
    mt_dtype ct;
    const char *src;
    int64_t K, R;
    char *vals;
    double *acc; /* float32 sums: double running values */
} cols_job;

/* the columns [k0, k1) */
static void reduce_columns_part(const cols_job *j, int64_t k0, int64_t k1) {
    const mt_red *r = j->r;
    mt_dtype ct = j->ct;
    int64_t K = j->K, R = j->R, n = k1 - k0;
#define COLS(T, INIT, STEP)                                                                        \
    do {                                                                                           \
        T *acc = (T *)j->vals + k0;                                                                \
        const T *x = (const T *)j->src + k0;                                                       \
        for (int64_t k = 0; k < n; k++) acc[k] = INIT;                                             \
        for (int64_t i = 0; i < R; i++) {                                                          \
            const T *row = x + i * K;                                                              \
            for (int64_t k = 0; k < n; k++) {                                                      \
                T v = row[k], a = acc[k];                                                          \
                acc[k] = STEP;                                                                     \
            }                                                                                      \
        }                                                                                          \
    } while (0)
    switch (r->kind) {
    case MT_R_SUM:
    case MT_R_MEAN:
        if (ct == MT_FLOAT32) { /* float columns accumulate in double, then round */
            double *acc = j->acc + k0;
            for (int64_t k = 0; k < n; k++) acc[k] = 0;
            L->cols_sum_f32((const float *)j->src + k0, n, K, R, acc);
            float *v = (float *)j->vals + k0;
            for (int64_t k = 0; k < n; k++) v[k] = (float)acc[k];
        } else if (ct == MT_FLOAT64) {
            double *acc = (double *)j->vals + k0;
            for (int64_t k = 0; k < n; k++) acc[k] = 0;
            L->cols_sum_f64((const double *)j->src + k0, n, K, R, acc);
        } else
            COLS(int64_t, 0, (int64_t)((uint64_t)a + (uint64_t)v));
        if (r->kind == MT_R_MEAN) {
            for (int64_t k = k0; k < k1; k++) {
                if (ct == MT_FLOAT32)
                    ((float *)j->vals)[k] /= (float)R;
                else
                    ((double *)j->vals)[k] /= (double)R;
            }
        }
        return;
    case MT_R_PROD:
        if (ct == MT_FLOAT32)
            COLS(float, 1, a *v);
        else if (ct == MT_FLOAT64)
            COLS(double, 1, a *v);
        else
            COLS(int64_t, 1, a * v);
        return;
    case MT_R_MAX: /* NaN-sticky: once NaN, comparisons keep it */
        if (ct == MT_FLOAT32)
            COLS(float, -INFINITY, (v > a || v != v) ? v : a);
        else if (ct == MT_FLOAT64)
            COLS(double, -INFINITY, (v > a || v != v) ? v : a);
        else
            COLS(int64_t, INT64_MIN, v > a ? v : a);
        return;
    case MT_R_MIN:
        if (ct == MT_FLOAT32)
            COLS(float, INFINITY, (v < a || v != v) ? v : a);
        else if (ct == MT_FLOAT64)
            COLS(double, INFINITY, (v < a || v != v) ? v : a);
        else
            COLS(int64_t, INT64_MAX, v < a ? v : a);
        return;
    default:
        return;
    }
#undef COLS
}

static void run_columns(void *job, int64_t u0, int64_t u1) {
    const cols_job *j = job;
    int64_t k1 = u1 * COL_UNIT < j->K ? u1 * COL_UNIT : j->K;
    for (int64_t k = u0 * COL_UNIT; k < k1; k += COL_STRETCH)
        reduce_columns_part(j, k, k1 - k < COL_STRETCH ? k1 : k + COL_STRETCH);
}

static int reduce_columns(const mt_red *r, mt_dtype ct, const char *src, int64_t K, int64_t R,
                          char *vals) {
    cols_job j = {r, ct, src, K, R, vals, NULL};
    if (ct == MT_FLOAT32 && (r->kind == MT_R_SUM || r->kind == MT_R_MEAN)) {
        j.acc = malloc(sizeof(double) * (size_t)(K ? K : 1));
        if (!j.acc) return mt_error(MT_ERR_MEMORY, "out of memory in a reduction");
    }
    int64_t units = (K + COL_UNIT - 1) / COL_UNIT;
    mt_parallel_range(units, units > 1 ? mt_threads_for(K * R) : 1, run_columns, &j);
    free(j.acc);
    return 0;
}

/* the rows [begin, end) of a reduction: one value (and index, mean) each */
typedef struct row_job {
    const mt_red *r;
    mt_dtype ct, val_dt;
    const char *src;
    int64_t R;
    size_t isz;
    char *vp;
    size_t vsz;
    bool arg;
    int64_t *ip;
    double *mp;
    bool rows16; /* float32 sums or means of short rows: 16 at a time (run_rows) */
} row_job;

/* rows this short, float32 sums and means, go 16 at a time through mt_cpu_sum_rows16_f32 where
 * the CPU has AVX-512F. 2M float32 summed by rows on 2 threads, alternating with one row at a
 * time: rows of 16 907-979 -> 259-267 us, 49 409-429 -> 186-231, 128 144-147 -> 121-132, but
 * 256 86 -> 114 (the transposes outweigh the rows' own vector loop); a global average pooling of
 * 32 x 512 planes of 7 x 7, 171-176 -> 84-95 us. */
#define ROWS16_MAX 128

static void run_rows(void *job, int64_t begin, int64_t end) {
    const row_job *j = job;
    const mt_red *r = j->r;
    if (j->rows16)
        for (; begin + 16 <= end; begin += 16)
            mt_cpu_sum_rows16_f32((const float *)j->src + begin * j->R, j->R, j->R,
                                  r->kind == MT_R_MEAN, (float *)j->vp + begin);
    for (int64_t k = begin; k < end; k++) {
        int64_t bi = 0;
        char tmp[8];
        char *dst = j->arg ? tmp : j->vp + k * (int64_t)j->vsz;
        if (j->R == 0) { /* an empty reduction: the identity its declaration gives */
            mt_store_double(dst, j->val_dt, r->identity);
            if (j->mp) j->mp[k] = NAN;
        } else {
            reduce_row(r, j->ct, j->src + k * j->R * (int64_t)j->isz, j->R, dst,
                       j->arg || j->ip ? &bi : NULL, j->mp ? &j->mp[k] : NULL);
        }
        if (j->arg) ((int64_t *)j->vp)[k] = bi;
        if (j->ip) j->ip[k] = bi;
    }
}

/* a float rounded to float16 or bfloat16 */
static float round_to(mt_dtype dt, float f) {
    return dt == MT_FLOAT16 ? mt_f16_to_f32(mt_f32_to_f16(f)) : mt_bf16_to_f32(mt_f32_to_bf16(f));
}

/* PyTorch's mean of float16 and bfloat16 is their sum rounded to the dtype, divided by the count
 * rounded to the dtype too (1386 is 1384 in bfloat16), the quotient rounded once more; the float
 * sum divided and rounded once was a unit off in the last place for a quarter of bfloat16 means
 * of 1386 values. The sums, computed in float, become those means. */
static void reduced_precision_means(mt_dtype out, int64_t R, float *v, int64_t K) {
    float count = round_to(out, (float)R);
    for (int64_t k = 0; k < K; k++) v[k] = round_to(out, v[k]) / count;
}

int mt_cpu_reduce_impl(mt_call *c, mt_value *args, mt_value *rets) {
    mt_red r;
    if (mt_red_decode(c, args, &r)) return -1;
    /* the sums first (below) */
    bool half_mean = r.kind == MT_R_MEAN && r.compute == MT_FLOAT32 &&
                     (r.out == MT_FLOAT16 || r.out == MT_BFLOAT16);
    if (half_mean) r.kind = MT_R_SUM;
    mt_tensor *self = args[0].t;
    mt_dtype ct = r.compute;
    bool columns_ok = (r.kind == MT_R_SUM || r.kind == MT_R_MEAN || r.kind == MT_R_PROD ||
                       ((r.kind == MT_R_MAX || r.kind == MT_R_MIN) && !r.with_indices));
    rows rw;
    int seg_dim = var_segments_dim(&r, self);
    if (seg_dim >= 0) { /* read in place (var_segments_part) */
        rw =
            (rows){.src = self, .K = self->sizes[seg_dim], .R = self->numel / self->sizes[seg_dim]};
        mt_tensor_incref(self);
    } else if (arrange(self, r.reduce, ct, columns_ok, &rw)) {
        return -1;
    }
    int64_t K = rw.K, R = rw.R;
    mt_dtype val_dt =
        (r.kind == MT_R_ALL || r.kind == MT_R_ANY || r.kind == MT_R_ARGMAX || r.kind == MT_R_ARGMIN)
            ? MT_INT64
            : ct;
    /* the values go straight into the result when it is contiguous in their dtype */
    mt_tensor *out = rets[0].t;
    bool direct = out->dtype == val_dt && mt_tensor_is_contiguous(out);
    mt_tensor *vals =
        direct ? (mt_tensor_incref(out), out) : mt_tensor_empty(1, &K, val_dt, MT_CPU);
    mt_tensor *idx = NULL, *means = NULL;
    int status = -1;
    if (!vals) goto done;
    if (r.with_indices && !(idx = mt_tensor_empty(1, &K, MT_INT64, MT_CPU))) goto done;
    if (r.with_mean && !(means = mt_tensor_empty(1, &K, MT_FLOAT64, MT_CPU))) goto done;
    const char *src = mt_tensor_raw(rw.src);
    char *vp = mt_tensor_raw(vals);
    size_t vsz = mt_dtype_size(val_dt), isz = mt_dtype_size(ct);
    if (rw.columns) {
        if (reduce_columns(&r, ct, src, K, R, vp)) goto done;
    } else if (seg_dim >= 0 && K > 0) {
        int64_t outer = 1, inner = 1;
        for (int i = 0; i < self->ndim; i++)
            if (i != seg_dim) *(i < seg_dim ? &outer : &inner) *= self->sizes[i];
        seg_job job = {.src = src,
                       .f32 = self->dtype == MT_FLOAT32,
                       .outer = outer,
                       .K = K,
                       .inner = inner,
                       .correction = r.correction,
                       .std = r.kind == MT_R_STD,
                       .vals = (double *)vp,
                       .means = means ? (double *)mt_tensor_raw(means) : NULL};
        mt_parallel_range(K, K > 1 ? mt_threads_for(K * R) : 1, var_segments_part, &job);
    } else if (K > 0) {
        bool arg = r.kind == MT_R_ARGMAX || r.kind == MT_R_ARGMIN;
        int64_t *ip = idx ? (int64_t *)mt_tensor_raw(idx) : NULL;
        double *mp = means ? (double *)mt_tensor_raw(means) : NULL;
        row_job job = {&r, ct, val_dt, src, R, isz, vp, vsz, arg, ip, mp, false};
        job.rows16 = ct == MT_FLOAT32 && (r.kind == MT_R_SUM || r.kind == MT_R_MEAN) && !ip &&
                     !mp && R > 0 && R <= ROWS16_MAX && K >= 16 &&
                     __builtin_cpu_supports("avx512f");
        mt_parallel_range(K, K > 1 ? mt_threads_for(K * R) : 1, run_rows, &job);
    }
    if (half_mean && R > 0) reduced_precision_means(r.out, R, (float *)vp, K);
    /* results: written (and converted) into the allocated outputs */
    if (!direct) {
        mt_tensor flat = *out; /* the contiguous result seen as K values */
        flat.ndim = 1;
        flat.sizes[0] = K;
        flat.strides[0] = 1;
        mt_cpu_copy(&flat, vals);
    }
    if (idx) {
        mt_tensor fi = *rets[1].t;
        fi.ndim = 1;
        fi.sizes[0] = K;
        fi.strides[0] = 1;
        mt_cpu_copy(&fi, idx);
    }
    if (means) {
        mt_tensor fm = *rets[1].t;
        fm.ndim = 1;
        fm.sizes[0] = K;
        fm.strides[0] = 1;
        mt_cpu_copy(&fm, means);
    }
    status = 0;
done:
    mt_tensor_decref(vals);
    mt_tensor_decref(idx);
    mt_tensor_decref(means);
    mt_tensor_decref(rw.src);
    return status;
}

/* ---- ops along a dim ------------------------------------------------------------------------- */

/* one row of n values from src into dst (the same buffer, or another of the same layout: each
 * value is read before its place is written) */
static void dimop_row(int kind, mt_dtype ct, const char *src, char *dst, int64_t n) {
    if (ct == MT_FLOAT32 || ct == MT_FLOAT64) {
        bool f = ct == MT_FLOAT32;
#define AT(i) (f ? (double)((const float *)src)[i] : ((const double *)src)[i])
#define SET(i, v)                                                                                  \
    do {                                                                                           \
        if (f)                                                                                     \
            ((float *)dst)[i] = (float)(v);                                                        \
        else                                                                                       \
            ((double *)dst)[i] = (v);                                                              \
    } while (0)
        if (kind == MT_D_CUMSUM || kind == MT_D_CUMPROD) {
            /* accumulate in double (PyTorch's accumulate type on the CPU), store each step */
            double acc = kind == MT_D_CUMSUM ? 0.0 : 1.0;
            for (int64_t i = 0; i < n; i++) {
                acc = kind == MT_D_CUMSUM ? acc + AT(i) : acc * AT(i);
                SET(i, acc);
            }
            return;
        }
        if (f && softmax_avx512) {
            mt_cpu_softmax_row_f32_avx512(kind == MT_D_LOG_SOFTMAX, (const float *)src,
                                          (float *)dst, n);
            return;
        }
        double mx = -INFINITY;
        for (int64_t i = 0; i < n; i++) mx = AT(i) > mx ? AT(i) : mx;
        if (f) { /* softmax in float, as PyTorch's float kernel computes it */
            float m = (float)mx, s = 0;
            const float *x = (const float *)src;
            float *y = (float *)dst;
            if (kind == MT_D_SOFTMAX) {
                for (int64_t i = 0; i < n; i++) s += y[i] = expf(x[i] - m);
                for (int64_t i = 0; i < n; i++) y[i] /= s;
            } else {
                for (int64_t i = 0; i < n; i++) s += expf(x[i] - m);
                float ls = logf(s);
                for (int64_t i = 0; i < n; i++) y[i] = x[i] - m - ls;
            }
        } else {
            double s = 0;
            const double *x = (const double *)src;
            double *y = (double *)dst;
            if (kind == MT_D_SOFTMAX) {
                for (int64_t i = 0; i < n; i++) s += y[i] = exp(x[i] - mx);
                for (int64_t i = 0; i < n; i++) y[i] /= s;
            } else {
                for (int64_t i = 0; i < n; i++) s += exp(x[i] - mx);
                double ls = log(s);
                for (int64_t i = 0; i < n; i++) y[i] = x[i] - mx - ls;
            }
        }
#undef AT
#undef SET
        return;
    }
    const int64_t *x = (const int64_t *)src; /* integers: cumsum / cumprod in int64 (wrapping) */
    int64_t *y = (int64_t *)dst;
    uint64_t acc = kind == MT_D_CUMSUM ? 0 : 1;
    for (int64_t i = 0; i < n; i++) {
        acc = kind == MT_D_CUMSUM ? acc + (uint64_t)x[i] : acc * (uint64_t)x[i];
        y[i] = (int64_t)acc;
    }
}

typedef struct {
    int kind;
    mt_dtype ct;
    const char *src;
    char *dst;
    int64_t R;
    size_t isz;
} dimop_job;

static void dimop_rows(void *job, int64_t begin, int64_t end) {
    dimop_job *j = job;
    for (int64_t k = begin; k < end; k++) {
        int64_t at = k * j->R * (int64_t)j->isz;
        dimop_row(j->kind, j->ct, j->src + at, j->dst + at, j->R);
    }
}

int mt_cpu_dimop_impl(mt_call *c, mt_value *args, mt_value *rets) {
    mt_dimop d;
    if (mt_dimop_decode(c, args, &d)) return -1;
    mt_tensor *self = args[0].t, *out = rets[0].t;
    if (out->numel == 0) return 0;
    bool reduce[MT_MAX_DIM] = {0};
    if (self->ndim) reduce[d.dim] = true;
    rows rw;
    mt_dtype ct = d.compute; /* bfloat16 computes in float; the result is rounded once */
    if (arrange(self, reduce, ct, false, &rw)) return -1;
    int64_t K = rw.K, R = rw.R;
    size_t isz = mt_dtype_size(ct);
    /* rows along the result's last dim, contiguous in the compute dtype: straight from the
     * arranged rows into it, without the buffer and the copy back below (two passes over a
     * large softmax's data) */
    if (out->dtype == ct && mt_tensor_is_contiguous(out) &&
        (out->ndim == 0 || d.dim == out->ndim - 1)) {
        dimop_job job = {d.kind, ct, mt_tensor_raw(rw.src), mt_tensor_raw(out), R, isz};
        mt_parallel_range(K, K > 1 ? mt_threads_for(K * R) : 1, dimop_rows, &job);
        mt_tensor_decref(rw.src);
        return 0;
    }
    /* else on a private buffer (the arranged rows may be self itself), then through a view of
     * the result in the rows' order */
    mt_tensor *buf = rw.src;
    if (buf == self) {
        buf = mt_tensor_empty(self->ndim, self->sizes, ct, MT_CPU);
        if (!buf) {
            mt_tensor_decref(rw.src);
            return -1;
        }
        mt_cpu_copy(buf, self);
        mt_tensor_decref(rw.src);
    }
    char *p = mt_tensor_raw(buf);
    dimop_job job = {d.kind, ct, p, p, R, isz};
    mt_parallel_range(K, K > 1 ? mt_threads_for(K * R) : 1, dimop_rows, &job);
    /* buf holds [kept..., dim] in order: write it back through out seen in that order */
    mt_tensor view = *out;
    int n = out->ndim, j = 0;
    if (n) {
        for (int i = 0; i < n; i++)
            if (i != d.dim) {
                view.sizes[j] = out->sizes[i];
                view.strides[j++] = out->strides[i];
            }
        view.sizes[j] = out->sizes[d.dim];
        view.strides[j] = out->strides[d.dim];
    }
    mt_cpu_copy(&view, buf);
    mt_tensor_decref(buf);
    return 0;
}
