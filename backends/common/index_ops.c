/* index_ops.c: joining, splitting, reordering and indexing ops: their meta functions (shapes,
 * dtypes, PyTorch's checks, shared with every device) and the ones written as compositions. */
#include "common_ops.h"
#include "index_ops.h"
#include "elementwise.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_like(mt_outspec *o, const mt_tensor *t, mt_dtype dt) {
    o->ndim = t->ndim;
    memcpy(o->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    o->dtype = (uint8_t)dt;
}

static bool is_legacy_empty(const mt_tensor *t) {
    return t->ndim == 1 && t->sizes[0] == 0;
}

/* ---- cat ------------------------------------------------------------------------------------ */

int mt_cat_shape(mt_value *a, int *dim_out, mt_outspec *o) {
    mt_tensor **ts = a[0].tl;
    int n = a[0].n, ref = -1;
    if (n == 0)
        return mt_error(MT_ERR_RUNTIME, "torch.cat(): expected a non-empty list of Tensors");
    mt_dtype dt = MT_BOOL;
    mt_result_type rt;
    mt_rt_init(&rt);
    for (int i = 0; i < n; i++) {
        if (ts[i]->ndim == 0)
            return mt_error(MT_ERR_RUNTIME,
                            "zero-dimensional tensor (at position %d) cannot be concatenated",
                            i + 1);
        mt_rt_tensor(&rt, ts[i]);
        if (ref < 0 && !is_legacy_empty(ts[i])) ref = i;
    }
    dt = mt_rt_result(&rt);
    if (ref < 0) ref = 0; /* every input is an empty 1-d tensor */
    const mt_tensor *r = ts[ref];
    int d;
    if (mt_wrap_dim(a[1].i, r->ndim, &d)) return -1;
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        const mt_tensor *t = ts[i];
        if (is_legacy_empty(t) && i != ref) continue; /* PyTorch skips them */
        if (t->ndim != r->ndim)
            return mt_error(MT_ERR_RUNTIME,
                            "Tensors must have same number of dimensions: got %d and %d", r->ndim,
                            t->ndim);
        for (int k = 0; k < r->ndim; k++)
            if (k != d && t->sizes[k] != r->sizes[k])
                return mt_error(MT_ERR_RUNTIME,
                                "Sizes of tensors must match except in dimension %d. Expected size "
                                "%lld but got "
                                "size %lld for tensor number %d in the list.",
                                d + 1, (long long)r->sizes[k], (long long)t->sizes[k], i + 1);
        total += t->sizes[d];
    }
    out_like(o, r, dt);
    o->sizes[d] = total;
    *dim_out = d;
    /* PyTorch's layout: the memory format every input suggests (skipped empty ones included),
     * contiguous as soon as one suggests that or two differ */
    const char *fmt = mt_suggest_memory_format(ts[0]);
    for (int i = 1; i < n && strcmp(fmt, "contiguous_format") != 0; i++)
        if (strcmp(mt_suggest_memory_format(ts[i]), fmt) != 0) fmt = "contiguous_format";
    return mt_outspec_layout(o, fmt);
}

static int meta_cat(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    int d;
    return mt_cat_shape(a, &d, o);
}

/* ---- stack, split, chunk, unbind, tile, broadcast_to, roll, diag: compositions --------------- */

static int c_stack(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor **ts = a[0].tl;
    int n = a[0].n;
    if (n == 0) return mt_error(MT_ERR_RUNTIME, "stack expects a non-empty TensorList");
    for (int i = 1; i < n; i++)
        if (ts[i]->ndim != ts[0]->ndim ||
            memcmp(ts[i]->sizes, ts[0]->sizes, sizeof(int64_t) * (size_t)ts[0]->ndim)) {
            char x[256], y[256];
            mt_fmt_ilist(x, sizeof x, ts[0]->sizes, ts[0]->ndim);
            mt_fmt_ilist(y, sizeof y, ts[i]->sizes, ts[i]->ndim);
            return mt_error(MT_ERR_RUNTIME,
                            "stack expects each tensor to be equal size, but got %s at entry 1 and "
                            "%s at entry %d",
                            x, y, i + 1);
        }
    int d;
    if (mt_wrap_dim(a[1].i, ts[0]->ndim + 1, &d)) return -1;
    if (d < ts[0]->ndim && ts[0]->ndim < MT_MAX_DIM) {
        /* as PyTorch's: cat along d, then d split, so the result keeps cat's layout
         * (channels-last inputs give a channels-last slice each) */
        int64_t sizes[MT_MAX_DIM];
        for (int k = 0, j = 0; k <= ts[0]->ndim; k++) sizes[k] = k == d ? n : ts[0]->sizes[j++];
        mt_tensor *cat = mto_cat(ts, n, d);
        if (!cat) return -1;
        mt_tensor *out = mto_view(cat, (mt_ilist){sizes, ts[0]->ndim + 1});
        mt_tensor_decref(cat);
        return mt_ret_tensor(r, out);
    }
    mt_tensor **us = mt_calloc((size_t)n, sizeof *us);
    if (!us) return -1;
    int st = 0;
    for (int i = 0; i < n && st == 0; i++)
        if (!(us[i] = mto_unsqueeze(ts[i], d))) st = -1;
    mt_tensor *out = st ? NULL : mto_cat(us, n, d);
    for (int i = 0; i < n; i++) mt_tensor_decref(us[i]);
    free(us);
    return mt_ret_tensor(r, out);
}

