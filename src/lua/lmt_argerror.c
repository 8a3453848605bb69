/* lmt_argerror.c: the errors of a call no overload takes, worded as PyTorch's argument parser
 * words them ("add(): argument 'other' (position 2) must be Tensor, not string", "received an
 * invalid combination of arguments - got (...), but expected one of: ..."), with Lua's type
 * names for the values a user passed. */
#include "lmt_call.h"

#include <stdio.h>
#include <string.h>

static const char *expected_type(const mt_arg *a) {
    switch (a->type) {
    case MT_A_TENSOR:
    case MT_A_INDEXTENSOR:
        return "Tensor";
    case MT_A_TENSORLIST:
    case MT_A_INDEXTENSORLIST:
        return "tuple of Tensors";
    case MT_A_INT:
    case MT_A_DIM:
    case MT_A_INDEX:
        return "int";
    case MT_A_INTLIST:
    case MT_A_DIMLIST:
        return "tuple of ints";
    case MT_A_FLOAT:
        return "float";
    case MT_A_FLOATLIST:
        return "tuple of floats";
    case MT_A_BOOL:
        return "bool";
    case MT_A_SCALAR:
        return "Number";
    case MT_A_DTYPE:
        return "torch.dtype";
    case MT_A_DEVICE:
        return "torch.device";
    case MT_A_STR: /* memory formats are strings here, torch.memory_format objects in PyTorch */
        return strcmp(a->name, "memory_format") == 0 ? "torch.memory_format" : "str";
    case MT_A_GENERATOR:
        return "torch.Generator";
    default:
        return "?";
    }
}

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
        luaL_addstring(b, lmt_value_type(L, i));
        any = true;
    }
    if (opts) {
        lua_pushnil(L);
        while (lua_next(L, opts)) {
            if (lua_type(L, -2) == LUA_TSTRING) {
                if (any) luaL_addstring(b, ", ");
                lua_pushfstring(L, "%s=%s", lua_tostring(L, -2), lmt_value_type(L, -1));
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

static void push_single_error(lua_State *L, const char *name, const mt_schema *s,
                              const lmt_mismatch *mm, bool method) {
    const mt_arg *a = &s->args[mm->arg];
    const char *aname =
        (mm->arg == 0 && !method && strcmp(a->name, "self") == 0) ? "input" : a->name;
    switch (mm->kind) {
    case M_ELEMENT:
        lua_pushfstring(L, "%s(): argument '%s' must be %s, but found element of type %s at pos %d",
                        name, aname, expected_type(a), mm->got, mm->element);
        return;
    case M_UNKNOWN_KW:
        lua_pushfstring(L, "%s() got an unexpected keyword argument '%s'", name, mm->key);
        return;
    case M_MULTIPLE:
        lua_pushfstring(L, "%s() got multiple values for argument '%s'", name, mm->key);
        return;
    case M_TOO_MANY:
        lua_pushfstring(L, "%s() takes %d positional argument%s but %d %s given", name, mm->count,
                        mm->count == 1 ? "" : "s", mm->given, mm->given == 1 ? "was" : "were");
        return;
    case M_MISSING:
        lua_pushfstring(L, "%s() missing 1 required positional arguments: \"%s\"", name, aname);
        return;
    default:
        if (mm->position) {
            lua_pushfstring(L, "%s(): argument '%s' (position %d) must be %s, not %s", name, aname,
                            mm->position, expected_type(a), mm->got);
            return;
        }
        lua_pushfstring(L, "%s(): argument '%s' must be %s, not %s", name, aname, expected_type(a),
                        mm->got);
        return;
    }
}

/* Would the Lua value at idx pass for schema arg a? (no conversion, for messages only) */
static bool type_ok(lua_State *L, int idx, const mt_arg *a) {
    int lt = lua_type(L, idx);
    if (lt == LUA_TNIL) return a->optional || a->has_default;
    switch (a->type) {
    case MT_A_TENSOR:
    case MT_A_INDEXTENSOR:
        return lmt_box_tensor(L, idx) != NULL;
    case MT_A_TENSORLIST:
    case MT_A_INDEXTENSORLIST:
    case MT_A_INTLIST:
    case MT_A_DIMLIST:
    case MT_A_FLOATLIST:
        return lt == LUA_TTABLE || (a->fixed_len && lt == LUA_TNUMBER);
    case MT_A_INT:
    case MT_A_DIM:
    case MT_A_INDEX:
        return lt == LUA_TNUMBER && lua_isinteger(L, idx);
    case MT_A_FLOAT:
        return lt == LUA_TNUMBER;
    case MT_A_BOOL:
        return lt == LUA_TBOOLEAN;
    case MT_A_SCALAR: {
        mt_tensor *t = lmt_box_tensor(L, idx);
        return lt == LUA_TNUMBER || lt == LUA_TBOOLEAN || (t && t->ndim == 0);
    }
    case MT_A_DTYPE:
        return lmt_to_dtype(L, idx) >= 0;
    case MT_A_DEVICE:
        return lt == LUA_TSTRING || luaL_testudata(L, idx, LMT_DEVICE);
    case MT_A_STR:
        return lt == LUA_TSTRING;
    default:
        return false;
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
        const char *ty = lmt_value_type(L, i);
        char tmp[64];
        snprintf(tmp, sizeof tmp, ok ? "%s" : "!%s!", ty);
        if (i > first + (method ? 1 : 0)) luaL_addstring(b, ", ");
        luaL_addstring(b, tmp);
    }
    luaL_addstring(b, ")");
}

/* x.add(y) written for x:add(y): the method took y as self and got no other argument. A call
 * with ':' and no argument looks the same, so this is a hint, not a verdict. */
static void add_dot_hint(lua_State *L, const char *name, bool method, int first, int last,
                         int opts) {
    if (!method || last != first || opts) return;
    lua_pushfstring(L,
                    "\n(a method called with '.' takes its first argument as the tensor: for "
                    "x.%s(...) write x:%s(...))",
                    name, name);
    lua_concat(L, 2);
}

int lmt_overload_error(lua_State *L, const lmt_opset *set, bool method, int first, int last,
                       int opts, const lmt_mismatch *mms) {
    /* a tensor freed by <close> matches no signature: say that, not which overloads exist */
    for (int i = 1; i <= last; i++)
        if (lmt_is_released_tensor(L, i)) return lmt_errorf(L, "%s", lmt_released_message(L, i));
    /* x.view(2) written for x:view(2): a method's self is never anything but a tensor */
    if (method && !lmt_box_tensor(L, first))
        return lmt_errorf(L,
                          "called torch.Tensor.%s with '.' - use ':' (x:%s(...)): its first "
                          "argument, %s, took the tensor's place",
                          set->name, set->name, lmt_value_type(L, first));
    /* PyTorch reports one overload's own error when it is the only one that takes this many
     * arguments with these keywords (the only plausible one) */
    int plausible = 0, only = 0;
    for (int i = 0; i < set->n; i++)
        if (mms[i].kind == M_TYPE || mms[i].kind == M_ELEMENT) plausible++, only = i;
    if (set->n == 1 || plausible == 1) {
        push_single_error(L, set->name, set->ops[set->n == 1 ? 0 : only]->schema,
                          &mms[set->n == 1 ? 0 : only], method);
        add_dot_hint(L, set->name, method, first, last, opts);
        return lua_error(L);
    }
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
            luaL_addstring(&b,
                           "      didn't match because some of the arguments have invalid types: ");
            add_marked_args(L, &b, s, first, last, method);
            luaL_addstring(&b, "\n");
        }
    }
    luaL_pushresult(&b);
    add_dot_hint(L, set->name, method, first, last, opts);
    return lua_error(L);
}
