/* lmt_convert.c: one Lua value -> one boxed op argument, as its schema type asks. Dims and
 * indices arrive 1-based and leave 0-based here (LUA_API.md); long lists live in Lua memory
 * anchored for the call, short ones on the C stack (lmt_scratch). */
#include "lmt_call.h"
#include "mt_ops_gen.h"

/* Memory for a long list, owned by Lua and anchored for the call; leaves the stack as it was. */
static void *scratch_alloc(lua_State *L, lmt_scratch *sc, size_t n) {
    void *p = lua_newuserdatauv(L, n ? n : 1, 0);
    if (lua_isnil(L, sc->anchor)) {
        lua_newtable(L);
        lua_replace(L, sc->anchor);
    }
    lua_rawseti(L, sc->anchor, ++sc->nanchored);
    return p;
}

void lmt_scratch_release(lmt_scratch *sc) {
    for (int i = 0; i < sc->nowned; i++) mt_tensor_decref(sc->owned[i]);
    sc->nowned = 0;
}

/* ---- type names ------------------------------------------------------------------------------ */

const char *lmt_value_type(lua_State *L, int idx) {
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        return lua_isinteger(L, idx) ? "integer" : "number";
    case LUA_TUSERDATA:
        if (luaL_testudata(L, idx, LMT_TENSOR)) return "Tensor";
        if (luaL_testudata(L, idx, LMT_DTYPE)) return "torch.dtype";
        if (luaL_testudata(L, idx, LMT_DEVICE)) return "torch.device";
        return "userdata";
    case LUA_TTABLE:
        if (lua_getmetatable(L, idx)) {
            luaL_getmetatable(L, LMT_SIZE);
            int is_size = lua_rawequal(L, -1, -2);
            lua_pop(L, 2);
            if (is_size) return "torch.Size";
        }
        return "table";
    default:
        return luaL_typename(L, idx);
    }
}

/* ---- Lua value -> boxed value ---------------------------------------------------------------- */

int lmt_to_int(lua_State *L, int idx, int64_t *out) {
    int isnum;
    lua_Integer i = lua_tointegerx(L, idx, &isnum);
    if (isnum && lua_type(L, idx) == LUA_TNUMBER) {
        *out = i;
        return 0;
    }
    mt_tensor *t = lmt_to_tensor(L, idx); /* a 0-d integer tensor counts as an int */
    if (t && t->ndim == 0 && !mt_dtype_is_floating((mt_dtype)t->dtype) && t->dtype != MT_BOOL &&
        t->device.type == MT_DEV_CPU) {
        void *p = mt_tensor_data(t);
        if (!p) return -1;
        *out = mt_load_int64(p, (mt_dtype)t->dtype);
        return 0;
    }
    return -1;
}

/* a torch.Size, or the int tuple stride() returns */
static bool is_size_table(lua_State *L, int idx) {
    if (!lua_getmetatable(L, idx)) return false;
    luaL_getmetatable(L, LMT_SIZE);
    luaL_getmetatable(L, "mindtorch.tuple");
    bool r = lua_rawequal(L, -1, -3) || lua_rawequal(L, -2, -3);
    lua_pop(L, 3);
    return r;
}