/* A list result of views along dim: (start, length) pairs. */
static int narrow_list(mt_tensor *self, int d, const int64_t *starts, const int64_t *lens, int n,
                       mt_value *r) {
    mt_tensor **v = mt_calloc((size_t)(n ? n : 1), sizeof *v);
    if (!v) return -1;
    for (int i = 0; i < n; i++)
        if (!(v[i] = mto_narrow(self, d, starts[i], lens[i]))) {
            for (int j = 0; j < i; j++) mt_tensor_decref(v[j]);
            free(v);
            return -1;
        }
    r[0] = (mt_value){.tag = MT_V_TENSORLIST, .n = n, .tl = v};
    return 0;
}

/* The views of split, chunk and unbind are one op's several outputs: autograd forbids writing
 * to them in place (PyTorch's MULTI_OUTPUT_NODE); made without grad they are plain aliases. */
static int multi_views(int st, mt_value *r) {
    if (st) return st;
    uint16_t flag = mt_tls_get()->grad_enabled ? MT_T_VIEW_MULTI : MT_T_VIEW_NODIFF;
    for (int i = 0; i < r[0].n; i++) r[0].tl[i]->flags |= flag;
    return 0;
}

static int c_split(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *self = a[0].t;
    if (self->ndim == 0)
        return mt_error(MT_ERR_RUNTIME, "split expects at least a 1-dimensional tensor");
    int d;
    if (mt_wrap_dim(a[2].i, self->ndim, &d)) return -1;
    int64_t size = self->sizes[d];
    int64_t starts[1024], lens[1024];
    int n = 0;
    if (c->op->id == MT_OP_split_Tensor) {
        int64_t s = a[1].i;
        if (s < 0)
            return mt_error(MT_ERR_RUNTIME,
                            "split expects split_size be non-negative, but got split_size=%lld",
                            (long long)s);
        if (s == 0 && size != 0)
            return mt_error(
                MT_ERR_RUNTIME,
                "split_size can only be 0 if dimension size is 0, but got dimension size of %lld",
                (long long)size);
        int64_t chunks = s == 0 ? 1 : (size + s - 1) / s;
        if (chunks < 1) chunks = 1;
        if (chunks > 1024)
            return mt_error(MT_ERR_RUNTIME, "split: too many pieces (%lld)", (long long)chunks);
        for (int64_t i = 0; i < chunks; i++) {
            starts[n] = i * s;
            lens[n++] = s == 0 ? 0 : (i * s + s > size ? size - i * s : s);
        }
    } else {
        int64_t sum = 0;
        if (a[1].n > 1024) return mt_error(MT_ERR_RUNTIME, "split: too many pieces (%d)", a[1].n);
        for (int i = 0; i < a[1].n; i++) {
            if (a[1].il[i] < 0)
                return mt_error(MT_ERR_RUNTIME,
                                "split_with_sizes expects split_sizes have only non-negative "
                                "entries, but got split_sizes=%lld",
                                (long long)a[1].il[i]);
            starts[n] = sum;
            lens[n++] = a[1].il[i];
            sum += a[1].il[i];
        }
        if (sum != size) {
            char buf[256];
            mt_fmt_ilist(buf, sizeof buf, a[1].il, a[1].n);
            return mt_error(MT_ERR_RUNTIME,
                            "split_with_sizes expects split_sizes to sum exactly to %lld (input "
                            "tensor's size at "
                            "dimension %d), but got split_sizes=%s",
                            (long long)size, d + 1, buf);
        }
    }
    return multi_views(narrow_list(self, d, starts, lens, n, r), r);
}

