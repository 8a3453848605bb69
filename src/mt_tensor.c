/* mt_tensor.c: tensor lifetime, creation over storages, views and geometry helpers. */
#include "mt_tensor.h"
#include "mt_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*autograd_free_hook)(mt_tensor *t);

/* the checked geometry arithmetic (below, with mt_required_nbytes) */
static int64_t extent_nbytes(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset,
                             size_t itemsize);
/* 0 when storage s holds the geometry (its element count into *numel); else PyTorch's error */
static int check_in_bounds(const mt_storage *s, int ndim, const int64_t *sizes,
                           const int64_t *strides, int64_t offset, size_t itemsize, int64_t *numel);

void mt_tensor_set_autograd_free_hook(void (*hook)(mt_tensor *t)) {
    autograd_free_hook = hook;
}

void mt_tensor_incref(mt_tensor *t) {
    atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
}

void mt_version_incref(mt_version *v) {
    if (v) atomic_fetch_add_explicit(&v->refcount, 1, memory_order_relaxed);
}

void mt_version_decref(mt_version *v) {
    if (v && atomic_fetch_sub_explicit(&v->refcount, 1, memory_order_acq_rel) == 1)
        mt_pool_free(MT_POOL_VERSION, v);
}

void mt_tensor_decref(mt_tensor *t) {
    if (!t) return;
    if (atomic_fetch_sub_explicit(&t->refcount, 1, memory_order_acq_rel) != 1) return;
    if (t->autograd && autograd_free_hook) autograd_free_hook(t);
    mt_storage_decref(t->storage);
    mt_version_decref(t->version);
    mt_tensor *base = t->base;
    mt_pool_free(MT_POOL_TENSOR, t);
    mt_tensor_decref(base);
}

/* inference mode (the autograd layer switches it): tensors made now are inference tensors */
static _Thread_local bool inference_tls;
void mt_tensor_set_inference_tls(bool on) {
    inference_tls = on;
}

/* numel: the element count of sizes, already computed (checked) by the caller */
static mt_tensor *tensor_alloc(int ndim, const int64_t *sizes, const int64_t *strides,
                               int64_t numel) {
    if (ndim > MT_MAX_DIM)
        return mt_error_null(MT_ERR_RUNTIME,
                             "mindtorch supports tensors of at most %d dimensions, "
                             "got %d",
                             MT_MAX_DIM, ndim);
    mt_tensor *t = mt_pool_alloc(MT_POOL_TENSOR, sizeof *t);
    if (!t) return mt_error_null(MT_ERR_MEMORY, "out of memory allocating a tensor");
    atomic_init(&t->refcount, 1);
    t->ndim = (int8_t)ndim;
    t->flags = inference_tls ? MT_T_INFERENCE : 0;
    t->offset = 0;
    t->base = NULL;
    t->autograd = NULL;
    t->attr_version = 0;
    t->version = NULL;
    for (int i = 0; i < ndim; i++) {
        t->sizes[i] = sizes[i];
        t->strides[i] = strides[i];
    }
    t->numel = numel;
    return t;
}

static mt_version *version_new(void) {
    mt_version *v = mt_pool_alloc(MT_POOL_VERSION, sizeof *v);
    if (!v) return mt_error_null(MT_ERR_MEMORY, "out of memory allocating a tensor");
    atomic_init(&v->refcount, 1);
    atomic_init(&v->value, 0);
    return v;
}

/* a new tensor over storage, its geometry already known to fit */
static mt_tensor *tensor_over(mt_storage *storage, int64_t offset, int ndim, const int64_t *sizes,
                              const int64_t *strides, int64_t numel, mt_dtype dtype) {
    mt_tensor *t = tensor_alloc(ndim, sizes, strides, numel);
    if (!t) return NULL;
    if (!(t->version = version_new())) {
        mt_pool_free(MT_POOL_TENSOR, t);
        return NULL;
    }
    t->dtype = (uint8_t)dtype;
    t->offset = offset;
    t->storage = storage;
    t->device = storage->device;
    mt_storage_incref(storage);
    return t;
}

