/* npu_copy.c: the NPU's copies (the shared orchestration of backends/accel/accel_copy.h over
 * ACL's byte copies and aclnnInplaceCopy / aclnnCast for layouts and dtypes) and factories. */
#include <string.h>

#include "accel_copy.h"
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
static void *stream_of(int device) {
    return npu_bind(device) ? NULL : npu_current_stream(device);
}

static int memcpy_on(int device, void *dst, const void *src, size_t n, int kind, bool wait) {
    aclrtStream s = stream_of(device);
    if (!s) return -1;
    aclrtMemcpyKind k = kind == ACCEL_H2D   ? ACL_MEMCPY_HOST_TO_DEVICE
                        : kind == ACCEL_D2H ? ACL_MEMCPY_DEVICE_TO_HOST
                                            : ACL_MEMCPY_DEVICE_TO_DEVICE;
    NPU_CHECK(npu_acl.aclrtMemcpyAsync(dst, n, src, n, k, s), "aclrtMemcpyAsync");
    if (wait) NPU_CHECK(npu_acl.aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
    return npu_launched(s, "aclrtMemcpyAsync");
}

/* dst <- src on one NPU device, more than their bytes: layouts and broadcasting
 * (aclnnInplaceCopy), dtypes (aclnnCast) */
static int lay_out(mt_tensor *dst, mt_tensor *src) {
    npu_launch L;
    if (npu_launch_begin(&L, dst)) return -1;
    aclTensor *d = npu_tensor(&L, dst), *s = npu_tensor(&L, src);
    bool same_shape = dst->ndim == src->ndim &&
                      !memcmp(dst->sizes, src->sizes, sizeof(int64_t) * (size_t)dst->ndim);
    if (dst->dtype != src->dtype && same_shape && mt_tensor_is_contiguous(dst))
        return NPU_ACLNN(&L, Cast, s, npu_acl_dtype((mt_dtype)dst->dtype), d);
    return NPU_ACLNN(&L, InplaceCopy, d, s);
}

static const accel_copier copier = {
    .devtype = &npu_devtype,
    .storage = &npu_storage,
    .current_device = npu_current_device,
    .memcpy_on = memcpy_on,
    .lay_out = lay_out,
    .stream_of = stream_of,
    .contiguous = &npu_op_contiguous,
    .copy_ = &npu_op_copy_,
};

static int copy_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    (void)rets;
    return accel_copy(&copier, args[0].t, args[1].t, args[2].tag == MT_V_BOOL && args[2].b);
}

static int clone_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    return accel_device_copy(&copier, rets[0].t, args[0].t);
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
    return accel_copy_bytes(&copier, dst, dd, src, sd, n);
}
