/* cuda_copy.c: CUDA's copies (the shared orchestration of backends/accel/accel_copy.h over the
 * driver's byte copies and the element-wise copy kernel for layouts, dtypes and broadcasting)
 * and factories. */
#include <stdint.h>

#include "accel_copy.h"
#include "cuda_alloc.h"
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"

static CUdeviceptr dptr(const void *p) {
    return (CUdeviceptr)(uintptr_t)p;
}

/* the device made current on this thread and its current stream; NULL with the error set */
static void *stream_of(int device) {
    return cuda_bind(device) ? NULL : cuda_current_stream(device);
}

static int memcpy_on(int device, void *dst, const void *src, size_t n, int kind, bool wait) {
    CUstream s = stream_of(device);
    if (!s) return -1;
    CUresult e = kind == ACCEL_H2D   ? cuda_drv.cuMemcpyHtoDAsync_v2(dptr(dst), src, n, s)
                 : kind == ACCEL_D2H ? cuda_drv.cuMemcpyDtoHAsync_v2(dst, dptr(src), n, s)
                                     : cuda_drv.cuMemcpyDtoDAsync_v2(dptr(dst), dptr(src), n, s);
    if (e != CUDA_SUCCESS) return cuda_error(e, "cuMemcpyAsync");
    if (wait) CUDA_CHECK(cuda_drv.cuStreamSynchronize(s), "cuStreamSynchronize");
    return cuda_launched(s, "cuMemcpyAsync");
}

/* dst <- src on one device, more than their bytes: the element-wise copy kernel */
static int lay_out(mt_tensor *dst, mt_tensor *src) {
    mt_tensor *in[1] = {src};
    return cuda_ew(dst, CK_COPY, 1, in, NULL, NULL, (mt_dtype)src->dtype);
}

static const accel_copier copier = {
    .devtype = &cuda_devtype,
    .storage = &cuda_storage,
    .current_device = cuda_current_device,
    .memcpy_on = memcpy_on,
    .lay_out = lay_out,
    .stream_of = stream_of,
    .contiguous = &cuda_op_contiguous,
    .copy_ = &cuda_op_copy_,
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

static int fill(mt_tensor *t, mt_value v) {
    return cuda_ew(t, CK_FILL, 0, NULL, &v, NULL, (mt_dtype)t->dtype);
}

int cuda_zero(mt_tensor *t) {
    size_t n = (size_t)t->numel * mt_dtype_size((mt_dtype)t->dtype);
    if (n == 0) return 0;
    CUstream s = stream_of(cuda_device_of(t));
    if (!s) return -1;
    CUDA_CHECK(cuda_drv.cuMemsetD8Async(dptr(mt_tensor_raw(t)), 0, n, s), "cuMemsetD8Async");
    return cuda_launched(s, "cuMemsetD8Async");
}

static int zeros_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    (void)args;
    return cuda_zero(rets[0].t); /* fresh and contiguous */
}

static int ones_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    (void)args;
    return fill(rets[0].t, mt_vint(1));
}

static int fill_impl(mt_call *c, mt_value *args, mt_value *rets) { /* full(size, value), fill_ */
    (void)c;
    return fill(rets[0].t, args[1]);
}

const mt_kernel_entry cuda_copy_kernels[] = {
    {"empty_strided", empty_impl}, {"empty", empty_impl}, {"zeros", zeros_impl},
    {"ones", ones_impl},           {"full", fill_impl},   {"fill_.Scalar", fill_impl},
    {"copy_", copy_impl},          {"clone", clone_impl},
};
const size_t cuda_copy_kernels_count = MT_ARRAY_LEN(cuda_copy_kernels);

/* byte copies for the core (storage copies, pinned transfers): synchronous */
int cuda_copy_bytes(void *dst, mt_device dd, const void *src, mt_device sd, size_t n) {
    return accel_copy_bytes(&copier, dst, dd, src, sd, n);
}
