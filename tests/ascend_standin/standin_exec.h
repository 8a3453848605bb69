/* standin_exec.h: the ACL STAND-IN's operator machinery (a test double, see standin.h), shared
 * by the operators of its libopapi.so: plans (executors) made by the first phase, launched on
 * a stream by the second, and element access to device tensors of any dtype and layout. */
#ifndef MT_STANDIN_EXEC_H
#define MT_STANDIN_EXEC_H

#include "standin_nn.h"

/* A plan for operator `name` ("aclnnAdd"), or NULL: counts as the call of its first phase for
 * fault injection ("aclnnAddGetWorkspaceSize"). */
aclOpExecutor *ex_new(const char *name, int (*kernel)(aclOpExecutor *e), aclnnStatus *status);
/* Copy an argument into the plan; a NULL one is ACLNN_ERR_PARAM_NULLPTR. */
aclnnStatus ex_tensor(aclOpExecutor *e, const aclTensor *t, const char *what);
aclnnStatus ex_scalar(aclOpExecutor *e, const aclScalar *s, const char *what);
/* ACLNN_ERR_PARAM_INVALID with "<op>: <message>" as the recent error */
aclnnStatus ex_invalid(const aclOpExecutor *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The first phase's end: on success hands the plan out, else frees it; returns status. */
aclnnStatus ex_done(aclOpExecutor *e, aclnnStatus status, uint64_t *workspace_size,
                    aclOpExecutor **out);
/* The second phase: checks the workspace and that every tensor lies in device memory, then
 * queues the plan on the stream (it is used up either way). */
aclnnStatus ex_launch(void *workspace, uint64_t workspace_size, aclOpExecutor *e,
                      aclrtStream stream);
/* A kernel's failure on the device: the stream reports it at its next synchronisation. */
int ex_fail(const aclOpExecutor *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- shapes ---------------------------------------------------------------------------------- */
int64_t tensor_numel(const aclTensor *t);
bool same_shape(const aclTensor *a, const aclTensor *b);
/* whether t broadcasts to the shape of `to` */
bool broadcasts_to(const aclTensor *t, const aclTensor *to);
/* "[2, 3]" into buf */
const char *shape_str(const aclTensor *t, char *buf, size_t cap);
void unravel(int64_t k, int nd, const int64_t *sizes, int64_t *idx);
/* t's element offset (from its data pointer) at idx, an index of an nd-dim shape t broadcasts to */
int64_t offset_at(const aclTensor *t, int nd, const int64_t *idx);

/* ---- elements -------------------------------------------------------------------------------- */
static inline bool dtype_is_float(aclDataType t) {
    return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16 || t == ACL_DOUBLE;
}
double load_f(const aclTensor *t, int64_t off);
int64_t load_i(const aclTensor *t, int64_t off);
void store_f(const aclTensor *t, int64_t off, double v);
void store_i(const aclTensor *t, int64_t off, int64_t v);
double scalar_f(const aclScalar *s);
int64_t scalar_i(const aclScalar *s);

/* How a kernel computes: the opmath type of PyTorch (float for float16/bfloat16/float32). */
typedef enum { CLS_INT, CLS_FLOAT, CLS_DOUBLE } compute_class;
compute_class class_of(aclDataType t);

#endif
