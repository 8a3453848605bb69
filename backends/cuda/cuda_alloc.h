/* cuda_alloc.h: CUDA's allocators: the shared caching allocator and pinned host memory cache
 * (backends/accel/accel_storage.h) over the NVIDIA driver. */
#ifndef MT_CUDA_ALLOC_H
#define MT_CUDA_ALLOC_H

#include "accel_storage.h"

extern accel_storage cuda_storage;

#endif
