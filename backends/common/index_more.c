/* index_more.c: indexing ops written with other ops (src/ops/index_more.lua). They run above
 * every dispatch key, so autograd, the meta device and the pipeline see the ops they are made
 * of. Index values arrive 0-based; results typed IndexTensor leave 1-based. */
#include "common_ops.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <stdlib.h>
#include <string.h>

/* ---- the scatters into a view of a copy ------------------------------------------------------ */

static int check_src_size(const mt_tensor *src, const mt_tensor *view) {
    if (src->ndim == view->ndim &&
        !memcmp(src->sizes, view->sizes, sizeof(int64_t) * (size_t)src->ndim))
        return 0;
    char a[256], b[256];
    mt_fmt_ilist(a, sizeof a, src->sizes, src->ndim);
    mt_fmt_ilist(b, sizeof b, view->sizes, view->ndim);
    return mt_error(MT_ERR_RUNTIME,
                    "expected src to have a size equal to the slice of self. src size = %s, "
                    "slice size = %s",
                    a, b);
}

/* the view of `copy` each scatter writes into */
static mt_tensor *scatter_view(int id, mt_tensor *copy, mt_value *a) {
    if (id == MT_OP_select_scatter) return mto_select_int(copy, a[2].i, a[3].i);
    if (id == MT_OP_diagonal_scatter) return mto_diagonal(copy, a[2].i, a[3].i, a[4].i);
    if (id == MT_OP_as_strided_scatter)
        return mto_as_strided(copy, (mt_ilist){a[2].il, a[2].n}, (mt_ilist){a[3].il, a[3].n}, a[4]);
    /* slice_scatter: self[start:end:step] along dim, Python's slice bounds */
    int d;
    if (copy->ndim == 0)
        return mt_error_null(MT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    if (mt_wrap_dim(a[2].i, copy->ndim, &d)) return NULL;
    int64_t size = copy->sizes[d], step = a[5].i;
    if (step <= 0) return mt_error_null(MT_ERR_RUNTIME, "slice step must be positive");
    int64_t start = a[3].tag == MT_V_INT ? a[3].i : 0, end = a[4].tag == MT_V_INT ? a[4].i : size;
    if (start < 0) start += size;
    if (end < 0) end += size;
    start = start < 0 ? 0 : start > size ? size : start;
    end = end < start ? start : end > size ? size : end;
    int64_t sz[MT_MAX_DIM], st[MT_MAX_DIM];
    memcpy(sz, copy->sizes, sizeof(int64_t) * (size_t)copy->ndim);
    memcpy(st, copy->strides, sizeof(int64_t) * (size_t)copy->ndim);
    sz[d] = (end - start + step - 1) / step;
    st[d] *= step;
    return mto_as_strided(copy, (mt_ilist){sz, copy->ndim}, (mt_ilist){st, copy->ndim},
                          mt_vint(copy->offset + start * copy->strides[d]));
}

static int c_scatter_view(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *copy = mto_clone(a[0].t, NULL);
    if (!copy) return -1;
    mt_tensor *v = scatter_view(c->op->id, copy, a), *w = NULL;
    if (v && check_src_size(a[1].t, v) == 0) w = mto_copy_(v, a[1].t, false);
    mt_tensor_decref(v);
    if (!w) {
        mt_tensor_decref(copy);
        return -1;
    }
    mt_tensor_decref(w);
    return mt_ret_tensor(r, copy);
}

/* ---- index_fill, put ------------------------------------------------------------------------- */

/* a 1-D copy of index with negative positions counted from the end, checked against size */
static mt_tensor *wrap_indices(mt_tensor *ix, int64_t size, int d) {
    if (ix->device.type == MT_DEV_META) return mto_reshape(ix, MT_ILIST(-1));
    mt_tensor *flat = mto__to_copy(ix, MT_INT64, MT_CPU, false, NULL);
    mt_tensor *c1 = flat ? mto_reshape(flat, MT_ILIST(-1)) : NULL;
    mt_tensor *out = c1 ? mto_clone(c1, "contiguous_format") : NULL;
    mt_tensor_decref(flat);
    mt_tensor_decref(c1);
    if (!out) return NULL;
    if (mt_tensor_sync(out)) {
        mt_tensor_decref(out);
        return NULL;
    }
    int64_t *p = (int64_t *)mt_tensor_raw(out);
    for (int64_t i = 0; i < out->numel; i++) {
        if (p[i] < -size || p[i] >= size) {
            long long bad = p[i] >= 0 ? p[i] + 1 : p[i];
            mt_tensor_decref(out);
            return mt_error_null(MT_ERR_INDEX,
                                 "index %lld is out of bounds for dimension %d with size %lld", bad,
                                 d + 1, (long long)size);
        }
        if (p[i] < 0) p[i] += size;
    }
    if (ix->device.type == MT_DEV_CPU) return out;
    mt_tensor *o = mto__to_copy(out, MT_INT64, ix->device, false, NULL);
    mt_tensor_decref(out);
    return o;
}

static int c_index_fill_(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *self = a[0].t, *ix = a[2].t;
    bool tv = c->op->id == MT_OP_index_fill__int_Tensor;
    if (ix->dtype != MT_INT64)
        return mt_error(MT_ERR_INDEX, "index_fill_(): Expected dtype int64 for index.");
    if (ix->ndim > 1) return mt_error(MT_ERR_INDEX, "Index has to be a vector/scalar");
    if (tv && a[3].t->ndim != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "index_fill_ only supports a 0-dimensional value tensor, but got tensor "
                        "with %d dimension(s).",
                        a[3].t->ndim);
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim ? self->ndim : 1, &d)) return -1;
    /* the value over the shape of the slices picked, copied in with index_copy_ */
    mt_tensor *s = self->ndim ? self : NULL, *flat = NULL;
    if (!s && !(s = flat = mto_view(self, MT_ILIST(1)))) return -1;
    mt_tensor *ix1 = wrap_indices(ix, s->sizes[d], d);
    int64_t shape[MT_MAX_DIM];
    memcpy(shape, s->sizes, sizeof(int64_t) * (size_t)s->ndim);
    shape[d] = ix1 ? ix1->numel : 0;
    mt_tensor *v = NULL, *src = NULL, *w = NULL;
    if (ix1) {
        if (tv) {
            v = mto__to_copy(a[3].t, s->dtype, s->device, false, NULL);
        } else {
            v = mto_full(MT_ILIST(1), a[3], s->dtype, s->device, false, false);
        }
    }
    if (v) src = mto_expand(v, (mt_ilist){shape, s->ndim}, false);
    if (src) w = mto_index_copy_(s, d, ix1, src);
    mt_tensor_decref(ix1);
    mt_tensor_decref(v);
    mt_tensor_decref(src);
    mt_tensor_decref(flat);
    if (!w) return -1;
    mt_tensor_decref(w);
    mt_tensor_incref(self);
    return mt_ret_tensor(r, self);
}

