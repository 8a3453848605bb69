/* cpu_iter.h: the strided N-d loop machinery every element-wise CPU kernel runs on.
 *
 * An iterator walks several operands (outputs first, then inputs) over one broadcast shape.
 * Building it broadcasts each operand (stride 0), orders the dims so the innermost has the
 * smallest strides (memory order, as PyTorch's TensorIterator does), drops size-1 dims and
 * merges dims that are contiguous in every operand. A kernel is then a 1-d loop over the
 * innermost dim, called once per outer position; `strides` are in bytes per operand.
 */
#ifndef MT_CPU_ITER_H
#define MT_CPU_ITER_H

#include "mt_tensor.h"

#define MT_ITER_MAXOPS 6

typedef void (*mt_loop_fn)(char **data, const int64_t *strides, int64_t n, void *ctx);
/* A kernel for one tile of a tiled iteration (mt_iter_run_tiles): n_inner elements along dim 0 by
 * n_outer along dim 1 from `data`, strides in bytes per operand. It may write with streaming
 * stores and leave them unfenced: the iterator fences each thread's stores after its tiles. */
typedef void (*mt_tile_fn)(char **data, const int64_t *inner_strides, const int64_t *outer_strides,
                           int64_t n_inner, int64_t n_outer, void *ctx);

typedef struct mt_iter {
    int ndim, nops;
    int64_t numel;
    int64_t shape[MT_MAX_DIM];                   /* dim 0 is the innermost */
    int64_t strides[MT_MAX_DIM][MT_ITER_MAXOPS]; /* bytes; strides[d][op] */
    char *data[MT_ITER_MAXOPS];
    int64_t itemsize[MT_ITER_MAXOPS]; /* bytes per element of each operand */
} mt_iter;

/* Set up an iterator over `shape` for operands that broadcast to it. */
void mt_iter_init(mt_iter *it, int nops, mt_tensor *const *ops, int ndim, const int64_t *shape);
/* Whether operand 0, the result, is laid out for streaming stores (cpu_stream.h): large
 * (mt_stream_wanted), contiguous along the inner dim, walked in rows rather than tiles. The
 * caller checks that it overlaps no input (mt_tensors_overlap). */
bool mt_iter_output_streamable(const mt_iter *it);
/* Whether the iteration runs in tiles (two dims, an input running along the outer one in memory:
 * a transposed operand) and its result, contiguous along the inner dim and large
 * (mt_stream_wanted), can be written by a tile kernel with streaming stores. The caller checks
 * that it overlaps no input. */
bool mt_iter_tiles_streamable(const mt_iter *it);
/* Run fn over such an iteration in strips of 16 columns (the outer dim) by the whole inner dim,
 * whole strips per thread; parallel when large. */
void mt_iter_run_tiles(const mt_iter *it, mt_tile_fn fn, void *ctx);
/* Run fn over every element (in chunks along the innermost dim); parallel when large. */
void mt_iter_run(const mt_iter *it, mt_loop_fn fn, void *ctx);
/* Run fn over the flattened element range [begin, end) only. */
void mt_iter_run_range(const mt_iter *it, int64_t begin, int64_t end, mt_loop_fn fn, void *ctx);
/* True when every operand's innermost stride equals its element size. */
static inline bool mt_iter_inner_contig(const int64_t *strides, const int64_t *itemsizes,
                                        int nops) {
    for (int i = 0; i < nops; i++)
        if (strides[i] != itemsizes[i]) return false;
    return true;
}

#endif
