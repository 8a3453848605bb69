/* npu_driver.c: the NPU's accel_driver (backends/accel/accel.h): the ACL calls behind the shared
 * caching allocators, streams, events and device queries. */
#include <stdio.h>
#include <string.h>

#include "npu_driver.h"

static int acl(aclError e, const char *what) {
    return e == ACL_SUCCESS ? 0 : npu_acl_error(e, what);
}

static bool available(const char **why) {
    return npu_available(why);
}

static int init(void) {
    return npu_ensure();
}

static int dev_malloc(void **p, size_t n) {
    aclError e = npu_acl.aclrtMalloc(p, n, ACL_MEM_MALLOC_HUGE_FIRST);
    if (e == ACL_SUCCESS) return 0;
    if (e == ACL_ERROR_RT_MEMORY_ALLOCATION || e == ACL_ERROR_BAD_ALLOC ||
        e == ACL_ERROR_RT_DEVICE_OOM) {
        if (npu_acl.aclGetRecentErrMsg)
            npu_acl.aclGetRecentErrMsg(); /* consumed: the OOM text says it */
        return ACCEL_OOM;
    }
    return npu_acl_error(e, "aclrtMalloc");
}

static int dev_free(void *p) {
    return acl(npu_acl.aclrtFree(p), "aclrtFree");
}

static int mem_info(size_t *free_b, size_t *total) {
    return acl(npu_acl.aclrtGetMemInfo(ACL_HBM_MEM, free_b, total), "aclrtGetMemInfo");
}

static int malloc_host(void **p, size_t n) {
    if (npu_ensure()) return -1;
    return acl(npu_acl.aclrtMallocHost(p, n), "aclrtMallocHost");
}

static int free_host(void *p) {
    return acl(npu_acl.aclrtFreeHost(p), "aclrtFreeHost");
}

static int stream_create(void **s, int priority) {
    /* ACL: 0 is the highest priority */
    return acl(npu_acl.aclrtCreateStreamWithConfig(s, priority < 0 ? 0 : 1,
                                                   ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC),
               "aclrtCreateStreamWithConfig");
}

static int stream_sync(void *s) {
    return acl(npu_acl.aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
}

static int stream_query(void *s, bool *done) {
    aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
    int rc = acl(npu_acl.aclrtStreamQuery(s, &st), "aclrtStreamQuery");
    *done = st == ACL_STREAM_STATUS_COMPLETE;
    return rc;
}

static int event_create(void **e, bool timing) {
    return acl(
        npu_acl.aclrtCreateEventWithFlag(e, ACL_EVENT_SYNC | (timing ? ACL_EVENT_TIME_LINE : 0)),
        "aclrtCreateEventWithFlag");
}

static void event_destroy(void *e) {
    npu_acl.aclrtDestroyEvent(e);
}
static int event_record(void *e, void *s) {
    return acl(npu_acl.aclrtRecordEvent(e, s), "aclrtRecordEvent");
}

static int event_query(void *e, bool *done) {
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    int rc = acl(npu_acl.aclrtQueryEventStatus(e, &st), "aclrtQueryEventStatus");
    *done = st == ACL_EVENT_RECORDED_STATUS_COMPLETE;
    return rc;
}

static int event_sync(void *e) {
    return acl(npu_acl.aclrtSynchronizeEvent(e), "aclrtSynchronizeEvent");
}

static int stream_wait_event(void *s, void *e) {
    return acl(npu_acl.aclrtStreamWaitEvent(s, e), "aclrtStreamWaitEvent");
}

static int event_elapsed(void *a, void *b, float *ms) {
    return acl(npu_acl.aclrtEventElapsedTime(ms, a, b), "aclrtEventElapsedTime");
}

static int device_sync(void) {
    return acl(npu_acl.aclrtSynchronizeDevice(), "aclrtSynchronizeDevice");
}

/* name: the SoC; the compute units: the AI cores; Ascend has no CUDA compute capability (0.0,
 * as get_device_capability says) */
static int properties(int device, accel_properties *out) {
    if (npu_bind(device)) return -1;
    memset(out, 0, sizeof *out);
    const char *soc = npu_acl.aclrtGetSocName();
    snprintf(out->name, sizeof out->name, "%s", soc ? soc : "Ascend");
    size_t free_b = 0, total = 0;
    if (mem_info(&free_b, &total)) return -1;
    out->total_memory = (int64_t)total;
    int64_t cores = 0;
    if (npu_acl.aclGetDeviceCapability &&
        acl(npu_acl.aclGetDeviceCapability((uint32_t)device, ACL_DEVICE_INFO_AI_CORE_NUM, &cores),
            "aclGetDeviceCapability"))
        return -1;
    out->multi_processor_count = (int)cores;
    return 0;
}

static int can_access_peer(int device, int peer, bool *can) {
    *can = false;
    if (!npu_acl.aclrtDeviceCanAccessPeer) return 0; /* the toolkit has no peer access */
    int32_t v = 0;
    if (acl(npu_acl.aclrtDeviceCanAccessPeer(&v, device, peer), "aclrtDeviceCanAccessPeer"))
        return -1;
    *can = v != 0;
    return 0;
}

static int enable_peer_access(int device, int peer) {
    if (!npu_acl.aclrtDeviceEnablePeerAccess)
        return mt_error(MT_ERR_RUNTIME, "peer access is not supported by this CANN toolkit "
                                        "(libascendcl.so has no aclrtDeviceEnablePeerAccess)");
    if (npu_bind(device)) return -1;
    return acl(npu_acl.aclrtDeviceEnablePeerAccess(peer, 0), "aclrtDeviceEnablePeerAccess");
}

const accel_driver npu_driver = {
    .name = "NPU",
    .type = "npu",
    .conf_env = "PYTORCH_NPU_ALLOC_CONF",
    .available = available,
    .device_count = npu_device_count,
    .current_device = npu_current_device,
    .check_device = npu_check_device,
    .bind = npu_bind,
    .set_device = npu_set_device,
    .init = init,
    .initialized = npu_initialized,
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
