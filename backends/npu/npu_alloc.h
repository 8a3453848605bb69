/* npu_alloc.h: the NPU's allocators: the shared caching allocator and pinned host memory cache
 * (backends/accel/accel_storage.h) over ACL. */
#ifndef MT_NPU_ALLOC_H
#define MT_NPU_ALLOC_H

#include "accel_storage.h"
#include "npu_runtime.h"

extern accel_storage npu_storage;

#endif
