/* mt_pool.h: per-thread free lists for the core's small fixed-size objects (tensor headers,
 * storages, version counters) and for small 64-byte-aligned data blocks, so that creating a
 * tiny tensor costs a few pointer moves instead of four trips through malloc. */
#ifndef MT_POOL_H
#define MT_POOL_H

#include "mt_common.h"

/* Object classes with one fixed size each. */
enum { MT_POOL_TENSOR, MT_POOL_STORAGE, MT_POOL_VERSION, MT_POOL_NCLASSES };

void *mt_pool_alloc(int cls, size_t size);
void mt_pool_free(int cls, void *p);

/* 64-byte aligned blocks; sizes up to MT_POOL_MAX_BLOCK come from per-size-class lists. */
#define MT_POOL_MAX_BLOCK 4096
MT_API void *mt_pool_alloc_aligned(size_t nbytes);
MT_API void mt_pool_free_aligned(void *p, size_t nbytes);
/* Blocks of 16 KiB and more: up to 1024 (1 GiB) recently freed ones are kept for reuse
 * (mt_pool.c); this gives them back to the C library. */
MT_API void mt_pool_release_large(void);
/* the blocks kept now and their bytes */
MT_API void mt_pool_large_kept(int *count, size_t *bytes);

#endif
