/* shape_more.c: shape and indexing ops written with other ops (src/ops/shape_more.lua). They run
 * above every dispatch key, so autograd, the meta device and the pipeline see the ops they are
 * made of. Dims arrive 0-based; error texts quote them as the user wrote them. */
#include "common_ops.h"
#include "elementwise.h"
#include "mt_autograd.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void decref_all(mt_tensor **v, int n) {
    if (!v) return;
    for (int i = 0; i < n; i++) mt_tensor_decref(v[i]);
    free(v);
}

/* r[0] = the list v of n tensors, or -1 (freeing them) when one is missing */
static int ret_list(mt_value *r, mt_tensor **v, int n) {
    for (int i = 0; i < n; i++)
        if (!v[i]) {
            decref_all(v, n);
            return -1;
        }
    r[0] = (mt_value){.tag = MT_V_TENSORLIST, .n = n, .tl = v};
    return 0;
}

static mt_tensor **new_list(int n) {
    return mt_calloc((size_t)(n ? n : 1), sizeof(mt_tensor *));
}

/* ---- atleast_Nd ------------------------------------------------------------------------------ */

static mt_tensor *atleast(mt_tensor *t, int n) {
    if (t->ndim >= n) {
        mt_tensor_incref(t);
        return t;
    }
    if (t->ndim == 0) {
        int64_t ones[3] = {1, 1, 1};
        return mto_reshape(t, (mt_ilist){ones, n});
    }
    if (n == 2) return mto_unsqueeze(t, 0);
    if (t->ndim == 1) return mto_view(t, MT_ILIST(1, t->sizes[0], 1));
    return mto_unsqueeze(t, 2); /* 2-D to 3-D */
}

static int atleast_n(int id) {
    return id == MT_OP_atleast_1d || id == MT_OP_atleast_1d_Sequence   ? 1
           : id == MT_OP_atleast_2d || id == MT_OP_atleast_2d_Sequence ? 2
                                                                       : 3;
}

static int c_atleast(mt_call *c, mt_value *a, mt_value *r) {
    return mt_ret_tensor(r, atleast(a[0].t, atleast_n(c->op->id)));
}

static int c_atleast_seq(mt_call *c, mt_value *a, mt_value *r) {
    int n = a[0].n, k = atleast_n(c->op->id);
    mt_tensor **v = new_list(n);
    if (!v) return -1;
    for (int i = 0; i < n; i++)
        if (!(v[i] = atleast(a[0].tl[i], k))) break;
    return ret_list(r, v, n);
}

/* ---- stacks ---------------------------------------------------------------------------------- */

/* cat of f(t) for each t (f: atleast_Nd, or columns for column_stack) along dim */
static mt_tensor *cat_of(mt_tensor **ts, int n, int k, bool columns, int64_t dim, int dim_if_1d) {
    mt_tensor **v = new_list(n);
    if (!v) return NULL;
    mt_tensor *out = NULL;
    for (int i = 0; i < n; i++) {
        mt_tensor *t = ts[i];
        v[i] = columns && t->ndim <= 1 ? mto_reshape(t, MT_ILIST(t->numel, 1)) : atleast(t, k);
        if (!v[i]) goto done;
    }
    out = mto_cat(v, n, dim_if_1d >= 0 && v[0]->ndim == 1 ? dim_if_1d : dim);
done:
    decref_all(v, n);
    return out;
}

static int c_stacks(mt_call *c, mt_value *a, mt_value *r) {
    int id = c->op->id, n = a[0].n;
    mt_tensor **ts = a[0].tl;
    if (id == MT_OP_concat || id == MT_OP_concatenate)
        return mt_ret_tensor(r, mto_cat(ts, n, a[1].i));
    const char *name = id == MT_OP_hstack         ? "hstack"
                       : id == MT_OP_column_stack ? "column_stack"
                       : id == MT_OP_dstack       ? "dstack"
                                                  : "vstack";
    if (n == 0) return mt_error(MT_ERR_RUNTIME, "%s expects a non-empty TensorList", name);
    if (id == MT_OP_hstack) return mt_ret_tensor(r, cat_of(ts, n, 1, false, 1, 0));
    if (id == MT_OP_column_stack) return mt_ret_tensor(r, cat_of(ts, n, 1, true, 1, 0));
    if (id == MT_OP_dstack) return mt_ret_tensor(r, cat_of(ts, n, 3, false, 2, -1));
    return mt_ret_tensor(r, cat_of(ts, n, 2, false, 0, -1));
}

/* ---- block_diag, cartesian_prod, combinations, meshgrid -------------------------------------- */

static int c_block_diag(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    int n = a[0].n;
    mt_tensor **ts = a[0].tl;
    int64_t rows = 0, cols = 0;
    mt_result_type rt;
    mt_rt_init(&rt);
    mt_device dev = MT_CPU;
    for (int i = 0; i < n; i++) {
        mt_tensor *t = ts[i];
        if (t->ndim > 2)
            return mt_error(MT_ERR_RUNTIME,
                            "torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                            "Input %d has %d dimensions",
                            i, t->ndim);
        mt_rt_tensor(&rt, t);
        if (i == 0) dev = t->device;
        rows += t->ndim == 2 ? t->sizes[0] : 1;
        cols += t->ndim == 2 ? t->sizes[1] : t->ndim == 1 ? t->sizes[0] : 1;
    }
    mt_dtype dt = n ? mt_rt_result(&rt) : mt_default_dtype();
    if (!n) rows = 1; /* PyTorch gives a 1 x 0 tensor */
    mt_tensor *out = mto_zeros(MT_ILIST(rows, cols), dt, dev, false, false);
    if (!out) return -1;
    int64_t r0 = 0, c0 = 0;
    for (int i = 0; i < n; i++) {
        mt_tensor *t = ts[i];
        int64_t h = t->ndim == 2 ? t->sizes[0] : 1;
        int64_t w = t->ndim == 2 ? t->sizes[1] : t->ndim == 1 ? t->sizes[0] : 1;
        mt_tensor *rs = mto_narrow(out, 0, r0, h), *blk = rs ? mto_narrow(rs, 1, c0, w) : NULL;
        mt_tensor *src = blk ? mto_view(t, MT_ILIST(h, w)) : NULL;
        if (!src && blk) src = mto_reshape(t, MT_ILIST(h, w));
        mt_tensor *wr = src ? mto_copy_(blk, src, false) : NULL;
        mt_tensor_decref(rs);
        mt_tensor_decref(blk);
        mt_tensor_decref(src);
        if (!wr) {
            mt_tensor_decref(out);
            return -1;
        }
        mt_tensor_decref(wr);
        r0 += h;
        c0 += w;
    }
    return mt_ret_tensor(r, out);
}