/* Fill an int list from a Lua sequence (or a single int for fixed-length params). */
static int conv_intlist(lua_State *L, int idx, const mt_arg *a, mt_value *out, lmt_scratch *sc,
                        lmt_mismatch *mm) {
    bool dims = a->type == MT_A_DIMLIST;
    int64_t single;
    if (lua_type(L, idx) == LUA_TNUMBER || lmt_box_tensor(L, idx)) {
        if (!a->fixed_len || lmt_to_int(L, idx, &single)) return -1;
        if (sc->nints >= 8) return -1;
        int64_t *buf = sc->ints[sc->nints++];
        for (int i = 0; i < a->fixed_len; i++) buf[i] = dims ? lmt_from_user_index(single) : single;
        *out = (mt_value){.tag = MT_V_INTLIST, .n = a->fixed_len, .il = buf};
        return 0;
    }
    if (lua_type(L, idx) != LUA_TTABLE) return -1;
    if (lua_getmetatable(L,
                         idx)) { /* a plain sequence, a torch.Size or an int tuple, nothing else */
        lua_pop(L, 1);
        if (!is_size_table(L, idx)) return -1;
    }
    /* the raw length and entries: a __len or __index from the user never sizes the buffer */
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    if (n > INT32_MAX) return -1;
    int64_t *buf = n <= MT_MAX_DIM && sc->nints < 8
                       ? sc->ints[sc->nints++]
                       : scratch_alloc(L, sc, sizeof(int64_t) * (size_t)n);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        if (lmt_to_int(L, -1, &buf[i - 1])) {
            mm->got = lmt_value_type(L, -1);
            mm->kind = M_ELEMENT;
            mm->element = (int)i;
            lua_pop(L, 1);
            return -1;
        }
        if (dims) buf[i - 1] = lmt_from_user_index(buf[i - 1]);
        lua_pop(L, 1);
    }
    *out = (mt_value){.tag = MT_V_INTLIST, .n = (int32_t)n, .il = buf};
    return 0;
}

/* A list of floats (float[]: histogram's range) from a plain Lua sequence of numbers. */
static int conv_floatlist(lua_State *L, int idx, mt_value *out, lmt_scratch *sc, lmt_mismatch *mm) {
    if (lua_type(L, idx) != LUA_TTABLE || lua_getmetatable(L, idx)) {
        if (lua_type(L, idx) == LUA_TTABLE) lua_pop(L, 1);
        return -1;
    }
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    if (n > INT32_MAX) return -1;
    double *buf = scratch_alloc(L, sc, sizeof(double) * (size_t)(n ? n : 1));
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, idx, i) != LUA_TNUMBER) {
            mm->got = lmt_value_type(L, -1);
            mm->kind = M_ELEMENT;
            mm->element = (int)i;
            lua_pop(L, 1);
            return -1;
        }
        buf[i - 1] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    *out = (mt_value){.tag = MT_V_DOUBLELIST, .n = (int32_t)n, .dl = buf};
    return 0;
}

/* A list of tensors; with allow_none, `false` entries stand for None (NULL). */
static int conv_tensorlist(lua_State *L, int idx, mt_value *out, lmt_scratch *sc, lmt_mismatch *mm,
                           bool allow_none) {
    if (lua_type(L, idx) != LUA_TTABLE) return -1;
    /* the raw length and entries, as for int lists: a hostile __len (-1, 2^40) sizes nothing */
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    if (n > INT32_MAX) return -1;
    mt_tensor **buf = n <= MT_MAX_DIM && sc->ntl < 4
                          ? sc->tl[sc->ntl++]
                          : scratch_alloc(L, sc, sizeof(mt_tensor *) * (size_t)n);
    for (lua_Integer i = 1; i <= n; i++) {
        bool none = lua_rawgeti(L, idx, i) == LUA_TBOOLEAN && !lua_toboolean(L, -1) && allow_none;
        mt_tensor *t = none ? NULL : lmt_box_tensor(L, -1);
        if (!t && !none) {
            mm->got = lmt_value_type(L, -1);
            mm->kind = M_ELEMENT;
            mm->element = (int)i;
            lua_pop(L, 1);
            return -1;
        }
        buf[i - 1] = t; /* the table keeps the tensor alive during the call */
        lua_pop(L, 1);
    }
    *out = mt_vtlist(buf, (int)n);
    return 0;
}

/* The value a user's 0 becomes in a converted index tensor of dtype dt: one no other user value
 * converts to (a uint8 has no room for INT32_MIN: its 0 would have become a valid 0) */
static int64_t zero_sentinel(mt_dtype dt) {
    return dt == MT_INT64 ? MT_ZERO_SENTINEL : dt == MT_UINT8 ? MT_ZERO_SENTINEL_U8 : INT32_MIN;
}

