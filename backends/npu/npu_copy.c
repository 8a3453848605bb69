/* npu_copy.c: moving bytes on, off and between NPU devices, and the allocation-only and
 * zero-filling factories. Copies run on the current stream; a copy that reads or writes host
 * memory waits for it, so the host buffer may go as soon as it returns. */
#include <string.h>

#include "mt_dispatch.h"
#include "mt_ops_gen.h"
#include "mt_storage.h"
#include "mt_tensor.h"
#include "npu_ops.h"

static int dev_of(const mt_tensor *t) { return t->device.index < 0 ? npu_current_device() : t->device.index; }

/* the elements a strided tensor touches, from its storage offset: one past the last */
static int64_t span_elems(const mt_tensor *t) {
    if (t->numel == 0) return 0;
    int64_t last = 0;
    for (int i = 0; i < t->ndim; i++) last += (t->sizes[i] - 1) * t->strides[i];
    return last + 1;
}

static int stream_sync(aclrtStream s) {
    NPU_CHECK(npu_acl.aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
    return 0;
}

/* the device made current on this thread and its current stream; NULL with the error set */
static aclrtStream stream_of(int device) { return npu_bind(device) ? NULL : npu_current_stream(device); }

/* A CPU tensor with src's sizes, strides and dtype over a host copy of the device bytes it
 * covers (the whole span, so any layout comes over as it is). */
static mt_tensor *download(mt_tensor *src) {
    int64_t span = span_elems(src);
    size_t isz = mt_dtype_size((mt_dtype)src->dtype);
    int64_t flat = span;
    mt_tensor *host = mt_tensor_empty(1, &flat, (mt_dtype)src->dtype, MT_CPU);
    if (!host) return NULL;
    if (span > 0) {
        aclrtStream s = stream_of(dev_of(src));
        if (!s) goto fail;
        aclError e = npu_acl.aclrtMemcpyAsync(mt_tensor_raw(host), (size_t)span * isz, mt_tensor_raw(src),
                                              (size_t)span * isz, ACL_MEMCPY_DEVICE_TO_HOST, s);
        if (e != ACL_SUCCESS) {
            npu_acl_error(e, "aclrtMemcpyAsync");
            goto fail;
        }
        if (stream_sync(s)) goto fail;
    }
    mt_tensor *view = mt_tensor_view_of(host, src->ndim, src->sizes, src->strides, 0);
    mt_tensor_decref(host);
    return view;
fail:
    mt_tensor_decref(host);
    return NULL;
}

/* dst (NPU, contiguous) <- host bytes of a contiguous CPU tensor of dst's dtype and numel */
static int upload_contiguous(mt_tensor *dst, mt_tensor *host) {
    size_t n = (size_t)dst->numel * mt_dtype_size((mt_dtype)dst->dtype);
    if (n == 0) return 0;
    aclrtStream s = stream_of(dev_of(dst));
    if (!s) return -1;
    NPU_CHECK(npu_acl.aclrtMemcpyAsync(mt_tensor_raw(dst), n, mt_tensor_raw(host), n, ACL_MEMCPY_HOST_TO_DEVICE, s),
              "aclrtMemcpyAsync");
    return stream_sync(s); /* the host buffer may go when we return */
}

/* dst (NPU, any layout) <- src (CPU, anything copy_ accepts) */
static int upload(mt_tensor *dst, mt_tensor *src) {
    if (mt_tensor_is_contiguous(dst)) {
        mt_tensor *host = mt_tensor_empty(dst->ndim, dst->sizes, (mt_dtype)dst->dtype, MT_CPU);
        if (!host) return -1;
        int rc = mto_copy_(host, src, false) ? 0 : -1; /* casts, broadcasts, gathers strides on the CPU */
        if (!rc) mt_tensor_decref(host); /* the op's result is `host` again */
        if (!rc) rc = upload_contiguous(dst, host);
        mt_tensor_decref(host);
        return rc;
    }
    /* a strided destination: its span comes down, is written on the host and goes back up
     * (whole: the gaps between its elements keep their bytes) */
    mt_tensor *span = download(dst);
    if (!span) return -1;
    int rc = mto_copy_(span, src, false) ? 0 : -1;
    if (!rc) mt_tensor_decref(span);
    if (!rc && span->numel > 0) {
        size_t n = (size_t)span_elems(dst) * mt_dtype_size((mt_dtype)dst->dtype);
        aclrtStream s = stream_of(dev_of(dst));
        if (!s) rc = -1;
        else {
            aclError e = npu_acl.aclrtMemcpyAsync(mt_tensor_raw(dst), n, mt_tensor_raw(span), n,
                                                  ACL_MEMCPY_HOST_TO_DEVICE, s);
            rc = e != ACL_SUCCESS ? npu_acl_error(e, "aclrtMemcpyAsync") : stream_sync(s);
        }
    }
    mt_tensor_decref(span);
    return rc;
}

int npu_copy_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    (void)rets;
    mt_tensor *dst = args[0].t, *src = args[1].t;
    bool dst_npu = dst->device.type == MT_DEV_NPU, src_npu = src->device.type == MT_DEV_NPU;
    if (dst->numel == 0) return 0;
    if (dst_npu && src_npu && dst->dtype == src->dtype && dst->numel == src->numel && dev_of(dst) == dev_of(src) &&
        mt_tensor_is_contiguous(dst) && mt_tensor_is_contiguous(src)) {
        aclrtStream s = stream_of(dev_of(dst));
        if (!s) return -1;
        size_t n = (size_t)dst->numel * mt_dtype_size((mt_dtype)dst->dtype);
        NPU_CHECK(npu_acl.aclrtMemcpyAsync(mt_tensor_raw(dst), n, mt_tensor_raw(src), n, ACL_MEMCPY_DEVICE_TO_DEVICE,
                                           s),
                  "aclrtMemcpyAsync");
        return 0;
    }
    if (src_npu) { /* through the host: the device bytes come down, then go where dst is */
        mt_tensor *host = download(src);
        if (!host) return -1;
        int rc;
        if (dst_npu) rc = upload(dst, host);
        else {
            rc = mto_copy_(dst, host, false) ? 0 : -1;
            if (!rc) mt_tensor_decref(dst);
        }
        mt_tensor_decref(host);
        return rc;
    }
    return upload(dst, src);
}

