/* npu_alloc.h: the NPU caching allocator, after PyTorch's CUDA caching allocator (1.13):
 * 512-byte rounding, a small pool (<= 1 MiB, 2 MiB segments) and a large pool, block
 * splitting and merging, reuse only on the stream a block was allocated on (other streams
 * that used it are waited for through events), empty_cache, a retry after freeing cached
 * blocks before "NPU out of memory", PYTORCH_NPU_ALLOC_CONF (max_split_size_mb,
 * garbage_collection_threshold) and set_per_process_memory_fraction. */
#ifndef MT_NPU_ALLOC_H
#define MT_NPU_ALLOC_H

#include "npu_runtime.h"

typedef struct npu_stat {
    int64_t current, peak, allocated, freed;
} npu_stat;

enum { NPU_POOL_ALL, NPU_POOL_SMALL, NPU_POOL_LARGE, NPU_NPOOLS };

typedef struct npu_stats {
    npu_stat allocation[NPU_NPOOLS], segment[NPU_NPOOLS], active[NPU_NPOOLS], inactive_split[NPU_NPOOLS];
    npu_stat allocated_bytes[NPU_NPOOLS], reserved_bytes[NPU_NPOOLS], active_bytes[NPU_NPOOLS],
        inactive_split_bytes[NPU_NPOOLS];
    npu_stat oversize_allocations, oversize_segments;
    int64_t num_alloc_retries, num_ooms, max_split_size;
} npu_stats;

/* Device memory for `size` bytes used on `stream`; NULL with mindtorch's error set. */
void *npu_alloc_malloc(int device, size_t size, aclrtStream stream);
void npu_alloc_free(void *ptr);
/* The block holding ptr is also used on `stream`: its memory is reused only after that
 * stream's work at the time of the free is done. */
int npu_alloc_record_stream(void *ptr, aclrtStream stream);
/* Return every cached, unused segment to the device. */
int npu_alloc_empty_cache(void);
void npu_alloc_get_stats(int device, npu_stats *out);
void npu_alloc_reset_peak(int device);
void npu_alloc_reset_accumulated(int device);
int npu_alloc_set_fraction(double fraction, int device);

/* memory_snapshot: the segments of every device, each with its blocks in address order */
typedef struct npu_block_info {
    size_t size;
    const char *state; /* "active_allocated", "active_pending_free", "inactive" */
} npu_block_info;
typedef struct npu_segment_info {
    int device;
    uintptr_t address;
    size_t total_size, allocated_size, active_size;
    uintptr_t stream;
    bool large;
    int nblocks;
    npu_block_info *blocks;
} npu_segment_info;
/* A malloc'ed array (free with npu_alloc_free_snapshot); *n its length. */
npu_segment_info *npu_alloc_snapshot(int *n);
void npu_alloc_free_snapshot(npu_segment_info *s, int n);

/* The mindtorch allocator for NPU storages (the current stream of the storage's device). */
struct mt_allocator *npu_storage_allocator(void);

#endif
