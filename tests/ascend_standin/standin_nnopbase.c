/* standin_nnopbase.c: the ACL STAND-IN's libnnopbase.so (a test double, see standin.h):
 * ACLNN's operator arguments (tensors over device memory, scalars, integer arrays). */
#include <stdlib.h>
#include <string.h>

#include "standin_nn.h"

#define X(ret, name, params) STANDIN_API ret name params;
MT_ACLNN_BASE_FUNCS(X)
#undef X

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData) {
    if ((!viewDims && viewDimsNum > 0) || (!storageDims && storageDimsNum > 0) ||
        viewDimsNum > STANDIN_MAX_DIM)
        return NULL;
    if (standin_dtype_size(dataType) == 0) return NULL;
    aclTensor *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->ndim = (int)viewDimsNum;
    t->dtype = dataType;
    t->format = format;
    t->offset = offset;
    t->data = tensorData;
    int64_t st = 1;
    for (int i = t->ndim - 1; i >= 0; i--) { /* NULL strides: contiguous */
        t->sizes[i] = viewDims[i];
        t->strides[i] = stride ? stride[i] : st;
        st *= viewDims[i];
    }
    t->storage_elems = 1;
    for (uint64_t i = 0; i < storageDimsNum; i++) t->storage_elems *= storageDims[i];
    return t;
}

aclnnStatus aclDestroyTensor(const aclTensor *t) {
    free((void *)t);
    return ACLNN_SUCCESS;
}

aclScalar *aclCreateScalar(void *value, aclDataType dataType) {
    size_t n = standin_dtype_size(dataType);
    if (!value || n == 0) return NULL;
    aclScalar *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->dtype = dataType;
    memcpy(s->bytes, value, n); /* the value is copied now, as CANN does */
    return s;
}

aclnnStatus aclDestroyScalar(const aclScalar *s) {
    free((void *)s);
    return ACLNN_SUCCESS;
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
    if ((!value && size > 0) || size > STANDIN_MAX_DIM) return NULL;
    aclIntArray *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->n = (int)size;
    if (size) memcpy(a->v, value, size * sizeof *value);
    return a;
}

aclnnStatus aclDestroyIntArray(const aclIntArray *a) {
    free((void *)a);
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *e) {
    free(e);
    return ACLNN_SUCCESS;
}
