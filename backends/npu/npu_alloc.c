/* npu_alloc.c: the NPU caching allocator (see npu_alloc.h for the design's origin). One lock
 * guards all devices' state: allocation is not the hot path that kernels are. */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt_storage.h"
#include "npu_alloc.h"

enum { MIN_BLOCK = 512 };
#define SMALL_SIZE ((size_t)1 << 20)     /* requests up to this go to the small pool */
#define SMALL_BUFFER ((size_t)2 << 20)   /* small pool segments */
#define LARGE_BUFFER ((size_t)20 << 20)  /* large pool segments for requests below MIN_LARGE_ALLOC */
#define MIN_LARGE_ALLOC ((size_t)10 << 20)
#define ROUND_LARGE ((size_t)2 << 20)

typedef struct block {
    int device;
    bool large;
    bool allocated;
    aclrtStream stream;
    size_t size;
    char *ptr;
    struct block *prev, *next; /* neighbours in the segment */
    int event_count;           /* other streams' work still to wait for */
    int gc_count;
    int nuses;
    aclrtStream uses[8];    /* record_stream */
    struct block *hash_next; /* allocated blocks by pointer */
} block;

typedef struct pool {
    block **v;
    size_t n, cap;
} pool;

typedef struct pending_event {
    aclrtEvent event;
    block *b;
    struct pending_event *next;
} pending_event;

typedef struct device_state {
    pool pools[2]; /* [0] small, [1] large: free blocks by (stream, size, ptr) */
    npu_stats stats;
    bool set_fraction;
    size_t allowed_max;
    size_t total_reserved;
} device_state;

enum { HASH_BUCKETS = 4096 };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static device_state devices[NPU_MAX_DEVICES];
static block *allocated_blocks[HASH_BUCKETS];
static pending_event *pending;

/* PYTORCH_NPU_ALLOC_CONF, parsed on first use */
static pthread_once_t conf_once = PTHREAD_ONCE_INIT;
static size_t max_split_size = SIZE_MAX;
static double gc_threshold;
static char conf_error[256];

static void parse_conf(void) {
    const char *env = getenv("PYTORCH_NPU_ALLOC_CONF");
    if (!env) return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", env);
    for (char *save = NULL, *tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        char *colon = strchr(tok, ':');
        if (colon) *colon = 0;
        const char *val = colon ? colon + 1 : "";
        if (strcmp(tok, "max_split_size_mb") == 0) {
            long mb = strtol(val, NULL, 10);
            if (mb <= 20) {
                snprintf(conf_error, sizeof conf_error, "CachingAllocator option max_split_size_mb too small, must be > 20");
                return;
            }
            max_split_size = (size_t)mb << 20;
        } else if (strcmp(tok, "garbage_collection_threshold") == 0) {
            double t = strtod(val, NULL);
            if (t <= 0) {
                snprintf(conf_error, sizeof conf_error, "garbage_collect_threshold too small, set it 0.0~1.0");
                return;
            }
            if (t >= 1) {
                snprintf(conf_error, sizeof conf_error, "garbage_collect_threshold too big, set it 0.0~1.0");
                return;
            }
            gc_threshold = t;
        } else {
            snprintf(conf_error, sizeof conf_error, "Unrecognized CachingAllocator option: %s", tok);
            return;
        }
    }
}

/* ---- stats ------------------------------------------------------------------------------------ */
static void upd(npu_stat *s, int64_t amount) {
    s->current += amount;
    if (s->current > s->peak) s->peak = s->current;
    if (amount > 0) s->allocated += amount;
    else s->freed -= amount;
}

/* the "all" entry and the block's pool */
static void upd_pool(npu_stat arr[NPU_NPOOLS], bool large, int64_t amount) {
    upd(&arr[NPU_POOL_ALL], amount);
    upd(&arr[large ? NPU_POOL_LARGE : NPU_POOL_SMALL], amount);
}

