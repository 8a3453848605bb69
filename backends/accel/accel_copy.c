/* accel_copy.c: copies between the host and an accelerator's devices (accel_copy.h). */
#include "accel_copy.h"
#include "accel_host_alloc.h"
#include "mt_storage.h"
#include "mt_tensor.h"

static int dev_of(const accel_copier *c, const mt_tensor *t) {
    return t->device.index < 0 ? c->current_device() : t->device.index;
}

static size_t nbytes_of(const mt_tensor *t) {
    return (size_t)t->numel * mt_dtype_size((mt_dtype)t->dtype);
}

static bool same_bytes(const mt_tensor *a, const mt_tensor *b) {
    return a->dtype == b->dtype && a->numel == b->numel && mt_tensor_is_contiguous(a) &&
           mt_tensor_is_contiguous(b);
}

/* a contiguous tensor with t's sizes and dtype on `device` of the module */
static mt_tensor *device_like(const accel_copier *c, const mt_tensor *t, int device) {
    return mt_tensor_empty(t->ndim, t->sizes, (mt_dtype)t->dtype,
                           (mt_device){(int8_t)*c->devtype, (int8_t)device});
}

static mt_tensor *contiguous(const accel_copier *c, mt_tensor *t) {
    mt_value a[2] = {mt_vtensor(t), MT_NONE /* memory_format: contiguous_format */}, r[1];
    return mt_call_op((*c->contiguous)->id, a, r) ? NULL : r[0].t;
}

static int cpu_copy(const accel_copier *c, mt_tensor *dst, mt_tensor *src) {
    mt_value a[3] = {mt_vtensor(dst), mt_vtensor(src), mt_vbool(false)}, r[1];
    if (mt_call_op((*c->copy_)->id, a, r)) return -1;
    mt_tensor_decref(r[0].t); /* the op's result is dst again */
    return 0;
}

/* a contiguous CPU copy of a device tensor (made contiguous on the device first) */
static mt_tensor *download(const accel_copier *c, mt_tensor *src) {
    mt_tensor *dense = NULL, *from = src, *host = NULL;
    int device = dev_of(c, src);
    if (!mt_tensor_is_contiguous(src)) {
        dense = device_like(c, src, device);
        if (!dense || c->lay_out(dense, src)) goto fail;
        from = dense;
    }
    host = mt_tensor_empty(src->ndim, src->sizes, (mt_dtype)src->dtype, MT_CPU);
    if (!host) goto fail;
    if (host->numel && c->memcpy_on(device, mt_tensor_raw(host), mt_tensor_raw(from),
                                    nbytes_of(host), ACCEL_D2H, true))
        goto fail;
    if (dense) mt_tensor_decref(dense);
    return host;
fail:
    if (host) mt_tensor_decref(host);
    if (dense) mt_tensor_decref(dense);
    return NULL;
}

/* a copy between the contiguous bytes of a device tensor and a pinned CPU tensor that may stay
 * queued (non_blocking): done (1) or not possible this way (0), or -1 */
static int pinned_async(const accel_copier *c, mt_tensor *dev_t, mt_tensor *cpu_t, bool up) {
    if (!same_bytes(dev_t, cpu_t) || !(cpu_t->storage->flags & MT_STORAGE_PINNED) ||
        !accel_storage_is_pinned(c->storage, cpu_t->storage->data))
        return 0;
    int device = dev_of(c, dev_t);
    void *s = c->stream_of(device);
    if (!s) return -1;
    if (accel_host_alloc_record_stream(accel_storage_host_caching(c->storage), cpu_t->storage->data,
                                       device, s))
        return -1;
    return c->memcpy_on(device, up ? mt_tensor_raw(dev_t) : mt_tensor_raw(cpu_t),
                        up ? mt_tensor_raw(cpu_t) : mt_tensor_raw(dev_t), nbytes_of(dev_t),
                        up ? ACCEL_H2D : ACCEL_D2H, false)
               ? -1
               : 1;
}

/* dst (on a device, any layout) <- src (CPU, anything copy_ accepts) */
static int upload(const accel_copier *c, mt_tensor *dst, mt_tensor *src, bool non_blocking) {
    if (non_blocking) {
        int done = pinned_async(c, dst, src, true);
        if (done) return done < 0 ? -1 : 0;
    }
    mt_tensor *host = contiguous(c, src); /* a new ref; src itself when already contiguous */
    if (!host) return -1;
    int device = dev_of(c, dst), rc;
    if (same_bytes(dst, host))
        rc = c->memcpy_on(device, mt_tensor_raw(dst), mt_tensor_raw(host), nbytes_of(dst),
                          ACCEL_H2D, true);
    else { /* the host bytes go up as they are; the device lays them out */
        mt_tensor *staged = device_like(c, host, device);
        rc = staged ? 0 : -1;
        if (!rc && host->numel)
            rc = c->memcpy_on(device, mt_tensor_raw(staged), mt_tensor_raw(host), nbytes_of(host),
                              ACCEL_H2D, true);
        if (!rc) rc = c->lay_out(dst, staged);
        if (staged) mt_tensor_decref(staged);
    }
    mt_tensor_decref(host);
    return rc;
}

int accel_device_copy(const accel_copier *c, mt_tensor *dst, mt_tensor *src) {
    if (dst->numel == 0) return 0;
    if (dev_of(c, dst) != dev_of(c, src)) { /* between devices: through the host */
        mt_tensor *host = download(c, src);
        int rc = host ? upload(c, dst, host, false) : -1;
        if (host) mt_tensor_decref(host);
        return rc;
    }
    if (same_bytes(dst, src))
        return c->memcpy_on(dev_of(c, dst), mt_tensor_raw(dst), mt_tensor_raw(src), nbytes_of(dst),
                            ACCEL_D2D, false);
    return c->lay_out(dst, src);
}

int accel_copy(const accel_copier *c, mt_tensor *dst, mt_tensor *src, bool non_blocking) {
    bool dst_dev = dst->device.type == *c->devtype, src_dev = src->device.type == *c->devtype;
    if (dst->numel == 0) return 0;
    if (dst_dev && src_dev) return accel_device_copy(c, dst, src);
    if (!src_dev) return upload(c, dst, src, non_blocking);
    if (non_blocking && dst->device.type == MT_DEV_CPU) {
        int done = pinned_async(c, src, dst, false);
        if (done) return done < 0 ? -1 : 0;
    }
    mt_tensor *host = download(c, src); /* to the CPU */
    int rc = host ? cpu_copy(c, dst, host) : -1;
    if (host) mt_tensor_decref(host);
    return rc;
}

int accel_copy_bytes(const accel_copier *c, void *dst, mt_device dd, const void *src, mt_device sd,
                     size_t n) {
    if (n == 0) return 0;
    bool dd_dev = dd.type == *c->devtype, sd_dev = sd.type == *c->devtype;
    int kind = dd_dev ? (sd_dev ? ACCEL_D2D : ACCEL_H2D) : ACCEL_D2H;
    mt_device dev = dd_dev ? dd : sd;
    return c->memcpy_on(dev.index < 0 ? c->current_device() : dev.index, dst, src, n, kind, true);
}