static int c_index_fill(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *copy = mto_clone(a[0].t, NULL);
    if (!copy) return -1;
    mt_value args[4] = {mt_vtensor(copy), a[1], a[2], a[3]};
    mt_value rr[1];
    int target = c->op->id == MT_OP_index_fill_int_Tensor ? MT_OP_index_fill__int_Tensor
                                                          : MT_OP_index_fill__int_Scalar;
    int st = mt_call_op(target, args, rr);
    mt_tensor_decref(copy);
    if (st) return -1;
    r[0] = rr[0];
    return 0;
}

static int c_put_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *ix = a[1].t, *src = a[2].t;
    if (ix->numel != src->numel)
        return mt_error(
            MT_ERR_INDEX,
            "put_(): Expected source and index to have the same number of elements, but "
            "got source.numel() = %lld, index.numel() = %lld",
            (long long)src->numel, (long long)ix->numel);
    if (ix->dtype != MT_INT64)
        return mt_error(MT_ERR_INDEX, "put_(): Expected a long tensor for index, but got %s",
                        mt_dtype_scalar_name((mt_dtype)ix->dtype));
    if (ix->device.type == MT_DEV_CPU && ix->numel) { /* PyTorch's range check and text */
        mt_tensor *ci = mto_contiguous(ix, NULL);
        if (!ci || mt_tensor_sync(ci)) {
            mt_tensor_decref(ci);
            return -1;
        }
        const int64_t *p = (const int64_t *)mt_tensor_raw(ci);
        for (int64_t i = 0; i < ci->numel; i++)
            if (p[i] >= self->numel || p[i] < -self->numel) {
                long long bad = p[i] >= 0 ? p[i] + 1 : p[i];
                mt_tensor_decref(ci);
                return mt_error(MT_ERR_INDEX,
                                "out of range: tried to access index %lld on a tensor of %lld "
                                "elements.",
                                bad, (long long)self->numel);
            }
        mt_tensor_decref(ci);
    }
    /* the flattened self (a view when contiguous, else a copy written back) */
    bool contig = mt_tensor_is_contiguous(self);
    mt_tensor *base = contig ? self : mto_clone(self, "contiguous_format");
    if (!base) return -1;
    mt_tensor *flat = mto_view(base, MT_ILIST(-1));
    mt_tensor *fi = flat ? mto_reshape(ix, MT_ILIST(-1)) : NULL;
    mt_tensor *fs = fi ? mto_reshape(src, MT_ILIST(-1)) : NULL;
    mt_tensor *w = fs ? mto_index_put_(flat, &fi, 1, fs, a[3].b) : NULL;
    mt_tensor *back = NULL;
    if (w && !contig) back = mto_copy_(self, base, false);
    mt_tensor_decref(flat);
    mt_tensor_decref(fi);
    mt_tensor_decref(fs);
    mt_tensor_decref(w);
    if (!contig) mt_tensor_decref(base);
    if (!w || (!contig && !back)) {
        mt_tensor_decref(back);
        return -1;
    }
    mt_tensor_decref(back);
    mt_tensor_incref(self);
    return mt_ret_tensor(r, self);
}

