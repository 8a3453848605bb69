/* npu_runtime.c: finding CANN, opening its libraries with dlopen, initialising ACL once and
 * lazily, devices and streams, and ACL errors. Nothing here links against CANN: without it
 * the module still loads and says why the NPU is not available. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "accel_stream.h"
#include "npu_driver.h"

npu_api npu_acl;
bool npu_launch_blocking;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static bool available;
static char why_not[1024] = "not probed";
static char cann_root[512];
static int device_count;
static _Atomic bool used; /* npu_ensure succeeded once */
static void *lib_acl, *lib_nnopbase;

static __thread int thread_device = -1; /* torch.npu.set_device on this thread; -1: device 0 */
static __thread int thread_acl_device = -1;

static bool is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ASCEND_HOME_PATH, ASCEND_TOOLKIT_HOME, then the standard install places */
static bool find_root(void) {
    const char *env[] = {"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv(env[i]);
        if (v && *v) {
            if (!is_dir(v)) {
                snprintf(why_not, sizeof why_not, "%s=%s does not exist", env[i], v);
                return false;
            }
            snprintf(cann_root, sizeof cann_root, "%s", v);
            return true;
        }
    }
    const char *std_places[] = {"/usr/local/Ascend/ascend-toolkit/latest",
                                "/usr/local/Ascend/latest"};
    for (size_t i = 0; i < 2; i++)
        if (is_dir(std_places[i])) {
            snprintf(cann_root, sizeof cann_root, "%s", std_places[i]);
            return true;
        }
    snprintf(why_not, sizeof why_not,
             "the Ascend CANN toolkit was not found (set ASCEND_HOME_PATH, or install it under "
             "/usr/local/Ascend/ascend-toolkit/latest)");
    return false;
}

