/* standin_queue.c: the CUDA driver stand-in's streams and events (standin_queue.h). One lock and
 * one condition guard every queue: a stand-in has few streams, and every change wakes all. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "standin_queue.h"

enum { MAX_DEVICES = 16 };

typedef struct dep {
    sq_stream *s;
    uint64_t ticket; /* s has run its operations up to this one */
} dep;

typedef struct op {
    struct op *next;
    sq_run run;
    const char *what;
    uint64_t ticket;
    int ndeps;
    dep *deps;
    size_t n;
    alignas(max_align_t) unsigned char arg[];
} op;

struct CUstream_st {
    int device;
    bool blocking, legacy, started;
    op *head, *tail; /* the head runs (or waits to) until it is done */
    uint64_t queued, done;
    struct CUstream_st *next_all;
};

struct CUevent_st {
    bool timing;
    int refs;     /* the handle, and each record still queued */
    sq_stream *s; /* the stream of the last record; NULL: never recorded */
    uint64_t ticket;
    uint64_t gen; /* records so far: only the last one's time counts */
    double ms;
};

static pthread_mutex_t qmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t exec_mu = PTHREAD_MUTEX_INITIALIZER; /* one operation runs at a time */
static sq_stream *streams, *legacy[MAX_DEVICES];
static long delay_us;
static CUresult sticky;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void read_env(void) {
    const char *v = getenv("MINDTORCH_STANDIN_DELAY_US");
    delay_us = v && *v ? strtol(v, NULL, 10) : 0;
}

void sq_init(void) {
    pthread_once(&once, read_env);
}

/* ---- streams --------------------------------------------------------------------------------- */

static sq_stream *stream_new_locked(int device, bool blocking, bool is_legacy) {
    sq_stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->device = device;
    s->blocking = blocking;
    s->legacy = is_legacy;
    s->next_all = streams;
    streams = s;
    return s;
}

sq_stream *sq_stream_new(int device, bool blocking) {
    pthread_mutex_lock(&qmu);
    sq_stream *s = stream_new_locked(device, blocking, false);
    pthread_mutex_unlock(&qmu);
    return s;
}

sq_stream *sq_legacy(int device) {
    if (device < 0 || device >= MAX_DEVICES) return NULL;
    pthread_mutex_lock(&qmu);
    if (!legacy[device]) legacy[device] = stream_new_locked(device, true, true);
    sq_stream *s = legacy[device];
    pthread_mutex_unlock(&qmu);
    return s;
}

int sq_stream_device(const sq_stream *s) {
    return s->device;
}

static bool ready(const op *o) {
    for (int i = 0; i < o->ndeps; i++)
        if (o->deps[i].s->done < o->deps[i].ticket) return false;
    return true;
}

static void pause_before(void) {
    if (delay_us <= 0) return;
    struct timespec ts = {delay_us / 1000000, delay_us % 1000000 * 1000};
    while (nanosleep(&ts, &ts) != 0) continue;
}

static void *worker(void *arg) {
    sq_stream *s = arg;
    pthread_mutex_lock(&qmu);
    for (;;) {
        while (!s->head || !ready(s->head)) pthread_cond_wait(&qcv, &qmu);
        op *o = s->head;
        pthread_mutex_unlock(&qmu);
        pause_before(); /* the host and other streams get ahead of this operation */
        pthread_mutex_lock(&exec_mu);
        o->run(o->arg);
        pthread_mutex_unlock(&exec_mu);
        pthread_mutex_lock(&qmu);
        s->head = o->next;
        if (!s->head) s->tail = NULL;
        s->done = o->ticket;
        pthread_cond_broadcast(&qcv);
        free(o->deps);
        free(o);
    }
    return NULL;
}

static bool add_dep(op *o, int *cap, sq_stream *s, uint64_t ticket) {
    if (s->done >= ticket) return true; /* nothing to wait for */
    if (o->ndeps == *cap) {
        int c = *cap ? 2 * *cap : 4;
        dep *d = realloc(o->deps, (size_t)c * sizeof *d);
        if (!d) return false;
        o->deps = d;
        *cap = c;
    }
    o->deps[o->ndeps++] = (dep){s, ticket};
    return true;
}