static int c_put(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *copy = mto_clone(a[0].t, NULL);
    if (!copy) return -1;
    mt_tensor *w = mto_put_(copy, a[1].t, a[2].t, a[3].b);
    mt_tensor_decref(copy);
    return mt_ret_tensor(r, w);
}

/* ---- searchsorted, bucketize -------------------------------------------------------------------
 */

/* the count of boundaries below each value (<= with right): the insertion position */
static mt_tensor *count_below(mt_tensor *seq, mt_tensor *v, bool right, bool int32) {
    mt_tensor *su = NULL, *vu = NULL, *cmp = NULL, *cnt = NULL, *out = NULL;
    if (seq->ndim == 1) {
        su = mto_alias(seq);
    } else {
        su = mto_unsqueeze(seq, seq->ndim - 1); /* (..., 1, M) against (..., K, 1) */
    }
    if (!su || !(vu = mto_unsqueeze(v, v->ndim))) goto done;
    if (!(cmp = right ? mto_le_Tensor(su, vu) : mto_lt_Tensor(su, vu))) goto done;
    if (!(cnt = mto_sum_dim_IntList(cmp, MT_ILIST(-1), false, MT_INT64))) goto done;
    out = int32 ? mto__to_copy(cnt, MT_INT32, cnt->device, false, NULL)
                : (mt_tensor_incref(cnt), cnt);
done:
    mt_tensor_decref(su);
    mt_tensor_decref(vu);
    mt_tensor_decref(cmp);
    mt_tensor_decref(cnt);
    return out;
}

