/* standin.h: the ACL stand-in's internal interface between its three libraries.
 *
 * THE ACL STAND-IN IS A TEST DOUBLE, NOT ASCEND SOFTWARE. No Ascend hardware exists where
 * mindtorch is developed, so the NPU backend is tested against these libraries: they carry
 * CANN's library names (lib64/libascendcl.so, libnnopbase.so, libopapi.so) and C signatures
 * (backends/npu/acl_abi.h) and run the runtime and an ACLNN subset on host memory. Streams are
 * real asynchronous queues (one worker thread each, with an optional delay per task so that
 * missing synchronisation shows as wrong results); device memory is host memory with a
 * capacity per device and checked pointers; faults can be injected into any entry point.
 *
 * Environment: ASCEND_STANDIN_DEVICES (default 2), ASCEND_STANDIN_MEMORY_MB (per device,
 * default 1024), ASCEND_STANDIN_TASK_DELAY_US (default 0). */
#ifndef MT_STANDIN_H
#define MT_STANDIN_H

#include "acl_abi.h"

#define STANDIN_API __attribute__((visibility("default")))

/* run fn(ctx) on the stream's worker after the work already queued; free_ctx(ctx) after. A task
 * that fails returns an ACL error code (its message set with standin_set_error on the worker):
 * the stream keeps the first such error and the next aclrtSynchronizeStream/Device of it
 * returns that code and message, as a device reports a failed kernel. */
STANDIN_API aclError standin_enqueue(aclrtStream stream, int (*fn)(void *ctx), void *ctx,
                                     void (*free_ctx)(void *));
/* the error code an entry point must fail with now (0: none), counting its calls */
STANDIN_API int standin_fault(const char *entry);
/* the message aclGetRecentErrMsg returns next on this thread */
STANDIN_API void standin_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* whether [p, p + n) lies inside one live device allocation */
STANDIN_API bool standin_is_device_range(const void *p, size_t n);
/* the current thread's device, or -1 */
STANDIN_API int standin_current_device(void);

/* For tests (through dlsym): the n-th next call of `entry` fails with `code`; live device
 * allocations and their bytes. */
STANDIN_API void aclStandinInjectFault(const char *entry, int nth, int code);
STANDIN_API int aclStandinLiveAllocations(size_t *bytes);
/* (libopapi.so) every operator asks for at least this much workspace (0: what it needs) */
STANDIN_API void aclStandinForceWorkspace(uint64_t bytes);

#endif
