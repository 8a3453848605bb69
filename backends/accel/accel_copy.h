/* accel_copy.h: copy_ between the host and an accelerator's devices, and between its devices,
 * written once over what each module provides: byte copies on a device's current stream, and a
 * kernel that lays a tensor out on one device (any layouts and dtypes, the source broadcasting
 * to the destination). Between host and device only contiguous bytes travel: the device lays
 * them out, converts and broadcasts, or, for the host side, the CPU's copy_ does. A copy that
 * reads or writes host memory waits for its stream, so the host buffer may go as soon as it
 * returns, except a non_blocking one between a device and pinned memory (PyTorch's): it stays
 * queued, and the pinned block is reused only after it (the host cache waits for the stream).
 * Between two devices the data goes through the host. */
#ifndef MT_ACCEL_COPY_H
#define MT_ACCEL_COPY_H

#include "accel_storage.h"
#include "mt_dispatch.h"

enum { ACCEL_H2D, ACCEL_D2H, ACCEL_D2D };

typedef struct accel_copier {
    const int *devtype; /* the module's device type (known once it registered) */
    accel_storage *storage;
    int (*current_device)(void);
    /* n bytes on `device`'s current stream (the device made current); wait: for the stream */
    int (*memcpy_on)(int device, void *dst, const void *src, size_t n, int kind, bool wait);
    /* dst <- src, both on one device, when more than their bytes must move */
    int (*lay_out)(mt_tensor *dst, mt_tensor *src);
    /* `device` made current and its current stream; NULL with the error set */
    void *(*stream_of)(int device);
    const mt_op *const *contiguous, *const *copy_; /* the core's ops, found at registration */
} accel_copier;

/* copy_(dst, src, non_blocking) where either is on the module's device */
int accel_copy(const accel_copier *c, mt_tensor *dst, mt_tensor *src, bool non_blocking);
/* dst <- src, both on the module's devices (clone) */
int accel_device_copy(const accel_copier *c, mt_tensor *dst, mt_tensor *src);
/* the core's byte copies (storage copies, pinned transfers): synchronous */
int accel_copy_bytes(const accel_copier *c, void *dst, mt_device dd, const void *src, mt_device sd,
                     size_t n);

#endif