/* the grids of meshgrid (ij order) of 0-D/1-D tensors */
static int grids_ij(mt_tensor **ts, int n, mt_tensor **v) {
    int64_t shape[MT_MAX_DIM], vs[MT_MAX_DIM];
    if (n > MT_MAX_DIM)
        return mt_error(MT_ERR_RUNTIME,
                        "mindtorch supports tensors of at most %d dimensions, got %d", MT_MAX_DIM,
                        n);
    for (int i = 0; i < n; i++) shape[i] = ts[i]->numel;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < n; k++) vs[k] = k == i ? -1 : 1;
        mt_tensor *w = mto_view(ts[i], (mt_ilist){vs, n});
        if (!w) return -1;
        v[i] = mto_expand(w, (mt_ilist){shape, n}, false);
        mt_tensor_decref(w);
        if (!v[i]) return -1;
    }
    return 0;
}

static int meshgrid_check(mt_tensor **ts, int n) {
    if (n == 0) return mt_error(MT_ERR_RUNTIME, "meshgrid expects a non-empty TensorList");
    for (int i = 0; i < n; i++)
        if (ts[i]->dtype != ts[0]->dtype)
            return mt_error(MT_ERR_RUNTIME, "meshgrid expects all tensors to have the same dtype");
        else if (!mt_device_eq(ts[i]->device, ts[0]->device))
            return mt_error(MT_ERR_RUNTIME, "meshgrid expects all tensors to have the same device");
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim > 1)
            return mt_error(MT_ERR_RUNTIME,
                            "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                            "%s",
                            "");
    return 0;
}

static int c_meshgrid(mt_call *c, mt_value *a, mt_value *r) {
    int n = a[0].n;
    mt_tensor **ts = a[0].tl;
    bool xy = false;
    if (c->op->id == MT_OP_meshgrid_indexing) {
        const char *ix = a[1].s;
        if (strcmp(ix, "xy") == 0)
            xy = true;
        else if (strcmp(ix, "ij") != 0)
            return mt_error(MT_ERR_RUNTIME,
                            "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                            "received: %s",
                            ix);
    }
    if (meshgrid_check(ts, n)) return -1;
    mt_tensor **in = new_list(n), **v = new_list(n);
    if (!in || !v) {
        free(in);
        free(v);
        return -1;
    }
    for (int i = 0; i < n; i++) in[i] = ts[i];
    xy = xy && n >= 2;
    if (xy) { /* cartesian order: the grids of (b, a, ...), the first two given back swapped */
        in[0] = ts[1];
        in[1] = ts[0];
    }
    int st = grids_ij(in, n, v);
    free(in);
    if (st) {
        decref_all(v, n);
        return -1;
    }
    if (xy) {
        mt_tensor *g0 = v[0];
        v[0] = v[1];
        v[1] = g0;
    }
    return ret_list(r, v, n);
}

static int check_1d(const mt_tensor *t) {
    if (t->ndim == 1) return 0;
    char buf[256];
    mt_fmt_ilist(buf, sizeof buf, t->sizes, t->ndim);
    return mt_error(MT_ERR_RUNTIME, "Expect a 1D vector, but got shape %s", buf);
}

static int c_cartesian_prod(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    int n = a[0].n;
    mt_tensor **ts = a[0].tl;
    for (int i = 0; i < n; i++)
        if (check_1d(ts[i])) return -1;
    if (n == 1) return mt_ret_self(r, ts[0]);
    if (meshgrid_check(ts, n)) return -1;
    mt_tensor **v = new_list(n);
    if (!v) return -1;
    mt_tensor *out = NULL;
    if (grids_ij(ts, n, v) == 0) {
        for (int i = 0; i < n; i++) {
            mt_tensor *f = mto_reshape(v[i], MT_ILIST(-1));
            mt_tensor_decref(v[i]);
            if (!(v[i] = f)) goto done;
        }
        out = mto_stack(v, n, 1);
    }
done:
    decref_all(v, n);
    return mt_ret_tensor(r, out);
}

