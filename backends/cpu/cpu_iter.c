/* cpu_iter.c: building and running strided N-d iterations. */
#include "cpu_iter.h"
#include "cpu_kernels.h"
#include "cpu_stream.h"
#include "mt_parallel.h"
#include "mt_pool.h"

#include <string.h>

/* PyTorch's TensorIterator ordering rule: should dims a and b (a currently inner) swap? */
static int should_swap(const mt_iter *it, int a, int b) {
    for (int op = 0; op < it->nops; op++) {
        int64_t sa = it->strides[a][op], sb = it->strides[b][op];
        if (sa == 0 || sb == 0) continue; /* broadcast in one of them: ask the next operand */
        if (sa < sb) return -1;
        if (sa > sb) return 1;
        if (it->shape[a] > it->shape[b]) return 1; /* equal strides: the smaller size goes in */
    }
    return 0;
}

static void swap_dims(mt_iter *it, int a, int b) {
    int64_t s = it->shape[a];
    it->shape[a] = it->shape[b];
    it->shape[b] = s;
    for (int op = 0; op < it->nops; op++) {
        int64_t t = it->strides[a][op];
        it->strides[a][op] = it->strides[b][op];
        it->strides[b][op] = t;
    }
}

void mt_iter_init(mt_iter *it, int nops, mt_tensor *const *ops, int ndim, const int64_t *shape) {
    it->nops = nops;
    it->numel = 1;
    for (int i = 0; i < ndim; i++) it->numel *= shape[i];
    /* dim d of the iterator is tensor dim ndim-1-d: the last tensor dim is innermost */
    for (int d = 0; d < ndim; d++) {
        int td = ndim - 1 - d;
        it->shape[d] = shape[td];
        for (int op = 0; op < nops; op++) {
            const mt_tensor *t = ops[op];
            int od = td - (ndim - t->ndim);
            int64_t isz = (int64_t)mt_dtype_size((mt_dtype)t->dtype);
            it->strides[d][op] = (od >= 0 && t->sizes[od] != 1) ? t->strides[od] * isz : 0;
        }
    }
    for (int op = 0; op < nops; op++) {
        it->data[op] = mt_tensor_raw(ops[op]);
        it->itemsize[op] = (int64_t)mt_dtype_size((mt_dtype)ops[op]->dtype);
    }
    it->ndim = ndim;
    /* insertion sort into memory order */
    for (int i = 1; i < ndim; i++) {
        for (int j = i; j > 0; j--) {
            int c = should_swap(it, j - 1, j);
            if (c > 0)
                swap_dims(it, j - 1, j);
            else if (c < 0)
                break;
        }
    }
    if (it->numel == 0) return;
    /* drop size-1 dims, then merge dims that continue each other in every operand */
    int n = 0;
    for (int d = 0; d < ndim; d++) {
        if (it->shape[d] == 1) continue;
        if (n != d) {
            it->shape[n] = it->shape[d];
            memcpy(it->strides[n], it->strides[d], sizeof(int64_t) * (size_t)nops);
        }
        n++;
    }
    int m = 0;
    for (int d = 1; d < n; d++) {
        bool can = true;
        for (int op = 0; op < nops && can; op++)
            can = it->strides[d][op] == it->shape[m] * it->strides[m][op];
        if (can) {
            it->shape[m] *= it->shape[d];
        } else {
            m++;
            it->shape[m] = it->shape[d];
            memcpy(it->strides[m], it->strides[d], sizeof(int64_t) * (size_t)nops);
        }
    }
    it->ndim = n > 0 ? m + 1 : 0;
}

void mt_iter_run_range(const mt_iter *it, int64_t begin, int64_t end, mt_loop_fn fn, void *ctx) {
    if (begin >= end) return;
    int nops = it->nops;
    char *ptrs[MT_ITER_MAXOPS];
    if (it->ndim == 0) {
        static const int64_t zero[MT_ITER_MAXOPS];
        for (int op = 0; op < nops; op++) ptrs[op] = it->data[op];
        fn(ptrs, zero, 1, ctx);
        return;
    }
    /* the multi-index of `begin` */
    int64_t counter[MT_MAX_DIM];
    int64_t rem = begin;
    for (int op = 0; op < nops; op++) ptrs[op] = it->data[op];
    for (int d = 0; d < it->ndim; d++) {
        counter[d] = rem % it->shape[d];
        rem /= it->shape[d];
        for (int op = 0; op < nops; op++) ptrs[op] += counter[d] * it->strides[d][op];
    }
    int64_t inner = it->shape[0], pos = begin;
    while (pos < end) {
        int64_t n = inner - counter[0];
        if (n > end - pos) n = end - pos;
        fn(ptrs, it->strides[0], n, ctx);
        pos += n;
        if (pos >= end) break;
        /* step to the start of the next row */
        for (int op = 0; op < nops; op++) ptrs[op] -= counter[0] * it->strides[0][op];
        counter[0] = 0;
        for (int d = 1; d < it->ndim; d++) {
            counter[d]++;
            for (int op = 0; op < nops; op++) ptrs[op] += it->strides[d][op];
            if (counter[d] < it->shape[d]) break;
            for (int op = 0; op < nops; op++) ptrs[op] -= it->shape[d] * it->strides[d][op];
            counter[d] = 0;
        }
    }
}

