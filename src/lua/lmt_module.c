/* lmt_module.c: opening the binding in a lua_State (what `require "mindtorch.core"` runs). */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "lmt.h"
#include "mindtorch.h"

/* Lua unloads C modules when a state closes; the core stays loaded for the process (its
 * thread pool's idle workers, and OpenBLAS's, run code that must not be unmapped). */
static void pin_library(void) {
    Dl_info info;
    if (dladdr((void *)mt_lua_open, &info) && info.dli_fname)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE);
}

MT_API int mt_lua_open(lua_State *L) {
    pin_library();
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
    lmt_open_io(L);
    lmt_open_worker(L);
    lmt_open_ops(L);
    lua_pushstring(L, MT_VERSION);
    lua_setfield(L, -2, "__version__");
    return 1;
}