static int c_combinations(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    int64_t k = a[1].i;
    bool repl = a[2].b;
    if (check_1d(self)) return -1;
    if (k < 0)
        return mt_error(MT_ERR_RUNTIME, "Expect a non-negative number, but got %lld", (long long)k);
    if (k == 0)
        return mt_ret_tensor(r,
                             mto_empty(MT_ILIST(0), self->dtype, self->device, false, false, NULL));
    if (k > MT_MAX_DIM)
        return mt_error(MT_ERR_RUNTIME,
                        "mindtorch supports tensors of at most %d dimensions, got %lld", MT_MAX_DIM,
                        (long long)k);
    int n = (int)k;
    /* the grids of positions pick the tuples i1 < i2 < ... (<= with replacement) */
    mt_tensor *pos = mto_arange(mt_vint(self->sizes[0]), MT_INT64, self->device, false, false);
    mt_tensor *ins[MT_MAX_DIM], *vals[MT_MAX_DIM] = {0}, *idx[MT_MAX_DIM] = {0}, *mask = NULL,
                                *out = NULL;
    for (int i = 0; i < n; i++) ins[i] = self;
    if (!pos || grids_ij(ins, n, vals)) goto done;
    for (int i = 0; i < n; i++) ins[i] = pos;
    if (grids_ij(ins, n, idx)) goto done;
    for (int i = 0; i + 1 < n; i++) {
        mt_tensor *m = repl ? mto_le_Tensor(idx[i], idx[i + 1]) : mto_lt_Tensor(idx[i], idx[i + 1]);
        if (!m) goto done;
        if (mask) {
            mt_tensor *both = mto_logical_and(mask, m);
            mt_tensor_decref(m);
            mt_tensor_decref(mask);
            if (!(mask = both)) goto done;
        } else {
            mask = m;
        }
    }
    if (!mask) { /* r == 1: every element */
        out = mto_view(self, MT_ILIST(-1, 1));
        goto done;
    }
    for (int i = 0; i < n; i++) {
        mt_tensor *s = mto_masked_select(vals[i], mask);
        mt_tensor_decref(vals[i]);
        if (!(vals[i] = s)) goto done;
    }
    out = mto_stack(vals, n, 1);
done:
    mt_tensor_decref(pos);
    mt_tensor_decref(mask);
    for (int i = 0; i < n; i++) {
        mt_tensor_decref(vals[i]);
        mt_tensor_decref(idx[i]);
    }
    return mt_ret_tensor(r, out);
}

/* ---- tensor_split, hsplit/vsplit/dsplit, split_with_sizes ------------------------------------ */

static int split_at(mt_tensor *self, int d, const int64_t *ix, int k, mt_value *r) {
    mt_tensor **v = new_list(k + 1);
    if (!v) return -1;
    int64_t size = self->sizes[d], start = 0;
    for (int i = 0; i <= k; i++) { /* piece i is self[ix[i-1]:ix[i]] as a Python slice */
        int64_t end = i < k ? ix[i] : size;
        if (end < 0) end += size; /* a slice's negative end counts from the end */
        end = end < 0 ? 0 : end > size ? size : end;
        v[i] = mto_narrow(self, d, start, end > start ? end - start : 0);
        if (!v[i]) return ret_list(r, v, k + 1);
        start = end;
    }
    return ret_list(r, v, k + 1);
}

static int split_sections(mt_tensor *self, int d, int64_t sections, mt_value *r) {
    if (sections <= 0)
        return mt_error(MT_ERR_RUNTIME, "number of sections must be larger than 0, got %lld",
                        (long long)sections);
    if (sections > 1 << 20) return mt_error(MT_ERR_RUNTIME, "tensor_split: too many sections");
    int n = (int)sections;
    int64_t size = self->sizes[d], base = size / sections, extra = size % sections;
    int64_t *ix = mt_calloc((size_t)n, sizeof *ix);
    if (!ix) return -1;
    int64_t at = 0;
    for (int i = 0; i + 1 < n; i++) {
        at += base + (i < extra ? 1 : 0);
        ix[i] = at;
    }
    int st = split_at(self, d, ix, n - 1, r);
    free(ix);
    return st;
}

static int c_tensor_split(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *self = a[0].t;
    int id = c->op->id, d;
    if (self->ndim == 0)
        return mt_error(MT_ERR_RUNTIME,
                        "tensor_split expected at least a 1-dimensional tensor, but got a tensor "
                        "with 0 dims");
    if (mt_wrap_dim(a[2].i, self->ndim, &d)) return -1;
    if (id == MT_OP_tensor_split_sections) return split_sections(self, d, a[1].i, r);
    if (id == MT_OP_tensor_split_indices) return split_at(self, d, a[1].il, a[1].n, r);
    mt_tensor *t = a[1].t;
    if (t->device.type == MT_DEV_META) /* the pieces depend on the values */
        return mt_error(
            MT_ERR_NOT_IMPLEMENTED,
            "Could not run 'aten::tensor_split' with arguments from the 'Meta' backend.");
    if (t->device.type != MT_DEV_CPU)
        return mt_error(MT_ERR_RUNTIME,
                        "tensor_split expected tensor_indices_or_sections to be on cpu, but it's "
                        "on %s",
                        mt_devtype_name(t->device.type));
    if (t->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME,
                        "tensor_split expected tensor_indices_or_sections to have dtype of long, "
                        "but got %s",
                        mt_dtype_scalar_name((mt_dtype)t->dtype));
    if (t->ndim > 1)
        return mt_error(MT_ERR_RUNTIME,
                        "tensor_split expected tensor_indices_or_sections to be a zero-dimensional "
                        "or one-dimensional tensor, but got a tensor with %d dims",
                        t->ndim);
    mt_tensor *ct = mto_contiguous(t, NULL);
    if (!ct) return -1;
    int st = mt_tensor_sync(ct);
    const int64_t *vals = st ? NULL : (const int64_t *)mt_tensor_raw(ct);
    if (!st)
        st = t->ndim == 0 ? split_sections(self, d, vals[0], r)
                          : split_at(self, d, vals, (int)t->numel, r);
    mt_tensor_decref(ct);
    return st;
}

