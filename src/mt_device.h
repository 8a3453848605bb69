/* mt_device.h: device types and the registry of device backends.
 *
 * A device type is a name ("cpu", "cuda:1"'s "cuda") with a small integer id. cpu and meta are
 * built in; PyTorch's other device type names are known from the start, so device strings
 * naming them parse, and any module may register a new name. A device module (a shared object
 * loaded at run time) registers its backend for its type: allocator, copies, synchronisation.
 * The core names no accelerator: the first use of a type without a backend loads the module
 * mindtorch/<name>_backend.so (mt_backend_get).
 */
#ifndef MT_DEVICE_H
#define MT_DEVICE_H

#include "mt_common.h"

/* cpu and meta have fixed ids; every other type's id comes from the registry */
typedef enum mt_devtype { MT_DEV_CPU, MT_DEV_META } mt_devtype;
#define MT_MAX_DEVTYPES 32

typedef struct mt_device {
    int8_t type;  /* a device type id, or -1 for "no device given" */
    int8_t index; /* -1 when unspecified ("cuda" rather than "cuda:0") */
} mt_device;

#define MT_CPU ((mt_device){MT_DEV_CPU, -1})
#define MT_META ((mt_device){MT_DEV_META, -1})
#define MT_NO_DEVICE ((mt_device){-1, -1})

/* "cpu", "cuda", ...; "none" for an id no type has. */
MT_API const char *mt_devtype_name(int type);
/* The id of a known type name, or -1 (no error set). */
MT_API int mt_devtype_find(const char *name);
/* The id of `name`, registering it as a new type when unknown; -1 (error set) when the name is
 * not a device type name ([a-z_]+, at most 15 characters) or the registry is full. */
MT_API int mt_devtype_register(const char *name);
/* Parse a device string as PyTorch does ("cpu", "cpu:1", "cuda:0"); sets PyTorch's error. */
MT_API int mt_device_parse(const char *s, mt_device *out);
/* "cpu", "cuda:0" into buf. */
MT_API const char *mt_device_str(mt_device d, char *buf, size_t cap);
static inline bool mt_device_eq(mt_device a, mt_device b) {
    return a.type == b.type && a.index == b.index;
}

struct mt_allocator;

/* The version of the interface between the core and a device module: the layout of the
 * structures both sides read (mt_backend, mt_kernel_entry, mt_call, mt_value, mt_tensor,
 * mt_storage, mt_allocator) and the kernels' calling convention. Raised on any change to them. */
#define MT_BACKEND_ABI_VERSION 1

/* What the core needs from a device: a device module fills one in and registers it. */
typedef struct mt_backend {
    const char *name; /* the device type it serves: "cuda" */
    struct mt_allocator *allocator;
    /* Copy nbytes between raw buffers; either side may be host memory (MT_DEV_CPU). */
    int (*copy_bytes)(void *dst, mt_device dst_dev, const void *src, mt_device src_dev,
                      size_t nbytes);
    int (*synchronize)(mt_device d);
    int (*device_count)(void);
    int (*current_device)(void);
    /* Pinned (page-locked) host memory for fast transfers; NULL when the device has none. */
    struct mt_allocator *host_allocator;
    /* Its kernels compute float16 themselves (PyTorch's CPU lacks some: see the meta rules). */
    bool float16_kernels;
} mt_backend;

/* Register a backend for the type b->name (registered as a new type if unknown), with a
 * dispatch key of its own; b must outlive the process. Refuses a module built for another
 * abi_version. Returns the type's id, or -1 (error set). */
MT_API int mt_backend_register(int abi_version, const mt_backend *b);
/* The type's backend, loading its module on first use (once, thread-safely); NULL with an
 * error saying why ("CUDA is not available: ...") when there is none. */
MT_API const mt_backend *mt_backend_get(int type);
/* The first accelerator with pinned host memory (PyTorch's default accelerator for
 * pin_memory), loading modules as needed; NULL (error set) when none is present. */
MT_API const mt_backend *mt_default_accelerator(void);
/* Whether tensors of this type compute float16 where PyTorch's CPU has no kernel. */
MT_API bool mt_devtype_float16_kernels(int type);
/* A device as tensors carry it: "cuda" (no index) becomes the backend's current device;
 * cpu and meta drop the index ("cpu:1" is the CPU, as in PyTorch). */
MT_API mt_device mt_device_resolve(mt_device d);

#endif
