/* mt_device.c: the registry of device types and their backends, device strings, and the
 * loading of device modules. No accelerator is named here: the types PyTorch knows are data. */
#define _GNU_SOURCE
#include "mt_device.h"
#include "mt_dispatch.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* PyTorch 1.13's device type names, in the order its error message lists them, then npu
 * (the privateuse device torch_npu adds). cpu and meta take their fixed ids. */
static const char *const known_types[] = {
    "cpu",  "cuda", "ipu", "xpu",  "mkldnn", "opengl", "opencl", "ideep", "hip",           "ve",
    "fpga", "ort",  "xla", "lazy", "vulkan", "mps",    "meta",   "hpu",   "privateuseone", "npu",
};

#define NAME_CAP 16

typedef struct devtype {
    char name[NAME_CAP];
    char key_name[NAME_CAP]; /* its dispatch key's name: the type's in capitals */
    _Atomic(const mt_backend *) backend;
    _Atomic int key; /* its dispatch key once a backend registered, else -1 */
    bool load_tried; /* under load_lock */
    char load_error[1024];
} devtype;

static devtype types[MT_MAX_DEVTYPES];
static _Atomic int ntypes;
static int naccel; /* accelerator keys handed out, under reg_lock */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
/* recursive: a module's initialisation may itself ask for its backend */
static pthread_mutex_t load_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_once_t known_once = PTHREAD_ONCE_INIT;

static bool valid_name(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n >= NAME_CAP) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_')) return false;
    return true;
}

/* caller holds reg_lock (or runs the one-time set-up) */
static int add_type(const char *name) {
    int n = atomic_load(&ntypes);
    if (n >= MT_MAX_DEVTYPES)
        return mt_error(MT_ERR_RUNTIME,
                        "cannot register device type '%s': the registry holds %d types", name,
                        MT_MAX_DEVTYPES);
    devtype *t = &types[n];
    snprintf(t->name, sizeof t->name, "%s", name);
    for (size_t i = 0; name[i]; i++)
        t->key_name[i] = name[i] >= 'a' && name[i] <= 'z' ? (char)(name[i] - 'a' + 'A') : name[i];
    atomic_init(&t->backend, NULL);
    atomic_init(&t->key, -1);
    atomic_store_explicit(&ntypes, n + 1, memory_order_release); /* published whole */
    return n;
}

static void add_known(void) {
    add_type("cpu");
    add_type("meta");
    atomic_store(&types[MT_DEV_CPU].key, MT_KEY_CPU);
    atomic_store(&types[MT_DEV_META].key, MT_KEY_META);
    snprintf(types[MT_DEV_META].key_name, NAME_CAP, "Meta");
    for (size_t i = 0; i < MT_ARRAY_LEN(known_types); i++)
        if (strcmp(known_types[i], "cpu") != 0 && strcmp(known_types[i], "meta") != 0)
            add_type(known_types[i]);
}

static int count_types(void) {
    pthread_once(&known_once, add_known);
    return atomic_load_explicit(&ntypes, memory_order_acquire);
}

static devtype *type_at(int type) {
    return type >= 0 && type < count_types() ? &types[type] : NULL;
}

const char *mt_devtype_name(int type) {
    devtype *t = type_at(type);
    return t ? t->name : "none";
}

static int find_n(const char *name, size_t len) {
    int n = count_types();
    for (int i = 0; i < n; i++)
        if (strlen(types[i].name) == len && strncmp(types[i].name, name, len) == 0) return i;
    return -1;
}

int mt_devtype_find(const char *name) {
    return find_n(name, strlen(name));
}

int mt_devtype_register(const char *name) {
    if (!valid_name(name))
        return mt_error(MT_ERR_RUNTIME,
                        "invalid device type name '%s': expected [a-z_]+, at most %d characters",
                        name, NAME_CAP - 1);
    int id = mt_devtype_find(name);
    if (id >= 0) return id;
    pthread_mutex_lock(&reg_lock);
    id = mt_devtype_find(name); /* another thread may have added it meanwhile */
    if (id < 0) id = add_type(name);
    pthread_mutex_unlock(&reg_lock);
    return id;
}

/* ---- device strings ------------------------------------------------------------------------- */

