/* cuda_ops_sort.c: sort (and sort.stable), topk and kthvalue on CUDA, all one stable sort along
 * the dim (kernels/ck_sort.cuh: a load, log2(len) merges, a store) of which each op stores a part
 * of every row, as the CPU's kernel does: topk the first k of a descending (largest) or ascending
 * sort, kthvalue the k-th of an ascending one. argsort, msort, median, nanmedian, mode and the
 * quantiles are compositions over sort. Keys are sorted in the compute type (float for float32
 * and the half types, double, int64 for integers and bool), which holds every value exactly. */
#include <string.h>

#include "cuda_launch.h"
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"

int cuda_sort_rows(mt_tensor *self, int d, bool desc, int64_t keep, int64_t skip, mt_tensor *vals,
                   mt_tensor *inds, bool squeeze) {
    int64_t len = self->ndim ? self->sizes[d] : 1;
    if (self->numel == 0 || keep == 0) return 0;
    ck_sort_args a;
    memset(&a, 0, sizeof a);
    a.rows = self->numel / len;
    a.len = len;
    a.keep = keep;
    a.skip = skip;
    a.descending = desc;
    a.in_step = self->ndim ? self->strides[d] : 0;
    a.values_step = squeeze || !vals->ndim ? 0 : vals->strides[d];
    a.indices_step = squeeze || !inds->ndim ? 0 : inds->strides[d];
    for (int i = 0, o = 0; i < self->ndim; i++) {
        if (i == d) {
            if (!squeeze) o++;
            continue;
        }
        a.ksizes[a.kdim] = self->sizes[i];
        a.in.strides[a.kdim] = self->strides[i];
        a.values.strides[a.kdim] = vals->strides[o];
        a.indices.strides[a.kdim++] = inds->strides[o++];
    }
    a.in.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(self);
    a.in.dtype = self->dtype;
    a.values.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(vals);
    a.values.dtype = vals->dtype;
    a.indices.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(inds);
    a.indices.dtype = MT_INT64;
    mt_dtype dt = (mt_dtype)self->dtype, kt = dt == MT_FLOAT64           ? MT_FLOAT64
                                              : mt_dtype_is_floating(dt) ? MT_FLOAT32
                                                                         : MT_INT64;
    cuda_fn fn = kt == MT_FLOAT64   ? CUDA_FN_SORT_F64
                 : kt == MT_FLOAT32 ? CUDA_FN_SORT_F32
                                    : CUDA_FN_SORT_I64;
    /* the scratch: two halves of keys and of positions, the merges reading one, writing the other
     */
    int64_t two[1] = {2 * self->numel};
    mt_tensor *keys = mt_tensor_empty(1, two, kt, self->device),
              *pos = keys ? mt_tensor_empty(1, two, MT_INT64, self->device) : NULL;
    int device = cuda_device_of(self), rc = pos ? 0 : -1;
    if (!rc) {
        a.keys = (uint64_t)(uintptr_t)mt_tensor_raw(keys);
        a.pos = (uint64_t)(uintptr_t)mt_tensor_raw(pos);
        a.op = CK_SORT_LOAD;
        a.n = self->numel;
        rc = cuda_launch(device, fn, a.n, &a);
    }
    a.op = CK_SORT_MERGE;
    for (int64_t w = 1; !rc && w < len; w *= 2) {
        a.width = w;
        rc = cuda_launch(device, fn, a.n, &a);
        a.src = !a.src;
    }
    if (!rc) {
        a.op = CK_SORT_STORE;
        a.n = a.rows * keep;
        rc = cuda_launch(device, fn, a.n, &a);
    }
    /* the scratch goes back to the caching allocator; the stream orders its reuse after these */
    if (keys) mt_tensor_decref(keys);
    if (pos) mt_tensor_decref(pos);
    return rc;
}

/* sort(self, dim, descending), sort.stable(self, stable, dim, descending): the dispatcher has
 * made the results (the ops' shared meta function checked the arguments) */
static int k_sort(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    int d;
    if (mt_wrap_dim(a[1].i, a[0].t->ndim, &d)) return -1;
    int64_t len = a[0].t->ndim ? a[0].t->sizes[d] : 1;
    return cuda_sort_rows(a[0].t, d, a[2].b, len, 0, r[0].t, r[1].t, false);
}

static int k_sort_stable(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    int d;
    if (mt_wrap_dim(a[2].i, a[0].t->ndim, &d)) return -1;
    int64_t len = a[0].t->ndim ? a[0].t->sizes[d] : 1;
    return cuda_sort_rows(a[0].t, d, a[3].b, len, 0, r[0].t, r[1].t, false);
}

/* topk(self, k, dim, largest, sorted): the first k of the sort (always sorted, as on the CPU) */
static int k_topk(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    int d;
    if (mt_wrap_dim(a[2].i, a[0].t->ndim, &d)) return -1;
    return cuda_sort_rows(a[0].t, d, a[3].b, a[1].i, 0, r[0].t, r[1].t, false);
}

/* kthvalue(self, k, dim, keepdim): the k-th (from 1) of an ascending sort */
static int k_kthvalue(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *self = a[0].t;
    int d;
    if (mt_wrap_dim(a[2].i, self->ndim, &d)) return -1;
    return cuda_sort_rows(self, d, false, 1, a[1].i - 1, r[0].t, r[1].t, !a[3].b && self->ndim);
}

const mt_kernel_entry cuda_sort_kernels[] = {
    {"sort", k_sort},
    {"sort.stable", k_sort_stable},
    {"topk", k_topk},
    {"kthvalue", k_kthvalue},
};
const size_t cuda_sort_kernels_count = MT_ARRAY_LEN(cuda_sort_kernels);
