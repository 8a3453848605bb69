/* lmt_module.c: opening the binding in a lua_State (what `require "mindtorch.core"` runs). */
#include "lmt.h"
#include "mindtorch.h"

MT_API int mt_lua_open(lua_State *L) {
    if (mt_init()) return lmt_error(L);
    lmt_install_alloc_cache(L);
    /* registry.mindtorch: what the binding's C functions share (dtypes, torch.Tensor) */
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "mindtorch");

    lua_newtable(L); /* the module */
    lmt_open_dtype(L);
    lmt_open_tensor(L);
    lmt_open_storage(L);
    lmt_open_creation(L);
    lmt_open_misc(L);
    lmt_open_generator(L);
    lmt_open_index(L);
    lmt_open_autograd(L);
    lmt_open_ops(L);
    lua_pushstring(L, MT_VERSION);
    lua_setfield(L, -2, "__version__");
    return 1;
}
