/* plugin_testdev.c: a minimal device module, built as its own shared object, proving that a
 * separately loaded backend registers a device type ("testdev": allocator, copies, pinned host
 * memory) and its kernels by op name with the core. The core loads it as it would any module
 * (MINDTORCH_TESTDEV_MODULE names it; test_plugin.c). Its "device" memory is host RAM: a test
 * double for the registration API only. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mt_dispatch.h"

static atomic_int live_blocks, pinned_blocks, init_calls;

static void *host_alloc(mt_allocator *self, size_t n, mt_device dev) {
    (void)dev;
    atomic_fetch_add(self->name[0] == 'p' ? &pinned_blocks : &live_blocks, 1);
    return malloc(n ? n : 1);
}

static void host_free(mt_allocator *self, void *p, size_t n, mt_device dev) {
    (void)n;
    (void)dev;
    atomic_fetch_sub(self->name[0] == 'p' ? &pinned_blocks : &live_blocks, 1);
    free(p);
}

static mt_allocator allocator = {"testdev", host_alloc, host_free};
static mt_allocator pinned = {"pinned-testdev", host_alloc, host_free};

static int copy_bytes(void *dst, mt_device dd, const void *src, mt_device sd, size_t n) {
    (void)dd;
    (void)sd;
    memmove(dst, src, n);
    return 0;
}

static int sync_dev(mt_device d) {
    (void)d;
    return 0;
}
static int count(void) {
    return 1;
}
static int current(void) {
    return 0;
}

static const mt_backend backend = {
    .name = "testdev",
    .allocator = &allocator,
    .copy_bytes = copy_bytes,
    .synchronize = sync_dev,
    .device_count = count,
    .current_device = current,
    .host_allocator = &pinned,
    .float16_kernels = true,
};

/* zeros on the device: the dispatcher allocated the result from the meta function */
static int zeros_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    (void)args;
    mt_tensor *t = rets[0].t;
    memset(t->storage->data, 0, t->storage->nbytes);
    return 0;
}

/* allocation-only factories: the dispatcher allocated the result */
static int empty_impl(mt_call *c, mt_value *args, mt_value *rets) {
    (void)c;
    (void)args;
    (void)rets;
    return 0;
}

/* copy_ between the device and the host, contiguous tensors of one dtype (to() is empty_strided
 * and copy_, so this is what moves tensors on and off the device) */
static int copy_impl(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    (void)r;
    mt_tensor *dst = a[0].t, *src = a[1].t;
    if (!mt_tensor_is_contiguous(dst) || !mt_tensor_is_contiguous(src) ||
        dst->dtype != src->dtype || dst->numel != src->numel)
        return mt_error(MT_ERR_NOT_IMPLEMENTED,
                        "the test device copies contiguous tensors of one dtype only");
    memcpy(mt_tensor_raw(dst), mt_tensor_raw(src),
           (size_t)src->numel * mt_dtype_size((mt_dtype)src->dtype));
    return 0;
}

static const mt_kernel_entry kernels[] = {
    {"zeros", zeros_impl},
    {"empty_strided", empty_impl},
    {"copy_", copy_impl},
};

/* what the core's loader runs (mt_<type>_backend_init) */
MT_API int mt_testdev_backend_init(void) {
    atomic_fetch_add(&init_calls, 1);
    int type = mt_backend_register(MT_BACKEND_ABI_VERSION, &backend);
    if (type < 0) return -1;
    return mt_backend_register_kernels(MT_BACKEND_ABI_VERSION, mt_key_for_device(type), kernels,
                                       MT_ARRAY_LEN(kernels));
}

MT_API int plugin_live_blocks(void) {
    return atomic_load(&live_blocks);
}
MT_API int plugin_pinned_blocks(void) {
    return atomic_load(&pinned_blocks);
}
MT_API int plugin_init_calls(void) {
    return atomic_load(&init_calls);
}