static void *open_lib(const char *name) {
    char path[700];
    snprintf(path, sizeof path, "%s/lib64/%s", cann_root, name);
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

static bool load_symbols(void) {
    if (!(lib_acl = open_lib("libascendcl.so"))) {
        snprintf(why_not, sizeof why_not, "cannot open %s/lib64/libascendcl.so: %s", cann_root,
                 dlerror());
        return false;
    }
    if (!(lib_nnopbase = open_lib("libnnopbase.so"))) {
        snprintf(why_not, sizeof why_not, "cannot open %s/lib64/libnnopbase.so: %s", cann_root,
                 dlerror());
        return false;
    }
    /* the operators: libopapi.so, or else the per-area libraries of older toolkits */
    npu_acl.opapi = open_lib("libopapi.so");
    if (!npu_acl.opapi) {
        const char *areas[] = {"libaclnn_ops_infer.so", "libaclnn_ops_train.so",
                               "libaclnn_math.so"};
        int n = 0;
        for (size_t i = 0; i < 3; i++)
            if ((npu_acl.op_libs[n] = open_lib(areas[i]))) n++;
        if (n == 0) {
            snprintf(why_not, sizeof why_not,
                     "no operator library in %s/lib64 (libopapi.so or libaclnn_*.so)", cann_root);
            return false;
        }
    }
#define X(ret, name, params)                                                                       \
    if (!(*(void **)&npu_acl.name = dlsym(lib_acl, #name))) {                                      \
        snprintf(why_not, sizeof why_not, "libascendcl.so has no %s", #name);                      \
        return false;                                                                              \
    }
    MT_ACL_RUNTIME_FUNCS(X)
#undef X
#define X(ret, name, params) *(void **)&npu_acl.name = dlsym(lib_acl, #name);
    MT_ACL_RUNTIME_OPTIONAL_FUNCS(X)
#undef X
#define X(ret, name, params)                                                                       \
    if (!(*(void **)&npu_acl.name = dlsym(lib_nnopbase, #name))) {                                 \
        snprintf(why_not, sizeof why_not, "libnnopbase.so has no %s", #name);                      \
        return false;                                                                              \
    }
    MT_ACLNN_BASE_FUNCS(X)
#undef X
    return true;
}

static void finalize(void) {
    if (!available) return;
    accel_sync_default_streams(&npu_driver);
    /* the ACL state stays up: tensors freed later at exit still return their memory */
}

static void init(void) {
    if (!find_root() || !load_symbols()) return;
    /* the model (operator package) directory: probed once here, never per op */
    const char *opp = getenv("ASCEND_OPP_PATH");
    char opp_dir[700];
    snprintf(opp_dir, sizeof opp_dir, "%s/opp", cann_root);
    if (opp && *opp) snprintf(opp_dir, sizeof opp_dir, "%s", opp);
    if (!is_dir(opp_dir)) {
        snprintf(why_not, sizeof why_not,
                 "the operator package directory %s does not exist (ASCEND_OPP_PATH)", opp_dir);
        return;
    }
    aclError e = npu_acl.aclInit(NULL);
    if (e != ACL_SUCCESS &&
        e != ACL_ERROR_REPEAT_INITIALIZE) { /* repeated: someone else initialised it */
        const char *msg = npu_acl.aclGetRecentErrMsg();
        snprintf(why_not, sizeof why_not, "aclInit failed with error code %d%s%s", e,
                 msg ? ": " : "", msg ? msg : "");
        return;
    }
    uint32_t n = 0;
    e = npu_acl.aclrtGetDeviceCount(&n);
    if (e != ACL_SUCCESS || n == 0) {
        snprintf(why_not, sizeof why_not,
                 e ? "aclrtGetDeviceCount failed with error code %d" : "no NPU device found", e);
        return;
    }
    device_count = n > NPU_MAX_DEVICES ? NPU_MAX_DEVICES : (int)n;
    const char *blocking = getenv("ACL_LAUNCH_BLOCKING");
    npu_launch_blocking = blocking && strcmp(blocking, "1") == 0;
    available = true;
    why_not[0] = 0;
    atexit(finalize);
}

bool npu_available(const char **why) {
    pthread_once(&init_once, init);
    if (why) *why = why_not;
    return available;
}

int npu_ensure(void) {
    if (npu_available(NULL)) {
        atomic_store(&used, true);
        return 0;
    }
    return mt_error(MT_ERR_RUNTIME, "NPU is not available: %s", why_not);
}

int npu_device_count(void) {
    return npu_available(NULL) ? device_count : 0;
}

bool npu_initialized(void) {
    return atomic_load(&used);
}

int npu_launched(aclrtStream s, const char *what) {
    if (!npu_launch_blocking) return 0;
    aclError e = npu_acl.aclrtSynchronizeStream(s);
    return e == ACL_SUCCESS ? 0 : npu_acl_error(e, what);
}

int npu_check_device(int device) {
    if (npu_ensure()) return -1;
    if (device < 0 || device >= device_count) return mt_error(MT_ERR_RUNTIME, "Invalid device id");
    return 0;
}

int npu_current_device(void) {
    return thread_device < 0 ? 0 : thread_device;
}

int npu_set_device(int device) {
    if (npu_check_device(device)) return -1;
    thread_device = device;
    return npu_bind(device);
}

int npu_bind(int device) {
    if (npu_check_device(device)) return -1;
    if (thread_acl_device == device) return 0;
    NPU_CHECK(npu_acl.aclrtSetDevice(device), "aclrtSetDevice");
    thread_acl_device = device;
    return 0;
}

aclrtStream npu_default_stream(int device) {
    return accel_default_stream(&npu_driver, device);
}

aclrtStream npu_current_stream(int device) {
    return accel_current_stream(&npu_driver, device);
}

void npu_set_current_stream(int device, aclrtStream s) {
    accel_set_current_stream(device, s);
}

int npu_acl_error(aclError code, const char *what) {
    const char *msg = npu_acl.aclGetRecentErrMsg ? npu_acl.aclGetRecentErrMsg() : NULL;
    return mt_error(MT_ERR_RUNTIME, "%s failed: NPU function error: error code is %d%s%s", what,
                    code, msg && *msg ? "\n" : "", msg && *msg ? msg : "");
}

void *npu_runtime_symbol(const char *name) {
    return lib_acl ? dlsym(lib_acl, name) : NULL;
}

void *npu_op_symbol(const char *name) {
    if (npu_acl.opapi) return dlsym(npu_acl.opapi, name);
    for (int i = 0; i < 4 && npu_acl.op_libs[i]; i++) {
        void *p = dlsym(npu_acl.op_libs[i], name);
        if (p) return p;
    }
    return NULL;
}
