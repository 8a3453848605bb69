/* npu_module.c: what loading the NPU module does: register the "npu" device with the core
 * (its caching allocator, copies, synchronisation) and its kernels on the NPU dispatch key.
 * The core loads this shared object on first use of an "npu" device (src/mt_device.c), and
 * torch.npu loads it as a Lua module; both reach the same, once. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>

#include "mt_ops_gen.h"
#include "npu_alloc.h"
#include "npu_ops.h"

static int sync_device(mt_device d) {
    int dev = d.index < 0 ? npu_current_device() : d.index;
    if (npu_bind(dev)) return -1;
    NPU_CHECK(npu_acl.aclrtSynchronizeDevice(), "aclrtSynchronizeDevice");
    return 0;
}

static int count(void) { return npu_device_count(); }
static int current(void) { return npu_current_device(); }

static mt_backend backend = {MT_DEV_NPU, NULL, npu_copy_bytes, sync_device, count, current, NULL};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_status;

static void register_all(void) {
    /* the core keeps pointers into this module (its backend, kernels, allocator): it must never
     * be unloaded, even when the lua_State that required it closes and dlcloses it */
    Dl_info self;
    if (!dladdr((void *)register_all, &self) || !self.dli_fname ||
        !dlopen(self.dli_fname, RTLD_NOW | RTLD_NODELETE)) {
        init_status = mt_error(MT_ERR_RUNTIME, "the NPU module cannot pin itself in memory: %s", dlerror());
        return;
    }
    backend.allocator = npu_storage_allocator();
    backend.host_allocator = npu_host_allocator(); /* pin_memory */
    if (mt_init() || mt_backend_register(&backend)) {
        init_status = -1;
        return;
    }
    mt_disp_impl(MT_OP_empty_strided, MT_KEY_NPU, npu_empty_impl);
    mt_disp_impl(MT_OP_empty, MT_KEY_NPU, npu_empty_impl);
    mt_disp_impl(MT_OP_zeros, MT_KEY_NPU, npu_zeros_impl);
    mt_disp_impl(MT_OP_ones, MT_KEY_NPU, npu_fill_impl);
    mt_disp_impl(MT_OP_full, MT_KEY_NPU, npu_fill_impl);
    mt_disp_impl(MT_OP_fill__Scalar, MT_KEY_NPU, npu_fill_impl);
    mt_disp_impl(MT_OP_copy_, MT_KEY_NPU, npu_copy_impl);
    mt_disp_impl(MT_OP_clone, MT_KEY_NPU, npu_clone_impl);
    mt_disp_impl(MT_OP_arange, MT_KEY_NPU, npu_arange_impl);
    mt_disp_impl(MT_OP_arange_start, MT_KEY_NPU, npu_arange_impl);
    mt_disp_impl(MT_OP_arange_start_step, MT_KEY_NPU, npu_arange_impl);
    npu_register_math();
    npu_register_nn();
}

/* the entry point the core looks up with dlsym */
MT_API int mt_npu_backend_init(void) {
    pthread_once(&once, register_all);
    return init_status;
}
