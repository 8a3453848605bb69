/* composite.c: operators written with other operators. They run above every dispatch key,
 * so autograd, the meta device and the pipeline see the ops they are made of. */
#include "common_ops.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <string.h>

static mt_ilist sizes_of(const mt_tensor *t) {
    return (mt_ilist){t->sizes, t->ndim};
}

static int c_reshape(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    int n = a[1].n;
    int64_t shape[MT_MAX_DIM], strides[MT_MAX_DIM];
    if (n > MT_MAX_DIM)
        return mt_error(MT_ERR_RUNTIME,
                        "mindtorch supports tensors of at most %d dimensions, got %d", MT_MAX_DIM,
                        n);
    if (mt_infer_size(a[1].il, n, s->numel, shape)) return -1;
    mt_ilist want = {shape, n};
    if (mt_view_strides(s->ndim, s->sizes, s->strides, n, shape, strides))
        return mt_ret_tensor(r, mto_view(s, want));
    mt_tensor *tmp = mto_clone(s, "contiguous_format");
    if (!tmp) return -1;
    mt_tensor *out = mto_view(tmp, want);
    mt_tensor_decref(tmp);
    return mt_ret_tensor(r, out);
}

static int c_view_as(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_view(a[0].t, sizes_of(a[1].t)));
}

static int c_reshape_as(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_reshape(a[0].t, sizes_of(a[1].t)));
}

static int c_expand_as(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_expand(a[0].t, sizes_of(a[1].t), false));
}

static int c_flatten(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    if (s->ndim == 0) return mt_ret_tensor(r, mto_reshape(s, MT_ILIST(1)));
    int start, end;
    if (mt_wrap_dim(a[1].i, s->ndim, &start) || mt_wrap_dim(a[2].i, s->ndim, &end)) return -1;
    if (start > end)
        return mt_error(MT_ERR_RUNTIME,
                        "flatten() has invalid args: start_dim cannot come after end_dim");
    if (start == end) return mt_ret_self(r, s);
    int64_t shape[MT_MAX_DIM];
    int n = 0;
    for (int i = 0; i < start; i++) shape[n++] = s->sizes[i];
    int64_t prod = 1;
    for (int i = start; i <= end; i++) prod *= s->sizes[i];
    shape[n++] = prod;
    for (int i = end + 1; i < s->ndim; i++) shape[n++] = s->sizes[i];
    return mt_ret_tensor(r, mto_reshape(s, (mt_ilist){shape, n}));
}

static int c_unflatten(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    int d;
    if (mt_wrap_dim(a[1].i, s->ndim, &d)) return -1;
    int k = a[2].n;
    if (k == 0) return mt_error(MT_ERR_RUNTIME, "unflatten: sizes must be non-empty");
    if (k > MT_MAX_DIM || s->ndim - 1 + k > MT_MAX_DIM)
        return mt_error(MT_ERR_RUNTIME,
                        "mindtorch supports tensors of at most %d dimensions, got %d", MT_MAX_DIM,
                        s->ndim - 1 + k);
    int64_t sizes[MT_MAX_DIM];
    bool infer = false;
    for (int i = 0; i < k; i++) infer |= a[2].il[i] == -1;
    if (infer) {
        if (mt_infer_size(a[2].il, k, s->sizes[d], sizes)) {
            mt_error_prefix("unflatten got an unexpected error:\n");
            return -1;
        }
    } else {
        for (int i = 0; i < k; i++) sizes[i] = a[2].il[i];
    }
    int64_t prod = 1;
    for (int i = 0; i < k; i++) prod *= sizes[i];
    if (prod != s->sizes[d]) {
        char buf[256];
        mt_fmt_ilist(buf, sizeof buf, a[2].il, k);
        return mt_error(
            MT_ERR_RUNTIME,
            "unflatten: Provided sizes %s don't multiply up to the size of dim %d (%lld) "
            "in the input tensor",
            buf, d + 1, (long long)s->sizes[d]);
    }
    int64_t shape[MT_MAX_DIM];
    int n = 0;
    for (int i = 0; i < d; i++) shape[n++] = s->sizes[i];
    for (int i = 0; i < k; i++) shape[n++] = sizes[i];
    for (int i = d + 1; i < s->ndim; i++) shape[n++] = s->sizes[i];
    return mt_ret_tensor(r, mto_view(s, (mt_ilist){shape, n}));
}

/* contiguous(memory_format): PyTorch's default is contiguous_format; preserve_format asks for
 * the contiguous layout too and copies as clone preserves */
