/* mindtorch.h: the public C API of mindtorch, for programs that embed Lua.
 *
 * Link with -lmindtorch -llua5.4 (pkg-config mindtorch). Every function returns 0 on success
 * and -1 on failure, with a message from mt_error_msg() (kept per thread); nothing here aborts
 * the process or raises a Lua error into the caller.
 *
 * Threads: each lua_State is independent and may run in its own thread; the core's own state
 * is either per thread or guarded. As in PyTorch, torch.manual_seed seeds one default
 * generator shared by the process: threads that need their own random streams pass a
 * torch.Generator.
 *
 * A minimal host:
 *
 *     lua_State *L = luaL_newstate();
 *     luaL_openlibs(L);
 *     if (mt_open(L)) { fprintf(stderr, "%s\n", mt_error_msg()); ... }
 *     int64_t sizes[2] = {28, 28};
 *     mt_push_tensor_from_buffer(L, pixels, MT_FLOAT32, 2, sizes, NULL, NULL, NULL);
 *     lua_setglobal(L, "image");         // Lua sees a tensor over `pixels`, no copy
 *     ...
 *     mt_tensor_info info;
 *     lua_getglobal(L, "result");
 *     if (mt_get_tensor_info(L, -1, &info) == 0) use(info.data, info.sizes, info.strides);
 *     lua_pop(L, 1);
 *     lua_close(L);                      // then the release callbacks have run
 */
#ifndef MINDTORCH_H
#define MINDTORCH_H

#include <lua.h>

#include "mt_common.h"
#include "mt_dtype.h"

#define MT_VERSION "0.1.0"

/* Open the binding in L and leave the core module table on the stack (what
 * `require "mindtorch.core"` runs; luaopen style). */
MT_API int mt_lua_open(lua_State *L);

/* Load mindtorch in L as `require "mindtorch"` does and set the global `torch`. Its Lua files
 * are found through package.path, or else next to this library (<libdir>/../share/lua/5.4, the
 * layout of `make install`, LuaRocks trees and the build tree). Leaves the stack as it was. */
MT_API int mt_open(lua_State *L);

/* Called once when the last tensor over a host buffer goes (its data and the ctx given). */
typedef void (*mt_release_fn)(void *data, void *ctx);

/* Push onto L's stack a CPU tensor over `data`, without copying: `ndim` (0..16) sizes and
 * strides in elements (NULL strides: contiguous; strides must not be negative). The buffer
 * must stay valid and may be written by Lua until `release` (may be NULL) is called. On
 * failure nothing is pushed and `release` is not called. mt_open must have run in L. */
MT_API int mt_push_tensor_from_buffer(lua_State *L, void *data, mt_dtype dtype, int ndim,
                                      const int64_t *sizes, const int64_t *strides,
                                      mt_release_fn release, void *ctx);

/* What C may read of a tensor. `data` points at element 0 (NULL for an empty tensor or one
 * off the CPU); it stays valid while the tensor stays referenced in Lua. Element (i, j, ...)
 * is at data + (i * strides[0] + j * strides[1] + ...) * itemsize. */
typedef struct mt_tensor_info {
    mt_dtype dtype;
    size_t itemsize;
    int ndim;
    int64_t sizes[MT_MAX_DIM];
    int64_t strides[MT_MAX_DIM];
    int64_t numel;
    bool contiguous;
    void *data;
    char device[32]; /* "cpu", "meta", "cuda:0" */
} mt_tensor_info;

/* Describe the tensor at stack index idx (any pending deferred work on it is finished first). */
MT_API int mt_get_tensor_info(lua_State *L, int idx, mt_tensor_info *info);

#endif