static int c_searchsorted(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *seq = a[0].t, *v = NULL, *sorted = NULL;
    bool scalar = c->op->id == MT_OP_searchsorted_Scalar;
    bool right = a[3].b;
    if (a[4].tag == MT_V_STR) {
        const char *side = a[4].s;
        if (strcmp(side, "left") && strcmp(side, "right"))
            return mt_error(MT_ERR_RUNTIME,
                            "torch.searchsorted(): side can only be 'left' or 'right' but got %s",
                            side);
        if (right && !strcmp(side, "left"))
            return mt_error(MT_ERR_RUNTIME,
                            "torch.searchsorted(): side and right can't be set to opposites, got "
                            "side of left while right was True");
        right = !strcmp(side, "right");
    }
    if (seq->ndim == 0)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.searchsorted(): boundaries tensor should have positive dimension, "
                        "but got 0 dimension");
    if (scalar) {
        v = mto_full(MT_ILIST(1), a[1],
                     mt_promote_types((mt_dtype)seq->dtype, mt_scalar_dtype(a[1])), seq->device,
                     false, false);
        if (!v) return -1;
        if (seq->ndim != 1) {
            mt_tensor_decref(v);
            return mt_error(
                MT_ERR_RUNTIME,
                "torch.searchsorted(): input value can be a scalar only when "
                "boundaries tensor dimension is 1, but we got boundaries tensor dim(%d) "
                "and input value's dim(0) numel(1)",
                seq->ndim);
        }
    } else {
        v = a[1].t;
        mt_tensor_incref(v);
        bool lead_ok = seq->ndim == 1 ||
                       (seq->ndim == v->ndim &&
                        !memcmp(seq->sizes, v->sizes, sizeof(int64_t) * (size_t)(seq->ndim - 1)));
        if (!lead_ok) {
            char x[256], y[256];
            mt_fmt_ilist(x, sizeof x, seq->sizes, seq->ndim);
            mt_fmt_ilist(y, sizeof y, v->sizes, v->ndim);
            mt_tensor_decref(v);
            return mt_error(MT_ERR_RUNTIME,
                            "torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                            "first N-1 dimensions of boundaries tensor and input value tensor must "
                            "match, but we got boundaries tensor %s and input value tensor %s",
                            x, y);
        }
    }
    if (a[5].tag == MT_V_TENSOR) { /* the sequence in the sorter's order */
        mt_tensor *so = a[5].t;
        if (so->ndim != seq->ndim ||
            memcmp(so->sizes, seq->sizes, sizeof(int64_t) * (size_t)seq->ndim)) {
            char x[256], y[256];
            mt_fmt_ilist(x, sizeof x, seq->sizes, seq->ndim);
            mt_fmt_ilist(y, sizeof y, so->sizes, so->ndim);
            mt_tensor_decref(v);
            return mt_error(
                MT_ERR_RUNTIME,
                "torch.searchsorted(): boundary and sorter must have the same size, but "
                "got boundary tensor %sand got sorter tensor %s",
                x, y);
        }
        if (!(sorted = mto_gather(seq, seq->ndim - 1, so, false))) {
            mt_tensor_decref(v);
            return -1;
        }
        seq = sorted;
    }
    mt_tensor *out = count_below(seq, v, right, a[2].b);
    mt_tensor_decref(sorted);
    if (out && scalar) {
        mt_tensor *o0 = mto_view(out, (mt_ilist){NULL, 0});
        mt_tensor_decref(out);
        out = o0;
    }
    mt_tensor_decref(v);
    return mt_ret_tensor(r, out);
}

static int c_bucketize(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *b = a[1].t;
    if (b->ndim != 1)
        return mt_error(MT_ERR_RUNTIME, "boundaries tensor must be 1 dimension, but got dim(%d)",
                        b->ndim);
    if (c->op->id == MT_OP_bucketize_Scalar) {
        mt_tensor *v = mto_full((mt_ilist){NULL, 0}, a[0],
                                mt_promote_types((mt_dtype)b->dtype, mt_scalar_dtype(a[0])),
                                b->device, false, false);
        mt_tensor *out = v ? count_below(b, v, a[3].b, a[2].b) : NULL;
        mt_tensor_decref(v);
        return mt_ret_tensor(r, out);
    }
    return mt_ret_tensor(r, count_below(b, a[0].t, a[3].b, a[2].b));
}

/* ---- unique_consecutive, msort -----------------------------------------------------------------
 */

