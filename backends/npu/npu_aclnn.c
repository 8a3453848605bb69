/* npu_aclnn.c: the ACLNN call layer (see npu_aclnn.h): operator entry points looked up once,
 * operator arguments made from mindtorch values, and the two-phase launch. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "mt_storage.h"
#include "npu_aclnn.h"
#include "npu_alloc.h"
#include "npu_ops.h"

enum { OBJ_TENSOR, OBJ_SCALAR, OBJ_INT_ARRAY };

static const char *const op_names[NPU_ACLNN_COUNT] = {
#define X(name, params) "aclnn" #name,
    MT_ACLNN_OPS(X)
#undef X
};

/* each operator's two entry points, looked up on first use (a missing one is reported then) */
static struct {
    _Atomic bool looked_up;
    void *first, *second;
} entries[NPU_ACLNN_COUNT];
static pthread_mutex_t lookup_mu = PTHREAD_MUTEX_INITIALIZER;

static bool resolve(int op) {
    if (!atomic_load_explicit(&entries[op].looked_up, memory_order_acquire)) {
        pthread_mutex_lock(&lookup_mu);
        if (!entries[op].looked_up) {
            char ws[96];
            snprintf(ws, sizeof ws, "%sGetWorkspaceSize", op_names[op]);
            entries[op].first = npu_op_symbol(ws);
            entries[op].second = npu_op_symbol(op_names[op]);
            atomic_store_explicit(&entries[op].looked_up, true, memory_order_release);
        }
        pthread_mutex_unlock(&lookup_mu);
    }
    return entries[op].first && entries[op].second;
}

aclDataType npu_acl_dtype(mt_dtype t) {
    switch (t) {
    case MT_BOOL:
        return ACL_BOOL;
    case MT_UINT8:
        return ACL_UINT8;
    case MT_INT8:
        return ACL_INT8;
    case MT_INT16:
        return ACL_INT16;
    case MT_INT32:
        return ACL_INT32;
    case MT_INT64:
        return ACL_INT64;
    case MT_FLOAT16:
        return ACL_FLOAT16;
    case MT_BFLOAT16:
        return ACL_BF16;
    case MT_FLOAT32:
        return ACL_FLOAT;
    case MT_FLOAT64:
        return ACL_DOUBLE;
    default:
        return ACL_DT_UNDEFINED;
    }
}

static int device_of(const mt_tensor *t) {
    return t->device.index < 0 ? npu_current_device() : t->device.index;
}

int npu_launch_begin(npu_launch *L, const mt_tensor *on) {
    *L = (npu_launch){.device = device_of(on)};
    if (npu_bind(L->device)) return -1;
    L->stream = npu_current_stream(L->device);
    return 0;
}

static void *keep(npu_launch *L, const void *p, int kind, const char *what) {
    if (!p) {
        if (!L->failed)
            mt_error(MT_ERR_RUNTIME, "%s failed: NPU operator arguments could not be made", what);
        L->failed = true;
        return NULL;
    }
    if (L->nobjects ==
        NPU_LAUNCH_MAX_OBJECTS) { /* a programming error in a kernel: too many arguments */
        if (!L->failed)
            mt_error(MT_ERR_RUNTIME, "NPU launch: more than %d operator arguments",
                     NPU_LAUNCH_MAX_OBJECTS);
        L->failed = true;
        return NULL;
    }
    L->objects[L->nobjects].p = p;
    L->objects[L->nobjects++].kind = kind;
    return (void *)p;
}

/* a device copy of a 0-d CPU tensor, owned by the launch */
static mt_tensor *device_scalar(npu_launch *L, const mt_tensor *t) {
    if (L->ntemps == NPU_LAUNCH_MAX_TEMPS) {
        mt_error(MT_ERR_RUNTIME, "NPU launch: more than %d CPU scalar arguments",
                 NPU_LAUNCH_MAX_TEMPS);
        return NULL;
    }
    mt_tensor *d =
        mt_tensor_empty(0, NULL, (mt_dtype)t->dtype, (mt_device){npu_devtype, L->device});
    if (!d) return NULL;
    if (npu_copy_bytes(mt_tensor_raw(d), d->device, mt_tensor_raw(t), t->device,
                       mt_dtype_size((mt_dtype)t->dtype))) {
        mt_tensor_decref(d);
        return NULL;
    }
    L->temps[L->ntemps++] = d;
    return d;
}

