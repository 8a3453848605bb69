/* adv_index.c: advanced indexing shared by every device: _index and index_put_ expand bool
 * masks into index tensors (compositions, so a device without nonzero says so), then call the
 * structured _index_int / _index_put_int_, whose meta functions live here. */
#include "adv_index.h"
#include "elementwise.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <stdio.h>
#include <string.h>

static int too_many_indices(const mt_tensor *self, int n) {
    return mt_error(MT_ERR_INDEX, "too many indices for tensor of dimension %d (got %d)",
                    self->ndim, n);
}

/* ---- masks to index tensors ------------------------------------------------------------------ */

/* t on device `dev` (a new reference): index tensors may live on the CPU for any self */
static mt_tensor *on_device(mt_tensor *t, mt_device dev) {
    if (mt_device_eq(t->device, dev)) {
        mt_tensor_incref(t);
        return t;
    }
    return mto_to_device(t, dev, -1, false, false, NULL);
}

/* The entries of `list` for *self with every mask replaced by the index tensors of its true
 * positions (PyTorch's expandTensors); NULL entries stay. A 0-d mask adds a dim of size 1 to
 * self. On success *self and the non-NULL out[0..*n) are new references. */
static int expand_indices(mt_tensor **self, mt_value list, mt_tensor **out, int *n) {
    if (list.n > (*self)->ndim) return too_many_indices(*self, list.n);
    mt_tensor *s = *self;
    mt_tensor_incref(s);
    int k = 0, pos = 0, st = 0;
    for (int i = 0; i < list.n && st == 0; i++) {
        mt_tensor *ix = list.tl[i];
        if (ix && !mt_device_eq(ix->device, s->device)) {
            if (ix->device.type != MT_DEV_CPU) {
                char dev[32];
                st = mt_error(MT_ERR_RUNTIME,
                              "indices should be either on cpu or on the same device as the "
                              "indexed tensor (%s)",
                              mt_device_str(s->device, dev, sizeof dev));
                break;
            }
        }
        mt_dtype dt = ix ? (mt_dtype)ix->dtype : MT_INT64;
        if (dt != MT_INT64 && dt != MT_BOOL && dt != MT_UINT8) {
            st = mt_error(MT_ERR_INDEX,
                          "tensors used as indices must be long, byte or bool tensors");
            break;
        }
        if (dt == MT_INT64) {
            if (pos >= s->ndim) {
                st = too_many_indices(*self, list.n);
                break;
            }
            if (ix && !(ix = on_device(ix, s->device))) {
                st = -1;
                break;
            }
            out[k++] = ix;
            pos++;
            continue;
        }
        mt_tensor *mask = dt == MT_BOOL ? (mt_tensor_incref(ix), ix)
                                        : mto_to_dtype(ix, MT_BOOL, false, false, NULL);
        if (!mask) {
            st = -1;
            break;
        }
        if (mask->ndim == 0) { /* x[true]: a new dim of size 1, indexed by the mask */
            mt_tensor *u = mto_unsqueeze(s, pos), *m1 = u ? mto_view(mask, MT_ILIST(1)) : NULL;
            mt_tensor_decref(mask);
            if (!m1) {
                mt_tensor_decref(u);
                st = -1;
                break;
            }
            mt_tensor_decref(s);
            s = u;
            mask = m1;
        }
        if (pos + mask->ndim > s->ndim) {
            mt_tensor_decref(mask);
            st = too_many_indices(*self, list.n);
            break;
        }
        for (int j = 0; j < mask->ndim && st == 0; j++)
            if (mask->sizes[j] != s->sizes[pos + j]) {
                char a[256], b[256];
                mt_fmt_ilist(a, sizeof a, mask->sizes, mask->ndim);
                mt_fmt_ilist(b, sizeof b, s->sizes, s->ndim);
                st = mt_error(
                    MT_ERR_INDEX,
                    "The shape of the mask %s at index %d does not match the shape of the indexed "
                    "tensor %s at index %d",
                    a, j + 1, b, pos + j + 1);
            }
        mt_tensor *nz = st ? NULL : mto_nonzero(mask);
        mt_tensor_decref(mask);
        if (!nz) {
            st = -1;
            break;
        }
        for (int j = 0; j < nz->sizes[1] && st == 0; j++) {
            mt_tensor *col = mto_select_int(nz, 1, j);
            out[k] = col ? on_device(col, s->device) : NULL;
            mt_tensor_decref(col);
            if (out[k])
                k++;
            else
                st = -1;
        }
        pos += (int)nz->sizes[1];
        mt_tensor_decref(nz);
    }
    if (st) {
        for (int i = 0; i < k; i++) mt_tensor_decref(out[i]);
        mt_tensor_decref(s);
        return -1;
    }
    *self = s;
    *n = k;
    return 0;
}

