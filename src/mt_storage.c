/* mt_storage.c: storage lifetime, resizing, file mappings and shared memory. */
#define _GNU_SOURCE
#include "mt_storage.h"
#include "mt_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the CPU allocator ---------------------------------------------------------------- */

static atomic_llong cpu_bytes;

static void *cpu_alloc(mt_allocator *self, size_t nbytes, mt_device dev) {
    MT_UNUSED(self);
    MT_UNUSED(dev);
    if (nbytes == 0) return NULL;
    if (nbytes > (size_t)INT64_MAX / 2)
        return mt_error_null(MT_ERR_MEMORY,
                             "DefaultCPUAllocator: not enough memory: you tried to allocate %zu "
                             "bytes.",
                             nbytes);
    /* 64-byte alignment: a cache line, and what AVX-512 loads like */
    void *p = mt_pool_alloc_aligned(nbytes);
    if (!p)
        return mt_error_null(MT_ERR_MEMORY,
                             "DefaultCPUAllocator: not enough memory: you tried to allocate %zu "
                             "bytes.",
                             nbytes);
    atomic_fetch_add(&cpu_bytes, (long long)nbytes);
    return p;
}

static void cpu_free(mt_allocator *self, void *ptr, size_t nbytes, mt_device dev) {
    MT_UNUSED(self);
    MT_UNUSED(dev);
    if (!ptr) return;
    atomic_fetch_sub(&cpu_bytes, (long long)nbytes);
    mt_pool_free_aligned(ptr, nbytes);
}

static mt_allocator cpu_allocator = {"cpu", cpu_alloc, cpu_free};

int64_t mt_cpu_allocated_bytes(void) {
    return atomic_load(&cpu_bytes);
}

/* ---- lifetime --------------------------------------------------------------------------- */

static mt_allocator *allocator_for(mt_device dev) {
    if (dev.type == MT_DEV_CPU) return &cpu_allocator;
    if (dev.type == MT_DEV_META) return NULL;
    const mt_backend *b = mt_backend_get(dev.type);
    return b ? b->allocator : NULL;
}

mt_storage *mt_storage_new(size_t nbytes, mt_device dev, bool resizable) {
    mt_allocator *a = NULL;
    if (dev.type != MT_DEV_META && !(a = allocator_for(dev))) return NULL;
    mt_storage *s = mt_pool_alloc(MT_POOL_STORAGE, sizeof *s);
    if (!s) return mt_error_null(MT_ERR_MEMORY, "out of memory allocating a storage");
    memset(s, 0, sizeof *s);
    if (a && nbytes) {
        s->data = a->alloc(a, nbytes, dev);
        if (!s->data) {
            mt_pool_free(MT_POOL_STORAGE, s);
            return NULL;
        }
    }
    atomic_init(&s->refcount, 1);
    s->flags = resizable ? MT_STORAGE_RESIZABLE : 0;
    s->nbytes = nbytes;
    s->device = dev;
    s->allocator = a;
    return s;
}

mt_storage *mt_storage_wrap(void *data, size_t nbytes, mt_device dev, mt_deleter deleter,
                            void *ctx) {
    mt_storage *s = mt_pool_alloc(MT_POOL_STORAGE, sizeof *s);
    if (!s) return mt_error_null(MT_ERR_MEMORY, "out of memory allocating a storage");
    memset(s, 0, sizeof *s);
    atomic_init(&s->refcount, 1);
    s->flags = MT_STORAGE_EXTERNAL;
    s->data = data;
    s->nbytes = nbytes;
    s->device = dev;
    s->deleter = deleter;
    s->deleter_ctx = ctx;
    return s;
}

void mt_storage_incref(mt_storage *s) {
    atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

static void release_data(mt_storage *s) {
    if (s->deleter)
        s->deleter(s->data, s->nbytes, s->deleter_ctx);
    else if (s->allocator && s->data)
        s->allocator->free(s->allocator, s->data, s->nbytes, s->device);
    s->data = NULL;
    s->deleter = NULL;
}

void mt_storage_decref(mt_storage *s) {
    if (!s) return;
    if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1) return;
    release_data(s);
    mt_pool_free(MT_POOL_STORAGE, s);
}

