/* npu_alloc.c: the NPU's allocators (npu_alloc.h): the shared ones over the NPU driver, and the
 * mindtorch allocators that storages use. */
#include <pthread.h>

#include "mt_storage.h"
#include "npu_alloc.h"
#include "npu_driver.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static accel_alloc *caching;
static accel_host_alloc *host_caching;

static void make(void) {
    caching = accel_alloc_new(&npu_driver);
    host_caching = accel_host_alloc_new(&npu_driver);
}

accel_alloc *npu_caching(void) {
    pthread_once(&once, make);
    return caching;
}

accel_host_alloc *npu_host_caching(void) {
    pthread_once(&once, make);
    return host_caching;
}

void *npu_alloc_malloc(int device, size_t size, aclrtStream stream) {
    accel_alloc *a = npu_caching();
    if (!a) return mt_error_null(MT_ERR_MEMORY, "out of host memory for the NPU allocator");
    return accel_alloc_malloc(a, device, size, stream);
}

void npu_alloc_free(void *ptr) {
    if (ptr && caching) accel_alloc_free(caching, ptr);
}

/* ---- the storage allocators --------------------------------------------------------------- */
static char zero_bytes; /* the address of every 0-byte storage */

static void *storage_alloc(mt_allocator *self, size_t n, mt_device dev) {
    (void)self;
    if (npu_ensure()) return NULL;
    int d = dev.index < 0 ? npu_current_device() : dev.index;
    if (npu_check_device(d)) return NULL;
    if (n == 0) return &zero_bytes;
    aclrtStream s = npu_current_stream(d);
    if (!s) return NULL;
    return npu_alloc_malloc(d, n, s);
}

static void storage_free(mt_allocator *self, void *p, size_t n, mt_device dev) {
    (void)self;
    (void)n;
    (void)dev;
    if (p != &zero_bytes) npu_alloc_free(p);
}

static mt_allocator storage_allocator = {"npu-caching", storage_alloc, storage_free};

mt_allocator *npu_storage_allocator(void) {
    return &storage_allocator;
}

static void *host_alloc(mt_allocator *self, size_t n, mt_device dev) {
    (void)self;
    (void)dev;
    if (!npu_available(NULL)) /* PyTorch's words when no accelerator can pin */
        return mt_error_null(MT_ERR_RUNTIME,
                             "Cannot access accelerator device when none is available.");
    if (n == 0) return &zero_bytes;
    accel_host_alloc *h = npu_host_caching();
    if (!h) return mt_error_null(MT_ERR_MEMORY, "out of host memory for the pinned memory cache");
    return accel_host_alloc_malloc(h, n);
}

static void host_free(mt_allocator *self, void *p, size_t n, mt_device dev) {
    (void)self;
    (void)n;
    (void)dev;
    if (p != &zero_bytes && host_caching) accel_host_alloc_free(host_caching, p);
}

static mt_allocator host_allocator = {"npu-pinned", host_alloc, host_free};

mt_allocator *npu_host_allocator(void) {
    return &host_allocator;
}

bool npu_is_pinned_ptr(const void *p) {
    return host_caching && accel_host_alloc_owns(host_caching, p);
}
