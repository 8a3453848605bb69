/* plugin_host_npu.c: a minimal device module, built as its own shared object and loaded with
 * dlopen by test_plugin.c, proving that a separately loaded backend can register a device
 * (allocator, copies) and kernels with the core. It keeps "npu" memory in host RAM: a test
 * double for the registration API only, not the NPU backend. */
#include <stdlib.h>
#include <string.h>

#include "mt_dispatch.h"
#include "mt_ops_gen.h"

static int live_blocks;

static void *host_alloc(mt_allocator *self, size_t n, mt_device dev) {
    (void)self;
    (void)dev;
    live_blocks++;
    return malloc(n ? n : 1);
}

static void host_free(mt_allocator *self, void *p, size_t n, mt_device dev) {
    (void)self;
    (void)n;
    (void)dev;
    live_blocks--;
    free(p);
}

static mt_allocator allocator = {"host-npu", host_alloc, host_free};

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
static int count(void) { return 1; }
static int current(void) { return 0; }

static const mt_backend backend = {MT_DEV_NPU, &allocator, copy_bytes, sync_dev, count, current, NULL};

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
    if (!mt_tensor_is_contiguous(dst) || !mt_tensor_is_contiguous(src) || dst->dtype != src->dtype ||
        dst->numel != src->numel)
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "the test device copies contiguous tensors of one dtype only");
    memcpy(mt_tensor_raw(dst), mt_tensor_raw(src), (size_t)src->numel * mt_dtype_size((mt_dtype)src->dtype));
    return 0;
}

MT_API int plugin_init(void) {
    if (mt_backend_register(&backend)) return -1;
    mt_disp_impl(MT_OP_zeros, MT_KEY_NPU, zeros_impl);
    mt_disp_impl(MT_OP_empty_strided, MT_KEY_NPU, empty_impl);
    mt_disp_impl(MT_OP_copy_, MT_KEY_NPU, copy_impl);
    return 0;
}

MT_API int plugin_live_blocks(void) { return live_blocks; }
