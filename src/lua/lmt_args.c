/* lmt_args.c: the one generic, schema-driven call path from Lua into any operator.
 *
 * A Lua call names an op (torch.add, x:add); the binding tries the op's overloads in declared
 * order, converting the Lua arguments (positional, or a trailing table of options) to boxed
 * values as each schema asks, applies the 1-based conventions (Dim, Index, IndexTensor), calls
 * the dispatcher, and pushes the results back. Argument errors are worded as PyTorch's
 * argument parser words them, with Lua's type names for the values a user passed.
 */
#include "lmt.h"
#include "mt_ops_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OVERLOADS 8
#define MAX_ARGS 16

/* How Lua arguments map to one overload's parameters, worked out once per closure. */
typedef struct arg_plan {
    int8_t self_index; /* the parameter a method's receiver fills (-1 for functions) */
    int8_t npos;       /* positional parameters (after the receiver) */
    int8_t pos[MAX_ARGS];
} arg_plan;

typedef struct lmt_opset {
    const char *name;
    bool method;
    int n;
    const mt_op *ops[MAX_OVERLOADS];
    arg_plan plans[MAX_OVERLOADS];
} lmt_opset;

/* Memory that lives for one call: short lists on the C stack, long ones in Lua userdata. */
typedef struct scratch {
    int64_t ints[8][MT_MAX_DIM];
    int nints;
    mt_tensor *tl[4][MT_MAX_DIM];
    int ntl;
    mt_tensor *owned[8 + MT_MAX_DIM]; /* converted tensors (IndexTensor args) released after the call */
    int nowned;
    int anchor; /* stack slot of a table that keeps long lists alive (nil until needed) */
    int nanchored;
} scratch;

/* Memory for a long list, owned by Lua and anchored for the call; leaves the stack as it was. */
static void *scratch_alloc(lua_State *L, scratch *sc, size_t n) {
    void *p = lua_newuserdatauv(L, n ? n : 1, 0);
    if (lua_isnil(L, sc->anchor)) {
        lua_newtable(L);
        lua_replace(L, sc->anchor);
    }
    lua_rawseti(L, sc->anchor, ++sc->nanchored);
    return p;
}

static void scratch_release(scratch *sc) {
    for (int i = 0; i < sc->nowned; i++) mt_tensor_decref(sc->owned[i]);
    sc->nowned = 0;
}

/* Why an overload did not match, for the error message. */
typedef struct mismatch {
    enum { M_NONE, M_TYPE, M_ELEMENT, M_UNKNOWN_KW, M_MULTIPLE, M_MISSING, M_TOO_MANY } kind;
    int arg;       /* schema index */
    int position;  /* 1-based Lua position (0 for keywords) */
    int element;   /* 1-based list element */
    const char *got; /* Lua type of the value (a static string) */
    char key[64];  /* keyword */
    int count, given;
} mismatch;

static mt_tensor *arg_tensor(lua_State *L, int idx) { return lmt_box_tensor(L, idx); }

/* ---- type names -------------------------------------------------------------------------------- */

static const char *lua_value_type(lua_State *L, int idx) {
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER: return lua_isinteger(L, idx) ? "integer" : "number";
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
    default: return luaL_typename(L, idx);
    }
}

static const char *expected_type(const mt_arg *a) {
    switch (a->type) {
    case MT_A_TENSOR:
    case MT_A_INDEXTENSOR: return "Tensor";
    case MT_A_TENSORLIST:
    case MT_A_INDEXTENSORLIST: return "tuple of Tensors";
    case MT_A_INT:
    case MT_A_DIM:
    case MT_A_INDEX: return "int";
    case MT_A_INTLIST:
    case MT_A_DIMLIST: return "tuple of ints";
    case MT_A_FLOAT: return "float";
    case MT_A_FLOATLIST: return "tuple of floats";
    case MT_A_BOOL: return "bool";
    case MT_A_SCALAR: return "Number";
    case MT_A_DTYPE: return "torch.dtype";
    case MT_A_DEVICE: return "torch.device";
    case MT_A_STR: return "str";
    case MT_A_GENERATOR: return "torch.Generator";
    default: return "?";
    }
}

/* ---- Lua value -> boxed value -------------------------------------------------------------------- */

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

