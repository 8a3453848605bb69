/* acl_abi.h: the part of Ascend CANN's C ABI that mindtorch uses (ACL runtime in
 * libascendcl.so; ACLNN tensors, scalars and executors in libnnopbase.so; operators in
 * libopapi.so), written from the published signatures and enum values. CANN's own headers
 * are not needed to build: the NPU backend reaches every function through dlsym, and the
 * ACL stand-in (tests/ascend_standin/) defines them with these same prototypes.
 *
 * Each list is an X-macro: X(return type, name, (parameters)). */
#ifndef MT_ACL_ABI_H
#define MT_ACL_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int aclError;
typedef int32_t aclnnStatus;
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclOpExecutor aclOpExecutor;

enum {
    ACL_SUCCESS = 0,
    ACL_ERROR_INVALID_PARAM = 100000,
    ACL_ERROR_UNINITIALIZE = 100001,
    ACL_ERROR_REPEAT_INITIALIZE = 100002,
    ACL_ERROR_BAD_ALLOC = 200000,
    ACL_ERROR_INVALID_DEVICE = 200002,
    ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005,
    ACL_ERROR_RT_PARAM_INVALID = 107000,
    ACL_ERROR_RT_INVALID_DEVICEID = 107001,
    ACL_ERROR_RT_CONTEXT_NULL = 107002,
    ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID = 107006,
    ACL_ERROR_RT_MEMORY_ALLOCATION = 207001,
    ACL_ERROR_RT_DEVICE_OOM = 207018,
    ACL_ERROR_RT_INTERNAL_ERROR = 507000,
    ACL_ERROR_RT_AICORE_EXCEPTION = 507015,
};

enum { /* aclnnStatus */
    ACLNN_SUCCESS = 0,
    ACLNN_ERR_PARAM_NULLPTR = 161001,
    ACLNN_ERR_PARAM_INVALID = 161002,
    ACLNN_ERR_RUNTIME_ERROR = 361001,
    ACLNN_ERR_INNER = 561000,
};

typedef enum aclDataType {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_BF16 = 27,
} aclDataType;

typedef enum aclFormat { ACL_FORMAT_NCHW = 0, ACL_FORMAT_ND = 2 } aclFormat;

typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy { ACL_MEM_MALLOC_HUGE_FIRST = 0, ACL_MEM_MALLOC_NORMAL_ONLY = 2 } aclrtMemMallocPolicy;
typedef enum aclrtMemAttr { ACL_DDR_MEM = 0, ACL_HBM_MEM = 1 } aclrtMemAttr;
typedef enum aclrtStreamStatus { ACL_STREAM_STATUS_COMPLETE = 0, ACL_STREAM_STATUS_NOT_READY = 1 } aclrtStreamStatus;
/* note the order: NOT_READY is 0 here, unlike the stream status */
typedef enum aclrtEventRecordedStatus {
    ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
    ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
} aclrtEventRecordedStatus;

#define ACL_EVENT_SYNC 0x00000001u
#define ACL_EVENT_TIME_LINE 0x00000008u
#define ACL_STREAM_FAST_LAUNCH 0x1u
#define ACL_STREAM_FAST_SYNC 0x2u

/* libascendcl.so: the runtime */
#define MT_ACL_RUNTIME_FUNCS(X)                                                                                      \
    X(aclError, aclInit, (const char *configPath))                                                                  \
    X(aclError, aclFinalize, (void))                                                                                 \
    X(const char *, aclGetRecentErrMsg, (void))                                                                      \
    X(const char *, aclrtGetSocName, (void))                                                                         \
    X(aclError, aclrtGetDeviceCount, (uint32_t * count))                                                             \
    X(aclError, aclrtSetDevice, (int32_t deviceId))                                                                  \
    X(aclError, aclrtResetDevice, (int32_t deviceId))                                                                \
    X(aclError, aclrtGetDevice, (int32_t * deviceId))                                                                \
    X(aclError, aclrtSynchronizeDevice, (void))                                                                      \
    X(aclError, aclrtCreateContext, (aclrtContext * context, int32_t deviceId))                                      \
    X(aclError, aclrtDestroyContext, (aclrtContext context))                                                         \
    X(aclError, aclrtSetCurrentContext, (aclrtContext context))                                                      \
    X(aclError, aclrtGetCurrentContext, (aclrtContext * context))                                                    \
    X(aclError, aclrtCreateStreamWithConfig, (aclrtStream * stream, uint32_t priority, uint32_t flag))               \
    X(aclError, aclrtDestroyStream, (aclrtStream stream))                                                            \
    X(aclError, aclrtSynchronizeStream, (aclrtStream stream))                                                        \
    X(aclError, aclrtStreamQuery, (aclrtStream stream, aclrtStreamStatus * status))                                  \
    X(aclError, aclrtStreamWaitEvent, (aclrtStream stream, aclrtEvent event))                                        \
    X(aclError, aclrtCreateEventWithFlag, (aclrtEvent * event, uint32_t flag))                                       \
    X(aclError, aclrtDestroyEvent, (aclrtEvent event))                                                               \
    X(aclError, aclrtRecordEvent, (aclrtEvent event, aclrtStream stream))                                            \
    X(aclError, aclrtQueryEventStatus, (aclrtEvent event, aclrtEventRecordedStatus * status))                        \
    X(aclError, aclrtSynchronizeEvent, (aclrtEvent event))                                                           \
    X(aclError, aclrtEventElapsedTime, (float *ms, aclrtEvent startEvent, aclrtEvent endEvent))                      \
    X(aclError, aclrtMalloc, (void **devPtr, size_t size, aclrtMemMallocPolicy policy))                              \
    X(aclError, aclrtFree, (void *devPtr))                                                                           \
    X(aclError, aclrtMemcpy, (void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind))       \
    X(aclError, aclrtMemcpyAsync,                                                                                    \
      (void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind, aclrtStream stream))          \
    X(aclError, aclrtMemsetAsync, (void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream))  \
    X(aclError, aclrtGetMemInfo, (aclrtMemAttr attr, size_t * free, size_t * total))

/* libnnopbase.so: operator arguments and executors */
#define MT_ACLNN_BASE_FUNCS(X)                                                                                       \
    X(aclTensor *, aclCreateTensor,                                                                                  \
      (const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride, int64_t offset,   \
       aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData))                     \
    X(aclnnStatus, aclDestroyTensor, (const aclTensor *tensor))                                                      \
    X(aclScalar *, aclCreateScalar, (void *value, aclDataType dataType))                                             \
    X(aclnnStatus, aclDestroyScalar, (const aclScalar *scalar))                                                      \
    X(aclIntArray *, aclCreateIntArray, (const int64_t *value, uint64_t size))                                       \
    X(aclnnStatus, aclDestroyIntArray, (const aclIntArray *array))

#endif
