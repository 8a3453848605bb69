/* cuda_lua.c: the CUDA module as a Lua C module (require "mindtorch.cuda_backend"): the shared
 * accelerator functions (backends/accel/accel_lua.c) over the CUDA driver, and CUDA's own;
 * lua/mindtorch/cuda.lua shapes them into torch.cuda's API. */
#include <lauxlib.h>
#include <lua.h>
#include <pthread.h>
#include <string.h>

#include "accel_lua.h"
#include "cuda_alloc.h"
#include "cuda_driver.h"
#include "cuda_launch.h"
#include "cuda_ops.h"
#include "mt_generator.h"

MT_API int mt_cuda_backend_init(void);

static accel_module module = {
    .drv = &cuda_driver,
    .storage = &cuda_storage,
    .pool_mu = PTHREAD_MUTEX_INITIALIZER,
};

/* CUDA_LAUNCH_BLOCKING as the module read it (at initialisation) */
static int l_launch_blocking(lua_State *L) {
    lua_pushboolean(L, cuda_available(NULL) && cuda_launch_blocking);
    return 1;
}

/* the architectures the embedded kernels were built for, as torch.cuda.get_arch_list lists
 * them ({} when built without nvcc) */
static int l_arch_list(lua_State *L) {
    lua_newtable(L);
    const char *p = cuda_image_arch;
    int n = 0;
    while (*p) {
        size_t len = strcspn(p, " ");
        if (len) {
            lua_pushlstring(L, p, len);
            lua_rawseti(L, -2, ++n);
        }
        p += len;
        while (*p == ' ') p++;
    }
    return 1;
}

/* the NVIDIA driver's version (cuDriverGetVersion: 1000 * major + 10 * minor), or nil */
static int l_driver_version(lua_State *L) {
    int v = 0;
    if (!cuda_available(NULL) || cuda_drv.cuDriverGetVersion(&v) != CUDA_SUCCESS) return 0;
    lua_pushinteger(L, v);
    return 1;
}

/* manual_seed_all(seed): every device's generator, those first used later too (the per-device
 * ones are torch._device_generator's, which lua/mindtorch/cuda.lua seeds one at a time) */
static int l_manual_seed_all(lua_State *L) {
    mt_generator_manual_seed_type(cuda_devtype, (uint64_t)luaL_checkinteger(L, 1));
    return 0;
}

MT_API int luaopen_mindtorch_cuda_backend(lua_State *L) {
    if (mt_cuda_backend_init()) return luaL_error(L, "%s", mt_error_msg());
    static const luaL_Reg fns[] = {
        {"launch_blocking", l_launch_blocking},
        {"arch_list", l_arch_list},
        {"driver_version", l_driver_version},
        {"manual_seed_all", l_manual_seed_all},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    accel_lua_register(L, &module);
    return 1;
}