int npu_empty_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    (void)args;
    (void)rets;
    return 0; /* the dispatcher allocated the result */
}

int npu_zeros_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    (void)args;
    mt_tensor *t = rets[0].t;
    size_t n = (size_t)span_elems(t) * mt_dtype_size((mt_dtype)t->dtype);
    if (n == 0) return 0;
    aclrtStream s = stream_of(dev_of(t));
    if (!s) return -1;
    NPU_CHECK(npu_acl.aclrtMemsetAsync(mt_tensor_raw(t), n, 0, n, s), "aclrtMemsetAsync");
    return 0;
}

/* fill_, ones, full: the value is broadcast on the host and uploaded (until ACLNN's
 * InplaceFillScalar serves them) */
int npu_fill_impl(mt_call *c, mt_value *args, mt_value *rets) {
    mt_tensor *t = rets[0].t;
    mt_value v = c->op->id == MT_OP_full ? args[1] : c->op->id == MT_OP_ones ? mt_vint(1) : args[1];
    mt_dtype dt = (mt_dtype)t->dtype;
    mt_tensor *s = v.tag == MT_V_DOUBLE ? mt_tensor_scalar_double(v.d, dt)
                   : v.tag == MT_V_BOOL ? mt_tensor_scalar_int64(v.b, dt)
                                        : mt_tensor_scalar_int64(v.i, dt);
    if (!s) return -1;
    int rc = upload(t, s);
    mt_tensor_decref(s);
    return rc;
}

/* byte copies for the core (storage copies, pinned transfers): synchronous */
int npu_copy_bytes(void *dst, mt_device dd, const void *src, mt_device sd, size_t n) {
    if (n == 0) return 0;
    aclrtMemcpyKind kind = dd.type == MT_DEV_NPU ? (sd.type == MT_DEV_NPU ? ACL_MEMCPY_DEVICE_TO_DEVICE
                                                                           : ACL_MEMCPY_HOST_TO_DEVICE)
                                                 : ACL_MEMCPY_DEVICE_TO_HOST;
    mt_device dev = dd.type == MT_DEV_NPU ? dd : sd;
    aclrtStream s = stream_of(dev.index < 0 ? npu_current_device() : dev.index);
    if (!s) return -1;
    NPU_CHECK(npu_acl.aclrtMemcpyAsync(dst, n, src, n, kind, s), "aclrtMemcpyAsync");
    return stream_sync(s);
}
