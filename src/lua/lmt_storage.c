/* lmt_storage.c: torch.UntypedStorage and torch.TypedStorage, and the tensor methods that
 * reach a tensor's storage (untyped_storage, storage, share_memory_, pin_memory, ...). */
#include "lmt.h"
#include "mt_autograd.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    mt_storage *s; /* owned reference */
    int dtype;     /* -1: untyped (bytes) */
} lmt_storage_box;

static void push_storage(lua_State *L, mt_storage *s, int dtype) {
    lmt_storage_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->s = s;
    b->dtype = dtype;
    luaL_setmetatable(L, dtype < 0 ? LMT_STORAGE : LMT_TSTORAGE);
}

static lmt_storage_box *check_box(lua_State *L, int idx) {
    lmt_storage_box *b = luaL_testudata(L, idx, LMT_STORAGE);
    if (!b) b = luaL_testudata(L, idx, LMT_TSTORAGE);
    if (!b) lmt_errorf(L, "expected a storage, got %s", luaL_typename(L, idx));
    /* a finalizer may reach a storage whose own __gc already ran in the same cycle */
    if (!b->s)
        lmt_errorf(L, "this storage has been freed (its __gc ran) and can no longer be used");
    return b;
}

static size_t elem_size(const lmt_storage_box *b) {
    return b->dtype < 0 ? 1 : mt_dtype_size((mt_dtype)b->dtype);
}
static mt_dtype elem_dtype(const lmt_storage_box *b) {
    return b->dtype < 0 ? MT_UINT8 : (mt_dtype)b->dtype;
}

static int st_gc(lua_State *L) {
    lmt_storage_box *b = lua_touserdata(L, 1);
    mt_storage_decref(b->s);
    b->s = NULL;
    return 0;
}

static int st_size(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1);
    lua_pushinteger(L, (lua_Integer)(b->s->nbytes / elem_size(b)));
    return 1;
}

static int st_nbytes(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)check_box(L, 1)->s->nbytes);
    return 1;
}

static int st_element_size(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)elem_size(check_box(L, 1)));
    return 1;
}

static int st_data_ptr(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1);
    if (mt_storage_sync(b->s)) return lmt_error(L);
    lua_pushinteger(L, (lua_Integer)(uintptr_t)b->s->data);
    return 1;
}

/* the bytes of n elements of isz bytes, checked (a Lua error when negative or overflowing) */
static size_t storage_nbytes(lua_State *L, lua_Integer n, size_t isz) {
    int64_t nbytes;
    if (n < 0)
        mt_error(MT_ERR_RUNTIME, "Storage size must be non-negative, got %lld", (long long)n);
    else if (mt_mul_overflow((int64_t)n, (int64_t)isz, &nbytes))
        mt_error(MT_ERR_RUNTIME, "Storage size calculation overflowed: %lld elements of %zu bytes",
                 (long long)n, isz);
    else
        return (size_t)nbytes;
    lmt_error(L);
    return 0;
}

static int st_resize(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1);
    lua_Integer n = luaL_checkinteger(L, 2);
    if (b->s->device.type == MT_DEV_META)
        return lmt_errorf(L, "UntypedStorage.resize_: got unexpected device type meta");
    if (mt_storage_resize(b->s, storage_nbytes(L, n, elem_size(b)))) return lmt_error(L);
    lmt_gc_hint(L);
    lua_settop(L, 1);
    return 1;
}

static const char *host_data(lua_State *L, lmt_storage_box *b) {
    if (b->s->device.type == MT_DEV_META) lmt_errorf(L, "cannot read the data of a meta storage");
    if (b->s->device.type != MT_DEV_CPU)
        lmt_errorf(L, "storage data lives on %s: copy it to the CPU first",
                   mt_devtype_name(b->s->device.type));
    if (mt_storage_sync(b->s)) lmt_error(L);
    return b->s->data;
}

static void push_elem(lua_State *L, const char *p, mt_dtype dt) {
    if (dt == MT_BOOL)
        lua_pushboolean(L, *p != 0);
    else if (mt_dtype_is_floating(dt))
        lua_pushnumber(L, mt_load_double(p, dt));
    else
        lua_pushinteger(L, mt_load_int64(p, dt));
}

