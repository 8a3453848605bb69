/* lmt_creation.c: torch.tensor(data, {dtype=, device=, requires_grad=}) from Lua values. */
#include "lmt.h"
#include "mt_ops_gen.h"

#include <string.h>

typedef struct {
    int ndim;
    int64_t sizes[MT_MAX_DIM];
    bool any_float, any_int, any_bool;
} nest_info;

/* Read the shape from the first element of each level. */
static int infer_shape(lua_State *L, int idx, nest_info *ni) {
    luaL_checkstack(L, MT_MAX_DIM + 4, "nested table too deep");
    int top = lua_gettop(L);
    lua_pushvalue(L, idx);
    while (lua_type(L, -1) == LUA_TTABLE && !lmt_to_tensor(L, -1)) {
        if (ni->ndim >= MT_MAX_DIM) {
            lua_settop(L, top);
            return mt_error(MT_ERR_VALUE, "too many dimensions: mindtorch supports at most %d",
                            MT_MAX_DIM);
        }
        /* raw lengths and entries: a user's __len (-1, 2^40) never sizes the tensor */
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        ni->sizes[ni->ndim++] = n;
        if (n == 0) break;
        lua_rawgeti(L, -1, 1);
    }
    lua_settop(L, top);
    return 0;
}

static const char *value_type(lua_State *L, int idx) {
    return lua_type(L, idx) == LUA_TNUMBER ? (lua_isinteger(L, idx) ? "integer" : "number")
                                           : luaL_typename(L, idx);
}

/* Check every level has the right length and note what kinds of numbers appear. */
static int scan(lua_State *L, int idx, int d, nest_info *ni) {
    idx = lua_absindex(L, idx);
    if (d == ni->ndim) {
        int t = lua_type(L, idx);
        if (t == LUA_TNUMBER) {
            if (lua_isinteger(L, idx))
                ni->any_int = true;
            else
                ni->any_float = true;
            return 0;
        }
        if (t == LUA_TBOOLEAN) {
            ni->any_bool = true;
            return 0;
        }
        mt_tensor *x = lmt_to_tensor(L, idx);
        if (x) {
            if (x->numel != 1)
                return mt_error(MT_ERR_VALUE,
                                "only one element tensors can be converted to Lua scalars");
            if (mt_dtype_is_floating((mt_dtype)x->dtype))
                ni->any_float = true;
            else if (x->dtype == MT_BOOL)
                ni->any_bool = true;
            else
                ni->any_int = true;
            return 0;
        }
        if (t == LUA_TTABLE)
            return mt_error(MT_ERR_TYPE, "'table' object cannot be interpreted as a number");
        return mt_error(MT_ERR_TYPE, "new(): invalid data type '%s'", value_type(L, idx));
    }
    if (lua_type(L, idx) != LUA_TTABLE || lmt_to_tensor(L, idx))
        return mt_error(MT_ERR_TYPE, "not a sequence");
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    if (n != ni->sizes[d])
        return mt_error(MT_ERR_VALUE, "expected sequence of length %lld at dim %d (got %lld)",
                        (long long)ni->sizes[d], d + 1, (long long)n);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        int r = scan(L, -1, d + 1, ni);
        lua_pop(L, 1);
        if (r) return r;
    }
    return 0;
}

static int store(lua_State *L, int idx, mt_dtype dt, char *p) {
    mt_value v;
    int t = lua_type(L, idx);
    if (t == LUA_TNUMBER)
        v = lua_isinteger(L, idx) ? mt_vint(lua_tointeger(L, idx))
                                  : mt_vdouble(lua_tonumber(L, idx));
    else if (t == LUA_TBOOLEAN)
        v = mt_vbool(lua_toboolean(L, idx));
    else { /* a one-element tensor */
        mt_tensor *x = lmt_to_tensor(L, idx);
        mt_tensor *c = x->device.type == MT_DEV_CPU ? (mt_tensor_incref(x), x)
                                                    : mto__to_copy(x, -1, MT_CPU, false, NULL);
        if (!c) return -1;
        const void *q = mt_tensor_data(c);
        mt_dtype xd = (mt_dtype)c->dtype;
        v = xd == MT_BOOL              ? mt_vbool(*(const uint8_t *)q != 0)
            : mt_dtype_is_floating(xd) ? mt_vdouble(mt_load_double(q, xd))
                                       : mt_vint(mt_load_int64(q, xd));
        mt_tensor_decref(c);
    }
    if (mt_dtype_is_floating(dt)) { /* no overflow check: 1e300 becomes inf, as in PyTorch */
        mt_store_double(p, dt, mt_scalar_double(v));
        return 0;
    }
    return mt_scalar_store_checked(v, dt, p, true);
}