/* 1-based user numbering -> the core's 0-based numbering (user 0 -> the sentinel) */
static int64_t from_user_index(int64_t v) { return v > 0 ? v - 1 : v == 0 ? MT_ZERO_SENTINEL : v; }

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
static int conv_intlist(lua_State *L, int idx, const mt_arg *a, mt_value *out, scratch *sc,
                        mismatch *mm) {
    bool dims = a->type == MT_A_DIMLIST;
    int64_t single;
    if (lua_type(L, idx) == LUA_TNUMBER || arg_tensor(L, idx)) {
        if (!a->fixed_len || lmt_to_int(L, idx, &single)) return -1;
        if (sc->nints >= 8) return -1;
        int64_t *buf = sc->ints[sc->nints++];
        for (int i = 0; i < a->fixed_len; i++) buf[i] = dims ? from_user_index(single) : single;
        *out = (mt_value){.tag = MT_V_INTLIST, .n = a->fixed_len, .il = buf};
        return 0;
    }
    if (lua_type(L, idx) != LUA_TTABLE) return -1;
    if (lua_getmetatable(L, idx)) { /* a plain sequence, a torch.Size or an int tuple, nothing else */
        lua_pop(L, 1);
        if (!is_size_table(L, idx)) return -1;
    }
    /* the raw length and entries: a __len or __index from the user never sizes the buffer */
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    if (n > INT32_MAX) return -1;
    int64_t *buf = n <= MT_MAX_DIM && sc->nints < 8 ? sc->ints[sc->nints++]
                                                     : scratch_alloc(L, sc, sizeof(int64_t) * (size_t)n);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        if (lmt_to_int(L, -1, &buf[i - 1])) {
            mm->got = lua_value_type(L, -1);
            mm->kind = M_ELEMENT;
            mm->element = (int)i;
            lua_pop(L, 1);
            return -1;
        }
        if (dims) buf[i - 1] = from_user_index(buf[i - 1]);
        lua_pop(L, 1);
    }
    *out = (mt_value){.tag = MT_V_INTLIST, .n = (int32_t)n, .il = buf};
    return 0;
}