int mt_storage_resize(mt_storage *s, size_t nbytes) {
    if (nbytes > (size_t)INT64_MAX)
        return mt_error(MT_ERR_RUNTIME, "Storage size calculation overflowed: %zu bytes", nbytes);
    /* tensors over a shrunk storage may hang off its end: they are checked at each use */
    if (nbytes < s->nbytes) s->flags |= MT_STORAGE_SHRUNK;
    if (s->device.type == MT_DEV_META) {
        s->nbytes = nbytes;
        return 0;
    }
    if (!(s->flags & MT_STORAGE_RESIZABLE))
        return mt_error(MT_ERR_RUNTIME, "Trying to resize storage that is not resizable");
    if (nbytes == s->nbytes) return 0;
    if (mt_storage_sync(s)) return -1;
    mt_allocator *a = s->allocator;
    void *nd = nbytes ? a->alloc(a, nbytes, s->device) : NULL;
    if (nbytes && !nd) return -1;
    size_t keep = nbytes < s->nbytes ? nbytes : s->nbytes;
    if (keep) {
        if (s->device.type == MT_DEV_CPU) {
            memcpy(nd, s->data, keep);
        } else {
            const mt_backend *b = mt_backend_get(s->device.type);
            if (!b || b->copy_bytes(nd, s->device, s->data, s->device, keep)) {
                a->free(a, nd, nbytes, s->device);
                return -1;
            }
        }
    }
    if (s->data) a->free(a, s->data, s->nbytes, s->device);
    s->data = nd;
    s->nbytes = nbytes;
    return 0;
}

/* ---- file mappings and shared memory ------------------------------------------------------ */

struct mapping {
    size_t len;
};

static void unmap_deleter(void *data, size_t nbytes, void *ctx) {
    MT_UNUSED(nbytes);
    struct mapping *m = ctx;
    if (data) munmap(data, m->len);
    free(m);
}

static mt_storage *map_fd(int fd, size_t nbytes, bool shared, uint32_t flag) {
    struct mapping *m = mt_malloc(sizeof *m);
    if (!m) return NULL;
    m->len = nbytes;
    void *p = NULL;
    if (nbytes) {
        p = mmap(NULL, nbytes, PROT_READ | PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            free(m);
            return mt_error_null(MT_ERR_RUNTIME, "unable to mmap %zu bytes: %s (%d)", nbytes,
                                 strerror(errno), errno);
        }
    }
    mt_storage *s = mt_storage_wrap(p, nbytes, MT_CPU, unmap_deleter, m);
    if (!s) {
        if (p) munmap(p, nbytes);
        free(m);
        return NULL;
    }
    s->flags = flag; /* a mapping is never resizable */
    return s;
}

mt_storage *mt_storage_from_file(const char *path, bool shared, size_t nbytes) {
    int fd = shared ? open(path, O_RDWR | O_CREAT, 0600) : open(path, O_RDONLY);
    if (fd < 0)
        return mt_error_null(MT_ERR_RUNTIME, "unable to open file <%s> in %s mode: %s (%d)", path,
                             shared ? "read-write" : "read-only", strerror(errno), errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return mt_error_null(MT_ERR_RUNTIME, "unable to stat the file <%s>", path);
    }
    if ((size_t)st.st_size < nbytes) {
        if (!shared) {
            close(fd);
            return mt_error_null(MT_ERR_RUNTIME,
                                 "file <%s> size is smaller than the required mapping size <%zu>",
                                 path, nbytes);
        }
        if (ftruncate(fd, (off_t)nbytes) != 0) {
            close(fd);
            return mt_error_null(MT_ERR_RUNTIME, "unable to resize file <%s> to the right size",
                                 path);
        }
    }
    mt_storage *s =
        map_fd(fd, nbytes, shared, MT_STORAGE_MAPPED | (shared ? MT_STORAGE_SHARED : 0));
    close(fd); /* the mapping keeps the file alive */
    return s;
}