/* ---- pools ------------------------------------------------------------------------------------ */
static int block_cmp(const block *a, aclrtStream stream, size_t size, const char *ptr) {
    if ((uintptr_t)a->stream != (uintptr_t)stream) return (uintptr_t)a->stream < (uintptr_t)stream ? -1 : 1;
    if (a->size != size) return a->size < size ? -1 : 1;
    if (a->ptr != ptr) return (uintptr_t)a->ptr < (uintptr_t)ptr ? -1 : 1;
    return 0;
}

/* the first block not less than (stream, size, ptr) */
static size_t lower_bound(pool *p, aclrtStream stream, size_t size, const char *ptr) {
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (block_cmp(p->v[mid], stream, size, ptr) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int pool_insert(pool *p, block *b) {
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        block **v = realloc(p->v, cap * sizeof *v);
        if (!v) return mt_error(MT_ERR_MEMORY, "out of host memory for the NPU allocator");
        p->v = v;
        p->cap = cap;
    }
    size_t at = lower_bound(p, b->stream, b->size, b->ptr);
    memmove(p->v + at + 1, p->v + at, (p->n - at) * sizeof *p->v);
    p->v[at] = b;
    p->n++;
    return 0;
}

static void pool_erase(pool *p, block *b) {
    size_t at = lower_bound(p, b->stream, b->size, b->ptr);
    if (at < p->n && p->v[at] == b) {
        memmove(p->v + at, p->v + at + 1, (p->n - at - 1) * sizeof *p->v);
        p->n--;
    }
}

/* ---- the allocated-block map ------------------------------------------------------------------ */
static size_t hash_ptr(const void *p) { return ((uintptr_t)p >> 9) % HASH_BUCKETS; }

static void map_add(block *b) {
    size_t h = hash_ptr(b->ptr);
    b->hash_next = allocated_blocks[h];
    allocated_blocks[h] = b;
}

static block *map_take(const void *p) {
    for (block **at = &allocated_blocks[hash_ptr(p)]; *at; at = &(*at)->hash_next)
        if ((*at)->ptr == p) {
            block *b = *at;
            *at = b->hash_next;
            return b;
        }
    return NULL;
}

static block *map_find(const void *p) {
    for (block *b = allocated_blocks[hash_ptr(p)]; b; b = b->hash_next)
        if (b->ptr == p) return b;
    return NULL;
}

/* ---- sizes ------------------------------------------------------------------------------------ */
static size_t round_size(size_t s) { return s < MIN_BLOCK ? MIN_BLOCK : (s + MIN_BLOCK - 1) / MIN_BLOCK * MIN_BLOCK; }

static size_t allocation_size(size_t s) {
    if (s <= SMALL_SIZE) return SMALL_BUFFER;
    if (s < MIN_LARGE_ALLOC) return LARGE_BUFFER;
    return (s + ROUND_LARGE - 1) / ROUND_LARGE * ROUND_LARGE;
}

static bool should_split(const block *b, size_t size) {
    size_t remaining = b->size - size;
    if (!b->large) return remaining >= MIN_BLOCK;
    return size < max_split_size && remaining > SMALL_SIZE;
}

/* PyTorch's format_size: "512 bytes", "2.00 MiB" */
static void format_size(char *buf, size_t cap, uint64_t s) {
    if (s <= 1024) snprintf(buf, cap, "%llu bytes", (unsigned long long)s);
    else if (s <= 1048576) snprintf(buf, cap, "%.2f KiB", (double)s / 1024.0);
    else if (s <= 1073741824) snprintf(buf, cap, "%.2f MiB", (double)s / 1048576.0);
    else snprintf(buf, cap, "%.2f GiB", (double)s / 1073741824.0);
}

/* ---- segments ------------------------------------------------------------------------------- */
static block *new_segment(int device, bool large, aclrtStream stream, size_t size, bool retry) {
    device_state *d = &devices[device];
    if (retry) d->stats.num_alloc_retries++;
    if (d->set_fraction && d->total_reserved + size > d->allowed_max) return NULL;
    void *p = NULL;
    aclError e = npu_acl.aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST);
    if (e != ACL_SUCCESS) {
        /* an allocation failure is retried after freeing the cache; other errors are errors */
        if (e != ACL_ERROR_RT_MEMORY_ALLOCATION && e != ACL_ERROR_BAD_ALLOC && e != ACL_ERROR_RT_DEVICE_OOM)
            npu_acl_error(e, "aclrtMalloc");
        else if (npu_acl.aclGetRecentErrMsg) npu_acl.aclGetRecentErrMsg(); /* consumed: the OOM text says it */
        return NULL;
    }
    block *b = calloc(1, sizeof *b);
    if (!b) {
        npu_acl.aclrtFree(p);
        return NULL;
    }
    *b = (block){.device = device, .large = large, .stream = stream, .size = size, .ptr = p};
    d->total_reserved += size;
    upd_pool(d->stats.segment, large, 1);
    upd_pool(d->stats.reserved_bytes, large, (int64_t)size);
    if (size >= max_split_size) upd(&d->stats.oversize_segments, 1);
    return b;
}

