/* accel_alloc.c: the device caching allocator (see accel_alloc.h for the design's origin). One
 * lock per allocator guards all its devices' state: allocation is not the hot path that kernels
 * are. The device is reached only through the driver. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel_alloc.h"

enum { MIN_BLOCK = 512 };
#define SMALL_SIZE ((size_t)1 << 20)   /* requests up to this go to the small pool */
#define SMALL_BUFFER ((size_t)2 << 20) /* small pool segments */
#define LARGE_BUFFER                                                                               \
    ((size_t)20 << 20) /* large pool segments for requests below MIN_LARGE_ALLOC                   \
                        */
#define MIN_LARGE_ALLOC ((size_t)10 << 20)
#define ROUND_LARGE ((size_t)2 << 20)

typedef struct block {
    int device;
    bool large;
    bool allocated;
    void *stream;
    size_t size;
    char *ptr;
    struct block *prev, *next; /* neighbours in the segment */
    int event_count;           /* other streams' work still to wait for */
    int gc_count;
    int nuses;
    void *uses[8];           /* record_stream */
    struct block *hash_next; /* allocated blocks by pointer */
} block;

typedef struct pool {
    block **v;
    size_t n, cap;
} pool;

typedef struct pending_event {
    void *event;
    block *b;
    struct pending_event *next;
} pending_event;

typedef struct device_state {
    pool pools[2]; /* [0] small, [1] large: free blocks by (stream, size, ptr) */
    accel_stats stats;
    bool set_fraction;
    size_t allowed_max;
    size_t total_reserved;
} device_state;

enum { HASH_BUCKETS = 4096 };

struct accel_alloc {
    const accel_driver *drv;
    pthread_mutex_t mu;
    device_state devices[ACCEL_MAX_DEVICES];
    block *allocated_blocks[HASH_BUCKETS];
    pending_event *pending;
    /* the options (driver->conf_env), parsed on first use */
    pthread_mutex_t conf_mu;
    bool conf_read;
    size_t max_split_size;
    double gc_threshold;
    char conf_error[256];
};

accel_alloc *accel_alloc_new(const accel_driver *driver) {
    accel_alloc *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->drv = driver;
    pthread_mutex_init(&a->mu, NULL);
    pthread_mutex_init(&a->conf_mu, NULL);
    a->max_split_size = SIZE_MAX;
    return a;
}

const accel_driver *accel_alloc_driver(const accel_alloc *a) {
    return a->drv;
}

static void parse_conf(accel_alloc *a) {
    const char *env = getenv(a->drv->conf_env);
    if (!env) return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", env);
    for (char *save = NULL, *tok = strtok_r(buf, ", \t", &save); tok;
         tok = strtok_r(NULL, ", \t", &save)) {
        char *colon = strchr(tok, ':');
        if (colon) *colon = 0;
        const char *val = colon ? colon + 1 : "";
        if (strcmp(tok, "max_split_size_mb") == 0) {
            long mb = strtol(val, NULL, 10);
            if (mb <= 20) {
                snprintf(a->conf_error, sizeof a->conf_error,
                         "CachingAllocator option max_split_size_mb too small, must be > 20");
                return;
            }
            a->max_split_size = (size_t)mb << 20;
        } else if (strcmp(tok, "garbage_collection_threshold") == 0) {
            double t = strtod(val, NULL);
            if (t <= 0) {
                snprintf(a->conf_error, sizeof a->conf_error,
                         "garbage_collect_threshold too small, set it 0.0~1.0");
                return;
            }
            if (t >= 1) {
                snprintf(a->conf_error, sizeof a->conf_error,
                         "garbage_collect_threshold too big, set it 0.0~1.0");
                return;
            }
            a->gc_threshold = t;
        } else {
            snprintf(a->conf_error, sizeof a->conf_error,
                     "Unrecognized CachingAllocator option: %s", tok);
            return;
        }
    }
}

static void read_conf(accel_alloc *a) {
    pthread_mutex_lock(&a->conf_mu);
    if (!a->conf_read) parse_conf(a);
    a->conf_read = true;
    pthread_mutex_unlock(&a->conf_mu);
}

/* ---- stats ------------------------------------------------------------------------------- */
static void upd(accel_stat *s, int64_t amount) {
    s->current += amount;
    if (s->current > s->peak) s->peak = s->current;
    if (amount > 0)
        s->allocated += amount;
    else
        s->freed -= amount;
}