/* o after `extra` (NULL: none) and in the legacy stream's implicit ordering: it waits for every
 * blocking stream of its device, and they for it (qmu held) */
static bool order(op *o, sq_stream *s, const dep *extra) {
    int cap = 0;
    if (extra && !add_dep(o, &cap, extra->s, extra->ticket)) return false;
    if (s->legacy) {
        for (sq_stream *b = streams; b; b = b->next_all)
            if (b != s && b->blocking && !b->legacy && b->device == s->device &&
                !add_dep(o, &cap, b, b->queued))
                return false;
    } else if (s->blocking && legacy[s->device] &&
               !add_dep(o, &cap, legacy[s->device], legacy[s->device]->queued))
        return false;
    return true;
}

/* qmu held; o is allocated and filled */
static CUresult enqueue_locked(sq_stream *s, op *o, const dep *extra) {
    if (!s->started) {
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&t, &at, worker, s);
        pthread_attr_destroy(&at);
        if (rc) return CUDA_ERROR_OUT_OF_MEMORY;
        s->started = true;
    }
    if (!order(o, s, extra)) return CUDA_ERROR_OUT_OF_MEMORY;
    o->ticket = ++s->queued;
    if (s->tail)
        s->tail->next = o;
    else
        s->head = o;
    s->tail = o;
    pthread_cond_broadcast(&qcv);
    return CUDA_SUCCESS;
}

static op *op_new(sq_run run, const void *arg, size_t n, const char *what) {
    op *o = malloc(sizeof *o + n);
    if (!o) return NULL;
    *o = (op){.run = run, .what = what, .n = n};
    if (n) memcpy(o->arg, arg, n);
    return o;
}

static CUresult submit(sq_stream *s, op *o, uint64_t *ticket) {
    if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&qmu);
    CUresult e = enqueue_locked(s, o, NULL);
    if (e == CUDA_SUCCESS && ticket) *ticket = o->ticket;
    pthread_mutex_unlock(&qmu);
    if (e != CUDA_SUCCESS) {
        free(o->deps);
        free(o);
    }
    return e;
}

CUresult sq_enqueue(sq_stream *s, sq_run run, const void *arg, size_t n, const char *what,
                    uint64_t *ticket) {
    return submit(s, op_new(run, arg, n, what), ticket);
}

void sq_wait(sq_stream *s, uint64_t ticket) {
    pthread_mutex_lock(&qmu);
    uint64_t target = ticket ? ticket : s->queued;
    while (s->done < target) pthread_cond_wait(&qcv, &qmu);
    pthread_mutex_unlock(&qmu);
}

bool sq_idle(sq_stream *s) {
    pthread_mutex_lock(&qmu);
    bool idle = s->done >= s->queued;
    pthread_mutex_unlock(&qmu);
    return idle;
}

void sq_wait_device(int device) {
    pthread_mutex_lock(&qmu);
    for (sq_stream *s = streams; s; s = s->next_all) {
        if (device >= 0 && s->device != device) continue;
        uint64_t target = s->queued;
        while (s->done < target) pthread_cond_wait(&qcv, &qmu);
    }
    pthread_mutex_unlock(&qmu);
}

const char *sq_user_of(uintptr_t p, size_t n) {
    const char *what = NULL;
    pthread_mutex_lock(&qmu);
    for (sq_stream *s = streams; s && !what; s = s->next_all)
        for (op *o = s->head; o && !what; o = o->next)
            for (size_t i = 0; i + sizeof(uintptr_t) <= o->n && !what; i += sizeof(uintptr_t)) {
                uintptr_t w;
                memcpy(&w, o->arg + i, sizeof w);
                if (w - p < n) what = o->what;
            }
    pthread_mutex_unlock(&qmu);
    return what;
}