mt_tensor *mt_tensor_from_storage(mt_storage *storage, int64_t offset, int ndim,
                                  const int64_t *sizes, const int64_t *strides, mt_dtype dtype) {
    int64_t cstrides[MT_MAX_DIM], numel;
    if (ndim > MT_MAX_DIM) return tensor_alloc(ndim, sizes, strides, 0);
    if (!strides) {
        if (mt_contiguous_strides(ndim, sizes, cstrides) < 0)
            return mt_error_null(MT_ERR_RUNTIME, "numel: integer multiplication overflow");
        strides = cstrides;
    }
    /* loaders, storages and the embedding API make tensors here: they stay inside the storage */
    if (check_in_bounds(storage, ndim, sizes, strides, offset, mt_dtype_size(dtype), &numel))
        return NULL;
    return tensor_over(storage, offset, ndim, sizes, strides, numel, dtype);
}

mt_tensor *mt_tensor_empty_strided(int ndim, const int64_t *sizes, const int64_t *strides,
                                   mt_dtype dtype, mt_device device) {
    int64_t cstrides[MT_MAX_DIM];
    if (ndim > MT_MAX_DIM) return tensor_alloc(ndim, sizes, strides, 0);
    int64_t numel = mt_check_sizes(ndim, sizes);
    if (numel < 0) return NULL;
    if (!strides) {
        if (mt_contiguous_strides(ndim, sizes, cstrides) < 0)
            return mt_error_null(MT_ERR_RUNTIME, "Storage size calculation overflowed");
        strides = cstrides;
    }
    int64_t nbytes = numel ? extent_nbytes(ndim, sizes, strides, 0, mt_dtype_size(dtype)) : 0;
    if (nbytes < 0) return mt_error_null(MT_ERR_RUNTIME, "Storage size calculation overflowed");
    mt_storage *s = mt_storage_new((size_t)nbytes, mt_device_resolve(device), true);
    if (!s) return NULL;
    mt_tensor *t = tensor_over(s, 0, ndim, sizes, strides, numel, dtype);
    mt_storage_decref(s);
    return t;
}

mt_tensor *mt_tensor_empty(int ndim, const int64_t *sizes, mt_dtype dtype, mt_device device) {
    return mt_tensor_empty_strided(ndim, sizes, NULL, dtype, device);
}

mt_tensor *mt_tensor_view_of(mt_tensor *src, int ndim, const int64_t *sizes, const int64_t *strides,
                             int64_t offset) {
    /* every view, whatever op made it, stays inside its storage */
    int64_t numel = 0;
    if (ndim <= MT_MAX_DIM && check_in_bounds(src->storage, ndim, sizes, strides, offset,
                                              mt_dtype_size(src->dtype), &numel))
        return NULL;
    mt_tensor *t = tensor_alloc(ndim, sizes, strides, numel);
    if (!t) return NULL;
    t->dtype = src->dtype;
    t->device = src->device;
    t->offset = offset;
    t->storage = src->storage;
    mt_storage_incref(t->storage);
    t->version = src->version;
    atomic_fetch_add_explicit(&t->version->refcount, 1, memory_order_relaxed);
    t->attr_version = mt_tensor_version(src);
    t->flags = MT_T_VIEW | (src->flags & MT_T_INFERENCE);
    t->base = src->base ? src->base : src;
    mt_tensor_incref(t->base);
    return t;
}

mt_tensor *mt_tensor_scalar_double(double v, mt_dtype dtype) {
    mt_tensor *t = mt_tensor_empty(0, NULL, dtype, MT_CPU);
    if (!t) return NULL;
    mt_store_double(mt_tensor_raw(t), dtype, v);
    return t;
}

mt_tensor *mt_tensor_scalar_int64(int64_t v, mt_dtype dtype) {
    mt_tensor *t = mt_tensor_empty(0, NULL, dtype, MT_CPU);
    if (!t) return NULL;
    mt_store_int64(mt_tensor_raw(t), dtype, v);
    return t;
}

void *mt_tensor_data(mt_tensor *t) {
    if (mt_tensor_sync(t)) return NULL;
    return mt_tensor_raw(t);
}

int mt_tensor_sync(mt_tensor *t) {
    if (mt_storage_sync(t->storage)) return -1;
    if (MT_UNLIKELY(t->storage->flags & MT_STORAGE_SHRUNK) && mt_tensor_check_storage(t)) return -1;
    return 0;
}