/* Index tensors arrive 1-based: the core gets a converted copy (i > 0 -> i - 1; negatives,
 * which count from the end, unchanged; 0 -> the sentinel, so errors can quote the user's 0). */
static int conv_index_tensor(lua_State *L, mt_tensor *t, mt_value *out, lmt_scratch *sc) {
    MT_UNUSED(L);
    if (sc->nowned >= (int)MT_ARRAY_LEN(sc->owned))
        return mt_error(MT_ERR_RUNTIME, "too many index tensors in one call");
    mt_dtype dt = (mt_dtype)t->dtype;
    if (!mt_dtype_is_floating(dt) && dt != MT_BOOL && t->device.type != MT_DEV_CPU) {
        /* on another device: the same conversion, with that device's ops */
        int64_t sentinel = zero_sentinel(dt);
        mt_tensor *pos = mto_gt_Scalar(t, mt_vint(0)),
                  *dec = pos ? mto_sub_Scalar(t, mt_vint(1), mt_vint(1)) : NULL;
        mt_tensor *shifted = dec ? mto_where_self(pos, dec, t) : NULL;
        mt_tensor *zero = shifted ? mto_eq_Scalar(t, mt_vint(0)) : NULL;
        mt_tensor *c = zero ? mto_masked_fill_Scalar(shifted, zero, mt_vint(sentinel)) : NULL;
        mt_tensor_decref(pos);
        mt_tensor_decref(dec);
        mt_tensor_decref(shifted);
        mt_tensor_decref(zero);
        if (!c) return -1;
        sc->owned[sc->nowned++] = c;
        *out = mt_vtensor(c);
        return 0;
    }
    if (mt_dtype_is_floating(dt) || dt == MT_BOOL) {
        /* not an integer index: passed as is, for the op to refuse with PyTorch's words */
        mt_tensor_incref(t);
        sc->owned[sc->nowned++] = t;
        *out = mt_vtensor(t);
        return 0;
    }
    mt_tensor *c = mt_tensor_empty(t->ndim, t->sizes, dt, MT_CPU);
    if (!c) return -1;
    mt_tensor *src = mto_contiguous(t, NULL);
    if (!src) {
        mt_tensor_decref(c);
        return -1;
    }
    if (mt_tensor_sync(src)) { /* deferred work writes it (pipeline mode) */
        mt_tensor_decref(src);
        mt_tensor_decref(c);
        return -1;
    }
    const char *sp = mt_tensor_raw(src);
    char *dp = mt_tensor_raw(c);
    size_t isz = mt_dtype_size(dt);
    int64_t sentinel = zero_sentinel(dt);
    for (int64_t i = 0; i < t->numel; i++) {
        int64_t v = mt_load_int64(sp + i * (int64_t)isz, dt);
        mt_store_int64(dp + i * (int64_t)isz, dt, v > 0 ? v - 1 : v == 0 ? sentinel : v);
    }
    mt_tensor_decref(src);
    sc->owned[sc->nowned++] = c;
    *out = mt_vtensor(c);
    return 0;
}

/* A list of index tensors (IndexTensor?[]): each converted to 0-based, bool and uint8 masks as
 * they are, `false` for None (a whole dim). A list longer than any tensor's dims passes
 * unconverted, for the op's "too many indices" error. */
static int conv_index_list(lua_State *L, int idx, mt_value *out, lmt_scratch *sc,
                           lmt_mismatch *mm) {
    int st = conv_tensorlist(L, idx, out, sc, mm, true);
    if (st || out->n > MT_MAX_DIM) return st;
    for (int i = 0; i < out->n; i++) {
        mt_tensor *t = out->tl[i];
        if (!t || t->dtype == MT_UINT8) continue;
        mt_value v;
        if (conv_index_tensor(L, t, &v, sc)) return -2;
        out->tl[i] = v.t;
    }
    return 0;
}

