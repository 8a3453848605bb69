/* lmt_index.c: the view part of Torch7-style indexing (lua/mindtorch/_indexing.lua) in one
 * step: a key of numbers, ranges, ":" and "..." becomes one view, whatever its length, so
 * x[{i, {a, b}}] costs one tensor instead of one per entry. Keys with tensors are left to
 * the Lua side (which calls this for their view part first).
 *
 * torch._index_view(x, key) -> the view, or nil when the key holds a tensor. */
#include "lmt.h"
#include "mt_autograd.h"
#include "mt_ops_gen.h"

#include <string.h>

static int invalid_entry(lua_State *L, int idx) {
    const char *what = lua_type(L, idx) == LUA_TNUMBER
                           ? (lua_isinteger(L, idx) ? "integer" : "float")
                           : luaL_typename(L, idx);
    return lmt_errorf(L,
                      "only integers, ranges ({a, b}), \":\", \"...\" and long or bool tensors are "
                      "valid indices (got %s)",
                      what);
}

static int out_of_bounds(lua_State *L, lua_Integer i, int dim, int64_t size) {
    return lmt_errorf(L, "index %I is out of bounds for dimension %d with size %I", i, dim,
                      (lua_Integer)size);
}

static bool get_int(lua_State *L, int idx, lua_Integer *out) {
    if (!lua_isinteger(L, idx)) return false;
    *out = lua_tointeger(L, idx);
    return true;
}

typedef struct view {
    int ndim;
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM], offset;
} view;

/* select position i (1-based, negatives from the end) of dim d; `user_dim` for messages */
static void select_dim(lua_State *L, view *v, int d, lua_Integer i, int user_dim) {
    int64_t size = v->sizes[d], p = i < 0 ? size + i + 1 : i;
    if (i == 0 || p < 1 || p > size) out_of_bounds(L, i, user_dim, size);
    v->offset += (p - 1) * v->strides[d];
    memmove(v->sizes + d, v->sizes + d + 1, sizeof(int64_t) * (size_t)(v->ndim - d - 1));
    memmove(v->strides + d, v->strides + d + 1, sizeof(int64_t) * (size_t)(v->ndim - d - 1));
    v->ndim--;
}

/* the range {a}, {a, b} or {a, b, step} (table at idx) along dim d */
static void range_dim(lua_State *L, view *v, int d, int idx) {
    int64_t size = v->sizes[d];
    lua_Integer a = 1, b = -1, step = 1;
    lua_Integer len = (lua_Integer)lua_rawlen(L, idx);
    if (len == 0) return; /* {}: the whole dim */
    lua_rawgeti(L, idx, 1);
    if (!get_int(L, -1, &a)) invalid_entry(L, -1);
    b = a;
    if (len >= 2) {
        lua_rawgeti(L, idx, 2);
        if (!get_int(L, -1, &b)) invalid_entry(L, -1);
        lua_pop(L, 1);
    }
    if (len >= 3) {
        lua_rawgeti(L, idx, 3);
        if (!get_int(L, -1, &step)) invalid_entry(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (step <= 0) lmt_errorf(L, "range step must be a positive integer");
    int64_t from = a < 0 ? size + a + 1 : a, to = b < 0 ? size + b + 1 : b;
    if (from < 1 || from > size + 1) out_of_bounds(L, a, d + 1, size);
    if (to > size || to < 0) out_of_bounds(L, b, d + 1, size);
    int64_t n = to >= from ? (to - from) / step + 1 : 0;
    if (n > 0) v->offset += (from - 1) * v->strides[d];
    v->sizes[d] = n;
    v->strides[d] *= step;
}

static bool is_tensor_entry(lua_State *L, int idx) {
    return lmt_to_tensor(L, idx) != NULL;
}

static int index_view(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    view v = {.ndim = t->ndim, .offset = t->offset};
    memcpy(v.sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(v.strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    if (lua_isinteger(L, 2)) {
        if (t->ndim == 0)
            return lmt_errorf(L, "invalid index of a 0-dim tensor. Use `tensor:item()` to convert "
                                 "a 0-dim tensor to a number");
        select_dim(L, &v, 0, lua_tointeger(L, 2), 1);
    } else if (lua_type(L, 2) == LUA_TTABLE && !lua_getmetatable(L, 2)) {
        int n = (int)lua_rawlen(L, 2), used = 0;
        /* what the entries consume: tensors leave the key to the Lua side */
        for (int i = 1; i <= n; i++) {
            int ty = lua_rawgeti(L, 2, i);
            if (ty == LUA_TSTRING && strcmp(lua_tostring(L, -1), "...") == 0) {
            } else if (is_tensor_entry(L, -1)) {
                lua_pushnil(L);
                return 1;
            } else {
                used++;
            }
            lua_pop(L, 1);
        }
        if (used > t->ndim)
            return lmt_errorf(L, "too many indices for tensor of dimension %d", t->ndim);
        int d = 0, selected = 0;
        bool ellipsis = false;
        for (int i = 1; i <= n; i++) {
            int ty = lua_rawgeti(L, 2, i);
            const char *s = ty == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
            if (s && strcmp(s, "...") == 0) {
                if (!ellipsis) d += t->ndim - used;
                ellipsis = true;
            } else if (s && strcmp(s, ":") == 0) {
                d++;
            } else if (lua_isinteger(L, -1)) {
                select_dim(L, &v, d, lua_tointeger(L, -1),
                           d + selected + 1); /* messages name t's dim */
                selected++;
            } else if (ty == LUA_TTABLE && !lmt_to_tensor(L, -1)) {
                range_dim(L, &v, d, lua_gettop(L));
                d++;
            } else {
                return invalid_entry(L, -1);
            }
            lua_pop(L, 1);
        }
    } else {
        lua_pushnil(L); /* not a key this handles (a tensor, a metatabled table) */
        return 1;
    }
    mt_tensor *out;
    if (mt_grad_enabled() && mt_tensor_requires_grad(t)) {
        /* through an op, so autograd records it: x[i] is select (SelectBackward0), anything
         * else one as_strided */
        if (lua_isinteger(L, 2)) {
            lua_Integer i = lua_tointeger(L, 2);
            out = mto_select_int(t, 0, i < 0 ? i : i - 1);
        } else {
            out = mto_as_strided(t, (mt_ilist){v.sizes, v.ndim}, (mt_ilist){v.strides, v.ndim},
                                 mt_vint(v.offset));
        }
    } else {
        out = mt_tensor_view_of(t, v.ndim, v.sizes, v.strides, v.offset);
        if (out && !mt_grad_enabled())
            out->flags |= MT_T_VIEW_NO_GRAD; /* as every view made without grad */
    }
    if (!out) return lmt_error(L);
    lmt_push_tensor(L, out);
    return 1;
}

void lmt_open_index(lua_State *L) {
    lua_pushcfunction(L, index_view);
    lua_setfield(L, -2, "_index_view");
}
