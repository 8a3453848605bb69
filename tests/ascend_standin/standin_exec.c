/* standin_exec.c: the ACL STAND-IN's operator machinery (a test double, see standin.h and
 * standin_exec.h): plans, launches, shapes and element access. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/mt_half.h" /* IEEE half and bfloat16 conversions (header only) */
#include "standin_exec.h"

aclOpExecutor *ex_new(const char *name, int (*kernel)(aclOpExecutor *e), aclnnStatus *status) {
    char entry[80];
    snprintf(entry, sizeof entry, "%sGetWorkspaceSize", name);
    int fault = standin_fault(entry);
    if (fault) {
        *status = fault;
        return NULL;
    }
    aclOpExecutor *e = calloc(1, sizeof *e);
    if (!e) {
        standin_set_error("EZ9999: [stand-in] %s: out of host memory", entry);
        *status = ACLNN_ERR_INNER;
        return NULL;
    }
    snprintf(e->name, sizeof e->name, "%s", name);
    e->kernel = kernel;
    *status = ACLNN_SUCCESS;
    return e;
}

aclnnStatus ex_invalid(const aclOpExecutor *e, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    standin_set_error("EZ1001: [stand-in] %sGetWorkspaceSize: %s", e->name, msg);
    return ACLNN_ERR_PARAM_INVALID;
}

static aclnnStatus null_argument(const aclOpExecutor *e, const char *what) {
    standin_set_error("EZ1001: [stand-in] %sGetWorkspaceSize: %s is a null pointer", e->name, what);
    return ACLNN_ERR_PARAM_NULLPTR;
}

aclnnStatus ex_tensor(aclOpExecutor *e, const aclTensor *t, const char *what) {
    if (!t) return null_argument(e, what);
    if (e->ntensors == STANDIN_EXEC_TENSORS) return ex_invalid(e, "too many tensors");
    e->t[e->ntensors++] = *t;
    return ACLNN_SUCCESS;
}

aclnnStatus ex_scalar(aclOpExecutor *e, const aclScalar *s, const char *what) {
    if (!s) return null_argument(e, what);
    if (e->nscalars == STANDIN_EXEC_SCALARS) return ex_invalid(e, "too many scalars");
    e->s[e->nscalars++] = *s;
    return ACLNN_SUCCESS;
}

/* the least workspace every plan asks for (aclStandinForceWorkspace): lets tests make the
 * workspace allocation fail */
static _Atomic uint64_t forced_workspace;

STANDIN_API void aclStandinForceWorkspace(uint64_t bytes) {
    forced_workspace = bytes;
}

aclnnStatus ex_done(aclOpExecutor *e, aclnnStatus status, uint64_t *workspace_size,
                    aclOpExecutor **out) {
    if (!e) return status;
    if (forced_workspace > e->workspace_size) e->workspace_size = forced_workspace;
    if (status == ACLNN_SUCCESS && (!workspace_size || !out)) {
        standin_set_error(
            "EZ1001: [stand-in] %sGetWorkspaceSize: workspaceSize or executor is a null pointer",
            e->name);
        status = ACLNN_ERR_PARAM_NULLPTR;
    }
    if (status != ACLNN_SUCCESS) {
        free(e);
        return status;
    }
    *workspace_size = e->workspace_size;
    *out = e;
    return ACLNN_SUCCESS;
}

/* the first and one-past-last element a view touches, from its data pointer */
static void span_of(const aclTensor *t, int64_t *lo, int64_t *hi) {
    *lo = *hi = t->offset;
    for (int i = 0; i < t->ndim; i++) {
        int64_t ext = (t->sizes[i] - 1) * t->strides[i];
        if (ext < 0)
            *lo += ext;
        else
            *hi += ext;
    }
    *hi += 1;
}

static int run_plan(void *ctx) {
    aclOpExecutor *e = ctx;
    char entry[80];
    snprintf(entry, sizeof entry, "%s:kernel", e->name); /* a fault in the device's work */
    int fault = standin_fault(entry);
    if (fault) return fault;
    return e->kernel(e);
}

aclnnStatus ex_launch(void *workspace, uint64_t workspace_size, aclOpExecutor *e,
                      aclrtStream stream) {
    if (!e) {
        standin_set_error("EZ1001: [stand-in] an operator was launched with a null executor");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    int fault = standin_fault(e->name);
    if (fault) {
        free(e);
        return fault;
    }
    aclnnStatus status = ACLNN_SUCCESS;
    if (workspace_size < e->workspace_size ||
        (e->workspace_size && !standin_is_device_range(workspace, e->workspace_size))) {
        standin_set_error("EZ1001: [stand-in] %s: the workspace (%llu bytes at %p) is not the %llu "
                          "device bytes asked for",
                          e->name, (unsigned long long)workspace_size, workspace,
                          (unsigned long long)e->workspace_size);
        status = ACLNN_ERR_PARAM_INVALID;
    }
    for (int i = 0; status == ACLNN_SUCCESS && i < e->ntensors; i++) {
        const aclTensor *t = &e->t[i];
        if (tensor_numel(t) == 0) continue;
        int64_t lo, hi;
        span_of(t, &lo, &hi);
        size_t isz = standin_dtype_size(t->dtype);
        if (lo < 0 || hi > t->storage_elems ||
            !standin_is_device_range((char *)t->data + lo * (int64_t)isz,
                                     (size_t)(hi - lo) * isz)) {
            standin_set_error("EZ1001: [stand-in] %s: tensor %d (elements %lld..%lld of %lld at "
                              "%p) is not in device "
                              "memory",
                              e->name, i, (long long)lo, (long long)hi, (long long)t->storage_elems,
                              t->data);
            status = ACLNN_ERR_PARAM_INVALID;
        }
    }
    if (status != ACLNN_SUCCESS) {
        free(e);
        return status;
    }
    e->workspace = workspace;
    aclError q = standin_enqueue(stream, run_plan, e, free);
    return q == ACL_SUCCESS ? ACLNN_SUCCESS : ACLNN_ERR_RUNTIME_ERROR;
}

int ex_fail(const aclOpExecutor *e, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    standin_set_error("EZ9999: [stand-in] %s failed on the device: %s", e->name, msg);
    return ACL_ERROR_RT_AICORE_EXCEPTION;
}

/* ---- shapes ---------------------------------------------------------------------------------- */
int64_t tensor_numel(const aclTensor *t) {
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++) n *= t->sizes[i];
    return n;
}