int lmt_conv(lua_State *L, int idx, const mt_arg *a, mt_value *out, lmt_scratch *sc,
             lmt_mismatch *mm) {
    int lt = lua_type(L, idx);
    if (lt == LUA_TNIL) {
        if (a->optional) {
            *out = MT_NONE;
            return 0;
        }
        if (a->has_default) {
            *out = a->def;
            return 0;
        }
        return -1;
    }
    switch (a->type) {
    case MT_A_TENSOR: {
        mt_tensor *t = lmt_box_tensor(L, idx);
        if (!t) return -1;
        *out = mt_vtensor(t);
        return 0;
    }
    case MT_A_INDEXTENSOR: {
        mt_tensor *t = lmt_box_tensor(L, idx);
        if (!t) return -1;
        return conv_index_tensor(L, t, out, sc) ? -2 : 0;
    }
    case MT_A_TENSORLIST:
        return conv_tensorlist(L, idx, out, sc, mm, false);
    case MT_A_INDEXTENSORLIST:
        return conv_index_list(L, idx, out, sc, mm);
    case MT_A_INT:
    case MT_A_DIM:
    case MT_A_INDEX: {
        int64_t v;
        if (lmt_to_int(L, idx, &v)) return -1;
        *out = mt_vint(a->type == MT_A_INT ? v : lmt_from_user_index(v));
        return 0;
    }
    case MT_A_INTLIST:
    case MT_A_DIMLIST:
        return conv_intlist(L, idx, a, out, sc, mm);
    case MT_A_FLOATLIST:
        return conv_floatlist(L, idx, out, sc, mm);
    case MT_A_FLOAT: {
        if (lt != LUA_TNUMBER) return -1;
        *out = mt_vdouble(lua_tonumber(L, idx));
        return 0;
    }
    case MT_A_BOOL:
        if (lt != LUA_TBOOLEAN) return -1;
        *out = mt_vbool(lua_toboolean(L, idx));
        return 0;
    case MT_A_SCALAR: {
        if (lt == LUA_TNUMBER) {
            *out = lua_isinteger(L, idx) ? mt_vint(lua_tointeger(L, idx))
                                         : mt_vdouble(lua_tonumber(L, idx));
            return 0;
        }
        if (lt == LUA_TBOOLEAN) {
            *out = mt_vbool(lua_toboolean(L, idx));
            return 0;
        }
        mt_tensor *t = lmt_box_tensor(L, idx);
        /* a 0-dim tensor is a number (PyTorch's rule: a one-element 1-d tensor is not) */
        if (t && t->ndim == 0 && t->device.type == MT_DEV_CPU) {
            void *p = mt_tensor_data(t);
            if (!p) return -2;
            mt_dtype dt = (mt_dtype)t->dtype;
            *out = dt == MT_BOOL              ? mt_vbool(*(uint8_t *)p != 0)
                   : mt_dtype_is_floating(dt) ? mt_vdouble(mt_load_double(p, dt))
                                              : mt_vint(mt_load_int64(p, dt));
            return 0;
        }
        return -1;
    }
    case MT_A_DTYPE: {
        int dt = lmt_to_dtype(L, idx);
        if (dt < 0) return -1;
        *out = mt_vdtype(dt);
        return 0;
    }
    case MT_A_DEVICE: {
        mt_device d;
        if (lt == LUA_TSTRING) {
            if (mt_device_parse(lua_tostring(L, idx), &d)) return -2;
        } else if (lmt_to_device(L, idx, &d)) {
            mt_error_clear();
            return -1;
        }
        *out = mt_vdevice(d);
        return 0;
    }
    case MT_A_STR:
        if (lt != LUA_TSTRING) return -1;
        *out = mt_vstr(lua_tostring(L, idx));
        return 0;
    case MT_A_GENERATOR: {
        void *g = luaL_testudata(L, idx, "mindtorch.Generator");
        if (!g) return -1;
        *out = (mt_value){.tag = MT_V_GENERATOR, .gen = *(void **)g};
        return 0;
    }
    default:
        return -1;
    }
}