static int c_chunk(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    if (self->ndim == 0)
        return mt_error(MT_ERR_RUNTIME, "chunk expects at least a 1-dimensional tensor");
    int64_t chunks = a[1].i;
    if (chunks <= 0)
        return mt_error(MT_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: %lld",
                        (long long)chunks);
    int d;
    if (mt_wrap_dim(a[2].i, self->ndim, &d)) return -1;
    int64_t size = self->sizes[d], s = (size + chunks - 1) / chunks;
    mt_value sa[3] = {a[0], mt_vint(s), mt_vint(d)};
    mt_call sc = {mt_op_get(MT_OP_split_Tensor), -1, 0, MT_CPU};
    if (s == 0) { /* an empty dim: PyTorch gives `chunks` empty views */
        int64_t starts[1024] = {0}, lens[1024] = {0};
        int n = chunks > 1024 ? 1024 : (int)chunks;
        return multi_views(narrow_list(self, d, starts, lens, n, r), r);
    }
    return c_split(&sc, sa, r);
}

static int c_unbind(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    if (self->ndim == 0)
        return mt_error(MT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    int n = (int)self->sizes[d];
    mt_tensor **v = mt_calloc((size_t)(n ? n : 1), sizeof *v);
    if (!v) return -1;
    for (int i = 0; i < n; i++)
        if (!(v[i] = mto_select_int(self, d, i))) {
            for (int j = 0; j < i; j++) mt_tensor_decref(v[j]);
            free(v);
            return -1;
        }
    r[0] = (mt_value){.tag = MT_V_TENSORLIST, .n = n, .tl = v};
    return multi_views(0, r);
}

static int c_tile(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    int n = a[1].n, nd = self->ndim;
    int64_t reps[MT_MAX_DIM];
    if (n > MT_MAX_DIM) return mt_error(MT_ERR_RUNTIME, "tile: too many dims");
    int k = nd > n ? nd : n;
    for (int i = 0; i < k; i++) reps[i] = 1;
    for (int i = 0; i < n; i++) reps[k - n + i] = a[1].il[i];
    return mt_ret_tensor(r, mto_repeat(self, (mt_ilist){reps, k}));
}

static int c_broadcast_to(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_expand(a[0].t, (mt_ilist){a[1].il, a[1].n}, false));
}

static int c_broadcast_tensors(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor **ts = a[0].tl;
    int n = a[0].n, nd = 0;
    int64_t shape[MT_MAX_DIM], prev[MT_MAX_DIM];
    for (int i = 0; i < n; i++) {
        memcpy(prev, shape, sizeof(int64_t) * (size_t)nd);
        if (mt_broadcast_shapes(nd, prev, ts[i]->ndim, ts[i]->sizes, &nd, shape)) return -1;
    }
    mt_tensor **v = mt_calloc((size_t)(n ? n : 1), sizeof *v);
    if (!v) return -1;
    for (int i = 0; i < n; i++)
        if (!(v[i] = mto_expand(ts[i], (mt_ilist){shape, nd}, false))) {
            for (int j = 0; j < i; j++) mt_tensor_decref(v[j]);
            free(v);
            return -1;
        }
    r[0] = (mt_value){.tag = MT_V_TENSORLIST, .n = n, .tl = v};
    return 0;
}

/* roll: the tail moved to the front with narrow + cat, one dim at a time */
static mt_tensor *roll_dim(mt_tensor *t, int64_t shift, int d) {
    int64_t size = t->sizes[d];
    if (size == 0) return mto_clone(t, NULL);
    int64_t start = (size - shift % size) % size;
    if (start < 0) start += size;
    mt_tensor *a = mto_narrow(t, d, start, size - start),
              *b = a ? mto_narrow(t, d, 0, start) : NULL;
    mt_tensor *parts[2] = {a, b};
    mt_tensor *out = b ? mto_cat(parts, 2, d) : NULL;
    mt_tensor_decref(a);
    mt_tensor_decref(b);
    return out;
}

