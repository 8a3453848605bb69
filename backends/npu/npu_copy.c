/* npu_copy.c: moving data on, off and between NPU devices, and the factories. Copies run on
 * the current stream. Between host and device only contiguous bytes travel: layouts, dtype
 * conversions and broadcasting are done on the device (aclnnInplaceCopy, aclnnCast) or, for
 * the host side, by the CPU's copy_. A copy that reads or writes host memory waits for its
 * stream, so the host buffer may go as soon as it returns, except a non_blocking one between a
 * device and pinned memory (PyTorch's): it stays queued, and the pinned block is reused only
 * after it (the host cache waits for the stream). */
#include <string.h>

#include "mt_dispatch.h"
#include "mt_storage.h"
#include "mt_tensor.h"
#include "npu_aclnn.h"
#include "npu_alloc.h"
#include "npu_ops.h"

static int dev_of(const mt_tensor *t) {
    return t->device.index < 0 ? npu_current_device() : t->device.index;
}

static size_t nbytes_of(const mt_tensor *t) {
    return (size_t)t->numel * mt_dtype_size((mt_dtype)t->dtype);
}

/* the device made current on this thread and its current stream; NULL with the error set */
static aclrtStream stream_of(int device) {
    return npu_bind(device) ? NULL : npu_current_stream(device);
}