static int c_contiguous(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    const char *fmt = a[1].tag == MT_V_STR ? a[1].s : NULL; /* NULL: contiguous_format */
    if (mt_tensor_is_contiguous_as(a[0].t, fmt)) return mt_ret_self(r, a[0].t);
    return mt_ret_tensor(r, mto_clone(a[0].t, fmt ? fmt : "contiguous_format"));
}

/* empty_like/zeros_like/ones_like/full_like: (self, [fill_value,] *, dtype, device, rg,
 * memory_format) */
static mt_tensor *empty_like(mt_tensor *s, mt_value dtype, mt_value device, mt_value format) {
    int64_t strides[MT_MAX_DIM];
    if (mt_strides_like(s, format.tag == MT_V_STR ? format.s : NULL, strides)) return NULL;
    mt_device dev = device.tag == MT_V_DEVICE ? device.dev : s->device;
    int dt = dtype.tag == MT_V_DTYPE ? dtype.dtype : s->dtype;
    return mto_empty_strided(sizes_of(s), (mt_ilist){strides, s->ndim}, dt, dev, false, false);
}

static int c_like(mt_call *c, mt_value *a, mt_value *r) {
    int id = c->op->id, at = id == MT_OP_full_like ? 2 : 1;
    mt_tensor *t = empty_like(a[0].t, a[at], a[at + 1], a[at + 3]);
    if (!t) return -1;
    if (id == MT_OP_empty_like) return mt_ret_tensor(r, t);
    mt_tensor *f = id == MT_OP_zeros_like  ? mto_zero_(t)
                   : id == MT_OP_ones_like ? mto_fill__Scalar(t, mt_vint(1))
                                           : mto_fill__Scalar(t, a[1]);
    mt_tensor_decref(t); /* fill_ returned its own reference to t */
    return mt_ret_tensor(r, f);
}

static int c_zero_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_fill__Scalar(a[0].t, mt_vint(0)));
}

/* to(): self itself when neither device nor dtype changes, self is laid out as memory_format
 * asks (preserve_format, the default, asks nothing) and copy=false */
static int to_common(mt_tensor *s, mt_value device, mt_value dtype, bool non_blocking, bool copy,
                     mt_value format, mt_value *r) {
    mt_device dev = device.tag == MT_V_DEVICE ? mt_device_resolve(device.dev) : s->device;
    if (dev.type == MT_DEV_CPU) dev.index = -1;
    int dt = dtype.tag == MT_V_DTYPE ? dtype.dtype : s->dtype;
    const char *fmt = format.tag == MT_V_STR ? format.s : NULL;
    bool laid_out =
        !fmt || strcmp(fmt, "preserve_format") == 0 || mt_tensor_is_contiguous_as(s, fmt);
    if (!copy && mt_device_eq(dev, s->device) && dt == s->dtype && laid_out)
        return mt_ret_self(r, s);
    return mt_ret_tensor(r, mto__to_copy(s, dt, dev, non_blocking, fmt));
}

static int c_to_device(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return to_common(a[0].t, a[1], a[2], a[3].b, a[4].b, a[5], r);
}

static int c_to_dtype(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return to_common(a[0].t, MT_NONE, a[1], a[2].b, a[3].b, a[4], r);
}

static int c_to_other(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *o = a[1].t;
    return to_common(a[0].t, mt_vdevice(o->device), mt_vdtype(o->dtype), a[2].b, a[3].b, a[4], r);
}

/* A non_blocking copy from an accelerator to the CPU lands in the accelerator's pinned host
 * memory, as PyTorch's, so that the copy can stay queued. *out stays NULL where that does not
 * apply (a CPU or meta source, a backend without pinned memory); -1 on an error. */
static int pinned_like(mt_tensor *s, const int64_t *strides, mt_dtype dt, mt_tensor **out) {
    *out = NULL;
    if (s->device.type == MT_DEV_CPU || s->device.type == MT_DEV_META) return 0;
    const mt_backend *b = mt_backend_get(s->device.type);
    if (!b) return -1;
    if (!b->host_allocator) return 0;
    int64_t nbytes = mt_required_nbytes(s->ndim, s->sizes, strides, 0, mt_dtype_size(dt));
    if (nbytes < 0) return mt_error(MT_ERR_RUNTIME, "tensor size overflows");
    mt_storage *st = mt_storage_new_pinned((size_t)nbytes, b);
    if (!st) return -1;
    *out = mt_tensor_from_storage(st, 0, s->ndim, s->sizes, strides, dt);
    mt_storage_decref(st);
    return *out ? 0 : -1;
}

