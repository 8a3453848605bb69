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

/* aclnnStatus */
enum {
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

typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2
} aclrtMemMallocPolicy;
typedef enum aclrtMemAttr { ACL_DDR_MEM = 0, ACL_HBM_MEM = 1 } aclrtMemAttr;
typedef enum aclrtStreamStatus {
    ACL_STREAM_STATUS_COMPLETE = 0,
    ACL_STREAM_STATUS_NOT_READY = 1
} aclrtStreamStatus;
/* note the order: NOT_READY is 0 here, unlike the stream status */
typedef enum aclrtEventRecordedStatus {
    ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
    ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
} aclrtEventRecordedStatus;

/* aclGetDeviceCapability's figures */
typedef enum aclDeviceInfo {
    ACL_DEVICE_INFO_UNDEFINED = -1,
    ACL_DEVICE_INFO_AI_CORE_NUM = 0,
    ACL_DEVICE_INFO_VECTOR_CORE_NUM = 1,
    ACL_DEVICE_INFO_L2_SIZE = 2,
} aclDeviceInfo;

#define ACL_EVENT_SYNC 0x00000001u
#define ACL_EVENT_TIME_LINE 0x00000008u
#define ACL_STREAM_FAST_LAUNCH 0x1u
#define ACL_STREAM_FAST_SYNC 0x2u

/* libascendcl.so: the runtime */
#define MT_ACL_RUNTIME_FUNCS(X)                                                                    \
    X(aclError, aclInit, (const char *configPath))                                                 \
    X(aclError, aclFinalize, (void))                                                               \
    X(const char *, aclGetRecentErrMsg, (void))                                                    \
    X(const char *, aclrtGetSocName, (void))                                                       \
    X(aclError, aclrtGetDeviceCount, (uint32_t * count))                                           \
    X(aclError, aclrtSetDevice, (int32_t deviceId))                                                \
    X(aclError, aclrtResetDevice, (int32_t deviceId))                                              \
    X(aclError, aclrtGetDevice, (int32_t * deviceId))                                              \
    X(aclError, aclrtSynchronizeDevice, (void))                                                    \
    X(aclError, aclrtCreateContext, (aclrtContext * context, int32_t deviceId))                    \
    X(aclError, aclrtDestroyContext, (aclrtContext context))                                       \
    X(aclError, aclrtSetCurrentContext, (aclrtContext context))                                    \
    X(aclError, aclrtGetCurrentContext, (aclrtContext * context))                                  \
    X(aclError, aclrtCreateStreamWithConfig,                                                       \
      (aclrtStream * stream, uint32_t priority, uint32_t flag))                                    \
    X(aclError, aclrtDestroyStream, (aclrtStream stream))                                          \
    X(aclError, aclrtSynchronizeStream, (aclrtStream stream))                                      \
    X(aclError, aclrtStreamQuery, (aclrtStream stream, aclrtStreamStatus * status))                \
    X(aclError, aclrtStreamWaitEvent, (aclrtStream stream, aclrtEvent event))                      \
    X(aclError, aclrtCreateEventWithFlag, (aclrtEvent * event, uint32_t flag))                     \
    X(aclError, aclrtDestroyEvent, (aclrtEvent event))                                             \
    X(aclError, aclrtRecordEvent, (aclrtEvent event, aclrtStream stream))                          \
    X(aclError, aclrtQueryEventStatus, (aclrtEvent event, aclrtEventRecordedStatus * status))      \
    X(aclError, aclrtSynchronizeEvent, (aclrtEvent event))                                         \
    X(aclError, aclrtEventElapsedTime, (float *ms, aclrtEvent startEvent, aclrtEvent endEvent))    \
    X(aclError, aclrtMalloc, (void **devPtr, size_t size, aclrtMemMallocPolicy policy))            \
    X(aclError, aclrtFree, (void *devPtr))                                                         \
    X(aclError, aclrtMemcpy,                                                                       \
      (void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind))            \
    X(aclError, aclrtMemcpyAsync,                                                                  \
      (void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,             \
       aclrtStream stream))                                                                        \
    X(aclError, aclrtMemsetAsync,                                                                  \
      (void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream))            \
    X(aclError, aclrtGetMemInfo, (aclrtMemAttr attr, size_t * free, size_t * total))               \
    X(aclError, aclrtMallocHost, (void **hostPtr, size_t size))                                    \
    X(aclError, aclrtFreeHost, (void *hostPtr))

/* libascendcl.so, looked up but not required (older toolkits or products lack them): peer
 * access between devices, hardware figures */