static int c_roll(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    mt_value shifts = a[1], dims = a[2];
    if (shifts.n == 0) return mt_error(MT_ERR_RUNTIME, "`shifts` required");
    if (dims.n == 0) { /* the flattened tensor, rolled, in self's shape */
        if (shifts.n != 1)
            return mt_error(MT_ERR_RUNTIME, "shifts and dimensions must align. shifts: %d, dims:%d",
                            shifts.n, 0);
        mt_tensor *f = mto_reshape(self, MT_ILIST(-1)),
                  *rf = f ? roll_dim(f, shifts.il[0], 0) : NULL;
        mt_tensor *out = rf ? mto_view(rf, (mt_ilist){self->sizes, self->ndim}) : NULL;
        mt_tensor_decref(f);
        mt_tensor_decref(rf);
        return mt_ret_tensor(r, out);
    }
    if (shifts.n != dims.n)
        return mt_error(MT_ERR_RUNTIME, "shifts and dimensions must align. shifts: %d, dims:%d",
                        shifts.n, dims.n);
    mt_tensor *t = self;
    mt_tensor_incref(t);
    for (int i = 0; i < dims.n; i++) {
        int d;
        if (mt_wrap_dim(dims.il[i], self->ndim, &d)) {
            mt_tensor_decref(t);
            return -1;
        }
        mt_tensor *n2 = roll_dim(t, shifts.il[i], d);
        mt_tensor_decref(t);
        if (!(t = n2)) return -1;
    }
    return mt_ret_tensor(r, t);
}

static int c_diag(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    int64_t k = a[1].i;
    if (self->ndim == 2) {
        mt_tensor *v = mto_diagonal(self, k, 0, 1),
                  *out = v ? mto_clone(v, "contiguous_format") : NULL;
        mt_tensor_decref(v);
        return mt_ret_tensor(r, out);
    }
    if (self->ndim != 1) return mt_error(MT_ERR_RUNTIME, "matrix or a vector expected");
    int64_t n = self->sizes[0] + (k < 0 ? -k : k);
    mt_tensor *z = mto_zeros(MT_ILIST(n, n), self->dtype, self->device, false, false);
    mt_tensor *dg = z ? mto_diagonal(z, k, 0, 1) : NULL,
              *w = dg ? mto_copy_(dg, self, false) : NULL;
    mt_tensor_decref(dg);
    mt_tensor_decref(w);
    if (z && !w) {
        mt_tensor_decref(z);
        return -1;
    }
    return mt_ret_tensor(r, z);
}

static int c_argsort(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *v, *i;
    if (mto_sort(a[0].t, a[1].i, a[2].b, &v, &i)) return -1;
    mt_tensor_decref(v);
    return mt_ret_tensor(r, i);
}

static int c_argwhere(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_nonzero(a[0].t));
}

/* out-of-place forms of the in-place index ops: a copy of self, then the in-place op */
static int c_clone_then(mt_call *c, mt_value *a, mt_value *r) {
    static const struct {
        int op, inplace;
    } pairs[] = {
        {MT_OP_scatter_src, MT_OP_scatter__src},
        {MT_OP_scatter_value, MT_OP_scatter__value},
        {MT_OP_scatter_add, MT_OP_scatter_add_},
        {MT_OP_index_add, MT_OP_index_add_},
        {MT_OP_index_copy, MT_OP_index_copy_},
        {MT_OP_masked_fill_Scalar, MT_OP_masked_fill__Scalar},
        {MT_OP_masked_fill_Tensor, MT_OP_masked_fill__Tensor},
        {MT_OP_masked_scatter, MT_OP_masked_scatter_},
        {MT_OP_index_put, MT_OP_index_put_},
    };
    int target = -1, id = c->op->id;
    for (size_t i = 0; i < MT_ARRAY_LEN(pairs); i++)
        if (pairs[i].op == id) target = pairs[i].inplace;
    mt_tensor *copy;
    if (id == MT_OP_masked_fill_Scalar || id == MT_OP_masked_fill_Tensor ||
        id == MT_OP_masked_scatter) {
        /* masked ops broadcast self against the mask first, then copy contiguously */
        mt_tensor *self = a[0].t, *mask = a[1].t;
        int64_t shape[MT_MAX_DIM];
        int n;
        if (mt_broadcast_shapes(self->ndim, self->sizes, mask->ndim, mask->sizes, &n, shape))
            return -1;
        mt_tensor *e = mto_expand(self, (mt_ilist){shape, n}, false);
        copy = e ? mto_clone(e, "contiguous_format") : NULL;
        mt_tensor_decref(e);
    } else { /* PyTorch's scatter, scatter_add, index_add and index_copy give contiguous results,
              * its index_put keeps self's layout */
        copy = mto_clone(a[0].t, id == MT_OP_index_put ? NULL : "contiguous_format");
    }
    if (!copy) return -1;
    mt_value args[8];
    memcpy(args, a, sizeof(mt_value) * (size_t)c->op->schema->nargs);
    args[0] = mt_vtensor(copy);
    mt_value rr[1];
    int st = mt_call_op(target, args, rr);
    mt_tensor_decref(copy);
    if (st) return -1;
    r[0] = rr[0];
    return 0;
}

/* ---- meta functions -------------------------------------------------------------------------- */