/* Two dims where some operand runs along the outer one in memory (a transposed input): walk
 * them in tiles, so the lines each operand touches stay in cache across the tile. */
#define TILE 128
#define TILE_ELEMS (TILE * TILE) /* the tile's elements: 64 KiB of each 4-byte operand */

static bool wants_tiles(const mt_iter *it) {
    if (it->ndim != 2 || it->shape[0] < 2 * TILE || it->shape[1] < 2 * TILE) return false;
    for (int op = 0; op < it->nops; op++) {
        int64_t s0 = it->strides[0][op], s1 = it->strides[1][op];
        if (s0 < 0) s0 = -s0;
        if (s1 < 0) s1 = -s1;
        if (s1 != 0 && s0 > s1) return true;
    }
    return false;
}

/* A tile: ti elements along the inner dim by tj along the outer one. Square, unless the inner
 * dim is short enough for a tile to span it: then ti is the whole inner dim and tj 16 or more,
 * so the operands that run along the inner dim read and write one contiguous block per tile
 * and the loop is called once per row of it (8 times fewer calls). A transposed add of 10M
 * float32, 2 threads, inner dim 1000: 4.1-4.5 -> 2.6-3.0 ms; 2000: 3.9-4.2 -> 2.8-3.1; 400:
 * 4.2 -> 3.0-3.2. Square tiles stay ahead for inner dims from 2500 up.
 *
 * No software prefetch of the next tile: asking for its lines from each call of the loop
 * (the operand's next stretch, or a share of the next tile's columns) was slower in every
 * shape above, by up to a third. */
typedef struct {
    int64_t ti, tj;
} tile_shape;

static tile_shape tile_shape_of(const mt_iter *it) {
    int64_t inner = it->shape[0];
    if (inner > 2 * TILE_ELEMS / 16) return (tile_shape){TILE, TILE};
    int64_t tj = TILE_ELEMS / inner / 16 * 16;
    return (tile_shape){inner, tj < 16 ? 16 : tj};
}

/* An input of 4-byte elements that runs along the outer dim (s1 is its element size) is
 * "staged": each tile of it is first transposed into a buffer through AVX-512 registers, and the
 * loop reads the buffer's rows, contiguous, in its place. Reading the operand where it lies
 * costs a strided load per element (a transposed add ran at 0.3 of the copy bandwidth). */
static bool staged(const mt_iter *it, int op) {
    bool avx512 = __builtin_cpu_supports("avx512f"); /* a read of the CPU's model, no cache */
    int64_t s0 = it->strides[0][op] < 0 ? -it->strides[0][op] : it->strides[0][op];
    return avx512 && op > 0 && it->itemsize[op] == 4 && it->strides[1][op] == 4 && s0 > 4;
}

static void run_tiles(const mt_iter *it, int64_t j_begin, int64_t j_end, mt_loop_fn fn, void *ctx) {
    int nops = it->nops;
    char *ptrs[MT_ITER_MAXOPS], *buf[MT_ITER_MAXOPS] = {0};
    int64_t strides[MT_ITER_MAXOPS];
    tile_shape ts = tile_shape_of(it);
    size_t bytes = (size_t)(ts.ti * ts.tj) * 4;
    memcpy(strides, it->strides[0], sizeof(int64_t) * (size_t)nops);
    for (int op = 0; op < nops; op++)
        if (staged(it, op) && (buf[op] = mt_pool_alloc_aligned(bytes)) != NULL) strides[op] = 4;
    for (int64_t jb = j_begin; jb < j_end; jb += ts.tj) {
        int64_t je = jb + ts.tj < j_end ? jb + ts.tj : j_end;
        for (int64_t ib = 0; ib < it->shape[0]; ib += ts.ti) {
            int64_t n = ib + ts.ti < it->shape[0] ? ts.ti : it->shape[0] - ib;
            for (int op = 0; op < nops; op++)
                if (buf[op])
                    mt_cpu_transpose4_avx512(it->data[op] + ib * it->strides[0][op] + jb * 4,
                                             it->strides[0][op], n, je - jb, buf[op], ts.ti * 4);
            for (int64_t j = jb; j < je; j++) {
                for (int op = 0; op < nops; op++)
                    ptrs[op] =
                        buf[op] ? buf[op] + (j - jb) * ts.ti * 4
                                : it->data[op] + ib * it->strides[0][op] + j * it->strides[1][op];
                fn(ptrs, strides, n, ctx);
            }
        }
    }
    for (int op = 0; op < nops; op++) mt_pool_free_aligned(buf[op], bytes);
}

