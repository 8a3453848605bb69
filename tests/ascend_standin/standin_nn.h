/* standin_nn.h: the ACL STAND-IN's ACLNN objects (a test double, see standin.h), shared by
 * its libnnopbase.so (which creates them) and libopapi.so (whose operators read them). */
#ifndef MT_STANDIN_NN_H
#define MT_STANDIN_NN_H

#include "standin.h"

enum { STANDIN_MAX_DIM = 16 };

struct aclTensor {
    int ndim;
    aclDataType dtype;
    aclFormat format;
    int64_t sizes[STANDIN_MAX_DIM], strides[STANDIN_MAX_DIM]; /* elements */
    int64_t offset;                                           /* elements from data */
    int64_t storage_elems;
    void *data; /* the storage's base address in device memory */
};

struct aclScalar {
    aclDataType dtype;
    _Alignas(8) unsigned char bytes[16]; /* read in place as int64 or double */
};

struct aclIntArray {
    int n;
    int64_t v[STANDIN_MAX_DIM];
};

/* An operator's plan from its first phase, run by its second on the stream's worker thread. It
 * holds copies of what it needs (the caller destroys its arguments once the operator is
 * launched, long before the work runs) and nothing it must free: aclDestroyAclOpExecutor and
 * the stream free it with free(). */
enum { STANDIN_EXEC_TENSORS = 4, STANDIN_EXEC_SCALARS = 2 };
struct aclOpExecutor {
    char name[48];                   /* "aclnnAdd" */
    int (*kernel)(aclOpExecutor *e); /* 0, or an ACL error code with the message set */
    int ntensors;
    aclTensor t[STANDIN_EXEC_TENSORS];
    int nscalars;
    aclScalar s[STANDIN_EXEC_SCALARS];
    aclIntArray dims;
    int64_t dim, mode; /* an operator's integer parameters (dim, scatter reduce, function) */
    int flags;
    bool keep;         /* keepDims */
    aclDataType dtype; /* a requested result type (Cast, ReduceSum, Mean) */
    uint64_t workspace_size;
    void *workspace;
};

static inline size_t standin_dtype_size(aclDataType t) {
    switch (t) {
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
        return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
        return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
        return 4;
    case ACL_DOUBLE:
    case ACL_INT64:
    case ACL_UINT64:
        return 8;
    default:
        return 0;
    }
}

#endif
