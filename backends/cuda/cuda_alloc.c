/* cuda_alloc.c: CUDA's allocators (cuda_alloc.h). */
#include "cuda_alloc.h"
#include "cuda_driver.h"

accel_storage cuda_storage = ACCEL_STORAGE_INIT(&cuda_driver, "cuda-caching", "cuda-pinned");
