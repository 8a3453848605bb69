/* npu_module.c: what loading the NPU module does: register the "npu" device with the core
 * (its caching allocator, copies, synchronisation) and its kernels, by op name, on the
 * dispatch key the core gives it. The core loads this shared object on first use of an "npu"
 * device (src/mt_device.c), and torch.npu loads it as a Lua module; both reach the same, once. */
#include <pthread.h>

#include "accel_register.h"
#include "npu_alloc.h"
#include "npu_ops.h"

int npu_devtype = -1;
const mt_op *npu_op_contiguous, *npu_op_copy_;

static int sync_device(mt_device d) {
    int dev = d.index < 0 ? npu_current_device() : d.index;
    if (npu_bind(dev)) return -1;
    NPU_CHECK(npu_acl.aclrtSynchronizeDevice(), "aclrtSynchronizeDevice");
    return 0;
}

static int count(void) {
    return npu_device_count();
}
static int current(void) {
    return npu_current_device();
}

static mt_backend backend = {
    .name = "npu",
    .copy_bytes = npu_copy_bytes,
    .synchronize = sync_device,
    .device_count = count,
    .current_device = current,
    .float16_kernels = true, /* the ACLNN operators compute float16 */
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_status;

static int register_all(void) {
    backend.allocator = &npu_storage.device;
    backend.host_allocator = &npu_storage.pinned; /* pin_memory */
    static const char *const ops[] = {"contiguous", "copy_", NULL};
    const mt_op *found[2];
    static const accel_kernel_table tables[] = {
        {npu_copy_kernels, &npu_copy_kernels_count},
        {npu_math_kernels, &npu_math_kernels_count},
        {npu_nn_kernels, &npu_nn_kernels_count},
    };
    int type = accel_register((void (*)(void))register_all, ops, found, &backend, tables,
                              MT_ARRAY_LEN(tables));
    if (type < 0) return -1;
    npu_op_contiguous = found[0];
    npu_op_copy_ = found[1];
    npu_devtype = type;
    return 0;
}

static void init_once(void) {
    init_status = register_all();
}

/* the entry point the core looks up with dlsym (mt_<type>_backend_init) */
MT_API int mt_npu_backend_init(void) {
    pthread_once(&once, init_once);
    return init_status;
}