static int c_hvdsplit(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *self = a[0].t;
    int id = c->op->id;
    bool h = id == MT_OP_hsplit_int || id == MT_OP_hsplit_array;
    bool v = id == MT_OP_vsplit_int || id == MT_OP_vsplit_array;
    const char *name = h ? "hsplit" : v ? "vsplit" : "dsplit";
    int need = h ? 1 : v ? 2 : 3;
    if (self->ndim < need)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.%s requires a tensor with at least %d dimension, but got a tensor "
                        "with %d dimensions!",
                        name, need, self->ndim);
    int d = h ? (self->ndim == 1 ? 0 : 1) : v ? 0 : 2;
    bool sections = id == MT_OP_hsplit_int || id == MT_OP_vsplit_int || id == MT_OP_dsplit_int;
    if (!sections) return split_at(self, d, a[1].il, a[1].n, r);
    int64_t s = a[1].i;
    if (s != 0 && self->sizes[d] % s != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.%s attempted to split along dimension %d, but the size of the "
                        "dimension %lld is not divisible by the split_size %lld!",
                        name, d + 1, (long long)self->sizes[d], (long long)s);
    return split_sections(self, d, s, r);
}

static int c_split_with_sizes(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tlist out;
    if (mto_split_sizes(a[0].t, (mt_ilist){a[1].il, a[1].n}, a[2].i, &out)) return -1;
    r[0] = (mt_value){.tag = MT_V_TENSORLIST, .n = out.n, .tl = out.v};
    return 0;
}

/* ---- diag_embed, diagflat, fliplr/flipud, rot90, ravel --------------------------------------- */

static int c_diag_embed(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    int64_t off = a[1].i;
    int nd = self->ndim + 1, d1, d2;
    if (nd > MT_MAX_DIM)
        return mt_error(MT_ERR_RUNTIME,
                        "mindtorch supports tensors of at most %d dimensions, got %d", MT_MAX_DIM,
                        nd);
    if (mt_wrap_dim(a[2].i, nd, &d1) || mt_wrap_dim(a[3].i, nd, &d2)) return -1;
    if (d1 == d2)
        return mt_error(MT_ERR_RUNTIME, "diagonal dimensions cannot be identical %lld, %lld",
                        mt_user_dim(a[2].i), mt_user_dim(a[3].i));
    int64_t last = self->ndim ? self->sizes[self->ndim - 1] : 1;
    int64_t len = last + (off < 0 ? -off : off);
    int lo = d1 < d2 ? d1 : d2, hi = d1 < d2 ? d2 : d1;
    int64_t shape[MT_MAX_DIM];
    int k = 0;
    for (int i = 0; i < nd; i++) shape[i] = i == lo || i == hi ? len : self->sizes[k++];
    mt_tensor *out = mto_zeros((mt_ilist){shape, nd}, self->dtype, self->device, false, false);
    mt_tensor *dg = out ? mto_diagonal(out, off, d1, d2) : NULL;
    mt_tensor *w = dg ? mto_copy_(dg, self, false) : NULL;
    mt_tensor_decref(dg);
    mt_tensor_decref(w);
    if (!w) {
        mt_tensor_decref(out);
        return -1;
    }
    return mt_ret_tensor(r, out);
}

static int c_diagflat(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *f = mto_reshape(a[0].t, MT_ILIST(-1));
    mt_tensor *out = f ? mto_diag(f, a[1].i) : NULL;
    mt_tensor_decref(f);
    return mt_ret_tensor(r, out);
}

static int c_flip_lr_ud(mt_call *c, mt_value *a, mt_value *r) {
    bool lr = c->op->id == MT_OP_fliplr;
    if (a[0].t->ndim < (lr ? 2 : 1))
        return mt_error(MT_ERR_RUNTIME, "Input must be >= %d-d.", lr ? 2 : 1);
    return mt_ret_tensor(r, mto_flip(a[0].t, MT_ILIST(lr ? 1 : 0)));
}

static int c_rot90(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    int64_t k = a[1].i;
    if (a[2].n != 2)
        return mt_error(MT_ERR_RUNTIME, "expected total rotation dims == 2, but got dims = %d",
                        a[2].n);
    int nd = self->ndim;
    if (nd < 2)
        return mt_error(MT_ERR_RUNTIME, "expected total dims >= 2, but got total dims = %d", nd);
    int64_t u0 = a[2].il[0], u1 = a[2].il[1];
    int64_t diff = u0 - u1;
    if (u0 == u1 || diff == nd || diff == -nd)
        return mt_error(MT_ERR_RUNTIME,
                        "expected rotation dims to be different, but got dim0 = %lld and dim1 = "
                        "%lld",
                        mt_user_dim(u0), mt_user_dim(u1));
    if (u0 >= nd || u0 < -nd)
        return mt_error(MT_ERR_RUNTIME, "Rotation dim0 out of range, dim0 = %lld", mt_user_dim(u0));
    if (u1 >= nd || u1 < -nd)
        return mt_error(MT_ERR_RUNTIME, "Rotation dim1 out of range, dim1 = %lld", mt_user_dim(u1));
    int d0 = (int)(u0 < 0 ? u0 + nd : u0), d1 = (int)(u1 < 0 ? u1 + nd : u1);
    k = ((k % 4) + 4) % 4;
    if (k == 0) return mt_ret_tensor(r, mto_clone(self, "contiguous_format"));
    if (k == 2) return mt_ret_tensor(r, mto_flip(self, MT_ILIST(d0, d1)));
    mt_tensor *f = mto_flip(self, MT_ILIST(k == 1 ? d1 : d0));
    mt_tensor *out = f ? mto_transpose_int(f, d0, d1) : NULL;
    mt_tensor_decref(f);
    return mt_ret_tensor(r, out);
}

static int c_ravel(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *ct = mto_contiguous(a[0].t, NULL);
    mt_tensor *out = ct ? mto_view(ct, MT_ILIST(-1)) : NULL;
    mt_tensor_decref(ct);
    return mt_ret_tensor(r, out);
}

/* ---- movedim, swapaxes ----------------------------------------------------------------------- */

