/* cuda_ops_shape.c: cat on CUDA: each input copied (and converted to the result's dtype) into its
 * slice of the result by the element-wise copy kernel. */
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

const mt_kernel_entry cuda_shape_kernels[] = {
    {"cat", k_cat},
};
const size_t cuda_shape_kernels_count = MT_ARRAY_LEN(cuda_shape_kernels);
