/* mt_tensor.h: the tensor object (sizes and strides over a storage) and its geometry helpers.
 *
 * Dimension and index values inside the core are 0-based, as in PyTorch. The Lua boundary
 * turns the user's 1-based values into these; a user's 0 (never valid in Lua's convention)
 * arrives as MT_ZERO_SENTINEL so that the error can still quote what the user wrote. Every
 * error message shows dims and indices the way the user wrote them (mt_user_dim).
 */
#ifndef MT_TENSOR_H
#define MT_TENSOR_H

#include "mt_common.h"
#include "mt_device.h"
#include "mt_dtype.h"
#include "mt_storage.h"

#define MT_ZERO_SENTINEL (INT64_MIN + 1)
/* The same mark in a converted uint8 index tensor (nll_loss takes Byte targets): the user's
 * 1-based 1..255 become 0..254, so 255 is never a converted value, and a 0 becomes 255. */
#define MT_ZERO_SENTINEL_U8 UINT8_MAX

/* Version counter shared by a tensor and all its views (autograd's in-place checks). */
typedef struct mt_version {
    atomic_int refcount;
    atomic_llong value;
} mt_version;

enum {
    MT_T_REQUIRES_GRAD = 1 << 0,
    MT_T_PARAMETER = 1 << 1,      /* an nn.Parameter */
    MT_T_WRAPPED_NUMBER = 1 << 2, /* a 0-d tensor made from a Lua number: weak in promotion */
    MT_T_INFERENCE = 1 << 3,      /* created under inference_mode */
    MT_T_VIEW = 1 << 4,           /* shares `base`'s storage (PyTorch's _is_view()) */
    /* how a view was made, for autograd's in-place checks (PyTorch's CreationMeta) */
    MT_T_VIEW_NO_GRAD = 1 << 5, /* made with grad mode off */
    MT_T_VIEW_MULTI = 1 << 6,   /* one of several views one op returned (split, unbind) */
    MT_T_VIEW_NODIFF = 1 << 7,  /* not a differentiable view: writes to it leave base's graph */
};

typedef struct mt_tensor {
    /* the fields every op and every release touch share the first cache line */
    atomic_int refcount;
    int8_t ndim;
    uint8_t dtype; /* mt_dtype */
    uint16_t flags;
    mt_device device;
    int64_t offset; /* in elements */
    int64_t numel;
    mt_storage *storage;
    mt_version *version;
    struct mt_tensor *base; /* the tensor this is a view of (owned ref), or NULL */
    void *autograd;         /* owned by the autograd layer; freed through the hook below */
    int64_t attr_version;   /* the version when the autograd history was set (or the view made):
                               a view whose base was written since gets a new history */
    int64_t sizes[MT_MAX_DIM];
    int64_t strides[MT_MAX_DIM]; /* in elements */
} mt_tensor;

/* ---- lifetime ------------------------------------------------------------------------------ */
MT_API void mt_tensor_incref(mt_tensor *t);
MT_API void mt_tensor_decref(mt_tensor *t);
/* The autograd layer frees its per-tensor data through this hook. */
MT_API void mt_tensor_set_autograd_free_hook(void (*hook)(mt_tensor *t));

/* A new tensor over `storage` (a new ref is taken on it) with its own version counter. */
MT_API mt_tensor *mt_tensor_from_storage(mt_storage *storage, int64_t offset, int ndim,
                                         const int64_t *sizes, const int64_t *strides,
                                         mt_dtype dtype);
/* A new tensor with fresh storage: contiguous when strides is NULL. Contents undefined. */
MT_API mt_tensor *mt_tensor_empty_strided(int ndim, const int64_t *sizes, const int64_t *strides,
                                          mt_dtype dtype, mt_device device);
MT_API mt_tensor *mt_tensor_empty(int ndim, const int64_t *sizes, mt_dtype dtype, mt_device device);
/* A view of `t`: same storage and version counter, new geometry. */
MT_API mt_tensor *mt_tensor_view_of(mt_tensor *t, int ndim, const int64_t *sizes,
                                    const int64_t *strides, int64_t offset);
/* A 0-d CPU tensor holding one value (a Lua number made into a tensor). */
MT_API mt_tensor *mt_tensor_scalar_double(double v, mt_dtype dtype);
MT_API mt_tensor *mt_tensor_scalar_int64(int64_t v, mt_dtype dtype);

/* ---- data and geometry ----------------------------------------------------------------------- */
/* Pointer to element 0 (brings deferred work up to date first); NULL for meta / 0 bytes. */
MT_API void *mt_tensor_data(mt_tensor *t);
/* Deferred work done and the storage still covering t: what any direct read of t's bytes
 * outside a kernel call needs first. 0, or -1 with the error set. */
