/* views.c: view operators. They only compute new sizes, strides and offsets over the same
 * storage, so one kernel serves every device (CPU, accelerators and meta alike). */
#include "common_ops.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <string.h>

static int ret_view(mt_value *rets, mt_tensor *self, int ndim, const int64_t *sizes,
                    const int64_t *strides, int64_t offset) {
    mt_tensor *t = mt_tensor_view_of(self, ndim, sizes, strides, offset);
    if (!t) return -1;
    if (!mt_tls_get()->grad_enabled)
        t->flags |= MT_T_VIEW_NO_GRAD; /* for autograd's in-place checks */
    rets[0] = mt_vtensor(t);
    return 0;
}

static int too_many_dims(int n) {
    return mt_error(MT_ERR_RUNTIME, "mindtorch supports tensors of at most %d dimensions, got %d",
                    MT_MAX_DIM, n);
}

int mt_k_view(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    int n = a[1].n;
    int64_t shape[MT_MAX_DIM], strides[MT_MAX_DIM];
    if (n > MT_MAX_DIM) return too_many_dims(n);
    if (mt_infer_size(a[1].il, n, s->numel, shape)) return -1;
    if (!mt_view_strides(s->ndim, s->sizes, s->strides, n, shape, strides))
        return mt_error(MT_ERR_RUNTIME,
                        "view size is not compatible with input tensor's size and stride (at least "
                        "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                        "instead.");
    return ret_view(r, s, n, shape, strides, s->offset);
}

int mt_k_transpose(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    int d0, d1;
    if (mt_wrap_dim(a[1].i, s->ndim, &d0) || mt_wrap_dim(a[2].i, s->ndim, &d1)) return -1;
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM];
    memcpy(sizes, s->sizes, sizeof sizes);
    memcpy(strides, s->strides, sizeof strides);
    if (s->ndim > 0) {
        sizes[d0] = s->sizes[d1];
        sizes[d1] = s->sizes[d0];
        strides[d0] = s->strides[d1];
        strides[d1] = s->strides[d0];
    }
    return ret_view(r, s, s->ndim, sizes, strides, s->offset);
}

int mt_k_t(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *s = a[0].t;
    if (s->ndim > 2)
        return mt_error(MT_ERR_RUNTIME,
                        "t() expects a tensor with <= 2 dimensions, but self is %dD", s->ndim);
    if (s->ndim < 2) return ret_view(r, s, s->ndim, s->sizes, s->strides, s->offset);
    mt_value ta[3] = {a[0], mt_vint(0), mt_vint(1)};
    return mt_k_transpose(c, ta, r);
}

int mt_k_permute(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    if (a[1].n != s->ndim)
        return mt_error(MT_ERR_RUNTIME,
                        "permute(sparse_coo): number of dimensions in the tensor input does not "
                        "match the length of the desired ordering of dimensions i.e. input.dim() = "
                        "%d is not equal to len(dims) = %d",
                        s->ndim, a[1].n);
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM];
    bool seen[MT_MAX_DIM] = {0};
    for (int i = 0; i < s->ndim; i++) {
        int d;
        if (mt_wrap_dim(a[1].il[i], s->ndim, &d)) return -1;
        if (seen[d]) return mt_error(MT_ERR_RUNTIME, "permute(): duplicate dims are not allowed.");
        seen[d] = true;
        sizes[i] = s->sizes[d];
        strides[i] = s->strides[d];
    }
    return ret_view(r, s, s->ndim, sizes, strides, s->offset);
}

int mt_k_expand(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    int n = a[1].n;
    const int64_t *want = a[1].il;
    char tbuf[64], sbuf[256], wbuf[256];
    if (n > MT_MAX_DIM) return too_many_dims(n);
    if (n < s->ndim) {
        mt_fmt_ilist(sbuf, sizeof sbuf, want, n);
        mt_fmt_ilist(wbuf, sizeof wbuf, s->sizes, s->ndim);
        return mt_error(MT_ERR_RUNTIME,
                        "expand(%s{%s}, size=%s): the number of sizes provided (%d) must be "
                        "greater or equal to the number of dimensions in the tensor (%d)",
                        mt_tensor_type_name(s, tbuf, sizeof tbuf), wbuf, sbuf, n, s->ndim);
    }
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM];
    for (int i = n - 1; i >= 0; i--) {
        int d = i - (n - s->ndim);
        if (d < 0) {
            if (want[i] < 0)
                return mt_error(
                    MT_ERR_RUNTIME,
                    "The expanded size of the tensor (%lld) isn't allowed in a leading, "
                    "non-existing dimension %d",
                    (long long)want[i], i + 1);
            sizes[i] = want[i];
            strides[i] = 0;
            continue;
        }
        if (want[i] == -1) {
            sizes[i] = s->sizes[d];
            strides[i] = s->strides[d];
        } else if (s->sizes[d] == 1 && want[i] >= 0) {
            sizes[i] = want[i];
            strides[i] = want[i] == 1 ? s->strides[d] : 0;
        } else if (s->sizes[d] != want[i]) {
            mt_fmt_ilist(wbuf, sizeof wbuf, want, n);
            mt_fmt_ilist(sbuf, sizeof sbuf, s->sizes, s->ndim);
            return mt_error(MT_ERR_RUNTIME,
                            "The expanded size of the tensor (%lld) must match the existing size "
                            "(%lld) at non-singleton dimension %d.  Target sizes: %s.  Tensor "
                            "sizes: %s",
                            (long long)want[i], (long long)s->sizes[d], i + 1, wbuf, sbuf);
        } else {
            sizes[i] = s->sizes[d];
            strides[i] = s->strides[d];
        }
    }
    return ret_view(r, s, n, sizes, strides, s->offset);
}