/* a whole free segment goes back to the device */
static void release_segment(block *b) {
    device_state *d = &devices[b->device];
    npu_bind(b->device);
    npu_acl.aclrtFree(b->ptr);
    d->total_reserved -= b->size;
    upd_pool(d->stats.segment, b->large, -1);
    upd_pool(d->stats.reserved_bytes, b->large, -(int64_t)b->size);
    if (b->size >= max_split_size) upd(&d->stats.oversize_segments, -1);
    free(b);
}

/* free every cached block that is a whole segment, in both pools of every device */
static void release_cached(int only_device) {
    for (int dev = 0; dev < NPU_MAX_DEVICES; dev++) {
        if (only_device >= 0 && dev != only_device) continue;
        for (int k = 0; k < 2; k++) {
            pool *p = &devices[dev].pools[k];
            for (size_t i = 0; i < p->n;) {
                block *b = p->v[i];
                if (!b->prev && !b->next) {
                    memmove(p->v + i, p->v + i + 1, (p->n - i - 1) * sizeof *p->v);
                    p->n--;
                    release_segment(b);
                } else {
                    i++;
                }
            }
        }
    }
}

/* with max_split_size: free cached oversize blocks on this stream until `size` is covered */
static bool release_available(int device, aclrtStream stream, size_t size) {
    if (max_split_size == SIZE_MAX) return false;
    pool *p = &devices[device].pools[1];
    size_t key = size < max_split_size ? max_split_size : size;
    size_t at = lower_bound(p, stream, key, NULL);
    if (at < p->n && p->v[at]->stream == stream && !p->v[at]->prev && !p->v[at]->next) {
        block *b = p->v[at];
        pool_erase(p, b);
        release_segment(b);
        return true;
    }
    /* several of the largest on this stream */
    size_t freed = 0;
    for (size_t i = at; i-- > 0 && freed < key;) {
        block *b = p->v[i];
        if (b->stream != stream || b->size < max_split_size) break;
        if (b->prev || b->next) continue;
        freed += b->size;
        pool_erase(p, b);
        release_segment(b);
    }
    return freed >= key;
}

/* ---- events for blocks used on other streams ---------------------------------------------------- */
static void free_block(block *b);

static void process_events(bool wait) {
    for (pending_event **at = &pending; *at;) {
        pending_event *pe = *at;
        if (wait) npu_acl.aclrtSynchronizeEvent(pe->event);
        aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_COMPLETE;
        if (!wait) npu_acl.aclrtQueryEventStatus(pe->event, &st);
        if (st != ACL_EVENT_RECORDED_STATUS_COMPLETE) {
            at = &pe->next;
            continue;
        }
        *at = pe->next;
        npu_acl.aclrtDestroyEvent(pe->event);
        if (--pe->b->event_count == 0) free_block(pe->b);
        free(pe);
    }
}

