/* npu_aclnn.h: calling ACLNN operators. One call gathers its arguments in an npu_launch
 * (aclTensors made from mindtorch tensors without copying, scalars, integer arrays), runs the
 * operator's two phases on the device's current stream with a workspace from the caching
 * allocator, and releases everything it made:
 *
 *     npu_launch L;
 *     if (npu_launch_begin(&L, out)) return -1;
 *     aclTensor *x = npu_tensor(&L, a), *y = npu_tensor(&L, b), *o = npu_tensor(&L, out);
 *     aclScalar *k = npu_scalar(&L, alpha);
 *     return NPU_ACLNN(&L, Add, x, y, k, o);
 *
 * The arguments are made before NPU_ACLNN (not inside it): a helper that fails marks the launch
 * and returns NULL, and NPU_ACLNN then calls no operator, releases what was made and returns -1
 * with the first error. NPU_ACLNN always ends the launch. */
#ifndef MT_NPU_ACLNN_H
#define MT_NPU_ACLNN_H

#include "mt_tensor.h"
#include "mt_value.h"
#include "npu_runtime.h"

enum npu_aclnn_op {
#define X(name, params) NPU_ACLNN_##name,
    MT_ACLNN_OPS(X)
#undef X
        NPU_ACLNN_COUNT
};

/* each operator's first phase, typed */
#define X(name, params) typedef aclnnStatus(*npu_ws_##name##_fn) MT_ACLNN_WS_PARAMS params;
MT_ACLNN_OPS(X)
#undef X

enum { NPU_LAUNCH_MAX_OBJECTS = 12, NPU_LAUNCH_MAX_TEMPS = 4 };

typedef struct npu_launch {
    int device;
    aclrtStream stream;
    bool failed;
    int nobjects, ntemps;
    struct {
        const void *p;
        int kind;
    } objects[NPU_LAUNCH_MAX_OBJECTS];
    mt_tensor *temps[NPU_LAUNCH_MAX_TEMPS]; /* device copies of CPU scalar tensors */
    uint64_t workspace_size;
    aclOpExecutor *executor;
} npu_launch;

/* Start a launch on the device of `on` (an NPU tensor): makes the device current on this
 * thread and takes its current stream. */
int npu_launch_begin(npu_launch *L, const mt_tensor *on);
/* An aclTensor describing t's view (sizes, strides, storage offset over the storage's base
 * address: no copy). A 0-d CPU tensor (PyTorch lets CPU scalars join device ops) is copied
 * to the device first. */
aclTensor *npu_tensor(npu_launch *L, mt_tensor *t);
/* A scalar argument: doubles as ACL_DOUBLE, integers as ACL_INT64, bools as ACL_BOOL. */
aclScalar *npu_scalar(npu_launch *L, mt_value v);
aclIntArray *npu_int_array(npu_launch *L, const int64_t *v, int n);
aclDataType npu_acl_dtype(mt_dtype t);

/* The operator's first phase, resolved; NULL (and the launch failed) when it is missing. */
void *npu_aclnn_first_phase(npu_launch *L, int op);
/* Finish a launch whose first phase returned `status`: workspace, second phase, release. */
int npu_aclnn_finish(npu_launch *L, int op, aclnnStatus status);

#define NPU_ACLNN(L, name, ...)                                                                    \
    (npu_aclnn_first_phase((L), NPU_ACLNN_##name)                                                  \
         ? npu_aclnn_finish((L), NPU_ACLNN_##name,                                                 \
                            ((npu_ws_##name##_fn)npu_aclnn_first_phase((L), NPU_ACLNN_##name))(    \
                                __VA_ARGS__, &(L)->workspace_size, &(L)->executor))                \
         : npu_aclnn_finish((L), -1, 0))

#endif
