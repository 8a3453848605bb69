/* cuda_ops_index.c: gather, scatter_, scatter_add_, index_select, index_add_, index_copy_,
 * scatter_reduce and masked_fill_ (a number or a 0-d tensor) on CUDA. Index values are 0-based here
 * (as everywhere below the Lua boundary). The kernels do not use an index out of range but record
 * the first one in two status words, which are read back after the launch: the op then fails with
 * the CPU's message. That read waits for the stream (the price of an exact error; PyTorch instead
 * asserts on the device and poisons the context). */
#include <stdint.h>
#include <string.h>

#include "cuda_launch.h"
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"

static void operand(ck_operand *o, const mt_tensor *t) {
    o->ptr = (uint64_t)(uintptr_t)mt_tensor_raw(t);
    o->dtype = t->dtype;
    memcpy(o->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
}

/* launch a->op over the index (its sizes in a) with the status words: 0 with *found set when an
 * index was out of range (*bad: one of them; any value, negative ones and a user's 0 included),
 * or -1 on error */
static int run(ck_index_args *a, int device, bool integer, bool *found_bad, int64_t *bad) {
    int64_t two[1] = {2};
    mt_device dev = {(int8_t)cuda_devtype, (int8_t)device};
    mt_tensor *st = mt_tensor_empty(1, two, MT_INT64, dev);
    if (!st) return -2;
    int64_t found[2] = {0, 0};
    CUstream s = cuda_bind(device) ? NULL : cuda_current_stream(device);
    CUresult e = s ? cuda_drv.cuMemsetD8Async((CUdeviceptr)(uintptr_t)mt_tensor_raw(st), 0, 16, s)
                   : CUDA_SUCCESS;
    int rc = !s ? -1 : e != CUDA_SUCCESS ? cuda_error(e, "cuMemsetD8Async") : 0;
    a->status = (uint64_t)(uintptr_t)mt_tensor_raw(st);
    if (!rc) rc = cuda_launch(device, integer ? CUDA_FN_INDEX_I64 : CUDA_FN_INDEX_F64, a->n, a);
    if (!rc) rc = cuda_copy_bytes(found, MT_CPU, mt_tensor_raw(st), dev, sizeof found);
    mt_tensor_decref(st);
    *found_bad = !rc && found[0];
    *bad = found[1];
    return rc ? -1 : 0;
}

static bool integer_type(const mt_tensor *t) {
    return !mt_dtype_is_floating((mt_dtype)t->dtype);
}

/* how an op words an index out of range, as the CPU does */
enum { WORDS_DIM, WORDS_DIM_INDEX_ERROR, WORDS_INDEX_SELECT, WORDS_INDEX_ADD, WORDS_INDEX_COPY };

/* gather(self, dim, index) -> out; scatter_(self, dim, index, src or value), scatter_add_ (every
 * dtype: ck_common.cuh's add_at) */
static int gather_scatter(int op, mt_tensor *self, int64_t dim_arg, mt_tensor *index,
                          mt_tensor *other, const mt_value *value, int words) {
    if (index->numel == 0) return 0;
    int d;
    if (mt_wrap_dim(dim_arg, self->ndim, &d)) return -1;
    ck_index_args a;
    memset(&a, 0, sizeof a);
    a.op = op;
    a.n = index->numel;
    a.ndim = index->ndim;
    a.dim = d;
    memcpy(a.sizes, index->sizes, sizeof(int64_t) * (size_t)index->ndim);
    a.dim_size = self->ndim ? self->sizes[d] : 1;
    operand(&a.self, self);
    operand(&a.index, index);
    if (other) operand(&a.other, other);
    if (value) {
        a.value = value->tag == MT_V_DOUBLE ? value->d
                  : value->tag == MT_V_BOOL ? value->b
                                            : (double)value->i;
        a.ivalue = value->tag == MT_V_DOUBLE ? (int64_t)value->d
                   : value->tag == MT_V_BOOL ? value->b
                                             : value->i;
    }
    bool found;
    int64_t bad;
    if (run(&a, cuda_device_of(self), integer_type(self), &found, &bad)) return -1;
    if (!found) return 0;
    if (words == WORDS_INDEX_ADD) return mt_error(MT_ERR_INDEX, "index out of range in self");
    if (words == WORDS_INDEX_SELECT)
        return mt_error(MT_ERR_RUNTIME,
                        "INDICES element is out of DATA bounds, id=%lld axis_dim=%lld",
                        mt_user_dim(bad), (long long)a.dim_size);
    if (words == WORDS_INDEX_COPY)
        return mt_error(
            MT_ERR_INDEX,
            "index_copy_(): index %lld is out of bounds for dimension %d with size %lld",
            mt_user_dim(bad), d + 1, (long long)a.dim_size);
    return mt_error(words == WORDS_DIM_INDEX_ERROR ? MT_ERR_INDEX : MT_ERR_RUNTIME,
                    "index %lld is out of bounds for dimension %d with size %lld", mt_user_dim(bad),
                    d + 1, (long long)a.dim_size);
}

int cuda_gather(mt_tensor *self, int dim, mt_tensor *index, mt_tensor *out) {
    return gather_scatter(CK_GATHER, self, dim, index, out, NULL, WORDS_DIM);
}

/* index_add_(self, dim, index, source, alpha): a scatter_add of alpha * source whose index is the
 * 1-d index viewed with source's shape (stride 0 but along dim) */
static int k_index_add(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *self = r[0].t, *index = a[2].t, *src = a[3].t, *scaled = NULL;
    if (src->numel == 0) return 0;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    bool one = (a[4].tag == MT_V_INT && a[4].i == 1) || (a[4].tag == MT_V_DOUBLE && a[4].d == 1);
    if (!one) {
        scaled = mt_tensor_empty(src->ndim, src->sizes, (mt_dtype)self->dtype, src->device);
        mt_tensor *in[1] = {src};
        if (!scaled || cuda_ew(scaled, CK_MUL, 1, in, &a[4], NULL, (mt_dtype)self->dtype)) {
            if (scaled) mt_tensor_decref(scaled);
            return -1;
        }
        src = scaled;
    }
    int64_t strides[MT_MAX_DIM] = {0};
    if (src->ndim) strides[d] = index->ndim ? index->strides[0] : 0;
    mt_tensor *wide = mt_tensor_view_of(index, src->ndim, src->sizes, strides, index->offset);
    int rc = wide ? gather_scatter(CK_SCATTER_ADD, self, d, wide, src, NULL, WORDS_INDEX_ADD) : -1;
    if (wide) mt_tensor_decref(wide);
    if (scaled) mt_tensor_decref(scaled);
    return rc;
}

/* index_copy_(self, dim, index, source): a scatter of source whose index is the 1-d index
 * viewed with source's shape. The checks left source of self's rank, or a 0-d and a 1-d of one
 * element, which are seen at self's rank */
static int k_index_copy(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *self = r[0].t, *index = a[2].t, *src = a[3].t;
    if (src->numel == 0) return 0;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    int64_t ones[MT_MAX_DIM], strides[MT_MAX_DIM] = {0};
    for (int k = 0; k < self->ndim; k++) ones[k] = 1;
    mt_tensor *ranked =
        src->ndim == self->ndim
            ? mt_tensor_view_of(src, src->ndim, src->sizes, src->strides, src->offset)
            : mt_tensor_view_of(src, self->ndim, ones, strides, src->offset);
    if (!ranked) return -1;
    if (self->ndim) strides[d] = index->ndim ? index->strides[0] : 0;
    mt_tensor *wide = mt_tensor_view_of(index, self->ndim, ranked->sizes, strides, index->offset);
    int rc = wide ? gather_scatter(CK_SCATTER, self, d, wide, ranked, NULL, WORDS_INDEX_COPY) : -1;
    if (wide) mt_tensor_decref(wide);
    mt_tensor_decref(ranked);
    return rc;
}

/* scatter_reduce.two(self, dim, index, src, reduce, include_self) -> out (fresh, contiguous):
 * self copied, the index checked, then ck_scatter_reduce.cuh's pass over out */
static int k_scatter_reduce(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *self = a[0].t, *index = a[2].t, *src = a[3].t, *out = r[0].t;
    mt_tensor *in[1] = {self};
    if (cuda_ew(out, CK_COPY, 1, in, NULL, NULL, (mt_dtype)out->dtype)) return -1;
    if (index->numel == 0 || out->numel == 0) return 0;
    if (gather_scatter(CK_INDEX_CHECK, out, a[1].i, index, NULL, NULL, WORDS_DIM_INDEX_ERROR))
        return -1;
    static const char *const names[] = {"sum", "prod", "mean", "amax", "amin"};
    ck_scatter_reduce_args s;
    memset(&s, 0, sizeof s);
    for (int k = 0; k < (int)MT_ARRAY_LEN(names); k++)
        if (strcmp(a[4].s, names[k]) == 0) s.op = k;
    int d;
    mt_wrap_dim(a[1].i, out->ndim, &d);
    s.n = out->numel;
    s.ndim = out->ndim;
    s.dim = d;
    s.include_self = a[5].b;
    memcpy(s.sizes, out->sizes, sizeof(int64_t) * (size_t)out->ndim);
    for (int k = 0; k < out->ndim; k++) s.isizes[k] = index->ndim ? index->sizes[k] : 1;
    operand(&s.out, out);
    operand(&s.index, index);
    operand(&s.src, src);
    return cuda_launch(cuda_device_of(out),
                       integer_type(out) ? CUDA_FN_SCATTER_REDUCE_I64 : CUDA_FN_SCATTER_REDUCE_F64,
                       s.n, &s);
}

static int k_gather(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return gather_scatter(CK_GATHER, a[0].t, a[1].i, a[2].t, r[0].t, NULL, WORDS_DIM);
}

static int k_scatter_src(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return gather_scatter(CK_SCATTER, r[0].t, a[1].i, a[2].t, a[3].t, NULL, WORDS_DIM);
}

static int k_scatter_value(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return gather_scatter(CK_SCATTER_VALUE, r[0].t, a[1].i, a[2].t, NULL, &a[3], WORDS_DIM);
}

static int k_scatter_add(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return gather_scatter(CK_SCATTER_ADD, r[0].t, a[1].i, a[2].t, a[3].t, NULL, WORDS_DIM);
}

/* index_select(self, dim, index) -> out: a gather whose index is the 1-d index viewed with out's
 * shape (stride 0 but along dim) */
static int k_index_select(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *self = a[0].t, *index = a[2].t, *out = r[0].t;
    if (out->numel == 0) return 0;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    int64_t strides[MT_MAX_DIM] = {0};
    if (out->ndim) strides[d] = index->ndim ? index->strides[0] : 0;
    mt_tensor *wide = mt_tensor_view_of(index, out->ndim, out->sizes, strides, index->offset);
    if (!wide) return -1;
    int rc = gather_scatter(CK_GATHER, self, a[1].i, wide, out, NULL, WORDS_INDEX_SELECT);
    mt_tensor_decref(wide);
    return rc;
}

/* masked_fill_(self, mask, value): an element-wise select in place */
static int k_masked_fill(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[2] = {r[0].t, a[1].t};
    return cuda_ew(r[0].t, CK_MASKED_FILL, 2, in, &a[2], NULL, (mt_dtype)r[0].t->dtype);
}

/* masked_fill_(self, mask, value) with a 0-d value tensor (on the CPU or on a device: then read
 * back, as PyTorch's item()) */
static int k_masked_fill_tensor(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *vt = a[2].t;
    mt_dtype vd = (mt_dtype)vt->dtype;
    char buf[8];
    const void *p = mt_tensor_raw(vt);
    if (vt->device.type != MT_DEV_CPU) {
        if (cuda_copy_bytes(buf, MT_CPU, p, vt->device, mt_dtype_size(vd))) return -1;
        p = buf;
    }
    mt_value args[3] = {a[0], a[1],
                        mt_dtype_is_floating(vd) ? mt_vdouble(mt_load_double(p, vd))
                                                 : mt_vint(mt_load_int64(p, vd))};
    return k_masked_fill(c, args, r);
}

const mt_kernel_entry cuda_index_kernels[] = {
    {"gather", k_gather},
    {"scatter_.src", k_scatter_src},
    {"scatter_.value", k_scatter_value},
    {"scatter_add_", k_scatter_add},
    {"index_select", k_index_select},
    {"index_add_", k_index_add},
    {"index_copy_", k_index_copy},
    {"scatter_reduce.two", k_scatter_reduce},
    {"masked_fill_.Scalar", k_masked_fill},
    {"masked_fill_.Tensor", k_masked_fill_tensor},
};
const size_t cuda_index_kernels_count = MT_ARRAY_LEN(cuda_index_kernels);
