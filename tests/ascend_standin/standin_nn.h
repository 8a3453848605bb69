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
    unsigned char bytes[16];
};

struct aclIntArray {
    int n;
    int64_t v[STANDIN_MAX_DIM];
};

static inline size_t standin_dtype_size(aclDataType t) {
    switch (t) {
    case ACL_BOOL: case ACL_INT8: case ACL_UINT8: return 1;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_DOUBLE: case ACL_INT64: case ACL_UINT64: return 8;
    default: return 0;
    }
}

#endif
