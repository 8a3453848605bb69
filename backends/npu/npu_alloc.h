/* npu_alloc.h: the NPU's allocators: the shared caching allocator (backends/accel/accel_alloc.h,
 * PyTorch's CUDA design) and pinned host memory cache (accel_host_alloc.h) over ACL, and the
 * mindtorch allocators made of them for NPU storages and pinned CPU storages. */
#ifndef MT_NPU_ALLOC_H
#define MT_NPU_ALLOC_H

#include "accel_alloc.h"
#include "accel_host_alloc.h"
#include "npu_runtime.h"

/* The process's allocators (made on first use; NULL only when out of host memory). */
accel_alloc *npu_caching(void);
accel_host_alloc *npu_host_caching(void);

/* Device memory for `size` bytes used on `stream`; NULL with mindtorch's error set. */
void *npu_alloc_malloc(int device, size_t size, aclrtStream stream);
void npu_alloc_free(void *ptr);

/* The mindtorch allocator for NPU storages (the current stream of the storage's device). */
struct mt_allocator *npu_storage_allocator(void);
/* The mindtorch allocator for pinned CPU storages (pin_memory). */
struct mt_allocator *npu_host_allocator(void);
/* Whether p is the start of a live pinned block (a pinned storage's data). */
bool npu_is_pinned_ptr(const void *p);

#endif