/* A list of tensors; with allow_none, `false` entries stand for None (NULL). */
static int conv_tensorlist(lua_State *L, int idx, mt_value *out, scratch *sc, mismatch *mm, bool allow_none) {
    if (lua_type(L, idx) != LUA_TTABLE) return -1;
    /* the raw length and entries, as for int lists: a hostile __len (-1, 2^40) sizes nothing */
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    if (n > INT32_MAX) return -1;
    mt_tensor **buf = n <= MT_MAX_DIM && sc->ntl < 4 ? sc->tl[sc->ntl++]
                                                     : scratch_alloc(L, sc, sizeof(mt_tensor *) * (size_t)n);
    for (lua_Integer i = 1; i <= n; i++) {
        bool none = lua_rawgeti(L, idx, i) == LUA_TBOOLEAN && !lua_toboolean(L, -1) && allow_none;
        mt_tensor *t = none ? NULL : arg_tensor(L, -1);
        if (!t && !none) {
            mm->got = lua_value_type(L, -1);
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

/* Index tensors arrive 1-based: the core gets a converted copy (i > 0 -> i - 1; negatives,
 * which count from the end, unchanged; 0 -> the sentinel, so errors can quote the user's 0). */
static int conv_index_tensor(lua_State *L, mt_tensor *t, mt_value *out, scratch *sc) {
    MT_UNUSED(L);
    if (sc->nowned >= (int)MT_ARRAY_LEN(sc->owned)) return mt_error(MT_ERR_RUNTIME, "too many index tensors in one call");
    mt_dtype dt = (mt_dtype)t->dtype;
    if (!mt_dtype_is_floating(dt) && dt != MT_BOOL && t->device.type != MT_DEV_CPU) {
        /* on another device: the same conversion, with that device's ops */
        int64_t sentinel = dt == MT_INT64 ? MT_ZERO_SENTINEL : INT32_MIN;
        mt_tensor *pos = mto_gt_Scalar(t, mt_vint(0)), *dec = pos ? mto_sub_Scalar(t, mt_vint(1), mt_vint(1)) : NULL;
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
    mt_tensor *src = mto_contiguous(t);
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
    int64_t sentinel = dt == MT_INT64 ? MT_ZERO_SENTINEL : INT32_MIN;
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
static int conv_index_list(lua_State *L, int idx, mt_value *out, scratch *sc, mismatch *mm) {
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

/* Convert the Lua value at idx for schema arg a. 0: ok; -1: type mismatch (mm filled);
 * -2: a hard error raised by a conversion (left in the error slot). */
static int conv(lua_State *L, int idx, const mt_arg *a, mt_value *out, scratch *sc, mismatch *mm) {
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
        mt_tensor *t = arg_tensor(L, idx);
        if (!t) return -1;
        *out = mt_vtensor(t);
        return 0;
    }
    case MT_A_INDEXTENSOR: {
        mt_tensor *t = arg_tensor(L, idx);
        if (!t) return -1;
        return conv_index_tensor(L, t, out, sc) ? -2 : 0;
    }
    case MT_A_TENSORLIST: return conv_tensorlist(L, idx, out, sc, mm, false);
    case MT_A_INDEXTENSORLIST: return conv_index_list(L, idx, out, sc, mm);
    case MT_A_INT:
    case MT_A_DIM:
    case MT_A_INDEX: {
        int64_t v;
        if (lmt_to_int(L, idx, &v)) return -1;
        *out = mt_vint(a->type == MT_A_INT ? v : from_user_index(v));
        return 0;
    }
    case MT_A_INTLIST:
    case MT_A_DIMLIST: return conv_intlist(L, idx, a, out, sc, mm);
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
            *out = lua_isinteger(L, idx) ? mt_vint(lua_tointeger(L, idx)) : mt_vdouble(lua_tonumber(L, idx));
            return 0;
        }
        if (lt == LUA_TBOOLEAN) {
            *out = mt_vbool(lua_toboolean(L, idx));
            return 0;
        }
        mt_tensor *t = arg_tensor(L, idx);
        /* a 0-dim tensor is a number (PyTorch's rule: a one-element 1-d tensor is not) */
        if (t && t->ndim == 0 && t->device.type == MT_DEV_CPU) {
            void *p = mt_tensor_data(t);
            if (!p) return -2;
            mt_dtype dt = (mt_dtype)t->dtype;
            *out = dt == MT_BOOL ? mt_vbool(*(uint8_t *)p != 0)
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
    default: return -1;
    }
}

/* ---- matching one overload ---------------------------------------------------------------------------- */

/* A trailing table is an options table when it is a plain table keyed by strings. */
static bool is_options_table(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TTABLE) return false;
    if (lua_getmetatable(L, idx)) {
        lua_pop(L, 1);
        return false;
    }
    lua_pushnil(L);
    if (!lua_next(L, idx)) return false;
    bool str = lua_type(L, -2) == LUA_TSTRING;
    lua_pop(L, 2);
    return str;
}

static int find_arg(const mt_schema *s, const char *key, int first) {
    for (int i = first; i < s->nargs; i++)
        if (strcmp(s->args[i].name, key) == 0) return i;
    return -1;
}

/* Keys the binding itself handles: out= for ops that return new tensors (not views, in-place
 * ops or lists, which PyTorch gives no out= either). */
static bool binding_key(const mt_schema *s, const char *k) {
    if (strcmp(k, "out") != 0) return false;
    return s->nrets > 0 && (s->rets[0].type == MT_A_TENSOR || s->rets[0].type == MT_A_INDEXTENSOR) &&
           !(s->flags & (MT_S_VIEW | MT_S_INPLACE));
}

/* Parse Lua args [first, last] (+ options table `opts`, 0 if none) for op. 0 ok, -1 mismatch,
 * -2 hard error. */
static int parse(lua_State *L, const mt_op *op, const arg_plan *plan, bool method, int first, int last, int opts,
                 mt_value *args, scratch *sc, mismatch *mm) {
    const mt_schema *s = op->schema;
    bool given[MAX_ARGS] = {0};
    int self_index = plan->self_index;
    mm->kind = M_NONE;
    mm->arg = mm->position = mm->element = mm->count = mm->given = 0;
    mm->got = NULL;
    mm->key[0] = 0;
    if (s->nargs > MAX_ARGS) return mt_error(MT_ERR_RUNTIME, "too many schema arguments"), -2;
    if (method) { /* Lua arg `first` is the argument named self (where's is not the first) */
        mt_tensor *t = arg_tensor(L, first);
        if (!t || s->nargs == 0 || s->args[self_index].type != MT_A_TENSOR) {
            mm->kind = M_TYPE;
            mm->arg = self_index;
            return -1;
        }
        args[self_index] = mt_vtensor(t);
        given[self_index] = true;
        first++;
    }
    /* positional parameters */
    int npos = plan->npos;
    const int8_t *pos_params = plan->pos;
    int nlua = last - first + 1;
    bool varargs = npos == 1 && (s->args[pos_params[0]].type == MT_A_INTLIST ||
                                 s->args[pos_params[0]].type == MT_A_DIMLIST) &&
                   nlua >= 1 && lua_type(L, first) == LUA_TNUMBER;
    /* arity first, as PyTorch's parser does: every required parameter must be covered by a
     * positional argument or a keyword */
    if (!varargs && nlua <= npos) {
        for (int i = 0; i < s->nargs; i++) {
            const mt_arg *a = &s->args[i];
            if (i == self_index || a->has_default || a->optional) continue;
            bool covered = false;
            for (int j = 0; j < nlua && !covered; j++) covered = pos_params[j] == i && !lua_isnil(L, first + j);
            if (!covered && opts) {
                lua_getfield(L, opts, a->name);
                covered = !lua_isnil(L, -1);
                lua_pop(L, 1);
            }
            if (!covered) {
                mm->kind = M_MISSING;
                mm->arg = i;
                return -1;
            }
        }
    }
    if (varargs) {
        const mt_arg *a = &s->args[pos_params[0]];
        if (sc->nints >= 8 || nlua > MT_MAX_DIM) return -1;
        int64_t *buf = sc->ints[sc->nints++];
        for (int i = 0; i < nlua; i++) {
            if (lmt_to_int(L, first + i, &buf[i])) {
                mm->kind = M_ELEMENT;
                mm->arg = pos_params[0];
                mm->element = i + 1;
                mm->got = lua_value_type(L, first + i);
                return -1;
            }
            if (a->type == MT_A_DIMLIST) buf[i] = from_user_index(buf[i]);
        }
        args[pos_params[0]] = (mt_value){.tag = MT_V_INTLIST, .n = nlua, .il = buf};
        given[pos_params[0]] = true;
    } else {
        if (nlua > npos) {
            mm->kind = M_TOO_MANY;
            mm->count = npos;
            mm->given = nlua;
            return -1;
        }
        for (int i = 0; i < nlua; i++) {
            int ai = pos_params[i];
            if (lua_isnil(L, first + i)) continue; /* nil: not given */
            int r = conv(L, first + i, &s->args[ai], &args[ai], sc, mm);
            if (r) {
                if (mm->kind == M_NONE) mm->kind = M_TYPE;
                mm->arg = ai;
                mm->position = i + 1;
                if (!mm->got) mm->got = lua_value_type(L, first + i);
                return r;
            }
            given[ai] = true;
        }
    }
    /* keyword parameters */
    if (opts) {
        lua_pushnil(L);
        while (lua_next(L, opts)) {
            if (lua_type(L, -2) != LUA_TSTRING) {
                lua_pop(L, 1);
                continue;
            }
            const char *k = lua_tostring(L, -2);
            int ai = find_arg(s, k, 0);
            if (ai == self_index) ai = -1;
            if (ai < 0 && method == false && strcmp(k, "input") == 0 && s->nargs && strcmp(s->args[0].name, "self") == 0)
                ai = 0;
            if (ai < 0) {
                if (binding_key(s, k)) {
                    lua_pop(L, 1);
                    continue;
                }
                mm->kind = M_UNKNOWN_KW;
                snprintf(mm->key, sizeof mm->key, "%s", k);
                lua_pop(L, 2);
                return -1;
            }
            if (given[ai]) {
                mm->kind = M_MULTIPLE;
                snprintf(mm->key, sizeof mm->key, "%s", k);
                lua_pop(L, 2);
                return -1;
            }
            int r = conv(L, lua_absindex(L, -1), &s->args[ai], &args[ai], sc, mm);
            if (r) {
                if (mm->kind == M_NONE) mm->kind = M_TYPE;
                mm->arg = ai;
                mm->position = 0;
                if (!mm->got) mm->got = lua_value_type(L, -1);
                lua_pop(L, 2);
                return r;
            }
            given[ai] = !lua_isnil(L, -1);
            lua_pop(L, 1);
        }
    }
    /* defaults and missing */
    for (int i = 0; i < s->nargs; i++) {
        if (given[i]) continue;
        const mt_arg *a = &s->args[i];
        if (a->has_default)
            args[i] = a->def;
        else if (a->optional)
            args[i] = MT_NONE;
        else {
            mm->kind = M_MISSING;
            mm->arg = i;
            return -1;
        }
    }
    return 0;
}

/* ---- error messages ------------------------------------------------------------------------------------- */

static void add_signature(luaL_Buffer *b, const mt_schema *s, bool method) {
    luaL_addstring(b, "(");
    bool first = true, star = false;
    for (int i = 0; i < s->nargs; i++) {
        const mt_arg *a = &s->args[i];
        if (method && strcmp(a->name, "self") == 0) continue;
        if (!first) luaL_addstring(b, ", ");
        if (a->kwonly && !star) {
            luaL_addstring(b, "*, ");
            star = true;
        }
        luaL_addstring(b, expected_type(a));
        luaL_addstring(b, " ");
        luaL_addstring(b, strcmp(a->name, "self") == 0 ? "input" : a->name);
        first = false;
    }
    luaL_addstring(b, ")");
}

static void add_got(lua_State *L, luaL_Buffer *b, int first, int last, int opts, bool method) {
    bool any = false;
    for (int i = first + (method ? 1 : 0); i <= last; i++) {
        if (any) luaL_addstring(b, ", ");
        luaL_addstring(b, lua_value_type(L, i));
        any = true;
    }
    if (opts) {
        lua_pushnil(L);
        while (lua_next(L, opts)) {
            if (lua_type(L, -2) == LUA_TSTRING) {
                if (any) luaL_addstring(b, ", ");
                lua_pushfstring(L, "%s=%s", lua_tostring(L, -2), lua_value_type(L, -1));
                /* the buffer's box may sit on the stack: add the string from below it */
                const char *str = lua_tostring(L, -1);
                char tmp[128];
                snprintf(tmp, sizeof tmp, "%s", str);
                lua_pop(L, 1);
                luaL_addstring(b, tmp);
                any = true;
            }
            lua_pop(L, 1);
        }
        if (any) luaL_addstring(b, ", ");
    }
}

static int single_error(lua_State *L, const char *name, const mt_schema *s, const mismatch *mm,
                        bool method) {
    const mt_arg *a = &s->args[mm->arg];
    const char *aname = (mm->arg == 0 && !method && strcmp(a->name, "self") == 0) ? "input" : a->name;
    switch (mm->kind) {
    case M_ELEMENT:
        return lmt_errorf(L, "%s(): argument '%s' must be %s, but found element of type %s at pos %d",
                          name, aname, expected_type(a), mm->got, mm->element);
    case M_UNKNOWN_KW: return lmt_errorf(L, "%s() got an unexpected keyword argument '%s'", name, mm->key);
    case M_MULTIPLE: return lmt_errorf(L, "%s() got multiple values for argument '%s'", name, mm->key);
    case M_TOO_MANY:
        return lmt_errorf(L, "%s() takes %d positional argument%s but %d %s given", name, mm->count,
                          mm->count == 1 ? "" : "s", mm->given, mm->given == 1 ? "was" : "were");
    case M_MISSING: return lmt_errorf(L, "%s() missing 1 required positional arguments: \"%s\"", name, aname);
    default:
        if (mm->position)
            return lmt_errorf(L, "%s(): argument '%s' (position %d) must be %s, not %s", name, aname,
                              mm->position, expected_type(a), mm->got);
        return lmt_errorf(L, "%s(): argument '%s' must be %s, not %s", name, aname, expected_type(a), mm->got);
    }
}

/* Would the Lua value at idx pass for schema arg a? (no conversion, for messages only) */
static bool type_ok(lua_State *L, int idx, const mt_arg *a) {
    int lt = lua_type(L, idx);
    if (lt == LUA_TNIL) return a->optional || a->has_default;
    switch (a->type) {
    case MT_A_TENSOR:
    case MT_A_INDEXTENSOR: return arg_tensor(L, idx) != NULL;
    case MT_A_TENSORLIST:
    case MT_A_INDEXTENSORLIST:
    case MT_A_INTLIST:
    case MT_A_DIMLIST:
    case MT_A_FLOATLIST: return lt == LUA_TTABLE || (a->fixed_len && lt == LUA_TNUMBER);
    case MT_A_INT:
    case MT_A_DIM:
    case MT_A_INDEX: return lt == LUA_TNUMBER && lua_isinteger(L, idx);
    case MT_A_FLOAT: return lt == LUA_TNUMBER;
    case MT_A_BOOL: return lt == LUA_TBOOLEAN;
    case MT_A_SCALAR: {
        mt_tensor *t = arg_tensor(L, idx);
        return lt == LUA_TNUMBER || lt == LUA_TBOOLEAN || (t && t->ndim == 0);
    }
    case MT_A_DTYPE: return lmt_to_dtype(L, idx) >= 0;
    case MT_A_DEVICE: return lt == LUA_TSTRING || luaL_testudata(L, idx, LMT_DEVICE);
    case MT_A_STR: return lt == LUA_TSTRING;
    default: return false;
    }
}

/* "(int, !float!)": the given arguments, with the ones an overload rejects marked */
static void add_marked_args(lua_State *L, luaL_Buffer *b, const mt_schema *s, int first, int last,
                            bool method) {
    int pi = method ? 1 : 0;
    luaL_addstring(b, "(");
    for (int i = first + (method ? 1 : 0); i <= last; i++, pi++) {
        while (pi < s->nargs && s->args[pi].kwonly) pi++;
        bool ok = pi < s->nargs && type_ok(L, i, &s->args[pi]);
        const char *ty = lua_value_type(L, i);
        char tmp[64];
        snprintf(tmp, sizeof tmp, ok ? "%s" : "!%s!", ty);
        if (i > first + (method ? 1 : 0)) luaL_addstring(b, ", ");
        luaL_addstring(b, tmp);
    }
    luaL_addstring(b, ")");
}

static int overload_error(lua_State *L, const lmt_opset *set, bool method, int first, int last,
                          int opts, const mismatch *mms) {
    /* a tensor freed by <close> matches no signature: say that, not which overloads exist */
    for (int i = 1; i <= last; i++)
        if (lmt_is_released_tensor(L, i)) return lmt_errorf(L, "%s", lmt_released_message(L, i));
    /* PyTorch reports one overload's own error when it is the only one that takes this many
     * arguments with these keywords (the only plausible one) */
    int plausible = 0, only = 0;
    for (int i = 0; i < set->n; i++)
        if (mms[i].kind == M_TYPE || mms[i].kind == M_ELEMENT) plausible++, only = i;
    if (set->n == 1 || plausible == 1)
        return single_error(L, set->name, set->ops[set->n == 1 ? 0 : only]->schema,
                            &mms[set->n == 1 ? 0 : only], method);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "%s() received an invalid combination of arguments - got (", set->name);
    luaL_addvalue(&b);
    add_got(L, &b, first, last, opts, method);
    luaL_addstring(&b, "), but expected one of:\n");
    for (int i = 0; i < set->n; i++) {
        const mt_schema *s = set->ops[i]->schema;
        luaL_addstring(&b, " * ");
        add_signature(&b, s, method);
        luaL_addstring(&b, "\n");
        if (mms[i].kind == M_TYPE && !opts) {
            luaL_addstring(&b, "      didn't match because some of the arguments have invalid types: ");
            add_marked_args(L, &b, s, first, last, method);
            luaL_addstring(&b, "\n");
        }
    }
    luaL_pushresult(&b);
    return lua_error(L);
}

/* ---- results --------------------------------------------------------------------------------------------- */

static void push_index_tensor(lua_State *L, mt_tensor *t) {
    const mt_op *add = mt_op_find("add.Scalar");
    if (add) {
        mt_value a[3] = {mt_vtensor(t), mt_vint(1), mt_vint(1)}, r[1];
        if (mt_call_op(add->id, a, r)) {
            mt_tensor_decref(t);
            lmt_error(L);
        }
        mt_tensor_decref(t);
        t = r[0].t;
    }
    lmt_push_tensor(L, t);
}

/* Push a tensor result: when it is one of the tensor arguments (an in-place op, a no-op
 * conversion), push that argument's own Lua value so identity is kept. */
static void push_result_tensor(lua_State *L, mt_tensor *t, int first, int last) {
    for (int i = first; i <= last; i++) {
        if (lua_type(L, i) == LUA_TUSERDATA && arg_tensor(L, i) == t) {
            lua_pushvalue(L, i);
            mt_tensor_decref(t);
            return;
        }
    }
    lmt_push_tensor(L, t);
}

static int push_results(lua_State *L, const mt_schema *s, mt_value *rets, int first, int last) {
    for (int i = 0; i < s->nrets; i++) {
        mt_value *v = &rets[i];
        switch (s->rets[i].type) {
        case MT_A_TENSOR: push_result_tensor(L, v->t, first, last); break;
        case MT_A_INDEXTENSOR: push_index_tensor(L, v->t); break;
        case MT_A_TENSORLIST:
            lua_createtable(L, v->n, 0);
            for (int j = 0; j < v->n; j++) {
                lmt_push_tensor(L, v->tl[j]);
                lua_rawseti(L, -2, j + 1);
            }
            free(v->tl);
            break;
        default:
            if (v->tag == MT_V_INT) lua_pushinteger(L, v->i);
            else if (v->tag == MT_V_DOUBLE) lua_pushnumber(L, v->d);
            else if (v->tag == MT_V_BOOL) lua_pushboolean(L, v->b);
            else lua_pushnil(L);
        }
    }
    return s->nrets;
}

/* requires_grad= and pin_memory= of factory ops, and out= of any op */
static void apply_result_options(lua_State *L, const mt_op *op, mt_value *args, int opts, int nres) {
    const mt_schema *s = op->schema;
    if (nres < 1 || s->rets[0].type != MT_A_TENSOR) return;
    int res = lua_gettop(L) - nres + 1;
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag != MT_V_BOOL || !args[i].b) continue;
        if (strcmp(s->args[i].name, "requires_grad") == 0) {
            mt_tensor *t = lmt_check_tensor(L, res);
            if (!mt_dtype_is_floating((mt_dtype)t->dtype))
                lmt_errorf(L, "Only Tensors of floating point and complex dtype can require gradients");
            t->flags |= MT_T_REQUIRES_GRAD;
        } else if (strcmp(s->args[i].name, "pin_memory") == 0) {
            lua_getfield(L, res, "pin_memory");
            lua_pushvalue(L, res);
            lua_call(L, 1, 1);
            lua_replace(L, res);
        }
    }
    if (opts) {
        if (lua_getfield(L, opts, "out") != LUA_TNIL) {
            /* out=: the Lua front resizes the given tensor and copies the result into it */
            int outi = lua_gettop(L);
            lmt_push_registry(L, "Tensor");
            lua_getfield(L, -1, "__write_out");
            lua_remove(L, -2);
            lua_pushvalue(L, outi);
            lua_pushvalue(L, res);
            lua_pushstring(L, s->name);
            lua_call(L, 3, 1);
            lua_replace(L, res);
        }
        lua_pop(L, 1);
    }
}

