/* standin_runtime.c: the ACL STAND-IN's libascendcl.so (a test double, see standin.h): the
 * ACL runtime (devices, streams, events, memory, copies) on host memory and threads. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "standin.h"

#define X(ret, name, params) STANDIN_API ret name params;
MT_ACL_RUNTIME_FUNCS(X)
MT_ACL_RUNTIME_OPTIONAL_FUNCS(X)
#undef X

/* ---- process state --------------------------------------------------------------------------- */
typedef struct allocation {
    char *p;
    size_t n;
    int device;
    struct allocation *next;
} allocation;

typedef struct task {
    int (*fn)(void *);
    void *ctx;
    void (*free_ctx)(void *);
    struct task *next;
} task;

typedef struct stream {
    int device;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    task *head, *tail;
    bool busy, stop;
    int error; /* the first failed task's code, until a synchronisation reports it */
    char error_msg[1024];
    struct stream *next_all;
} stream;

typedef struct event {
    uint32_t flags;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t recorded, completed; /* generations: a record enqueues recorded+1 */
    double stamp_ms;
} event;

enum { MAX_DEVICES = 16, MAX_FAULTS = 32 };

static pthread_mutex_t state_mu = PTHREAD_MUTEX_INITIALIZER;
static bool initialized;
static int ndevices = 2;
static size_t capacity;
static size_t used[MAX_DEVICES];
static allocation *allocations;
static allocation *host_allocations; /* aclrtMallocHost's page-locked memory */
static bool peer_enabled[MAX_DEVICES][MAX_DEVICES];
static stream *default_streams[MAX_DEVICES];
static stream *all_streams;
static long task_delay_us;

static struct {
    char entry[64];
    int countdown;
    int code;
} faults[MAX_FAULTS];

static __thread int current_device = -1;
static __thread char recent_error[1024];

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void standin_set_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(recent_error, sizeof recent_error, fmt, ap);
    va_end(ap);
}

int standin_current_device(void) {
    return current_device;
}

void aclStandinInjectFault(const char *entry, int nth, int code) {
    pthread_mutex_lock(&state_mu);
    for (int i = 0; i < MAX_FAULTS; i++) {
        if (faults[i].countdown == 0) {
            snprintf(faults[i].entry, sizeof faults[i].entry, "%s", entry);
            faults[i].countdown = nth;
            faults[i].code = code;
            break;
        }
    }
    pthread_mutex_unlock(&state_mu);
}

int standin_fault(const char *entry) {
    int code = 0;
    pthread_mutex_lock(&state_mu);
    for (int i = 0; i < MAX_FAULTS; i++) {
        if (faults[i].countdown > 0 && strcmp(faults[i].entry, entry) == 0 &&
            --faults[i].countdown == 0) {
            code = faults[i].code;
            break;
        }
    }
    pthread_mutex_unlock(&state_mu);
    if (code)
        standin_set_error("EZ9999: [stand-in] fault injected into %s (error code %d)", entry, code);
    return code;
}

int aclStandinLiveAllocations(size_t *bytes) {
    int n = 0;
    size_t b = 0;
    pthread_mutex_lock(&state_mu);
    for (allocation *a = allocations; a; a = a->next) n++, b += a->n;
    pthread_mutex_unlock(&state_mu);
    if (bytes) *bytes = b;
    return n;
}

static long env_long(const char *name, long dflt) {
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : dflt;
}

#define REQUIRE_INIT()                                                                             \
    do {                                                                                           \
        if (!initialized) {                                                                        \
            standin_set_error("EE1001: [stand-in] aclInit has not been called");                   \
            return ACL_ERROR_UNINITIALIZE;                                                         \
        }                                                                                          \
    } while (0)

#define REQUIRE_DEVICE()                                                                           \
    do {                                                                                           \
        REQUIRE_INIT();                                                                            \
        if (current_device < 0) {                                                                  \
            standin_set_error(                                                                     \
                "EE1001: [stand-in] no device is set on this thread (aclrtSetDevice)");            \
            return ACL_ERROR_RT_CONTEXT_NULL;                                                      \
        }                                                                                          \
    } while (0)

#define FAULT(name)                                                                                \
    do {                                                                                           \
        int code_ = standin_fault(name);                                                           \
        if (code_) return code_;                                                                   \
    } while (0)

/* ---- init
 * ---------------------------------------------------------------------------------------- */
