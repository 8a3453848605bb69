/* standin_cuda.c: a stand-in for the NVIDIA driver (libcuda.so.1) for the CUDA module's tests on
 * machines without a GPU. A test double, not NVIDIA software: the driver calls of
 * backends/cuda/cuda_abi.h over host memory, with the driver's checks that catch a module's
 * mistakes (no current context, a copy or memset outside any allocation, freeing an unknown
 * pointer, device memory running out, a kernel name the image lacks) answered with the driver's
 * status codes. Kernels are the module's own sources compiled for the host (standin_kernel.h),
 * run block by block, thread by thread.
 *
 * Work runs as a GPU runs it, not at the call (standin_queue.h): launches, copies, memsets, event
 * records and waits are queued on their stream and run later, in order, by the stream's worker
 * thread, while the host goes on. The host waits only where the driver documents it: the
 * synchronize calls, a copy into pageable host memory (it returns once done), a copy from
 * pageable memory (staged at the call, so the caller may reuse it; the device's write still
 * waits its turn). The legacy default stream (0, CU_STREAM_LEGACY) waits for every blocking
 * stream and they for it; CU_STREAM_NON_BLOCKING streams do not. Queries answer
 * CUDA_ERROR_NOT_READY while work is pending, elapsed times too. cuMemFree and cuMemFreeHost
 * "may" synchronize, the driver says, so nothing may count on it: freeing memory that queued work
 * still names is reported as an illegal address (sticky, as a GPU fault is). A copy or memset
 * that reaches freed memory when it runs is reported the same way.
 *
 * Settings (read at cuInit): MT_CUDA_STANDIN_DEVICES (default 2; 0: no device),
 * MT_CUDA_STANDIN_MEMORY (bytes per device, default 1 GiB), MINDTORCH_STANDIN_DELAY_US
 * (microseconds every queued operation sleeps before it runs, default 0: with it the host, and
 * the other streams, get well ahead of the work, so a missing synchronisation shows as a wrong
 * value or a reported fault instead of passing by luck). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdalign.h>

#include "cuda_abi.h"
#include "standin_dims.h"
#include "standin_queue.h"

#define EXPORT __attribute__((visibility("default")))

enum {
    ERR_INVALID_VALUE = 1,
    ERR_INVALID_CONTEXT = 201,
    ERR_INVALID_HANDLE = 400,
    ERR_NOT_FOUND = 500,
    ERR_PEER_ALREADY = 704,
    ERR_LAUNCH_OUT_OF_RESOURCES = 701,
    MAX_DEVICES = 16,
    MAX_KERNELS = 64,
    CU_STREAM_LEGACY = 1,
    CU_STREAM_PER_THREAD = 2,
};

__thread ck_dim3 threadIdx, blockIdx, blockDim, gridDim;

struct CUctx_st {
    int device;
    bool peers[MAX_DEVICES];
};
struct CUmod_st {
    int device;
};
struct CUfunc_st {
    const char *name;
    standin_thunk thunk;
    size_t param_bytes; /* the one parameter's: a launch copies them */
};

typedef struct alloc {
    uintptr_t p;
    size_t n;
    int device; /* -1: page-locked host memory */
    struct alloc *next;
} alloc;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static bool initialised;
static int ndev;
static size_t total_mem;
static size_t used[MAX_DEVICES];
static struct CUctx_st ctxs[MAX_DEVICES];
static struct CUmod_st modules[MAX_DEVICES];
static alloc *allocs;
static struct CUfunc_st kernels[MAX_KERNELS];
static int nkernels;
static __thread struct CUctx_st *current;

void standin_register_kernel(const char *name, standin_thunk thunk, size_t param_bytes) {
    if (nkernels < MAX_KERNELS) kernels[nkernels++] = (struct CUfunc_st){name, thunk, param_bytes};
}

static size_t env_size(const char *name, size_t dflt) {
    const char *v = getenv(name);
    return v && *v ? (size_t)strtoull(v, NULL, 10) : dflt;
}

EXPORT CUresult cuInit(unsigned int flags) {
    if (flags) return ERR_INVALID_VALUE;
    pthread_mutex_lock(&mu);
    if (!initialised) {
        ndev = (int)env_size("MT_CUDA_STANDIN_DEVICES", 2);
        if (ndev > MAX_DEVICES) ndev = MAX_DEVICES;
        total_mem = env_size("MT_CUDA_STANDIN_MEMORY", (size_t)1 << 30);
        for (int i = 0; i < MAX_DEVICES; i++) ctxs[i].device = modules[i].device = i;
        sq_init();
        initialised = true;
    }
    pthread_mutex_unlock(&mu);
    return ndev == 0 ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}

