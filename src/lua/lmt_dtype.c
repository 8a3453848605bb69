/* lmt_dtype.c: torch.dtype, torch.device and torch.Size in Lua. */
#include "lmt.h"

#include <stdio.h>
#include <string.h>

/* ---- dtype: one userdata per dtype, so identity is equality ---------------------------------- */

typedef struct {
    int dtype;
} lmt_dtype_box;

void lmt_push_dtype(lua_State *L, mt_dtype dt) {
    lmt_push_registry(L, "dtypes");
    lua_rawgeti(L, -1, (lua_Integer)dt + 1);
    lua_remove(L, -2);
}

int lmt_to_dtype(lua_State *L, int idx) {
    lmt_dtype_box *b = luaL_testudata(L, idx, LMT_DTYPE);
    return b ? b->dtype : -1;
}

mt_dtype lmt_check_dtype(lua_State *L, int idx) {
    int dt = lmt_to_dtype(L, idx);
    if (dt < 0) lmt_errorf(L, "expected a torch.dtype, got %s", luaL_typename(L, idx));
    return (mt_dtype)dt;
}

static int dtype_tostring(lua_State *L) {
    lua_pushfstring(L, "torch.%s", mt_dtype_name(lmt_check_dtype(L, 1)));
    return 1;
}

static int dtype_index(lua_State *L) {
    mt_dtype dt = lmt_check_dtype(L, 1);
    const char *k = luaL_checkstring(L, 2);
    const mt_dtype_info *i = mt_dtype_get(dt);
    if (strcmp(k, "is_floating_point") == 0)
        lua_pushboolean(L, i->is_floating);
    else if (strcmp(k, "is_signed") == 0)
        lua_pushboolean(L, i->is_signed);
    else if (strcmp(k, "is_complex") == 0)
        lua_pushboolean(L, 0);
    else if (strcmp(k, "itemsize") == 0)
        lua_pushinteger(L, i->itemsize);
    else if (strcmp(k, "name") == 0)
        lua_pushstring(L, i->name);
    else
        lua_pushnil(L);
    return 1;
}

/* ---- device ---------------------------------------------------------------------------------- */

void lmt_push_device(lua_State *L, mt_device d) {
    mt_device *p = lua_newuserdatauv(L, sizeof *p, 0);
    *p = d;
    luaL_setmetatable(L, LMT_DEVICE);
}

int lmt_to_device(lua_State *L, int idx, mt_device *out) {
    mt_device *p = luaL_testudata(L, idx, LMT_DEVICE);
    if (p) {
        *out = *p;
        return 0;
    }
    if (lua_type(L, idx) == LUA_TSTRING) return mt_device_parse(lua_tostring(L, idx), out);
    return mt_error(MT_ERR_TYPE, "expected a torch.device or a string, got %s",
                    luaL_typename(L, idx));
}

static int device_new(lua_State *L) {
    mt_device d;
    if (lmt_to_device(L, 1, &d)) return lmt_error(L);
    if (!lua_isnoneornil(L, 2)) {
        if (d.index >= 0)
            return lmt_errorf(L,
                              "device string must not include an index because index was passed "
                              "explicitly: %s",
                              lua_tostring(L, 1));
        lua_Integer i = luaL_checkinteger(L, 2);
        if (i < 0) return lmt_errorf(L, "Device index must not be negative");
        /* an index is an int8, as PyTorch's (which wraps larger ones silently) */
        if (i > INT8_MAX)
            return lmt_errorf(L, "Device index must be at most %d, got %I", INT8_MAX,
                              (LUAI_UACINT)i);
        d.index = (int8_t)i;
    }
    lmt_push_device(L, d);
    return 1;
}

static int device_tostring(lua_State *L) {
    char buf[32];
    mt_device *p = luaL_checkudata(L, 1, LMT_DEVICE);
    lua_pushstring(L, mt_device_str(*p, buf, sizeof buf));
    return 1;
}

static int device_eq(lua_State *L) {
    mt_device *a = luaL_testudata(L, 1, LMT_DEVICE), *b = luaL_testudata(L, 2, LMT_DEVICE);
    lua_pushboolean(L, a && b && mt_device_eq(*a, *b));
    return 1;
}

static int device_index(lua_State *L) {
    mt_device *p = luaL_checkudata(L, 1, LMT_DEVICE);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "type") == 0)
        lua_pushstring(L, mt_devtype_name(p->type));
    else if (strcmp(k, "index") == 0 && p->index >= 0)
        lua_pushinteger(L, p->index);
    else
        lua_pushnil(L);
    return 1;
}

/* ---- Size: a Lua sequence with a metatable --------------------------------------------------- */

