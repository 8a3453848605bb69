/* mt_device.c: device names, parsing, and the registry of device backends. */
#include "mt_device.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const devnames[MT_NUM_DEVTYPES] = {"cpu", "meta", "npu"};

const char *mt_devtype_name(int type) {
    return type >= 0 && type < MT_NUM_DEVTYPES ? devnames[type] : "none";
}

int mt_device_parse(const char *s, mt_device *out) {
    const char *colon = strchr(s, ':');
    size_t tlen = colon ? (size_t)(colon - s) : strlen(s);
    int type = -1;
    for (int i = 0; i < MT_NUM_DEVTYPES; i++)
        if (strlen(devnames[i]) == tlen && strncmp(s, devnames[i], tlen) == 0) type = i;
    if (type < 0)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected one of cpu, meta, npu device type at start of device string: %s",
                        s);
    out->type = (int8_t)type;
    out->index = -1;
    if (colon) {
        const char *p = colon + 1;
        char *end;
        if (!*p || *p < '0' || *p > '9' || (p[0] == '0' && p[1])) goto bad;
        long v = strtol(p, &end, 10);
        if (*end || v > 127) goto bad;
        out->index = (int8_t)v;
    }
    return 0;
bad:
    return mt_error(MT_ERR_RUNTIME, "Invalid device string: '%s'", s);
}

const char *mt_device_str(mt_device d, char *buf, size_t cap) {
    if (d.index >= 0)
        snprintf(buf, cap, "%s:%d", mt_devtype_name(d.type), d.index);
    else
        snprintf(buf, cap, "%s", mt_devtype_name(d.type));
    return buf;
}

/* Written once per device type (at start-up or when a device module loads), read by every
 * thread afterwards: an atomic pointer makes the publication safe without a lock. */
static _Atomic(const mt_backend *) backends[MT_NUM_DEVTYPES];

int mt_backend_register(const mt_backend *b) {
    if (b->type < 0 || b->type >= MT_NUM_DEVTYPES)
        return mt_error(MT_ERR_RUNTIME, "invalid backend device type %d", (int)b->type);
    atomic_store(&backends[b->type], b);
    return 0;
}

const mt_backend *mt_backend_get(int type) {
    const mt_backend *b = type >= 0 && type < MT_NUM_DEVTYPES ? atomic_load(&backends[type]) : NULL;
    if (!b)
        mt_error(MT_ERR_RUNTIME,
                 "%s device is not available: the %s backend module is not loaded (torch.%s loads it)",
                 mt_devtype_name(type), mt_devtype_name(type), mt_devtype_name(type));
    return b;
}

mt_device mt_device_resolve(mt_device d) {
    if (d.type == MT_DEV_NPU && d.index < 0) {
        const mt_backend *b = atomic_load(&backends[MT_DEV_NPU]);
        d.index = (int8_t)(b && b->current_device ? b->current_device() : 0);
    }
    return d;
}