/* ---- garbage collection by age (with a memory fraction and a threshold) -------------------------- */
static void garbage_collect(int device) {
    device_state *d = &devices[device];
    size_t threshold = (size_t)(gc_threshold * (double)d->allowed_max);
    if (d->total_reserved <= threshold) return;
    size_t target = d->total_reserved - threshold, reclaimed = 0;
    pool *p = &d->pools[1];
    for (;;) {
        double total_age = 0;
        int n = 0;
        for (size_t i = 0; i < p->n; i++)
            if (!p->v[i]->prev && !p->v[i]->next) total_age += p->v[i]->gc_count, n++;
        if (n == 0) return;
        double avg = total_age / n;
        bool freed = false;
        for (size_t i = 0; i < p->n && reclaimed < target;) {
            block *b = p->v[i];
            if (!b->prev && !b->next && b->gc_count >= avg) {
                reclaimed += b->size;
                memmove(p->v + i, p->v + i + 1, (p->n - i - 1) * sizeof *p->v);
                p->n--;
                release_segment(b);
                freed = true;
            } else {
                i++;
            }
        }
        if (reclaimed >= target || !freed) return;
    }
}

/* ---- malloc and free ---------------------------------------------------------------------------- */
static block *get_free_block(int device, bool large, aclrtStream stream, size_t size) {
    pool *p = &devices[device].pools[large];
    if (devices[device].set_fraction && gc_threshold > 0)
        for (size_t i = 0; i < p->n; i++) p->v[i]->gc_count++;
    size_t at = lower_bound(p, stream, size, NULL);
    if (at == p->n || p->v[at]->stream != stream) return NULL;
    block *b = p->v[at];
    if (size < max_split_size && b->size >= max_split_size) return NULL;
    if (size >= max_split_size && b->size >= size + LARGE_BUFFER) return NULL;
    memmove(p->v + at, p->v + at + 1, (p->n - at - 1) * sizeof *p->v);
    p->n--;
    b->gc_count = 0;
    return b;
}

static void *oom(int device, size_t alloc_size) {
    device_state *d = &devices[device];
    d->stats.num_ooms++;
    size_t free_b = 0, total_b = 0;
    npu_acl.aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total_b);
    char req[32], total[32], allocated[32], active[32], freebuf[32], allowed[48] = "", reserved[32];
    format_size(req, sizeof req, alloc_size);
    format_size(total, sizeof total, total_b);
    format_size(allocated, sizeof allocated, (uint64_t)d->stats.allocated_bytes[NPU_POOL_ALL].current);
    format_size(active, sizeof active, (uint64_t)d->stats.active_bytes[NPU_POOL_ALL].current);
    format_size(freebuf, sizeof freebuf, free_b);
    format_size(reserved, sizeof reserved, (uint64_t)d->stats.reserved_bytes[NPU_POOL_ALL].current);
    if (d->set_fraction) {
        char a[32];
        format_size(a, sizeof a, d->allowed_max);
        snprintf(allowed, sizeof allowed, "%s allowed; ", a);
    }
    mt_error(MT_ERR_MEMORY,
             "NPU out of memory. Tried to allocate %s (NPU %d; %s total capacity; %s already allocated; %s current "
             "active; %s free; %s%s reserved in total by PyTorch) If reserved memory is >> allocated memory try "
             "setting max_split_size_mb to avoid fragmentation.",
             req, device, total, allocated, active, freebuf, allowed, reserved);
    return NULL;
}