static int call_set(lua_State *L, const lmt_opset *set, int first) {
    int last = lua_gettop(L), opts = 0;
    if (last >= first && is_options_table(L, last)) opts = last--;
    mismatch mms[MAX_OVERLOADS];
    mt_value args[MAX_ARGS], rets[4];
    scratch sc;
    lua_pushnil(L); /* the anchor slot for long lists */
    sc.anchor = lua_gettop(L);
    int stack_top = sc.anchor;
    for (int i = 0; i < set->n; i++) {
        const mt_op *op = set->ops[i];
        sc.nints = sc.ntl = sc.nowned = sc.nanchored = 0;
        int r = parse(L, op, &set->plans[i], set->method, first, last, opts, args, &sc, &mms[i]);
        if (r == -2) {
            scratch_release(&sc);
            return lmt_error(L);
        }
        if (r) {
            scratch_release(&sc);
            lua_settop(L, stack_top);
            continue;
        }
        int st = mt_call_op(op->id, args, rets);
        scratch_release(&sc);
        if (st) return lmt_error(L);
        lua_settop(L, stack_top);
        lmt_gc_hint(L);
        int n = push_results(L, op->schema, rets, first, last);
        apply_result_options(L, op, args, opts, n);
        return n;
    }
    return overload_error(L, set, set->method, first, last, opts, mms);
}