static int movedim(mt_tensor *self, const int64_t *src, const int64_t *dst, int n, int m,
                   mt_value *r) {
    int nd = self->ndim;
    char x[256], y[256];
    if (n != m) {
        mt_fmt_ilist(x, sizeof x, src, n);
        mt_fmt_ilist(y, sizeof y, dst, m);
        return mt_error(MT_ERR_RUNTIME,
                        "movedim: Invalid source or destination dims: source (%s dims) should "
                        "contain the same number of dims as destination (%s dims)",
                        x, y);
    }
    int s[MT_MAX_DIM], d[MT_MAX_DIM], perm[MT_MAX_DIM];
    bool used_s[MT_MAX_DIM] = {0}, used_d[MT_MAX_DIM] = {0};
    if (n > MT_MAX_DIM) return mt_error(MT_ERR_RUNTIME, "movedim: too many dims");
    int wnd = nd ? nd : 1;
    for (int i = 0; i < n; i++)
        if (mt_wrap_dim(src[i], wnd, &s[i]) || mt_wrap_dim(dst[i], wnd, &d[i])) return -1;
    for (int i = 0; i < n; i++) {
        if (used_s[s[i]] || used_d[d[i]]) {
            int64_t us[MT_MAX_DIM];
            bool in_src = used_s[s[i]];
            for (int k = 0; k < n; k++) us[k] = mt_user_dim(in_src ? src[k] : dst[k]);
            mt_fmt_ilist(x, sizeof x, us, n);
            return mt_error(MT_ERR_RUNTIME, "movedim: repeated dim in `%s` (%s)",
                            in_src ? "source" : "destination", x);
        }
        used_s[s[i]] = used_d[d[i]] = true;
    }
    if (nd <= 1) return mt_ret_tensor(r, mto_alias(self));
    for (int i = 0; i < nd; i++) perm[i] = -1;
    for (int i = 0; i < n; i++) perm[d[i]] = s[i];
    int next = 0;
    for (int i = 0; i < nd; i++) {
        if (perm[i] >= 0) continue;
        while (used_s[next]) next++;
        perm[i] = next++;
    }
    int64_t p[MT_MAX_DIM];
    for (int i = 0; i < nd; i++) p[i] = perm[i];
    return mt_ret_tensor(r, mto_permute(self, (mt_ilist){p, nd}));
}

static int c_movedim(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return movedim(a[0].t, a[1].il, a[2].il, a[1].n, a[2].n, r);
}

static int c_swapaxes(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_transpose_int(a[0].t, a[1].i, a[2].i));
}

/* ---- repeat_interleave, take_along_dim ------------------------------------------------------- */

/* the int64 values of a 0-D/1-D repeats tensor, read on the host */
static int64_t *repeat_counts(mt_tensor *rep, int64_t *n, int64_t *total) {
    if (rep->ndim > 1)
        return mt_error_null(MT_ERR_RUNTIME, "repeat_interleave only accept 1D vector as repeat");
    if (rep->dtype != MT_INT64 && rep->dtype != MT_INT32)
        return mt_error_null(MT_ERR_RUNTIME, "repeats has to be Long or Int tensor");
    if (rep->device.type == MT_DEV_META)
        return mt_error_null(MT_ERR_NOT_IMPLEMENTED,
                             "Could not run 'aten::repeat_interleave' with arguments from "
                             "the 'Meta' backend.");
    mt_tensor *ct = mto__to_copy(rep, MT_INT64, MT_CPU, false, NULL);
    if (!ct || mt_tensor_sync(ct)) {
        mt_tensor_decref(ct);
        return NULL;
    }
    *n = ct->numel;
    int64_t *v = mt_calloc((size_t)(*n ? *n : 1), sizeof *v);
    if (v && *n) memcpy(v, mt_tensor_raw(ct), sizeof *v * (size_t)*n);
    mt_tensor_decref(ct);
    if (!v) return NULL;
    *total = 0;
    for (int64_t i = 0; i < *n; i++) {
        if (v[i] < 0) {
            free(v);
            return mt_error_null(MT_ERR_RUNTIME, "repeats can not be negative");
        }
        if (__builtin_add_overflow(*total, v[i], total)) {
            free(v);
            return mt_error_null(MT_ERR_RUNTIME, "repeat_interleave: result too large");
        }
    }
    return v;
}

/* positions 0..n-1, position i repeated v[i] times, as an int64 tensor on dev */
static mt_tensor *repeat_positions(const int64_t *v, int64_t n, int64_t total, mt_device dev) {
    mt_tensor *t = mto_empty(MT_ILIST(total), MT_INT64, MT_CPU, false, false, NULL);
    if (!t) return NULL;
    int64_t *p = mt_tensor_data(t), k = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < v[i]; j++) p[k++] = i;
    if (dev.type == MT_DEV_CPU) return t;
    mt_tensor *o = mto__to_copy(t, MT_INT64, dev, false, NULL);
    mt_tensor_decref(t);
    return o;
}

static int check_output_size(mt_value os, int64_t total) {
    if (os.tag == MT_V_INT && os.i != total)
        return mt_error(MT_ERR_RUNTIME, "allocated size does not match required size");
    return 0;
}

