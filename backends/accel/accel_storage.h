/* accel_storage.h: an accelerator module's allocators, over its driver: the shared caching
 * allocator (accel_alloc.h, PyTorch's CUDA design) and pinned host memory cache
 * (accel_host_alloc.h), made on first use, and the mindtorch allocators made of them for device
 * storages (on the current stream of the storage's device) and pinned CPU storages (pin_memory).
 * Each module defines one accel_storage for its driver with ACCEL_STORAGE_INIT. */
#ifndef MT_ACCEL_STORAGE_H
#define MT_ACCEL_STORAGE_H

#include <pthread.h>
#include <stdatomic.h>

#include "accel_alloc.h"
#include "accel_host_alloc.h"
#include "mt_storage.h"

typedef struct accel_storage {
    mt_allocator device; /* first: the allocator callbacks find the rest from it */
    mt_allocator pinned;
    const accel_driver *drv;
    pthread_mutex_t lock;
    _Atomic bool made; /* caching and host_caching were made (NULL when out of memory) */
    accel_alloc *caching;
    accel_host_alloc *host_caching;
} accel_storage;

void *accel_storage_device_alloc(mt_allocator *self, size_t n, mt_device dev);
void accel_storage_device_free(mt_allocator *self, void *p, size_t n, mt_device dev);
void *accel_storage_pinned_alloc(mt_allocator *self, size_t n, mt_device dev);
void accel_storage_pinned_free(mt_allocator *self, void *p, size_t n, mt_device dev);

#define ACCEL_STORAGE_INIT(driver, device_name, pinned_name)                                       \
    {                                                                                              \
        .device = {device_name, accel_storage_device_alloc, accel_storage_device_free},            \
        .pinned = {pinned_name, accel_storage_pinned_alloc, accel_storage_pinned_free},            \
        .drv = (driver), .lock = PTHREAD_MUTEX_INITIALIZER                                         \
    }

/* The module's caching allocators (made on first use; NULL only when out of host memory). */
accel_alloc *accel_storage_caching(accel_storage *s);
accel_host_alloc *accel_storage_host_caching(accel_storage *s);
/* Device memory for `size` bytes used on `stream` (a workspace); NULL with the error set. */
void *accel_storage_malloc(accel_storage *s, int device, size_t size, void *stream);
void accel_storage_free(accel_storage *s, void *ptr);
/* Whether p is the start of a live pinned block (a pinned storage's data). */
bool accel_storage_is_pinned(accel_storage *s, const void *p);

#endif
