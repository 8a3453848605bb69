/* cuda_ops_shape.c: cat and repeat on CUDA: copies into views of the result by the element-wise
 * copy kernel (cat's inputs converted to the result's dtype). */
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"

/* cat(tensors, dim): the meta function made the result; a 1-d empty input is skipped, as
 * PyTorch's legacy rule says */
static int k_cat(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *out = r[0].t;
    if (out->numel == 0) return 0;
    int d;
    if (mt_wrap_dim(a[1].i, out->ndim, &d)) return -1;
    int64_t at = 0;
    for (int i = 0; i < a[0].n; i++) {
        mt_tensor *t = a[0].tl[i];
        if (t->ndim == 1 && t->numel == 0 && out->ndim != 1) continue;
        int64_t sizes[MT_MAX_DIM];
        for (int k = 0; k < out->ndim; k++) sizes[k] = k == d ? t->sizes[d] : out->sizes[k];
        mt_tensor *slice = mt_tensor_view_of(out, out->ndim, sizes, out->strides,
                                             out->offset + at * out->strides[d]);
        if (!slice) return -1;
        mt_tensor *in[1] = {t};
        int rc = t->numel ? cuda_ew(slice, CK_COPY, 1, in, NULL, NULL, (mt_dtype)t->dtype) : 0;
        mt_tensor_decref(slice);
        if (rc) return -1;
        at += t->sizes[d];
    }
    return 0;
}

/* dst <- src, both views of n dims over their tensors' storage */
static int copy_view(mt_tensor *out, mt_tensor *self, int n, const int64_t *sizes,
                     const int64_t *dst_strides, int64_t dst_offset, const int64_t *src_strides) {
    mt_tensor *dst = mt_tensor_view_of(out, n, sizes, dst_strides, dst_offset);
    mt_tensor *src = dst ? mt_tensor_view_of(self, n, sizes, src_strides, self->offset) : NULL;
    mt_tensor *in[1] = {src};
    int rc = src ? cuda_ew(dst, CK_COPY, 1, in, NULL, NULL, (mt_dtype)out->dtype) : -1;
    if (src) mt_tensor_decref(src);
    if (dst) mt_tensor_decref(dst);
    return rc;
}

/* repeat(self, repeats): the meta function made the result. Its dim i is seen as two, [r_i, s_i]
 * (tile, then self's own size), and self broadcast along the tile dims: one copy. Where twice
 * the dims would pass the limit, one copy per tile. */
static int k_repeat(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *self = a[0].t, *out = r[0].t;
    const int64_t *reps = a[1].il;
    int n = a[1].n, lead = n - self->ndim;
    if (out->numel == 0) return 0;
    int64_t ss[MT_MAX_DIM], st[MT_MAX_DIM]; /* self at the result's rank */
    for (int i = 0; i < n; i++) {
        ss[i] = i >= lead ? self->sizes[i - lead] : 1;
        st[i] = i >= lead ? self->strides[i - lead] : 0;
    }
    if (2 * n <= MT_MAX_DIM) {
        int64_t sizes[MT_MAX_DIM], dst[MT_MAX_DIM], src[MT_MAX_DIM];
        for (int i = 0; i < n; i++) {
            sizes[2 * i] = reps[i];
            sizes[2 * i + 1] = ss[i];
            dst[2 * i] = ss[i] * out->strides[i];
            dst[2 * i + 1] = out->strides[i];
            src[2 * i] = 0;
            src[2 * i + 1] = st[i];
        }
        return copy_view(out, self, 2 * n, sizes, dst, out->offset, src);
    }
    int64_t tiles = 1;
    for (int i = 0; i < n; i++) tiles *= reps[i];
    for (int64_t t = 0; t < tiles; t++) {
        int64_t rest = t, offset = out->offset;
        for (int i = n - 1; i >= 0; i--) {
            offset += rest % reps[i] * ss[i] * out->strides[i];
            rest /= reps[i];
        }
        if (copy_view(out, self, n, ss, out->strides, offset, st)) return -1;
    }
    return 0;
}

const mt_kernel_entry cuda_shape_kernels[] = {
    {"cat", k_cat},
    {"repeat", k_repeat},
};
const size_t cuda_shape_kernels_count = MT_ARRAY_LEN(cuda_shape_kernels);