static int op_closure(lua_State *L) {
    const lmt_opset *set = lua_touserdata(L, lua_upvalueindex(1));
    return call_set(L, set, 1);
}

static lmt_opset *new_opset(lua_State *L, const char *name, bool method);

/* A Lua operator metamethod (__add ...) calling an op's function variant directly.
 * upvalue 1: the op set; 2: true when the op commutes (number + tensor swaps its operands);
 * 3: a Lua function for a number on the left of a non-commuting op (reflected operators). */
static int operator_closure(lua_State *L) {
    lua_settop(L, 2);
    if (!lmt_box_tensor(L, 1)) {
        if (lua_toboolean(L, lua_upvalueindex(2))) {
            lua_rotate(L, 1, 1);
        } else {
            lua_pushvalue(L, lua_upvalueindex(3));
            lua_insert(L, 1);
            lua_call(L, 2, 1);
            return 1;
        }
    }
    const lmt_opset *set = lua_touserdata(L, lua_upvalueindex(1));
    return call_set(L, set, 1);
}

/* torch._operator(name, commutes, reflected): the metamethod for a binary operator */
static int make_operator(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    bool commutes = lua_toboolean(L, 2);
    lmt_opset *set = new_opset(L, name, false);
    if (set->n == 0) return luaL_error(L, "no op %s", name);
    lua_pushboolean(L, commutes);
    lua_pushvalue(L, 3);
    lua_pushcclosure(L, operator_closure, 3);
    return 1;
}

