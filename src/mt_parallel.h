/* mt_parallel.h: the intra-op thread count (torch.set_num_threads), one per process as in
 * PyTorch, shared by the OpenMP loops of the CPU kernels and by OpenBLAS. */
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

#endif