static int c_repeat_interleave(mt_call *c, mt_value *a, mt_value *r) {
    int id = c->op->id;
    if (id == MT_OP_repeat_interleave_Tensor) {
        int64_t n, total;
        int64_t *v = repeat_counts(a[0].t, &n, &total);
        if (!v) return -1;
        mt_tensor *out =
            check_output_size(a[1], total) ? NULL : repeat_positions(v, n, total, a[0].t->device);
        free(v);
        return mt_ret_tensor(r, out);
    }
    mt_tensor *self = a[0].t, *in;
    int d;
    if (a[2].tag == MT_V_NONE) {
        if (!(in = mto_reshape(self, MT_ILIST(-1)))) return -1;
        d = 0;
    } else {
        if (mt_wrap_dim(a[2].i, self->ndim, &d)) return -1;
        mt_tensor_incref(self);
        in = self;
    }
    if (in->ndim == 0) { /* a 0-d self with dim: its one element */
        mt_tensor *f = mto_reshape(in, MT_ILIST(1));
        mt_tensor_decref(in);
        if (!(in = f)) return -1;
    }
    mt_tensor *out = NULL;
    int64_t size = in->sizes[d];
    if (id == MT_OP_repeat_interleave_self_int) {
        int64_t k = a[1].i;
        if (k < 0) {
            mt_tensor_decref(in);
            return mt_error(MT_ERR_RUNTIME, "repeats can not be negative");
        }
        int64_t total;
        if (__builtin_mul_overflow(size, k, &total)) {
            mt_tensor_decref(in);
            return mt_error(MT_ERR_RUNTIME, "repeat_interleave: result too large");
        }
        if (check_output_size(a[3], total)) {
            mt_tensor_decref(in);
            return -1;
        }
        /* (.., size, ..) -> (.., size, k, ..) expanded, then merged */
        int64_t ex[MT_MAX_DIM], merged[MT_MAX_DIM];
        int nd = in->ndim;
        if (nd + 1 > MT_MAX_DIM) {
            mt_tensor_decref(in);
            return mt_error(MT_ERR_RUNTIME, "repeat_interleave: too many dims");
        }
        for (int i = 0, j = 0; i < nd; i++) {
            ex[j++] = in->sizes[i];
            if (i == d) ex[j++] = k;
            merged[i] = i == d ? total : in->sizes[i];
        }
        mt_tensor *u = mto_unsqueeze(in, d + 1);
        mt_tensor *e = u ? mto_expand(u, (mt_ilist){ex, nd + 1}, false) : NULL;
        mt_tensor *ce = e ? mto_clone(e, "contiguous_format") : NULL; /* a new tensor, always */
        out = ce ? mto_view(ce, (mt_ilist){merged, nd}) : NULL;
        mt_tensor_decref(u);
        mt_tensor_decref(e);
        mt_tensor_decref(ce);
        mt_tensor_decref(in);
        return mt_ret_tensor(r, out);
    }
    int64_t n, total;
    int64_t *v = repeat_counts(a[1].t, &n, &total);
    if (v && n != size && n != 1) {
        free(v);
        v = mt_error_null(MT_ERR_RUNTIME, "repeats must have the same size as input along dim");
    }
    if (v && n == 1 && size != 1) { /* one count for every slice */
        int64_t k = v[0];
        free(v);
        v = mt_calloc((size_t)(size ? size : 1), sizeof *v);
        if (v)
            for (int64_t i = 0; i < size; i++) v[i] = k;
        n = size;
        total = k * size;
    }
    if (v && !check_output_size(a[3], total)) {
        mt_tensor *pos = repeat_positions(v, n, total, in->device);
        out = pos ? mto_index_select(in, d, pos) : NULL;
        mt_tensor_decref(pos);
    }
    free(v);
    mt_tensor_decref(in);
    return mt_ret_tensor(r, out);
}

