/* accel_alloc.h: the device caching allocator every accelerator module uses, after PyTorch's
 * CUDA caching allocator (1.13): 512-byte rounding, a small pool (<= 1 MiB, 2 MiB segments)
 * and a large pool, block splitting and merging, reuse only on the stream a block was
 * allocated on (other streams that used it are waited for through events), empty_cache, a
 * retry after freeing cached blocks before "<NAME> out of memory", the <driver conf_env>
 * options (max_split_size_mb, garbage_collection_threshold), set_per_process_memory_fraction,
 * torch.cuda's statistics and snapshots. The device is reached through an accel_driver. */
#ifndef MT_ACCEL_ALLOC_H
#define MT_ACCEL_ALLOC_H

#include "accel.h"

typedef struct accel_stat {
    int64_t current, peak, allocated, freed;
} accel_stat;

enum { ACCEL_POOL_ALL, ACCEL_POOL_SMALL, ACCEL_POOL_LARGE, ACCEL_NPOOLS };

typedef struct accel_stats {
    accel_stat allocation[ACCEL_NPOOLS], segment[ACCEL_NPOOLS], active[ACCEL_NPOOLS],
        inactive_split[ACCEL_NPOOLS];
    accel_stat allocated_bytes[ACCEL_NPOOLS], reserved_bytes[ACCEL_NPOOLS],
        active_bytes[ACCEL_NPOOLS], inactive_split_bytes[ACCEL_NPOOLS];
    accel_stat oversize_allocations, oversize_segments;
    int64_t num_alloc_retries, num_ooms, max_split_size;
} accel_stats;

typedef struct accel_alloc accel_alloc;

/* One allocator over a driver's devices (lives for the process); NULL when out of memory. */
accel_alloc *accel_alloc_new(const accel_driver *driver);
const accel_driver *accel_alloc_driver(const accel_alloc *a);

/* Device memory for `size` bytes used on `stream`; NULL with mindtorch's error set. */
void *accel_alloc_malloc(accel_alloc *a, int device, size_t size, void *stream);
void accel_alloc_free(accel_alloc *a, void *ptr);
/* The block holding ptr is also used on `stream`: its memory is reused only after that
 * stream's work at the time of the free is done. */
int accel_alloc_record_stream(accel_alloc *a, void *ptr, void *stream);
/* Return every cached, unused segment to the device. */
int accel_alloc_empty_cache(accel_alloc *a);
void accel_alloc_get_stats(accel_alloc *a, int device, accel_stats *out);
void accel_alloc_reset_peak(accel_alloc *a, int device);
void accel_alloc_reset_accumulated(accel_alloc *a, int device);
int accel_alloc_set_fraction(accel_alloc *a, double fraction, int device);

/* memory_snapshot: the segments of every device, each with its blocks in address order */
typedef struct accel_block_info {
    size_t size;
    const char *state; /* "active_allocated", "active_pending_free", "inactive" */
} accel_block_info;
typedef struct accel_segment_info {
    int device;
    uintptr_t address;
    size_t total_size, allocated_size, active_size;
    uintptr_t stream;
    bool large;
    int nblocks;
    accel_block_info *blocks;
} accel_segment_info;
/* A malloc'ed array (free with accel_alloc_free_snapshot); *n its length. */
accel_segment_info *accel_alloc_snapshot(accel_alloc *a, int *n);
void accel_alloc_free_snapshot(accel_segment_info *s, int n);

#endif
