/* core.c: the Lua C module `mindtorch.core`: a shim over libmindtorch.so's binding. */
#include "mindtorch.h"

__attribute__((visibility("default"))) int luaopen_mindtorch_core(lua_State *L) {
    return mt_lua_open(L);
}
