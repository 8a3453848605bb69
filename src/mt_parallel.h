/* mt_parallel.h: the intra-op thread count (torch.set_num_threads), one per process as in
 * PyTorch, shared by the CPU kernels' parallel loops (run by the pool in mt_parallel.c) and by
 * OpenBLAS. */
#ifndef MT_PARALLEL_H
#define MT_PARALLEL_H

#include "mt_common.h"

/* Work below this many elements runs on the calling thread (PyTorch's GRAIN_SIZE). */
#define MT_GRAIN_SIZE 32768

MT_API int mt_get_num_threads(void);
/* n >= 1; errors with PyTorch's words otherwise. */
MT_API int mt_set_num_threads(int64_t n);
/* A library with its own threads (OpenBLAS) follows the count through this hook. */
MT_API void mt_set_num_threads_hook(void (*hook)(int n));
/* How many threads a loop over `work` elements should use (1 inside a parallel region). */
MT_API int mt_threads_for(int64_t work);

/* A loop body: runs the indices [begin, end). */
typedef void (*mt_parallel_fn)(void *ctx, int64_t begin, int64_t end);
/* Runs fn over [0, n) split into `nt` contiguous chunks, one per thread (the caller runs the
 * first), and returns when all are done. Runs fn(ctx, 0, n) on the calling thread when nt <= 1,
 * inside another loop, or while another thread's loop holds the pool. */
MT_API void mt_parallel_range(int64_t n, int nt, mt_parallel_fn fn, void *ctx);
/* The same over [0, n) in chunks of `grain` that the `nt` threads take in turn as they finish
 * the last, so a thread that runs slower (these machines' virtual CPUs do, at times) takes fewer:
 * for loops whose body may run any number of times per thread. */
MT_API void mt_parallel_dynamic(int64_t n, int64_t grain, int nt, mt_parallel_fn fn, void *ctx);

#endif
