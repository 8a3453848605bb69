/* mt_device.c: device names, parsing, and the registry of device backends. */
#define _GNU_SOURCE
#include "mt_device.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The NPU module is a separate shared object (backends/npu): the first use of an "npu" device
 * loads it from next to this library, where make install, LuaRocks and the build tree put it
 * (MINDTORCH_NPU_MODULE names another file, and then only that one). */
static pthread_once_t npu_once = PTHREAD_ONCE_INIT;
static char npu_load_error[4096];

static void load_npu_module(void) {
    char candidates[3][1200];
    int n = 0;
    const char *env = getenv("MINDTORCH_NPU_MODULE");
    Dl_info info;
    if (env && *env) snprintf(candidates[n++], sizeof candidates[0], "%s", env);
    else if (dladdr((void *)mt_backend_get, &info) && info.dli_fname) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", info.dli_fname);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
        else snprintf(dir, sizeof dir, ".");
        snprintf(candidates[n++], sizeof candidates[0], "%s/lua/5.4/mindtorch/npu_backend.so", dir);
        snprintf(candidates[n++], sizeof candidates[0], "%s/mindtorch/npu_backend.so", dir);
    }
    snprintf(npu_load_error, sizeof npu_load_error, "the NPU backend module (mindtorch/npu_backend.so) was not found");
    for (int i = 0; i < n; i++) {
        void *h = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            if (access(candidates[i], F_OK) == 0)
                snprintf(npu_load_error, sizeof npu_load_error, "cannot load the NPU backend module: %s", dlerror());
            continue;
        }
        int (*init)(void) = (int (*)(void))dlsym(h, "mt_npu_backend_init");
        if (!init) {
            snprintf(npu_load_error, sizeof npu_load_error, "%s has no mt_npu_backend_init", candidates[i]);
            continue;
        }
        if (init() == 0) npu_load_error[0] = 0;
        else snprintf(npu_load_error, sizeof npu_load_error, "%s", mt_error_msg());
        return; /* the module stays loaded for the life of the process */
    }
}

const mt_backend *mt_backend_get(int type) {
    const mt_backend *b = type >= 0 && type < MT_NUM_DEVTYPES ? atomic_load(&backends[type]) : NULL;
    if (!b && type == MT_DEV_NPU) {
        pthread_once(&npu_once, load_npu_module);
        b = atomic_load(&backends[type]);
        if (!b) mt_error(MT_ERR_RUNTIME, "NPU is not available: %s", npu_load_error);
        return b;
    }
    if (!b)
        mt_error(MT_ERR_RUNTIME, "%s device is not available: no %s backend is registered", mt_devtype_name(type),
                 mt_devtype_name(type));
    return b;
}

mt_device mt_device_resolve(mt_device d) {
    if (d.type == MT_DEV_NPU && d.index < 0) {
        const mt_backend *b = mt_backend_get(MT_DEV_NPU);
        mt_error_clear(); /* an unavailable NPU is reported by the allocation that follows */
        d.index = (int8_t)(b && b->current_device ? b->current_device() : 0);
    }
    return d;
}
