/* lmt_embed.c: the embedding API of mindtorch.h: opening mindtorch in a host's lua_State,
 * host buffers as tensors, and reading tensors from C. Errors come back as -1 with a message
 * (mt_error_msg), never as Lua errors thrown through the host's C frames. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "lmt.h"
#include "mindtorch.h"
#include "mt_storage.h"
#include "mt_tensor.h"

/* the directory of libmindtorch.so, into buf ("" when unknown) */
static void library_dir(char *buf, size_t cap) {
    Dl_info info;
    buf[0] = 0;
    if (!dladdr((void *)mt_open, &info) || !info.dli_fname) return;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash) return;
    size_t n = (size_t)(slash - info.dli_fname);
    if (n >= cap) return;
    memcpy(buf, info.dli_fname, n);
    buf[n] = 0;
}

/* run in protected mode: package.path/cpath gain the tree next to the library, then require */
static int open_protected(lua_State *L) {
    const char *dir = lua_touserdata(L, 1);
    if (dir && dir[0]) {
        lua_getglobal(L, "package");
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "path");
            /* PREFIX/lib (make install) or TREE/lib/lua/5.4 (a LuaRocks tree) */
            lua_pushfstring(L,
                            "%s;%s/../share/lua/5.4/?.lua;%s/../share/lua/5.4/?/init.lua;"
                            "%s/../../../share/lua/5.4/?.lua;%s/../../../share/lua/5.4/?/init.lua",
                            lua_tostring(L, -1), dir, dir, dir, dir);
            lua_setfield(L, -3, "path");
            lua_pop(L, 1);
            lua_getfield(L, -1, "cpath");
            lua_pushfstring(L, "%s;%s/lua/5.4/?.so;%s/?.so", lua_tostring(L, -1), dir, dir);
            lua_setfield(L, -3, "cpath");
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_getglobal(L, "require");
    if (!lua_isfunction(L, -1))
        return luaL_error(L, "the package library is not open in this lua_State (luaL_openlibs)");
    lua_pushliteral(L, "mindtorch");
    lua_call(L, 1, 1);
    lua_setglobal(L, "torch");
    return 0;
}

/* a lua_pcall's status as the API's return code (the error message taken from the stack) */
static int protected_status(lua_State *L, int status, const char *what) {
    if (status == LUA_OK) return 0;
    if (status == LUA_ERRMEM) return mt_error(MT_ERR_MEMORY, "%snot enough memory", what);
    const char *msg = lua_tostring(L, -1);
    return mt_error(MT_ERR_RUNTIME, "%s%s", what, msg ? msg : "(error object is not a string)");
}

MT_API int mt_open(lua_State *L) {
    if (!L) return mt_error(MT_ERR_VALUE, "mt_open: no lua_State");
    char dir[4096];
    library_dir(dir, sizeof dir);
    int top = lua_gettop(L);
    /* nothing that allocates runs outside lua_pcall: a memory error there would panic the host */
    if (!lua_checkstack(L, 2))
        return mt_error(MT_ERR_MEMORY, "cannot open mindtorch: Lua stack overflow");
    lua_pushcfunction(L, open_protected);
    lua_pushlightuserdata(L, dir);
    int rc = protected_status(L, lua_pcall(L, 1, 0, 0), "cannot open mindtorch: ");
    lua_settop(L, top);
    return rc;
}

typedef struct {
    mt_release_fn release;
    void *ctx;
} host_release;

static void release_host(void *data, size_t nbytes, void *ctx) {
    (void)nbytes;
    host_release *r = ctx;
    if (r->release) r->release(data, r->ctx);
    free(r);
}

static bool opened(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, "mindtorch");
    bool ok = lua_istable(L, -1);
    lua_pop(L, 1);
    return ok;
}

/* in protected mode: the box that takes over the tensor (only the allocation of the box can
 * fail, and then the tensor is still the caller's) */
static int push_protected(lua_State *L) {
    mt_tensor *t = lua_touserdata(L, 1);
    if (!opened(L))
        return luaL_error(L, "mindtorch is not open in this lua_State (call mt_open first)");
    lmt_push_tensor(L, t);
    return 1;
}

