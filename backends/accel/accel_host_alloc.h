/* accel_host_alloc.h: the pinned host memory cache every accelerator module uses, after
 * PyTorch's CachingHostAllocator: blocks of page-locked memory (the driver's malloc_host),
 * sizes rounded up to a power of two, a freed block reused by the smallest later request it
 * holds, but only after the device work queued on the streams that used it (record_stream,
 * as an asynchronous copy does) is done: each such stream gets an event at the free, and the
 * block waits for them. empty_cache hands the unused blocks back to the driver. */
#ifndef MT_ACCEL_HOST_ALLOC_H
#define MT_ACCEL_HOST_ALLOC_H

#include "accel.h"

typedef struct accel_host_alloc accel_host_alloc;

/* One cache over a driver (lives for the process); NULL when out of memory. */
accel_host_alloc *accel_host_alloc_new(const accel_driver *driver);
/* Page-locked memory for n > 0 bytes; NULL with the error set. */
void *accel_host_alloc_malloc(accel_host_alloc *h, size_t n);
void accel_host_alloc_free(accel_host_alloc *h, void *ptr);
/* ptr (a block's start) is used by work queued on `stream` of `device`. */
int accel_host_alloc_record_stream(accel_host_alloc *h, void *ptr, int device, void *stream);
/* Whether ptr is the start of a block this cache handed out and not yet took back. */
bool accel_host_alloc_owns(accel_host_alloc *h, const void *ptr);
int accel_host_alloc_empty_cache(accel_host_alloc *h);

typedef struct accel_host_stats {
    int64_t allocated_blocks, allocated_bytes; /* in use */
    int64_t cached_blocks, cached_bytes;       /* free, or waiting for streams */
    int64_t segments, reserved_bytes;          /* every block from the driver */
} accel_host_stats;
void accel_host_alloc_get_stats(accel_host_alloc *h, accel_host_stats *out);

#endif