static int fill(lua_State *L, int idx, int d, const mt_tensor *t, char *p) {
    if (d == t->ndim) return store(L, idx, (mt_dtype)t->dtype, p);
    idx = lua_absindex(L, idx);
    size_t isz = mt_dtype_size((mt_dtype)t->dtype);
    for (int64_t i = 0; i < t->sizes[d]; i++) {
        lua_rawgeti(L, idx, i + 1); /* the entries scan checked */
        int r = fill(L, -1, d + 1, t, p + i * t->strides[d] * (int64_t)isz);
        lua_pop(L, 1);
        if (r) return r;
    }
    return 0;
}

/* torch.tensor(data [, options]) */
static int l_tensor(lua_State *L) {
    int dt_given = -1;
    mt_device dev = MT_CPU;
    bool rg = false;
    if (lua_istable(L, 2)) {
        if (lua_getfield(L, 2, "dtype") != LUA_TNIL) dt_given = (int)lmt_check_dtype(L, -1);
        if (lua_getfield(L, 2, "device") != LUA_TNIL && lmt_to_device(L, -1, &dev))
            return lmt_error(L);
        if (lua_getfield(L, 2, "requires_grad") != LUA_TNIL) rg = lua_toboolean(L, -1);
        lua_pushnil(L);
        while (lua_next(L, 2)) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
            if (strcmp(k, "dtype") && strcmp(k, "device") && strcmp(k, "requires_grad") &&
                strcmp(k, "pin_memory"))
                return lmt_errorf(L, "tensor() got an unexpected keyword argument '%s'", k);
            lua_pop(L, 1);
        }
        lua_settop(L, 2);
    }
    mt_tensor *src = lmt_to_tensor(L, 1);
    mt_tensor *t;
    if (src) { /* torch.tensor(tensor): a detached copy */
        t = mto__to_copy(src, dt_given, MT_NO_DEVICE, false, NULL);
        if (!t) return lmt_error(L);
    } else {
        nest_info ni = {0};
        if (lua_isnoneornil(L, 1))
            return lmt_errorf(L, "tensor() missing 1 required positional arguments: \"data\"");
        if (infer_shape(L, 1, &ni) || scan(L, 1, 0, &ni)) return lmt_error(L);
        mt_dtype dt = dt_given >= 0  ? (mt_dtype)dt_given
                      : ni.any_float ? mt_default_dtype()
                      : ni.any_int   ? MT_INT64
                      : ni.any_bool  ? MT_BOOL
                                     : mt_default_dtype();
        t = mt_tensor_empty(ni.ndim, ni.sizes, dt, MT_CPU);
        if (!t) return lmt_error(L);
        if (t->numel && fill(L, 1, 0, t, mt_tensor_raw(t))) {
            mt_tensor_decref(t);
            return lmt_error(L);
        }
    }
    if (dev.type != MT_DEV_CPU) {
        mt_tensor *moved = mto__to_copy(t, -1, dev, false, NULL);
        mt_tensor_decref(t);
        if (!moved) return lmt_error(L);
        t = moved;
    }
    lmt_push_tensor(L, t);
    lmt_gc_hint(L);
    if (rg) {
        if (!mt_dtype_is_floating((mt_dtype)t->dtype))
            return lmt_errorf(
                L, "Only Tensors of floating point and complex dtype can require gradients");
        t->flags |= MT_T_REQUIRES_GRAD;
    }
    return 1;
}

/* torch._wrap_number(n, other): a 0-d tensor that promotes like a Lua number (a "wrapped number"),
 * for the reflected operators (2 - x, 2 // x) that have no Scalar-first overload; on the device of
 * the tensor `other`, where PyTorch's CPU scalar would join that device's kernel */
static int l_wrap_number(lua_State *L) {
    mt_tensor *t;
    if (lua_isboolean(L, 1))
        t = mt_tensor_scalar_int64(lua_toboolean(L, 1), MT_BOOL);
    else if (lua_isinteger(L, 1))
        t = mt_tensor_scalar_int64(lua_tointeger(L, 1), MT_INT64);
    else
        t = mt_tensor_scalar_double(luaL_checknumber(L, 1), MT_FLOAT64);
    if (!t) return lmt_error(L);
    mt_tensor *other = lmt_to_tensor(L, 2);
    if (other && other->device.type != MT_DEV_CPU) {
        mt_tensor *moved = mto_to_device(t, other->device, -1, false, false, NULL);
        mt_tensor_decref(t);
        if (!moved) return lmt_error(L);
        t = moved;
    }
    t->flags |= MT_T_WRAPPED_NUMBER;
    lmt_push_tensor(L, t);
    return 1;
}

void lmt_open_creation(lua_State *L) {
    lua_pushcfunction(L, l_wrap_number);
    lua_setfield(L, -2, "_wrap_number");
    lua_pushcfunction(L, l_tensor);
    lua_setfield(L, -2, "tensor");
}