void *npu_alloc_malloc(int device, size_t orig, aclrtStream stream) {
    pthread_once(&conf_once, parse_conf);
    if (conf_error[0]) {
        mt_error(MT_ERR_RUNTIME, "%s", conf_error);
        return NULL;
    }
    if (npu_bind(device)) return NULL;
    if (orig >= ((size_t)1 << 60)) {
        mt_error(MT_ERR_MEMORY, "NPU out of memory. Tried to allocate more than 1EB memory.");
        return NULL;
    }
    pthread_mutex_lock(&mu);
    process_events(false);
    device_state *d = &devices[device];
    size_t size = round_size(orig);
    bool large = size > SMALL_SIZE;
    size_t alloc_size = allocation_size(size);
    block *b = get_free_block(device, large, stream, size);
    if (!b) {
        if (d->set_fraction && gc_threshold > 0) garbage_collect(device);
        mt_error_clear();
        b = new_segment(device, large, stream, alloc_size, false);
        if (!b && mt_error_kind() == MT_ERR_NONE && release_available(device, stream, size))
            b = new_segment(device, large, stream, alloc_size, false);
        if (!b && mt_error_kind() == MT_ERR_NONE) {
            process_events(true);
            release_cached(-1);
            b = new_segment(device, large, stream, alloc_size, true);
        }
        if (!b) {
            void *r = mt_error_kind() != MT_ERR_NONE ? NULL : oom(device, alloc_size);
            pthread_mutex_unlock(&mu);
            return r;
        }
    }
    bool already_split = b->prev || b->next;
    if (should_split(b, size)) {
        block *rest = calloc(1, sizeof *rest);
        if (!rest) {
            pool_insert(&d->pools[large], b);
            pthread_mutex_unlock(&mu);
            mt_error(MT_ERR_MEMORY, "out of host memory for the NPU allocator");
            return NULL;
        }
        *rest = (block){.device = device, .large = large, .stream = stream, .size = b->size - size,
                        .ptr = b->ptr + size, .prev = b, .next = b->next};
        if (b->next) b->next->prev = rest;
        b->next = rest;
        b->size = size;
        pool_insert(&d->pools[large], rest);
        if (already_split) {
            upd_pool(d->stats.inactive_split_bytes, large, -(int64_t)size);
        } else {
            upd_pool(d->stats.inactive_split, large, 1);
            upd_pool(d->stats.inactive_split_bytes, large, (int64_t)rest->size);
        }
    } else if (already_split) {
        upd_pool(d->stats.inactive_split, large, -1);
        upd_pool(d->stats.inactive_split_bytes, large, -(int64_t)b->size);
    }
    b->allocated = true;
    b->nuses = 0;
    map_add(b);
    upd_pool(d->stats.allocation, large, 1);
    upd_pool(d->stats.allocated_bytes, large, (int64_t)b->size);
    upd_pool(d->stats.active, large, 1);
    upd_pool(d->stats.active_bytes, large, (int64_t)b->size);
    if (b->size >= max_split_size) upd(&d->stats.oversize_allocations, 1);
    pthread_mutex_unlock(&mu);
    return b->ptr;
}

/* merge `b` with its free neighbour `n`; returns the merged-away size (0: none) */
static size_t try_merge(block *b, block *n) {
    if (!n || n->allocated || n->event_count > 0 || n->nuses > 0) return 0;
    pool_erase(&devices[b->device].pools[b->large], n);
    size_t sz = n->size;
    if (b->prev == n) { /* n is before b */
        b->ptr = n->ptr;
        b->prev = n->prev;
        if (b->prev) b->prev->next = b;
    } else {
        b->next = n->next;
        if (b->next) b->next->prev = b;
    }
    b->size += sz;
    free(n);
    return sz;
}

static void free_block(block *b) {
    device_state *d = &devices[b->device];
    size_t original = b->size;
    b->nuses = 0;
    block *neighbours[2] = {b->prev, b->next};
    for (int i = 0; i < 2; i++) {
        size_t merged = try_merge(b, neighbours[i]);
        if (merged) {
            upd_pool(d->stats.inactive_split, b->large, -1);
            upd_pool(d->stats.inactive_split_bytes, b->large, -(int64_t)merged);
        }
    }
    if (b->prev || b->next) {
        upd_pool(d->stats.inactive_split, b->large, 1);
        upd_pool(d->stats.inactive_split_bytes, b->large, (int64_t)b->size);
    }
    upd_pool(d->stats.active, b->large, -1);
    upd_pool(d->stats.active_bytes, b->large, -(int64_t)original);
    pool_insert(&d->pools[b->large], b);
}