/* Threads take the columns of tiles in steps of TILE_SPLIT: a share that started mid-step gave
 * its thread strips of 16 columns starting half-way into a line of a transposed input (the
 * threads' halves of 10000 columns: each row's piece read as two lines), and the fused
 * transposed add (cpu_ew_tile_avx512.c) ran at half the speed on 2 threads that it had on 1
 * (19.5 GB/s against 37, alternating in one process). */
#define TILE_SPLIT 16

/* columns [j_begin, j_end) handed to a tile kernel in strips of TILE_SPLIT columns by the whole
 * inner dim: a kernel that transposes through registers keeps nothing for later, so the tile's
 * height buys nothing, and short strips cost it (cpu_ew_tile_avx512.c's add, inner dim 4000 and
 * 10000: 128 x 128 tiles 36-39 GB/s, below the staged loop's 42-44) */
static void run_tile_kernel(const mt_iter *it, int64_t j_begin, int64_t j_end, mt_tile_fn fn,
                            void *ctx) {
    char *ptrs[MT_ITER_MAXOPS];
    for (int64_t jb = j_begin; jb < j_end; jb += TILE_SPLIT) {
        for (int op = 0; op < it->nops; op++) ptrs[op] = it->data[op] + jb * it->strides[1][op];
        fn(ptrs, it->strides[0], it->strides[1], it->shape[0],
           jb + TILE_SPLIT < j_end ? TILE_SPLIT : j_end - jb, ctx);
    }
}

typedef struct {
    const mt_iter *it;
    mt_loop_fn fn;      /* the row loop */
    mt_tile_fn tile_fn; /* or, for tiles, a tile kernel */
    void *ctx;
} iter_job;

static void tiles_part(void *job, int64_t begin, int64_t end) {
    iter_job *j = job;
    int64_t cols = j->it->shape[1];
    int64_t jb = begin * TILE_SPLIT, je = end * TILE_SPLIT < cols ? end * TILE_SPLIT : cols;
    if (j->tile_fn) {
        run_tile_kernel(j->it, jb, je, j->tile_fn, j->ctx);
        mt_stream_fence(); /* the kernel's streaming stores, before another thread reads */
    } else {
        run_tiles(j->it, jb, je, j->fn, j->ctx);
    }
}

static void range_part(void *job, int64_t begin, int64_t end) {
    iter_job *j = job;
    mt_iter_run_range(j->it, begin, end, j->fn, j->ctx);
}

bool mt_iter_tiles_streamable(const mt_iter *it) {
    return wants_tiles(it) && it->strides[0][0] == it->itemsize[0] &&
           mt_stream_wanted((size_t)it->numel * (size_t)it->itemsize[0]);
}

static void run_in_tiles(iter_job *job) {
    int64_t steps = (job->it->shape[1] + TILE_SPLIT - 1) / TILE_SPLIT;
    mt_parallel_range(steps, mt_threads_for(job->it->numel), tiles_part, job);
}

void mt_iter_run_tiles(const mt_iter *it, mt_tile_fn fn, void *ctx) {
    iter_job job = {it, NULL, fn, ctx};
    run_in_tiles(&job);
}

bool mt_iter_output_streamable(const mt_iter *it) {
    return it->ndim > 0 && it->strides[0][0] == it->itemsize[0] && !wants_tiles(it) &&
           mt_stream_wanted((size_t)it->numel * (size_t)it->itemsize[0]);
}

void mt_iter_run(const mt_iter *it, mt_loop_fn fn, void *ctx) {
    iter_job job = {it, fn, NULL, ctx};
    if (wants_tiles(it)) /* steps of TILE_SPLIT columns of tiles per thread */
        run_in_tiles(&job);
    else /* one contiguous slice of the elements per thread */
        mt_parallel_range(it->numel, mt_threads_for(it->numel), range_part, &job);
}
