/* lmt_parse.c: Lua arguments -> one overload's boxed arguments, as PyTorch's argument parser
 * binds them: the receiver of a method, positional arguments (or the varargs form of a single
 * int list, x:view(2, 3)), then a trailing options table of keywords, then defaults. */
#include "lmt_call.h"

#include <stdio.h>
#include <string.h>

bool lmt_is_options_table(lua_State *L, int idx) {
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

/* NumPy's names that PyTorch's argument parser also accepts for dim, keepdim, input and other */
static int find_numpy_alias(const mt_schema *s, const char *k, bool method) {
    static const char *const pairs[][2] = {
        {"axis", "dim"}, {"keepdims", "keepdim"}, {"x2", "other"},
        {"x", "self"},   {"a", "self"},           {"x1", "self"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (strcmp(k, pairs[i][0]) != 0) continue;
        if (strcmp(pairs[i][1], "self") == 0 && (method || !s->nargs)) return -1;
        return find_arg(s, pairs[i][1], 0);
    }
    return -1;
}

/* Keys the binding itself handles: out= for ops that return new tensors (not views, in-place
 * ops or lists, which PyTorch gives no out= either). */
static bool binding_key(const mt_schema *s, const char *k) {
    if (strcmp(k, "out") != 0) return false;
    return s->nrets > 0 &&
           (s->rets[0].type == MT_A_TENSOR || s->rets[0].type == MT_A_INDEXTENSOR) &&
           !(s->flags & (MT_S_VIEW | MT_S_INPLACE));
}

int lmt_parse(lua_State *L, const mt_op *op, const lmt_arg_plan *plan, bool method, int first,
              int last, int opts, mt_value *args, lmt_scratch *sc, lmt_mismatch *mm) {
    const mt_schema *s = op->schema;
    bool given[LMT_MAX_ARGS] = {0};
    int self_index = plan->self_index;
    mm->kind = M_NONE;
    mm->arg = mm->position = mm->element = mm->count = mm->given = 0;
    mm->got = NULL;
    mm->key[0] = 0;
    if (s->nargs > LMT_MAX_ARGS) return mt_error(MT_ERR_RUNTIME, "too many schema arguments"), -2;
    if (method) { /* Lua arg `first` is the argument named self (where's is not the first) */
        mt_tensor *t = lmt_box_tensor(L, first);
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
    bool varargs = npos == 1 &&
                   (s->args[pos_params[0]].type == MT_A_INTLIST ||
                    s->args[pos_params[0]].type == MT_A_DIMLIST) &&
                   nlua >= 1 && lua_type(L, first) == LUA_TNUMBER;
    /* arity first, as PyTorch's parser does: every required parameter must be covered by a
     * positional argument or a keyword */
    if (!varargs && nlua <= npos) {
        for (int i = 0; i < s->nargs; i++) {
            const mt_arg *a = &s->args[i];
            if (i == self_index || a->has_default || a->optional) continue;
            bool covered = false;
            for (int j = 0; j < nlua && !covered; j++)
                covered = pos_params[j] == i && !lua_isnil(L, first + j);
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
                mm->got = lmt_value_type(L, first + i);
                return -1;
            }
            if (a->type == MT_A_DIMLIST) buf[i] = lmt_from_user_index(buf[i]);
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
            int r = lmt_conv(L, first + i, &s->args[ai], &args[ai], sc, mm);
            if (r) {
                if (mm->kind == M_NONE) mm->kind = M_TYPE;
                mm->arg = ai;
                mm->position = i + 1;
                if (!mm->got) mm->got = lmt_value_type(L, first + i);
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
            if (ai < 0 && method == false && strcmp(k, "input") == 0 && s->nargs &&
                strcmp(s->args[0].name, "self") == 0)
                ai = 0;
            if (ai < 0) ai = find_numpy_alias(s, k, method);
            if (ai == self_index && method) ai = -1;
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
            int r = lmt_conv(L, lua_absindex(L, -1), &s->args[ai], &args[ai], sc, mm);
            if (r) {
                if (mm->kind == M_NONE) mm->kind = M_TYPE;
                mm->arg = ai;
                mm->position = 0;
                if (!mm->got) mm->got = lmt_value_type(L, -1);
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