static int unknown_type(const char *name, size_t len) {
    char list[1024];
    size_t at = 0;
    for (size_t i = 0; i < MT_ARRAY_LEN(known_types) && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", known_types[i]);
    int n = count_types(); /* then the names modules registered */
    for (int i = 0; i < n && at < sizeof list; i++) {
        bool known = false;
        for (size_t j = 0; j < MT_ARRAY_LEN(known_types); j++)
            known |= strcmp(types[i].name, known_types[j]) == 0;
        if (!known) at += (size_t)snprintf(list + at, sizeof list - at, ", %s", types[i].name);
    }
    return mt_error(MT_ERR_RUNTIME,
                    "Expected one of %s device type at start of device string: %.*s", list,
                    (int)len, name);
}

/* PyTorch's grammar: ([a-zA-Z_]+)(?::([1-9]\d*|0))? */
int mt_device_parse(const char *s, mt_device *out) {
    if (!*s) return mt_error(MT_ERR_RUNTIME, "Device string must not be empty");
    size_t nlen = 0;
    while ((s[nlen] >= 'a' && s[nlen] <= 'z') || (s[nlen] >= 'A' && s[nlen] <= 'Z') ||
           s[nlen] == '_')
        nlen++;
    const char *idx = NULL;
    bool ok = nlen > 0;
    if (ok && s[nlen]) {
        idx = s + nlen + 1;
        ok = s[nlen] == ':' && *idx >= '0' && *idx <= '9' && !(idx[0] == '0' && idx[1]);
        for (const char *p = idx; ok && *p; p++) ok = *p >= '0' && *p <= '9';
    }
    if (!ok) return mt_error(MT_ERR_RUNTIME, "Invalid device string: '%s'", s);
    long v = -1;
    if (idx) {
        errno = 0;
        v = strtol(idx, NULL, 10);
        /* PyTorch parses an int and keeps an int8 (wrapping silently): larger ones are refused */
        if (errno || v > INT8_MAX)
            return mt_error(MT_ERR_RUNTIME,
                            "Could not parse device index '%s' in device string '%s'", idx, s);
    }
    int type = find_n(s, nlen);
    if (type < 0) return unknown_type(s, nlen);
    out->type = (int8_t)type;
    out->index = (int8_t)v;
    return 0;
}

const char *mt_device_str(mt_device d, char *buf, size_t cap) {
    if (d.index >= 0)
        snprintf(buf, cap, "%s:%d", mt_devtype_name(d.type), d.index);
    else
        snprintf(buf, cap, "%s", mt_devtype_name(d.type));
    return buf;
}

/* ---- backends -----------------------------------------------------------------------------------
 */

int mt_backend_register(int abi_version, const mt_backend *b) {
    const char *name = b && b->name ? b->name : "(unnamed)";
    if (abi_version != MT_BACKEND_ABI_VERSION)
        return mt_error(
            MT_ERR_RUNTIME,
            "the %s backend was built for backend ABI version %d, but this mindtorch has version "
            "%d: rebuild the module against this mindtorch",
            name, abi_version, MT_BACKEND_ABI_VERSION);
    if (!b || !b->name || !b->allocator || !b->copy_bytes || !b->synchronize || !b->device_count ||
        !b->current_device)
        return mt_error(MT_ERR_RUNTIME, "the %s backend leaves a required field empty", name);
    int id = mt_devtype_register(b->name);
    if (id < 0) return -1;
    if (id == MT_DEV_CPU || id == MT_DEV_META)
        return mt_error(MT_ERR_RUNTIME, "the %s device is built in: a module cannot register it",
                        b->name);
    int rc = id;
    pthread_mutex_lock(&reg_lock);
    devtype *t = &types[id];
    const mt_backend *old = atomic_load(&t->backend);
    if (old && old != b)
        rc = mt_error(MT_ERR_RUNTIME, "a backend for the %s device is already registered", b->name);
    else if (!old) {
        if (naccel >= MT_MAX_ACCEL_KEYS)
            rc = mt_error(
                MT_ERR_RUNTIME,
                "cannot register the %s backend: all %d accelerator dispatch keys are taken",
                b->name, MT_MAX_ACCEL_KEYS);
        else {
            atomic_store(&t->key, MT_KEY_ACCEL_FIRST + naccel++);
            atomic_store(&t->backend, b); /* last: a reader seeing it sees its key */
        }
    }
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

/* A device module is a separate shared object: the first use of a type without a backend
 * loads mindtorch/<name>_backend.so from next to this library, where make install, LuaRocks
 * and the build tree put it (MINDTORCH_<NAME>_MODULE names another file, and then only that
 * one), and runs its mt_<name>_backend_init. Caller holds load_lock. */
static void load_module(devtype *t) {
    char candidates[3][1200], env_name[64], init_name[64];
    int n = 0;
    snprintf(env_name, sizeof env_name, "MINDTORCH_%s_MODULE", t->key_name);
    snprintf(init_name, sizeof init_name, "mt_%s_backend_init", t->name);
    const char *env = getenv(env_name);
    Dl_info info;
    if (env && *env)
        snprintf(candidates[n++], sizeof candidates[0], "%s", env);
    else if (dladdr((void *)mt_backend_get, &info) && info.dli_fname) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", info.dli_fname);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        else
            snprintf(dir, sizeof dir, ".");
        snprintf(candidates[n++], sizeof candidates[0], "%s/lua/5.4/mindtorch/%s_backend.so", dir,
                 t->name);
        snprintf(candidates[n++], sizeof candidates[0], "%s/mindtorch/%s_backend.so", dir, t->name);
    }
    snprintf(t->load_error, sizeof t->load_error,
             "the %s backend module (mindtorch/%s_backend.so) was not found", t->key_name, t->name);
    for (int i = 0; i < n; i++) {
        void *h = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            if (access(candidates[i], F_OK) == 0)
                snprintf(t->load_error, sizeof t->load_error,
                         "cannot load the %s backend module: %.900s", t->key_name, dlerror());
            continue;
        }
        int (*init)(void) = (int (*)(void))dlsym(h, init_name);
        if (!init) {
            snprintf(t->load_error, sizeof t->load_error, "%.900s has no %s", candidates[i],
                     init_name);
            continue;
        }
        if (init() == 0)
            t->load_error[0] = 0;
        else
            snprintf(t->load_error, sizeof t->load_error, "%s", mt_error_msg());
        return; /* the module stays loaded for the life of the process */
    }
}

