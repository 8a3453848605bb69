/* cuda_ops_select.c: nonzero, masked_select and advanced indexing (_index_int, _index_put_int_:
 * x[idx], x[mask] with several indices, index_put_) on CUDA. nonzero and masked_select learn their
 * result's size from the device (as PyTorch's CUDA kernels, they wait for the stream): a count
 * pass over parts of the elements, the counts scanned here into offsets, a fill pass
 * (kernels/ck_select.cuh). The shared composites of backends/common/adv_index.c turn masks into
 * index tensors with nonzero and call the structured _index_int and _index_put_int_, whose meta
 * functions made the result; every index is checked before anything is written, so a bad one
 * leaves self as it was and the op fails with the CPU's message. */
#include <stdlib.h>
#include <string.h>

#include "adv_index.h"
#include "cuda_launch.h"
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"
#include "shape.h"

static int same_device(const mt_tensor *a, const mt_tensor *b) {
    if (a->device.type == b->device.type && cuda_device_of(a) == cuda_device_of(b)) return 0;
    return mt_error(MT_ERR_RUNTIME,
                    "Expected all tensors to be on the same device, but found at least two "
                    "devices, cuda:%d and %s!",
                    cuda_device_of(a->device.type == cuda_devtype ? a : b),
                    a->device.type == b->device.type ? "another cuda device" : "cpu");
}

/* t's strides right-aligned to a shape of nd dims it broadcasts to (0 where it broadcasts) */
static void aligned_strides(const mt_tensor *t, int nd, int64_t *strides) {
    for (int d = 0; d < nd; d++) {
        int td = d - (nd - t->ndim);
        strides[d] = td < 0 || t->sizes[td] == 1 ? 0 : t->strides[td];
    }
}

int cuda_scan_counts(mt_tensor *counts, int64_t n, int64_t *total) {
    size_t bytes = sizeof(int64_t) * (size_t)n;
    int64_t *host = malloc(bytes ? bytes : 1), sum = 0;
    if (!host) return mt_error(MT_ERR_MEMORY, "out of memory counting CUDA elements");
    int rc = cuda_copy_bytes(host, MT_CPU, mt_tensor_raw(counts), counts->device, bytes);
    for (int64_t i = 0; !rc && i < n; i++) {
        int64_t c = host[i];
        host[i] = sum;
        sum += c;
    }
    if (!rc) rc = cuda_copy_bytes(mt_tensor_raw(counts), counts->device, host, MT_CPU, bytes);
    free(host);
    *total = sum;
    return rc;
}

/* The count pass, then the offsets of every part, left in a->counts for the fill pass; the true
 * elements in *total. counts: a device tensor of a->parts int64. */
static int count_parts(ck_select_args *a, int device, mt_tensor *counts, int64_t *total) {
    a->op = CK_SELECT_COUNT;
    a->counts = (uint64_t)(uintptr_t)mt_tensor_raw(counts);
    if (cuda_launch(device, CUDA_FN_SELECT, a->parts, a)) return -1;
    return cuda_scan_counts(counts, a->parts, total);
}

/* the selection over sizes (nd dims) of the elements where mask is nonzero: nonzero's
 * coordinates (self NULL) or masked_select's values of self; a new tensor or NULL */
static mt_tensor *select_where(mt_tensor *mask, mt_tensor *self, int nd, const int64_t *sizes) {
    ck_select_args a;
    memset(&a, 0, sizeof a);
    a.ndim = nd;
    a.n = 1;
    for (int d = 0; d < nd; d++) a.n *= a.sizes[d] = sizes[d];
    a.parts = (a.n + CK_SELECT_CHUNK - 1) / CK_SELECT_CHUNK;
    a.mask.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(mask);
    a.mask.dtype = mask->dtype;
    aligned_strides(mask, nd, a.mask.strides);
    if (self) {
        a.self.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(self);
        a.self.dtype = self->dtype;
        aligned_strides(self, nd, a.self.strides);
    }
    int device = cuda_device_of(mask);
    int64_t total = 0, one = a.parts ? a.parts : 1;
    mt_tensor *counts = mt_tensor_empty(1, &one, MT_INT64, mask->device), *out = NULL;
    if (!counts || (a.n && count_parts(&a, device, counts, &total))) goto done;
    if (self) {
        out = mt_tensor_empty(1, &total, (mt_dtype)self->dtype, self->device);
    } else { /* column-major (total, nd), as PyTorch lays it out */
        int64_t shape[2] = {total, nd}, strides[2] = {1, total > 0 ? total : 1};
        out = mt_tensor_empty_strided(2, shape, strides, MT_INT64, mask->device);
    }
    if (!out || total == 0) goto done;
    a.op = self ? CK_SELECT_MASKED : CK_SELECT_NONZERO;
    a.out.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(out);
    a.out.dtype = out->dtype;
    a.total = total;
    if (cuda_launch(device, CUDA_FN_SELECT, a.parts, &a)) {
        mt_tensor_decref(out);
        out = NULL;
    }
done:
    if (counts) mt_tensor_decref(counts);
    return out;
}

