/* cuda_ops_unique.c: unique on CUDA, sorted (as PyTorch's CUDA kernel, whatever `sorted` says, and
 * as the CPU's), with the inverse and the counts, of the elements or of the slices along a dim.
 * The elements are sorted by cuda_sort_rows; slices, as the rows of a contiguous matrix, by the
 * lexicographic merge of kernels/ck_unique.cuh; then equal neighbours are grouped by a count pass,
 * a scan of the counts on the host (which learns the result's size, so this waits for the stream,
 * as PyTorch's does) and a fill pass. The CPU's rules: slices are taken by transposing dim with the
 * first (PyTorch 1.13's unique_dim) and the values come back transposed the same way; NaN sorts
 * after every number and equals nothing, so each NaN (each slice holding one) stands alone. */
#include <string.h>

#include "common_ops.h"
#include "cuda_launch.h"
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"

/* a view of t with dims 0 and d swapped (a new reference) */
static mt_tensor *swapped(mt_tensor *t, int d) {
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM];
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    sizes[0] = t->sizes[d], sizes[d] = t->sizes[0];
    strides[0] = t->strides[d], strides[d] = t->strides[0];
    return mt_tensor_view_of(t, t->ndim, sizes, strides, t->offset);
}

static uint64_t addr(mt_tensor *t) {
    return (uint64_t)(uintptr_t)mt_tensor_raw(t);
}

/* the kernel comparing in the compute type that holds every value of dt exactly (as sort's) */
static cuda_fn unique_fn(mt_dtype dt) {
    return dt == MT_FLOAT64           ? CUDA_FN_UNIQUE_F64
           : mt_dtype_is_floating(dt) ? CUDA_FN_UNIQUE_F32
                                      : CUDA_FN_UNIQUE_I64;
}

/* The rows of `in` (nrows x a->w, contiguous) in sorted order: perm, their original places
 * (int64, nrows), is filled here when a->indirect (the lexicographic merge), else it came with
 * in from the sort. Then the groups: out (made here: groups rows shaped as osizes, on), inverse
 * (nrows) and counts (made here). */
static int group_rows(ck_unique_args *a, int device, mt_tensor *in, mt_tensor *perm,
                      mt_tensor *inverse, int on, int64_t *osizes, mt_tensor **out,
                      mt_tensor **counts) {
    mt_device dev = inverse->device;
    cuda_fn fn = unique_fn((mt_dtype)in->dtype);
    a->in = (ck_operand){.ptr = addr(in), .dtype = in->dtype};
    a->perm = addr(perm);
    a->inverse = addr(inverse);
    int64_t parts = (a->nrows + CK_UNIQUE_CHUNK - 1) / CK_UNIQUE_CHUNK, groups = 0;
    mt_tensor *offsets = mt_tensor_empty(1, &parts, MT_INT64, dev), *starts = NULL;
    int rc = offsets ? 0 : -1;
    if (!rc && a->nrows) {
        a->op = CK_UNIQUE_COUNT;
        a->n = a->parts = parts;
        a->offsets = addr(offsets);
        rc = cuda_launch(device, fn, a->n, a);
        if (!rc) rc = cuda_scan_counts(offsets, parts, &groups);
    }
    osizes[0] = groups;
    if (!rc) {
        *out = mt_tensor_empty(on, osizes, (mt_dtype)in->dtype, dev);
        *counts = *out ? mt_tensor_empty(1, &groups, MT_INT64, dev) : NULL;
        starts = *counts ? mt_tensor_empty(1, &groups, MT_INT64, dev) : NULL;
        rc = starts ? 0 : -1;
    }
    if (!rc && a->nrows) {
        a->op = CK_UNIQUE_FILL;
        a->out = (ck_operand){.ptr = addr(*out), .dtype = in->dtype};
        a->starts = addr(starts);
        rc = cuda_launch(device, fn, a->n, a);
    }
    if (!rc && groups) {
        a->op = CK_UNIQUE_COUNTS;
        a->n = a->groups = groups;
        a->counts = addr(*counts);
        rc = cuda_launch(device, fn, a->n, a);
    }
    if (offsets) mt_tensor_decref(offsets);
    if (starts) mt_tensor_decref(starts);
    return rc;
}

/* The lexicographic order of the rows of in (nrows x w, contiguous): a merge sort of their
 * positions in pos (2 * nrows), whose half holding the order is returned as a view in *perm. */