const mt_backend *mt_backend_get(int type) {
    devtype *t = type_at(type);
    if (!t) return mt_error_null(MT_ERR_RUNTIME, "invalid device type %d", type);
    const mt_backend *b = atomic_load(&t->backend);
    if (b) return b;
    if (type == MT_DEV_CPU || type == MT_DEV_META)
        return mt_error_null(MT_ERR_RUNTIME, "the %s device is built in: it has no device module",
                             t->name);
    pthread_mutex_lock(&load_lock);
    if (!t->load_tried) {
        t->load_tried = true;
        load_module(t);
    }
    pthread_mutex_unlock(&load_lock);
    b = atomic_load(&t->backend);
    if (!b)
        mt_error(MT_ERR_RUNTIME, "%s is not available: %s", t->key_name,
                 t->load_error[0] ? t->load_error : "its module registered no backend");
    return b;
}

const mt_backend *mt_default_accelerator(void) {
    int n = count_types();
    for (int i = 0; i < n; i++) { /* one already present first */
        const mt_backend *b = atomic_load(&types[i].backend);
        if (b && b->host_allocator) return b;
    }
    for (int i = 0; i < n; i++) {
        if (i == MT_DEV_CPU || i == MT_DEV_META) continue;
        const mt_backend *b = mt_backend_get(i);
        if (b && b->host_allocator) return b;
    }
    return mt_error_null(MT_ERR_RUNTIME,
                         "Cannot access accelerator device when none is available.");
}

bool mt_devtype_float16_kernels(int type) {
    devtype *t = type_at(type);
    const mt_backend *b = t ? atomic_load(&t->backend) : NULL;
    return b && b->float16_kernels;
}

int mt_key_for_device(int type) {
    devtype *t = type_at(type);
    if (!t) return mt_error(MT_ERR_RUNTIME, "invalid device type %d", type);
    int key = atomic_load_explicit(&t->key, memory_order_acquire);
    if (MT_LIKELY(key >= 0)) return key;
    return mt_backend_get(type) ? atomic_load(&t->key) : -1;
}

/* the name of an accelerator's key, for mt_key_name */
const char *mt_devtype_key_name(int key);
const char *mt_devtype_key_name(int key) {
    int n = count_types();
    for (int i = 0; i < n; i++)
        if (atomic_load(&types[i].key) == key) return types[i].key_name;
    return NULL;
}

mt_device mt_device_resolve(mt_device d) {
    if (d.type == MT_DEV_CPU || d.type == MT_DEV_META) {
        d.index = -1;
    } else if (d.index < 0 && d.type >= 0) {
        const mt_backend *b = mt_backend_get(d.type);
        mt_error_clear(); /* an unavailable device is reported by the allocation that follows */
        d.index = (int8_t)(b ? b->current_device() : 0);
    }
    return d;
}