static int k_nonzero(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *self = a[0].t, *out = select_where(self, NULL, self->ndim, self->sizes);
    if (!out) return -1;
    r[0] = mt_vtensor(out);
    return 0;
}

/* masked_select(self, mask): self and mask broadcast together */
static int k_masked_select(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *self = a[0].t, *mask = a[1].t;
    if (mask->dtype != MT_BOOL && mask->dtype != MT_UINT8)
        return mt_error(MT_ERR_RUNTIME, "masked_select: expected BoolTensor for mask");
    if (same_device(self, mask)) return -1;
    int64_t shape[MT_MAX_DIM];
    int nd;
    if (mt_broadcast_shapes(self->ndim, self->sizes, mask->ndim, mask->sizes, &nd, shape))
        return -1;
    mt_tensor *out = select_where(mask, self, nd, shape);
    if (!out) return -1;
    r[0] = mt_vtensor(out);
    return 0;
}

/* t itself when contiguous, else a contiguous copy on its device (a new reference either way) */
static mt_tensor *dense_copy(mt_tensor *t) {
    if (mt_tensor_is_contiguous(t)) {
        mt_tensor_incref(t);
        return t;
    }
    mt_tensor *d = mt_tensor_empty(t->ndim, t->sizes, (mt_dtype)t->dtype, t->device);
    mt_tensor *in[1] = {t};
    if (d && cuda_ew(d, CK_COPY, 1, in, NULL, NULL, (mt_dtype)t->dtype)) {
        mt_tensor_decref(d);
        d = NULL;
    }
    return d;
}

/* masked_scatter_(self, mask, source): the mask (broadcast to self, which the meta function
 * checked) counted per part as for masked_select, then the source's elements, in C order, written
 * where it is true; the CPU's error when the source is short (known after the count, so self is
 * left as it was) */
