/* standin_lua.c: the ACL stand-in's test controls as a Lua module (ascend_standin.so, built
 * with the stand-in for make check only): inject faults, count live device allocations, force
 * workspace sizes. The NPU specs load it from the stand-in's tree (ASCEND_HOME_PATH/lua);
 * linked against the stand-in's libraries, it shares them with the NPU module that opened them
 * (the same files: the loader maps each once). The production NPU module knows nothing of it. */
#include <lauxlib.h>
#include <lua.h>

#include "standin.h"

static int l_fault(lua_State *L) {
    aclStandinInjectFault(luaL_checkstring(L, 1), (int)luaL_checkinteger(L, 2),
                          (int)luaL_checkinteger(L, 3));
    return 0;
}

static int l_force_workspace(lua_State *L) {
    lua_Integer n = luaL_checkinteger(L, 1);
    luaL_argcheck(L, n >= 0, 1, "a workspace size is not negative");
    aclStandinForceWorkspace((uint64_t)n);
    return 0;
}

static int l_live_allocations(lua_State *L) {
    size_t bytes = 0;
    lua_pushinteger(L, aclStandinLiveAllocations(&bytes));
    lua_pushinteger(L, (lua_Integer)bytes);
    return 2;
}

STANDIN_API int luaopen_ascend_standin(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"fault", l_fault},
        {"force_workspace", l_force_workspace},
        {"live_allocations", l_live_allocations},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