static int meta_flip(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    bool seen[MT_MAX_DIM] = {0};
    for (int i = 0; i < a[1].n; i++) {
        int d;
        if (mt_wrap_dim(a[1].il[i], self->ndim, &d)) return -1;
        if (self->ndim && seen[d])
            return mt_error(MT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims",
                            d + 1);
        seen[d] = true;
    }
    out_like(o, self, (mt_dtype)self->dtype);
    mt_preserve_strides(self, o->strides);
    o->has_strides = 1;
    return 0;
}

static int meta_repeat(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    int n = a[1].n;
    if (n < self->ndim)
        return mt_error(MT_ERR_RUNTIME, "Number of dimensions of repeat dims can not be smaller "
                                        "than number of dimensions of tensor");
    if (n > MT_MAX_DIM) return mt_error(MT_ERR_RUNTIME, "repeat: too many dims");
    for (int i = 0; i < n; i++) {
        if (a[1].il[i] < 0) {
            char buf[256];
            mt_fmt_ilist(buf, sizeof buf, a[1].il, n);
            return mt_error(MT_ERR_RUNTIME,
                            "Trying to create tensor with negative dimension %lld: %s",
                            (long long)a[1].il[i], buf);
        }
        int sd = i - (n - self->ndim);
        o->sizes[i] = a[1].il[i] * (sd >= 0 ? self->sizes[sd] : 1);
    }
    o->ndim = (int8_t)n;
    o->dtype = self->dtype;
    return 0;
}

static int index_dtype(const mt_tensor *index, const char *who) {
    if (index->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME, "%s(): Expected dtype int64 for index", who);
    return 0;
}

/* gather/scatter's shape rules: index.size(d) <= self.size(d) (and <= src.size(d)) off dim */
static int gather_like_checks(const char *who, mt_tensor *self, int d, mt_tensor *index,
                              mt_tensor *src) {
    if (index_dtype(index, who)) return -1;
    int sd = self->ndim > 0 ? self->ndim : 1, idn = index->ndim > 0 ? index->ndim : 1;
    if (idn != sd && index->numel > 0)
        return mt_error(MT_ERR_RUNTIME,
                        "Index tensor must have the same number of dimensions as %s tensor",
                        src ? "self" : "input");
    if (src && (src->ndim > 0 ? src->ndim : 1) != idn && index->numel > 0)
        return mt_error(MT_ERR_RUNTIME,
                        "Index tensor must have the same number of dimensions as src tensor");
    for (int k = 0; k < index->ndim && k < self->ndim; k++) {
        char x[256], y[256];
        if (k != d && index->sizes[k] > self->sizes[k]) {
            mt_fmt_ilist(x, sizeof x, index->sizes, index->ndim);
            mt_fmt_ilist(y, sizeof y, self->sizes, self->ndim);
            return mt_error(
                MT_ERR_RUNTIME,
                "Size does not match at dimension %d expected index %s to be smaller than self %s "
                "apart from dimension %d",
                k + 1, x, y, d + 1);
        }
        if (src && k < src->ndim && index->sizes[k] > src->sizes[k]) {
            mt_fmt_ilist(x, sizeof x, index->sizes, index->ndim);
            mt_fmt_ilist(y, sizeof y, src->sizes, src->ndim);
            return mt_error(
                MT_ERR_RUNTIME,
                "Size does not match at dimension %d expected index %s to be smaller than src %s",
                k + 1, x, y);
        }
    }
    return 0;
}

static int meta_gather(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *index = a[2].t;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    if (gather_like_checks("gather", self, d, index, NULL)) return -1;
    out_like(o, index, (mt_dtype)self->dtype);
    return 0;
}

static int meta_scatter_(mt_call *c, mt_value *a, mt_outspec *o) {
    mt_tensor *self = a[0].t, *index = a[2].t;
    int d, id = c->op->id;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    mt_tensor *src = (id == MT_OP_scatter__value) ? NULL : a[3].t;
    const char *who = id == MT_OP_scatter_add_ ? "scatter_add" : "scatter";
    if (gather_like_checks(who, self, d, index, src)) return -1;
    if (src && src->dtype != self->dtype)
        return mt_error(MT_ERR_RUNTIME, "%s(): Expected self.dtype to be equal to src.dtype", who);
    if (mt_check_writable(self)) return -1;
    o->inplace_arg = 0;
    return 0;
}

static int index_vector(const mt_tensor *index, const char *who) {
    if (index->ndim > 1)
        return mt_error(MT_ERR_INDEX, "%s(): Index is supposed to be a vector", who);
    if (index->dtype != MT_INT64 && index->dtype != MT_INT32)
        return mt_error(MT_ERR_RUNTIME, "%s(): Expected dtype int32 or int64 for index", who);
    return 0;
}