bool same_shape(const aclTensor *a, const aclTensor *b) {
    if (a->ndim != b->ndim) return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->sizes[i] != b->sizes[i]) return false;
    return true;
}

bool broadcasts_to(const aclTensor *t, const aclTensor *to) {
    if (t->ndim > to->ndim) return false;
    for (int i = 0; i < t->ndim; i++) {
        int64_t s = t->sizes[i], d = to->sizes[to->ndim - t->ndim + i];
        if (s != d && s != 1) return false;
    }
    return true;
}

const char *shape_str(const aclTensor *t, char *buf, size_t cap) {
    size_t at = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < t->ndim && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%lld", i ? ", " : "", (long long)t->sizes[i]);
    if (at < cap) snprintf(buf + at, cap - at, "]");
    return buf;
}

void unravel(int64_t k, int nd, const int64_t *sizes, int64_t *idx) {
    for (int i = nd - 1; i >= 0; i--) {
        int64_t s = sizes[i] > 0 ? sizes[i] : 1;
        idx[i] = k % s;
        k /= s;
    }
}

int64_t offset_at(const aclTensor *t, int nd, const int64_t *idx) {
    int64_t off = t->offset;
    for (int i = 0; i < t->ndim; i++)
        if (t->sizes[i] != 1) off += idx[nd - t->ndim + i] * t->strides[i];
    return off;
}

/* ---- elements -------------------------------------------------------------------------------- */
#define AT(T) (((T *)t->data)[off])

/* float to integer as x86's conversion does it (and so the CPU kernels): truncation, with NaN
 * and out-of-range values giving INT64_MIN */
static int64_t f2i(double v) {
    return v == v && v > -9.2233720368547758e18 && v < 9.2233720368547758e18 ? (int64_t)v
                                                                             : INT64_MIN;
}

double load_f(const aclTensor *t, int64_t off) {
    switch (t->dtype) {
    case ACL_FLOAT:
        return AT(float);
    case ACL_DOUBLE:
        return AT(double);
    case ACL_FLOAT16:
        return mt_f16_to_f32(AT(uint16_t));
    case ACL_BF16:
        return mt_bf16_to_f32(AT(uint16_t));
    default:
        return (double)load_i(t, off);
    }
}

int64_t load_i(const aclTensor *t, int64_t off) {
    switch (t->dtype) {
    case ACL_BOOL:
        return AT(uint8_t) != 0;
    case ACL_UINT8:
        return AT(uint8_t);
    case ACL_INT8:
        return AT(int8_t);
    case ACL_INT16:
        return AT(int16_t);
    case ACL_INT32:
        return AT(int32_t);
    case ACL_INT64:
        return AT(int64_t);
    default:
        return f2i(load_f(t, off));
    }
}

void store_f(const aclTensor *t, int64_t off, double v) {
    switch (t->dtype) {
    case ACL_FLOAT:
        AT(float) = (float)v;
        break;
    case ACL_DOUBLE:
        AT(double) = v;
        break;
    case ACL_FLOAT16:
        AT(uint16_t) = mt_f32_to_f16((float)v);
        break;
    case ACL_BF16:
        AT(uint16_t) = mt_f32_to_bf16((float)v);
        break;
    case ACL_BOOL:
        AT(uint8_t) = v != 0;
        break;
    default:
        store_i(t, off, f2i(v));
        break;
    }
}

void store_i(const aclTensor *t, int64_t off, int64_t v) {
    switch (t->dtype) {
    case ACL_BOOL:
        AT(uint8_t) = v != 0;
        break;
    case ACL_UINT8:
        AT(uint8_t) = (uint8_t)v;
        break;
    case ACL_INT8:
        AT(int8_t) = (int8_t)v;
        break;
    case ACL_INT16:
        AT(int16_t) = (int16_t)v;
        break;
    case ACL_INT32:
        AT(int32_t) = (int32_t)v;
        break;
    case ACL_INT64:
        AT(int64_t) = v;
        break;
    default:
        store_f(t, off, (double)v);
        break;
    }
}

double scalar_f(const aclScalar *s) {
    aclTensor t = {.ndim = 0, .dtype = s->dtype, .data = (void *)s->bytes};
    return load_f(&t, 0);
}

int64_t scalar_i(const aclScalar *s) {
    aclTensor t = {.ndim = 0, .dtype = s->dtype, .data = (void *)s->bytes};
    return load_i(&t, 0);
}

compute_class class_of(aclDataType t) {
    return t == ACL_DOUBLE ? CLS_DOUBLE : dtype_is_float(t) ? CLS_FLOAT : CLS_INT;
}
