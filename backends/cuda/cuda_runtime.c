/* cuda_runtime.c: opening the NVIDIA driver (libcuda.so.1) with dlopen, initialising it once and
 * lazily, devices and their primary contexts, and driver errors. Nothing here links CUDA: without
 * a driver the module still loads and says why CUDA is not available, in PyTorch's words.
 *
 * Why the driver API and not the runtime (libcudart): the runtime cannot be opened at run time
 * by a library that must load on machines without it, and the driver's primary contexts are the
 * ones the runtime itself uses, so cuBLAS and cuDNN (opened later the same way) share them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel_stream.h"
#include "cuda_driver.h"
#include "mt_tensor.h"

cuda_api cuda_drv;
bool cuda_launch_blocking;

/* PyTorch's words for a machine without a driver, and for a driver without devices */
#define NO_DRIVER                                                                                  \
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "         \
    "installed a driver from http://www.nvidia.com/Download/index.aspx"
#define NO_DEVICE "No CUDA GPUs are available"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static bool available;
static char why_not[1024] = "not probed";
static int device_count;
static _Atomic bool used; /* cuda_ensure succeeded once */
static void *lib;
static CUcontext contexts[ACCEL_MAX_DEVICES];
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

static __thread int thread_device = -1; /* torch.cuda.set_device on this thread; -1: device 0 */
static __thread int thread_bound = -1;  /* the device whose context is current on this thread */

void *cuda_open_library(const char *env_var, const char *const *names, size_t n) {
    const char *env = getenv(env_var);
    if (env && *env) return dlopen(env, RTLD_NOW | RTLD_LOCAL);
    void *h = NULL;
    for (size_t i = 0; i < n && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    return h;
}

/* MINDTORCH_CUDA_DRIVER names another driver library (the test stand-in), and then only it */
static bool load_symbols(void) {
    const char *env = getenv("MINDTORCH_CUDA_DRIVER");
    const char *path = env && *env ? env : "libcuda.so.1";
    if (!(lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        if (env && *env)
            snprintf(why_not, sizeof why_not, "cannot open MINDTORCH_CUDA_DRIVER=%s: %s", env,
                     dlerror());
        else
            snprintf(why_not, sizeof why_not, "%s", NO_DRIVER);
        return false;
    }
#define X(ret, name, params)                                                                       \
    if (!(*(void **)&cuda_drv.name = dlsym(lib, #name))) {                                         \
        snprintf(why_not, sizeof why_not, "the NVIDIA driver (%s) has no %s: it is too old", path, \
                 #name);                                                                           \
        return false;                                                                              \
    }
    MT_CUDA_DRIVER_FUNCS(X)
#undef X
    return true;
}

static void finalize(void) {
    if (available) accel_sync_default_streams(&cuda_driver);
}

static void init(void) {
    if (!load_symbols()) return;
    CUresult e = cuda_drv.cuInit(0);
    if (e == CUDA_ERROR_NO_DEVICE) {
        snprintf(why_not, sizeof why_not, "%s", NO_DEVICE);
        return;
    }
    if (e == CUDA_ERROR_INSUFFICIENT_DRIVER) {
        snprintf(why_not, sizeof why_not,
                 "The NVIDIA driver on your system is too old (cuInit: CUDA driver version is "
                 "insufficient for CUDA runtime version)");
        return;
    }
    if (e != CUDA_SUCCESS) {
        const char *s = NULL;
        cuda_drv.cuGetErrorString(e, &s);
        snprintf(why_not, sizeof why_not, "cuInit failed: %s (error %d)", s ? s : "unknown error",
                 e);
        return;
    }
    int n = 0;
    e = cuda_drv.cuDeviceGetCount(&n);
    if (e != CUDA_SUCCESS || n <= 0) {
        snprintf(why_not, sizeof why_not, "%s", NO_DEVICE);
        return;
    }
    device_count = n > ACCEL_MAX_DEVICES ? ACCEL_MAX_DEVICES : n;
    const char *blocking = getenv("CUDA_LAUNCH_BLOCKING");
    cuda_launch_blocking = blocking && strcmp(blocking, "1") == 0;
    available = true;
    why_not[0] = 0;
    atexit(finalize);
}

bool cuda_available(const char **why) {
    pthread_once(&init_once, init);
    if (why) *why = why_not;
    return available;
}

int cuda_ensure(void) {
    if (cuda_available(NULL)) {
        atomic_store(&used, true);
        return 0;
    }
    return mt_error(MT_ERR_RUNTIME, "%s", why_not);
}

int cuda_device_count(void) {
    return cuda_available(NULL) ? device_count : 0;
}

bool cuda_initialized(void) {
    return atomic_load(&used);
}

int cuda_launched(CUstream s, const char *what) {
    if (!cuda_launch_blocking) return 0;
    CUresult e = cuda_drv.cuStreamSynchronize(s);
    return e == CUDA_SUCCESS ? 0 : cuda_error(e, what);
}

int cuda_check_device(int device) {
    if (cuda_ensure()) return -1;
    if (device < 0 || device >= device_count)
        return mt_error(MT_ERR_RUNTIME, "CUDA error: invalid device ordinal");
    return 0;
}

int cuda_context(int device, CUcontext *ctx) {
    if (cuda_check_device(device)) return -1;
    pthread_mutex_lock(&ctx_lock);
    CUresult e = CUDA_SUCCESS;
    if (!contexts[device]) {
        CUdevice d = 0;
        e = cuda_drv.cuDeviceGet(&d, device);
        if (e == CUDA_SUCCESS) e = cuda_drv.cuDevicePrimaryCtxRetain(&contexts[device], d);
    }
    *ctx = contexts[device];
    pthread_mutex_unlock(&ctx_lock);
    return e == CUDA_SUCCESS ? 0 : cuda_error(e, "cuDevicePrimaryCtxRetain");
}

int cuda_device_of(const mt_tensor *t) {
    return t->device.index < 0 ? cuda_current_device() : t->device.index;
}

int cuda_current_device(void) {
    return thread_device < 0 ? 0 : thread_device;
}

int cuda_set_device(int device) {
    if (cuda_check_device(device)) return -1;
    thread_device = device;
    return cuda_bind(device);
}

int cuda_bind(int device) {
    if (thread_bound == device) return 0;
    CUcontext ctx;
    if (cuda_context(device, &ctx)) return -1;
    CUDA_CHECK(cuda_drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    thread_bound = device;
    return 0;
}

CUstream cuda_current_stream(int device) {
    return accel_current_stream(&cuda_driver, device);
}

int cuda_error(CUresult code, const char *what) {
    const char *s = NULL;
    if (cuda_drv.cuGetErrorString) cuda_drv.cuGetErrorString(code, &s);
    return mt_error(MT_ERR_RUNTIME, "CUDA error: %s (%s returned %d)", s ? s : "unknown error",
                    what, code);
}