#define MT_ACL_RUNTIME_OPTIONAL_FUNCS(X)                                                           \
    X(aclError, aclrtDeviceCanAccessPeer,                                                          \
      (int32_t * canAccessPeer, int32_t deviceId, int32_t peerDeviceId))                           \
    X(aclError, aclrtDeviceEnablePeerAccess, (int32_t peerDeviceId, uint32_t flags))               \
    X(aclError, aclGetDeviceCapability,                                                            \
      (uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t * value))

/* libnnopbase.so: operator arguments and executors */
#define MT_ACLNN_BASE_FUNCS(X)                                                                     \
    X(aclTensor *, aclCreateTensor,                                                                \
      (const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride, \
       int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,      \
       void *tensorData))                                                                          \
    X(aclnnStatus, aclDestroyTensor, (const aclTensor *tensor))                                    \
    X(aclScalar *, aclCreateScalar, (void *value, aclDataType dataType))                           \
    X(aclnnStatus, aclDestroyScalar, (const aclScalar *scalar))                                    \
    X(aclIntArray *, aclCreateIntArray, (const int64_t *value, uint64_t size))                     \
    X(aclnnStatus, aclDestroyIntArray, (const aclIntArray *array))                                 \
    X(aclnnStatus, aclDestroyAclOpExecutor, (aclOpExecutor * executor))

/* The operators (libopapi.so, or libaclnn_math/ops_infer/ops_train.so), each two calls:
 *     aclnnStatus aclnn<Name>GetWorkspaceSize(<parameters>, uint64_t *workspaceSize, aclOpExecutor
 * **executor); aclnnStatus aclnn<Name>(void *workspace, uint64_t workspaceSize, aclOpExecutor
 * *executor, aclrtStream stream); The first checks the arguments and plans the work, the second
 * launches it on the stream (the executor is used up by it). Listed here: X(Name, (<parameters>)).
 */
typedef aclnnStatus (*aclnn_launch_fn)(void *workspace, uint64_t workspaceSize,
                                       aclOpExecutor *executor, aclrtStream stream);