EXPORT CUresult cuDriverGetVersion(int *v) {
    *v = 13000;
    return CUDA_SUCCESS;
}

static const struct {
    CUresult code;
    const char *name, *text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {ERR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {ERR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {ERR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {ERR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {ERR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {ERR_PEER_ALREADY, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled"},
    {SQ_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
};

static CUresult describe(CUresult e, const char **out, bool name) {
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == e) {
            *out = name ? errors[i].name : errors[i].text;
            return CUDA_SUCCESS;
        }
    *out = NULL;
    return ERR_INVALID_VALUE;
}

EXPORT CUresult cuGetErrorName(CUresult e, const char **name) {
    return describe(e, name, true);
}

EXPORT CUresult cuGetErrorString(CUresult e, const char **text) {
    return describe(e, text, false);
}

#define NEED_INIT()                                                                                \
    do {                                                                                           \
        if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;                                       \
    } while (0)
#define NEED_CTX()                                                                                 \
    do {                                                                                           \
        NEED_INIT();                                                                               \
        if (!current) return ERR_INVALID_CONTEXT;                                                  \
    } while (0)

static CUresult check_dev(CUdevice d) {
    if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
    return d >= 0 && d < ndev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

EXPORT CUresult cuDeviceGetCount(int *n) {
    NEED_INIT();
    *n = ndev;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    CUresult e = check_dev(ordinal);
    if (e == CUDA_SUCCESS) *d = ordinal;
    return e;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    CUresult e = check_dev(d);
    if (e == CUDA_SUCCESS && len > 0) snprintf(name, (size_t)len, "mindtorch CUDA stand-in");
    return e;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
    CUresult e = check_dev(d);
    if (e == CUDA_SUCCESS) *bytes = total_mem;
    return e;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, int attribute, CUdevice d) {
    CUresult e = check_dev(d);
    if (e != CUDA_SUCCESS) return e;
    switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        *v = 4;
        return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *v = 9;
        return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *v = 0;
        return CUDA_SUCCESS;
    default:
        return ERR_INVALID_VALUE;
    }
}

EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice peer) {
    CUresult e = check_dev(d);
    if (e == CUDA_SUCCESS) e = check_dev(peer);
    if (e == CUDA_SUCCESS) *can = d != peer;
    return e;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice d) {
    CUresult e = check_dev(d);
    if (e == CUDA_SUCCESS) *ctx = &ctxs[d];
    return e;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
    NEED_INIT();
    current = ctx;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
    NEED_CTX();
    if (flags || !peer || peer == current) return ERR_INVALID_VALUE;
    if (current->peers[peer->device]) return ERR_PEER_ALREADY;
    current->peers[peer->device] = true;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) {
    *least = 0;
    *greatest = -5;
    return CUDA_SUCCESS;
}

/* ---- memory ---------------------------------------------------------------------------------- */

static CUresult record(void *p, size_t n, int device) {
    alloc *a = malloc(sizeof *a);
    if (!a) return CUDA_ERROR_OUT_OF_MEMORY;
    *a = (alloc){(uintptr_t)p, n, device, allocs};
    allocs = a;
    return CUDA_SUCCESS;
}

/* the allocation of `device` (-1: pinned host) that holds [p, p + n), or NULL (mu held) */
static alloc *find(uintptr_t p, size_t n, int device) {
    for (alloc *a = allocs; a; a = a->next)
        if (a->device == device && p >= a->p && p - a->p <= a->n && n <= a->n - (p - a->p))
            return a;
    return NULL;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    NEED_CTX();
    if (n == 0) return ERR_INVALID_VALUE;
    int d = current->device;
    pthread_mutex_lock(&mu);
    CUresult e = CUDA_SUCCESS;
    void *mem = NULL;
    if (n > total_mem - used[d] || !(mem = aligned_alloc(256, (n + 255) / 256 * 256)))
        e = CUDA_ERROR_OUT_OF_MEMORY;
    else if ((e = record(mem, n, d)) == CUDA_SUCCESS) {
        used[d] += n;
        *p = (CUdeviceptr)(uintptr_t)mem;
    } else
        free(mem);
    pthread_mutex_unlock(&mu);
    return e;
}

/* The driver documents that cuMemFree and cuMemFreeHost *may* synchronize: a caller cannot count
 * on it. Memory that queued work still names is a fault here (the work would read freed memory),
 * reported as an illegal address; the stand-in then waits for the work before it frees. */
static CUresult release(uintptr_t p, int device, const char *call) {
    pthread_mutex_lock(&mu);
    alloc *a = NULL;
    for (alloc *b = allocs; b && !a; b = b->next)
        if (b->p == p && (b->device == device || (device >= 0 && b->device >= 0))) a = b;
    size_t n = a ? a->n : 0;
    pthread_mutex_unlock(&mu);
    if (!a) return ERR_INVALID_VALUE;
    const char *user = sq_user_of(p, n);
    if (user) {
        sq_fail(SQ_ILLEGAL_ADDRESS, "%s(%p) while a queued %s still uses that memory", call,
                (void *)p, user);
        sq_wait_device(-1);
    }
    pthread_mutex_lock(&mu);
    for (alloc **pp = &allocs; *pp; pp = &(*pp)->next)
        if (*pp == a) {
            *pp = a->next;
            if (a->device >= 0) used[a->device] -= a->n;
            free((void *)a->p);
            free(a);
            break;
        }
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr p) {
    NEED_CTX();
    return release((uintptr_t)p, current->device, "cuMemFree");
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total_b) {
    NEED_CTX();
    pthread_mutex_lock(&mu);
    *free_b = total_mem - used[current->device];
    *total_b = total_mem;
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAllocHost_v2(void **p, size_t n) {
    NEED_CTX();
    void *mem = malloc(n ? n : 1);
    if (!mem) return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&mu);
    CUresult e = record(mem, n, -1);
    pthread_mutex_unlock(&mu);
    if (e != CUDA_SUCCESS)
        free(mem);
    else
        *p = mem;
    return e;
}

EXPORT CUresult cuMemFreeHost(void *p) {
    NEED_INIT();
    return release((uintptr_t)p, -1, "cuMemFreeHost");
}

/* device memory [p, p + n) lies in one allocation of some device */
static bool on_device(uintptr_t p, size_t n) {
    pthread_mutex_lock(&mu);
    bool ok = false;
    for (int d = 0; d < ndev && !ok; d++) ok = find(p, n, d) != NULL;
    pthread_mutex_unlock(&mu);
    return ok;
}

/* host memory [p, p + n) is page-locked (cuMemAllocHost's) */
static bool pinned(const void *p, size_t n) {
    pthread_mutex_lock(&mu);
    bool ok = find((uintptr_t)p, n, -1) != NULL;
    pthread_mutex_unlock(&mu);
    return ok;
}

/* ---- streams --------------------------------------------------------------------------------- */

static __thread sq_stream *per_thread[MAX_DEVICES];

/* the queue of a stream handle (0 and CU_STREAM_LEGACY: the legacy default stream of the current
 * context; CU_STREAM_PER_THREAD: this thread's), or NULL with *e set */
static sq_stream *resolve(CUstream s, CUresult *e) {
    *e = CUDA_SUCCESS;
    if (!initialised) return *e = CUDA_ERROR_NOT_INITIALIZED, NULL;
    if (!current) return *e = ERR_INVALID_CONTEXT, NULL;
    int d = current->device;
    sq_stream *q = (uintptr_t)s == CU_STREAM_PER_THREAD ? per_thread[d]
                   : (uintptr_t)s <= CU_STREAM_LEGACY   ? sq_legacy(d)
                                                        : s;
    if (!q && (uintptr_t)s == CU_STREAM_PER_THREAD) q = per_thread[d] = sq_stream_new(d, true);
    if (!q) return *e = CUDA_ERROR_OUT_OF_MEMORY, NULL;
    if (sq_stream_device(q) != d) return *e = ERR_INVALID_HANDLE, NULL;
    return q;
}

/* q: the stream's queue; work is refused once a fault was found, as the driver refuses it */
#define NEED_STREAM(q, s)                                                                          \
    CUresult e_;                                                                                   \
    sq_stream *q = resolve(s, &e_);                                                                \
    if (!q) return e_;                                                                             \
    if ((e_ = sq_error()) != CUDA_SUCCESS) return e_

/* ---- copies and memsets: queued, except where the driver waits for them ---------------------- */

typedef struct copy_arg {
    uintptr_t dst, src;
    size_t n;
    int kind;    /* which ends are device memory, checked again when it runs */
    bool staged; /* src is the stand-in's copy of pageable memory, freed once it ran */
} copy_arg;

enum { TO_DEVICE = 1, FROM_DEVICE = 2 };

static void run_copy(void *arg) {
    copy_arg *c = arg;
    if (((c->kind & TO_DEVICE) && !on_device(c->dst, c->n)) ||
        ((c->kind & FROM_DEVICE) && !on_device(c->src, c->n)))
        sq_fail(SQ_ILLEGAL_ADDRESS, "a queued copy of %zu bytes reached memory freed since", c->n);
    else
        memmove((void *)c->dst, (const void *)c->src, c->n);
    if (c->staged) free((void *)c->src);
}

static CUresult copy(sq_stream *q, copy_arg c, const char *what, uint64_t *ticket) {
    if (((c.kind & TO_DEVICE) && !on_device(c.dst, c.n)) ||
        ((c.kind & FROM_DEVICE) && !on_device(c.src, c.n)))
        return ERR_INVALID_VALUE;
    return sq_enqueue(q, run_copy, &c, sizeof c, what, ticket);
}

/* from pageable memory the driver stages the bytes before it returns, so the caller may reuse
 * them at once; the device's copy still waits for the stream's earlier work */
EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
    NEED_STREAM(q, s);
    copy_arg c = {(uintptr_t)dst, (uintptr_t)src, n, TO_DEVICE, false};
    if (n && !pinned(src, n)) {
        void *stage = malloc(n);
        if (!stage) return CUDA_ERROR_OUT_OF_MEMORY;
        memcpy(stage, src, n);
        c.src = (uintptr_t)stage;
        c.staged = true;
    }
    CUresult e = copy(q, c, "cuMemcpyHtoDAsync", NULL);
    if (e != CUDA_SUCCESS && c.staged) free((void *)c.src);
    return e;
}

/* into pageable memory the driver returns once the copy is done; into pinned memory, at once */
EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) {
    NEED_STREAM(q, s);
    uint64_t ticket = 0;
    CUresult e = copy(q, (copy_arg){(uintptr_t)dst, (uintptr_t)src, n, FROM_DEVICE, false},
                      "cuMemcpyDtoHAsync", &ticket);
    if (e == CUDA_SUCCESS && !pinned(dst, n)) sq_wait(q, ticket);
    return e;
}

EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
    NEED_STREAM(q, s);
    return copy(q, (copy_arg){(uintptr_t)dst, (uintptr_t)src, n, TO_DEVICE | FROM_DEVICE, false},
                "cuMemcpyDtoDAsync", NULL);
}

typedef struct memset_arg {
    uintptr_t dst;
    size_t n, unit;
    uint32_t v;
} memset_arg;

static void run_memset(void *arg) {
    memset_arg *m = arg;
    if (!on_device(m->dst, m->n * m->unit)) {
        sq_fail(SQ_ILLEGAL_ADDRESS, "a queued memset of %zu bytes reached memory freed since",
                m->n * m->unit);
        return;
    }
    char *p = (char *)m->dst;
    for (size_t i = 0; i < m->n; i++) memcpy(p + i * m->unit, &m->v, m->unit); /* little-endian */
}

static CUresult memset_n(CUdeviceptr dst, uint32_t v, size_t n, size_t unit, CUstream s) {
    NEED_STREAM(q, s);
    if (n > SIZE_MAX / unit || !on_device((uintptr_t)dst, n * unit)) return ERR_INVALID_VALUE;
    return sq_enqueue(q, run_memset, &(memset_arg){(uintptr_t)dst, n, unit, v}, sizeof(memset_arg),
                      "cuMemsetAsync", NULL);
}

EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s) {
    return memset_n(dst, v, n, 1, s);
}

EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, CUstream s) {
    return memset_n(dst, v, n, 2, s);
}

EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s) {
    return memset_n(dst, v, n, 4, s);
}

/* ---- streams and events ---------------------------------------------------------------------- */

EXPORT CUresult cuStreamCreateWithPriority(CUstream *s, unsigned int flags, int priority) {
    NEED_CTX();
    (void)priority;
    if (flags & ~(unsigned)CU_STREAM_NON_BLOCKING) return ERR_INVALID_VALUE;
    sq_stream *q = sq_stream_new(current->device, !(flags & CU_STREAM_NON_BLOCKING));
    if (!q) return CUDA_ERROR_OUT_OF_MEMORY;
    *s = q;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSynchronize(void) {
    NEED_CTX();
    sq_wait_device(current->device);
    return sq_error();
}

EXPORT CUresult cuStreamSynchronize(CUstream s) {
    NEED_STREAM(q, s);
    sq_wait(q, 0);
    return sq_error();
}

EXPORT CUresult cuStreamQuery(CUstream s) {
    NEED_STREAM(q, s);
    return sq_idle(q) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags) {
    NEED_STREAM(q, s);
    if (!e || flags) return ERR_INVALID_HANDLE;
    return sq_stream_wait_event(q, e);
}

EXPORT CUresult cuEventCreate(CUevent *e, unsigned int flags) {
    NEED_CTX();
    return sq_event_new(e, !(flags & CU_EVENT_DISABLE_TIMING));
}

EXPORT CUresult cuEventDestroy_v2(CUevent e) {
    if (!e) return ERR_INVALID_HANDLE;
    sq_event_destroy(e);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventRecord(CUevent e, CUstream s) {
    NEED_STREAM(q, s);
    if (!e) return ERR_INVALID_HANDLE;
    return sq_event_record(e, q);
}

EXPORT CUresult cuEventQuery(CUevent e) {
    if (!e) return ERR_INVALID_HANDLE;
    CUresult err = sq_error();
    return err ? err : sq_event_done(e) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

EXPORT CUresult cuEventSynchronize(CUevent e) {
    if (!e) return ERR_INVALID_HANDLE;
    sq_event_wait(e);
    return sq_error();
}

EXPORT CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
    if (!a || !b) return ERR_INVALID_HANDLE;
    return sq_event_elapsed(ms, a, b);
}

/* ---- modules and launches -------------------------------------------------------------------- */

/* the image is the module's fat binary (or empty): its kernels are the host-compiled ones */
EXPORT CUresult cuModuleLoadData(CUmodule *m, const void *image) {
    NEED_CTX();
    if (!image) return ERR_INVALID_VALUE;
    *m = &modules[current->device];
    return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
    NEED_CTX();
    if (!m) return ERR_INVALID_HANDLE;
    for (int i = 0; i < nkernels; i++)
        if (!strcmp(kernels[i].name, name)) {
            *f = &kernels[i];
            return CUDA_SUCCESS;
        }
    return ERR_NOT_FOUND;
}

/* a launch as queued: the driver copies the parameters' values at the launch, so the caller's
 * may go as soon as it returns */
typedef struct launch {
    CUfunction f;
    ck_dim3 grid, block;
    alignas(16) unsigned char params[];
} launch;

static void run_launch(void *arg) {
    launch *l = arg;
    void *params[1] = {l->params};
    gridDim = l->grid;
    blockDim = l->block;
    for (unsigned z = 0; z < l->grid.z; z++)
        for (unsigned y = 0; y < l->grid.y; y++)
            for (unsigned x = 0; x < l->grid.x; x++) {
                blockIdx = (ck_dim3){x, y, z};
                for (unsigned tz = 0; tz < l->block.z; tz++)
                    for (unsigned ty = 0; ty < l->block.y; ty++)
                        for (unsigned tx = 0; tx < l->block.x; tx++) {
                            threadIdx = (ck_dim3){tx, ty, tz};
                            l->f->thunk(params);
                        }
            }
}

EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                               unsigned int bx, unsigned int by, unsigned int bz,
                               unsigned int shared_bytes, CUstream s, void **params, void **extra) {
    NEED_STREAM(q, s);
    if (!f || !params || extra) return ERR_INVALID_VALUE;
    if (!gx || !gy || !gz || !bx || !by || !bz || gy > 65535 || gz > 65535)
        return ERR_INVALID_VALUE;
    if ((uint64_t)bx * by * bz > 1024 || shared_bytes > 48 * 1024)
        return ERR_LAUNCH_OUT_OF_RESOURCES;
    size_t n = sizeof(launch) + f->param_bytes;
    launch *l = malloc(n);
    if (!l) return CUDA_ERROR_OUT_OF_MEMORY;
    l->f = f;
    l->grid = (ck_dim3){gx, gy, gz};
    l->block = (ck_dim3){bx, by, bz};
    memcpy(l->params, params[0], f->param_bytes);
    CUresult e = sq_enqueue(q, run_launch, l, n, f->name, NULL);
    free(l);
    return e;
}

/* ---- library work (the cuBLAS and cuSOLVER stand-ins) ---------------------------------------- */

/* run(a copy of arg's n bytes) queued on stream s, as a library's kernels are: not a driver
 * call, the stand-in libraries' way in (they find it with dlsym) */
EXPORT CUresult standin_launch_host(CUstream s, void (*run)(void *), const void *arg, size_t n,
                                    const char *what) {
    NEED_STREAM(q, s);
    return sq_enqueue(q, run, arg, n, what, NULL);
}