/* the "all" entry and the block's pool */
static void upd_pool(accel_stat arr[ACCEL_NPOOLS], bool large, int64_t amount) {
    upd(&arr[ACCEL_POOL_ALL], amount);
    upd(&arr[large ? ACCEL_POOL_LARGE : ACCEL_POOL_SMALL], amount);
}

/* ---- pools ------------------------------------------------------------------------------- */
static int block_cmp(const block *a, void *stream, size_t size, const char *ptr) {
    if ((uintptr_t)a->stream != (uintptr_t)stream)
        return (uintptr_t)a->stream < (uintptr_t)stream ? -1 : 1;
    if (a->size != size) return a->size < size ? -1 : 1;
    if (a->ptr != ptr) return (uintptr_t)a->ptr < (uintptr_t)ptr ? -1 : 1;
    return 0;
}

/* the first block not less than (stream, size, ptr) */
static size_t lower_bound(pool *p, void *stream, size_t size, const char *ptr) {
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (block_cmp(p->v[mid], stream, size, ptr) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int pool_insert(accel_alloc *a, pool *p, block *b) {
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        block **v = realloc(p->v, cap * sizeof *v);
        if (!v)
            return mt_error(MT_ERR_MEMORY, "out of host memory for the %s allocator", a->drv->name);
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

static void pool_remove_at(pool *p, size_t i) {
    memmove(p->v + i, p->v + i + 1, (p->n - i - 1) * sizeof *p->v);
    p->n--;
}

/* ---- the allocated-block map ------------------------------------------------------------- */
static size_t hash_ptr(const void *p) {
    return ((uintptr_t)p >> 9) % HASH_BUCKETS;
}

static void map_add(accel_alloc *a, block *b) {
    size_t h = hash_ptr(b->ptr);
    b->hash_next = a->allocated_blocks[h];
    a->allocated_blocks[h] = b;
}

static block *map_take(accel_alloc *a, const void *p) {
    for (block **at = &a->allocated_blocks[hash_ptr(p)]; *at; at = &(*at)->hash_next)
        if ((*at)->ptr == p) {
            block *b = *at;
            *at = b->hash_next;
            return b;
        }
    return NULL;
}

static block *map_find(accel_alloc *a, const void *p) {
    for (block *b = a->allocated_blocks[hash_ptr(p)]; b; b = b->hash_next)
        if (b->ptr == p) return b;
    return NULL;
}

/* ---- sizes ------------------------------------------------------------------------------- */
static size_t round_size(size_t s) {
    return s < MIN_BLOCK ? MIN_BLOCK : (s + MIN_BLOCK - 1) / MIN_BLOCK * MIN_BLOCK;
}

static size_t allocation_size(size_t s) {
    if (s <= SMALL_SIZE) return SMALL_BUFFER;
    if (s < MIN_LARGE_ALLOC) return LARGE_BUFFER;
    return (s + ROUND_LARGE - 1) / ROUND_LARGE * ROUND_LARGE;
}

static bool should_split(const accel_alloc *a, const block *b, size_t size) {
    size_t remaining = b->size - size;
    if (!b->large) return remaining >= MIN_BLOCK;
    return size < a->max_split_size && remaining > SMALL_SIZE;
}

/* PyTorch's format_size: "512 bytes", "2.00 MiB" */
static void format_size(char *buf, size_t cap, uint64_t s) {
    if (s <= 1024)
        snprintf(buf, cap, "%llu bytes", (unsigned long long)s);
    else if (s <= 1048576)
        snprintf(buf, cap, "%.2f KiB", (double)s / 1024.0);
    else if (s <= 1073741824)
        snprintf(buf, cap, "%.2f MiB", (double)s / 1048576.0);
    else
        snprintf(buf, cap, "%.2f GiB", (double)s / 1073741824.0);
}

/* ---- segments ---------------------------------------------------------------------------- */
/* a new segment on the bound device; NULL with the error set, or NULL alone when out of memory */
static block *new_segment(accel_alloc *a, int device, bool large, void *stream, size_t size,
                          bool retry) {
    device_state *d = &a->devices[device];
    if (retry) d->stats.num_alloc_retries++;
    if (d->set_fraction && d->total_reserved + size > d->allowed_max) return NULL;
    void *p = NULL;
    int rc = a->drv->malloc(&p, size);
    if (rc) return NULL; /* ACCEL_OOM: retried after freeing the cache; -1: the error is set */
    block *b = calloc(1, sizeof *b);
    if (!b) {
        a->drv->free(p);
        return NULL;
    }
    *b = (block){.device = device, .large = large, .stream = stream, .size = size, .ptr = p};
    d->total_reserved += size;
    upd_pool(d->stats.segment, large, 1);
    upd_pool(d->stats.reserved_bytes, large, (int64_t)size);
    if (size >= a->max_split_size) upd(&d->stats.oversize_segments, 1);
    return b;
}

/* a whole free segment goes back to the device. A block is free as soon as its last use is
 * queued on its stream, not done: the runtimes' free (cuMemFree, aclrtFree) is not promised to
 * wait for that work, so the segment's stream is waited for first (other streams that used it
 * were waited for through their events before it became free). */
static void release_segment(accel_alloc *a, block *b) {
    device_state *d = &a->devices[b->device];
    accel_saved_error se;
    accel_save_error(&se);
    if (a->drv->bind(b->device) || a->drv->stream_sync(b->stream) || a->drv->free(b->ptr))
        accel_restore_error(&se);
    d->total_reserved -= b->size;
    upd_pool(d->stats.segment, b->large, -1);
    upd_pool(d->stats.reserved_bytes, b->large, -(int64_t)b->size);
    if (b->size >= a->max_split_size) upd(&d->stats.oversize_segments, -1);
    free(b);
}

/* free every cached block that is a whole segment, in both pools of every device */
static void release_cached(accel_alloc *a) {
    for (int dev = 0; dev < ACCEL_MAX_DEVICES; dev++) {
        for (int k = 0; k < 2; k++) {
            pool *p = &a->devices[dev].pools[k];
            for (size_t i = 0; i < p->n;) {
                block *b = p->v[i];
                if (!b->prev && !b->next) {
                    pool_remove_at(p, i);
                    release_segment(a, b);
                } else {
                    i++;
                }
            }
        }
    }
}

/* with max_split_size: free cached oversize blocks on this stream until `size` is covered */
static bool release_available(accel_alloc *a, int device, void *stream, size_t size) {
    if (a->max_split_size == SIZE_MAX) return false;
    pool *p = &a->devices[device].pools[1];
    size_t key = size < a->max_split_size ? a->max_split_size : size;
    size_t at = lower_bound(p, stream, key, NULL);
    if (at < p->n && p->v[at]->stream == stream && !p->v[at]->prev && !p->v[at]->next) {
        block *b = p->v[at];
        pool_erase(p, b);
        release_segment(a, b);
        return true;
    }
    /* several of the largest on this stream */
    size_t freed = 0;
    for (size_t i = at; i-- > 0 && freed < key;) {
        block *b = p->v[i];
        if (b->stream != stream || b->size < a->max_split_size) break;
        if (b->prev || b->next) continue;
        freed += b->size;
        pool_erase(p, b);
        release_segment(a, b);
    }
    return freed >= key;
}

/* ---- events for blocks used on other streams --------------------------------------------- */
static void free_block(accel_alloc *a, block *b);

static void process_events(accel_alloc *a, bool wait) {
    accel_saved_error se;
    accel_save_error(&se);
    for (pending_event **at = &a->pending; *at;) {
        pending_event *pe = *at;
        bool done = true; /* an event the runtime cannot answer for is not waited on forever */
        if (wait ? a->drv->event_sync(pe->event) : a->drv->event_query(pe->event, &done)) {
            accel_restore_error(&se);
            done = true;
        }
        if (!done) {
            at = &pe->next;
            continue;
        }
        *at = pe->next;
        a->drv->event_destroy(pe->event);
        if (--pe->b->event_count == 0) free_block(a, pe->b);
        free(pe);
    }
}

/* ---- garbage collection by age (with a memory fraction and a threshold) ------------------ */
static void garbage_collect(accel_alloc *a, int device) {
    device_state *d = &a->devices[device];
    size_t threshold = (size_t)(a->gc_threshold * (double)d->allowed_max);
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
                pool_remove_at(p, i);
                release_segment(a, b);
                freed = true;
            } else {
                i++;
            }
        }
        if (reclaimed >= target || !freed) return;
    }
}

