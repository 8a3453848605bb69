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
    .caching = npu_caching,
    .host_caching = npu_host_caching,
    .pool_mu = PTHREAD_MUTEX_INITIALIZER,
};

/* ACL_LAUNCH_BLOCKING as the module read it (at initialisation) */
static int l_launch_blocking(lua_State *L) {
    lua_pushboolean(L, npu_available(NULL) && npu_launch_blocking);
    return 1;
}

/* ---- the ACL stand-in's test controls (absent from real CANN: nil there) -----------------------
 */
static void *standin_symbol(const char *name) {
    const char *why;
    if (!npu_available(&why)) return NULL;
    void *p = npu_runtime_symbol(name);
    return p ? p : npu_op_symbol(name);
}

static int l_standin_fault(lua_State *L) {
    void (*inject)(const char *, int, int) =
        (void (*)(const char *, int, int))standin_symbol("aclStandinInjectFault");
    if (!inject)
        return luaL_error(L, "fault injection needs the ACL stand-in (tests/ascend_standin)");
    inject(luaL_checkstring(L, 1), (int)luaL_checkinteger(L, 2), (int)luaL_checkinteger(L, 3));
    return 0;
}

static int l_standin_workspace(lua_State *L) {
    void (*force)(uint64_t) = (void (*)(uint64_t))standin_symbol("aclStandinForceWorkspace");
    if (!force)
        return luaL_error(L, "forced workspaces need the ACL stand-in (tests/ascend_standin)");
    force((uint64_t)luaL_checkinteger(L, 1));
    return 0;
}

static int l_standin_live(lua_State *L) {
    int (*live)(size_t *) = (int (*)(size_t *))standin_symbol("aclStandinLiveAllocations");
    if (!live)
        return luaL_error(L, "live allocation counts need the ACL stand-in (tests/ascend_standin)");
    size_t bytes = 0;
    lua_pushinteger(L, live(&bytes));
    lua_pushinteger(L, (lua_Integer)bytes);
    return 2;
}

MT_API int luaopen_mindtorch_npu_backend(lua_State *L) {
    if (mt_npu_backend_init()) return luaL_error(L, "%s", mt_error_msg());
    static const luaL_Reg fns[] = {
        {"launch_blocking", l_launch_blocking},
        {"standin_fault", l_standin_fault},
        {"standin_live_allocations", l_standin_live},
        {"standin_force_workspace", l_standin_workspace},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    accel_lua_register(L, &module);
    return 1;
}