static void release(mt_tensor **ts, int n) {
    for (int i = 0; i < n; i++) mt_tensor_decref(ts[i]);
}

static int c_index(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *ix[MT_MAX_DIM];
    int n;
    if (expand_indices(&self, a[1], ix, &n)) return -1;
    mt_tensor *out = mto__index_int(self, ix, n);
    release(ix, n);
    mt_tensor_decref(self);
    if (!out) return -1;
    r[0] = mt_vtensor(out);
    return 0;
}

static int c_index_put_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *target = self, *values = a[2].t, *ix[MT_MAX_DIM];
    int n;
    if (expand_indices(&target, a[1], ix, &n)) return -1;
    /* values sharing memory with self are read from a copy: every write sees the old values; a
     * 0-d value on another device moves to self's, as PyTorch's index_put_ moves it (x[idx] =
     * torch.tensor(1.0) on cuda) */
    bool move = values->ndim == 0 && !mt_device_eq(values->device, self->device);
    bool copy = !move && values->storage == self->storage && mt_tensors_overlap(values, self);
    mt_tensor *v = move   ? mto_to_device(values, self->device, -1, false, false, NULL)
                   : copy ? mto_clone(values, NULL)
                          : values;
    mt_tensor *w = v ? mto__index_put_int_(target, ix, n, v, a[3].b) : NULL;
    if (copy || (move && v)) mt_tensor_decref(v);
    release(ix, n);
    mt_tensor_decref(target);
    if (!w) return -1;
    mt_tensor_decref(w);
    mt_tensor_incref(self);
    r[0] = mt_vtensor(self);
    return 0;
}

/* ---- the plan -------------------------------------------------------------------------------- */

/* The shape the index tensors broadcast to; PyTorch's message when they do not. */
static int index_broadcast(mt_tensor *const *ix, int n, int *nd, int64_t *shape) {
    int64_t prev[MT_MAX_DIM];
    *nd = 0;
    for (int i = 0; i < n; i++) {
        memcpy(prev, shape, sizeof(int64_t) * (size_t)*nd);
        if (mt_broadcast_shapes(*nd, prev, ix[i]->ndim, ix[i]->sizes, nd, shape) == 0) continue;
        mt_error_clear();
        char buf[1024];
        size_t len = 0;
        buf[0] = 0;
        for (int j = 0; j < n && len + 64 < sizeof buf; j++) {
            if (j) len += (size_t)snprintf(buf + len, sizeof buf - len, ", ");
            mt_fmt_ilist(buf + len, sizeof buf - len, ix[j]->sizes, ix[j]->ndim);
            len = strlen(buf);
        }
        return mt_error(
            MT_ERR_INDEX,
            "shape mismatch: indexing tensors could not be broadcast together with shapes %s", buf);
    }
    return 0;
}

int mt_index_plan_make(const mt_tensor *self, mt_tensor *const *list, int n, mt_index_plan *p) {
    if (n > self->ndim) return too_many_indices(self, n);
    int first = -1, last = -1, np = 0;
    bool adjacent = true;
    p->nidx = 0;
    for (int i = 0; i < n; i++) {
        if (!list[i]) continue;
        if (list[i]->dtype != MT_INT64)
            return mt_error(MT_ERR_INDEX,
                            "tensors used as indices must be long, byte or bool tensors");
        if (last >= 0 && i != last + 1) adjacent = false;
        if (first < 0) first = i;
        last = i;
        p->perm[np++] = i;
        p->idx[p->nidx++] = list[i];
    }
    for (int d = 0; d < self->ndim; d++)
        if (d >= n || !list[d]) p->perm[np++] = d;
    if (index_broadcast(p->idx, p->nidx, &p->nb, p->bshape)) return -1;
    int rest = self->ndim - p->nidx;
    if (p->nb + rest > MT_MAX_DIM)
        return mt_error(MT_ERR_RUNTIME, "indexing result has too many dimensions");
    p->at = p->nidx && adjacent ? first : 0;
    p->ndim = p->nb + rest;
    /* result: the other dims in order, bshape at `at` */
    for (int i = 0, r = 0; i < p->ndim; i++) {
        if (i >= p->at && i < p->at + p->nb)
            p->sizes[i] = p->bshape[i - p->at];
        else
            p->sizes[i] = self->sizes[p->perm[p->nidx + r++]];
    }
    return 0;
}