/* ---- malloc and free --------------------------------------------------------------------- */
static block *get_free_block(accel_alloc *a, int device, bool large, void *stream, size_t size) {
    pool *p = &a->devices[device].pools[large];
    if (a->devices[device].set_fraction && a->gc_threshold > 0)
        for (size_t i = 0; i < p->n; i++) p->v[i]->gc_count++;
    size_t at = lower_bound(p, stream, size, NULL);
    if (at == p->n || p->v[at]->stream != stream) return NULL;
    block *b = p->v[at];
    if (size < a->max_split_size && b->size >= a->max_split_size) return NULL;
    if (size >= a->max_split_size && b->size >= size + LARGE_BUFFER) return NULL;
    pool_remove_at(p, at);
    b->gc_count = 0;
    return b;
}

static void *oom(accel_alloc *a, int device, size_t alloc_size) {
    device_state *d = &a->devices[device];
    d->stats.num_ooms++;
    size_t free_b = 0, total_b = 0;
    if (a->drv->mem_info(&free_b, &total_b)) mt_error_clear(); /* the OOM text is the error */
    char req[32], total[32], allocated[32], active[32], freebuf[32], allowed[48] = "", reserved[32];
    format_size(req, sizeof req, alloc_size);
    format_size(total, sizeof total, total_b);
    format_size(allocated, sizeof allocated,
                (uint64_t)d->stats.allocated_bytes[ACCEL_POOL_ALL].current);
    format_size(active, sizeof active, (uint64_t)d->stats.active_bytes[ACCEL_POOL_ALL].current);
    format_size(freebuf, sizeof freebuf, free_b);
    format_size(reserved, sizeof reserved,
                (uint64_t)d->stats.reserved_bytes[ACCEL_POOL_ALL].current);
    if (d->set_fraction) {
        char al[32];
        format_size(al, sizeof al, d->allowed_max);
        snprintf(allowed, sizeof allowed, "%s allowed; ", al);
    }
    const char *n = a->drv->name;
    mt_error(MT_ERR_MEMORY,
             "%s out of memory. Tried to allocate %s (%s %d; %s total capacity; %s already "
             "allocated; %s current active; %s free; %s%s reserved in total by PyTorch) If "
             "reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
             "fragmentation.",
             n, req, n, device, total, allocated, active, freebuf, allowed, reserved);
    return NULL;
}