static int c_unique_consecutive(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    bool has_dim = a[3].tag == MT_V_INT;
    int d = 0;
    if (has_dim && mt_wrap_dim(a[3].i, self->ndim, &d)) return -1;
    if (!has_dim && self->dtype == MT_FLOAT16) /* PyTorch 1.13's CPU kernel lacks it */
        return mt_error(MT_ERR_RUNTIME, "\"unique\" not implemented for 'Half'");
    if (self->device.type == MT_DEV_META)
        return mt_error(MT_ERR_NOT_IMPLEMENTED,
                        "Could not run 'aten::unique_consecutive' with arguments from the 'Meta' "
                        "backend.");
    /* x2: (n, rest) rows compared with their predecessors */
    mt_tensor *moved = NULL, *x2 = NULL, *neq = NULL, *row = NULL, *mask = NULL, *pos = NULL,
              *pos1 = NULL, *vals = NULL, *inv = NULL, *cs = NULL, *cnt = NULL, *ends = NULL,
              *endsx = NULL, *startsx = NULL;
    int st = -1;
    int64_t n;
    if (has_dim) {
        if (!(moved = mto_transpose_int(self, 0, d))) goto done;
        n = moved->sizes[0];
        x2 = mto_reshape(moved, MT_ILIST(n, -1));
    } else {
        n = self->numel;
        x2 = mto_reshape(self, MT_ILIST(n, 1));
    }
    if (!x2) goto done;
    if (n == 0 || (has_dim && x2->sizes[1] == 0 && n > 0)) {
        /* nothing to compare: every row its own group (none when empty) */
        mask = mto_full(MT_ILIST(n), mt_vbool(n > 0 && !(has_dim && x2->sizes[1] == 0)), MT_BOOL,
                        self->device, false, false);
        if (mask && n > 0) {
            mt_tensor *m0 = mto_narrow(mask, 0, 0, 1),
                      *w = m0 ? mto_fill__Scalar(m0, mt_vbool(true)) : NULL;
            mt_tensor_decref(m0);
            mt_tensor_decref(w);
        }
    } else {
        mt_tensor *head = mto_narrow(x2, 0, 1, n - 1), *prev = mto_narrow(x2, 0, 0, n - 1);
        neq = head && prev ? mto_ne_Tensor(head, prev) : NULL;
        mt_tensor_decref(head);
        mt_tensor_decref(prev);
        if (!neq || !(row = mto_any_dim(neq, 1, false))) goto done;
        mt_tensor *one = mto_full(MT_ILIST(1), mt_vbool(true), MT_BOOL, self->device, false, false);
        mt_tensor *parts[2] = {one, row};
        mask = one ? mto_cat(parts, 2, 0) : NULL;
        mt_tensor_decref(one);
    }
    if (!mask) goto done;
    /* the first row of each group, its position, and the group of every row */
    if (!(pos = mto_nonzero(mask)) || !(pos1 = mto_reshape(pos, MT_ILIST(-1)))) goto done;
    if (has_dim) {
        mt_tensor *sel = mto_index_select(moved, 0, pos1);
        vals = sel ? mto_transpose_int(sel, 0, d) : NULL; /* PyTorch's layout: not contiguous */
        mt_tensor_decref(sel);
    } else {
        mt_tensor *flat = mto_reshape(self, MT_ILIST(-1));
        vals = flat ? mto_index_select(flat, 0, pos1) : NULL;
        mt_tensor_decref(flat);
    }
    if (!vals) goto done;
    if (!(cs = mto_cumsum(mask, 0, MT_INT64)) ||
        !(inv = mto_sub_Scalar(cs, mt_vint(1), mt_vint(1))))
        goto done;
    if (!has_dim && self->ndim != 1) { /* the inverse in self's shape */
        mt_tensor *iv = mto_view(inv, (mt_ilist){self->sizes, self->ndim});
        mt_tensor_decref(inv);
        if (!(inv = iv)) goto done;
    }
    /* counts: the distance from each group's start to the next (or to n) */
    {
        mt_tensor *nn = mto_full(MT_ILIST(1), mt_vint(n), MT_INT64, self->device, false, false);
        mt_tensor *parts[2] = {pos1, nn};
        ends = nn ? mto_cat(parts, 2, 0) : NULL;
        mt_tensor_decref(nn);
        int64_t k = pos1->numel;
        if (!ends || !(endsx = mto_narrow(ends, 0, 1, k)) || !(startsx = mto_narrow(ends, 0, 0, k)))
            goto done;
        if (!(cnt = mto_sub_Tensor(endsx, startsx, mt_vint(1)))) goto done;
    }
    r[0] = mt_vtensor(vals);
    r[1] = mt_vtensor(inv);
    r[2] = mt_vtensor(cnt);
    vals = inv = cnt = NULL;
    st = 0;
done:;
    mt_tensor *tmp[] = {moved, x2,  neq, row, mask, pos,   pos1,
                        vals,  inv, cs,  cnt, ends, endsx, startsx};
    for (size_t i = 0; i < MT_ARRAY_LEN(tmp); i++) mt_tensor_decref(tmp[i]);
    return st;
}

static int c_msort(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *v, *i;
    if (mto_sort(a[0].t, 0, false, &v, &i)) return -1;
    mt_tensor_decref(i);
    return mt_ret_tensor(r, v);
}

/* ---- fill_diagonal_, resize_as_, type_as, new_* ------------------------------------------------
 */