void npu_alloc_free(void *ptr) {
    if (!ptr) return;
    pthread_mutex_lock(&mu);
    block *b = map_take(ptr);
    if (!b) {
        pthread_mutex_unlock(&mu);
        return;
    }
    device_state *d = &devices[b->device];
    b->allocated = false;
    upd_pool(d->stats.allocation, b->large, -1);
    upd_pool(d->stats.allocated_bytes, b->large, -(int64_t)b->size);
    if (b->size >= max_split_size) upd(&d->stats.oversize_allocations, -1);
    if (b->nuses > 0) {
        /* wait for the other streams' work queued so far before reusing the memory */
        int uses = b->nuses;
        b->nuses = 0;
        for (int i = 0; i < uses; i++) {
            pending_event *pe = malloc(sizeof *pe);
            aclrtEvent ev = NULL;
            if (!pe || npu_acl.aclrtCreateEventWithFlag(&ev, ACL_EVENT_SYNC) != ACL_SUCCESS ||
                npu_acl.aclrtRecordEvent(ev, b->uses[i]) != ACL_SUCCESS) {
                /* cannot wait asynchronously: wait now */
                if (ev) npu_acl.aclrtDestroyEvent(ev);
                free(pe);
                npu_acl.aclrtSynchronizeStream(b->uses[i]);
                continue;
            }
            pe->event = ev;
            pe->b = b;
            pe->next = pending;
            pending = pe;
            b->event_count++;
        }
        if (b->event_count == 0) free_block(b);
    } else {
        free_block(b);
    }
    pthread_mutex_unlock(&mu);
}

int npu_alloc_record_stream(void *ptr, aclrtStream stream) {
    pthread_mutex_lock(&mu);
    block *b = map_find(ptr);
    int rc = 0;
    if (b && stream != b->stream) {
        bool seen = false;
        for (int i = 0; i < b->nuses; i++) seen |= b->uses[i] == stream;
        if (!seen) {
            if (b->nuses < (int)(sizeof b->uses / sizeof b->uses[0])) b->uses[b->nuses++] = stream;
            else rc = mt_error(MT_ERR_RUNTIME, "record_stream: too many streams use this tensor's memory");
        }
    }
    pthread_mutex_unlock(&mu);
    return rc;
}

int npu_alloc_empty_cache(void) {
    pthread_mutex_lock(&mu);
    process_events(true);
    release_cached(-1);
    pthread_mutex_unlock(&mu);
    return 0;
}

void npu_alloc_get_stats(int device, npu_stats *out) {
    pthread_once(&conf_once, parse_conf);
    pthread_mutex_lock(&mu);
    *out = devices[device].stats;
    out->max_split_size = max_split_size == SIZE_MAX ? -1 : (int64_t)max_split_size;
    pthread_mutex_unlock(&mu);
}

static void each_stat(npu_stats *s, void (*f)(npu_stat *)) {
    npu_stat *arrays[] = {s->allocation, s->segment, s->active, s->inactive_split, s->allocated_bytes,
                          s->reserved_bytes, s->active_bytes, s->inactive_split_bytes};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        for (int k = 0; k < NPU_NPOOLS; k++) f(&arrays[i][k]);
    f(&s->oversize_allocations);
    f(&s->oversize_segments);
}

static void reset_peak(npu_stat *s) { s->peak = s->current; }
static void reset_accumulated(npu_stat *s) { s->allocated = s->freed = 0; }