int mt_tensor_check_storage(const mt_tensor *t) {
    int64_t need =
        mt_required_nbytes(t->ndim, t->sizes, t->strides, t->offset, mt_dtype_size(t->dtype));
    if (need >= 0 && (uint64_t)need <= t->storage->nbytes) return 0;
    char b1[256], b2[256];
    mt_fmt_ilist(b1, sizeof b1, t->sizes, t->ndim);
    mt_fmt_ilist(b2, sizeof b2, t->strides, t->ndim);
    return mt_error(
        MT_ERR_RUNTIME,
        "The tensor's storage is smaller than its geometry needs (was the storage "
        "resized?): sizes %s, strides %s, storage offset %lld, and itemsize %zu require a "
        "storage size of %lld, but the storage has %zu bytes",
        b1, b2, (long long)t->offset, mt_dtype_size(t->dtype), (long long)need, t->storage->nbytes);
}

bool mt_tensor_is_contiguous(const mt_tensor *t) {
    if (t->numel < 2) return true;
    int64_t expected = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->sizes[i] == 1) continue;
        if (t->strides[i] != expected) return false;
        expected *= t->sizes[i];
    }
    return true;
}

bool mt_is_non_overlapping_and_dense(const mt_tensor *t) {
    if (t->numel < 2) return true;
    int perm[MT_MAX_DIM], n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (t->sizes[i] != 1) perm[n++] = i;
    /* insertion sort of the dims by stride, then check they tile memory exactly */
    for (int i = 1; i < n; i++) {
        int p = perm[i], j = i - 1;
        while (j >= 0 &&
               (t->strides[perm[j]] > t->strides[p] ||
                (t->strides[perm[j]] == t->strides[p] && t->sizes[perm[j]] > t->sizes[p]))) {
            perm[j + 1] = perm[j];
            j--;
        }
        perm[j + 1] = p;
    }
    int64_t expected = 1;
    for (int i = 0; i < n; i++) {
        if (t->strides[perm[i]] != expected) return false;
        expected *= t->sizes[perm[i]];
    }
    return true;
}

void mt_tensor_bump_version(mt_tensor *t) {
    atomic_fetch_add_explicit(&t->version->value, 1, memory_order_relaxed);
}

int64_t mt_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides) {
    int64_t acc = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = acc;
        int64_t s = sizes[i] > 1 ? sizes[i] : 1;
        if (i > 0 && mt_mul_overflow(acc, s, &acc))
            return -1; /* the outermost size makes no stride */
    }
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        if (mt_mul_overflow(n, sizes[i], &n)) return -1;
    return n;
}

/* PyTorch's memory formats: the order of the dims from the innermost out, channels innermost
 * for channels_last (N, C, H, W) and channels_last_3d (N, C, D, H, W); rank 0 for the formats
 * any rank has (contiguous_format, preserve_format), -1 for a name that is none of them */
static int memory_format_order(const char *fmt, const int **order) {
    static const int cl2d[] = {1, 3, 2, 0}, cl3d[] = {1, 4, 3, 2, 0};
    *order = NULL;
    if (!fmt || strcmp(fmt, "contiguous_format") == 0 || strcmp(fmt, "preserve_format") == 0)
        return 0;
    if (strcmp(fmt, "channels_last") == 0) return *order = cl2d, 4;
    if (strcmp(fmt, "channels_last_3d") == 0) return *order = cl3d, 5;
    return -1;
}

bool mt_memory_format_known(const char *fmt) {
    const int *order;
    return fmt && memory_format_order(fmt, &order) >= 0;
}

bool mt_tensor_is_contiguous_as(const mt_tensor *t, const char *fmt) {
    const int *order;
    int rank = memory_format_order(fmt, &order);
    if (rank == 0) return mt_tensor_is_contiguous(t);
    if (rank != t->ndim) return false;
    /* as PyTorch's check: no exception for empty tensors, size-1 dims take any stride */
    int64_t expected = 1;
    for (int k = 0; k < rank; k++) {
        int d = order[k];
        if (t->sizes[d] == 1) continue;
        if (t->strides[d] != expected) return false;
        expected *= t->sizes[d];
    }
    return true;
}

/* PyTorch's test of whether strides look like a format's order (its is_channels_last_strides_2d
 * and _3d): the strides grow along the order, size-1 dims taking any stride that keeps them
 * growing; a stride-0 channel dim, an empty dim and a batch stride equal to the channel stride
 * (a N111 tensor, or N11W sliced) are read as the default layout */
static bool strides_follow(const mt_tensor *t, const int *order, int rank) {
    if (t->strides[1] == 0) return false;
    int64_t min = 0;
    for (int k = 0; k < rank; k++) {
        int d = order[k];
        if (t->sizes[d] == 0 || t->strides[d] < min) return false;
        if (d == 0 && min == t->strides[1]) return false;
        min = t->strides[d];
        if (t->sizes[d] > 1 && mt_mul_overflow(min, t->sizes[d], &min)) return false;
    }
    return true;
}

