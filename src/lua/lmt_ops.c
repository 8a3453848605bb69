/* lmt_ops.c: the op functions of the Lua API (torch.add, x:add, the operator metamethods).
 *
 * A Lua call names an op; the binding tries the op's overloads in PyTorch's order, parsing the
 * Lua arguments for each (lmt_parse.c) until one matches, calls the core, and pushes the results
 * (lmt_results.c); when none matches, the error says why (lmt_argerror.c).
 */
#include "lmt_call.h"
#include "mt_result.h"

#include <string.h>

static int call_set(lua_State *L, const lmt_opset *set, int first) {
    int last = lua_gettop(L), opts = 0;
    if (last >= first && lmt_is_options_table(L, last)) opts = last--;
    lmt_mismatch mms[LMT_MAX_OVERLOADS];
    mt_value args[LMT_MAX_ARGS], rets[4];
    lmt_scratch sc;
    lua_pushnil(L); /* the anchor slot for long lists */
    sc.anchor = lua_gettop(L);
    int stack_top = sc.anchor;
    for (int i = 0; i < set->n; i++) {
        const mt_op *op = set->ops[i];
        sc.nints = sc.ntl = sc.nowned = sc.nanchored = 0;
        int r =
            lmt_parse(L, op, &set->plans[i], set->method, first, last, opts, args, &sc, &mms[i]);
        if (r == -2) {
            lmt_scratch_release(&sc);
            return lmt_error(L);
        }
        if (r) {
            lmt_scratch_release(&sc);
            lua_settop(L, stack_top);
            continue;
        }
        mt_tensor *outs[LMT_MAX_OUTS];
        int nout = opts ? lmt_out_tensors(L, op->schema, opts, outs) : 0;
        if (nout < 0) {
            lmt_scratch_release(&sc);
            return lua_error(L);
        }
        /* before the op: the garbage of earlier ops goes back to the allocator before this one
         * allocates, so a loop's result takes the block its previous result held, as with
         * PyTorch's immediate frees; after it, results alternated between two blocks, and with
         * operands near the cache's size a chain ((a + b) * a):exp():sum() on 2M float32 ran
         * 900-1060 us instead of 720-800 (10M a + b 67-74 -> 75-84 GB/s, exp 65-75 -> 74-78).
         * The arguments are on the Lua stack, so the collection cannot free them. */
        lmt_gc_hint(L);
        int st = nout ? mt_call_op_out(op->id, args, outs) : mt_call_op(op->id, args, rets);
        lmt_scratch_release(&sc);
        if (st) return lmt_error(L);
        lua_settop(L, stack_top);
        int n = nout ? lmt_push_outs(L, op->schema, opts, nout)
                     : lmt_push_results(L, op->schema, rets, first, last);
        if (set->plans[i].factory_opts) lmt_result_options(L, op, args, n);
        return n;
    }
    return lmt_overload_error(L, set, set->method, first, last, opts, mms);
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
    const mt_op *all[LMT_MAX_OVERLOADS];
    int n = mt_op_overloads(name, all, LMT_MAX_OVERLOADS);
    lmt_opset *set = lua_newuserdatauv(L, sizeof *set, 0);
    set->name = NULL;
    set->method = method;
    set->n = 0;
    for (int i = 0; i < n && i < LMT_MAX_OVERLOADS; i++) {
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
        lmt_arg_plan *p = &set->plans[i];
        p->self_index = -1;
        if (method) {
            p->self_index = 0;
            for (int k = 0; k < s->nargs; k++)
                if (strcmp(s->args[k].name, "self") == 0) p->self_index = (int8_t)k;
        }
        p->npos = 0;
        p->factory_opts = false;
        for (int k = 0; k < s->nargs && k < LMT_MAX_ARGS; k++) {
            if (!s->args[k].kwonly && k != p->self_index) p->pos[p->npos++] = (int8_t)k;
            if (strcmp(s->args[k].name, "pin_memory") == 0 ||
                strcmp(s->args[k].name, "requires_grad") == 0)
                p->factory_opts = true;
        }
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
/* torch._op_alias(alias, target, method): target's function (or method) under PyTorch's other
 * name for it (absolute for abs ...); its errors name the alias, as PyTorch's do. nil when
 * target has no such variant. */
static int make_alias(lua_State *L) {
    luaL_checkstring(L, 1);
    const char *target = luaL_checkstring(L, 2);
    bool method = lua_toboolean(L, 3);
    lmt_opset *set = new_opset(L, target, method);
    if (set->n == 0) {
        lua_pushnil(L);
        return 1;
    }
    set->name = lua_tostring(L, 1); /* kept alive as the closure's third upvalue */
    lua_getfield(L, LUA_REGISTRYINDEX, LMT_TENSOR);
    lua_pushvalue(L, 1);
    lua_pushcclosure(L, op_closure, 3);
    return 1;
}

/* _op_schemas(name): the declarations of the op `name` (all its overloads, hidden ones left out)
 * as {name, overload, schema, doc, ["function"], method} tables, in declaration order: what
 * help() prints, the same text as doc/reference.md */
static int op_schemas(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    lua_newtable(L);
    int n = mt_ops_count(), k = 0;
    for (int i = 0; i < n; i++) {
        const mt_schema *s = mt_op_get(i)->schema;
        if ((s->flags & MT_S_HIDDEN) || strcmp(s->name, name) != 0) continue;
        lua_createtable(L, 0, 6);
        lua_pushstring(L, s->name);
        lua_setfield(L, -2, "name");
        lua_pushstring(L, s->overload);
        lua_setfield(L, -2, "overload");
        lua_pushstring(L, s->text);
        lua_setfield(L, -2, "schema");
        lua_pushstring(L, s->doc ? s->doc : "");
        lua_setfield(L, -2, "doc");
        lua_pushboolean(L, (s->flags & MT_S_FUNCTION) != 0);
        lua_setfield(L, -2, "function");
        lua_pushboolean(L, (s->flags & MT_S_METHOD) != 0);
        lua_setfield(L, -2, "method");
        lua_rawseti(L, -2, ++k);
    }
    return 1;
}

void lmt_open_ops(lua_State *L) {
    /* stack: module table */
    lua_pushcfunction(L, op_schemas);
    lua_setfield(L, -2, "_op_schemas");
    lua_pushcfunction(L, make_operator);
    lua_setfield(L, -2, "_operator");
    lua_pushcfunction(L, make_alias);
    lua_setfield(L, -2, "_op_alias");
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