static int c_fill_diagonal_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    int nd = self->ndim;
    if (nd < 2) return mt_error(MT_ERR_RUNTIME, "dimensions must larger than 1");
    int64_t n = self->sizes[0], step = 0;
    if (nd > 2)
        for (int i = 1; i < nd; i++)
            if (self->sizes[i] != n)
                return mt_error(MT_ERR_RUNTIME, "all dimensions of input must be of equal length");
    for (int i = 1; i < nd; i++)
        if (self->sizes[i] < n) n = self->sizes[i];
    for (int i = 0; i < nd; i++) step += self->strides[i];
    /* wrap: a tall matrix's diagonal starts again every ncols + 1 rows (contiguous rows) */
    if (a[2].b && nd == 2 && self->sizes[0] > self->sizes[1] + 1 && mt_tensor_is_contiguous(self)) {
        int64_t w = self->sizes[1] + 1;
        n = (self->numel + w - 1) / w;
        step = w;
    }
    mt_tensor *dg = mto_as_strided(self, MT_ILIST(n), MT_ILIST(step), mt_vint(self->offset));
    mt_tensor *w = dg ? mto_fill__Scalar(dg, a[1]) : NULL;
    mt_tensor_decref(dg);
    if (!w) return -1;
    mt_tensor_decref(w);
    mt_tensor_incref(self);
    return mt_ret_tensor(r, self);
}

static int c_resize_as_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *t = a[1].t;
    return mt_ret_tensor(r, mto_resize_(a[0].t, (mt_ilist){t->sizes, t->ndim},
                                        a[2].tag == MT_V_STR ? a[2].s : NULL));
}

static int c_type_as(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_to_dtype(a[0].t, (mt_dtype)a[1].t->dtype, false, false, NULL));
}

static int c_new(mt_call *c, mt_value *a, mt_value *r) {
    int id = c->op->id;
    mt_tensor *self = a[0].t;
    /* where the options start: after size (and stride or fill_value) */
    int at = id == MT_OP_new_empty_strided || id == MT_OP_new_full ? 3 : 2;
    int dt = a[at].tag == MT_V_DTYPE ? a[at].dtype : self->dtype;
    mt_device dev = a[at + 1].tag == MT_V_DEVICE ? a[at + 1].dev : self->device;
    bool pin = a[at + 3].b;
    mt_ilist size = {a[1].il, a[1].n};
    switch (id) {
    case MT_OP_new_empty:
        return mt_ret_tensor(r, mto_empty(size, dt, dev, false, pin, NULL));
    case MT_OP_new_zeros:
        return mt_ret_tensor(r, mto_zeros(size, dt, dev, false, pin));
    case MT_OP_new_ones:
        return mt_ret_tensor(r, mto_ones(size, dt, dev, false, pin));
    case MT_OP_new_full:
        return mt_ret_tensor(r, mto_full(size, a[2], dt, dev, false, pin));
    default:
        return mt_ret_tensor(
            r, mto_empty_strided(size, (mt_ilist){a[2].il, a[2].n}, dt, dev, false, pin));
    }
}

void mt_index_more_register(void) {
    static const struct {
        int op;
        mt_kernel k;
    } composites[] = {
        {MT_OP_slice_scatter, c_scatter_view},
        {MT_OP_select_scatter, c_scatter_view},
        {MT_OP_diagonal_scatter, c_scatter_view},
        {MT_OP_as_strided_scatter, c_scatter_view},
        {MT_OP_index_fill__int_Scalar, c_index_fill_},
        {MT_OP_index_fill__int_Tensor, c_index_fill_},
        {MT_OP_index_fill_int_Scalar, c_index_fill},
        {MT_OP_index_fill_int_Tensor, c_index_fill},
        {MT_OP_put_, c_put_},
        {MT_OP_put, c_put},
        {MT_OP_searchsorted_Tensor, c_searchsorted},
        {MT_OP_searchsorted_Scalar, c_searchsorted},
        {MT_OP_bucketize_Tensor, c_bucketize},
        {MT_OP_bucketize_Scalar, c_bucketize},
        {MT_OP_unique_consecutive, c_unique_consecutive},
        {MT_OP_msort, c_msort},
        {MT_OP_fill_diagonal_, c_fill_diagonal_},
        {MT_OP_resize_as_, c_resize_as_},
        {MT_OP_type_as, c_type_as},
        {MT_OP_new_empty, c_new},
        {MT_OP_new_empty_strided, c_new},
        {MT_OP_new_zeros, c_new},
        {MT_OP_new_ones, c_new},
        {MT_OP_new_full, c_new},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(composites); i++)
        mt_disp_composite(composites[i].op, composites[i].k);
}