const char *mt_suggest_memory_format(const mt_tensor *t) {
    static const char *const formats[] = {"channels_last", "channels_last_3d"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        const int *order;
        int rank = memory_format_order(formats[i], &order);
        if (rank == t->ndim && strides_follow(t, order, rank)) return formats[i];
    }
    return "contiguous_format";
}

int mt_memory_format_strides(const char *fmt, int ndim, const int64_t *sizes, int64_t *strides) {
    const int *order;
    int rank = memory_format_order(fmt, &order);
    if (rank < 0 || (fmt && strcmp(fmt, "preserve_format") == 0))
        return mt_error(MT_ERR_RUNTIME, "unsupported memory format '%s'", fmt);
    if (rank == 0)
        return mt_contiguous_strides(ndim, sizes, strides) < 0
                   ? mt_error(MT_ERR_RUNTIME, "tensor size overflows")
                   : 0;
    if (ndim != rank)
        return mt_error(MT_ERR_RUNTIME, "required rank %d tensor to use %s format", rank, fmt);
    int64_t acc = 1; /* PyTorch's products of the sizes: a 0 size gives the outer dims stride 0 */
    for (int k = 0; k < rank; k++) {
        strides[order[k]] = acc;
        if (mt_mul_overflow(acc, sizes[order[k]], &acc))
            return mt_error(MT_ERR_RUNTIME, "tensor size overflows");
    }
    return 0;
}

int64_t mt_check_sizes(int ndim, const int64_t *sizes) {
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0) {
            char buf[256];
            mt_fmt_ilist(buf, sizeof buf, sizes, ndim);
            return mt_error(MT_ERR_RUNTIME,
                            "Trying to create tensor with negative dimension %lld: %s",
                            (long long)sizes[i], buf);
        }
        if (mt_mul_overflow(n, sizes[i], &n))
            return mt_error(MT_ERR_RUNTIME, "Storage size calculation overflowed");
    }
    return n;
}

int64_t mt_numel_checked(int ndim, const int64_t *sizes) {
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        if (sizes[i] < 0 || mt_mul_overflow(n, sizes[i], &n)) return -1;
    return n;
}

/* (offset + 1 + the largest element offset) * itemsize for a non-empty geometry; -1 on overflow
 * or a negative stride */
static int64_t extent_nbytes(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset,
                             size_t itemsize) {
    int64_t extent = 1;
    for (int i = 0; i < ndim; i++) {
        int64_t span;
        if (strides[i] < 0 && sizes[i] > 1) return -1; /* no op makes negative strides */
        if (mt_mul_overflow(sizes[i] - 1, strides[i], &span)) return -1;
        if (__builtin_add_overflow(extent, span, &extent)) return -1;
    }
    int64_t n;
    if (__builtin_add_overflow(extent, offset, &extent)) return -1;
    if (mt_mul_overflow(extent, (int64_t)itemsize, &n)) return -1;
    return n;
}

/* the bytes a geometry needs, its element count into *numel (-1 when it overflows) */
static int64_t nbytes_and_numel(int ndim, const int64_t *sizes, const int64_t *strides,
                                int64_t offset, size_t itemsize, int64_t *numel) {
    *numel = mt_numel_checked(ndim, sizes);
    if (offset < 0 || *numel < 0) return -1;
    if (*numel == 0)
        return 0; /* an empty tensor needs no bytes, whatever its other sizes and strides */
    return extent_nbytes(ndim, sizes, strides, offset, itemsize);
}

int64_t mt_required_nbytes(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset,
                           size_t itemsize) {
    int64_t numel;
    return nbytes_and_numel(ndim, sizes, strides, offset, itemsize, &numel);
}

static int check_in_bounds(const mt_storage *s, int ndim, const int64_t *sizes,
                           const int64_t *strides, int64_t offset, size_t itemsize,
                           int64_t *numel) {
    if (offset < 0)
        return mt_error(MT_ERR_RUNTIME, "Tensor: invalid storage offset %lld", (long long)offset);
    int64_t need = nbytes_and_numel(ndim, sizes, strides, offset, itemsize, numel);
    if (need >= 0 && (uint64_t)need <= s->nbytes) return 0;
    bool negative = false;
    for (int i = 0; i < ndim; i++) negative |= sizes[i] < 0;
    if (!negative && *numel < 0)
        return mt_error(MT_ERR_RUNTIME, "numel: integer multiplication overflow");
    char b1[256], b2[256];
    mt_fmt_ilist(b1, sizeof b1, sizes, ndim);
    mt_fmt_ilist(b2, sizeof b2, strides, ndim);
    if (need < 0)
        return mt_error(MT_ERR_RUNTIME,
                        "Storage size calculation overflowed with sizes=%s and strides=%s", b1, b2);
    return mt_error(MT_ERR_RUNTIME,
                    "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize %zu "
                    "requiring a storage size of %lld are out of bounds for storage of size %zu",
                    b1, b2, (long long)offset, itemsize, (long long)need, s->nbytes);
}

