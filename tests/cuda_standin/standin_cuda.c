/* standin_cuda.c: a stand-in for the NVIDIA driver (libcuda.so.1) for the CUDA module's tests on
 * machines without a GPU. A test double, not NVIDIA software: the driver calls of
 * backends/cuda/cuda_abi.h over host memory, with the driver's checks that catch a module's
 * mistakes (no current context, a copy or memset outside any allocation, freeing an unknown
 * pointer, device memory running out, a kernel name the image lacks) answered with the driver's
 * status codes. Streams run their work as it is queued; kernels are the module's own sources
 * compiled for the host (standin_kernel.h), run block by block, thread by thread.
 *
 * Settings (read at cuInit): MT_CUDA_STANDIN_DEVICES (default 2; 0: no device),
 * MT_CUDA_STANDIN_MEMORY (bytes per device, default 1 GiB). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_abi.h"
#include "standin_dims.h"

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
};

__thread ck_dim3 threadIdx, blockIdx, blockDim, gridDim;

struct CUctx_st {
    int device;
    bool peers[MAX_DEVICES];
};
struct CUstream_st {
    int device;
};
struct CUevent_st {
    bool timing, recorded;
    double t;
};
struct CUmod_st {
    int device;
};
struct CUfunc_st {
    const char *name;
    standin_thunk thunk;
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

void standin_register_kernel(const char *name, standin_thunk thunk) {
    if (nkernels < MAX_KERNELS) kernels[nkernels++] = (struct CUfunc_st){name, thunk};
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

EXPORT CUresult cuCtxSynchronize(void) {
    NEED_CTX();
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

static CUresult release(uintptr_t p, int device) {
    pthread_mutex_lock(&mu);
    CUresult e = ERR_INVALID_VALUE;
    for (alloc **pp = &allocs; *pp; pp = &(*pp)->next)
        if ((*pp)->p == p && ((*pp)->device == device || (device >= 0 && (*pp)->device >= 0))) {
            alloc *a = *pp;
            *pp = a->next;
            if (a->device >= 0) used[a->device] -= a->n;
            free((void *)a->p);
            free(a);
            e = CUDA_SUCCESS;
            break;
        }
    pthread_mutex_unlock(&mu);
    return e;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr p) {
    NEED_CTX();
    return release((uintptr_t)p, current->device);
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
    return release((uintptr_t)p, -1);
}

/* device memory [p, p + n) lies in one allocation of some device */
static bool on_device(uintptr_t p, size_t n) {
    pthread_mutex_lock(&mu);
    bool ok = false;
    for (int d = 0; d < ndev && !ok; d++) ok = find(p, n, d) != NULL;
    pthread_mutex_unlock(&mu);
    return ok;
}

static CUresult check_stream(CUstream s) {
    if (!current) return ERR_INVALID_CONTEXT;
    return !s || s->device == current->device ? CUDA_SUCCESS : ERR_INVALID_HANDLE;
}

#define NEED_STREAM(s)                                                                             \
    do {                                                                                           \
        NEED_INIT();                                                                               \
        CUresult e_ = check_stream(s);                                                             \
        if (e_ != CUDA_SUCCESS) return e_;                                                         \
    } while (0)

EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
    NEED_STREAM(s);
    if (!on_device((uintptr_t)dst, n)) return ERR_INVALID_VALUE;
    memcpy((void *)(uintptr_t)dst, src, n);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) {
    NEED_STREAM(s);
    if (!on_device((uintptr_t)src, n)) return ERR_INVALID_VALUE;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
    NEED_STREAM(s);
    if (!on_device((uintptr_t)dst, n) || !on_device((uintptr_t)src, n)) return ERR_INVALID_VALUE;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

static CUresult memset_n(CUdeviceptr dst, uint32_t v, size_t n, size_t unit, CUstream s) {
    NEED_STREAM(s);
    if (n > SIZE_MAX / unit || !on_device((uintptr_t)dst, n * unit)) return ERR_INVALID_VALUE;
    char *p = (char *)(uintptr_t)dst;
    for (size_t i = 0; i < n; i++) memcpy(p + i * unit, &v, unit); /* little-endian units */
    return CUDA_SUCCESS;
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

/* ---- streams and events: work runs as it is queued ------------------------------------------- */

EXPORT CUresult cuStreamCreateWithPriority(CUstream *s, unsigned int flags, int priority) {
    NEED_CTX();
    (void)flags;
    (void)priority;
    struct CUstream_st *st = malloc(sizeof *st);
    if (!st) return CUDA_ERROR_OUT_OF_MEMORY;
    st->device = current->device;
    *s = st;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamSynchronize(CUstream s) {
    NEED_STREAM(s);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamQuery(CUstream s) {
    NEED_STREAM(s);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags) {
    NEED_STREAM(s);
    return e && !flags ? CUDA_SUCCESS : ERR_INVALID_HANDLE;
}

EXPORT CUresult cuEventCreate(CUevent *e, unsigned int flags) {
    NEED_CTX();
    struct CUevent_st *ev = calloc(1, sizeof *ev);
    if (!ev) return CUDA_ERROR_OUT_OF_MEMORY;
    ev->timing = !(flags & CU_EVENT_DISABLE_TIMING);
    *e = ev;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventDestroy_v2(CUevent e) {
    if (!e) return ERR_INVALID_HANDLE;
    free(e);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventRecord(CUevent e, CUstream s) {
    NEED_STREAM(s);
    if (!e) return ERR_INVALID_HANDLE;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    e->t = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
    e->recorded = true;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventQuery(CUevent e) {
    return e ? CUDA_SUCCESS : ERR_INVALID_HANDLE;
}

EXPORT CUresult cuEventSynchronize(CUevent e) {
    return e ? CUDA_SUCCESS : ERR_INVALID_HANDLE;
}

EXPORT CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
    if (!a || !b || !a->timing || !b->timing || !a->recorded || !b->recorded)
        return ERR_INVALID_HANDLE;
    *ms = (float)(b->t - a->t);
    return CUDA_SUCCESS;
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

EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                               unsigned int bx, unsigned int by, unsigned int bz,
                               unsigned int shared_bytes, CUstream s, void **params, void **extra) {
    NEED_STREAM(s);
    if (!f || !params || extra) return ERR_INVALID_VALUE;
    if (!gx || !gy || !gz || !bx || !by || !bz || gy > 65535 || gz > 65535)
        return ERR_INVALID_VALUE;
    if ((uint64_t)bx * by * bz > 1024 || shared_bytes > 48 * 1024)
        return ERR_LAUNCH_OUT_OF_RESOURCES;
    gridDim = (ck_dim3){gx, gy, gz};
    blockDim = (ck_dim3){bx, by, bz};
    for (unsigned z = 0; z < gz; z++)
        for (unsigned y = 0; y < gy; y++)
            for (unsigned x = 0; x < gx; x++) {
                blockIdx = (ck_dim3){x, y, z};
                for (unsigned tz = 0; tz < bz; tz++)
                    for (unsigned ty = 0; ty < by; ty++)
                        for (unsigned tx = 0; tx < bx; tx++) {
                            threadIdx = (ck_dim3){tx, ty, tz};
                            f->thunk(params);
                        }
            }
    return CUDA_SUCCESS;
}