static int sort_matrix_rows(ck_unique_args *a, int device, mt_tensor *in, mt_tensor *pos,
                            mt_tensor **perm) {
    cuda_fn fn = unique_fn((mt_dtype)in->dtype);
    a->in = (ck_operand){.ptr = addr(in), .dtype = in->dtype};
    a->pos = addr(pos);
    a->op = CK_UNIQUE_ROWS_LOAD;
    a->n = a->nrows;
    int rc = cuda_launch(device, fn, a->n, a);
    a->op = CK_UNIQUE_ROWS_MERGE;
    for (int64_t w = 1; !rc && w < a->nrows; w *= 2) {
        a->width = w;
        rc = cuda_launch(device, fn, a->n, a);
        a->src = !a->src;
    }
    int64_t one = 1;
    if (!rc &&
        !(*perm = mt_tensor_view_of(pos, 1, &a->nrows, &one, pos->offset + a->src * a->nrows)))
        rc = -1;
    return rc;
}

/* unique(self, sorted, return_inverse, return_counts, dim): the three results, always computed, as
 * the CPU computes them (the Lua front returns those asked for) */
static int k_unique(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *self = a[0].t, *rows = NULL, *in = NULL, *perm = NULL, *pos = NULL;
    mt_tensor *out = NULL, *inverse = NULL, *counts = NULL;
    bool by_dim = a[4].tag == MT_V_INT;
    int d = 0, device = cuda_device_of(self), rc = -1;
    if (by_dim && mt_wrap_dim(a[4].i, self->ndim, &d)) return -1;
    if (by_dim && mt_unique_dim_check(self, d)) return -1;
    ck_unique_args k;
    memset(&k, 0, sizeof k);
    int64_t osizes[MT_MAX_DIM], one = 1;
    int on = 1;
    if (by_dim) { /* slices along d: the rows of the transposed self, made contiguous */
        mt_tensor *t = self->ndim ? swapped(self, d) : NULL;
        rows = self->ndim ? (t ? cuda_dense(t) : NULL) : cuda_dense(self);
        if (t) mt_tensor_decref(t);
        if (!rows) goto done;
        k.nrows = self->ndim ? rows->sizes[0] : 1;
        k.w = k.nrows ? rows->numel / k.nrows : 0;
        for (int i = 1; i < rows->ndim; i++) osizes[on++] = rows->sizes[i];
        int64_t twice = 2 * k.nrows;
        if (!(inverse = mt_tensor_empty(1, &k.nrows, MT_INT64, self->device)) ||
            !(pos = mt_tensor_empty(1, &twice, MT_INT64, self->device)))
            goto done;
        k.indirect = 1;
        if (k.nrows && sort_matrix_rows(&k, device, rows, pos, &perm)) goto done;
        in = rows;
        mt_tensor_incref(in);
    } else { /* the elements, sorted: their values in in, their places in perm */
        k.nrows = self->numel;
        k.w = 1;
        rows = cuda_dense(self);
        mt_tensor *flat = rows ? mt_tensor_view_of(rows, 1, &k.nrows, &one, rows->offset) : NULL;
        in = flat ? mt_tensor_empty(1, &k.nrows, (mt_dtype)self->dtype, self->device) : NULL;
        perm = in ? mt_tensor_empty(1, &k.nrows, MT_INT64, self->device) : NULL;
        inverse = perm ? mt_tensor_empty(self->ndim, self->sizes, MT_INT64, self->device) : NULL;
        int bad = !inverse || cuda_sort_rows(flat, 0, false, k.nrows, 0, in, perm, false);
        if (flat) mt_tensor_decref(flat);
        if (bad) goto done;
    }
    if (!perm) { /* no rows: nothing sorted, nothing read */
        int64_t none = 0;
        if (!(perm = mt_tensor_empty(1, &none, MT_INT64, self->device))) goto done;
    }
    if (group_rows(&k, device, in, perm, inverse, on, osizes, &out, &counts)) goto done;
    if (by_dim && d != 0) { /* the dim moved back: a transposed view, as the CPU returns */
        mt_tensor *back = swapped(out, d);
        if (!back) goto done;
        mt_tensor_decref(out);
        out = back;
    }
    r[0] = mt_vtensor(out);
    r[1] = mt_vtensor(inverse);
    r[2] = mt_vtensor(counts);
    out = inverse = counts = NULL;
    rc = 0;
done:
    if (rows) mt_tensor_decref(rows);
    if (in) mt_tensor_decref(in);
    if (perm) mt_tensor_decref(perm);
    if (pos) mt_tensor_decref(pos);
    if (out) mt_tensor_decref(out);
    if (inverse) mt_tensor_decref(inverse);
    if (counts) mt_tensor_decref(counts);
    return rc;
}

const mt_kernel_entry cuda_unique_kernels[] = {
    {"unique", NULL, k_unique}, /* a data-dependent result size: a full kernel, no meta function */
};
const size_t cuda_unique_kernels_count = MT_ARRAY_LEN(cuda_unique_kernels);
