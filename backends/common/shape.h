/* shape.h: shape and layout rules shared by every device's kernels and the meta functions:
 * broadcasting, memory-overlap predicates, and the layout results of element-wise ops get. */
#ifndef MT_SHAPE_H
#define MT_SHAPE_H

#include "mt_dispatch.h"
#include "mt_tensor.h"

/* Broadcast two shapes (PyTorch's rules; the error quotes the user's 1-based dim). */
MT_API int mt_broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b, int *nout,
                               int64_t *out);
/* Check that `t` broadcasts to shape (for expand-like uses); -1 with PyTorch's error. */
int mt_check_broadcastable_to(const mt_tensor *t, int ndim, const int64_t *shape);

/* Does some element of t share memory with another element of t (a stride-0 dim)? */
bool mt_has_internal_overlap(const mt_tensor *t);
/* Do a and b touch some common memory without being exactly the same elements? */
bool mt_tensors_partially_overlap(const mt_tensor *a, const mt_tensor *b);
bool mt_tensors_overlap(const mt_tensor *a, const mt_tensor *b);
/* In-place write checks with PyTorch's texts. */
int mt_check_writable(const mt_tensor *out);
int mt_check_no_overlap(const mt_tensor *out, const mt_tensor *in);

/* Strides a new tensor gets when it copies t's layout (clone/empty_like's preserve_format):
 * t's own strides when it is dense and non-overlapping, else contiguous. */
void mt_preserve_strides(const mt_tensor *t, int64_t *strides);
/* Strides of a new tensor shaped like t in memory format fmt (NULL or "preserve_format":
 * mt_preserve_strides; otherwise that format's, -1 with PyTorch's error where it does not fit). */
int mt_strides_like(const mt_tensor *t, const char *fmt, int64_t *strides);
/* A meta function's result o (its sizes set) in memory format fmt, a name
 * mt_suggest_memory_format gives: strides filled for a channels-last format of o's rank, o left
 * contiguous otherwise; -1 with the error where the strides overflow. The ops whose results
 * follow their inputs' layout, as PyTorch's (convolution, pooling, cat), so a channels-last
 * network stays channels-last. */
int mt_outspec_layout(mt_outspec *o, const char *fmt);

#endif
