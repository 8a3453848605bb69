/* shape.c: broadcasting, overlap predicates and layout choices shared by all devices. */
#include "shape.h"

#include <stdlib.h>
#include <string.h>

int mt_broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b, int *nout,
                        int64_t *out) {
    int n = na > nb ? na : nb;
    for (int i = n - 1; i >= 0; i--) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa == sb || sb == 1) {
            out[i] = sa;
        } else if (sa == 1) {
            out[i] = sb;
        } else {
            return mt_error(MT_ERR_RUNTIME,
                            "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                            "non-singleton dimension %d",
                            (long long)sa, (long long)sb, i + 1);
        }
    }
    *nout = n;
    return 0;
}

int mt_check_broadcastable_to(const mt_tensor *t, int ndim, const int64_t *shape) {
    if (t->ndim > ndim) {
        char a[256], b[256];
        mt_fmt_ilist(a, sizeof a, t->sizes, t->ndim);
        mt_fmt_ilist(b, sizeof b, shape, ndim);
        return mt_error(MT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        b, a);
    }
    for (int i = 0; i < t->ndim; i++) {
        int j = i + ndim - t->ndim;
        if (t->sizes[i] != 1 && t->sizes[i] != shape[j]) {
            return mt_error(MT_ERR_RUNTIME,
                            "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                            "non-singleton dimension %d",
                            (long long)shape[j], (long long)t->sizes[i], j + 1);
        }
    }
    return 0;
}

bool mt_has_internal_overlap(const mt_tensor *t) {
    if (mt_is_non_overlapping_and_dense(t)) return false;
    for (int i = 0; i < t->ndim; i++)
        if (t->sizes[i] > 1 && t->strides[i] == 0) return true;
    return false; /* too hard to tell: PyTorch lets it through as well */
}

static void byte_range(const mt_tensor *t, uintptr_t *lo, uintptr_t *hi) {
    size_t isz = mt_dtype_size((mt_dtype)t->dtype);
    int64_t first = t->offset, last = t->offset;
    for (int i = 0; i < t->ndim; i++) {
        int64_t span = (t->sizes[i] - 1) * t->strides[i];
        if (span < 0)
            first += span;
        else
            last += span;
    }
    uintptr_t base = (uintptr_t)t->storage->data;
    *lo = base + (uintptr_t)(first * (int64_t)isz);
    *hi = base + (uintptr_t)((last + 1) * (int64_t)isz);
}

bool mt_tensors_overlap(const mt_tensor *a, const mt_tensor *b) {
    if (a->storage != b->storage || a->numel == 0 || b->numel == 0) return false;
    if (!a->storage->data) return false;
    uintptr_t alo, ahi, blo, bhi;
    byte_range(a, &alo, &ahi);
    byte_range(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

bool mt_tensors_partially_overlap(const mt_tensor *a, const mt_tensor *b) {
    if (!mt_tensors_overlap(a, b)) return false;
    bool same = a->offset == b->offset && a->ndim == b->ndim && a->dtype == b->dtype &&
                memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim) == 0 &&
                memcmp(a->strides, b->strides, sizeof(int64_t) * (size_t)a->ndim) == 0;
    return !same;
}

int mt_check_writable(const mt_tensor *out) {
    if (mt_has_internal_overlap(out))
        return mt_error(MT_ERR_RUNTIME,
                        "unsupported operation: more than one element of the written-to tensor "
                        "refers to a single memory location. Please clone() the tensor before "
                        "performing the operation.");
    return 0;
}

int mt_check_no_overlap(const mt_tensor *out, const mt_tensor *in) {
    if (mt_tensors_partially_overlap(out, in))
        return mt_error(MT_ERR_RUNTIME,
                        "unsupported operation: some elements of the input tensor and the "
                        "written-to tensor refer to a single memory location. Please clone() the "
                        "tensor before performing the operation.");
    return 0;
}

void mt_preserve_strides(const mt_tensor *t, int64_t *strides) {
    if (mt_is_non_overlapping_and_dense(t) && t->numel > 0)
        memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    else
        mt_contiguous_strides(t->ndim, t->sizes, strides);
}

int mt_strides_like(const mt_tensor *t, const char *fmt, int64_t *strides) {
    if (!fmt || strcmp(fmt, "preserve_format") == 0) {
        mt_preserve_strides(t, strides);
        return 0;
    }
    return mt_memory_format_strides(fmt, t->ndim, t->sizes, strides);
}

int mt_outspec_layout(mt_outspec *o, const char *fmt) {
    bool cl2d = strcmp(fmt, "channels_last") == 0, cl3d = strcmp(fmt, "channels_last_3d") == 0;
    if (!(cl2d && o->ndim == 4) && !(cl3d && o->ndim == 5)) return 0;
    if (mt_memory_format_strides(fmt, o->ndim, o->sizes, o->strides)) return -1;
    o->has_strides = 1;
    return 0;
}