static int memcpy_on(int device, void *dst, const void *src, size_t n, aclrtMemcpyKind kind,
                     bool wait) {
    aclrtStream s = stream_of(device);
    if (!s) return -1;
    NPU_CHECK(npu_acl.aclrtMemcpyAsync(dst, n, src, n, kind, s), "aclrtMemcpyAsync");
    if (wait) NPU_CHECK(npu_acl.aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
    return npu_launched(s, "aclrtMemcpyAsync");
}

/* dst <- src, both on one NPU device: any layouts, dtypes and a src that broadcasts to dst */
static int device_copy(mt_tensor *dst, mt_tensor *src) {
    if (dst->dtype == src->dtype && dst->numel == src->numel && mt_tensor_is_contiguous(dst) &&
        mt_tensor_is_contiguous(src))
        return memcpy_on(dev_of(dst), mt_tensor_raw(dst), mt_tensor_raw(src), nbytes_of(dst),
                         ACL_MEMCPY_DEVICE_TO_DEVICE, false);
    npu_launch L;
    if (npu_launch_begin(&L, dst)) return -1;
    aclTensor *d = npu_tensor(&L, dst), *s = npu_tensor(&L, src);
    bool same_shape = dst->ndim == src->ndim &&
                      !memcmp(dst->sizes, src->sizes, sizeof(int64_t) * (size_t)dst->ndim);
    if (dst->dtype != src->dtype && same_shape && mt_tensor_is_contiguous(dst))
        return NPU_ACLNN(&L, Cast, s, npu_acl_dtype((mt_dtype)dst->dtype), d);
    return NPU_ACLNN(&L, InplaceCopy, d, s);
}

/* a contiguous NPU tensor with t's sizes and dtype, on t's device */
static mt_tensor *device_like(const mt_tensor *t, int device) {
    return mt_tensor_empty(t->ndim, t->sizes, (mt_dtype)t->dtype, (mt_device){npu_devtype, device});
}

/* a contiguous CPU copy of an NPU tensor (made contiguous on the device first) */
static mt_tensor *download(mt_tensor *src) {
    mt_tensor *dense = NULL, *from = src, *host = NULL;
    if (!mt_tensor_is_contiguous(src)) {
        dense = device_like(src, dev_of(src));
        if (!dense || device_copy(dense, src)) goto fail;
        from = dense;
    }
    host = mt_tensor_empty(src->ndim, src->sizes, (mt_dtype)src->dtype, MT_CPU);
    if (!host) goto fail;
    if (host->numel && memcpy_on(dev_of(from), mt_tensor_raw(host), mt_tensor_raw(from),
                                 nbytes_of(host), ACL_MEMCPY_DEVICE_TO_HOST, true))
        goto fail;
    if (dense) mt_tensor_decref(dense);
    return host;
fail:
    if (host) mt_tensor_decref(host);
    if (dense) mt_tensor_decref(dense);
    return NULL;
}

/* the ops this module calls, by the handles npu_module.c looked up by name */
static mt_tensor *contiguous(mt_tensor *t) {
    mt_value a[1] = {mt_vtensor(t)}, r[1];
    return mt_call_op(npu_op_contiguous->id, a, r) ? NULL : r[0].t;
}

static mt_tensor *copy_(mt_tensor *dst, mt_tensor *src) {
    mt_value a[3] = {mt_vtensor(dst), mt_vtensor(src), mt_vbool(false)}, r[1];
    return mt_call_op(npu_op_copy_->id, a, r) ? NULL : r[0].t;
}

/* a copy between the contiguous bytes of an NPU tensor and a pinned CPU tensor that may stay
 * queued (non_blocking): done (1) or not possible this way (0), or -1 */
static int pinned_async(mt_tensor *npu_t, mt_tensor *cpu_t, bool upload_dir) {
    if (cpu_t->dtype != npu_t->dtype || cpu_t->numel != npu_t->numel ||
        !mt_tensor_is_contiguous(cpu_t) || !mt_tensor_is_contiguous(npu_t) ||
        !(cpu_t->storage->flags & MT_STORAGE_PINNED) ||
        !accel_storage_is_pinned(&npu_storage, cpu_t->storage->data))
        return 0;
    int device = dev_of(npu_t);
    aclrtStream s = stream_of(device);
    if (!s) return -1;
    if (accel_host_alloc_record_stream(accel_storage_host_caching(&npu_storage),
                                       cpu_t->storage->data, device, s))
        return -1;
    size_t n = nbytes_of(npu_t);
    void *dst = upload_dir ? mt_tensor_raw(npu_t) : mt_tensor_raw(cpu_t);
    const void *src = upload_dir ? mt_tensor_raw(cpu_t) : mt_tensor_raw(npu_t);
    return memcpy_on(device, dst, src, n,
                     upload_dir ? ACL_MEMCPY_HOST_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_HOST, false)
               ? -1
               : 1;
}

/* dst (NPU, any layout) <- src (CPU, anything copy_ accepts) */
static int upload(mt_tensor *dst, mt_tensor *src, bool non_blocking) {
    if (non_blocking) {
        int done = pinned_async(dst, src, true);
        if (done) return done < 0 ? -1 : 0;
    }
    mt_tensor *host = contiguous(src); /* a new ref; src itself when already contiguous */
    if (!host) return -1;
    int device = dev_of(dst), rc;
    if (host->dtype == dst->dtype && host->numel == dst->numel && mt_tensor_is_contiguous(dst))
        rc = memcpy_on(device, mt_tensor_raw(dst), mt_tensor_raw(host), nbytes_of(dst),
                       ACL_MEMCPY_HOST_TO_DEVICE, true);
    else { /* the host bytes go up as they are; the device lays them out (and converts, broadcasts)
            */
        mt_tensor *staged = device_like(host, device);
        rc = staged ? 0 : -1;
        if (!rc && host->numel)
            rc = memcpy_on(device, mt_tensor_raw(staged), mt_tensor_raw(host), nbytes_of(host),
                           ACL_MEMCPY_HOST_TO_DEVICE, true);
        if (!rc) rc = device_copy(dst, staged);
        if (staged) mt_tensor_decref(staged);
    }
    mt_tensor_decref(host);
    return rc;
}

static int copy_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    (void)rets;
    mt_tensor *dst = args[0].t, *src = args[1].t;
    bool dst_npu = dst->device.type == npu_devtype, src_npu = src->device.type == npu_devtype;
    bool non_blocking = args[2].tag == MT_V_BOOL && args[2].b;
    if (dst->numel == 0) return 0;
    if (dst_npu && src_npu && dev_of(dst) == dev_of(src)) return device_copy(dst, src);
    if (!src_npu) return upload(dst, src, non_blocking);
    if (!dst_npu && non_blocking && dst->device.type == MT_DEV_CPU) {
        int done = pinned_async(src, dst, false);
        if (done) return done < 0 ? -1 : 0;
    }
    /* from the device: through the host (to the CPU, or to another NPU device) */
    mt_tensor *host = download(src);
    if (!host) return -1;
    int rc;
    if (dst_npu)
        rc = upload(dst, host, false);
    else {
        rc = copy_(dst, host) ? 0 : -1;
        if (!rc) mt_tensor_decref(dst); /* the op's result is dst again */
    }
    mt_tensor_decref(host);
    return rc;
}