/* whether `a` takes a Scalar at a position where `b` takes a Tensor */
static bool scalar_where_tensor(const mt_schema *a, const mt_schema *b) {
    for (int i = 0; i < a->nargs && i < b->nargs; i++)
        if (a->args[i].type == MT_A_SCALAR && b->args[i].type == MT_A_TENSOR) return true;
    return false;
}

/* Build the overload set of `name` for one variant; NULL if the name has none. */
static lmt_opset *new_opset(lua_State *L, const char *name, bool method) {
    const mt_op *all[MAX_OVERLOADS];
    int n = mt_op_overloads(name, all, MAX_OVERLOADS);
    lmt_opset *set = lua_newuserdatauv(L, sizeof *set, 0);
    set->name = NULL;
    set->method = method;
    set->n = 0;
    for (int i = 0; i < n && i < MAX_OVERLOADS; i++) {
        uint16_t f = all[i]->schema->flags;
        if (f & MT_S_HIDDEN) continue;
        if (method ? !(f & MT_S_METHOD) : !(f & MT_S_FUNCTION)) continue;
        /* PyTorch's order: an overload taking a Tensor where another takes a Scalar is tried
         * first, so a 0-dim tensor argument picks the Tensor overload */
        int at = set->n;
        while (at > 0 && scalar_where_tensor(set->ops[at - 1]->schema, all[i]->schema)) {
            set->ops[at] = set->ops[at - 1];
            at--;
        }
        set->ops[at] = all[i];
        set->n++;
        set->name = all[i]->schema->name;
    }
    for (int i = 0; i < set->n; i++) { /* the argument plans, in the final order */
        const mt_schema *s = set->ops[i]->schema;
        arg_plan *p = &set->plans[i];
        p->self_index = -1;
        if (method) {
            p->self_index = 0;
            for (int k = 0; k < s->nargs; k++)
                if (strcmp(s->args[k].name, "self") == 0) p->self_index = (int8_t)k;
        }
        p->npos = 0;
        for (int k = 0; k < s->nargs && k < MAX_ARGS; k++)
            if (!s->args[k].kwonly && k != p->self_index) p->pos[p->npos++] = (int8_t)k;
    }
    return set;
}