void mt_permuted_view(const mt_tensor *t, const int *perm, mt_tensor *view) {
    *view = *t;
    for (int i = 0; i < t->ndim; i++) {
        view->sizes[i] = t->sizes[perm[i]];
        view->strides[i] = t->strides[perm[i]];
    }
}

void mt_index_result_perm(const mt_index_plan *p, int *perm) {
    int k = 0;
    for (int i = 0; i < p->nb; i++) perm[k++] = p->at + i;
    for (int i = 0; i < p->ndim; i++)
        if (i < p->at || i >= p->at + p->nb) perm[k++] = i;
}

/* ---- meta functions -------------------------------------------------------------------------- */

static int meta_index_int(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    mt_index_plan p;
    if (mt_index_plan_make(self, a[1].tl, a[1].n, &p)) return -1;
    o->ndim = (int8_t)p.ndim;
    o->dtype = self->dtype;
    memcpy(o->sizes, p.sizes, sizeof(int64_t) * (size_t)p.ndim);
    if (p.ndim == 0) return 0;
    /* TensorIterator's layout: self over the result shape with zero strides on the index dims
     * (its indexed dims moved to the front first unless adjacent), and the index tensors with
     * zero strides elsewhere */
    mt_tensor ops[MT_EW_MAX_IN], *ptrs[MT_EW_MAX_IN];
    mt_tensor front;
    mt_permuted_view(self, p.perm, &front);
    int nops = 0;
    ops[0] = *self;
    ops[0].ndim = (int8_t)p.ndim;
    for (int i = 0, r = 0; i < p.ndim; i++) {
        ops[0].sizes[i] = p.sizes[i];
        ops[0].strides[i] = (i >= p.at && i < p.at + p.nb) ? 0 : front.strides[p.nidx + r++];
    }
    nops = 1;
    for (int j = 0; j < p.nidx && nops < MT_EW_MAX_IN; j++, nops++) {
        mt_tensor *ix = p.idx[j];
        ops[nops] = *ix;
        ops[nops].ndim = (int8_t)p.ndim;
        for (int i = 0; i < p.ndim; i++) {
            int b = i - p.at, id = b - (p.nb - ix->ndim);
            bool in_b = b >= 0 && b < p.nb;
            ops[nops].sizes[i] = p.sizes[i];
            ops[nops].strides[i] =
                in_b && id >= 0 && ix->sizes[id] == p.sizes[i] ? ix->strides[id] : 0;
        }
    }
    for (int i = 0; i < nops; i++) ptrs[i] = &ops[i];
    mt_ew_out_strides(nops, ptrs, p.ndim, o->sizes, o->strides);
    o->has_strides = 1;
    return 0;
}

static int meta_index_put_int_(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *values = a[2].t;
    mt_index_plan p;
    if (mt_index_plan_make(self, a[1].tl, a[1].n, &p)) return -1;
    if (values->dtype != self->dtype)
        return mt_error(MT_ERR_RUNTIME,
                        "Index put requires the source and destination dtypes match, got %s for "
                        "the destination "
                        "and %s for the source.",
                        mt_dtype_scalar_name((mt_dtype)self->dtype),
                        mt_dtype_scalar_name((mt_dtype)values->dtype));
    bool fits = values->ndim <= p.ndim;
    for (int i = 0; fits && i < values->ndim; i++) {
        int64_t v = values->sizes[i], t = p.sizes[i + p.ndim - values->ndim];
        fits = v == 1 || v == t;
    }
    if (!fits) {
        char x[256], y[256];
        mt_fmt_ilist(x, sizeof x, values->sizes, values->ndim);
        mt_fmt_ilist(y, sizeof y, p.sizes, p.ndim);
        return mt_error(MT_ERR_RUNTIME,
                        "shape mismatch: value tensor of shape %s cannot be broadcast to indexing "
                        "result of shape %s",
                        x, y);
    }
    if (mt_check_writable(self)) return -1;
    o->inplace_arg = 0;
    return 0;
}

void mt_adv_index_register(void) {
    mt_disp_meta(MT_OP__index_int, meta_index_int);
    mt_disp_meta(MT_OP__index_put_int_, meta_index_put_int_);
    mt_disp_composite(MT_OP__index, c_index);
    mt_disp_composite(MT_OP_index_put_, c_index_put_);
}