void sq_fail(CUresult e, const char *fmt, ...) {
    pthread_mutex_lock(&qmu);
    if (sticky == CUDA_SUCCESS) {
        sticky = e;
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "mindtorch CUDA stand-in: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, " (every later call returns error %d)\n", e);
        va_end(ap);
    }
    pthread_mutex_unlock(&qmu);
}

CUresult sq_error(void) {
    pthread_mutex_lock(&qmu);
    CUresult e = sticky;
    pthread_mutex_unlock(&qmu);
    return e;
}

/* ---- events ---------------------------------------------------------------------------------- */

CUresult sq_event_new(CUevent *e, bool timing) {
    struct CUevent_st *ev = calloc(1, sizeof *ev);
    if (!ev) return CUDA_ERROR_OUT_OF_MEMORY;
    ev->timing = timing;
    ev->refs = 1;
    *e = ev;
    return CUDA_SUCCESS;
}

static void unref_locked(CUevent e) {
    if (--e->refs == 0) free(e);
}

/* the driver lets a handle go while records are queued: the event lives until they ran */
void sq_event_destroy(CUevent e) {
    pthread_mutex_lock(&qmu);
    unref_locked(e);
    pthread_mutex_unlock(&qmu);
}

typedef struct record_arg {
    CUevent e;
    uint64_t gen;
} record_arg;

static void run_record(void *arg) {
    record_arg *r = arg;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    pthread_mutex_lock(&qmu);
    if (r->gen == r->e->gen) r->e->ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
    unref_locked(r->e);
    pthread_mutex_unlock(&qmu);
}

CUresult sq_event_record(CUevent e, sq_stream *s) {
    op *o = op_new(run_record, &(record_arg){e, 0}, sizeof(record_arg), "cuEventRecord");
    if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&qmu);
    record_arg *r = (record_arg *)o->arg;
    r->gen = e->gen + 1;
    CUresult rc = enqueue_locked(s, o, NULL);
    if (rc == CUDA_SUCCESS) {
        e->refs++;
        e->gen = r->gen;
        e->s = s;
        e->ticket = o->ticket;
    }
    pthread_mutex_unlock(&qmu);
    if (rc != CUDA_SUCCESS) {
        free(o->deps);
        free(o);
    }
    return rc;
}

/* qmu held; an event never recorded is done */
static bool done_locked(CUevent e) {
    return !e->s || e->s->done >= e->ticket;
}

bool sq_event_done(CUevent e) {
    pthread_mutex_lock(&qmu);
    bool d = done_locked(e);
    pthread_mutex_unlock(&qmu);
    return d;
}

void sq_event_wait(CUevent e) {
    pthread_mutex_lock(&qmu);
    while (!done_locked(e)) pthread_cond_wait(&qcv, &qmu);
    pthread_mutex_unlock(&qmu);
}

CUresult sq_event_elapsed(float *ms, CUevent a, CUevent b) {
    pthread_mutex_lock(&qmu);
    CUresult rc = CUDA_SUCCESS;
    if (!a->timing || !b->timing || !a->s || !b->s)
        rc = 400; /* CUDA_ERROR_INVALID_HANDLE */
    else if (!done_locked(a) || !done_locked(b))
        rc = CUDA_ERROR_NOT_READY;
    else
        *ms = (float)(b->ms - a->ms);
    pthread_mutex_unlock(&qmu);
    return rc;
}

static void run_nothing(void *arg) {
    (void)arg;
}

CUresult sq_stream_wait_event(sq_stream *s, CUevent e) {
    op *o = op_new(run_nothing, NULL, 0, "cuStreamWaitEvent");
    if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&qmu);
    /* the event's last record as it is now: a later record does not change what s waits for */
    dep d = {e->s, e->ticket};
    CUresult rc = enqueue_locked(s, o, e->s ? &d : NULL);
    pthread_mutex_unlock(&qmu);
    if (rc != CUDA_SUCCESS) {
        free(o->deps);
        free(o);
    }
    return rc;
}
