/* cuda_runtime.h: the CUDA module's view of the NVIDIA driver: libcuda.so.1 opened at run time,
 * lazy initialisation, devices and their primary contexts, per-thread current device and
 * stream, and driver errors turned into mindtorch errors in PyTorch's words. */
#ifndef MT_CUDA_RUNTIME_H
#define MT_CUDA_RUNTIME_H

#include "cuda_abi.h"
#include "mt_common.h"

typedef struct cuda_api {
#define X(ret, name, params) ret(*name) params;
    MT_CUDA_DRIVER_FUNCS(X)
#undef X
} cuda_api;

extern cuda_api cuda_drv;

/* Initialise the driver once. 0, or -1 with PyTorch's error ("Found no NVIDIA driver on your
 * system. ...", "No CUDA GPUs are available"). */
/* A CUDA library opened with dlopen: the one the environment variable env_var names (a
 * stand-in), else the first of names[0, n) found; NULL when none opens. */
void *cuda_open_library(const char *env_var, const char *const *names, size_t n);
int cuda_ensure(void);
/* Whether CUDA is usable; when not, why (never raises, never initialises a context). */
bool cuda_available(const char **why);
int cuda_device_count(void);
/* Whether CUDA has been used for work (torch.cuda.is_initialized). */
bool cuda_initialized(void);
/* CUDA_LAUNCH_BLOCKING=1 (read once, at initialisation): every launch waits for its stream. */
extern bool cuda_launch_blocking;
int cuda_launched(CUstream s, const char *what);
/* This thread's device (set_device; 0 by default), and making its primary context current. */
int cuda_current_device(void);
int cuda_set_device(int device);
int cuda_bind(int device);
int cuda_check_device(int device); /* "Invalid device id" */
/* the device of a CUDA tensor (its index, or this thread's device for "cuda") */
struct mt_tensor;
int cuda_device_of(const struct mt_tensor *t);
/* the primary context of a device (retained once) */
int cuda_context(int device, CUcontext *ctx);

/* Streams (backends/accel/accel_stream.h) */
CUstream cuda_current_stream(int device);

/* Sets mindtorch's error from a driver status: "CUDA error: <the driver's text>" (PyTorch's
 * words), naming the call; returns -1. */
int cuda_error(CUresult code, const char *what);
#define CUDA_CHECK(call, what)                                                                     \
    do {                                                                                           \
        CUresult e_ = (call);                                                                      \
        if (e_ != CUDA_SUCCESS) return cuda_error(e_, what);                                       \
    } while (0)

#endif