#define MT_ACLNN_OPS(X)                                                                            \
    X(Add,                                                                                         \
      (const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out))     \
    X(Adds,                                                                                        \
      (const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out))     \
    X(InplaceAdd, (const aclTensor *selfRef, const aclTensor *other, const aclScalar *alpha))      \
    X(InplaceAdds, (const aclTensor *selfRef, const aclScalar *other, const aclScalar *alpha))     \
    X(Sub,                                                                                         \
      (const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out))     \
    X(Subs,                                                                                        \
      (const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out))     \
    X(InplaceSub, (aclTensor * selfRef, const aclTensor *other, const aclScalar *alpha))           \
    X(InplaceSubs, (aclTensor * selfRef, const aclScalar *other, const aclScalar *alpha))          \
    X(Rsub,                                                                                        \
      (const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out))     \
    X(Rsubs,                                                                                       \
      (const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out))     \
    X(Mul, (const aclTensor *self, const aclTensor *other, aclTensor *out))                        \
    X(Muls, (const aclTensor *self, const aclScalar *other, aclTensor *out))                       \
    X(InplaceMul, (aclTensor * selfRef, const aclTensor *other))                                   \
    X(InplaceMuls, (aclTensor * selfRef, const aclScalar *other))                                  \
    X(Div, (const aclTensor *self, const aclTensor *other, aclTensor *out))                        \
    X(Divs, (const aclTensor *self, const aclScalar *other, aclTensor *out))                       \
    X(InplaceDiv, (aclTensor * selfRef, const aclTensor *other))                                   \
    X(InplaceDivs, (aclTensor * selfRef, const aclScalar *other))                                  \
    X(EqTensor, (const aclTensor *self, const aclTensor *other, aclTensor *out))                   \
    X(NeTensor, (const aclTensor *self, const aclTensor *other, aclTensor *out))                   \
    X(LtTensor, (const aclTensor *self, const aclTensor *other, aclTensor *out))                   \
    X(LeTensor, (const aclTensor *self, const aclTensor *other, aclTensor *out))                   \
    X(GtTensor, (const aclTensor *self, const aclTensor *other, aclTensor *out))                   \
    X(GeTensor, (const aclTensor *self, const aclTensor *other, aclTensor *out))                   \
    X(EqScalar, (const aclTensor *self, const aclScalar *other, aclTensor *out))                   \
    X(NeScalar, (const aclTensor *self, const aclScalar *other, aclTensor *out))                   \
    X(LtScalar, (const aclTensor *self, const aclScalar *other, aclTensor *out))                   \
    X(LeScalar, (const aclTensor *self, const aclScalar *other, aclTensor *out))                   \
    X(GtScalar, (const aclTensor *self, const aclScalar *other, aclTensor *out))                   \
    X(GeScalar, (const aclTensor *self, const aclScalar *other, aclTensor *out))                   \
    X(Neg, (const aclTensor *self, aclTensor *out))                                                \
    X(InplaceNeg, (aclTensor * selfRef))                                                           \
    X(Exp, (const aclTensor *self, aclTensor *out))                                                \
    X(InplaceExp, (aclTensor * selfRef))                                                           \
    X(Log, (const aclTensor *self, aclTensor *out))                                                \
    X(InplaceLog, (aclTensor * selfRef))                                                           \
    X(Relu, (const aclTensor *self, aclTensor *out))                                               \
    X(InplaceRelu, (aclTensor * selfRef))                                                          \
    X(Sigmoid, (const aclTensor *self, aclTensor *out))                                            \
    X(InplaceSigmoid, (aclTensor * selfRef))                                                       \
    X(Tanh, (const aclTensor *self, aclTensor *out))                                               \
    X(InplaceTanh, (aclTensor * selfRef))                                                          \
    X(LogicalNot, (const aclTensor *self, aclTensor *out))                                         \
    X(InplaceLogicalNot, (aclTensor * selfRef))                                                    \
    X(Sqrt, (const aclTensor *self, aclTensor *out))                                               \
    X(InplaceSqrt, (aclTensor * selfRef))                                                          \
    X(Maximum, (const aclTensor *self, const aclTensor *other, aclTensor *out))                    \
    X(Addcmul, (const aclTensor *self, const aclTensor *tensor1, const aclTensor *tensor2,         \
                const aclScalar *value, aclTensor *out))                                           \
    X(InplaceAddcmul, (aclTensor * selfRef, const aclTensor *tensor1, const aclTensor *tensor2,    \
                       const aclScalar *value))                                                    \
    X(Addcdiv, (const aclTensor *self, const aclTensor *tensor1, const aclTensor *tensor2,         \
                const aclScalar *value, aclTensor *out))                                           \
    X(InplaceAddcdiv, (aclTensor * selfRef, const aclTensor *tensor1, const aclTensor *tensor2,    \
                       const aclScalar *value))                                                    \
    X(SWhere,                                                                                      \
      (const aclTensor *condition, const aclTensor *self, const aclTensor *other, aclTensor *out)) \
    X(Cast, (const aclTensor *self, aclDataType dtype, aclTensor *out))                            \
    X(InplaceCopy, (aclTensor * selfRef, const aclTensor *src))                                    \
    X(InplaceFillScalar, (aclTensor * selfRef, const aclScalar *value))                            \
    X(InplaceZero, (aclTensor * selfRef))                                                          \
    X(Arange,                                                                                      \
      (const aclScalar *start, const aclScalar *end, const aclScalar *step, aclTensor *out))       \
    X(InplaceMaskedFillScalar,                                                                     \
      (aclTensor * selfRef, const aclTensor *mask, const aclScalar *value))                        \
    X(ReduceSum, (const aclTensor *self, const aclIntArray *dims, bool keepDims,                   \
                  aclDataType dtype, aclTensor *out))                                              \
    X(Mean, (const aclTensor *self, const aclIntArray *dim, bool keepDim, aclDataType dtype,       \
             aclTensor *out))                                                                      \
    X(Softmax, (const aclTensor *self, int64_t dim, aclTensor *out))                               \
    X(LogSoftmax, (const aclTensor *self, int64_t dim, aclTensor *out))                            \
    X(Mm, (const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType))     \
    X(BatchMatMul,                                                                                 \
      (const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType))         \
    X(Matmul, (const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType)) \
    X(Addmm, (const aclTensor *self, const aclTensor *mat1, const aclTensor *mat2,                 \
              const aclScalar *beta, const aclScalar *alpha, aclTensor *out, int8_t cubeMathType)) \
    X(Gather, (const aclTensor *self, int64_t dim, const aclTensor *index, aclTensor *out))        \
    X(ScatterAdd, (const aclTensor *self, int64_t dim, const aclTensor *index,                     \
                   const aclTensor *src, aclTensor *out))                                          \
    X(InplaceScatter, (aclTensor * selfRef, int64_t dim, const aclTensor *index,                   \
                       const aclTensor *src, int64_t reduce))

/* (parameters) -> (parameters, uint64_t *workspaceSize, aclOpExecutor **executor) */
#define MT_ACLNN_WS_PARAMS(...) (__VA_ARGS__, uint64_t * workspaceSize, aclOpExecutor * *executor)

/* cubeMathType: how matrix products may trade precision for speed (0: keep the dtype) */
enum { ACLNN_CUBE_KEEP_DTYPE = 0, ACLNN_CUBE_ALLOW_FP32_DOWN_PRECISION = 1 };
/* InplaceScatter's reduce: 0 replaces, 1 adds, 2 multiplies */
enum { ACLNN_SCATTER_REPLACE = 0, ACLNN_SCATTER_ADD = 1, ACLNN_SCATTER_MUL = 2 };

#endif