int mt_k_narrow(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    if (s->ndim == 0)
        return mt_error(MT_ERR_RUNTIME, "narrow() cannot be applied to a 0-dim tensor.");
    int d;
    if (mt_wrap_dim(a[1].i, s->ndim, &d)) return -1;
    int64_t size = s->sizes[d], start = a[2].i, length = a[3].i;
    if (start != size) { /* one past the end is allowed, for an empty slice */
        int64_t n =
            size > 0 ? size : 1; /* wrapped as a dim is (PyTorch's maybe_wrap_dim), in int64 */
        if (start < -n || start >= n)
            return mt_error(
                MT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                (long long)-n, (long long)n, mt_user_dim(start));
        if (start < 0) start += n;
    }
    if (length < 0 || start > size - length)
        return mt_error(MT_ERR_RUNTIME,
                        "start (%lld) + length (%lld) exceeds dimension size (%lld).",
                        mt_user_dim(a[2].i), (long long)length, (long long)size);
    int64_t sizes[MT_MAX_DIM];
    memcpy(sizes, s->sizes, sizeof sizes);
    sizes[d] = length;
    return ret_view(r, s, s->ndim, sizes, s->strides, s->offset + start * s->strides[d]);
}

int mt_k_select(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    if (s->ndim == 0)
        return mt_error(MT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
    int d;
    if (mt_wrap_dim(a[1].i, s->ndim, &d)) return -1;
    int64_t size = s->sizes[d], idx = a[2].i;
    if (idx < -size || idx >= size) {
        char buf[256];
        mt_fmt_ilist(buf, sizeof buf, s->sizes, s->ndim);
        return mt_error(MT_ERR_INDEX,
                        "select(): index %lld out of range for tensor of size %s at dimension %d",
                        mt_user_dim(idx), buf, d + 1);
    }
    if (idx < 0) idx += size;
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM];
    int n = 0;
    for (int i = 0; i < s->ndim; i++) {
        if (i == d) continue;
        sizes[n] = s->sizes[i];
        strides[n++] = s->strides[i];
    }
    return ret_view(r, s, n, sizes, strides, s->offset + idx * s->strides[d]);
}

int mt_k_squeeze(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *s = a[0].t;
    int only = -1;
    if (c->op->id == MT_OP_squeeze_dim) {
        if (mt_wrap_dim(a[1].i, s->ndim, &only)) return -1;
    }
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM];
    int n = 0;
    for (int i = 0; i < s->ndim; i++) {
        if (s->sizes[i] == 1 && (only < 0 || only == i)) continue;
        sizes[n] = s->sizes[i];
        strides[n++] = s->strides[i];
    }
    return ret_view(r, s, n, sizes, strides, s->offset);
}

int mt_k_unsqueeze(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    int d;
    if (mt_wrap_dim(a[1].i, s->ndim + 1, &d)) return -1;
    if (s->ndim + 1 > MT_MAX_DIM) return too_many_dims(s->ndim + 1);
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM];
    for (int i = 0, j = 0; i <= s->ndim; i++) {
        if (i == d) {
            sizes[i] = 1;
            strides[i] = d < s->ndim ? s->sizes[d] * s->strides[d] : 1;
        } else {
            sizes[i] = s->sizes[j];
            strides[i] = s->strides[j++];
        }
    }
    return ret_view(r, s, s->ndim + 1, sizes, strides, s->offset);
}