static int c_take_along_dim(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *ix = a[1].t;
    if (ix->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.take_along_dim(): dtype of indices should be Long but got %s",
                        mt_dtype_scalar_name((mt_dtype)ix->dtype));
    if (a[2].tag == MT_V_NONE) {
        mt_tensor *f = mto_reshape(self, MT_ILIST(-1)),
                  *fi = f ? mto_reshape(ix, MT_ILIST(-1)) : NULL;
        mt_tensor *out = fi ? mto_gather(f, 0, fi, false) : NULL;
        mt_tensor_decref(f);
        mt_tensor_decref(fi);
        return mt_ret_tensor(r, out);
    }
    if (self->ndim != ix->ndim)
        return mt_error(
            MT_ERR_RUNTIME,
            "torch.take_along_dim(): input and indices should have the same number of "
            "dimensions, but got %d dimensions for input, and %d dimensions for indices",
            self->ndim, ix->ndim);
    int d;
    if (mt_wrap_dim(a[2].i, self->ndim, &d)) return -1;
    /* broadcast every dim but d */
    int64_t ss[MT_MAX_DIM], is[MT_MAX_DIM], b[MT_MAX_DIM];
    int nb;
    memcpy(ss, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    memcpy(is, ix->sizes, sizeof(int64_t) * (size_t)ix->ndim);
    if (self->ndim) ss[d] = is[d] = 1;
    if (mt_broadcast_shapes(self->ndim, ss, ix->ndim, is, &nb, b)) return -1;
    if (self->ndim) b[d] = self->sizes[d];
    mt_tensor *se = mto_expand(self, (mt_ilist){b, nb}, false);
    if (self->ndim) b[d] = ix->sizes[d];
    mt_tensor *ie = se ? mto_expand(ix, (mt_ilist){b, nb}, false) : NULL;
    mt_tensor *out = ie ? mto_gather(se, d, ie, false) : NULL;
    mt_tensor_decref(se);
    mt_tensor_decref(ie);
    return mt_ret_tensor(r, out);
}

/* ---- tril_indices, triu_indices -------------------------------------------------------------- */

static int c_tri_indices(mt_call *c, mt_value *a, mt_value *r) {
    bool lower = c->op->id == MT_OP_tril_indices;
    int64_t row = a[0].i, col = a[1].i, off = a[2].i;
    int dt = a[3].tag == MT_V_DTYPE ? a[3].dtype : MT_INT64;
    mt_device dev = a[4].tag == MT_V_DEVICE ? a[4].dev : MT_CPU;
    const char *name = lower ? "tril_indices" : "triu_indices";
    if (dt != MT_INT64 && dt != MT_INT32)
        return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", name,
                        mt_dtype_scalar_name((mt_dtype)dt));
    if (row < 0)
        return mt_error(MT_ERR_RUNTIME, "row must be non-negative, got%lld", (long long)row);
    if (col < 0)
        return mt_error(MT_ERR_RUNTIME, "col must be non-negative, got%lld", (long long)col);
    /* the count: rows wholly in (full) or out of the triangle by multiplication, the partial
     * rows (at most col of them) one by one, so no size makes this loop long */
    int64_t n = 0, p0, p1, full;
    if (lower) { /* row i holds clamp(i + off + 1, 0, col) */
        p0 = -off < 0 ? 0 : -off;
        p1 = col - off - 1 < p0 ? p0 : col - off - 1;
        full = row > p1 ? row - p1 : 0;
    } else {                                     /* row i holds col - clamp(i + off, 0, col) */
        int64_t f = -off + 1 < 0 ? 0 : -off + 1; /* rows with i + off <= 0 */
        full = f < row ? f : row;
        p0 = f;
        p1 = col - off < p0 ? p0 : col - off;
    }
    if (p1 > row) p1 = row;
    if (__builtin_mul_overflow(full, col, &n))
        return mt_error(MT_ERR_RUNTIME, "%s: result too large", name);
    if (row == 0 || col == 0) /* no element, whatever the offset */
        n = 0, p0 = p1 = full = 0;
    else if (p1 > p0) { /* the partial rows' counts step by one: an arithmetic series */
        __int128 first = lower ? p0 + off + 1 : col - p0 - off;
        __int128 last = lower ? p1 + off : col - (p1 - 1) - off;
        __int128 total = (__int128)n + (first + last) * (__int128)(p1 - p0) / 2;
        if (total > INT64_MAX) return mt_error(MT_ERR_RUNTIME, "%s: result too large", name);
        n = (int64_t)total;
    }
    mt_tensor *t = mto_empty(MT_ILIST(2, n), MT_INT64, MT_CPU, false, false, NULL);
    if (!t) return -1;
    int64_t *p = mt_tensor_data(t), k = 0;
    /* only the rows that hold some element: n bounds the loop (with no columns no row holds
     * one, however many rows there are: n is 0 and the loop is skipped) */
    int64_t i0 = lower ? p0 : 0, i1 = lower ? row : (col - off < row ? col - off : row);
    if (n == 0) i1 = 0;
    for (int64_t i = i0 < 0 ? 0 : i0; i < i1; i++) {
        int64_t lo = lower ? 0 : i + off, hi = lower ? i + off + 1 : col;
        lo = lo < 0 ? 0 : lo > col ? col : lo;
        hi = hi < 0 ? 0 : hi > col ? col : hi;
        for (int64_t j = lo; j < hi; j++, k++) {
            p[k] = i;
            p[n + k] = j;
        }
    }
    if (dt == MT_INT64 && dev.type == MT_DEV_CPU) return mt_ret_tensor(r, t);
    mt_tensor *o = mto__to_copy(t, dt, dev, false, NULL);
    mt_tensor_decref(t);
    return mt_ret_tensor(r, o);
}

/* ---- unfold, sum_to_size --------------------------------------------------------------------- */

static int c_unfold(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    int nd = self->ndim, d;
    if (mt_wrap_dim(a[1].i, nd ? nd : 1, &d)) return -1;
    int64_t size = a[2].i, step = a[3].i;
    int64_t dsize = nd ? self->sizes[d] : 1, dstride = nd ? self->strides[d] : 1;
    if (size > dsize)
        return mt_error(MT_ERR_RUNTIME,
                        "maximum size for tensor at dimension %d is %lld but size is %lld", d + 1,
                        (long long)dsize, (long long)size);
    if (step <= 0) return mt_error(MT_ERR_RUNTIME, "step is %lld but must be > 0", (long long)step);
    if (size < 0) return mt_error(MT_ERR_RUNTIME, "size is %lld but must be >= 0", (long long)size);
    if (nd + 1 > MT_MAX_DIM) return mt_error(MT_ERR_RUNTIME, "unfold: too many dims");
    int64_t sz[MT_MAX_DIM], st[MT_MAX_DIM];
    for (int i = 0; i < nd; i++) {
        sz[i] = self->sizes[i];
        st[i] = self->strides[i];
    }
    if (nd) {
        sz[d] = (dsize - size) / step + 1;
        st[d] = dstride * step;
    }
    sz[nd] = size;
    st[nd] = dstride;
    return mt_ret_tensor(r, mto_as_strided(self, (mt_ilist){sz, nd + 1}, (mt_ilist){st, nd + 1},
                                           mt_vint(self->offset)));
}

static int c_sum_to_size(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    int n = a[1].n, nd = self->ndim;
    const int64_t *want = a[1].il;
    bool ok = n <= nd;
    for (int i = 0; ok && i < n; i++) {
        int64_t s = self->sizes[nd - n + i];
        ok = want[i] == s || want[i] == 1;
    }
    if (!ok) {
        char x[256], y[256];
        mt_fmt_ilist(x, sizeof x, want, n);
        mt_fmt_ilist(y, sizeof y, self->sizes, nd);
        return mt_error(MT_ERR_RUNTIME, "size {%s} is not expandable to size {%s}.", x, y);
    }
    int64_t dims[MT_MAX_DIM];
    int k = 0, lead = nd - n;
    for (int i = 0; i < lead; i++) dims[k++] = i;
    for (int i = 0; i < n; i++)
        if (want[i] == 1 && self->sizes[lead + i] != 1) dims[k++] = lead + i;
    if (k == 0) return mt_ret_self(r, self);
    mt_tensor *s = mto_sum_dim_IntList(self, (mt_ilist){dims, k}, true, -1);
    if (!s || lead == 0) return mt_ret_tensor(r, s);
    mt_tensor *out = mto_view(s, (mt_ilist){want, n});
    mt_tensor_decref(s);
    return mt_ret_tensor(r, out);
}