void npu_alloc_reset_peak(int device) {
    pthread_mutex_lock(&mu);
    each_stat(&devices[device].stats, reset_peak);
    pthread_mutex_unlock(&mu);
}

void npu_alloc_reset_accumulated(int device) {
    pthread_mutex_lock(&mu);
    each_stat(&devices[device].stats, reset_accumulated);
    devices[device].stats.num_alloc_retries = devices[device].stats.num_ooms = 0;
    pthread_mutex_unlock(&mu);
}

int npu_alloc_set_fraction(double fraction, int device) {
    if (npu_bind(device)) return -1;
    size_t free_b = 0, total = 0;
    NPU_CHECK(npu_acl.aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total), "aclrtGetMemInfo");
    pthread_mutex_lock(&mu);
    devices[device].allowed_max = (size_t)(fraction * (double)total);
    devices[device].set_fraction = true;
    pthread_mutex_unlock(&mu);
    return 0;
}

/* ---- snapshot --------------------------------------------------------------------------------- */
static int add_segment(npu_segment_info **out, int *n, int *cap, block *head) {
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        npu_segment_info *v = realloc(*out, (size_t)c * sizeof *v);
        if (!v) return -1;
        *out = v;
        *cap = c;
    }
    int nb = 0;
    for (block *b = head; b; b = b->next) nb++;
    npu_segment_info *s = &(*out)[(*n)++];
    *s = (npu_segment_info){.device = head->device, .address = (uintptr_t)head->ptr, .stream = (uintptr_t)head->stream,
                            .large = head->large, .nblocks = nb};
    s->blocks = calloc((size_t)nb, sizeof *s->blocks);
    if (!s->blocks) return -1;
    int i = 0;
    for (block *b = head; b; b = b->next, i++) {
        bool pending_free = !b->allocated && (b->event_count > 0 || b->nuses > 0);
        s->blocks[i].size = b->size;
        s->blocks[i].state = b->allocated ? "active_allocated" : pending_free ? "active_pending_free" : "inactive";
        s->total_size += b->size;
        if (b->allocated) s->allocated_size += b->size;
        if (b->allocated || pending_free) s->active_size += b->size;
    }
    return 0;
}

static int cmp_segments(const void *a, const void *b) {
    const npu_segment_info *x = a, *y = b;
    if (x->device != y->device) return x->device - y->device;
    return x->address < y->address ? -1 : x->address > y->address;
}

npu_segment_info *npu_alloc_snapshot(int *count) {
    npu_segment_info *out = NULL;
    int n = 0, cap = 0;
    pthread_mutex_lock(&mu);
    /* every segment has exactly one head block, free (in a pool) or allocated (in the map) */
    for (int dev = 0; dev < NPU_MAX_DEVICES; dev++)
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < devices[dev].pools[k].n; i++)
                if (!devices[dev].pools[k].v[i]->prev) /* a segment's first block */
                    add_segment(&out, &n, &cap, devices[dev].pools[k].v[i]);
    for (int h = 0; h < HASH_BUCKETS; h++)
        for (block *b = allocated_blocks[h]; b; b = b->hash_next)
            if (!b->prev) add_segment(&out, &n, &cap, b);
    for (pending_event *pe = pending; pe; pe = pe->next) /* heads waiting on events */
        if (!pe->b->prev) {
            bool dup = false;
            for (int i = 0; i < n; i++) dup |= out[i].address == (uintptr_t)pe->b->ptr;
            if (!dup) add_segment(&out, &n, &cap, pe->b);
        }
    pthread_mutex_unlock(&mu);
    if (n) qsort(out, (size_t)n, sizeof *out, cmp_segments);
    *count = n;
    return out;
}

void npu_alloc_free_snapshot(npu_segment_info *s, int n) {
    for (int i = 0; i < n; i++) free(s[i].blocks);
    free(s);
}

/* ---- the storage allocator -------------------------------------------------------------------- */
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

mt_allocator *npu_storage_allocator(void) { return &storage_allocator; }