static int st_tolist(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1);
    const char *p = host_data(L, b);
    size_t isz = elem_size(b), n = b->s->nbytes / isz;
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        push_elem(L, p + i * isz, elem_dtype(b));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int store_value(lua_State *L, int idx, lmt_storage_box *b, char *p) {
    mt_value v;
    if (lua_isboolean(L, idx))
        v = mt_vbool(lua_toboolean(L, idx));
    else if (lua_isinteger(L, idx))
        v = mt_vint(lua_tointeger(L, idx));
    else
        v = mt_vdouble(luaL_checknumber(L, idx));
    if (mt_scalar_store_checked(v, elem_dtype(b), p, false)) return lmt_error(L);
    return 0;
}

static int st_fill(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1);
    char *p = (char *)host_data(L, b);
    size_t isz = elem_size(b), n = b->s->nbytes / isz;
    char one[8];
    store_value(L, 2, b, one);
    for (size_t i = 0; i < n; i++) memcpy(p + i * isz, one, isz);
    lua_settop(L, 1);
    return 1;
}

static int st_copy(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1), *o = check_box(L, 2);
    if (mt_storage_copy(b->s, o->s)) return lmt_error(L);
    lua_settop(L, 1);
    return 1;
}

static int st_clone(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1);
    mt_storage *s = mt_storage_new(b->s->nbytes, b->s->device, true);
    if (!s || mt_storage_copy(s, b->s)) {
        mt_storage_decref(s);
        return lmt_error(L);
    }
    push_storage(L, s, b->dtype);
    return 1;
}

static int st_is_shared(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1);
    lua_pushboolean(L, (b->s->flags & MT_STORAGE_SHARED) != 0);
    return 1;
}

static int st_share_memory(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1);
    if (mt_storage_share_memory(b->s)) return lmt_error(L);
    lua_settop(L, 1);
    return 1;
}

static int st_is_pinned(lua_State *L) {
    lua_pushboolean(L, (check_box(L, 1)->s->flags & MT_STORAGE_PINNED) != 0);
    return 1;
}

static int st_pin_memory(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1);
    mt_storage *p = mt_storage_pin_memory(b->s);
    if (!p) return lmt_error(L);
    push_storage(L, p, b->dtype);
    return 1;
}

static int st_untyped(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1);
    mt_storage_incref(b->s);
    push_storage(L, b->s, -1);
    return 1;
}

/* s[i], 1-based like every index in mindtorch */
static int st_get(lua_State *L, lmt_storage_box *b, lua_Integer i) {
    size_t isz = elem_size(b);
    lua_Integer n = (lua_Integer)(b->s->nbytes / isz);
    lua_Integer k = i > 0 ? i - 1 : i + n;
    if (i == 0 || k < 0 || k >= n)
        return lmt_errorf(L, "index %d out of range for storage of size %d", (int)i, (int)n);
    push_elem(L, host_data(L, b) + (size_t)k * isz, elem_dtype(b));
    return 1;
}

static int st_index(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1);
    if (lua_type(L, 2) == LUA_TNUMBER) return st_get(L, b, luaL_checkinteger(L, 2));
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "device") == 0) {
        lmt_push_device(L, b->s->device);
        return 1;
    }
    if (strcmp(k, "dtype") == 0 && b->dtype >= 0) {
        lmt_push_dtype(L, (mt_dtype)b->dtype);
        return 1;
    }
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "__methods");
    lua_getfield(L, -1, k);
    return 1;
}

