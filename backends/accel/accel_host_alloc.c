/* accel_host_alloc.c: the pinned host memory cache (see accel_host_alloc.h). Blocks are kept in
 * one list; a process pins few, large buffers (loaders' batches), so a walk is cheap. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "accel_host_alloc.h"

enum { MAX_USES = 8 };

typedef struct hblock {
    void *ptr;
    size_t size;
    bool allocated;
    int nuses; /* streams that used it since it was handed out */
    struct {
        int device;
        void *stream;
    } uses[MAX_USES];
    int nevents; /* events still to complete before reuse */
    void *events[MAX_USES];
    struct hblock *next;
} hblock;

struct accel_host_alloc {
    const accel_driver *drv;
    pthread_mutex_t mu;
    hblock *blocks;
};

accel_host_alloc *accel_host_alloc_new(const accel_driver *driver) {
    accel_host_alloc *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->drv = driver;
    pthread_mutex_init(&h->mu, NULL);
    return h;
}

static hblock *find(accel_host_alloc *h, const void *ptr) {
    for (hblock *b = h->blocks; b; b = b->next)
        if (b->ptr == ptr) return b;
    return NULL;
}

/* the events of blocks waiting for streams: completed ones go (wait: every one, waited for) */
static void process_events(accel_host_alloc *h, bool wait) {
    accel_saved_error se;
    accel_save_error(&se);
    bool failed = false;
    for (hblock *b = h->blocks; b; b = b->next) {
        for (int i = 0; i < b->nevents;) {
            bool done = true;
            int rc =
                wait ? h->drv->event_sync(b->events[i]) : h->drv->event_query(b->events[i], &done);
            if (rc)
                failed = done = true; /* a runtime that cannot answer is not waited on forever */
            if (!done) {
                i++;
                continue;
            }
            h->drv->event_destroy(b->events[i]);
            b->events[i] = b->events[--b->nevents];
        }
    }
    if (failed) accel_restore_error(&se); /* failures here are no caller's error */
}

/* the blocks neither in use nor waiting for streams go back to the driver */
static void release_idle(accel_host_alloc *h) {
    accel_saved_error se;
    accel_save_error(&se);
    for (hblock **at = &h->blocks; *at;) {
        hblock *b = *at;
        if (b->allocated || b->nevents > 0) {
            at = &b->next;
            continue;
        }
        *at = b->next;
        if (h->drv->free_host(b->ptr)) accel_restore_error(&se);
        free(b);
    }
}

static size_t round_pow2(size_t n) {
    size_t r = 512;
    while (r < n && r <= SIZE_MAX / 2) r <<= 1;
    return r < n ? n : r;
}

void *accel_host_alloc_malloc(accel_host_alloc *h, size_t n) {
    if (n >= ((size_t)1 << 60))
        return mt_error_null(MT_ERR_MEMORY, "out of pinned memory: tried to allocate %zu bytes", n);
    size_t size = round_pow2(n);
    pthread_mutex_lock(&h->mu);
    process_events(h, false);
    hblock *best = NULL;
    for (hblock *b = h->blocks; b; b = b->next)
        if (!b->allocated && b->nevents == 0 && b->size >= size && (!best || b->size < best->size))
            best = b;
    if (!best) {
        void *p = NULL;
        best = calloc(1, sizeof *best);
        if (!best) {
            pthread_mutex_unlock(&h->mu);
            return mt_error_null(MT_ERR_MEMORY, "out of host memory for the pinned memory cache");
        }
        if (h->drv->malloc_host(&p, size)) {
            /* the idle cached blocks go back to the driver, then one more try */
            release_idle(h);
            if (h->drv->malloc_host(&p, size)) {
                free(best);
                pthread_mutex_unlock(&h->mu);
                return NULL;
            }
        }
        *best = (hblock){.ptr = p, .size = size, .next = h->blocks};
        h->blocks = best;
    }
    best->allocated = true;
    best->nuses = 0;
    pthread_mutex_unlock(&h->mu);
    return best->ptr;
}

void accel_host_alloc_free(accel_host_alloc *h, void *ptr) {
    if (!ptr) return;
    pthread_mutex_lock(&h->mu);
    hblock *b = find(h, ptr);
    if (b && b->allocated) {
        accel_saved_error se;
        accel_save_error(&se);
        b->allocated = false;
        for (int i = 0; i < b->nuses; i++) {
            void *ev = NULL;
            if (h->drv->bind(b->uses[i].device) || h->drv->event_create(&ev, false) ||
                h->drv->event_record(ev, b->uses[i].stream)) {
                if (ev) h->drv->event_destroy(ev);
                h->drv->stream_sync(b->uses[i].stream); /* cannot wait later: wait now */
                accel_restore_error(&se);
                continue;
            }
            b->events[b->nevents++] = ev;
        }
        b->nuses = 0;
    }
    pthread_mutex_unlock(&h->mu);
}

int accel_host_alloc_record_stream(accel_host_alloc *h, void *ptr, int device, void *stream) {
    int rc = 0;
    pthread_mutex_lock(&h->mu);
    hblock *b = find(h, ptr);
    if (b && b->allocated) {
        bool seen = false;
        for (int i = 0; i < b->nuses; i++)
            seen |= b->uses[i].stream == stream && b->uses[i].device == device;
        if (!seen && b->nuses == MAX_USES)
            rc = mt_error(MT_ERR_RUNTIME, "pinned memory: too many streams use this block");
        else if (!seen)
            b->uses[b->nuses].device = device, b->uses[b->nuses++].stream = stream;
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

bool accel_host_alloc_owns(accel_host_alloc *h, const void *ptr) {
    pthread_mutex_lock(&h->mu);
    hblock *b = find(h, ptr);
    bool owns = b && b->allocated;
    pthread_mutex_unlock(&h->mu);
    return owns;
}

int accel_host_alloc_empty_cache(accel_host_alloc *h) {
    pthread_mutex_lock(&h->mu);
    process_events(h, true);
    release_idle(h);
    pthread_mutex_unlock(&h->mu);
    return 0;
}

void accel_host_alloc_get_stats(accel_host_alloc *h, accel_host_stats *out) {
    *out = (accel_host_stats){0};
    pthread_mutex_lock(&h->mu);
    for (hblock *b = h->blocks; b; b = b->next) {
        out->segments++;
        out->reserved_bytes += (int64_t)b->size;
        if (b->allocated)
            out->allocated_blocks++, out->allocated_bytes += (int64_t)b->size;
        else
            out->cached_blocks++, out->cached_bytes += (int64_t)b->size;
    }
    pthread_mutex_unlock(&h->mu);
}