/* ---- t_, transpose_, squeeze_, unsqueeze_, as_strided_: self takes the view's geometry --------
 */

static int c_inplace_view(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *self = a[0].t, *v = NULL;
    int id = c->op->id;
    if (mt_tensor_requires_grad(self)) {
        if (mt_is_leaf(self))
            return mt_error(MT_ERR_RUNTIME,
                            "a leaf Variable that requires grad is being used in an in-place "
                            "operation.");
        return mt_error(MT_ERR_RUNTIME,
                        "%s(): in-place shape changes of a tensor that requires grad are not "
                        "supported; use the out-of-place view",
                        c->op->schema->name);
    }
    if (mt_check_writable(self)) return -1;
    if (id == MT_OP_t_) {
        if (self->ndim > 2)
            return mt_error(MT_ERR_RUNTIME,
                            "t_() expects a tensor with <= 2 dimensions, but self is %dD",
                            self->ndim);
        v = mto_t(self);
    } else if (id == MT_OP_transpose_ || id == MT_OP_swapaxes_ || id == MT_OP_swapdims_) {
        v = mto_transpose_int(self, a[1].i, a[2].i);
    } else if (id == MT_OP_squeeze_) {
        v = mto_squeeze(self);
    } else if (id == MT_OP_squeeze__dim) {
        v = mto_squeeze_dim(self, a[1].i);
    } else if (id == MT_OP_unsqueeze_) {
        v = mto_unsqueeze(self, a[1].i);
    } else {
        v = mto_as_strided(self, (mt_ilist){a[1].il, a[1].n}, (mt_ilist){a[2].il, a[2].n}, a[3]);
    }
    if (!v) return -1;
    self->ndim = v->ndim;
    memcpy(self->sizes, v->sizes, sizeof(int64_t) * (size_t)v->ndim);
    memcpy(self->strides, v->strides, sizeof(int64_t) * (size_t)v->ndim);
    self->offset = v->offset;
    self->numel = v->numel;
    mt_tensor_decref(v);
    mt_tensor_bump_version(self);
    return mt_ret_self(r, self);
}

void mt_shape_more_register(void) {
    static const struct {
        int op;
        mt_kernel k;
    } composites[] = {
        {MT_OP_atleast_1d, c_atleast},
        {MT_OP_atleast_2d, c_atleast},
        {MT_OP_atleast_3d, c_atleast},
        {MT_OP_atleast_1d_Sequence, c_atleast_seq},
        {MT_OP_atleast_2d_Sequence, c_atleast_seq},
        {MT_OP_atleast_3d_Sequence, c_atleast_seq},
        {MT_OP_block_diag, c_block_diag},
        {MT_OP_cartesian_prod, c_cartesian_prod},
        {MT_OP_combinations, c_combinations},
        {MT_OP_column_stack, c_stacks},
        {MT_OP_concat, c_stacks},
        {MT_OP_concatenate, c_stacks},
        {MT_OP_hstack, c_stacks},
        {MT_OP_vstack, c_stacks},
        {MT_OP_row_stack, c_stacks},
        {MT_OP_dstack, c_stacks},
        {MT_OP_tensor_split_sections, c_tensor_split},
        {MT_OP_tensor_split_indices, c_tensor_split},
        {MT_OP_tensor_split_tensor_indices_or_sections, c_tensor_split},
        {MT_OP_hsplit_int, c_hvdsplit},
        {MT_OP_hsplit_array, c_hvdsplit},
        {MT_OP_vsplit_int, c_hvdsplit},
        {MT_OP_vsplit_array, c_hvdsplit},
        {MT_OP_dsplit_int, c_hvdsplit},
        {MT_OP_dsplit_array, c_hvdsplit},
        {MT_OP_split_with_sizes, c_split_with_sizes},
        {MT_OP_diag_embed, c_diag_embed},
        {MT_OP_diagflat, c_diagflat},
        {MT_OP_fliplr, c_flip_lr_ud},
        {MT_OP_flipud, c_flip_lr_ud},
        {MT_OP_movedim, c_movedim},
        {MT_OP_moveaxis, c_movedim},
        {MT_OP_swapaxes, c_swapaxes},
        {MT_OP_swapdims, c_swapaxes},
        {MT_OP_ravel, c_ravel},
        {MT_OP_rot90, c_rot90},
        {MT_OP_repeat_interleave_Tensor, c_repeat_interleave},
        {MT_OP_repeat_interleave_self_Tensor, c_repeat_interleave},
        {MT_OP_repeat_interleave_self_int, c_repeat_interleave},
        {MT_OP_take_along_dim, c_take_along_dim},
        {MT_OP_tril_indices, c_tri_indices},
        {MT_OP_triu_indices, c_tri_indices},
        {MT_OP_meshgrid, c_meshgrid},
        {MT_OP_meshgrid_indexing, c_meshgrid},
        {MT_OP_unfold, c_unfold},
        {MT_OP_sum_to_size, c_sum_to_size},
        {MT_OP_t_, c_inplace_view},
        {MT_OP_transpose_, c_inplace_view},
        {MT_OP_swapaxes_, c_inplace_view},
        {MT_OP_swapdims_, c_inplace_view},
        {MT_OP_squeeze_, c_inplace_view},
        {MT_OP_squeeze__dim, c_inplace_view},
        {MT_OP_unsqueeze_, c_inplace_view},
        {MT_OP_as_strided_, c_inplace_view},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(composites); i++)
        mt_disp_composite(composites[i].op, composites[i].k);
}