void lmt_push_size(lua_State *L, const int64_t *sizes, int n) {
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, sizes[i]);
        lua_rawseti(L, -2, i + 1);
    }
    luaL_setmetatable(L, LMT_SIZE);
}

static int size_tostring(lua_State *L) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "torch.Size([");
    lua_Integer n = luaL_len(L, 1);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, 1, i);
        if (i > 1) luaL_addstring(&b, ", ");
        luaL_addvalue(&b);
    }
    luaL_addstring(&b, "])");
    luaL_pushresult(&b);
    return 1;
}

static int size_eq(lua_State *L) {
    if (!lua_istable(L, 1) || !lua_istable(L, 2)) {
        lua_pushboolean(L, 0);
        return 1;
    }
    lua_Integer n = luaL_len(L, 1);
    if (n != luaL_len(L, 2)) {
        lua_pushboolean(L, 0);
        return 1;
    }
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, 1, i);
        lua_geti(L, 2, i);
        int eq = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
        if (!eq) {
            lua_pushboolean(L, 0);
            return 1;
        }
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int size_numel(lua_State *L) {
    lua_Integer n = luaL_len(L, 1), p = 1;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, 1, i);
        p *= lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    lua_pushinteger(L, p);
    return 1;
}

/* A tuple of integers (x:stride()): prints as "(3, 1)", compares by value. */
void lmt_push_int_tuple(lua_State *L, const int64_t *v, int n) {
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, v[i]);
        lua_rawseti(L, -2, i + 1);
    }
    luaL_setmetatable(L, "mindtorch.tuple");
}

static int tuple_tostring(lua_State *L) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "(");
    lua_Integer n = luaL_len(L, 1);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, 1, i);
        if (i > 1) luaL_addstring(&b, ", ");
        luaL_addvalue(&b);
    }
    luaL_addstring(&b, n == 1 ? ",)" : ")");
    luaL_pushresult(&b);
    return 1;
}

/* torch.Size{2, 3} */
static int size_new(lua_State *L) {
    int64_t buf[MT_MAX_DIM];
    int n = 0;
    if (!lua_isnoneornil(L, 1)) {
        luaL_checktype(L, 1, LUA_TTABLE);
        lua_Integer len = luaL_len(L, 1);
        if (len > MT_MAX_DIM) return lmt_errorf(L, "torch.Size of more than %d dims", MT_MAX_DIM);
        for (lua_Integer i = 1; i <= len; i++) {
            lua_geti(L, 1, i);
            if (lmt_to_int(L, -1, &buf[n]))
                return lmt_errorf(L, "torch.Size() takes an iterable of 'int' (item %d is '%s')",
                                  (int)i - 1, luaL_typename(L, -1));
            n++;
            lua_pop(L, 1);
        }
    }
    lmt_push_size(L, buf, n);
    return 1;
}

void lmt_open_dtype(lua_State *L) {
    /* dtype metatable and singletons: torch.float32, torch.float, ... */
    luaL_newmetatable(L, LMT_DTYPE);
    lua_pushcfunction(L, dtype_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, dtype_index);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, "torch.dtype");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
    lmt_push_registry(L, NULL);
    lua_createtable(L, MT_NUM_DTYPES, 0);
    for (int dt = 0; dt < MT_NUM_DTYPES; dt++) {
        lmt_dtype_box *b = lua_newuserdatauv(L, sizeof *b, 0);
        b->dtype = dt;
        luaL_setmetatable(L, LMT_DTYPE);
        lua_pushvalue(L, -1);
        lua_setfield(L, -5, mt_dtype_name((mt_dtype)dt)); /* torch.float32 */
        const char *alias = mt_dtype_get((mt_dtype)dt)->alias;
        if (alias) {
            lua_pushvalue(L, -1);
            lua_setfield(L, -5, alias); /* torch.float */
        }
        lua_rawseti(L, -2, dt + 1);
    }
    lua_setfield(L, -2, "dtypes");
    lua_pop(L, 1);

    luaL_newmetatable(L, LMT_DEVICE);
    lua_pushcfunction(L, device_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, device_eq);
    lua_setfield(L, -2, "__eq");
    lua_pushcfunction(L, device_index);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, "torch.device");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
    lua_pushcfunction(L, device_new);
    lua_setfield(L, -2, "device");

    luaL_newmetatable(L, LMT_SIZE);
    lua_pushcfunction(L, size_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, size_eq);
    lua_setfield(L, -2, "__eq");
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, size_numel);
    lua_setfield(L, -2, "numel");
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, "torch.Size");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
    lua_pushcfunction(L, size_new);
    lua_setfield(L, -2, "Size");

    luaL_newmetatable(L, "mindtorch.tuple");
    lua_pushcfunction(L, tuple_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, size_eq);
    lua_setfield(L, -2, "__eq");
    lua_pop(L, 1);
}