aclError aclInit(const char *configPath) {
    (void)configPath;
    FAULT("aclInit");
    pthread_mutex_lock(&state_mu);
    if (initialized) {
        pthread_mutex_unlock(&state_mu);
        standin_set_error("EE1001: [stand-in] repeated initialization");
        return ACL_ERROR_REPEAT_INITIALIZE;
    }
    ndevices = (int)env_long("ASCEND_STANDIN_DEVICES", 2);
    if (ndevices < 0) ndevices = 0;
    if (ndevices > MAX_DEVICES) ndevices = MAX_DEVICES;
    capacity = (size_t)env_long("ASCEND_STANDIN_MEMORY_MB", 1024) << 20;
    task_delay_us = env_long("ASCEND_STANDIN_TASK_DELAY_US", 0);
    initialized = true;
    pthread_mutex_unlock(&state_mu);
    return ACL_SUCCESS;
}

static void stream_destroy(stream *s);

aclError aclFinalize(void) {
    REQUIRE_INIT();
    for (int d = 0; d < MAX_DEVICES; d++) {
        if (default_streams[d]) stream_destroy(default_streams[d]);
        default_streams[d] = NULL;
    }
    pthread_mutex_lock(&state_mu);
    initialized = false;
    pthread_mutex_unlock(&state_mu);
    return ACL_SUCCESS;
}

const char *aclGetRecentErrMsg(void) {
    static __thread char out[sizeof recent_error];
    if (!recent_error[0]) return NULL;
    memcpy(out, recent_error, sizeof out);
    recent_error[0] = 0;
    return out;
}

const char *aclrtGetSocName(void) {
    return "Ascend-standin";
}

/* ---- streams ----------------------------------------------------------------------------------
 */