MT_API int mt_tensor_sync(mt_tensor *t);
/* The same without the pipeline sync: for kernels that run when their inputs are ready. */
static inline char *mt_tensor_raw(const mt_tensor *t) {
    return t->storage->data
               ? (char *)t->storage->data + t->offset * (int64_t)mt_dtype_size(t->dtype)
               : NULL;
}
MT_API bool mt_tensor_is_contiguous(const mt_tensor *t);
/* Its elements tile one stretch of memory exactly, in some order of the dims (a permutation of
 * a contiguous tensor): PyTorch's is_non_overlapping_and_dense. */
MT_API bool mt_is_non_overlapping_and_dense(const mt_tensor *t);
MT_API void mt_tensor_bump_version(mt_tensor *t);
MT_API void mt_version_incref(mt_version *v);
/* Tensors allocated on this thread from now on are inference tensors (inference_mode). */
MT_API void mt_tensor_set_inference_tls(bool on);
MT_API void mt_version_decref(mt_version *v);
static inline int64_t mt_tensor_version(const mt_tensor *t) {
    return atomic_load_explicit(&t->version->value, memory_order_relaxed);
}
/* A differentiable view requires grad when its base does (its history is the base's). */
static inline bool mt_tensor_requires_grad(const mt_tensor *t) {
    return (t->flags & MT_T_REQUIRES_GRAD) ||
           ((t->flags & (MT_T_VIEW | MT_T_VIEW_NODIFF)) == MT_T_VIEW &&
            (t->base->flags & MT_T_REQUIRES_GRAD));
}

/* Strides of a contiguous layout; returns the element count (or -1 on overflow). */
MT_API int64_t mt_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides);
/* PyTorch's memory formats by name ("contiguous_format", "channels_last", "channels_last_3d",
 * "preserve_format"): whether t is laid out densely in that order (is_contiguous(memory_format):
 * preserve_format and contiguous_format ask for the contiguous layout; a tensor of another rank
 * is not channels-last), and the strides of that layout for new sizes (-1 with PyTorch's error
 * for a rank the format does not fit, preserve_format, a name that is none). */
MT_API bool mt_memory_format_known(const char *fmt);
MT_API bool mt_tensor_is_contiguous_as(const mt_tensor *t, const char *fmt);
MT_API int mt_memory_format_strides(const char *fmt, int ndim, const int64_t *sizes,
                                    int64_t *strides);
/* The format t's strides suggest, as PyTorch's suggest_memory_format: "channels_last" or
 * "channels_last_3d" where they run in that order (its rank only), else "contiguous_format".
 * Ops whose results follow their input's layout (convolution, pooling) ask it. */
MT_API const char *mt_suggest_memory_format(const mt_tensor *t);
/* Number of elements, erroring on negative sizes with PyTorch's text. -1 on error. */
MT_API int64_t mt_check_sizes(int ndim, const int64_t *sizes);
/* The checked geometry arithmetic every path uses (creation, views, resize_, storages, loaders,
 * the embedding API): a product or sum that leaves int64 is an error, never a wrapped size. */
/* Number of elements; -1 when a size is negative or the product overflows. */
MT_API int64_t mt_numel_checked(int ndim, const int64_t *sizes);
/* Bytes a storage needs to hold this geometry ((offset + largest element offset + 1) * itemsize,
 * 0 when empty); -1 on overflow, a negative size, stride or offset. */
MT_API int64_t mt_required_nbytes(int ndim, const int64_t *sizes, const int64_t *strides,
                                  int64_t offset, size_t itemsize);
/* 0 when t's storage still covers t (a storage can be resized smaller under live tensors: the
 * dispatcher and mt_tensor_data check tensors over such storages); else an error. */
MT_API int mt_tensor_check_storage(const mt_tensor *t);
/* Resolve -1 in a view/reshape shape; errors with PyTorch's texts. */
MT_API int mt_infer_size(const int64_t *shape, int n, int64_t numel, int64_t *out);
/* PyTorch's computeStride: strides that make `new` a view of (old sizes, strides), or false. */
MT_API bool mt_view_strides(int old_ndim, const int64_t *old_sizes, const int64_t *old_strides,
                            int new_ndim, const int64_t *new_sizes, int64_t *new_strides);

/* Wrap a (possibly negative) dim into [0, ndim); errors as PyTorch, in the user's numbering. */
MT_API int mt_wrap_dim(int64_t dim, int ndim, int *out);
/* A dim / index as the user wrote it (1-based, negatives unchanged, the sentinel as 0). */
static inline long long mt_user_dim(int64_t d) {
    return d == MT_ZERO_SENTINEL ? 0 : d >= 0 ? (long long)d + 1 : (long long)d;
}
/* The range of user dims for a tensor of ndim dimensions, as PyTorch words the error. */
MT_API int mt_dim_range_error(int64_t dim, int ndim);

/* "torch.FloatTensor" (used in PyTorch's autograd messages). */
MT_API const char *mt_tensor_type_name(const mt_tensor *t, char *buf, size_t cap);

#endif
