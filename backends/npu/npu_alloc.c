/* npu_alloc.c: the NPU's allocators (npu_alloc.h). */
#include "npu_alloc.h"
#include "npu_driver.h"

accel_storage npu_storage = ACCEL_STORAGE_INIT(&npu_driver, "npu-caching", "npu-pinned");