int mt_k_as_strided(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    int n = a[1].n;
    if (n != a[2].n) return mt_error(MT_ERR_RUNTIME, "mismatch in length of strides and shape");
    if (n > MT_MAX_DIM) return too_many_dims(n);
    const int64_t *sizes = a[1].il, *strides = a[2].il;
    for (int i = 0; i < n; i++) {
        if (strides[i] < 0) {
            char b[256];
            mt_fmt_ilist(b, sizeof b, strides, n);
            return mt_error(MT_ERR_RUNTIME,
                            "as_strided: Negative strides are not supported at the moment, got "
                            "strides: %s",
                            b);
        }
    }
    int64_t offset = a[3].tag == MT_V_INT ? a[3].i : s->offset;
    /* the bounds (setStorage's error) are checked where every view is made */
    return ret_view(r, s, n, sizes, strides, offset);
}

/* alias: the same geometry */
int mt_k_alias(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    return ret_view(r, s, s->ndim, s->sizes, s->strides, s->offset);
}

/* detach: the same data and version counter, but not a view (PyTorch's _is_view() is false):
 * writes to it never reach the graph of the tensor it came from */
int mt_k_detach(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    mt_tensor *t = mt_tensor_view_of(s, s->ndim, s->sizes, s->strides, s->offset);
    if (!t) return -1;
    mt_tensor_decref(t->base);
    t->base = NULL;
    t->flags &= (uint16_t)~MT_T_VIEW;
    r[0] = mt_vtensor(t);
    return 0;
}

int mt_k_diagonal(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s = a[0].t;
    int d1, d2;
    if (mt_wrap_dim(a[2].i, s->ndim, &d1) || mt_wrap_dim(a[3].i, s->ndim, &d2)) return -1;
    if (d1 == d2)
        return mt_error(MT_ERR_RUNTIME, "diagonal dimensions cannot be identical %lld, %lld",
                        mt_user_dim(a[2].i), mt_user_dim(a[3].i));
    int64_t off = a[1].i, len, offset = s->offset;
    if (off >= 0) {
        len = s->sizes[d2] - off < s->sizes[d1] ? s->sizes[d2] - off : s->sizes[d1];
        if (len < 0)
            len = 0;
        else
            offset += off * s->strides[d2];
    } else {
        len = s->sizes[d1] + off < s->sizes[d2] ? s->sizes[d1] + off : s->sizes[d2];
        if (len < 0)
            len = 0;
        else
            offset -= off * s->strides[d1];
    }
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM];
    int n = 0;
    for (int i = 0; i < s->ndim; i++) {
        if (i == d1 || i == d2) continue;
        sizes[n] = s->sizes[i];
        strides[n++] = s->strides[i];
    }
    sizes[n] = len;
    strides[n++] = s->strides[d1] + s->strides[d2];
    return ret_view(r, s, n, sizes, strides, len ? offset : s->offset);
}

/* resize_: new sizes (contiguous strides, unless they are unchanged), over a storage grown when
 * the new shape needs more bytes. Metadata and storage only, so it serves every device. */
int mt_k_resize_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *t = a[0].t;
    int n = a[1].n;
    if (n > MT_MAX_DIM) return too_many_dims(n);
    int64_t numel = mt_numel_checked(n, a[1].il);
    if (numel < 0) return mt_error(MT_ERR_RUNTIME, "numel: integer multiplication overflow");
    /* a memory format restrides even to the same sizes, as PyTorch's (checked before anything
     * changes); without one, new sizes get contiguous strides */
    const char *fmt = a[2].tag == MT_V_STR ? a[2].s : NULL;
    if (fmt && strcmp(fmt, "preserve_format") == 0)
        return mt_error(MT_ERR_RUNTIME, "Unsupported memory formatPreserve"); /* sic, PyTorch's */
    int64_t strides[MT_MAX_DIM];
    if (fmt && mt_memory_format_strides(fmt, n, a[1].il, strides)) return -1;
    bool same = n == t->ndim && memcmp(a[1].il, t->sizes, sizeof(int64_t) * (size_t)n) == 0;
    if (!same || fmt) {
        if (!fmt) mt_contiguous_strides(n, a[1].il, strides);
        int64_t need =
            mt_required_nbytes(n, a[1].il, strides, t->offset, mt_dtype_size((mt_dtype)t->dtype));
        if (need < 0) {
            char b[256];
            mt_fmt_ilist(b, sizeof b, a[1].il, n);
            return mt_error(MT_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s", b);
        }
        if ((uint64_t)need > t->storage->nbytes && mt_storage_resize(t->storage, (size_t)need))
            return -1;
        if (n > 0) memcpy(t->sizes, a[1].il, sizeof(int64_t) * (size_t)n); /* {} may be NULL */
        memcpy(t->strides, strides, sizeof(int64_t) * (size_t)n);
        t->ndim = (int8_t)n;
        t->numel = numel;
    }
    mt_tensor_incref(t);
    r[0] = mt_vtensor(t);
    return 0;
}