static int clone_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    return rets[0].t->numel ? device_copy(rets[0].t, args[0].t) : 0;
}

static int empty_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    (void)args;
    (void)rets;
    return 0; /* the dispatcher allocated the result */
}

static int zeros_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    (void)args;
    mt_tensor *t = rets[0].t; /* fresh and contiguous */
    size_t n = nbytes_of(t);
    if (n == 0) return 0;
    aclrtStream s = stream_of(dev_of(t));
    if (!s) return -1;
    NPU_CHECK(npu_acl.aclrtMemsetAsync(mt_tensor_raw(t), n, 0, n, s), "aclrtMemsetAsync");
    return npu_launched(s, "aclrtMemsetAsync");
}

/* fill_, ones, full: aclnnInplaceFillScalar */
static int fill(mt_tensor *t, mt_value v) {
    if (t->numel == 0) return 0;
    npu_launch L;
    if (npu_launch_begin(&L, t)) return -1;
    aclTensor *x = npu_tensor(&L, t);
    aclScalar *s = npu_scalar(&L, v);
    return NPU_ACLNN(&L, InplaceFillScalar, x, s);
}

static int fill_impl(mt_call *c, mt_value *args, mt_value *rets) { /* full(size, value), fill_ */
    (void)c;
    return fill(rets[0].t, args[1]);
}

static int ones_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    (void)args;
    return fill(rets[0].t, mt_vint(1));
}

/* arange(end), arange(start, end), arange(start, end, step): the result's length is the meta
 * function's; the device counts from start */
static int arange(mt_tensor *t, mt_value start, mt_value end, mt_value step) {
    if (t->numel == 0) return 0;
    npu_launch L;
    if (npu_launch_begin(&L, t)) return -1;
    aclScalar *s0 = npu_scalar(&L, start), *s1 = npu_scalar(&L, end), *ds = npu_scalar(&L, step);
    aclTensor *x = npu_tensor(&L, t);
    return NPU_ACLNN(&L, Arange, s0, s1, ds, x);
}

static int arange_end(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    return arange(rets[0].t, mt_vint(0), args[0], mt_vint(1));
}
static int arange_start(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    return arange(rets[0].t, args[0], args[1], mt_vint(1));
}
static int arange_start_step(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    return arange(rets[0].t, args[0], args[1], args[2]);
}

const mt_kernel_entry npu_copy_kernels[] = {
    {"empty_strided", empty_impl},
    {"empty", empty_impl},
    {"zeros", zeros_impl},
    {"ones", ones_impl},
    {"full", fill_impl},
    {"fill_.Scalar", fill_impl},
    {"copy_", copy_impl},
    {"clone", clone_impl},
    {"arange", arange_end},
    {"arange.start", arange_start},
    {"arange.start_step", arange_start_step},
};
const size_t npu_copy_kernels_count = MT_ARRAY_LEN(npu_copy_kernels);

/* byte copies for the core (storage copies, pinned transfers): synchronous */
int npu_copy_bytes(void *dst, mt_device dd, const void *src, mt_device sd, size_t n) {
    if (n == 0) return 0;
    aclrtMemcpyKind kind =
        dd.type == npu_devtype
            ? (sd.type == npu_devtype ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_HOST_TO_DEVICE)
            : ACL_MEMCPY_DEVICE_TO_HOST;
    mt_device dev = dd.type == npu_devtype ? dd : sd;
    return memcpy_on(dev.index < 0 ? npu_current_device() : dev.index, dst, src, n, kind, true);
}
