/* mt_device.h: devices (cpu, meta, npu:N) and the backend vtable a device module fills in. */
#ifndef MT_DEVICE_H
#define MT_DEVICE_H

#include "mt_common.h"

typedef enum mt_devtype { MT_DEV_CPU, MT_DEV_META, MT_DEV_NPU, MT_NUM_DEVTYPES } mt_devtype;

typedef struct mt_device {
    int8_t type;  /* mt_devtype, or -1 for "no device given" */
    int8_t index; /* -1 when unspecified ("npu" rather than "npu:0") */
} mt_device;

#define MT_CPU ((mt_device){MT_DEV_CPU, -1})
#define MT_META ((mt_device){MT_DEV_META, -1})
#define MT_NO_DEVICE ((mt_device){-1, -1})

MT_API const char *mt_devtype_name(int type);
/* Parse "cpu", "meta", "npu", "npu:1"; sets the error slot with PyTorch's words on failure. */
MT_API int mt_device_parse(const char *s, mt_device *out);
/* "cpu", "npu:0" into buf. */
MT_API const char *mt_device_str(mt_device d, char *buf, size_t cap);
static inline bool mt_device_eq(mt_device a, mt_device b) {
    return a.type == b.type && a.index == b.index;
}

struct mt_allocator;

/* What the core needs from a device: a device module fills one in and registers it
 * (the CPU and meta devices are built in; the NPU module registers itself when loaded). */
typedef struct mt_backend {
    mt_devtype type;
    struct mt_allocator *allocator;
    /* Copy nbytes between raw buffers; either side may be host memory (MT_DEV_CPU). */
    int (*copy_bytes)(void *dst, mt_device dst_dev, const void *src, mt_device src_dev,
                      size_t nbytes);
    int (*synchronize)(mt_device d);
    int (*device_count)(void);
    int (*current_device)(void);
    /* Pinned (page-locked) host memory for fast transfers; NULL when the device has none. */
    struct mt_allocator *host_allocator;
} mt_backend;

MT_API int mt_backend_register(const mt_backend *b);
/* The registered backend, or NULL with an error that says the device is not available. */
MT_API const mt_backend *mt_backend_get(int type);
/* Resolve "npu" (no index) to the backend's current device. */
MT_API mt_device mt_device_resolve(mt_device d);

#endif
