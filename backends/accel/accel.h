/* accel.h: what every accelerator module shares (backends/accel): the small driver vtable a
 * device module (NPU now, CUDA next) fills with its runtime's calls, on which the caching
 * allocator (accel_alloc.h), the pinned host allocator (accel_host_alloc.h) and the Lua API
 * (accel_lua.h) are written once. Built into each accelerator module, never into the core.
 *
 * Every call returns 0, or -1 with mindtorch's error set in the runtime's words; streams and
 * events are the runtime's opaque handles. */
#ifndef MT_ACCEL_H
#define MT_ACCEL_H

#include <stdio.h>

#include "mt_common.h"

enum { ACCEL_MAX_DEVICES = 16 };
/* malloc's answer when the device is out of memory (no error is set: the caller says it) */
enum { ACCEL_OOM = 1 };

/* get_device_properties: torch.cuda's _CudaDeviceProperties fields */
typedef struct accel_properties {
    char name[128];
    int major, minor; /* the compute capability (0.0 where the device has none) */
    int64_t total_memory;
    int multi_processor_count; /* the compute units (SMs, AI cores) */
} accel_properties;

typedef struct accel_driver {
    const char *name;                    /* "NPU": "NPU out of memory", "NPU 0" */
    const char *type;                    /* "npu": the device type's name */
    const char *conf_env;                /* the allocator's options ("PYTORCH_NPU_ALLOC_CONF") */
    bool (*available)(const char **why); /* initialised (lazily) and usable; never raises */
    int (*device_count)(void);
    int (*current_device)(void);
    int (*check_device)(int device); /* "Invalid device id" */
    int (*bind)(int device);         /* make `device` current on this thread */
    int (*set_device)(int device);   /* torch.<dev>.set_device: this thread's device */
    int (*init)(void);               /* initialise for work (torch.<dev>.init) */
    bool (*initialized)(void);       /* whether that happened */
    int (*properties)(int device, accel_properties *out);
    int (*can_access_peer)(int device, int peer, bool *can);
    int (*enable_peer_access)(int device, int peer); /* device's work may reach peer's memory */
    /* memory, on the bound device */
    int (*malloc)(void **p, size_t n); /* 0, ACCEL_OOM, or -1 */
    int (*free)(void *p);
    int (*mem_info)(size_t *free_bytes, size_t *total_bytes);
    /* page-locked host memory */
    int (*malloc_host)(void **p, size_t n);
    int (*free_host)(void *p);
    /* streams (the default and current ones are kept by accel_stream.h) */
    int (*stream_create)(void **s, int priority); /* on the bound device; priority < 0: high */
    int (*stream_sync)(void *s);
    int (*stream_query)(void *s, bool *done);
    /* events */
    int (*event_create)(void **e, bool timing); /* on the bound device */
    void (*event_destroy)(void *e);
    int (*event_record)(void *e, void *s);
    int (*event_query)(void *e, bool *done);
    int (*event_sync)(void *e);
    int (*stream_wait_event)(void *s, void *e);
    int (*event_elapsed)(void *start, void *end, float *ms);
    int (*device_sync)(void); /* the bound device */
} accel_driver;

/* The driver failures the shared layer handles itself (a free that cannot record an event waits
 * instead) leave the thread's error slot as it was: saved before, restored after. */
typedef struct accel_saved_error {
    mt_errkind kind;
    char msg[1024];
} accel_saved_error;

static inline void accel_save_error(accel_saved_error *s) {
    s->kind = mt_error_kind();
    if (s->kind != MT_ERR_NONE) snprintf(s->msg, sizeof s->msg, "%s", mt_error_msg());
}

static inline void accel_restore_error(const accel_saved_error *s) {
    if (s->kind == MT_ERR_NONE)
        mt_error_clear();
    else
        mt_error(s->kind, "%s", s->msg);
}

#endif
