/* scatter_reduce.c: the reducing scatters written with scatter_reduce's kernel
 * (src/ops/scatter_reduce.lua): the in-place forms, scatter's reduce= forms ('add' is 'sum',
 * 'multiply' is 'prod') and index_reduce (its index expanded along source's other dims). */
#include "common_ops.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <string.h>

/* an in-place form: the out-of-place result copied into self (autograd sees both) */
static int into_self(mt_tensor *self, mt_tensor *out, mt_value *r) {
    if (!out) return -1;
    mt_tensor *w = mto_copy_(self, out, false);
    mt_tensor_decref(out);
    if (!w) return -1;
    mt_tensor_decref(w);
    return mt_ret_self(r, self);
}

static int c_scatter_reduce_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    if (mt_check_writable(a[0].t)) return -1;
    return into_self(a[0].t, mto_scatter_reduce_two(a[0].t, a[1].i, a[2].t, a[3].t, a[4].s, a[5].b),
                     r);
}

static const char *legacy_reduce(const char *s) {
    if (strcmp(s, "add") == 0) return "sum";
    if (strcmp(s, "multiply") == 0) return "prod";
    mt_error(MT_ERR_RUNTIME, "reduce argument must be either add or multiply.");
    return NULL;
}

/* scatter(..., reduce=) with a src tensor, or with a value (a src of index's shape) */
static mt_tensor *scatter_legacy(mt_call *c, mt_value *a) {
    const char *red = legacy_reduce(a[4].s);
    if (!red) return NULL;
    int id = c->op->id;
    bool value = id == MT_OP_scatter_value_reduce || id == MT_OP_scatter__value_reduce;
    mt_tensor *self = a[0].t, *index = a[2].t;
    mt_tensor *src = value ? mto_full((mt_ilist){index->sizes, index->ndim}, a[3], self->dtype,
                                      self->device, false, false)
                           : a[3].t;
    if (!src) return NULL;
    mt_tensor *out = mto_scatter_reduce_two(self, a[1].i, index, src, red, true);
    if (value) mt_tensor_decref(src);
    return out;
}

static int c_scatter_legacy(mt_call *c, mt_value *a, mt_value *r) {
    return mt_ret_tensor(r, scatter_legacy(c, a));
}

static int c_scatter_legacy_(mt_call *c, mt_value *a, mt_value *r) {
    if (mt_check_writable(a[0].t)) return -1;
    return into_self(a[0].t, scatter_legacy(c, a), r);
}

/* one value of a tensor read on the host */
static int host_int(mt_tensor *t, int64_t *v) {
    mt_tensor *h = mto_to_device(t, (mt_device){MT_DEV_CPU, 0}, MT_INT64, false, true, NULL);
    int st = h && !mt_tensor_sync(h) ? 0 : -1;
    if (!st) *v = *(const int64_t *)mt_tensor_data(h);
    mt_tensor_decref(h);
    return st;
}

static mt_tensor *index_reduce(mt_value *a) {
    mt_tensor *self = a[0].t, *index = a[2].t, *source = a[3].t;
    const char *red = a[4].s;
    if (strcmp(red, "prod") && strcmp(red, "mean") && strcmp(red, "amax") && strcmp(red, "amin"))
        return mt_error_null(
            MT_ERR_RUNTIME,
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin "
            "but got %s.",
            red);
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return NULL;
    if (index->ndim > 1) {
        char s[256];
        mt_fmt_ilist(s, sizeof s, index->sizes, index->ndim);
        return mt_error_null(MT_ERR_INDEX,
                             "index_reduce_(): Index is supposed to be a vector, but got dim: %d "
                             "with type: %s and size: %s",
                             index->ndim, mt_dtype_scalar_name((mt_dtype)index->dtype), s);
    }
    int64_t at_dim = source->ndim ? source->sizes[d < source->ndim ? d : 0] : 1;
    if (index->numel != at_dim)
        return mt_error_null(MT_ERR_INDEX,
                             "index_reduce_(): Number of indices (%lld) should be equal to "
                             "source.size(dim): (%lld), for dim: %d",
                             (long long)index->numel, (long long)at_dim, d + 1);
    if (self->dtype != source->dtype)
        return mt_error_null(MT_ERR_RUNTIME,
                             "index_reduce_(): self (%s) and source (%s) must have the same scalar "
                             "type",
                             mt_dtype_scalar_name((mt_dtype)self->dtype),
                             mt_dtype_scalar_name((mt_dtype)source->dtype));
    if (source->ndim != self->ndim)
        return mt_error_null(MT_ERR_INDEX,
                             "index_reduce_(): Source/destination tensor must have same slice "
                             "shapes.");
    for (int i = 0; i < self->ndim; i++)
        if (i != d && self->sizes[i] != source->sizes[i])
            return mt_error_null(
                MT_ERR_RUNTIME,
                "The size of tensor a (%lld) must match the size of tensor b (%lld) "
                "at non-singleton dimension %d",
                (long long)self->sizes[i], (long long)source->sizes[i], i + 1);
    if (index->numel && index->device.type != MT_DEV_META) { /* positions inside self's dim */
        mt_tensor *mx = mto_amax(index, (mt_ilist){NULL, 0}, false);
        mt_tensor *mn = mx ? mto_amin(index, (mt_ilist){NULL, 0}, false) : NULL;
        int64_t hi = 0, lo = 0;
        int st = mn && !host_int(mx, &hi) && !host_int(mn, &lo) ? 0 : -1;
        mt_tensor_decref(mx);
        mt_tensor_decref(mn);
        if (st) return NULL;
        int64_t size = self->ndim ? self->sizes[d] : 1;
        if (lo < 0 || hi >= size) return mt_error_null(MT_ERR_INDEX, "index out of range in self");
    }
    /* index as a column along dim, expanded to source's shape: a scatter_reduce */
    int64_t shape[MT_MAX_DIM];
    int nd = source->ndim ? source->ndim : 1;
    for (int i = 0; i < nd; i++) shape[i] = i == d ? index->numel : 1;
    mt_tensor *col = mto_reshape(index, (mt_ilist){shape, nd});
    mt_tensor *idx = col ? mto_expand(col, (mt_ilist){source->sizes, source->ndim}, false) : NULL;
    mt_tensor *out = idx ? mto_scatter_reduce_two(self, d, idx, source, red, a[5].b) : NULL;
    mt_tensor_decref(col);
    mt_tensor_decref(idx);
    return out;
}

static int c_index_reduce(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, index_reduce(a));
}

static int c_index_reduce_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    if (mt_check_writable(a[0].t)) return -1;
    return into_self(a[0].t, index_reduce(a), r);
}

void mt_scatter_reduce_register(void) {
    static const struct {
        int op;
        mt_kernel k;
    } composites[] = {
        {MT_OP_scatter_reduce__two, c_scatter_reduce_},
        {MT_OP_scatter_reduce, c_scatter_legacy},
        {MT_OP_scatter_value_reduce, c_scatter_legacy},
        {MT_OP_scatter__reduce, c_scatter_legacy_},
        {MT_OP_scatter__value_reduce, c_scatter_legacy_},
        {MT_OP_index_reduce, c_index_reduce},
        {MT_OP_index_reduce_, c_index_reduce_},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(composites); i++)
        mt_disp_composite(composites[i].op, composites[i].k);
}