int mt_storage_share_memory(mt_storage *s) {
    if (s->device.type != MT_DEV_CPU || (s->flags & (MT_STORAGE_SHARED | MT_STORAGE_MAPPED)))
        return 0;
    if (mt_storage_sync(s)) return -1;
    int fd = memfd_create("mindtorch-shared", MFD_CLOEXEC);
    if (fd < 0)
        return mt_error(MT_ERR_RUNTIME, "unable to create shared memory: %s (%d)", strerror(errno),
                        errno);
    if (s->nbytes && ftruncate(fd, (off_t)s->nbytes) != 0) {
        close(fd);
        return mt_error(MT_ERR_RUNTIME, "unable to size shared memory: %s (%d)", strerror(errno),
                        errno);
    }
    mt_storage *shm = map_fd(fd, s->nbytes, true, MT_STORAGE_SHARED);
    close(fd);
    if (!shm) return -1;
    if (s->nbytes) memcpy(shm->data, s->data, s->nbytes);
    /* swap the buffers: every tensor viewing `s` now sees the shared copy */
    release_data(s);
    s->data = shm->data;
    s->deleter = shm->deleter;
    s->deleter_ctx = shm->deleter_ctx;
    s->allocator = NULL;
    s->flags = (s->flags & ~(uint32_t)MT_STORAGE_RESIZABLE) | MT_STORAGE_SHARED;
    shm->data = NULL;
    shm->deleter = NULL;
    mt_pool_free(MT_POOL_STORAGE, shm);
    return 0;
}

mt_storage *mt_storage_new_pinned(size_t nbytes, const mt_backend *b) {
    mt_allocator *ha = b->host_allocator;
    if (!ha)
        return mt_error_null(MT_ERR_RUNTIME, "the %s backend has no pinned host memory", b->name);
    void *p = nbytes ? ha->alloc(ha, nbytes, MT_CPU) : NULL;
    if (nbytes && !p) return NULL;
    mt_storage *ps = mt_pool_alloc(MT_POOL_STORAGE, sizeof *ps);
    if (!ps) {
        if (p) ha->free(ha, p, nbytes, MT_CPU);
        return mt_error_null(MT_ERR_MEMORY, "out of memory allocating a storage");
    }
    memset(ps, 0, sizeof *ps);
    atomic_init(&ps->refcount, 1);
    ps->data = p;
    ps->nbytes = nbytes;
    ps->device = MT_CPU;
    ps->allocator = ha;
    ps->flags = MT_STORAGE_PINNED;
    return ps;
}

mt_storage *mt_storage_pin_memory(mt_storage *s) {
    const mt_backend *b = mt_default_accelerator();
    if (!b) return NULL;
    if (s->device.type != MT_DEV_CPU)
        return mt_error_null(MT_ERR_RUNTIME,
                             "cannot pin '%s' memory: only dense CPU storage can "
                             "be pinned",
                             mt_devtype_name(s->device.type));
    if (mt_storage_sync(s)) return NULL;
    mt_storage *ps = mt_storage_new_pinned(s->nbytes, b);
    if (ps && s->nbytes) memcpy(ps->data, s->data, s->nbytes);
    return ps;
}

int mt_storage_copy(mt_storage *dst, mt_storage *src) {
    if (dst->nbytes != src->nbytes) return mt_error(MT_ERR_RUNTIME, "size does not match");
    if (dst == src || dst->nbytes == 0) return 0;
    if (dst->device.type == MT_DEV_META || src->device.type == MT_DEV_META) return 0;
    if (mt_storage_sync(src) || mt_storage_sync(dst)) return -1;
    if (dst->device.type == MT_DEV_CPU && src->device.type == MT_DEV_CPU) {
        memmove(dst->data, src->data, dst->nbytes);
        return 0;
    }
    int t = dst->device.type != MT_DEV_CPU ? dst->device.type : src->device.type;
    const mt_backend *b = mt_backend_get(t);
    if (!b) return -1;
    return b->copy_bytes(dst->data, dst->device, src->data, src->device, dst->nbytes);
}

/* ---- pipeline hook ---------------------------------------------------------------------- */

static int (*sync_hook)(mt_storage *s);

void mt_storage_set_sync_hook(int (*hook)(mt_storage *s)) {
    sync_hook = hook;
}

int mt_storage_sync(mt_storage *s) {
    if (MT_LIKELY(!atomic_load_explicit(&s->pending, memory_order_acquire))) return 0;
    return sync_hook ? sync_hook(s) : 0;
}