static int st_newindex(lua_State *L) {
    lmt_storage_box *b = check_box(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    size_t isz = elem_size(b);
    lua_Integer n = (lua_Integer)(b->s->nbytes / isz);
    lua_Integer k = i > 0 ? i - 1 : i + n;
    if (i == 0 || k < 0 || k >= n)
        return lmt_errorf(L, "index %d out of range for storage of size %d", (int)i, (int)n);
    char *p = (char *)host_data(L, b);
    return store_value(L, 3, b, p + (size_t)k * isz);
}

static int st_len(lua_State *L) {
    return st_size(L);
}

/* torch.UntypedStorage(n | {bytes...} [, {device=}]) and torch.TypedStorage(n | {...}, {dtype=,
 * device=}) */
static int new_storage(lua_State *L, bool typed) {
    int dtype = typed ? (int)mt_default_dtype() : -1;
    mt_device dev = MT_CPU;
    int opts = lua_istable(L, 2) ? 2 : 0;
    if (opts) {
        if (lua_getfield(L, opts, "device") != LUA_TNIL && lmt_to_device(L, -1, &dev))
            return lmt_error(L);
        if (typed && lua_getfield(L, opts, "dtype") != LUA_TNIL)
            dtype = (int)lmt_check_dtype(L, -1);
    }
    size_t isz = dtype < 0 ? 1 : mt_dtype_size((mt_dtype)dtype);
    bool from_list = lua_istable(L, 1);
    lua_Integer n = from_list ? (lua_Integer)lua_rawlen(L, 1) : luaL_optinteger(L, 1, 0);
    mt_storage *s = mt_storage_new(storage_nbytes(L, n, isz), mt_device_resolve(dev), true);
    if (!s) return lmt_error(L);
    push_storage(L, s, dtype);
    if (from_list) {
        lmt_storage_box *b = lua_touserdata(L, -1);
        char *p = (char *)host_data(L, b);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, 1, i);
            store_value(L, -1, b, p + (size_t)(i - 1) * isz);
            lua_pop(L, 1);
        }
    }
    lmt_gc_hint(L);
    return 1;
}

static int untyped_new(lua_State *L) {
    lua_remove(L, 1); /* called as torch.UntypedStorage(...) through __call */
    return new_storage(L, false);
}

static int typed_new(lua_State *L) {
    lua_remove(L, 1);
    return new_storage(L, true);
}

/* UntypedStorage.from_file(path, shared, size) */
static int untyped_from_file(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    bool shared = lua_toboolean(L, 2);
    lua_Integer n = luaL_optinteger(L, 3, 0);
    mt_storage *s = mt_storage_from_file(path, shared, storage_nbytes(L, n, 1));
    if (!s) return lmt_error(L);
    push_storage(L, s, -1);
    return 1;
}

static int typed_from_file(lua_State *L) {
    return lmt_errorf(L, "from_file can only be called on derived classes");
}

/* ---- tensor methods that reach the storage --------------------------------------------------- */

static int t_untyped_storage(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    mt_storage_incref(t->storage);
    push_storage(L, t->storage, -1);
    return 1;
}

static int t_storage(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    mt_storage_incref(t->storage);
    push_storage(L, t->storage, t->dtype);
    return 1;
}

static int t_is_shared(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    lua_pushboolean(L, (t->storage->flags & MT_STORAGE_SHARED) != 0);
    return 1;
}

static int t_share_memory(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    if (mt_storage_share_memory(t->storage)) return lmt_error(L);
    lua_settop(L, 1);
    return 1;
}

static int t_is_pinned(lua_State *L) {
    lua_pushboolean(L, (lmt_check_tensor(L, 1)->storage->flags & MT_STORAGE_PINNED) != 0);
    return 1;
}

static int t_pin_memory(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    if (t->storage->flags & MT_STORAGE_PINNED) {
        lua_settop(L, 1);
        return 1;
    }
    mt_storage *p = mt_storage_pin_memory(t->storage);
    if (!p) return lmt_error(L);
    mt_tensor *r =
        mt_tensor_from_storage(p, t->offset, t->ndim, t->sizes, t->strides, (mt_dtype)t->dtype);
    mt_storage_decref(p);
    if (!r) return lmt_error(L);
    lmt_push_tensor(L, r);
    return 1;
}

/* ---- set_: a tensor over another storage -------------------------------------------------- */

