/* npu_lua.c: the NPU module as a Lua C module (require "mindtorch.npu_backend"): the shared
 * accelerator functions (backends/accel/accel_lua.c) over the NPU driver, and the NPU's own;
 * lua/mindtorch/npu.lua shapes them into torch.cuda's API. */
#include <lauxlib.h>
#include <lua.h>
#include <pthread.h>

#include "accel_lua.h"
#include "npu_alloc.h"
#include "npu_driver.h"

MT_API int mt_npu_backend_init(void);

static accel_module module = {
    .drv = &npu_driver,
    .storage = &npu_storage,
    .pool_mu = PTHREAD_MUTEX_INITIALIZER,
};

/* ACL_LAUNCH_BLOCKING as the module read it (at initialisation) */
static int l_launch_blocking(lua_State *L) {
    lua_pushboolean(L, npu_available(NULL) && npu_launch_blocking);
    return 1;
}

MT_API int luaopen_mindtorch_npu_backend(lua_State *L) {
    if (mt_npu_backend_init()) return luaL_error(L, "%s", mt_error_msg());
    static const luaL_Reg fns[] = {
        {"launch_blocking", l_launch_blocking},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    accel_lua_register(L, &module);
    return 1;
}
