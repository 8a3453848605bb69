/* lmt_autograd.c: autograd in Lua: the tensor fields (grad, grad_fn, is_leaf ...), graph nodes
 * as userdata, backward and grad, hooks (Lua functions the engine calls back) and the grad
 * modes. The user-facing API (torch.autograd, no_grad ...) is the Lua front's
 * (lua/mindtorch/autograd.lua); this file gives it torch._autograd. */
#include "lmt.h"
#include "mt_autograd.h"
#include "mt_ops_gen.h"

#include <stdlib.h>
#include <string.h>

#define LMT_NODE "mindtorch.Node"
#define LMT_HANDLE "mindtorch.RemovableHandle"

/* The Lua thread running backward: hooks run on it (set by backward/grad; a hook registered on
 * a state runs on that state's thread when the engine is driven from C). */
static _Thread_local lua_State *running_L;

typedef struct lua_cb {
    lua_State *L; /* the state the function lives in */
    int ref;      /* registry reference of the function */
} lua_cb;

static void lua_cb_release(void *ctx) {
    lua_cb *cb = ctx;
    luaL_unref(cb->L, LUA_REGISTRYINDEX, cb->ref);
    free(cb);
}

static mt_callback make_callback(lua_State *L, int idx, void *fn) {
    lua_cb *cb = malloc(sizeof *cb);
    if (!cb) luaL_error(L, "out of memory");
    cb->L = L;
    lua_pushvalue(L, idx);
    cb->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return (mt_callback){fn, cb, lua_cb_release};
}

/* the thread to call on, with the function pushed */
static lua_State *push_cb(lua_cb *cb) {
    lua_State *L = running_L ? running_L : cb->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, cb->ref);
    return L;
}

/* a Lua error inside a hook becomes the core's error (backward raises it) */
static int hook_failed(lua_State *L) {
    const char *msg = lua_tostring(L, -1);
    mt_error(MT_ERR_RUNTIME, "%s", msg ? msg : "error in a backward hook");
    lua_pop(L, 1);
    return -1;
}

static void push_tensor_ref(lua_State *L, mt_tensor *t) {
    if (!t) {
        lua_pushnil(L);
        return;
    }
    mt_tensor_incref(t);
    lmt_push_tensor(L, t);
}

/* ---- nodes ----------------------------------------------------------------------------------- */

typedef struct lmt_node {
    mt_node *n;
} lmt_node;

static void push_node(lua_State *L, mt_node *n) {
    if (!n) {
        lua_pushnil(L);
        return;
    }
    lmt_node *u = lua_newuserdatauv(L, sizeof *u, 0);
    mt_node_incref(n);
    u->n = n;
    luaL_setmetatable(L, LMT_NODE);
}

/* A node reached from a finalizer after its own __gc ran has released its graph node. */
static mt_node *check_node(lua_State *L, int idx) {
    mt_node *n = ((lmt_node *)luaL_checkudata(L, idx, LMT_NODE))->n;
    if (!n)
        lmt_errorf(L, "this graph Node has been freed (its __gc ran) and can no longer be used");
    return n;
}

static int node_gc(lua_State *L) {
    lmt_node *u = luaL_checkudata(L, 1, LMT_NODE);
    mt_node_decref(u->n);
    u->n = NULL;
    return 0;
}

static int node_name(lua_State *L) {
    lua_pushstring(L, mt_node_name(check_node(L, 1)));
    return 1;
}

static int node_tostring(lua_State *L) {
    mt_node *n = check_node(L, 1);
    lua_pushfstring(L, "<%s object at %p>", mt_node_name(n), (void *)n);
    return 1;
}

static int node_eq(lua_State *L) {
    lua_pushboolean(L, check_node(L, 1) == check_node(L, 2));
    return 1;
}

