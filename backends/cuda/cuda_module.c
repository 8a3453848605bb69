/* cuda_module.c: what loading the CUDA module does: register the "cuda" device with the core (its
 * caching allocator, copies, synchronisation) and its kernels, by op name, on the dispatch key
 * the core gives it. The core loads this shared object on first use of a "cuda" device
 * (src/mt_device.c), and torch.cuda loads it as a Lua module; both reach the same, once. No
 * NVIDIA driver is needed to load it: the driver is opened on first use (cuda_runtime.c). */
#include <pthread.h>

#include "accel_register.h"
#include "cuda_alloc.h"
#include "cuda_ops.h"

int cuda_devtype = -1;
const mt_op *cuda_op_contiguous, *cuda_op_copy_;

static int sync_device(mt_device d) {
    int dev = d.index < 0 ? cuda_current_device() : d.index;
    if (cuda_bind(dev)) return -1;
    CUDA_CHECK(cuda_drv.cuCtxSynchronize(), "cuCtxSynchronize");
    return 0;
}

static mt_backend backend = {
    .name = "cuda",
    .copy_bytes = cuda_copy_bytes,
    .synchronize = sync_device,
    .device_count = cuda_device_count,
    .current_device = cuda_current_device,
    .float16_kernels = true, /* the kernels compute float16 and bfloat16 in float */
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_status;

static int register_all(void) {
    backend.allocator = &cuda_storage.device;
    backend.host_allocator = &cuda_storage.pinned; /* pin_memory */
    static const char *const ops[] = {"contiguous", "copy_", NULL};
    const mt_op *found[2];
    static const accel_kernel_table tables[] = {
        {cuda_copy_kernels, &cuda_copy_kernels_count},
        {cuda_ew_kernels, &cuda_ew_kernels_count},
        {cuda_reduce_kernels, &cuda_reduce_kernels_count},
        {cuda_index_kernels, &cuda_index_kernels_count},
        {cuda_blas_kernels, &cuda_blas_kernels_count},
        {cuda_conv_kernels, &cuda_conv_kernels_count},
        {cuda_random_kernels, &cuda_random_kernels_count},
        {cuda_shape_kernels, &cuda_shape_kernels_count},
        {cuda_sort_kernels, &cuda_sort_kernels_count},
        {cuda_select_kernels, &cuda_select_kernels_count},
        {cuda_unique_kernels, &cuda_unique_kernels_count},
        {cuda_factory_kernels, &cuda_factory_kernels_count},
        {cuda_linalg_kernels, &cuda_linalg_kernels_count},
        {cuda_special_kernels, &cuda_special_kernels_count},
    };
    int type = accel_register((void (*)(void))register_all, ops, found, &backend, tables,
                              MT_ARRAY_LEN(tables));
    if (type < 0) return -1;
    cuda_op_contiguous = found[0];
    cuda_op_copy_ = found[1];
    cuda_devtype = type;
    return 0;
}

static void init_once(void) {
    init_status = register_all();
}

/* the entry point the core looks up with dlsym (mt_<type>_backend_init) */
MT_API int mt_cuda_backend_init(void) {
    pthread_once(&once, init_once);
    return init_status;
}