aclTensor *npu_tensor(npu_launch *L, mt_tensor *t) {
    if (L->failed) return NULL;
    if (t->device.type != npu_devtype) {
        if (t->device.type == MT_DEV_CPU && t->ndim == 0)
            t = device_scalar(L, t);
        else
            mt_error(MT_ERR_RUNTIME, "an NPU operator was given a tensor on %s",
                     t->device.type == MT_DEV_META ? "meta" : "cpu");
        if (!t || t->device.type != npu_devtype) {
            L->failed = true;
            return NULL;
        }
    }
    size_t isz = mt_dtype_size((mt_dtype)t->dtype);
    int64_t storage_elems = (int64_t)(t->storage->nbytes / isz);
    return keep(L,
                npu_acl.aclCreateTensor(t->sizes, (uint64_t)t->ndim,
                                        npu_acl_dtype((mt_dtype)t->dtype), t->strides, t->offset,
                                        ACL_FORMAT_ND, &storage_elems, 1, t->storage->data),
                OBJ_TENSOR, "aclCreateTensor");
}

aclScalar *npu_scalar(npu_launch *L, mt_value v) {
    if (L->failed) return NULL;
    double d = v.tag == MT_V_DOUBLE ? v.d : 0;
    int64_t i = v.tag == MT_V_INT ? v.i : 0;
    bool b = v.tag == MT_V_BOOL && v.b;
    void *p = v.tag == MT_V_DOUBLE ? (void *)&d : v.tag == MT_V_BOOL ? (void *)&b : (void *)&i;
    aclDataType dt = v.tag == MT_V_DOUBLE ? ACL_DOUBLE : v.tag == MT_V_BOOL ? ACL_BOOL : ACL_INT64;
    return keep(L, npu_acl.aclCreateScalar(p, dt), OBJ_SCALAR,
                "aclCreateScalar"); /* the value is copied */
}

aclIntArray *npu_int_array(npu_launch *L, const int64_t *v, int n) {
    if (L->failed) return NULL;
    return keep(L, npu_acl.aclCreateIntArray(v, (uint64_t)n), OBJ_INT_ARRAY, "aclCreateIntArray");
}

void *npu_aclnn_first_phase(npu_launch *L, int op) {
    if (L->failed) return NULL;
    if (!resolve(op)) {
        mt_error(MT_ERR_RUNTIME,
                 "NPU operator %s is not available: %s or %sGetWorkspaceSize was not found in the "
                 "operator "
                 "libraries",
                 op_names[op], op_names[op], op_names[op]);
        L->failed = true;
        return NULL;
    }
    return entries[op].first;
}

/* destroy the operator arguments; the device copies go back to the caching allocator, whose
 * reuse is ordered on this stream after the operator */
static void release(npu_launch *L) {
    for (int i = 0; i < L->nobjects; i++) {
        const void *p = L->objects[i].p;
        switch (L->objects[i].kind) {
        case OBJ_TENSOR:
            npu_acl.aclDestroyTensor(p);
            break;
        case OBJ_SCALAR:
            npu_acl.aclDestroyScalar(p);
            break;
        default:
            npu_acl.aclDestroyIntArray(p);
            break;
        }
    }
    for (int i = 0; i < L->ntemps; i++) mt_tensor_decref(L->temps[i]);
    L->nobjects = L->ntemps = 0;
}

int npu_aclnn_finish(npu_launch *L, int op, aclnnStatus status) {
    int rc = 0;
    if (op < 0 || L->failed) {
        rc = -1; /* the error is set */
        if (L->executor) npu_acl.aclDestroyAclOpExecutor(L->executor);
    } else if (status != ACLNN_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "%sGetWorkspaceSize", op_names[op]);
        rc = npu_acl_error(status, what);
        if (L->executor) npu_acl.aclDestroyAclOpExecutor(L->executor);
    } else {
        void *ws = NULL;
        if (L->workspace_size > 0) {
            ws =
                accel_storage_malloc(&npu_storage, L->device, (size_t)L->workspace_size, L->stream);
            if (!ws) {
                npu_acl.aclDestroyAclOpExecutor(L->executor); /* never launched: not used up */
                release(L);
                return -1;
            }
        }
        aclnnStatus s =
            ((aclnn_launch_fn)entries[op].second)(ws, L->workspace_size, L->executor, L->stream);
        rc = s != ACLNN_SUCCESS ? npu_acl_error(s, op_names[op])
                                : npu_launched(L->stream, op_names[op]);
        if (ws) accel_storage_free(&npu_storage, ws); /* reused only by later work on this stream */
    }
    L->executor = NULL;
    release(L);
    return rc;
}
