/* cuda_driver.c: CUDA's accel_driver (backends/accel/accel.h): the driver calls behind the shared
 * caching allocators, streams, events and device queries. Device pointers travel as void *. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda_driver.h"

static int cu(CUresult e, const char *what) {
    return e == CUDA_SUCCESS ? 0 : cuda_error(e, what);
}

static CUdeviceptr dptr(const void *p) {
    return (CUdeviceptr)(uintptr_t)p;
}

static bool available(const char **why) {
    return cuda_available(why);
}

static int init(void) {
    return cuda_ensure() ? -1 : cuda_bind(cuda_current_device());
}

static int dev_malloc(void **p, size_t n) {
    CUdeviceptr d = 0;
    CUresult e = cuda_drv.cuMemAlloc_v2(&d, n);
    if (e == CUDA_ERROR_OUT_OF_MEMORY) return ACCEL_OOM;
    if (e != CUDA_SUCCESS) return cuda_error(e, "cuMemAlloc");
    *p = (void *)(uintptr_t)d;
    return 0;
}

static int dev_free(void *p) {
    return cu(cuda_drv.cuMemFree_v2(dptr(p)), "cuMemFree");
}

static int mem_info(size_t *free_b, size_t *total) {
    return cu(cuda_drv.cuMemGetInfo_v2(free_b, total), "cuMemGetInfo");
}

static int malloc_host(void **p, size_t n) {
    if (cuda_ensure() || cuda_bind(cuda_current_device())) return -1;
    return cu(cuda_drv.cuMemAllocHost_v2(p, n), "cuMemAllocHost");
}

static int free_host(void *p) {
    return cu(cuda_drv.cuMemFreeHost(p), "cuMemFreeHost");
}

static int stream_create(void **s, int priority) {
    /* CUDA: lower numbers are higher priorities; "greatest" is the highest one */
    int least = 0, greatest = 0;
    if (cu(cuda_drv.cuCtxGetStreamPriorityRange(&least, &greatest), "cuCtxGetStreamPriorityRange"))
        return -1;
    return cu(cuda_drv.cuStreamCreateWithPriority((CUstream *)s, CU_STREAM_NON_BLOCKING,
                                                  priority < 0 ? greatest : least),
              "cuStreamCreateWithPriority");
}

static int stream_sync(void *s) {
    return cu(cuda_drv.cuStreamSynchronize(s), "cuStreamSynchronize");
}

/* a query's "not ready" is an answer, not an error */
static int query(CUresult e, bool *done, const char *what) {
    *done = e == CUDA_SUCCESS;
    return e == CUDA_SUCCESS || e == CUDA_ERROR_NOT_READY ? 0 : cuda_error(e, what);
}

static int stream_query(void *s, bool *done) {
    return query(cuda_drv.cuStreamQuery(s), done, "cuStreamQuery");
}

static int event_create(void **e, bool timing) {
    return cu(
        cuda_drv.cuEventCreate((CUevent *)e, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
}

static void event_destroy(void *e) {
    cuda_drv.cuEventDestroy_v2(e);
}

static int event_record(void *e, void *s) {
    return cu(cuda_drv.cuEventRecord(e, s), "cuEventRecord");
}

static int event_query(void *e, bool *done) {
    return query(cuda_drv.cuEventQuery(e), done, "cuEventQuery");
}

static int event_sync(void *e) {
    return cu(cuda_drv.cuEventSynchronize(e), "cuEventSynchronize");
}

static int stream_wait_event(void *s, void *e) {
    return cu(cuda_drv.cuStreamWaitEvent(s, e, 0), "cuStreamWaitEvent");
}

static int event_elapsed(void *a, void *b, float *ms) {
    return cu(cuda_drv.cuEventElapsedTime(ms, a, b), "cuEventElapsedTime");
}

static int device_sync(void) {
    return cu(cuda_drv.cuCtxSynchronize(), "cuCtxSynchronize");
}

static int properties(int device, accel_properties *out) {
    if (cuda_bind(device)) return -1;
    memset(out, 0, sizeof *out);
    CUdevice d = 0;
    size_t total = 0;
    int sms = 0;
    if (cu(cuda_drv.cuDeviceGet(&d, device), "cuDeviceGet") ||
        cu(cuda_drv.cuDeviceGetName(out->name, (int)sizeof out->name, d), "cuDeviceGetName") ||
        cu(cuda_drv.cuDeviceTotalMem_v2(&total, d), "cuDeviceTotalMem") ||
        cu(cuda_drv.cuDeviceGetAttribute(&out->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                         d),
           "cuDeviceGetAttribute") ||
        cu(cuda_drv.cuDeviceGetAttribute(&out->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                         d),
           "cuDeviceGetAttribute") ||
        cu(cuda_drv.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d),
           "cuDeviceGetAttribute"))
        return -1;
    out->name[sizeof out->name - 1] = 0;
    out->total_memory = (int64_t)total;
    out->multi_processor_count = sms;
    return 0;
}

static int can_access_peer(int device, int peer, bool *can) {
    *can = false;
    if (cuda_check_device(device) || cuda_check_device(peer)) return -1;
    CUdevice a = 0, b = 0;
    int v = 0;
    if (cu(cuda_drv.cuDeviceGet(&a, device), "cuDeviceGet") ||
        cu(cuda_drv.cuDeviceGet(&b, peer), "cuDeviceGet") ||
        cu(cuda_drv.cuDeviceCanAccessPeer(&v, a, b), "cuDeviceCanAccessPeer"))
        return -1;
    *can = v != 0;
    return 0;
}

static int enable_peer_access(int device, int peer) {
    CUcontext pc;
    if (cuda_context(peer, &pc) || cuda_bind(device)) return -1;
    return cu(cuda_drv.cuCtxEnablePeerAccess(pc, 0), "cuCtxEnablePeerAccess");
}

const accel_driver cuda_driver = {
    .name = "CUDA",
    .type = "cuda",
    .conf_env = "PYTORCH_CUDA_ALLOC_CONF",
    .available = available,
    .device_count = cuda_device_count,
    .current_device = cuda_current_device,
    .check_device = cuda_check_device,
    .bind = cuda_bind,
    .set_device = cuda_set_device,
    .init = init,
    .initialized = cuda_initialized,
    .properties = properties,
    .can_access_peer = can_access_peer,
    .enable_peer_access = enable_peer_access,
    .malloc = dev_malloc,
    .free = dev_free,
    .mem_info = mem_info,
    .malloc_host = malloc_host,
    .free_host = free_host,
    .stream_create = stream_create,
    .stream_sync = stream_sync,
    .stream_query = stream_query,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .event_record = event_record,
    .event_query = event_query,
    .event_sync = event_sync,
    .stream_wait_event = stream_wait_event,
    .event_elapsed = event_elapsed,
    .device_sync = device_sync,
};