void *accel_alloc_malloc(accel_alloc *a, int device, size_t orig, void *stream) {
    read_conf(a);
    if (a->conf_error[0]) return mt_error_null(MT_ERR_RUNTIME, "%s", a->conf_error);
    if (device < 0 || device >= ACCEL_MAX_DEVICES || a->drv->bind(device)) {
        if (mt_error_kind() == MT_ERR_NONE) mt_error(MT_ERR_RUNTIME, "Invalid device id");
        return NULL;
    }
    if (orig >= ((size_t)1 << 60))
        return mt_error_null(MT_ERR_MEMORY,
                             "%s out of memory. Tried to allocate more than 1EB memory.",
                             a->drv->name);
    pthread_mutex_lock(&a->mu);
    process_events(a, false);
    device_state *d = &a->devices[device];
    size_t size = round_size(orig);
    bool large = size > SMALL_SIZE;
    size_t alloc_size = allocation_size(size);
    block *b = get_free_block(a, device, large, stream, size);
    if (!b) {
        if (d->set_fraction && a->gc_threshold > 0) garbage_collect(a, device);
        mt_error_clear();
        b = new_segment(a, device, large, stream, alloc_size, false);
        if (!b && mt_error_kind() == MT_ERR_NONE && release_available(a, device, stream, size))
            b = new_segment(a, device, large, stream, alloc_size, false);
        if (!b && mt_error_kind() == MT_ERR_NONE) {
            process_events(a, true);
            release_cached(a);
            a->drv->bind(device);
            b = new_segment(a, device, large, stream, alloc_size, true);
        }
        if (!b) {
            void *r = mt_error_kind() != MT_ERR_NONE ? NULL : oom(a, device, alloc_size);
            pthread_mutex_unlock(&a->mu);
            return r;
        }
    }
    bool already_split = b->prev || b->next;
    if (should_split(a, b, size)) {
        block *rest = calloc(1, sizeof *rest);
        if (!rest) {
            pool_insert(a, &d->pools[large], b);
            pthread_mutex_unlock(&a->mu);
            return mt_error_null(MT_ERR_MEMORY, "out of host memory for the %s allocator",
                                 a->drv->name);
        }
        *rest = (block){.device = device,
                        .large = large,
                        .stream = stream,
                        .size = b->size - size,
                        .ptr = b->ptr + size,
                        .prev = b,
                        .next = b->next};
        if (b->next) b->next->prev = rest;
        b->next = rest;
        b->size = size;
        pool_insert(a, &d->pools[large], rest);
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
    map_add(a, b);
    upd_pool(d->stats.allocation, large, 1);
    upd_pool(d->stats.allocated_bytes, large, (int64_t)b->size);
    upd_pool(d->stats.active, large, 1);
    upd_pool(d->stats.active_bytes, large, (int64_t)b->size);
    if (b->size >= a->max_split_size) upd(&d->stats.oversize_allocations, 1);
    pthread_mutex_unlock(&a->mu);
    return b->ptr;
}

/* merge `b` with its free neighbour `n`; returns the merged-away size (0: none) */
static size_t try_merge(accel_alloc *a, block *b, block *n) {
    if (!n || n->allocated || n->event_count > 0 || n->nuses > 0) return 0;
    pool_erase(&a->devices[b->device].pools[b->large], n);
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

static void free_block(accel_alloc *a, block *b) {
    device_state *d = &a->devices[b->device];
    size_t original = b->size;
    b->nuses = 0;
    block *neighbours[2] = {b->prev, b->next};
    for (int i = 0; i < 2; i++) {
        size_t merged = try_merge(a, b, neighbours[i]);
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
    pool_insert(a, &d->pools[b->large], b);
}

/* wait for the other streams' work queued so far before the block is reused */
static void defer_free(accel_alloc *a, block *b) {
    int uses = b->nuses;
    b->nuses = 0;
    accel_saved_error se;
    accel_save_error(&se);
    for (int i = 0; i < uses; i++) {
        pending_event *pe = malloc(sizeof *pe);
        void *ev = NULL;
        if (!pe || a->drv->bind(b->device) || a->drv->event_create(&ev, false) ||
            a->drv->event_record(ev, b->uses[i])) {
            /* cannot wait asynchronously: wait now */
            if (ev) a->drv->event_destroy(ev);
            free(pe);
            a->drv->stream_sync(b->uses[i]);
            accel_restore_error(&se);
            continue;
        }
        pe->event = ev;
        pe->b = b;
        pe->next = a->pending;
        a->pending = pe;
        b->event_count++;
    }
    if (b->event_count == 0) free_block(a, b);
}

void accel_alloc_free(accel_alloc *a, void *ptr) {
    if (!ptr) return;
    pthread_mutex_lock(&a->mu);
    block *b = map_take(a, ptr);
    if (!b) {
        pthread_mutex_unlock(&a->mu);
        return;
    }
    device_state *d = &a->devices[b->device];
    b->allocated = false;
    upd_pool(d->stats.allocation, b->large, -1);
    upd_pool(d->stats.allocated_bytes, b->large, -(int64_t)b->size);
    if (b->size >= a->max_split_size) upd(&d->stats.oversize_allocations, -1);
    if (b->nuses > 0)
        defer_free(a, b);
    else
        free_block(a, b);
    pthread_mutex_unlock(&a->mu);
}

int accel_alloc_record_stream(accel_alloc *a, void *ptr, void *stream) {
    pthread_mutex_lock(&a->mu);
    block *b = map_find(a, ptr);
    int rc = 0;
    if (b && stream != b->stream) {
        bool seen = false;
        for (int i = 0; i < b->nuses; i++) seen |= b->uses[i] == stream;
        if (!seen) {
            if (b->nuses < (int)(sizeof b->uses / sizeof b->uses[0]))
                b->uses[b->nuses++] = stream;
            else
                rc = mt_error(MT_ERR_RUNTIME,
                              "record_stream: too many streams use this tensor's memory");
        }
    }
    pthread_mutex_unlock(&a->mu);
    return rc;
}

int accel_alloc_empty_cache(accel_alloc *a) {
    pthread_mutex_lock(&a->mu);
    process_events(a, true);
    release_cached(a);
    pthread_mutex_unlock(&a->mu);
    return 0;
}

void accel_alloc_get_stats(accel_alloc *a, int device, accel_stats *out) {
    read_conf(a);
    pthread_mutex_lock(&a->mu);
    *out = a->devices[device].stats;
    out->max_split_size = a->max_split_size == SIZE_MAX ? -1 : (int64_t)a->max_split_size;
    pthread_mutex_unlock(&a->mu);
}

static void each_stat(accel_stats *s, void (*f)(accel_stat *)) {
    accel_stat *arrays[] = {
        s->allocation,      s->segment,        s->active,       s->inactive_split,
        s->allocated_bytes, s->reserved_bytes, s->active_bytes, s->inactive_split_bytes};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        for (int k = 0; k < ACCEL_NPOOLS; k++) f(&arrays[i][k]);
    f(&s->oversize_allocations);
    f(&s->oversize_segments);
}

static void reset_peak(accel_stat *s) {
    s->peak = s->current;
}
static void reset_accumulated(accel_stat *s) {
    s->allocated = s->freed = 0;
}

void accel_alloc_reset_peak(accel_alloc *a, int device) {
    pthread_mutex_lock(&a->mu);
    each_stat(&a->devices[device].stats, reset_peak);
    pthread_mutex_unlock(&a->mu);
}

void accel_alloc_reset_accumulated(accel_alloc *a, int device) {
    pthread_mutex_lock(&a->mu);
    each_stat(&a->devices[device].stats, reset_accumulated);
    a->devices[device].stats.num_alloc_retries = a->devices[device].stats.num_ooms = 0;
    pthread_mutex_unlock(&a->mu);
}

int accel_alloc_set_fraction(accel_alloc *a, double fraction, int device) {
    if (a->drv->bind(device)) return -1;
    size_t free_b = 0, total = 0;
    if (a->drv->mem_info(&free_b, &total)) return -1;
    pthread_mutex_lock(&a->mu);
    a->devices[device].allowed_max = (size_t)(fraction * (double)total);
    a->devices[device].set_fraction = true;
    pthread_mutex_unlock(&a->mu);
    return 0;
}

/* ---- snapshot ---------------------------------------------------------------------------- */
static int add_segment(accel_segment_info **out, int *n, int *cap, block *head) {
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        accel_segment_info *v = realloc(*out, (size_t)c * sizeof *v);
        if (!v) return -1;
        *out = v;
        *cap = c;
    }
    int nb = 0;
    for (block *b = head; b; b = b->next) nb++;
    accel_block_info *blocks = calloc((size_t)nb, sizeof *blocks);
    if (!blocks) return -1;
    accel_segment_info *s = &(*out)[(*n)++];
    *s = (accel_segment_info){.device = head->device,
                              .address = (uintptr_t)head->ptr,
                              .stream = (uintptr_t)head->stream,
                              .large = head->large,
                              .nblocks = nb,
                              .blocks = blocks};
    int i = 0;
    for (block *b = head; b; b = b->next, i++) {
        bool pending_free = !b->allocated && (b->event_count > 0 || b->nuses > 0);
        s->blocks[i].size = b->size;
        s->blocks[i].state = b->allocated   ? "active_allocated"
                             : pending_free ? "active_pending_free"
                                            : "inactive";
        s->total_size += b->size;
        if (b->allocated) s->allocated_size += b->size;
        if (b->allocated || pending_free) s->active_size += b->size;
    }
    return 0;
}

static int cmp_segments(const void *a, const void *b) {
    const accel_segment_info *x = a, *y = b;
    if (x->device != y->device) return x->device - y->device;
    return x->address < y->address ? -1 : x->address > y->address;
}

accel_segment_info *accel_alloc_snapshot(accel_alloc *a, int *count) {
    accel_segment_info *out = NULL;
    int n = 0, cap = 0;
    pthread_mutex_lock(&a->mu);
    /* every segment has exactly one head block, free (in a pool) or allocated (in the map) */
    for (int dev = 0; dev < ACCEL_MAX_DEVICES; dev++)
        for (int k = 0; k < 2; k++) {
            pool *p = &a->devices[dev].pools[k];
            for (size_t i = 0; i < p->n; i++)
                if (!p->v[i]->prev) add_segment(&out, &n, &cap, p->v[i]);
        }
    for (int h = 0; h < HASH_BUCKETS; h++)
        for (block *b = a->allocated_blocks[h]; b; b = b->hash_next)
            if (!b->prev) add_segment(&out, &n, &cap, b);
    for (pending_event *pe = a->pending; pe; pe = pe->next) /* heads waiting on events */
        if (!pe->b->prev) {
            bool dup = false;
            for (int i = 0; i < n; i++) dup |= out[i].address == (uintptr_t)pe->b->ptr;
            if (!dup) add_segment(&out, &n, &cap, pe->b);
        }
    pthread_mutex_unlock(&a->mu);
    if (n) qsort(out, (size_t)n, sizeof *out, cmp_segments);
    *count = n;
    return out;
}

void accel_alloc_free_snapshot(accel_segment_info *s, int n) {
    for (int i = 0; i < n; i++) free(s[i].blocks);
    free(s);
}