int mt_infer_size(const int64_t *shape, int n, int64_t numel, int64_t *out) {
    int infer = -1;
    int64_t newsize = 1;
    for (int i = 0; i < n; i++) {
        out[i] = shape[i];
        if (shape[i] == -1) {
            if (infer >= 0) return mt_error(MT_ERR_RUNTIME, "only one dimension can be inferred");
            infer = i;
        } else if (shape[i] >= 0) {
            if (mt_mul_overflow(newsize, shape[i], &newsize))
                return mt_error(MT_ERR_RUNTIME, "numel: integer multiplication overflow");
        } else {
            return mt_error(MT_ERR_RUNTIME, "invalid shape dimension %lld", (long long)shape[i]);
        }
    }
    char buf[512];
    if (numel == newsize || (infer >= 0 && newsize > 0 && numel % newsize == 0)) {
        if (infer >= 0) {
            if (newsize == 0) {
                mt_fmt_ilist(buf, sizeof buf, shape, n);
                return mt_error(MT_ERR_RUNTIME,
                                "cannot reshape tensor of 0 elements into shape %s because the "
                                "unspecified dimension size -1 can be any value and is ambiguous",
                                buf);
            }
            out[infer] = numel / newsize;
        }
        return 0;
    }
    mt_fmt_ilist(buf, sizeof buf, shape, n);
    return mt_error(MT_ERR_RUNTIME, "shape '%s' is invalid for input of size %lld", buf,
                    (long long)numel);
}

bool mt_view_strides(int old_ndim, const int64_t *old_sizes, const int64_t *old_strides,
                     int new_ndim, const int64_t *new_sizes, int64_t *new_strides) {
    int64_t numel = 1;
    for (int i = 0; i < old_ndim; i++) numel *= old_sizes[i];
    if (old_ndim == 0 || numel == 0) {
        if (old_ndim == new_ndim && numel != 0) {
            memcpy(new_strides, old_strides, sizeof(int64_t) * (size_t)new_ndim);
            return true;
        }
        mt_contiguous_strides(new_ndim, new_sizes, new_strides);
        return true;
    }
    int view_d = new_ndim - 1;
    int64_t chunk_base_stride = old_strides[old_ndim - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int tensor_d = old_ndim - 1; tensor_d >= 0; tensor_d--) {
        tensor_numel *= old_sizes[tensor_d];
        /* a chunk ends where the next-outer dim does not continue this one contiguously */
        if (tensor_d == 0 || (old_sizes[tensor_d - 1] != 1 &&
                              old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
                new_strides[view_d] = view_numel * chunk_base_stride;
                view_numel *= new_sizes[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return false;
            if (tensor_d > 0) {
                chunk_base_stride = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

int mt_dim_range_error(int64_t dim, int ndim) {
    int n = ndim > 0 ? ndim : 1;
    return mt_error(MT_ERR_INDEX,
                    "Dimension out of range (expected to be in range of [%d, %d], but got %lld)",
                    -n, n, mt_user_dim(dim));
}

int mt_wrap_dim(int64_t dim, int ndim, int *out) {
    int n = ndim > 0 ? ndim : 1; /* a 0-d tensor accepts dim 1 and -1, like PyTorch's 0/-1 */
    if (dim < -n || dim >= n) return mt_dim_range_error(dim, ndim);
    *out = (int)(dim < 0 ? dim + n : dim);
    return 0;
}

const char *mt_tensor_type_name(const mt_tensor *t, char *buf, size_t cap) {
    const char *name = mt_dtype_get((mt_dtype)t->dtype)->tensor_name;
    if (t->device.type == MT_DEV_CPU)
        snprintf(buf, cap, "torch.%s", name);
    else
        snprintf(buf, cap, "torch.%s.%s", mt_devtype_name(t->device.type), name);
    return buf;
}