void lmt_push_op_function(lua_State *L, const char *name, bool method) {
    lmt_opset *set = new_opset(L, name, method);
    if (set->n == 0) {
        lua_pop(L, 1);
        lua_pushnil(L);
        return;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, LMT_TENSOR); /* upvalue 2: the Tensor metatable */
    lua_pushcclosure(L, op_closure, 2);
}

/* torch.<name> for function variants and torch.Tensor.<name> for methods, for every op */
void lmt_open_ops(lua_State *L) {
    /* stack: module table */
    lua_pushcfunction(L, make_operator);
    lua_setfield(L, -2, "_operator");
    lmt_push_registry(L, "Tensor");
    int n = mt_ops_count();
    for (int i = 0; i < n; i++) {
        const mt_schema *s = mt_op_get(i)->schema;
        if (s->flags & MT_S_HIDDEN) continue;
        if (s->flags & MT_S_FUNCTION) {
            lua_getfield(L, -2, s->name);
            bool have = !lua_isnil(L, -1);
            lua_pop(L, 1);
            if (!have) {
                lmt_push_op_function(L, s->name, false);
                lua_setfield(L, -3, s->name);
            }
        }
        if (s->flags & MT_S_METHOD) {
            lua_getfield(L, -1, s->name);
            bool have = !lua_isnil(L, -1);
            lua_pop(L, 1);
            if (!have) {
                lmt_push_op_function(L, s->name, true);
                lua_setfield(L, -2, s->name);
            }
        }
    }
    lua_pop(L, 1);
}
