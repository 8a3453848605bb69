/* cpu_scatter_reduce.c: scatter_reduce's CPU kernel (src/ops/scatter_reduce.lua). The result
 * starts as a copy of self; each position that index names gathers its contributions in an
 * accumulator (double for floating dtypes, int64 for the others), starting from self's value
 * (include_self) or from its first contribution, and is written back once, divided by its count
 * for 'mean' (rounded down for integers, as PyTorch does). */
#include "cpu_index_util.h"
#include "cpu_kernels.h"
#include "mt_ops_gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { RED_SUM, RED_PROD, RED_MEAN, RED_AMAX, RED_AMIN } red_kind;

static red_kind kind_of(const char *s) {
    return strcmp(s, "prod") == 0   ? RED_PROD
           : strcmp(s, "mean") == 0 ? RED_MEAN
           : strcmp(s, "amax") == 0 ? RED_AMAX
           : strcmp(s, "amin") == 0 ? RED_AMIN
                                    : RED_SUM;
}

static double combine_f(red_kind k, double acc, double x) {
    switch (k) {
    case RED_PROD:
        return acc * x;
    case RED_AMAX:
        return (x > acc || isnan(x)) ? x : acc; /* NaN wins, as in max */
    case RED_AMIN:
        return (x < acc || isnan(x)) ? x : acc;
    default:
        return acc + x;
    }
}

static int64_t combine_i(red_kind k, int64_t acc, int64_t x) {
    switch (k) {
    case RED_PROD:
        return (int64_t)((uint64_t)acc * (uint64_t)x);
    case RED_AMAX:
        return x > acc ? x : acc;
    case RED_AMIN:
        return x < acc ? x : acc;
    default:
        return (int64_t)((uint64_t)acc + (uint64_t)x);
    }
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int k_scatter_reduce(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *index = a[2].t, *src = a[3].t, *out = r[0].t;
    red_kind k = kind_of(a[4].s);
    bool include_self = a[5].b;
    mt_dtype dt = (mt_dtype)out->dtype;
    bool fl = mt_dtype_is_floating(dt), boolean = dt == MT_BOOL;
    if (mt_cpu_copy(out, self)) return -1;
    int d;
    mt_wrap_dim(a[1].i, self->ndim, &d);
    int64_t n = out->numel, size = self->ndim ? self->sizes[d] : 1;
    double *facc = fl ? malloc(sizeof(double) * (size_t)(n ? n : 1)) : NULL;
    int64_t *iacc = fl ? NULL : malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    int64_t *cnt = calloc((size_t)(n ? n : 1), sizeof(int64_t));
    bool *touched = calloc((size_t)(n ? n : 1), sizeof(bool));
    int st = -1;
    if (!(facc || iacc) || !cnt || !touched) {
        mt_error(MT_ERR_MEMORY, "scatter_reduce: out of memory");
        goto done;
    }
    int64_t idx[MT_MAX_DIM], dst[MT_MAX_DIM];
    for (int64_t e = 0; e < index->numel; e++) {
        unravel(e, index->sizes, index->ndim, idx);
        int64_t v = index_at(index, idx);
        if (v < 0 || v >= size) {
            mt_error(MT_ERR_INDEX, "index %lld is out of bounds for dimension %d with size %lld",
                     mt_user_dim(v), d + 1, (long long)size);
            goto done;
        }
        memcpy(dst, idx, sizeof dst);
        if (self->ndim) dst[d] = v;
        int64_t p = offset_of(out, dst) - out->offset; /* out is a fresh contiguous tensor */
        const char *x = at(src, idx);
        if (!touched[p]) { /* the accumulator starts from self's value or the first contribution */
            touched[p] = true;
            cnt[p] = include_self ? 1 : 0;
            if (fl)
                facc[p] = include_self ? mt_load_double(at(out, dst), dt) : mt_load_double(x, dt);
            else
                iacc[p] = include_self ? mt_load_int64(at(out, dst), dt) : mt_load_int64(x, dt);
            if (!include_self) {
                cnt[p] = 1;
                continue;
            }
        }
        cnt[p]++;
        if (fl)
            facc[p] = combine_f(k, facc[p], mt_load_double(x, dt));
        else if (boolean) /* sum and amax are 'or', prod and amin are 'and' */
            iacc[p] = (k == RED_PROD || k == RED_AMIN) ? (iacc[p] && mt_load_int64(x, dt))
                                                       : (iacc[p] || mt_load_int64(x, dt));
        else
            iacc[p] = combine_i(k, iacc[p], mt_load_int64(x, dt));
    }
    char *base = mt_tensor_data(out);
    size_t es = mt_dtype_size(dt);
    for (int64_t p = 0; p < n; p++) {
        if (!touched[p]) continue;
        char *o = base + (size_t)p * es;
        if (fl)
            mt_store_double(o, dt, k == RED_MEAN ? facc[p] / (double)cnt[p] : facc[p]);
        else if (boolean)
            *(uint8_t *)o = iacc[p] != 0;
        else
            mt_store_int64(o, dt, k == RED_MEAN ? floor_div(iacc[p], cnt[p]) : iacc[p]);
    }
    st = 0;
done:
    free(facc);
    free(iacc);
    free(cnt);
    free(touched);
    return st;
}

void mt_cpu_scatter_reduce_register(void) {
    mt_disp_impl(MT_OP_scatter_reduce_two, MT_KEY_CPU, k_scatter_reduce);
}