/* a list of up to MT_MAX_DIM integers at idx (a table or a torch.Size); its length */
static int int_list(lua_State *L, int idx, const char *what, int64_t *out) {
    if (!lua_istable(L, idx) && !lua_isuserdata(L, idx))
        return lmt_errorf(L, "set_(): argument '%s' must be a list of ints", what);
    lua_Integer n = luaL_len(L, idx);
    if (n < 0 || n > MT_MAX_DIM)
        return lmt_errorf(L, "set_(): argument '%s' has %d entries, more than %d", what, (int)n,
                          MT_MAX_DIM);
    for (int i = 0; i < n; i++) {
        lua_geti(L, idx, i + 1);
        if (!lua_isinteger(L, -1))
            return lmt_errorf(L, "set_(): argument '%s' must be a list of ints", what);
        out[i] = lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    return (int)n;
}

/* t takes storage s (a new reference is taken) at offset with this geometry: a resizable
 * storage grows to cover it, another must already (PyTorch's message), then t is written in
 * place (a new version) */
static void set_geometry(lua_State *L, mt_tensor *t, mt_storage *s, int64_t offset, int ndim,
                         const int64_t *sizes, const int64_t *strides) {
    size_t isz = mt_dtype_size((mt_dtype)t->dtype);
    int64_t need = mt_required_nbytes(ndim, sizes, strides, offset, isz);
    char msg[768];
    if (offset < 0) {
        snprintf(msg, sizeof msg, "Tensor: invalid storage offset %lld", (long long)offset);
        lmt_errorf(L, "%s", msg);
    }
    /* a resizable storage grows to fit, as PyTorch's set_ does */
    if (need > 0 && (uint64_t)need > s->nbytes && (s->flags & MT_STORAGE_RESIZABLE) &&
        mt_storage_resize(s, (size_t)need))
        lmt_error(L);
    if (need < 0 || (uint64_t)need > s->nbytes) {
        char sz[256], st[256];
        mt_fmt_ilist(sz, sizeof sz, sizes, ndim);
        mt_fmt_ilist(st, sizeof st, strides, ndim);
        snprintf(msg, sizeof msg,
                 "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize %zu "
                 "requiring a storage size of %lld are out of bounds for storage of size %zu",
                 sz, st, (long long)offset, isz, (long long)need, s->nbytes);
        lmt_errorf(L, "%s", msg);
    }
    mt_storage_incref(s);
    mt_storage_decref(t->storage);
    t->storage = s;
    t->offset = offset;
    t->ndim = (int8_t)ndim;
    memcpy(t->sizes, sizes, sizeof(int64_t) * (size_t)ndim);
    memcpy(t->strides, strides, sizeof(int64_t) * (size_t)ndim);
    t->numel = mt_numel_checked(ndim, sizes);
    mt_tensor_bump_version(t);
}

/* x:set_(), x:set_(source), x:set_(storage, offset = 0, size = all, stride = contiguous) */
static int t_set(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    /* as PyTorch's: refused where autograd would record it; a leaf may be re-pointed under no_grad
       (what nn.utils.parametrize does to a parameter) */
    if ((t->flags & MT_T_REQUIRES_GRAD || t->autograd) && (mt_grad_enabled() || !mt_is_leaf(t)))
        return lmt_errorf(
            L, "a leaf Variable that requires grad is being used in an in-place operation.");
    if (mt_tensor_sync(t)) return lmt_error(L);
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM];
    if (lua_isnoneornil(L, 2)) { /* an empty tensor over a new empty storage */
        mt_storage *s = mt_storage_new(0, t->device, true);
        if (!s) return lmt_error(L);
        sizes[0] = 0, strides[0] = 1;
        set_geometry(L, t, s, 0, 1, sizes, strides);
        mt_storage_decref(s);
    } else if (lmt_to_tensor(L, 2)) {
        mt_tensor *src = lmt_to_tensor(L, 2);
        if (src->dtype != t->dtype || !mt_device_eq(src->device, t->device))
            return lmt_errorf(L, "set_(): the source is a %s tensor on %s, self a %s tensor on %s",
                              mt_dtype_name((mt_dtype)src->dtype),
                              mt_devtype_name(src->device.type), mt_dtype_name((mt_dtype)t->dtype),
                              mt_devtype_name(t->device.type));
        if (mt_tensor_sync(src)) return lmt_error(L);
        set_geometry(L, t, src->storage, src->offset, src->ndim, src->sizes, src->strides);
    } else {
        lmt_storage_box *b = check_box(L, 2);
        if (b->dtype >= 0 && b->dtype != t->dtype)
            return lmt_errorf(L, "set_(): the storage holds %s, self is %s",
                              mt_dtype_name((mt_dtype)b->dtype), mt_dtype_name((mt_dtype)t->dtype));
        if (!mt_device_eq(b->s->device, t->device))
            return lmt_errorf(L, "set_(): the storage is on %s, self on %s",
                              mt_devtype_name(b->s->device.type), mt_devtype_name(t->device.type));
        int64_t offset = luaL_optinteger(L, 3, 0);
        int ndim = 1;
        if (lua_isnoneornil(L, 4))
            sizes[0] = (int64_t)(b->s->nbytes / mt_dtype_size((mt_dtype)t->dtype)) - offset;
        else
            ndim = int_list(L, 4, "size", sizes);
        if (mt_check_sizes(ndim, sizes) < 0) return lmt_error(L);
        if (lua_isnoneornil(L, 5))
            mt_contiguous_strides(ndim, sizes, strides);
        else if (int_list(L, 5, "stride", strides) != ndim)
            return lmt_errorf(L, "set_(): size and stride must have the same length");
        set_geometry(L, t, b->s, offset, ndim, sizes, strides);
    }
    lua_settop(L, 1);
    return 1;
}