/* _to_copy: an empty tensor on the target device (dense layouts kept), then copy_, so every
 * device and mode (meta, pipeline, autograd) sees the two ops it is made of */
static int c_to_copy(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    mt_device dev = a[2].tag == MT_V_DEVICE ? mt_device_resolve(a[2].dev) : s->device;
    if (dev.type == MT_DEV_CPU) dev.index = -1;
    mt_dtype dt = a[1].tag == MT_V_DTYPE ? (mt_dtype)a[1].dtype : (mt_dtype)s->dtype;
    if (s->device.type == MT_DEV_META && dev.type != MT_DEV_META)
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "Cannot copy out of meta tensor; no data!");
    int64_t strides[MT_MAX_DIM];
    if (mt_strides_like(s, a[4].tag == MT_V_STR ? a[4].s : NULL, strides)) return -1;
    mt_tensor *out = NULL;
    if (a[3].b && dev.type == MT_DEV_CPU && pinned_like(s, strides, dt, &out)) return -1;
    if (!out)
        out = mto_empty_strided(sizes_of(s), (mt_ilist){strides, s->ndim}, dt, dev, false, false);
    if (!out) return -1;
    mt_tensor *w = mto_copy_(out, s, a[3].b);
    if (!w) {
        mt_tensor_decref(out);
        return -1;
    }
    mt_tensor_decref(w);
    return mt_ret_tensor(r, out);
}

/* clamp(self, min?, max?) with tensor bounds: maximum, then minimum (NaN propagates) */
static mt_tensor *clamp_tensors(mt_tensor *self, mt_tensor *lo, mt_tensor *hi) {
    if (!lo && !hi)
        return mt_error_null(MT_ERR_RUNTIME,
                             "torch.clamp: At least one of 'min' or 'max' must not be None");
    mt_dtype dt = (mt_dtype)self->dtype;
    if (lo) dt = mt_promote_types(dt, (mt_dtype)lo->dtype);
    if (hi) dt = mt_promote_types(dt, (mt_dtype)hi->dtype);
    if (dt == MT_BOOL || dt == MT_FLOAT16) /* PyTorch's clamp kernel has neither */
        return mt_error_null(MT_ERR_RUNTIME, "\"clamp_cpu\" not implemented for '%s'",
                             mt_dtype_scalar_name(dt));
    mt_tensor *t = self;
    mt_tensor_incref(t);
    if (lo) {
        mt_tensor *n = mto_maximum(t, lo);
        mt_tensor_decref(t);
        if (!(t = n)) return NULL;
    }
    if (hi) {
        mt_tensor *n = mto_minimum(t, hi);
        mt_tensor_decref(t);
        t = n;
    }
    return t;
}

static int c_clamp_tensor(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, clamp_tensors(a[0].t, a[1].tag == MT_V_TENSOR ? a[1].t : NULL,
                                          a[2].tag == MT_V_TENSOR ? a[2].t : NULL));
}

static int c_clamp_tensor_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *v = clamp_tensors(a[0].t, a[1].tag == MT_V_TENSOR ? a[1].t : NULL,
                                 a[2].tag == MT_V_TENSOR ? a[2].t : NULL);
    if (!v) return -1;
    mt_tensor *w = mto_copy_(a[0].t, v, false);
    mt_tensor_decref(v);
    return mt_ret_tensor(r, w);
}

static int c_max_other(mt_call *c, mt_value *a, mt_value *r) {
    return mt_ret_tensor(r, c->op->id == MT_OP_max_other ? mto_maximum(a[0].t, a[1].t)
                                                         : mto_minimum(a[0].t, a[1].t));
}

