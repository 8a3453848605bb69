/* lmt_results.c: an op's results back to Lua, and the options that finish them: out= (the core
 * writes into the given tensors, mt_call_op_out), pin_memory= and requires_grad= of factory ops.
 * Index results are made 1-based here, as index arguments are made 0-based on the way in. */
#include "lmt_call.h"
#include "mt_ops_gen.h"
#include "mt_result.h"

#include <stdlib.h>
#include <string.h>

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
        if (lua_type(L, i) == LUA_TUSERDATA && lmt_box_tensor(L, i) == t) {
            lua_pushvalue(L, i);
            mt_tensor_decref(t);
            return;
        }
    }
    lmt_push_tensor(L, t);
}

int lmt_push_results(lua_State *L, const mt_schema *s, mt_value *rets, int first, int last) {
    for (int i = 0; i < s->nrets; i++) {
        mt_value *v = &rets[i];
        switch (s->rets[i].type) {
        case MT_A_TENSOR:
            push_result_tensor(L, v->t, first, last);
            break;
        case MT_A_INDEXTENSOR:
            push_index_tensor(L, v->t);
            break;
        case MT_A_TENSORLIST:
            lua_createtable(L, v->n, 0);
            for (int j = 0; j < v->n; j++) {
                lmt_push_tensor(L, v->tl[j]);
                lua_rawseti(L, -2, j + 1);
            }
            free(v->tl);
            break;
        default:
            if (v->tag == MT_V_INT)
                lua_pushinteger(L, v->i);
            else if (v->tag == MT_V_DOUBLE)
                lua_pushnumber(L, v->d);
            else if (v->tag == MT_V_BOOL)
                lua_pushboolean(L, v->b);
            else
                lua_pushnil(L);
        }
    }
    return s->nrets;
}

/* ---- out= ------------------------------------------------------------------------------------ */

int lmt_out_tensors(lua_State *L, const mt_schema *s, int opts, mt_tensor *outs[LMT_MAX_OUTS]) {
    if (lua_getfield(L, opts, "out") == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    int v = lua_gettop(L), n = s->nrets;
    if (n > LMT_MAX_OUTS) {
        lua_pushfstring(L, "%s(): out= is not supported for this operator", s->name);
        return -1;
    }
    if (n == 1) { /* one result: out is a Tensor */
        outs[0] = lmt_box_tensor(L, v);
        if (outs[0]) {
            lua_pop(L, 1);
            return 1;
        }
        if (lmt_is_released_tensor(L, v))
            lua_pushstring(L, lmt_released_message(L, v));
        else
            lua_pushfstring(L, "%s(): argument 'out' must be Tensor, not %s", s->name,
                            lmt_value_type(L, v));
        return -1;
    }
    /* several results: a table of as many Tensors (PyTorch's tuple) */
    if (lua_type(L, v) != LUA_TTABLE || lmt_is_options_table(L, v)) {
        lua_pushfstring(L, "%s(): argument 'out' must be tuple of Tensors, not %s", s->name,
                        lmt_value_type(L, v));
        return -1;
    }
    if ((lua_Integer)lua_rawlen(L, v) != n) {
        lua_pushfstring(L, "expected tuple of %d elements but got %d", n, (int)lua_rawlen(L, v));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, v, i + 1);
        outs[i] = lmt_box_tensor(L, -1);
        if (!outs[i] && lmt_is_released_tensor(L, -1)) {
            lua_pushstring(L, lmt_released_message(L, -1));
            return -1;
        }
        if (!outs[i]) {
            lua_pushfstring(L, "expected Tensor as element %d in argument 'out', but got %s", i + 1,
                            lmt_value_type(L, -1));
            return -1;
        }
        lua_pop(L, 1); /* the table keeps it alive */
    }
    lua_pop(L, 1);
    return n;
}

int lmt_push_outs(lua_State *L, const mt_schema *s, int opts, int nout) {
    lua_getfield(L, opts, "out");
    if (nout > 1) { /* the table's tensors, as several results */
        int t = lua_gettop(L);
        for (int i = 1; i <= nout; i++) lua_rawgeti(L, t, i);
        lua_remove(L, t);
    }
    int base = lua_gettop(L) - nout + 1;
    for (int i = 0; i < nout; i++) {
        if (s->rets[i].type != MT_A_INDEXTENSOR) continue;
        mt_tensor *r = mto_add__Scalar(lmt_box_tensor(L, base + i), mt_vint(1), mt_vint(1));
        if (!r) lmt_error(L);
        mt_tensor_decref(r);
    }
    return nout;
}

/* ---- factory options ------------------------------------------------------------------------- */

void lmt_result_options(lua_State *L, const mt_op *op, const mt_value *args, int nres) {
    const mt_schema *s = op->schema;
    if (nres < 1 || s->rets[0].type != MT_A_TENSOR) return;
    bool pin = false, grad = false;
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag != MT_V_BOOL || !args[i].b) continue;
        if (strcmp(s->args[i].name, "pin_memory") == 0)
            pin = true;
        else if (strcmp(s->args[i].name, "requires_grad") == 0)
            grad = true;
    }
    if (!pin && !grad) return;
    int res = lua_gettop(L) - nres + 1;
    mt_tensor *t = lmt_check_tensor(L, res);
    if (pin) {
        t = mt_tensor_pin_memory(t);
        if (!t) lmt_error(L);
        lmt_push_tensor(L, t);
        lua_replace(L, res);
    }
    if (grad) {
        if (!mt_dtype_is_floating((mt_dtype)t->dtype))
            lmt_errorf(L, "Only Tensors of floating point and complex dtype can require gradients");
        t->flags |= MT_T_REQUIRES_GRAD;
    }
}