/* x:is_set_to(y): the same storage, offset, sizes and strides */
static int t_is_set_to(lua_State *L) {
    mt_tensor *a = lmt_check_tensor(L, 1), *b = lmt_check_tensor(L, 2);
    bool same = a->storage == b->storage && a->offset == b->offset && a->ndim == b->ndim &&
                a->dtype == b->dtype;
    for (int i = 0; same && i < a->ndim; i++)
        same = a->sizes[i] == b->sizes[i] && a->strides[i] == b->strides[i];
    lua_pushboolean(L, same);
    return 1;
}

static void make_class(lua_State *L, const char *tname, const char *pyname, lua_CFunction ctor,
                       lua_CFunction from_file, const luaL_Reg *methods) {
    luaL_newmetatable(L, tname);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_pushcfunction(L, from_file);
    lua_setfield(L, -2, "from_file");
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "__methods");
    /* the class table torch.UntypedStorage: methods, from_file, and a constructor via __call */
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, ctor);
    lua_setfield(L, -2, "__call");
    lua_setmetatable(L, -2);
    lua_setfield(L, -3, pyname); /* module[pyname] = class */
    static const luaL_Reg meta[] = {{"__gc", st_gc},
                                    {"__index", st_index},
                                    {"__newindex", st_newindex},
                                    {"__len", st_len},
                                    {NULL, NULL}};
    luaL_setfuncs(L, meta, 0);
    lua_pushfstring(L, "torch.%s", pyname);
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
}

void lmt_open_storage(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"size", st_size},
        {"nbytes", st_nbytes},
        {"element_size", st_element_size},
        {"data_ptr", st_data_ptr},
        {"resize_", st_resize},
        {"tolist", st_tolist},
        {"fill_", st_fill},
        {"copy_", st_copy},
        {"clone", st_clone},
        {"is_shared", st_is_shared},
        {"share_memory_", st_share_memory},
        {"is_pinned", st_is_pinned},
        {"pin_memory", st_pin_memory},
        {"untyped", st_untyped},
        {NULL, NULL},
    };
    make_class(L, LMT_STORAGE, "UntypedStorage", untyped_new, untyped_from_file, methods);
    make_class(L, LMT_TSTORAGE, "TypedStorage", typed_new, typed_from_file, methods);

    lmt_push_registry(L, "Tensor");
    static const luaL_Reg tmethods[] = {
        {"untyped_storage", t_untyped_storage},
        {"storage", t_storage},
        {"is_shared", t_is_shared},
        {"share_memory_", t_share_memory},
        {"is_pinned", t_is_pinned},
        {"pin_memory", t_pin_memory},
        {"set_", t_set},
        {"is_set_to", t_is_set_to},
        {NULL, NULL},
    };
    luaL_setfuncs(L, tmethods, 0);
    lua_pop(L, 1);
}
