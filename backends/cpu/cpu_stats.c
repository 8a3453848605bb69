/* cpu_stats.c: the CPU scans of the statistics ops (src/ops/statistics.lua): cummax, cummin
 * and logcumsumexp, one sequential pass along each row as PyTorch's kernels make it (their
 * meta function, with the checks, is in backends/common/statistics.c). */
#include "cpu_index_util.h"
#include "cpu_kernels.h"
#include "mt_ops_gen.h"
#include "mt_parallel.h"

#include <math.h>
#include <string.h>

typedef struct {
    const mt_tensor *x, *v, *i; /* input, values, indices (none for logcumsumexp) */
    int d, kind;                /* 0 cummax, 1 cummin, 2 logcumsumexp */
    int64_t n, other[MT_MAX_DIM];
    int nother;
} scan_job;

/* PyTorch's _log_add_exp_helper: NaN propagates, equal infinities stay themselves */
static double log_add_exp(double x, double y) {
    double lo = isnan(y) ? y : (y < x ? y : x), hi = isnan(y) ? y : (x < y ? y : x);
    if (lo != hi || isfinite(lo)) return hi + log1p(exp(lo - hi));
    return x;
}

static void scan_rows(void *ctx, int64_t begin, int64_t end) {
    const scan_job *j = ctx;
    const mt_tensor *x = j->x;
    mt_dtype dt = (mt_dtype)x->dtype;
    size_t isz = mt_dtype_size(dt);
    bool floating = mt_dtype_is_floating(dt);
    int nd = x->ndim, d = j->d;
    int64_t sx = nd ? x->strides[d] * (int64_t)isz : 0,
            sv = nd ? j->v->strides[d] * (int64_t)isz : 0;
    int64_t si = j->i && nd ? j->i->strides[d] * 8 : 0;
    int64_t idx[MT_MAX_DIM], oidx[MT_MAX_DIM];
    for (int64_t row = begin; row < end; row++) {
        unravel(row, j->other, j->nother, oidx);
        for (int k = 0, m = 0; k < nd; k++) idx[k] = k == d ? 0 : oidx[m++];
        const char *px = at(x, idx);
        char *pv = at(j->v, idx);
        if (j->kind == 2) { /* in double, PyTorch's accumulate type on the CPU */
            double acc = -INFINITY;
            for (int64_t k = 0; k < j->n; k++) {
                acc = log_add_exp(mt_load_double(px + k * sx, dt), acc);
                mt_store_double(pv + k * sv, dt, acc);
            }
            continue;
        }
        char *pi = at(j->i, idx);
        const char *best = px;
        int64_t at_best = 0, bi = 0;
        double bd = 0;
        bool is_max = j->kind == 0;
        for (int64_t k = 0; k < j->n; k++) {
            const char *p = px + k * sx;
            bool take;
            if (floating) { /* a NaN, or a value at least as large (small) as the best, takes over
                             */
                double e = mt_load_double(p, dt);
                take = k == 0 || isnan(e) || (!isnan(bd) && (is_max ? e >= bd : e <= bd));
                if (take) bd = e;
            } else {
                int64_t e = mt_load_int64(p, dt);
                take = k == 0 || (is_max ? e >= bi : e <= bi);
                if (take) bi = e;
            }
            if (take) best = p, at_best = k;
            memcpy(pv + k * sv, best, isz);
            *(int64_t *)(pi + k * si) = at_best;
        }
    }
}

static int k_scan(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *x = a[0].t;
    if (x->numel == 0) return 0;
    scan_job j = {.x = x,
                  .v = r[0].t,
                  .kind = c->op->id == MT_OP_cummax   ? 0
                          : c->op->id == MT_OP_cummin ? 1
                                                      : 2};
    j.i = j.kind < 2 ? r[1].t : NULL;
    if (mt_wrap_dim(a[1].i, x->ndim, &j.d)) return -1;
    j.n = x->ndim ? x->sizes[j.d] : 1;
    for (int k = 0; k < x->ndim; k++)
        if (k != j.d) j.other[j.nother++] = x->sizes[k];
    int64_t rows = x->numel / j.n;
    mt_parallel_range(rows, rows > 1 ? mt_threads_for(x->numel) : 1, scan_rows, &j);
    return 0;
}

void mt_cpu_stats_register(void) {
    mt_disp_impl(MT_OP_cummax, MT_KEY_CPU, k_scan);
    mt_disp_impl(MT_OP_cummin, MT_KEY_CPU, k_scan);
    mt_disp_impl(MT_OP_logcumsumexp, MT_KEY_CPU, k_scan);
}