/* logsumexp: max + log(sum(exp(x - max))), with infinite maxima taken as 0 (PyTorch's way) */
static int c_logsumexp(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[0].t, *xf = NULL, *m = NULL, *ms = NULL, *d = NULL, *e = NULL, *s = NULL,
              *l = NULL, *inf = NULL, *zero = NULL, *mz = NULL, *out = NULL;
    mt_ilist dims = {a[1].il, a[1].n};
    bool keep = a[2].b;
    xf = mt_dtype_is_floating((mt_dtype)x->dtype)
             ? (mt_tensor_incref(x), x)
             : mto_to_dtype(x, mt_default_dtype(), false, false, NULL);
    if (!xf) goto done;
    if (xf->numel == 0) { /* no maximum to subtract: log(sum(exp(x))) */
        if ((e = mto_exp(xf)) && (s = mto_sum_dim_IntList(e, dims, keep, -1))) out = mto_log(s);
        goto done;
    }
    if (!(m = mto_amax(xf, dims, true))) goto done;
    if (keep) {
        ms = m;
        mt_tensor_incref(ms);
    } else {
        int64_t shape[MT_MAX_DIM];
        int n = 0;
        bool red[MT_MAX_DIM] = {0};
        for (int i = 0; i < dims.n; i++) {
            int w;
            if (mt_wrap_dim(dims.v[i], xf->ndim, &w)) goto done;
            red[w] = true;
        }
        for (int i = 0; i < xf->ndim; i++)
            if (!red[i] && dims.n) shape[n++] = xf->sizes[i];
        if (!(ms = mto_view(m, (mt_ilist){shape, n}))) goto done;
    }
    if (!(inf = mto_isinf(ms)) || !(mz = mto_where_ScalarSelf(inf, mt_vint(0), ms))) goto done;
    mt_tensor *mk = keep ? mz : m; /* subtract the (finite) maxima with the reduced dims kept */
    mt_tensor *mkz = NULL;
    if (!keep) {
        mt_tensor *infk = mto_isinf(m);
        mkz = infk ? mto_where_ScalarSelf(infk, mt_vint(0), m) : NULL;
        mt_tensor_decref(infk);
        if (!mkz) goto done;
        mk = mkz;
    }
    d = mto_sub_Tensor(xf, mk, mt_vint(1));
    mt_tensor_decref(mkz);
    if (!d || !(e = mto_exp(d)) || !(s = mto_sum_dim_IntList(e, dims, keep, -1)) ||
        !(l = mto_log(s)))
        goto done;
    out = mto_add_Tensor(l, mz, mt_vint(1));
done:
    mt_tensor_decref(xf);
    mt_tensor_decref(m);
    mt_tensor_decref(ms);
    mt_tensor_decref(d);
    mt_tensor_decref(e);
    mt_tensor_decref(s);
    mt_tensor_decref(l);
    mt_tensor_decref(inf);
    mt_tensor_decref(zero);
    mt_tensor_decref(mz);
    return mt_ret_tensor(r, out);
}

void mt_common_register(void) {
    static const struct {
        int op;
        mt_kernel k;
    } views[] = {
        {MT_OP_view, mt_k_view},
        {MT_OP_transpose_int, mt_k_transpose},
        {MT_OP_t, mt_k_t},
        {MT_OP_permute, mt_k_permute},
        {MT_OP_expand, mt_k_expand},
        {MT_OP_narrow, mt_k_narrow},
        {MT_OP_select_int, mt_k_select},
        {MT_OP_squeeze, mt_k_squeeze},
        {MT_OP_squeeze_dim, mt_k_squeeze},
        {MT_OP_unsqueeze, mt_k_unsqueeze},
        {MT_OP_as_strided, mt_k_as_strided},
        {MT_OP_detach, mt_k_detach},
        {MT_OP_alias, mt_k_alias},
        {MT_OP_diagonal, mt_k_diagonal},
        {MT_OP_resize_, mt_k_resize_},
    };
    /* views only compute metadata: one kernel serves every device, accelerators registered later
     * included */
    for (size_t i = 0; i < MT_ARRAY_LEN(views); i++)
        for (int k = MT_KEY_CPU; k <= MT_KEY_META; k++)
            mt_disp_kernel(views[i].op, (mt_key)k, views[i].k);
    mt_disp_composite(MT_OP__to_copy, c_to_copy);

    static const struct {
        int op;
        mt_kernel k;
    } composites[] = {
        {MT_OP_reshape, c_reshape},
        {MT_OP_view_as, c_view_as},
        {MT_OP_reshape_as, c_reshape_as},
        {MT_OP_expand_as, c_expand_as},
        {MT_OP_flatten_using_ints, c_flatten},
        {MT_OP_unflatten_int, c_unflatten},
        {MT_OP_contiguous, c_contiguous},
        {MT_OP_empty_like, c_like},
        {MT_OP_zeros_like, c_like},
        {MT_OP_ones_like, c_like},
        {MT_OP_full_like, c_like},
        {MT_OP_zero_, c_zero_},
        {MT_OP_to_device, c_to_device},
        {MT_OP_to_dtype, c_to_dtype},
        {MT_OP_to_other, c_to_other},
        {MT_OP_clamp_Tensor, c_clamp_tensor},
        {MT_OP_clip_Tensor, c_clamp_tensor},
        {MT_OP_clamp__Tensor, c_clamp_tensor_},
        {MT_OP_max_other, c_max_other},
        {MT_OP_min_other, c_max_other},
        {MT_OP_logsumexp, c_logsumexp},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(composites); i++)
        mt_disp_composite(composites[i].op, composites[i].k);
}