/* next_functions: {{node or nil, input_nr}, ...} as PyTorch's tuple of pairs */
static int node_next_functions(lua_State *L, mt_node *n) {
    int k = mt_node_num_next(n);
    lua_createtable(L, k, 0);
    for (int i = 0; i < k; i++) {
        int nr;
        mt_node *c = mt_node_next(n, i, &nr);
        lua_createtable(L, 2, 0);
        push_node(L, c);
        lua_rawseti(L, -2, 1);
        lua_pushinteger(L, nr);
        lua_rawseti(L, -2, 2);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* Node hooks: pre-hooks get the gradients flowing in and may return replacements; post-hooks
 * get (grad_inputs, grad_outputs): the gradients for the node's inputs and those it received. */
static void push_grad_list(lua_State *L, int n, mt_tensor **g) {
    lua_createtable(L, n, 1);
    for (int i = 0; i < n; i++) {
        push_tensor_ref(L, g[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_pushinteger(L, n);
    lua_setfield(L, -2, "n");
}

/* Python's type name for what a hook returned, as PyTorch's messages quote it */
static const char *returned_type(lua_State *L, int idx) {
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        return lua_isinteger(L, idx) ? "int" : "float";
    case LUA_TSTRING:
        return "str";
    case LUA_TBOOLEAN:
        return "bool";
    case LUA_TTABLE:
        return "list";
    case LUA_TNIL:
        return "NoneType";
    default:
        return lmt_to_tensor(L, idx) ? "Tensor" : luaL_typename(L, idx);
    }
}

/* A gradient a hook put in place of `was` keeps its type, device and size (PyTorch's
 * validate_outputs for hooks): anything else would reach the engine's accumulation. */
static int check_replacement(const mt_tensor *was, const mt_tensor *got) {
    char a[64], b[64];
    if (got->dtype != was->dtype || !mt_device_eq(got->device, was->device))
        return mt_error(MT_ERR_RUNTIME, "hook 'hook' has changed the type of value (was %s got %s)",
                        mt_tensor_type_name(was, a, sizeof a),
                        mt_tensor_type_name(got, b, sizeof b));
    if (got->ndim != was->ndim ||
        memcmp(got->sizes, was->sizes, sizeof(int64_t) * (size_t)was->ndim) != 0)
        return mt_error(MT_ERR_RUNTIME, "hook 'hook' has changed the size of value");
    return 0;
}

static int take_replacements(lua_State *L, int n, mt_tensor **g) {
    if (lua_isnil(L, -1)) return 0;
    int tab = lua_absindex(L, -1);
    if (!lua_istable(L, -1) || lmt_to_tensor(L, -1))
        return mt_error(MT_ERR_TYPE, "expected tuple, but hook returned '%s'",
                        returned_type(L, -1));
    /* the count: an explicit n (a list with None holes) or the raw length */
    lua_pushliteral(L, "n"); /* raw reads only: no user code runs inside the engine */
    lua_Integer got = lua_rawget(L, tab) == LUA_TNUMBER && lua_isinteger(L, -1)
                          ? lua_tointeger(L, -1)
                          : (lua_Integer)lua_rawlen(L, -2);
    lua_pop(L, 1);
    if (got != n)
        return mt_error(
            MT_ERR_RUNTIME,
            "hook 'hook' has returned an incorrect number of values (got %lld, but expected %d)",
            (long long)got, n);
    for (int i = 0; i < n; i++) { /* every entry is checked before any gradient is replaced */
        int ty = lua_rawgeti(L, tab, i + 1);
        mt_tensor *t = lmt_to_tensor(L, -1);
        if (!t && ty != LUA_TNIL && !(ty == LUA_TBOOLEAN && !lua_toboolean(L, -1)))
            return mt_error(MT_ERR_TYPE, "expected Variable, but hook returned '%s'",
                            returned_type(L, -1));
        lua_pop(L, 1);
        if (t && !g[i])
            return mt_error(MT_ERR_RUNTIME, "can't replace a None gradient with a non-None value");
        if (t && check_replacement(g[i], t)) return -1;
    }
    for (int i = 0; i < n; i++) { /* raw reads again: the same entries, no user code ran */
        lua_rawgeti(L, tab, i + 1);
        mt_tensor *t = lmt_to_tensor(L, -1);
        lua_pop(L, 1);
        if (t) mt_tensor_incref(t);
        mt_tensor_decref(g[i]);
        g[i] = t;
    }
    return 0;
}

static int node_hook_fn(void *ctx, mt_node *n, int ngin, mt_tensor **gin, int ngout,
                        mt_tensor **gout) {
    (void)n;
    lua_State *L = push_cb(ctx);
    int top = lua_gettop(L) - 1;
    if (gout) { /* post-hook: (grads for inputs, grads received) */
        push_grad_list(L, ngout, gout);
        push_grad_list(L, ngin, gin);
        if (lua_pcall(L, 2, 1, 0)) return hook_failed(L);
        int st = take_replacements(L, ngout, gout);
        lua_settop(L, top);
        return st;
    }
    push_grad_list(L, ngin, gin);
    if (lua_pcall(L, 1, 1, 0)) return hook_failed(L);
    int st = take_replacements(L, ngin, gin);
    lua_settop(L, top);
    return st;
}

/* handles: h:remove() */
typedef struct lmt_handle {
    mt_node *node; /* node hooks */
    mt_tensor *t;  /* tensor hooks */
    int64_t id;
} lmt_handle;

static void push_handle(lua_State *L, mt_node *n, mt_tensor *t, int64_t id) {
    lmt_handle *h = lua_newuserdatauv(L, sizeof *h, 0);
    h->node = n;
    h->t = t;
    h->id = id;
    if (n) mt_node_incref(n);
    if (t) mt_tensor_incref(t);
    luaL_setmetatable(L, LMT_HANDLE);
}

static int handle_remove(lua_State *L) {
    lmt_handle *h = luaL_checkudata(L, 1, LMT_HANDLE);
    if (h->node) mt_node_remove_hook(h->node, h->id);
    if (h->t) mt_remove_hook(h->t, h->id);
    return 0;
}

static int handle_gc(lua_State *L) {
    lmt_handle *h = luaL_checkudata(L, 1, LMT_HANDLE);
    mt_node_decref(h->node);
    mt_tensor_decref(h->t);
    h->node = NULL;
    h->t = NULL;
    return 0;
}

static int node_register_hook_impl(lua_State *L, bool pre) {
    mt_node *n = check_node(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    int64_t id;
    if (mt_node_register_hook(n, make_callback(L, 2, (void *)node_hook_fn), pre, &id))
        return lmt_error(L);
    push_handle(L, n, NULL, id);
    return 1;
}
static int node_register_hook(lua_State *L) {
    return node_register_hook_impl(L, false);
}
static int node_register_prehook(lua_State *L) {
    return node_register_hook_impl(L, true);
}

static int node_index(lua_State *L) {
    mt_node *n = check_node(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "next_functions") == 0) return node_next_functions(L, n);
    if (strcmp(k, "variable") == 0) {
        push_tensor_ref(L, mt_node_variable(n));
        return 1;
    }
    if (strcmp(k, "_op") == 0) { /* the op a formula node records: "add.Tensor" (tests use it) */
        int op = mt_node_op(n);
        if (op < 0) {
            lua_pushnil(L);
        } else {
            const mt_schema *s = mt_op_get(op)->schema;
            if (*s->overload)
                lua_pushfstring(L, "%s.%s", s->name, s->overload);
            else
                lua_pushstring(L, s->name);
        }
        return 1;
    }
    if (strcmp(k, "_sequence_nr") == 0) {
        lua_pushinteger(L, (lua_Integer)mt_node_sequence_nr(n));
        return 1;
    }
    luaL_getmetatable(L, LMT_NODE);
    lua_getfield(L, -1, "__methods");
    lua_getfield(L, -1, k);
    return 1;
}

/* ---- tensor fields --------------------------------------------------------------------------- */

int lmt_g_grad(lua_State *L, mt_tensor *t) {
    push_tensor_ref(L, mt_grad(t));
    return 1;
}
int lmt_g_grad_fn(lua_State *L, mt_tensor *t) {
    push_node(L, mt_grad_fn(t));
    return 1;
}
int lmt_g_is_leaf(lua_State *L, mt_tensor *t) {
    lua_pushboolean(L, mt_is_leaf(t));
    return 1;
}
int lmt_g_retains_grad(lua_State *L, mt_tensor *t) {
    lua_pushboolean(L, mt_retains_grad(t));
    return 1;
}
int lmt_g_version(lua_State *L, mt_tensor *t) {
    if (t->flags & MT_T_INFERENCE)
        return lmt_errorf(L, "Inference tensors do not track version counter.");
    lua_pushinteger(L, (lua_Integer)mt_tensor_version(t));
    return 1;
}
int lmt_g_output_nr(lua_State *L, mt_tensor *t) {
    lua_pushinteger(L, mt_output_nr(t));
    return 1;
}
/* x:is_inference() */
static int t_is_inference(lua_State *L) {
    lua_pushboolean(L, (lmt_check_tensor(L, 1)->flags & MT_T_INFERENCE) != 0);
    return 1;
}

/* x:_is_view() */
/* x:detach_() */
static int t_detach_(lua_State *L) {
    if (mt_detach_(lmt_check_tensor(L, 1))) return lmt_error(L);
    lua_settop(L, 1);
    return 1;
}
static int t_is_view(lua_State *L) {
    lua_pushboolean(L, (lmt_check_tensor(L, 1)->flags & MT_T_VIEW) != 0);
    return 1;
}
int lmt_g_base(lua_State *L, mt_tensor *t) {
    push_tensor_ref(L, (t->flags & MT_T_VIEW) ? t->base : NULL);
    return 1;
}

int lmt_set_grad(lua_State *L, mt_tensor *t, int idx) {
    mt_tensor *g = NULL;
    if (!lua_isnil(L, idx)) {
        g = lmt_to_tensor(L, idx);
        if (!g)
            return lmt_errorf(
                L, "assigned grad expected to be a Tensor or None but got grad of type %s",
                luaL_typename(L, idx));
    }
    if (mt_set_grad(t, g)) return lmt_error(L);
    return 0;
}

int lmt_set_requires_grad(lua_State *L, mt_tensor *t, bool on) {
    if (mt_set_requires_grad(t, on)) return lmt_error(L);
    return 0;
}

/* ---- tensor methods -------------------------------------------------------------------------- */

static int tensor_hook_fn(void *ctx, mt_tensor *grad, mt_tensor **replacement) {
    lua_State *L = push_cb(ctx);
    int top = lua_gettop(L) - 1;
    push_tensor_ref(L, grad);
    if (lua_pcall(L, 1, 1, 0)) return hook_failed(L);
    mt_tensor *r = lmt_to_tensor(L, -1);
    if (!r && !lua_isnil(L, -1)) {
        mt_error(MT_ERR_TYPE, "expected Variable, but hook returned '%s'", returned_type(L, -1));
        lua_settop(L, top);
        return -1;
    }
    if (r && check_replacement(grad, r)) {
        lua_settop(L, top);
        return -1;
    }
    if (r) {
        mt_tensor_incref(r);
        *replacement = r;
    }
    lua_settop(L, top);
    return 0;
}

static int t_register_hook(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    if (!mt_tensor_requires_grad(t))
        return lmt_errorf(L, "cannot register a hook on a tensor that doesn't require gradient");
    int64_t id;
    if (mt_register_hook(t, make_callback(L, 2, (void *)tensor_hook_fn), &id)) return lmt_error(L);
    push_handle(L, NULL, t, id);
    return 1;
}

static int t_retain_grad(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    if (mt_retain_grad(t)) return lmt_error(L);
    lua_settop(L, 1);
    return 1;
}

/* ---- backward and grad ----------------------------------------------------------------------- */

/* tensors from a table (or one tensor) at idx; entries may be nil up to n when allow_nil */
static mt_tensor **tensor_array(lua_State *L, int idx, int *n, bool allow_nil, const char *what) {
    if (lmt_to_tensor(L, idx)) {
        mt_tensor **a = lua_newuserdatauv(L, sizeof *a, 0);
        a[0] = lmt_to_tensor(L, idx);
        *n = 1;
        return a;
    }
    if (!lua_istable(L, idx)) {
        lmt_errorf(L, "%s must be a Tensor or a table of Tensors, not %s", what,
                   luaL_typename(L, idx));
        return NULL;
    }
    lua_getfield(L, idx, "n");
    int count = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : (int)lua_rawlen(L, idx);
    lua_pop(L, 1);
    if (*n >= 0 && count < *n) count = *n;
    mt_tensor **a = lua_newuserdatauv(L, sizeof *a * (size_t)(count ? count : 1), 0);
    for (int i = 0; i < count; i++) {
        lua_rawgeti(L, idx, i + 1);
        a[i] = lmt_to_tensor(L, -1);
        if (!a[i] && !(allow_nil && lua_isnil(L, -1)))
            lmt_errorf(L, "%s: element %d is not a Tensor", what, i + 1);
        lua_pop(L, 1);
    }
    *n = count;
    return a;
}

static int run_backward(lua_State *L, mt_tensor **roots, mt_tensor **grads, int n,
                        mt_backward_opts *o, mt_tensor **results) {
    lua_State *prev = running_L;
    running_L = L;
    int st = mt_backward(roots, grads, n, o, results);
    running_L = prev;
    lmt_gc_hint(L);
    return st;
}

/* backward(tensors, grad_tensors|nil, retain_graph, create_graph, inputs|nil) */
static int ag_backward(lua_State *L) {
    int n = -1, ng = 0, ni = -1;
    mt_tensor **roots = tensor_array(L, 1, &n, false, "tensors");
    mt_tensor **grads = NULL;
    if (!lua_isnil(L, 2)) {
        ng = n;
        grads = tensor_array(L, 2, &ng, true, "grad_tensors");
        if (ng != n)
            return lmt_errorf(L, "grad_tensors should have the same length as tensors (%d), got %d",
                              n, ng);
    }
    mt_backward_opts o = {.retain_graph = lua_toboolean(L, 3), .create_graph = lua_toboolean(L, 4)};
    if (!lua_isnoneornil(L, 5)) {
        o.inputs = tensor_array(L, 5, &ni, false, "inputs");
        o.ninputs = ni;
        o.accumulate = true;
        if (ni == 0) return lmt_errorf(L, "'inputs' argument to backward() cannot be empty.");
    }
    if (lua_isnil(L, 3)) o.retain_graph = o.create_graph;
    if (run_backward(L, roots, grads, n, &o, NULL)) return lmt_error(L);
    return 0;
}

/* grad(outputs, inputs, grad_outputs|nil, retain_graph|nil, create_graph, allow_unused) */
static int ag_grad(lua_State *L) {
    int n = -1, ni = -1, ng;
    mt_tensor **outs = tensor_array(L, 1, &n, false, "outputs");
    mt_tensor **ins = tensor_array(L, 2, &ni, false, "inputs");
    mt_tensor **grads = NULL;
    if (!lua_isnil(L, 3)) {
        ng = n;
        grads = tensor_array(L, 3, &ng, true, "grad_outputs");
        if (ng != n)
            return lmt_errorf(
                L, "grad requires one grad_output per output: got %d grad_outputs and %d outputs",
                ng, n);
    }
    bool create = lua_toboolean(L, 5);
    mt_backward_opts o = {.retain_graph = lua_isnil(L, 4) ? create : lua_toboolean(L, 4),
                          .create_graph = create,
                          .allow_unused = lua_toboolean(L, 6),
                          .inputs = ins,
                          .ninputs = ni};
    for (int i = 0; i < ni; i++)
        if (!mt_tensor_requires_grad(ins[i]))
            return lmt_errorf(L, "One of the differentiated Tensors does not require grad");
    mt_tensor **res = lua_newuserdatauv(L, sizeof *res * (size_t)(ni ? ni : 1), 0);
    memset(res, 0, sizeof *res * (size_t)(ni ? ni : 1));
    if (run_backward(L, outs, grads, n, &o, res)) return lmt_error(L);
    lua_createtable(L, ni, 1);
    for (int i = 0; i < ni; i++) {
        if (res[i])
            lmt_push_tensor(L, res[i]); /* takes the reference */
        else
            lua_pushnil(L);
        lua_rawseti(L, -2, i + 1);
    }
    lua_pushinteger(L, ni);
    lua_setfield(L, -2, "n");
    return 1;
}

/* ---- modes ----------------------------------------------------------------------------------- */

static int ag_is_grad_enabled(lua_State *L) {
    lua_pushboolean(L, mt_grad_enabled());
    return 1;
}
static int ag_set_grad_enabled(lua_State *L) {
    luaL_checktype(L, 1, LUA_TBOOLEAN);
    mt_set_grad_enabled(lua_toboolean(L, 1));
    return 0;
}
static int ag_is_inference_mode_enabled(lua_State *L) {
    lua_pushboolean(L, mt_inference_mode());
    return 1;
}
static int ag_set_inference_mode(lua_State *L) {
    mt_set_inference_mode(lua_toboolean(L, 1));
    return 0;
}
static int ag_is_anomaly_enabled(lua_State *L) {
    lua_pushboolean(L, mt_anomaly_enabled());
    return 1;
}
/* anomaly mode: nodes record the Lua traceback of the thread that enabled it */
static _Thread_local lua_State *anomaly_L;

static char *lua_trace(void) {
    lua_State *L = anomaly_L;
    if (!L) return NULL;
    luaL_traceback(L, L, NULL, 1);
    const char *tb = lua_tostring(L, -1);
    char *copy = tb ? strdup(tb) : NULL;
    lua_pop(L, 1);
    return copy;
}

/* set_anomaly_enabled(on, check_nan): check_nan left out keeps the NaN checks on */
static int ag_set_anomaly_enabled(lua_State *L) {
    bool on = lua_toboolean(L, 1);
    anomaly_L = on ? L : NULL;
    mt_set_trace_hook(lua_trace);
    mt_set_anomaly_enabled(on);
    mt_set_anomaly_check_nan(lua_isnoneornil(L, 2) || lua_toboolean(L, 2));
    return 0;
}
static int ag_is_anomaly_check_nan_enabled(lua_State *L) {
    lua_pushboolean(L, mt_anomaly_check_nan());
    return 1;
}

/* ---- saved-tensor hooks (autograd.graph.saved_tensors_hooks) --------------------------------- */

typedef struct saved_hooks_ctx {
    lua_State *L;
    int pack, unpack;
} saved_hooks_ctx;

static void *sh_pack(void *ctx, mt_tensor *t) {
    saved_hooks_ctx *c = ctx;
    lua_State *L = running_L ? running_L : c->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->pack);
    push_tensor_ref(L, t);
    if (lua_pcall(L, 1, 1, 0)) {
        hook_failed(L);
        return NULL;
    }
    int *ref = malloc(sizeof *ref);
    if (!ref) {
        lua_pop(L, 1);
        mt_error(MT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    *ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return ref;
}

static mt_tensor *sh_unpack(void *ctx, void *packed) {
    saved_hooks_ctx *c = ctx;
    lua_State *L = running_L ? running_L : c->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->unpack);
    lua_rawgeti(L, LUA_REGISTRYINDEX, *(int *)packed);
    if (lua_pcall(L, 1, 1, 0)) {
        hook_failed(L);
        return NULL;
    }
    mt_tensor *t = lmt_to_tensor(L, -1);
    if (!t) {
        lua_pop(L, 1);
        mt_error(MT_ERR_RUNTIME, "the unpack hook of saved_tensors_hooks must return a Tensor");
        return NULL;
    }
    mt_tensor_incref(t);
    lua_pop(L, 1);
    return t;
}

static void sh_release(void *ctx, void *packed) {
    saved_hooks_ctx *c = ctx;
    luaL_unref(c->L, LUA_REGISTRYINDEX, *(int *)packed);
    free(packed);
}

/* push_saved_hooks(pack, unpack): the context lives while saved tensors packed by it do; the
 * Lua front keeps it (a userdata) referenced for that long (the two functions hold it) */
static int ag_push_saved_hooks(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    saved_hooks_ctx *c = lua_newuserdatauv(L, sizeof *c, 2);
    c->L = L;
    lua_pushvalue(L, 1);
    c->pack = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushvalue(L, 2);
    c->unpack = luaL_ref(L, LUA_REGISTRYINDEX);
    /* keep the context alive for good: packed values may outlive the with-block */
    lua_pushvalue(L, -1);
    luaL_ref(L, LUA_REGISTRYINDEX);
    if (mt_push_saved_hooks((mt_saved_hooks){sh_pack, sh_unpack, sh_release, c}))
        return lmt_error(L);
    return 0;
}

static int ag_pop_saved_hooks(lua_State *L) {
    (void)L;
    mt_pop_saved_hooks();
    return 0;
}

/* ---- custom functions ------------------------------------------------------------------------ */

/* the engine calls the Lua backward wrapper: fn(node, n_grads, grad1, ...) -> {n = ninputs, ...} */
static int custom_backward_fn(void *ctx, mt_node *n, int ngrads, mt_tensor **grads, int ninputs,
                              mt_tensor **out) {
    lua_State *L = push_cb(ctx);
    int top = lua_gettop(L) - 1;
    if (!lua_checkstack(L, ngrads + 4)) {
        lua_settop(L, top);
        return mt_error(MT_ERR_MEMORY, "Lua stack overflow in backward");
    }
    push_node(L, n);
    for (int i = 0; i < ngrads; i++) push_tensor_ref(L, grads[i]);
    if (lua_pcall(L, ngrads + 1, 1, 0)) return hook_failed(L);
    if (!lua_istable(L, -1)) {
        lua_settop(L, top);
        return mt_error(MT_ERR_RUNTIME, "a custom Function's backward wrapper must return a table");
    }
    for (int i = 0; i < ninputs; i++) {
        lua_rawgeti(L, -1, i + 1);
        mt_tensor *t = lmt_to_tensor(L, -1);
        if (t) mt_tensor_incref(t);
        out[i] = t;
        lua_pop(L, 1);
    }
    lua_settop(L, top);
    return 0;
}

/* a sequence of tensors (nil where not a tensor) of length n from the table at idx, in userdata
 * memory on the stack */
static mt_tensor **tensor_slots(lua_State *L, int idx, int n) {
    mt_tensor **a = lua_newuserdatauv(L, sizeof *a * (size_t)(n ? n : 1), 0);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, idx, i + 1);
        a[i] = lmt_to_tensor(L, -1);
        lua_pop(L, 1);
    }
    return a;
}

static bool *bool_slots(lua_State *L, int idx, int n) {
    bool *a = lua_newuserdatauv(L, sizeof *a * (size_t)(n ? n : 1), 0);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, idx, i + 1);
        a[i] = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    return a;
}

/* custom_node(name, backward, inputs, n_inputs, outputs, n_outputs, non_differentiable, dirty,
 * to_save, n_save): gives the outputs their history; returns the node */
static int ag_custom_node(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    int ni = (int)luaL_checkinteger(L, 4), no = (int)luaL_checkinteger(L, 6),
        ns = (int)luaL_checkinteger(L, 10);
    luaL_checktype(L, 3, LUA_TTABLE);
    luaL_checktype(L, 5, LUA_TTABLE);
    luaL_checktype(L, 7, LUA_TTABLE);
    luaL_checktype(L, 8, LUA_TTABLE);
    luaL_checktype(L, 9, LUA_TTABLE);
    mt_tensor **ins = tensor_slots(L, 3, ni), **outs = tensor_slots(L, 5, no),
              **save = tensor_slots(L, 9, ns);
    bool *nd = bool_slots(L, 7, no), *dirty = bool_slots(L, 8, no);
    mt_node *n = mt_custom_node(name, make_callback(L, 2, (void *)custom_backward_fn), ins, ni,
                                outs, no, nd, dirty, save, ns);
    if (!n) return lmt_error(L);
    push_node(L, n);
    mt_node_decref(n);
    return 1;
}

/* custom_saved(node): the saved tensors, checked against in-place changes ({n = count, ...}) */
static int ag_custom_saved(lua_State *L) {
    mt_node *n = check_node(L, 1);
    int count;
    if (mt_custom_saved(n, NULL, &count)) return lmt_error(L);
    mt_tensor **ts = lua_newuserdatauv(L, sizeof *ts * (size_t)(count ? count : 1), 0);
    if (mt_custom_saved(n, ts, &count)) return lmt_error(L);
    lua_createtable(L, count, 1);
    for (int i = 0; i < count; i++) {
        if (ts[i])
            lmt_push_tensor(L, ts[i]);
        else
            lua_pushnil(L);
        lua_rawseti(L, -2, i + 1);
    }
    lua_pushinteger(L, count);
    lua_setfield(L, -2, "n");
    return 1;
}

/* differentiable_ops(): {"add.Tensor", "exp", ...}, the ops with derivative formulas */
static int ag_differentiable_ops(lua_State *L) {
    lua_newtable(L);
    int k = 0;
    for (int i = 0; i < MT_NUM_OPS; i++) {
        if (!mt_op_has_derivative(i)) continue;
        const mt_schema *s = mt_op_get(i)->schema;
        if (*s->overload)
            lua_pushfstring(L, "%s.%s", s->name, s->overload);
        else
            lua_pushstring(L, s->name);
        lua_rawseti(L, -2, ++k);
    }
    return 1;
}

/* ---- registration ---------------------------------------------------------------------------- */

void lmt_open_autograd(lua_State *L) {
    /* the module is at -1 */
    luaL_newmetatable(L, LMT_NODE);
    static const luaL_Reg node_meta[] = {{"__gc", node_gc},
                                         {"__tostring", node_tostring},
                                         {"__eq", node_eq},
                                         {"__index", node_index},
                                         {NULL, NULL}};
    luaL_setfuncs(L, node_meta, 0);
    static const luaL_Reg node_methods[] = {{"name", node_name},
                                            {"register_hook", node_register_hook},
                                            {"register_prehook", node_register_prehook},
                                            {NULL, NULL}};
    luaL_newlib(L, node_methods);
    lua_setfield(L, -2, "__methods");
    lua_pushstring(L, "torch.autograd.graph.Node");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);

    luaL_newmetatable(L, LMT_HANDLE);
    static const luaL_Reg handle_meta[] = {{"__gc", handle_gc}, {NULL, NULL}};
    luaL_setfuncs(L, handle_meta, 0);
    lua_newtable(L);
    lua_pushcfunction(L, handle_remove);
    lua_setfield(L, -2, "remove");
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    static const luaL_Reg fns[] = {
        {"backward", ag_backward},
        {"grad", ag_grad},
        {"is_grad_enabled", ag_is_grad_enabled},
        {"set_grad_enabled", ag_set_grad_enabled},
        {"is_inference_mode_enabled", ag_is_inference_mode_enabled},
        {"set_inference_mode", ag_set_inference_mode},
        {"is_anomaly_enabled", ag_is_anomaly_enabled},
        {"set_anomaly_enabled", ag_set_anomaly_enabled},
        {"is_anomaly_check_nan_enabled", ag_is_anomaly_check_nan_enabled},
        {"push_saved_hooks", ag_push_saved_hooks},
        {"pop_saved_hooks", ag_pop_saved_hooks},
        {"register_hook", t_register_hook},
        {"retain_grad", t_retain_grad},
        {"_is_view", t_is_view},
        {"detach_", t_detach_},
        {"is_inference", t_is_inference},
        {"differentiable_ops", ag_differentiable_ops},
        {"custom_node", ag_custom_node},
        {"custom_saved", ag_custom_saved},
        {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "_autograd");
}
