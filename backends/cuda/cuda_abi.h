/* cuda_abi.h: the part of the CUDA driver API (libcuda.so.1, cuda.h) the CUDA module calls: types,
 * the status and attribute values it reads, and the functions' signatures as X-macros, so that
 * cuda_runtime.c can open the driver with dlopen. The module never links CUDA: on a machine
 * without an NVIDIA driver it loads and says why CUDA is not available. Values and signatures
 * are those of CUDA's published ABI (the _v2 entry points are the 64-bit ones). */
#ifndef MT_CUDA_ABI_H
#define MT_CUDA_ABI_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_NOT_READY = 600,
};

enum { /* CUdevice_attribute */
       CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
       CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
       CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

enum { CU_STREAM_NON_BLOCKING = 1 };
enum { CU_EVENT_DEFAULT = 0, CU_EVENT_DISABLE_TIMING = 2 };

/* X(return type, name, parameter list): every one is required */
#define MT_CUDA_DRIVER_FUNCS(X)                                                                    \
    X(CUresult, cuInit, (unsigned int flags))                                                      \
    X(CUresult, cuDriverGetVersion, (int *version))                                                \
    X(CUresult, cuGetErrorName, (CUresult error, const char **name))                               \
    X(CUresult, cuGetErrorString, (CUresult error, const char **text))                             \
    X(CUresult, cuDeviceGetCount, (int *count))                                                    \
    X(CUresult, cuDeviceGet, (CUdevice * device, int ordinal))                                     \
    X(CUresult, cuDeviceGetName, (char *name, int len, CUdevice dev))                              \
    X(CUresult, cuDeviceTotalMem_v2, (size_t * bytes, CUdevice dev))                               \
    X(CUresult, cuDeviceGetAttribute, (int *value, int attribute, CUdevice dev))                   \
    X(CUresult, cuDeviceCanAccessPeer, (int *can, CUdevice dev, CUdevice peer))                    \
    X(CUresult, cuDevicePrimaryCtxRetain, (CUcontext * ctx, CUdevice dev))                         \
    X(CUresult, cuCtxSetCurrent, (CUcontext ctx))                                                  \
    X(CUresult, cuCtxSynchronize, (void))                                                          \
    X(CUresult, cuCtxEnablePeerAccess, (CUcontext peer, unsigned int flags))                       \
    X(CUresult, cuCtxGetStreamPriorityRange, (int *least, int *greatest))                          \
    X(CUresult, cuMemAlloc_v2, (CUdeviceptr * p, size_t bytes))                                    \
    X(CUresult, cuMemFree_v2, (CUdeviceptr p))                                                     \
    X(CUresult, cuMemGetInfo_v2, (size_t * free_bytes, size_t * total_bytes))                      \
    X(CUresult, cuMemAllocHost_v2, (void **p, size_t bytes))                                       \
    X(CUresult, cuMemFreeHost, (void *p))                                                          \
    X(CUresult, cuMemcpyHtoDAsync_v2, (CUdeviceptr dst, const void *src, size_t n, CUstream s))    \
    X(CUresult, cuMemcpyDtoHAsync_v2, (void *dst, CUdeviceptr src, size_t n, CUstream s))          \
    X(CUresult, cuMemcpyDtoDAsync_v2, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s))    \
    X(CUresult, cuMemsetD8Async, (CUdeviceptr dst, unsigned char v, size_t n, CUstream s))         \
    X(CUresult, cuMemsetD16Async, (CUdeviceptr dst, unsigned short v, size_t n, CUstream s))       \
    X(CUresult, cuMemsetD32Async, (CUdeviceptr dst, unsigned int v, size_t n, CUstream s))         \
    X(CUresult, cuStreamCreateWithPriority, (CUstream * s, unsigned int flags, int priority))      \
    X(CUresult, cuStreamSynchronize, (CUstream s))                                                 \
    X(CUresult, cuStreamQuery, (CUstream s))                                                       \
    X(CUresult, cuStreamWaitEvent, (CUstream s, CUevent e, unsigned int flags))                    \
    X(CUresult, cuEventCreate, (CUevent * e, unsigned int flags))                                  \
    X(CUresult, cuEventDestroy_v2, (CUevent e))                                                    \
    X(CUresult, cuEventRecord, (CUevent e, CUstream s))                                            \
    X(CUresult, cuEventQuery, (CUevent e))                                                         \
    X(CUresult, cuEventSynchronize, (CUevent e))                                                   \
    X(CUresult, cuEventElapsedTime, (float *ms, CUevent start, CUevent end))                       \
    X(CUresult, cuModuleLoadData, (CUmodule * module, const void *image))                          \
    X(CUresult, cuModuleGetFunction, (CUfunction * f, CUmodule module, const char *name))          \
    X(CUresult, cuLaunchKernel,                                                                    \
      (CUfunction f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,                \
       unsigned int block_x, unsigned int block_y, unsigned int block_z,                           \
       unsigned int shared_bytes, CUstream s, void **params, void **extra))

#endif
