/* accel_storage.c: an accelerator module's allocators over its driver (accel_storage.h). */
#include <stdatomic.h>
#include <stddef.h>

#include "accel_storage.h"
#include "accel_stream.h"

static void ensure_made(accel_storage *s) {
    if (atomic_load_explicit(&s->made, memory_order_acquire)) return;
    pthread_mutex_lock(&s->lock);
    if (!atomic_load_explicit(&s->made, memory_order_relaxed)) {
        s->caching = accel_alloc_new(s->drv);
        s->host_caching = accel_host_alloc_new(s->drv);
        atomic_store_explicit(&s->made, true, memory_order_release);
    }
    pthread_mutex_unlock(&s->lock);
}

accel_alloc *accel_storage_caching(accel_storage *s) {
    ensure_made(s);
    return s->caching;
}

accel_host_alloc *accel_storage_host_caching(accel_storage *s) {
    ensure_made(s);
    return s->host_caching;
}

void *accel_storage_malloc(accel_storage *s, int device, size_t size, void *stream) {
    accel_alloc *a = accel_storage_caching(s);
    if (!a)
        return mt_error_null(MT_ERR_MEMORY, "out of host memory for the %s allocator",
                             s->drv->name);
    return accel_alloc_malloc(a, device, size, stream);
}

void accel_storage_free(accel_storage *s, void *ptr) {
    if (ptr && s->caching) accel_alloc_free(s->caching, ptr);
}

bool accel_storage_is_pinned(accel_storage *s, const void *p) {
    return s->host_caching && accel_host_alloc_owns(s->host_caching, p);
}

static char zero_bytes; /* the address of every 0-byte storage */

static accel_storage *of_device(mt_allocator *self) {
    return (accel_storage *)((char *)self - offsetof(accel_storage, device));
}

static accel_storage *of_pinned(mt_allocator *self) {
    return (accel_storage *)((char *)self - offsetof(accel_storage, pinned));
}

void *accel_storage_device_alloc(mt_allocator *self, size_t n, mt_device dev) {
    accel_storage *s = of_device(self);
    const accel_driver *d = s->drv;
    if (d->init()) return NULL;
    int device = dev.index < 0 ? d->current_device() : dev.index;
    if (d->check_device(device)) return NULL;
    if (n == 0) return &zero_bytes;
    void *stream = accel_current_stream(d, device);
    if (!stream) return NULL;
    return accel_storage_malloc(s, device, n, stream);
}

void accel_storage_device_free(mt_allocator *self, void *p, size_t n, mt_device dev) {
    (void)n;
    (void)dev;
    if (p != &zero_bytes) accel_storage_free(of_device(self), p);
}

void *accel_storage_pinned_alloc(mt_allocator *self, size_t n, mt_device dev) {
    (void)dev;
    accel_storage *s = of_pinned(self);
    if (!s->drv->available(NULL)) /* PyTorch's words when no accelerator can pin */
        return mt_error_null(MT_ERR_RUNTIME,
                             "Cannot access accelerator device when none is available.");
    if (n == 0) return &zero_bytes;
    accel_host_alloc *h = accel_storage_host_caching(s);
    if (!h) return mt_error_null(MT_ERR_MEMORY, "out of host memory for the pinned memory cache");
    return accel_host_alloc_malloc(h, n);
}

void accel_storage_pinned_free(mt_allocator *self, void *p, size_t n, mt_device dev) {
    (void)n;
    (void)dev;
    accel_storage *s = of_pinned(self);
    if (p != &zero_bytes && s->host_caching) accel_host_alloc_free(s->host_caching, p);
}