MT_API int mt_push_tensor_from_buffer(lua_State *L, void *data, mt_dtype dtype, int ndim,
                                      const int64_t *sizes, const int64_t *strides,
                                      mt_release_fn release, void *ctx) {
    if (!L) return mt_error(MT_ERR_VALUE, "mt_push_tensor_from_buffer: no lua_State");
    if ((int)dtype < 0 || dtype >= MT_NUM_DTYPES)
        return mt_error(MT_ERR_VALUE, "invalid dtype %d", (int)dtype);
    if (ndim < 0 || ndim > MT_MAX_DIM)
        return mt_error(MT_ERR_VALUE, "a tensor has 0 to %d dimensions, not %d", MT_MAX_DIM, ndim);
    if (ndim > 0 && !sizes)
        return mt_error(MT_ERR_VALUE, "sizes must be given for %d dimensions", ndim);
    int64_t st[MT_MAX_DIM];
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0)
            return mt_error(MT_ERR_VALUE, "negative dimension %lld", (long long)sizes[i]);
        if (strides && strides[i] < 0)
            return mt_error(MT_ERR_VALUE, "negative stride %lld", (long long)strides[i]);
        st[i] = strides ? strides[i] : 0;
    }
    /* the bytes the host promises, checked: a wrapped size would let ops run off the buffer */
    int64_t numel = mt_numel_checked(ndim, sizes);
    if (numel < 0) return mt_error(MT_ERR_VALUE, "numel: integer multiplication overflow");
    int64_t nbytes = strides || mt_contiguous_strides(ndim, sizes, st) >= 0
                         ? mt_required_nbytes(ndim, sizes, st, 0, mt_dtype_size(dtype))
                         : -1;
    if (nbytes < 0) {
        char b1[256], b2[256];
        mt_fmt_ilist(b1, sizeof b1, sizes, ndim);
        mt_fmt_ilist(b2, sizeof b2, st, ndim);
        return mt_error(MT_ERR_VALUE,
                        "Storage size calculation overflowed with sizes=%s and strides=%s", b1, b2);
    }
    if (numel > 0 && !data)
        return mt_error(MT_ERR_VALUE, "no data for a tensor of %lld elements", (long long)numel);
    host_release *r = malloc(sizeof *r);
    if (!r) return mt_error(MT_ERR_MEMORY, "out of memory");
    *r = (host_release){release, ctx};
    mt_storage *s = mt_storage_wrap(data, (size_t)nbytes, MT_CPU, release_host, r);
    if (!s) {
        free(r);
        return -1;
    }
    mt_tensor *t = mt_tensor_from_storage(s, 0, ndim, sizes, st, dtype);
    if (!t) r->release = NULL; /* a failed push never calls the host's release */
    mt_storage_decref(s);
    if (!t) return -1;
    if (!lua_checkstack(L, 2)) {
        r->release = NULL;
        mt_tensor_decref(t);
        return mt_error(MT_ERR_MEMORY, "Lua stack overflow");
    }
    lua_pushcfunction(L, push_protected);
    lua_pushlightuserdata(L, t);
    int rc = protected_status(L, lua_pcall(L, 1, 1, 0), "");
    if (rc == 0) return 0;
    lua_pop(L, 1);
    r->release = NULL;
    mt_tensor_decref(t);
    return rc;
}

MT_API int mt_get_tensor_info(lua_State *L, int idx, mt_tensor_info *info) {
    if (!L || !info) return mt_error(MT_ERR_VALUE, "mt_get_tensor_info: no lua_State or no info");
    mt_tensor *t = lua_type(L, idx) == LUA_TUSERDATA ? lmt_to_tensor(L, idx) : NULL;
    if (!t)
        return mt_error(MT_ERR_TYPE, "expected a tensor at stack index %d, got %s", idx,
                        luaL_typename(L, idx));
    memset(info, 0, sizeof *info);
    info->dtype = (mt_dtype)t->dtype;
    info->itemsize = mt_dtype_size((mt_dtype)t->dtype);
    info->ndim = t->ndim;
    memcpy(info->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(info->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    info->numel = t->numel;
    info->contiguous = mt_tensor_is_contiguous(t);
    mt_device_str(t->device, info->device, sizeof info->device);
    if (t->device.type == MT_DEV_CPU && t->numel > 0) {
        info->data = mt_tensor_data(t);
        if (!info->data && mt_error_kind() != MT_ERR_NONE) return -1;
    }
    return 0;
}