/* scatter_reduce(self, dim, index, src, reduce, include_self): a new tensor like self */
static int meta_scatter_reduce(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *index = a[2].t, *src = a[3].t;
    const char *red = a[4].s;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    if (strcmp(red, "sum") && strcmp(red, "prod") && strcmp(red, "mean") && strcmp(red, "amax") &&
        strcmp(red, "amin"))
        return mt_error(MT_ERR_RUNTIME,
                        "reduce argument must be either sum, prod, mean, amax or amin.");
    if (gather_like_checks("scatter", self, d, index, src)) return -1;
    if (src->dtype != self->dtype)
        return mt_error(MT_ERR_RUNTIME, "scatter(): Expected self.dtype to be equal to src.dtype");
    out_like(o, self, (mt_dtype)self->dtype);
    return 0;
}

static int meta_index_select(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *index = a[2].t;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d) || index_vector(index, "index_select")) return -1;
    out_like(o, self, (mt_dtype)self->dtype);
    if (self->ndim) o->sizes[d] = index->numel;
    return 0;
}

/* "4 3": how PyTorch prints a slice shape in index_copy_'s message */
static void fmt_slice(char *buf, size_t cap, const int64_t *sizes, int n) {
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < n && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%lld", i ? " " : "", (long long)sizes[i]);
}

/* a tensor's sizes without dim d (a 0-d tensor's slice is empty) */
static int slice_shape(const mt_tensor *t, int d, int64_t *out) {
    int n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (i != d) out[n++] = t->sizes[i];
    return n;
}

static int check_index_copy(const mt_tensor *self, int d, const mt_tensor *index,
                            const mt_tensor *src) {
    if (index->ndim > 1)
        return mt_error(MT_ERR_INDEX, "index_copy_(): Index should have dimension 1 or 0 (got %d)",
                        index->ndim);
    if (index->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME,
                        "index_copy_(): Expected a long tensor for index, but got %s",
                        mt_dtype_scalar_name((mt_dtype)index->dtype));
    if (src->dtype != self->dtype)
        return mt_error(
            MT_ERR_RUNTIME,
            "index_copy_(): self and source expected to have the same dtype, but got (self) %s and "
            "(source) %s",
            mt_dtype_scalar_name((mt_dtype)self->dtype),
            mt_dtype_scalar_name((mt_dtype)src->dtype));
    if (src->ndim == 0 && index->numel != 1)
        return mt_error(
            MT_ERR_INDEX,
            "index_copy_(): When source is scalar, index should have one element (got %lld)",
            (long long)index->numel);
    if (src->ndim != 0 && self->ndim != 0 && src->ndim != self->ndim)
        return mt_error(
            MT_ERR_INDEX,
            "index_copy_(): When source and destination are not scalars, their dimensionality must "
            "match. Source dimensionality (%d), destination dimensionality (%d)",
            src->ndim, self->ndim);
    int64_t a[MT_MAX_DIM], b[MT_MAX_DIM];
    int na = slice_shape(self, d, a), nb = slice_shape(src, d, b);
    if (na != nb || memcmp(a, b, sizeof(int64_t) * (size_t)na) != 0) {
        char sa[256], sb[256];
        fmt_slice(sa, sizeof sa, a, na);
        fmt_slice(sb, sizeof sb, b, nb);
        return mt_error(MT_ERR_RUNTIME,
                        "index_copy_(): Source/destination tensor must have same slice shapes. "
                        "Destination slice shape: %s at dimension %d and source slice shape: %s at "
                        "dimension 1.",
                        sa, d + 1, sb);
    }
    if (src->ndim && index->numel != src->sizes[d])
        return mt_error(
            MT_ERR_INDEX,
            "index_copy_(): Number of indices (%lld) should be equal to source.size(dim) (%lld)",
            (long long)index->numel, (long long)src->sizes[d]);
    return 0;
}

/* index_add_ adds source.select(dim, i) into self.select(dim, index[i]): a source slice
 * broadcasts to self's slice, as the in-place add PyTorch runs per index does */
