/* npu_runtime.h: the NPU backend's view of CANN: the libraries found and opened at run time,
 * lazy initialisation, devices, per-thread current device and stream, and ACL errors turned
 * into mindtorch errors. */
#ifndef MT_NPU_RUNTIME_H
#define MT_NPU_RUNTIME_H

#include "acl_abi.h"
#include "mt_common.h"

typedef struct npu_api {
#define X(ret, name, params) ret(*name) params;
    MT_ACL_RUNTIME_FUNCS(X)
    MT_ACL_RUNTIME_OPTIONAL_FUNCS(X) /* NULL when the toolkit lacks them */
    MT_ACLNN_BASE_FUNCS(X)
#undef X
    void *opapi;      /* the operator library (libopapi.so), for npu_op_symbol */
    void *op_libs[4]; /* or the per-area libaclnn_*.so */
} npu_api;

extern npu_api npu_acl;

enum { NPU_MAX_DEVICES = 16 };

/* Initialise CANN once (find and open the libraries, aclInit). 0, or -1 with an error that
 * says "NPU is not available: <why>". */
int npu_ensure(void);
/* Whether CANN is usable; when not, why (never raises). */
bool npu_available(const char **why);
int npu_device_count(void);
/* Whether the NPU has been used (initialised for work: torch.npu.is_initialized). */
bool npu_initialized(void);
/* ACL_LAUNCH_BLOCKING=1 (read once, at initialisation): every launch waits for its stream. */
extern bool npu_launch_blocking;
/* After a launch of `what` on stream s: with ACL_LAUNCH_BLOCKING, wait for it, so a failure
 * of the device's work is reported by the op that launched it. */
int npu_launched(aclrtStream s, const char *what);
/* This thread's device (set_device; 0 by default), and making it current in ACL. */
int npu_current_device(void);
int npu_set_device(int device);
/* Make `device` ACL's current device on this thread (aclrtSetDevice once per thread). */
int npu_bind(int device);
/* A device index checked against the count ("Invalid device id"). */
int npu_check_device(int device);

/* Streams (backends/accel/accel_stream.h): each device has a default stream; each thread a
 * current stream per device. */
aclrtStream npu_default_stream(int device);
aclrtStream npu_current_stream(int device);
void npu_set_current_stream(int device, aclrtStream s);

/* Sets mindtorch's error from an ACL status: "<what> failed: NPU function error: error code
 * is N" and aclGetRecentErrMsg()'s text; returns -1. */
int npu_acl_error(aclError code, const char *what);
#define NPU_CHECK(call, what)                                                                      \
    do {                                                                                           \
        aclError e_ = (call);                                                                      \
        if (e_ != ACL_SUCCESS) return npu_acl_error(e_, what);                                     \
    } while (0)

/* A symbol of libascendcl.so itself (the stand-in's test controls), or NULL. */
void *npu_runtime_symbol(const char *name);
/* An operator's entry point from the operator libraries, or NULL. */
void *npu_op_symbol(const char *name);

#endif
