/* cuda_launch.c: loading the embedded device code on each device and launching its kernels
 * (cuda_launch.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "cuda_launch.h"
#include "accel.h"
#include "kernels/ck_args.h"

static const char *const fn_names[CUDA_FN_COUNT] = {
#define X(id, name) #name,
    CUDA_KERNEL_LIST(X)
#undef X
};

typedef struct {
    CUmodule module;
    CUfunction fns[CUDA_FN_COUNT];
    int sms; /* multiprocessors: the grid is a few blocks per SM, each looping over its share */
    _Atomic bool loaded; /* set last, with release: a reader seeing it sees the rest */
} device_code;

static device_code code[ACCEL_MAX_DEVICES];
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static int load(int device) {
    device_code *c = &code[device];
    CUresult e = cuda_drv.cuModuleLoadData(&c->module, cuda_image);
    if (e != CUDA_SUCCESS) {
        if ((const void *)cuda_image_end == (const void *)cuda_image)
            return mt_error(MT_ERR_RUNTIME,
                            "CUDA error: this mindtorch was built without CUDA kernels (nvcc was "
                            "not found when its CUDA module was built)");
        if (e == CUDA_ERROR_NO_BINARY_FOR_GPU || e == CUDA_ERROR_INVALID_IMAGE)
            return mt_error(MT_ERR_RUNTIME,
                            "CUDA error: no kernel image is available for execution on the device "
                            "(this mindtorch's CUDA kernels are built for %s)",
                            cuda_image_arch);
        return cuda_error(e, "cuModuleLoadData");
    }
    for (int i = 0; i < CUDA_FN_COUNT; i++)
        CUDA_CHECK(cuda_drv.cuModuleGetFunction(&c->fns[i], c->module, fn_names[i]),
                   "cuModuleGetFunction");
    CUdevice d = 0;
    CUDA_CHECK(cuda_drv.cuDeviceGet(&d, device), "cuDeviceGet");
    CUDA_CHECK(cuda_drv.cuDeviceGetAttribute(&c->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d),
               "cuDeviceGetAttribute");
    if (c->sms < 1) c->sms = 1;
    atomic_store_explicit(&c->loaded, true, memory_order_release);
    return 0;
}

int cuda_launch(int device, cuda_fn fn, int64_t n, void *args) {
    if (n <= 0) return 0;
    if (cuda_bind(device)) return -1;
    device_code *c = &code[device];
    if (!atomic_load_explicit(&c->loaded, memory_order_acquire)) { /* once per device */
        pthread_mutex_lock(&load_lock);
        int rc = atomic_load_explicit(&c->loaded, memory_order_relaxed) ? 0 : load(device);
        pthread_mutex_unlock(&load_lock);
        if (rc) return -1;
    }
    CUstream s = cuda_current_stream(device);
    if (!s) return -1;
    int64_t blocks = (n + CK_BLOCK - 1) / CK_BLOCK, most = (int64_t)c->sms * 8;
    if (blocks > most) blocks = most;
    void *params[1] = {args};
    CUresult e = cuda_drv.cuLaunchKernel(c->fns[fn], (unsigned)blocks, 1, 1, CK_BLOCK, 1, 1, 0, s,
                                         params, NULL);
    if (e != CUDA_SUCCESS) return cuda_error(e, fn_names[fn]);
    return cuda_launched(s, fn_names[fn]);
}
