/* mt_storage.h: refcounted, allocator-backed byte buffers that tensors view. */
#ifndef MT_STORAGE_H
#define MT_STORAGE_H

#include "mt_common.h"
#include "mt_device.h"

#include <stdatomic.h>

typedef struct mt_allocator {
    const char *name;
    /* Returns NULL (with the error slot set) on failure; nbytes may be 0. */
    void *(*alloc)(struct mt_allocator *self, size_t nbytes, mt_device dev);
    void (*free)(struct mt_allocator *self, void *ptr, size_t nbytes, mt_device dev);
} mt_allocator;

enum {
    MT_STORAGE_RESIZABLE = 1 << 0,
    MT_STORAGE_SHARED = 1 << 1,   /* lives in shared memory (share_memory_) */
    MT_STORAGE_PINNED = 1 << 2,   /* page-locked host memory from a device backend */
    MT_STORAGE_MAPPED = 1 << 3,   /* a file mapping (from_file) */
    MT_STORAGE_EXTERNAL = 1 << 4, /* memory owned by someone else, released by a deleter */
    MT_STORAGE_SHRUNK = 1 << 5,   /* resized smaller once: tensors over it are checked at use */
};

typedef void (*mt_deleter)(void *data, size_t nbytes, void *ctx);

typedef struct mt_storage {
    atomic_int refcount;
    uint32_t flags;
    void *data; /* NULL for meta storages and for 0 bytes */
    size_t nbytes;
    mt_device device;
    mt_allocator *allocator; /* frees `data` unless a deleter is set */
    mt_deleter deleter;
    void *deleter_ctx;
    /* Set while a deferred (pipeline) op has yet to write this storage; see mt_pipeline.h. */
    void *_Atomic pending;
} mt_storage;

/* A new storage of nbytes on dev from that device's allocator (uninitialised contents). */
MT_API mt_storage *mt_storage_new(size_t nbytes, mt_device dev, bool resizable);
/* Wrap memory owned by the caller; `deleter` (may be NULL) runs when the last ref goes. */
MT_API mt_storage *mt_storage_wrap(void *data, size_t nbytes, mt_device dev, mt_deleter deleter,
                                   void *ctx);
MT_API void mt_storage_incref(mt_storage *s);
MT_API void mt_storage_decref(mt_storage *s);
/* Resize in place, keeping the first min(old, new) bytes (UntypedStorage.resize_). */
MT_API int mt_storage_resize(mt_storage *s, size_t nbytes);
/* Storage.from_file: map `nbytes` of a file; shared=true writes through to the file. */
MT_API mt_storage *mt_storage_from_file(const char *path, bool shared, size_t nbytes);
/* Move the contents into shared memory (no-op when already shared or not on the CPU). */
MT_API int mt_storage_share_memory(mt_storage *s);
/* A pinned copy (a device backend's host allocator); errors when no accelerator is present. */
MT_API mt_storage *mt_storage_pin_memory(mt_storage *s);
/* A new CPU storage of nbytes (contents undefined) in backend b's pinned host memory. */
MT_API mt_storage *mt_storage_new_pinned(size_t nbytes, const mt_backend *b);
/* Copy src's bytes into dst (same sizes; any devices). */
MT_API int mt_storage_copy(mt_storage *dst, mt_storage *src);
/* Bring a pending storage up to date (runs the deferred ops that write it). */
MT_API int mt_storage_sync(mt_storage *s);

/* Bytes of CPU tensor memory currently allocated by the CPU allocator (all threads); the Lua
 * binding paces its collections by their growth (lmt_gc_hint). */
MT_API int64_t mt_cpu_allocated_bytes(void);

/* Hook a pipeline implementation installs to flush pending work (mt_storage_sync uses it). */
MT_API void mt_storage_set_sync_hook(int (*hook)(mt_storage *s));

#endif