static int k_masked_scatter_(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    (void)r;
    mt_tensor *self = a[0].t, *mask = a[1].t;
    if (self->numel == 0) return 0;
    if (same_device(self, mask) || same_device(self, a[2].t)) return -1;
    ck_select_args k;
    memset(&k, 0, sizeof k);
    k.ndim = self->ndim;
    k.n = self->numel;
    memcpy(k.sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    k.parts = (k.n + CK_SELECT_CHUNK - 1) / CK_SELECT_CHUNK;
    k.mask.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(mask);
    k.mask.dtype = mask->dtype;
    aligned_strides(mask, self->ndim, k.mask.strides);
    k.self.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(self);
    k.self.dtype = self->dtype;
    memcpy(k.self.strides, self->strides, sizeof(int64_t) * (size_t)self->ndim);
    int device = cuda_device_of(self);
    int64_t total = 0;
    mt_tensor *counts = mt_tensor_empty(1, &k.parts, MT_INT64, self->device), *src = NULL;
    int rc = !counts || count_parts(&k, device, counts, &total) ? -1 : 0;
    if (!rc && a[2].t->numel < total)
        rc = mt_error(MT_ERR_RUNTIME, "Number of elements of source < number of ones in mask");
    if (!rc && total > 0) {
        src = dense_copy(a[2].t);
        rc = src ? 0 : -1;
    }
    if (!rc && total > 0) {
        k.op = CK_SELECT_SCATTER;
        k.out.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(src);
        k.out.dtype = src->dtype;
        rc = cuda_launch(device, CUDA_FN_SELECT, k.parts, &k);
    }
    if (src) mt_tensor_decref(src);
    if (counts) mt_tensor_decref(counts);
    return rc;
}

/* ---- advanced indexing ------------------------------------------------------------------------
 */

/* The offsets into self (front: self with its indexed dims first) of each position of the
 * broadcast shape, in offs (count int64), every index checked; the CPU's error for the first bad
 * one (of the first index tensor that has one). */
static int index_offsets(const mt_tensor *front, const mt_index_plan *p, mt_tensor *offs,
                         int device) {
    if (p->nidx == 0) return cuda_zero(offs);
    int64_t words = 2 * p->nidx, *found = calloc((size_t)words, sizeof(int64_t));
    mt_tensor *status = found ? mt_tensor_empty(1, &words, MT_INT64, offs->device) : NULL;
    int rc = status ? cuda_zero(status) : found ? -1 : mt_error(MT_ERR_MEMORY, "out of memory");
    ck_adv_args a;
    memset(&a, 0, sizeof a);
    a.op = CK_ADV_OFFSETS;
    a.n = offs->numel;
    a.nb = p->nb;
    memcpy(a.sizes, p->bshape, sizeof(int64_t) * (size_t)p->nb);
    a.offs = (uint64_t)(uintptr_t)mt_tensor_raw(offs);
    for (int j = 0; !rc && j < p->nidx; j++) { /* a pair of status words per index tensor */
        const mt_tensor *ix = p->idx[j];
        a.first = j == 0;
        a.dim_size = front->sizes[j];
        a.dim_stride = front->strides[j];
        a.index.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(ix);
        a.index.dtype = ix->dtype;
        aligned_strides(ix, p->nb, a.index.strides);
        a.status = (uint64_t)(uintptr_t)((int64_t *)mt_tensor_raw(status) + 2 * j);
        rc = cuda_launch(device, CUDA_FN_ADV_I64, a.n, &a);
    }
    if (!rc)
        rc = cuda_copy_bytes(found, MT_CPU, mt_tensor_raw(status), status->device,
                             sizeof(int64_t) * (size_t)words);
    for (int j = 0; !rc && j < p->nidx; j++)
        if (found[2 * j])
            rc = mt_error(MT_ERR_INDEX,
                          "index %lld is out of bounds for dimension %d with size %lld",
                          mt_user_dim(found[2 * j + 1]), j + 1, (long long)front->sizes[j]);
    if (status) mt_tensor_decref(status);
    free(found);
    return rc;
}

/* For each position b of the broadcast shape and each element of self's other dims: the result
 * element = self's (gather), or self's = the values' (put, accumulate: added). `other` is the
 * result or the values seen over the result's shape. */
static int run_blocks(mt_tensor *self, const mt_index_plan *p, const mt_tensor *other, int op) {
    mt_tensor front, oview;
    int operm[MT_MAX_DIM];
    mt_permuted_view(self, p->perm, &front);
    mt_index_result_perm(p, operm);
    mt_permuted_view(other, operm, &oview);
    int64_t count = 1, restn = 1;
    for (int d = 0; d < p->nb; d++) count *= p->bshape[d];
    int nrest = front.ndim - p->nidx;
    for (int d = 0; d < nrest; d++) restn *= front.sizes[p->nidx + d];
    if (count == 0 || restn == 0) return 0; /* as the CPU: nothing is read, nothing checked */
    if (same_device(self, other)) return -1;
    for (int j = 0; j < p->nidx; j++)
        if (same_device(self, p->idx[j])) return -1;
    int device = cuda_device_of(self);
    mt_tensor *offs = mt_tensor_empty(1, &count, MT_INT64, self->device);
    if (!offs || index_offsets(&front, p, offs, device)) {
        if (offs) mt_tensor_decref(offs);
        return -1;
    }
    ck_adv_args a;
    memset(&a, 0, sizeof a);
    a.op = op;
    a.n = count * restn;
    a.nb = p->nb;
    a.nrest = nrest;
    memcpy(a.sizes, p->bshape, sizeof(int64_t) * (size_t)p->nb);
    memcpy(a.sizes + p->nb, front.sizes + p->nidx, sizeof(int64_t) * (size_t)nrest);
    a.self.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(self);
    a.self.dtype = self->dtype;
    memcpy(a.self.strides, front.strides + p->nidx, sizeof(int64_t) * (size_t)nrest);
    a.other.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(other);
    a.other.dtype = other->dtype;
    memcpy(a.other.strides, oview.strides, sizeof(int64_t) * (size_t)oview.ndim);
    a.offs = (uint64_t)(uintptr_t)mt_tensor_raw(offs);
    bool integer = !mt_dtype_is_floating((mt_dtype)self->dtype);
    int rc = cuda_launch(device, integer ? CUDA_FN_ADV_I64 : CUDA_FN_ADV_F64, a.n, &a);
    mt_tensor_decref(offs);
    return rc;
}

static int k_index_int(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_index_plan p;
    if (mt_index_plan_make(a[0].t, a[1].tl, a[1].n, &p)) return -1;
    return run_blocks(a[0].t, &p, r[0].t, CK_ADV_GATHER);
}

/* _index_put_int_(self, indices, values, accumulate): values broadcast to the indexing result
 * (the meta function checked they fit); accumulating adds atomically, so repeated positions sum
 * (in an unspecified order) */
static int k_index_put_int_(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    (void)r;
    mt_tensor *self = a[0].t, *values = a[2].t;
    bool accumulate = a[3].b;
    mt_index_plan p;
    if (mt_index_plan_make(self, a[1].tl, a[1].n, &p)) return -1;
    mt_tensor v = *values; /* a header over values' storage, seen over the result's shape */
    v.ndim = (int8_t)p.ndim;
    for (int d = 0; d < p.ndim; d++) {
        int vd = d - (p.ndim - values->ndim);
        v.sizes[d] = p.sizes[d];
        v.strides[d] = vd >= 0 && values->sizes[vd] == p.sizes[d] ? values->strides[vd] : 0;
    }
    return run_blocks(self, &p, &v, accumulate ? CK_ADV_ACCUMULATE : CK_ADV_PUT);
}

/* take(self, index): advanced indexing of the flattened self (a contiguous copy when self is not
 * contiguous) by one index tensor: its offsets, every index checked first (the CPU's error), then
 * a gather into the result, shaped like index */
static int k_take(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *index = a[1].t, *out = r[0].t;
    if (out->numel == 0) return 0;
    if (same_device(a[0].t, index)) return -1;
    int device = cuda_device_of(out);
    int64_t two = 2, found[2] = {0, 0};
    mt_tensor *self = dense_copy(a[0].t);
    mt_tensor *offs = self ? mt_tensor_empty(1, &out->numel, MT_INT64, out->device) : NULL;
    mt_tensor *status = offs ? mt_tensor_empty(1, &two, MT_INT64, out->device) : NULL;
    int rc = status ? cuda_zero(status) : -1;
    ck_adv_args k;
    memset(&k, 0, sizeof k);
    k.op = CK_ADV_OFFSETS;
    k.n = out->numel;
    k.nb = index->ndim;
    memcpy(k.sizes, index->sizes, sizeof(int64_t) * (size_t)index->ndim);
    k.first = 1;
    k.dim_size = self ? self->numel : 0;
    k.dim_stride = 1;
    k.index.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(index);
    k.index.dtype = index->dtype;
    memcpy(k.index.strides, index->strides, sizeof(int64_t) * (size_t)index->ndim);
    if (!rc) {
        k.offs = (uint64_t)(uintptr_t)mt_tensor_raw(offs);
        k.status = (uint64_t)(uintptr_t)mt_tensor_raw(status);
        rc = cuda_launch(device, CUDA_FN_ADV_I64, k.n, &k);
    }
    if (!rc) rc = cuda_copy_bytes(found, MT_CPU, mt_tensor_raw(status), out->device, sizeof found);
    if (!rc && found[0])
        rc = mt_error(MT_ERR_INDEX,
                      "out of range: tried to access index %lld on a tensor of %lld elements.",
                      mt_user_dim(found[1]), (long long)k.dim_size);
    if (!rc) { /* the gather: nothing of self's other dims (there are none) */
        k.op = CK_ADV_GATHER;
        k.self.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(self);
        k.self.dtype = self->dtype;
        k.other.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(out);
        k.other.dtype = out->dtype;
        memcpy(k.other.strides, out->strides, sizeof(int64_t) * (size_t)out->ndim);
        rc = cuda_launch(
            device, mt_dtype_is_floating((mt_dtype)out->dtype) ? CUDA_FN_ADV_F64 : CUDA_FN_ADV_I64,
            k.n, &k);
    }
    if (status) mt_tensor_decref(status);
    if (offs) mt_tensor_decref(offs);
    if (self) mt_tensor_decref(self);
    return rc;
}

const mt_kernel_entry cuda_select_kernels[] = {
    {"nonzero", NULL, k_nonzero},
    {"masked_select", NULL, k_masked_select},
    {"_index_int", k_index_int, NULL},
    {"_index_put_int_", k_index_put_int_, NULL},
    {"masked_scatter_", k_masked_scatter_, NULL},
    {"take", k_take, NULL},
};
const size_t cuda_select_kernels_count = MT_ARRAY_LEN(cuda_select_kernels);