static void *stream_worker(void *arg) {
    stream *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->head && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
        if (!s->head && s->stop) break;
        task *t = s->head;
        s->head = t->next;
        if (!s->head) s->tail = NULL;
        s->busy = true;
        pthread_mutex_unlock(&s->mu);
        if (task_delay_us > 0) usleep((useconds_t)task_delay_us);
        int rc = t->fn(t->ctx);
        if (t->free_ctx) t->free_ctx(t->ctx);
        free(t);
        pthread_mutex_lock(&s->mu);
        if (rc && !s->error) {
            s->error = rc;
            snprintf(s->error_msg, sizeof s->error_msg, "%s",
                     recent_error); /* the worker's message */
        }
        recent_error[0] = 0;
        s->busy = false;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static stream *stream_new(int device) {
    stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->device = device;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (pthread_create(&s->thread, NULL, stream_worker, s)) {
        free(s);
        return NULL;
    }
    pthread_mutex_lock(&state_mu);
    s->next_all = all_streams;
    all_streams = s;
    pthread_mutex_unlock(&state_mu);
    return s;
}

/* wait for the stream's work; returns (and clears) the error of a task that failed, its
 * message becoming this thread's recent error */
static int stream_drain(stream *s) {
    pthread_mutex_lock(&s->mu);
    while (s->head || s->busy) pthread_cond_wait(&s->cv, &s->mu);
    int error = s->error;
    if (error) standin_set_error("%s", s->error_msg);
    s->error = 0;
    pthread_mutex_unlock(&s->mu);
    return error;
}

static void stream_destroy(stream *s) {
    (void)stream_drain(s); /* work still queued runs; a failure has no one left to tell */
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_mutex_lock(&state_mu);
    for (stream **p = &all_streams; *p; p = &(*p)->next_all)
        if (*p == s) {
            *p = s->next_all;
            break;
        }
    pthread_mutex_unlock(&state_mu);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

/* NULL: the current device's default stream */
static stream *resolve_stream(aclrtStream st) {
    if (st) return st;
    if (current_device < 0) return NULL;
    return default_streams[current_device];
}

aclError standin_enqueue(aclrtStream st, int (*fn)(void *), void *ctx, void (*free_ctx)(void *)) {
    stream *s = resolve_stream(st);
    if (!s) {
        standin_set_error("EE1001: [stand-in] no stream: no device is set on this thread");
        if (free_ctx) free_ctx(ctx);
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    task *t = malloc(sizeof *t);
    if (!t) {
        if (free_ctx) free_ctx(ctx);
        return ACL_ERROR_BAD_ALLOC;
    }
    *t = (task){fn, ctx, free_ctx, NULL};
    pthread_mutex_lock(&s->mu);
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return ACL_SUCCESS;
}

aclError aclrtCreateStreamWithConfig(aclrtStream *out, uint32_t priority, uint32_t flag) {
    (void)priority;
    (void)flag;
    REQUIRE_DEVICE();
    FAULT("aclrtCreateStreamWithConfig");
    if (!out) return ACL_ERROR_INVALID_PARAM;
    stream *s = stream_new(current_device);
    if (!s) return ACL_ERROR_BAD_ALLOC;
    *out = s;
    return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream st) {
    REQUIRE_INIT();
    if (!st) return ACL_ERROR_INVALID_PARAM;
    stream_destroy(st);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream st) {
    REQUIRE_INIT();
    FAULT("aclrtSynchronizeStream");
    stream *s = resolve_stream(st);
    if (!s) return ACL_ERROR_RT_CONTEXT_NULL;
    return stream_drain(s);
}

aclError aclrtStreamQuery(aclrtStream st, aclrtStreamStatus *status) {
    REQUIRE_INIT();
    stream *s = resolve_stream(st);
    if (!s || !status) return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&s->mu);
    *status = (s->head || s->busy) ? ACL_STREAM_STATUS_NOT_READY : ACL_STREAM_STATUS_COMPLETE;
    pthread_mutex_unlock(&s->mu);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
    REQUIRE_DEVICE();
    int error = 0;
    for (;;) { /* streams of this device, one at a time (the list may change meanwhile) */
        bool again = false;
        pthread_mutex_lock(&state_mu);
        stream *pick = NULL;
        for (stream *s = all_streams; s; s = s->next_all) {
            if (s->device != current_device) continue;
            pthread_mutex_lock(&s->mu);
            bool pending = s->head || s->busy || s->error;
            pthread_mutex_unlock(&s->mu);
            if (pending) {
                pick = s;
                break;
            }
        }
        pthread_mutex_unlock(&state_mu);
        if (pick) {
            int e = stream_drain(pick);
            if (e && !error) error = e;
            again = true;
        }
        if (!again) break;
    }
    return error;
}

/* ---- devices ----------------------------------------------------------------------------------
 */
aclError aclrtGetDeviceCount(uint32_t *count) {
    REQUIRE_INIT();
    if (!count) return ACL_ERROR_INVALID_PARAM;
    *count = (uint32_t)ndevices;
    return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t id) {
    REQUIRE_INIT();
    FAULT("aclrtSetDevice");
    if (id < 0 || id >= ndevices) {
        standin_set_error("EE1001: [stand-in] device id %d is out of range [0, %d)", id, ndevices);
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    pthread_mutex_lock(&state_mu);
    bool need = !default_streams[id];
    pthread_mutex_unlock(&state_mu);
    if (need) {
        stream *s = stream_new(id);
        if (!s) return ACL_ERROR_BAD_ALLOC;
        pthread_mutex_lock(&state_mu);
        if (default_streams[id]) { /* another thread won */
            pthread_mutex_unlock(&state_mu);
            stream_destroy(s);
        } else {
            default_streams[id] = s;
            pthread_mutex_unlock(&state_mu);
        }
    }
    current_device = id;
    return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t id) {
    REQUIRE_INIT();
    if (id < 0 || id >= ndevices) return ACL_ERROR_RT_INVALID_DEVICEID;
    if (current_device == id) current_device = -1;
    return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t *id) {
    REQUIRE_DEVICE();
    if (!id) return ACL_ERROR_INVALID_PARAM;
    *id = current_device;
    return ACL_SUCCESS;
}

/* contexts: one per device in the stand-in (the device's default context) */
aclError aclrtCreateContext(aclrtContext *ctx, int32_t id) {
    aclError e = aclrtSetDevice(id);
    if (e) return e;
    *ctx = (aclrtContext)(intptr_t)(id + 1);
    return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext ctx) {
    (void)ctx;
    return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext ctx) {
    if (!ctx) return ACL_ERROR_INVALID_PARAM;
    return aclrtSetDevice((int32_t)((intptr_t)ctx - 1));
}

aclError aclrtGetCurrentContext(aclrtContext *ctx) {
    REQUIRE_DEVICE();
    *ctx = (aclrtContext)(intptr_t)(current_device + 1);
    return ACL_SUCCESS;
}

/* ---- events -----------------------------------------------------------------------------------
 */
aclError aclrtCreateEventWithFlag(aclrtEvent *out, uint32_t flag) {
    REQUIRE_INIT();
    FAULT("aclrtCreateEventWithFlag");
    event *e = calloc(1, sizeof *e);
    if (!e) return ACL_ERROR_BAD_ALLOC;
    e->flags = flag;
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    *out = e;
    return ACL_SUCCESS;
}

aclError aclrtDestroyEvent(aclrtEvent ev) {
    event *e = ev;
    if (!e) return ACL_ERROR_INVALID_PARAM;
    aclrtSynchronizeEvent(ev); /* a pending record still refers to it */
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
    free(e);
    return ACL_SUCCESS;
}

typedef struct record_task {
    event *e;
    uint64_t gen;
} record_task;

static int run_record(void *ctx) {
    record_task *r = ctx;
    pthread_mutex_lock(&r->e->mu);
    if (r->e->completed < r->gen) r->e->completed = r->gen;
    r->e->stamp_ms = now_ms();
    pthread_cond_broadcast(&r->e->cv);
    pthread_mutex_unlock(&r->e->mu);
    return 0;
}

/* a task about event ev on stream st: a record (a new generation) or a wait for the
 * generation recorded so far */
static aclError queue_event_task(aclrtStream st, aclrtEvent ev, bool record, int (*run)(void *)) {
    event *e = ev;
    if (!e) return ACL_ERROR_INVALID_PARAM;
    record_task *r = malloc(sizeof *r);
    if (!r) return ACL_ERROR_BAD_ALLOC;
    pthread_mutex_lock(&e->mu);
    r->e = e;
    r->gen = record ? ++e->recorded : e->recorded;
    pthread_mutex_unlock(&e->mu);
    return standin_enqueue(st, run, r, free);
}

aclError aclrtRecordEvent(aclrtEvent ev, aclrtStream st) {
    REQUIRE_INIT();
    FAULT("aclrtRecordEvent");
    return queue_event_task(st, ev, true, run_record);
}

aclError aclrtQueryEventStatus(aclrtEvent ev, aclrtEventRecordedStatus *status) {
    event *e = ev;
    if (!e || !status) return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&e->mu);
    *status = e->completed >= e->recorded ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                          : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    pthread_mutex_unlock(&e->mu);
    return ACL_SUCCESS;
}

static void wait_generation(event *e, uint64_t gen) {
    pthread_mutex_lock(&e->mu);
    while (e->completed < gen) pthread_cond_wait(&e->cv, &e->mu);
    pthread_mutex_unlock(&e->mu);
}

aclError aclrtSynchronizeEvent(aclrtEvent ev) {
    event *e = ev;
    if (!e) return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&e->mu);
    uint64_t gen = e->recorded;
    pthread_mutex_unlock(&e->mu);
    wait_generation(e, gen);
    return ACL_SUCCESS;
}

static int run_wait(void *ctx) {
    record_task *r = ctx;
    wait_generation(r->e, r->gen);
    return 0;
}

aclError aclrtStreamWaitEvent(aclrtStream st, aclrtEvent ev) {
    REQUIRE_INIT();
    return queue_event_task(st, ev, false, run_wait); /* the work recorded so far, not later */
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent a, aclrtEvent b) {
    event *s = a, *e = b;
    if (!ms || !s || !e) return ACL_ERROR_INVALID_PARAM;
    if (!(s->flags & ACL_EVENT_TIME_LINE) || !(e->flags & ACL_EVENT_TIME_LINE)) {
        standin_set_error(
            "EE1001: [stand-in] elapsed time needs events created with ACL_EVENT_TIME_LINE");
        return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    pthread_mutex_lock(&s->mu);
    bool s_done = s->recorded > 0 && s->completed >= s->recorded;
    double t0 = s->stamp_ms;
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_lock(&e->mu);
    bool e_done = e->recorded > 0 && e->completed >= e->recorded;
    double t1 = e->stamp_ms;
    pthread_mutex_unlock(&e->mu);
    if (!s_done || !e_done) {
        standin_set_error("EE1001: [stand-in] both events must be recorded and complete");
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    }
    *ms = (float)(t1 - t0);
    return ACL_SUCCESS;
}

/* ---- memory -----------------------------------------------------------------------------------
 */
aclError aclrtMalloc(void **out, size_t size, aclrtMemMallocPolicy policy) {
    (void)policy;
    REQUIRE_DEVICE();
    if (!out || size == 0) return ACL_ERROR_INVALID_PARAM;
    int code = standin_fault("aclrtMalloc");
    pthread_mutex_lock(&state_mu);
    if (!code && used[current_device] + size > capacity) code = ACL_ERROR_RT_MEMORY_ALLOCATION;
    allocation *a = code ? NULL : malloc(sizeof *a);
    char *p = a ? malloc(size) : NULL;
    if (!code && !p) {
        free(a);
        code = ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    if (code) {
        pthread_mutex_unlock(&state_mu);
        standin_set_error("EL0004: [stand-in] Failed to allocate memory.\n"
                          "        Possible Cause: Available memory is insufficient.\n"
                          "        Solution: Close applications not in use.");
        return code;
    }
    memset(p, 0xA5, size); /* fresh device memory is not zero */
    *a = (allocation){p, size, current_device, allocations};
    allocations = a;
    used[current_device] += size;
    pthread_mutex_unlock(&state_mu);
    *out = p;
    return ACL_SUCCESS;
}

aclError aclrtFree(void *p) {
    REQUIRE_INIT();
    pthread_mutex_lock(&state_mu);
    for (allocation **at = &allocations; *at; at = &(*at)->next) {
        allocation *a = *at;
        if (a->p == p) {
            *at = a->next;
            used[a->device] -= a->n;
            pthread_mutex_unlock(&state_mu);
            free(a->p);
            free(a);
            return ACL_SUCCESS;
        }
    }
    pthread_mutex_unlock(&state_mu);
    standin_set_error("EE1001: [stand-in] aclrtFree of %p, which is not a device allocation", p);
    return ACL_ERROR_INVALID_PARAM;
}

bool standin_is_device_range(const void *p, size_t n) {
    const char *c = p;
    bool ok = false;
    pthread_mutex_lock(&state_mu);
    for (allocation *a = allocations; a; a = a->next)
        if (c >= a->p && c + n <= a->p + a->n) {
            ok = true;
            break;
        }
    pthread_mutex_unlock(&state_mu);
    return ok;
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free_, size_t *total) {
    (void)attr;
    REQUIRE_DEVICE();
    pthread_mutex_lock(&state_mu);
    *total = capacity;
    *free_ = capacity - used[current_device];
    pthread_mutex_unlock(&state_mu);
    return ACL_SUCCESS;
}

static aclError check_copy(void *dst, size_t destMax, const void *src, size_t count,
                           aclrtMemcpyKind kind) {
    if (!dst || !src || count > destMax) {
        standin_set_error("EE1001: [stand-in] memcpy of %zu bytes into %zu", count, destMax);
        return ACL_ERROR_INVALID_PARAM;
    }
    bool dst_dev = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    bool src_dev = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    if (kind > ACL_MEMCPY_DEVICE_TO_DEVICE || standin_is_device_range(dst, count) != dst_dev ||
        standin_is_device_range(src, count) != src_dev) {
        standin_set_error(
            "EE1001: [stand-in] memcpy kind %d does not match the pointers %p <- %p (%zu bytes)",
            (int)kind, dst, src, count);
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind) {
    REQUIRE_INIT();
    FAULT("aclrtMemcpy");
    aclError e = check_copy(dst, destMax, src, count, kind);
    if (e) return e;
    memmove(dst, src, count);
    return ACL_SUCCESS;
}

typedef struct copy_task {
    void *dst;
    const void *src;
    size_t n;
    int value; /* memset: >= 0 */
} copy_task;

static int run_copy(void *ctx) {
    copy_task *c = ctx;
    if (c->value >= 0)
        memset(c->dst, c->value, c->n);
    else
        memmove(c->dst, c->src, c->n);
    return 0;
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream st) {
    REQUIRE_INIT();
    FAULT("aclrtMemcpyAsync");
    aclError e = check_copy(dst, destMax, src, count, kind);
    if (e) return e;
    copy_task *c = malloc(sizeof *c);
    if (!c) return ACL_ERROR_BAD_ALLOC;
    *c = (copy_task){dst, src, count, -1};
    return standin_enqueue(st, run_copy, c, free);
}

aclError aclrtMemsetAsync(void *p, size_t maxCount, int32_t value, size_t count, aclrtStream st) {
    REQUIRE_INIT();
    FAULT("aclrtMemsetAsync");
    if (count > maxCount || !standin_is_device_range(p, count)) {
        standin_set_error("EE1001: [stand-in] memset outside a device allocation");
        return ACL_ERROR_INVALID_PARAM;
    }
    copy_task *c = malloc(sizeof *c);
    if (!c) return ACL_ERROR_BAD_ALLOC;
    *c = (copy_task){p, NULL, count, value & 0xFF};
    return standin_enqueue(st, run_copy, c, free);
}

/* ---- page-locked host memory -------------------------------------------------------------- */
aclError aclrtMallocHost(void **out, size_t size) {
    REQUIRE_INIT();
    FAULT("aclrtMallocHost");
    if (!out || size == 0) {
        standin_set_error("EE1001: [stand-in] aclrtMallocHost: size must not be 0");
        return ACL_ERROR_INVALID_PARAM;
    }
    allocation *a = malloc(sizeof *a);
    void *p = NULL;
    if (!a || posix_memalign(&p, 64, size)) { /* CANN: 64-byte aligned */
        free(a);
        standin_set_error("EL0004: [stand-in] Failed to allocate host memory.");
        return ACL_ERROR_BAD_ALLOC;
    }
    pthread_mutex_lock(&state_mu);
    *a = (allocation){p, size, -1, host_allocations};
    host_allocations = a;
    pthread_mutex_unlock(&state_mu);
    *out = p;
    return ACL_SUCCESS;
}

aclError aclrtFreeHost(void *p) {
    REQUIRE_INIT();
    pthread_mutex_lock(&state_mu);
    for (allocation **at = &host_allocations; *at; at = &(*at)->next) {
        allocation *a = *at;
        if (a->p == p) {
            *at = a->next;
            pthread_mutex_unlock(&state_mu);
            free(a->p);
            free(a);
            return ACL_SUCCESS;
        }
    }
    pthread_mutex_unlock(&state_mu);
    standin_set_error(
        "EE1001: [stand-in] aclrtFreeHost of %p, which aclrtMallocHost did not return", p);
    return ACL_ERROR_INVALID_PARAM;
}

/* ---- peer access and device figures (every stand-in device can reach every other) -------- */
aclError aclrtDeviceCanAccessPeer(int32_t *can, int32_t device, int32_t peer) {
    REQUIRE_INIT();
    if (!can || device < 0 || device >= ndevices || peer < 0 || peer >= ndevices ||
        device == peer) {
        standin_set_error("EE1001: [stand-in] aclrtDeviceCanAccessPeer: devices %d and %d must be "
                          "two different ones of [0, %d)",
                          device, peer, ndevices);
        return ACL_ERROR_INVALID_PARAM;
    }
    *can = 1;
    return ACL_SUCCESS;
}

aclError aclrtDeviceEnablePeerAccess(int32_t peer, uint32_t flags) {
    REQUIRE_DEVICE();
    FAULT("aclrtDeviceEnablePeerAccess");
    if (flags != 0 || peer < 0 || peer >= ndevices || peer == current_device) {
        standin_set_error("EE1001: [stand-in] aclrtDeviceEnablePeerAccess: the peer device %d must "
                          "be another device of [0, %d) than the current %d, and flags 0",
                          peer, ndevices, current_device);
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&state_mu);
    peer_enabled[current_device][peer] = true;
    pthread_mutex_unlock(&state_mu);
    return ACL_SUCCESS;
}

aclError aclGetDeviceCapability(uint32_t device, aclDeviceInfo info, int64_t *value) {
    REQUIRE_INIT();
    if (!value || device >= (uint32_t)ndevices) return ACL_ERROR_INVALID_PARAM;
    switch (info) {
    case ACL_DEVICE_INFO_AI_CORE_NUM:
        *value = env_long("ASCEND_STANDIN_AI_CORES", 24);
        return ACL_SUCCESS;
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM:
        *value = 2 * env_long("ASCEND_STANDIN_AI_CORES", 24);
        return ACL_SUCCESS;
    case ACL_DEVICE_INFO_L2_SIZE:
        *value = (int64_t)192 << 20;
        return ACL_SUCCESS;
    default:
        standin_set_error("EE1001: [stand-in] aclGetDeviceCapability: unknown figure %d",
                          (int)info);
        return ACL_ERROR_INVALID_PARAM;
    }
}