static int check_index_add(const mt_tensor *self, int d, const mt_tensor *index,
                           const mt_tensor *src) {
    if (index_vector(index, "index_add_")) return -1;
    if (src->dtype != self->dtype)
        return mt_error(MT_ERR_RUNTIME,
                        "index_add_(): self (%s) and source (%s) must have the same scalar type",
                        mt_dtype_scalar_name((mt_dtype)self->dtype),
                        mt_dtype_scalar_name((mt_dtype)src->dtype));
    if (src->ndim == 0 && self->ndim != 0)
        return mt_error(MT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
    if (src->ndim != 0 && d >= src->ndim)
        return mt_error(
            MT_ERR_RUNTIME,
            "index_add_(): Indexing dim %d is out of bounds of the source tensor with dim %d",
            d + 1, src->ndim);
    int64_t n = src->ndim ? src->sizes[d] : 1;
    if (n != index->numel)
        return mt_error(MT_ERR_RUNTIME,
                        "index_add_(): Number of indices (%lld) should be equal to "
                        "source.size(dim): (%lld), for dim: %d",
                        (long long)index->numel, (long long)n, d + 1);
    int64_t a[MT_MAX_DIM], b[MT_MAX_DIM], bc[MT_MAX_DIM];
    int na = slice_shape(self, d, a), nb = slice_shape(src, d, b), nbc;
    if (mt_broadcast_shapes(na, a, nb, b, &nbc, bc)) return -1;
    if (nbc != na || memcmp(a, bc, sizeof(int64_t) * (size_t)na) != 0) {
        char sa[256], sb[256];
        mt_fmt_ilist(sa, sizeof sa, a, na);
        mt_fmt_ilist(sb, sizeof sb, bc, nbc);
        return mt_error(MT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        sa, sb);
    }
    return 0;
}

static int meta_index_put_(mt_call *c, mt_value *a, mt_outspec *o) {
    mt_tensor *self = a[0].t, *index = a[2].t, *src = a[3].t;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    if (c->op->id == MT_OP_index_add_ ? check_index_add(self, d, index, src)
                                      : check_index_copy(self, d, index, src))
        return -1;
    if (mt_check_writable(self)) return -1;
    o->inplace_arg = 0;
    return 0;
}

static int mask_dtype(const mt_tensor *mask, const char *who) {
    if (mask->dtype != MT_BOOL && mask->dtype != MT_UINT8)
        return mt_error(MT_ERR_RUNTIME,
                        "%s only supports boolean masks, but got mask with dtype %s", who,
                        mt_dtype_get((mt_dtype)mask->dtype)->name);
    return 0;
}

static int meta_masked_fill_(mt_call *c, mt_value *a, mt_outspec *o) {
    mt_tensor *self = a[0].t, *mask = a[1].t;
    if (mask_dtype(mask, "masked_fill_")) return -1;
    if (c->op->id == MT_OP_masked_fill__Tensor && a[2].t->ndim != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                        "with %d dimension(s).",
                        a[2].t->ndim);
    if (mt_check_broadcastable_to(mask, self->ndim, self->sizes) || mt_check_writable(self))
        return -1;
    o->inplace_arg = 0;
    return 0;
}

static int meta_masked_scatter_(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *mask = a[1].t, *src = a[2].t;
    if (mask_dtype(mask, "masked_scatter_")) return -1;
    if (src->dtype != self->dtype)
        return mt_error(
            MT_ERR_RUNTIME,
            "masked_scatter: expected self and source to have same dtypes but got%s and %s",
            mt_dtype_scalar_name((mt_dtype)self->dtype),
            mt_dtype_scalar_name((mt_dtype)src->dtype));
    if (mt_check_broadcastable_to(mask, self->ndim, self->sizes) || mt_check_writable(self))
        return -1;
    o->inplace_arg = 0;
    return 0;
}

static int meta_take(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *index = a[1].t;
    if (index->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME, "take(): Expected a long tensor for index, but got %s",
                        mt_dtype_scalar_name((mt_dtype)index->dtype));
    if (a[0].t->numel == 0 && index->numel > 0)
        return mt_error(MT_ERR_INDEX, "take(): tried to take from an empty tensor");
    out_like(o, index, (mt_dtype)a[0].t->dtype);
    return 0;
}

/* sort, topk, kthvalue: values like self (or with dim resized), int64 indices */
static int meta_sortlike(mt_call *c, mt_value *a, mt_outspec *o) {
    mt_tensor *self = a[0].t;
    int id = c->op->id, dim_arg = id == MT_OP_sort ? 1 : id == MT_OP_sort_stable ? 2 : 2, d;
    if (mt_wrap_dim(a[dim_arg].i, self->ndim, &d)) return -1;
    out_like(&o[0], self, (mt_dtype)self->dtype);
    int64_t size = self->ndim ? self->sizes[d] : 1;
    if (id == MT_OP_topk) {
        int64_t k = a[1].i;
        if (k < 0 || k > size) return mt_error(MT_ERR_RUNTIME, "selected index k out of range");
        if (self->ndim) o[0].sizes[d] = k;
    } else if (id == MT_OP_kthvalue) {
        int64_t k = a[1].i;
        if (k < 1 || k > size)
            return mt_error(MT_ERR_RUNTIME,
                            "kthvalue(): selected number k out of range for dimension %d", d + 1);
        if (self->ndim) {
            if (a[3].b) {
                o[0].sizes[d] = 1;
            } else {
                for (int i = d; i < self->ndim - 1; i++) o[0].sizes[i] = o[0].sizes[i + 1];
                o[0].ndim--;
            }
        }
    }
    /* sort's values and indices keep a dense self's layout, as PyTorch's */
    if ((id == MT_OP_sort || id == MT_OP_sort_stable) && self->ndim) {
        mt_preserve_strides(self, o[0].strides);
        o[0].has_strides = 1;
    }
    o[1] = o[0];
    o[1].dtype = MT_INT64;
    return 0;
}

static int meta_tri(mt_call *c, mt_value *a, mt_outspec *o) {
    mt_tensor *self = a[0].t;
    int d;
    if (mt_wrap_dim(-2, self->ndim, &d)) return -1;
    if (c->op->schema->flags & MT_S_INPLACE) {
        if (mt_check_writable(self)) return -1;
        o->inplace_arg = 0;
        return 0;
    }
    out_like(o, self, (mt_dtype)self->dtype);
    return 0;
}

void mt_index_register(void) {
    mt_disp_meta(MT_OP_cat, meta_cat);
    mt_disp_meta(MT_OP_flip, meta_flip);
    mt_disp_meta(MT_OP_repeat, meta_repeat);
    mt_disp_meta(MT_OP_gather, meta_gather);
    mt_disp_meta(MT_OP_scatter__src, meta_scatter_);
    mt_disp_meta(MT_OP_scatter__value, meta_scatter_);
    mt_disp_meta(MT_OP_scatter_add_, meta_scatter_);
    mt_disp_meta(MT_OP_scatter_reduce_two, meta_scatter_reduce);
    mt_disp_meta(MT_OP_index_select, meta_index_select);
    mt_disp_meta(MT_OP_index_add_, meta_index_put_);
    mt_disp_meta(MT_OP_index_copy_, meta_index_put_);
    mt_disp_meta(MT_OP_masked_fill__Scalar, meta_masked_fill_);
    mt_disp_meta(MT_OP_masked_fill__Tensor, meta_masked_fill_);
    mt_disp_meta(MT_OP_masked_scatter_, meta_masked_scatter_);
    mt_disp_meta(MT_OP_take, meta_take);
    mt_disp_meta(MT_OP_sort, meta_sortlike);
    mt_disp_meta(MT_OP_sort_stable, meta_sortlike);
    mt_disp_meta(MT_OP_topk, meta_sortlike);
    mt_disp_meta(MT_OP_kthvalue, meta_sortlike);
    mt_disp_meta(MT_OP_tril, meta_tri);
    mt_disp_meta(MT_OP_triu, meta_tri);
    mt_disp_meta(MT_OP_tril_, meta_tri);
    mt_disp_meta(MT_OP_triu_, meta_tri);

    static const struct {
        int op;
        mt_kernel k;
    } composites[] = {
        {MT_OP_stack, c_stack},
        {MT_OP_split_Tensor, c_split},
        {MT_OP_split_sizes, c_split},
        {MT_OP_chunk, c_chunk},
        {MT_OP_unbind_int, c_unbind},
        {MT_OP_tile, c_tile},
        {MT_OP_broadcast_to, c_broadcast_to},
        {MT_OP_broadcast_tensors, c_broadcast_tensors},
        {MT_OP_roll, c_roll},
        {MT_OP_diag, c_diag},
        {MT_OP_argsort, c_argsort},
        {MT_OP_argwhere, c_argwhere},
        {MT_OP_scatter_src, c_clone_then},
        {MT_OP_scatter_value, c_clone_then},
        {MT_OP_scatter_add, c_clone_then},
        {MT_OP_index_add, c_clone_then},
        {MT_OP_index_copy, c_clone_then},
        {MT_OP_masked_fill_Scalar, c_clone_then},
        {MT_OP_masked_fill_Tensor, c_clone_then},
        {MT_OP_masked_scatter, c_clone_then},
        {MT_OP_index_put, c_clone_then},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(composites); i++)
        mt_disp_composite(composites[i].op, composites[i].k);
}
