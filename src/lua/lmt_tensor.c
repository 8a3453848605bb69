/* lmt_tensor.c: the Tensor userdata: identity, lifetime, fields, plain methods, x[i]. */
#include "lmt.h"
#include "lmt_call.h"
#include "mt_ops_gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- errors ---------------------------------------------------------------------------------- */

int lmt_error(lua_State *L) {
    lua_pushstring(L, mt_error_msg());
    mt_error_clear();
    return lua_error(L);
}

int lmt_errorf(lua_State *L, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return lua_error(L);
}

void lmt_push_registry(lua_State *L, const char *field) {
    lua_getfield(L, LUA_REGISTRYINDEX, "mindtorch");
    if (field) {
        lua_getfield(L, -1, field);
        lua_remove(L, -2);
    }
}

/* ---- identity and lifetime ------------------------------------------------------------------- */

/* The Tensor metatable lives in the registry under this address (a lookup by pointer, cheaper
 * than luaL_checkudata's lookup by name on every call). */
static const char tensor_mt_key = 0;

/* Lua's collector counts only Lua's own bytes: a tensor's userdata is a few dozen bytes that
 * may hold megabytes. This pacer runs a collection whenever the CPU bytes held by tensors have
 * grown by GC_FLOOR since their lowest point after the last collection, or by twice Lua's heap
 * if that is larger (so a full collection's cost, which grows with Lua's heap, stays small per
 * byte allocated): in generational mode a young one first, a full one if young ones free too
 * little (below). Garbage tensors thus hold at most that much memory (1.5 times it in
 * generational mode when they aged into old objects), in either collector mode.
 *
 * Growth of the bytes held, not bytes allocated: an op's temporaries (a convolution's column
 * buffer, a copy for a dtype) are freed before it returns and leave no garbage, yet counting them
 * ran a full collection every call or two of a LeNet convolution (its 8 MB column budget), which
 * with nn loaded (a 2 MB Lua heap: 0.3-0.4 ms a collection) was half of the call's time.
 *
 * Why not lua_gc(LUA_GCSTEP) per allocation, as before: in incremental mode it ran a whole
 * cycle over the Lua heap every few hundred KB of tensors (16% of an MLP training step); in
 * generational mode it ran a young collection on nearly every op, so tensors still held by a
 * local aged into old objects, which only a major collection frees, and Lua never started one
 * because its own heap hardly grew: a DataLoader loop grew by 250 KB per batch. */
#define GC_FLOOR ((int64_t)8 << 20)
static _Thread_local int64_t gc_low = -1, gc_threshold = GC_FLOOR;
/* Lua's collector mode as torch._gc_mode last set it. Lua has no query for the mode that
 * leaves it unchanged, and in incremental mode a step before the full collection makes that
 * collection restart its cycle (LeNet's 5x5 layer 130 -> 170 us), so the pacer is told. */
static _Thread_local bool gc_generational;
static _Thread_local bool young_fell_short;
/* the collections the pacer ran, young and full (torch._gc_collections: tests look at them) */
static _Thread_local lua_Integer young_runs, full_runs;

/* torch._gc_mode([mode]): with "generational" or "incremental", switches Lua's collector to it
 * and paces tensor memory for it (lua/mindtorch/init.lua chooses); returns the mode in use */
int lmt_gc_mode(lua_State *L) {
    static const char *const modes[] = {"incremental", "generational", NULL};
    if (!lua_isnoneornil(L, 1)) {
        bool gen = luaL_checkoption(L, 1, NULL, modes) == 1;
        lua_gc(L, gen ? LUA_GCGEN : LUA_GCINC, 0, 0, 0);
        gc_generational = gen;
    }
    lua_pushstring(L, modes[gc_generational]);
    return 1;
}

/* torch._gc_collections(): the young and the full collections the pacer has run in this thread */
int lmt_gc_collections(lua_State *L) {
    lua_pushinteger(L, young_runs);
    lua_pushinteger(L, full_runs);
    return 2;
}

void lmt_gc_hint(lua_State *L) {
    int64_t held = mt_cpu_allocated_bytes();
    if (gc_low < 0 || held < gc_low) gc_low = held;
    if (held - gc_low < gc_threshold) return;
    if (gc_generational) {
        /* a young collection first: its cost grows with the objects made since the last one,
         * not with the whole heap, and a result a loop dropped is young garbage (LeNet's 5x5
         * layer after the model was built, 130 -> 100 us a call: full collections over nn's
         * 2 MB heap were a fifth of it). It did enough when it freed half of the growth or left
         * less than half a threshold of it. A full collection only when two young ones in a row
         * fell short: garbage that aged into old objects (a tensor a local still held at an
         * earlier collection) is freed by nothing else, but a full collection also ages every
         * live result, and in `for ... do local c = a + b end` the slot still holds the last c
         * while the next is made: after one full collection each young one found that c old,
         * and every call ran a full collection (10M float32, 1000 calls: 2.15-2.78 -> 1.67-1.90
         * s). After one that fell short, the next comes after half a threshold more growth: at
         * most 1.5 thresholds of aged garbage wait for a full collection. */
        lua_gc(L, LUA_GCSTEP, 0);
        young_runs++;
        int64_t after = mt_cpu_allocated_bytes();
        bool enough = after - gc_low < gc_threshold / 2 || held - after >= (held - gc_low) / 2;
        if (enough || !young_fell_short) {
            young_fell_short = !enough;
            gc_low = enough ? after : after - gc_threshold / 2;
            return;
        }
    }
    young_fell_short = false;
    lua_gc(L, LUA_GCCOLLECT);
    full_runs++;
    gc_low = mt_cpu_allocated_bytes();
    int64_t heap = (int64_t)lua_gc(L, LUA_GCCOUNT) << 10;
    gc_threshold = 2 * heap > GC_FLOOR ? 2 * heap : GC_FLOOR;
}

/* Lua's collector paces itself by the bytes Lua allocated, and a tensor's userdata is 16 of them:
 * the header, storage and small data behind it (about 500 bytes for a 4-element result) are
 * malloc'd. Counting only the userdata, a loop of small ops built up tens of MB of garbage
 * tensors between cycles - worse because objects awaiting __gc count as live in the collector's
 * estimate, so each cycle's threshold grew with the last cycle's garbage - and spent its time in
 * page faults and cache misses (a 4-element add: 38,000 page faults per 400k adds, 2.2 us each;
 * counted here: 1,600 and 0.5 us). So each new tensor adds its hidden bytes to the collector's
 * debt (LUA_GCSTEP with a size: as if that many KB had been allocated), in 16 KB installments.
 * Large data is left to lmt_gc_hint: counting megabytes here would run a cycle every few ops. */
#define HIDDEN_SMALL_DATA 4096
#define HIDDEN_INSTALLMENT (16 << 10)
static _Thread_local int hidden_debt;

static void count_hidden_bytes(lua_State *L, const mt_tensor *t) {
    int bytes = (int)sizeof(mt_tensor);
    const mt_storage *s = t->storage;
    if (s && atomic_load_explicit(&s->refcount, memory_order_relaxed) == 1)
        bytes += (int)sizeof(mt_storage) + (int)sizeof(mt_version) +
                 (s->nbytes < HIDDEN_SMALL_DATA ? (int)s->nbytes : 0);
    hidden_debt += bytes;
    if (hidden_debt < HIDDEN_INSTALLMENT) return;
    int kb = hidden_debt >> 10;
    hidden_debt &= 1023;
    /* LUA_GCSTEP would run a step even in a stopped collector */
    if (lua_gc(L, LUA_GCISRUNNING)) lua_gc(L, LUA_GCSTEP, kb);
}

/* A new userdata for t. Identity (the same Lua value for the same tensor) is kept where it
 * matters by the callers: an op that returns one of its arguments gives back that argument's
 * Lua value (lmt_args.c), and fields such as x.grad cache their userdata. */
void lmt_push_tensor(lua_State *L, mt_tensor *t) {
    count_hidden_bytes(L, t);
    lmt_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->magic = LMT_BOX_MAGIC;
    b->t = t;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &tensor_mt_key);
    lua_setmetatable(L, -2);
}

mt_tensor *lmt_to_tensor(lua_State *L, int idx) {
    return lmt_box_tensor(L, idx);
}

bool lmt_is_released_tensor(lua_State *L, int idx) {
    lmt_box *b = lua_touserdata(L, idx);
    return b && lua_rawlen(L, idx) == sizeof(lmt_box) &&
           (b->magic == LMT_BOX_MAGIC || b->magic == LMT_BOX_FREED) && !b->t;
}

mt_tensor *lmt_check_tensor(lua_State *L, int idx) {
    lmt_box *b = lua_touserdata(L, idx);
    if (!b || lua_rawlen(L, idx) != sizeof(lmt_box) ||
        (b->magic != LMT_BOX_MAGIC && b->magic != LMT_BOX_FREED))
        lmt_errorf(L, "expected a Tensor, got %s", luaL_typename(L, idx));
    if (!b->t) lmt_errorf(L, "%s", lmt_released_message(L, idx));
    return b->t;
}

const char *lmt_released_message(lua_State *L, int idx) {
    const lmt_box *b = lua_touserdata(L, idx);
    return b && b->magic == LMT_BOX_FREED
               ? "this tensor has been freed (its __gc ran) and can no longer be used"
               : "this tensor was released by <close> and can no longer be used";
}

/* user attributes (x.note = ...) live in a registry table keyed weakly by the userdata, so
 * tensors without any need no user value */
static void push_attributes(lua_State *L, int idx, bool create) {
    idx = lua_absindex(L, idx);
    lmt_push_registry(L, "attributes");
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -2) == LUA_TTABLE || !create) {
        lua_remove(L, -2);
        return;
    }
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, idx);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
    lua_remove(L, -2);
}

static int tensor_gc(lua_State *L) {
    lmt_box *b = lua_touserdata(L, 1);
    if (b->t) {
        mt_tensor_decref(b->t);
        b->t = NULL;
        b->magic = LMT_BOX_FREED;
    }
    return 0;
}

static int tensor_close(lua_State *L) {
    lmt_box *b = luaL_checkudata(L, 1, LMT_TENSOR);
    if (b->t) {
        mt_tensor_decref(b->t);
        b->t = NULL;
    }
    return 0;
}

/* ---- reading values -------------------------------------------------------------------------- */

/* A CPU tensor with t's values (t itself when already on the CPU): a new reference. */
static mt_tensor *cpu_values(lua_State *L, mt_tensor *t, const char *what) {
    if (t->device.type == MT_DEV_META)
        lmt_errorf(L, "Tensor.%s() cannot be called on meta tensors", what);
    if (t->device.type == MT_DEV_CPU) {
        if (mt_tensor_sync(t)) lmt_error(L);
        mt_tensor_incref(t);
        return t;
    }
    mt_tensor *c = mto__to_copy(t, -1, MT_CPU, false, NULL);
    if (!c) lmt_error(L);
    if (mt_storage_sync(c->storage)) { /* the copy may itself be deferred (pipeline mode) */
        mt_tensor_decref(c);
        lmt_error(L);
    }
    return c;
}

static void push_element(lua_State *L, const char *p, mt_dtype dt) {
    if (dt == MT_BOOL)
        lua_pushboolean(L, *p != 0);
    else if (mt_dtype_is_floating(dt))
        lua_pushnumber(L, mt_load_double(p, dt));
    else
        lua_pushinteger(L, mt_load_int64(p, dt));
}

static int t_item(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    if (t->numel != 1) {
        if (t->device.type == MT_DEV_META)
            return lmt_errorf(L, "Tensor.item() cannot be called on meta tensors");
        return lmt_errorf(L, "a Tensor with %I elements cannot be converted to Scalar",
                          (lua_Integer)t->numel);
    }
    mt_tensor *c = cpu_values(L, t, "item");
    push_element(L, mt_tensor_raw(c), (mt_dtype)c->dtype);
    mt_tensor_decref(c);
    return 1;
}

static void push_list(lua_State *L, const mt_tensor *t, const char *p, int d) {
    size_t isz = mt_dtype_size((mt_dtype)t->dtype);
    if (d == t->ndim) {
        push_element(L, p, (mt_dtype)t->dtype);
        return;
    }
    luaL_checkstack(L, 4, "tensor too deep");
    lua_createtable(L, (int)t->sizes[d], 0);
    for (int64_t i = 0; i < t->sizes[d]; i++) {
        push_list(L, t, p + i * t->strides[d] * (int64_t)isz, d + 1);
        lua_rawseti(L, -2, i + 1);
    }
}

static int t_tolist(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    mt_tensor *c = cpu_values(L, t, "tolist");
    push_list(L, c, mt_tensor_raw(c), 0);
    mt_tensor_decref(c);
    return 1;
}

/* ---- geometry methods ------------------------------------------------------------------------ */

static int check_dim_arg(lua_State *L, int idx, int ndim) {
    int64_t d;
    if (lmt_to_int(L, idx, &d))
        lmt_errorf(L, "dim must be an integer, got %s", luaL_typename(L, idx));
    int64_t internal = d > 0 ? d - 1 : d == 0 ? MT_ZERO_SENTINEL : d;
    int w;
    if (mt_wrap_dim(internal, ndim, &w)) lmt_error(L);
    return w;
}

static int t_size(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    if (lua_isnoneornil(L, 2)) {
        lmt_push_size(L, t->sizes, t->ndim);
        return 1;
    }
    if (t->ndim == 0)
        return lmt_errorf(L, "Dimension specified as %d but tensor has no dimensions",
                          (int)luaL_checkinteger(L, 2));
    lua_pushinteger(L, t->sizes[check_dim_arg(L, 2, t->ndim)]);
    return 1;
}

static int t_stride(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    if (lua_isnoneornil(L, 2)) {
        lmt_push_int_tuple(L, t->strides, t->ndim);
        return 1;
    }
    if (t->ndim == 0)
        return lmt_errorf(L, "Dimension specified as %d but tensor has no dimensions",
                          (int)luaL_checkinteger(L, 2));
    lua_pushinteger(L, t->strides[check_dim_arg(L, 2, t->ndim)]);
    return 1;
}

static int t_dim(lua_State *L) {
    lua_pushinteger(L, lmt_check_tensor(L, 1)->ndim);
    return 1;
}

static int t_numel(lua_State *L) {
    lua_pushinteger(L, lmt_check_tensor(L, 1)->numel);
    return 1;
}

static int t_element_size(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)mt_dtype_size((mt_dtype)lmt_check_tensor(L, 1)->dtype));
    return 1;
}

static int t_storage_offset(lua_State *L) {
    lua_pushinteger(L, lmt_check_tensor(L, 1)->offset);
    return 1;
}

/* is_contiguous({memory_format = torch.channels_last}): keyword-only, as PyTorch's */
static int t_is_contiguous(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    const char *fmt = NULL;
    int given = lua_gettop(L) - 1;
    if (given > 1 || (given == 1 && !lua_istable(L, 2)))
        return lmt_errorf(L, "is_contiguous() takes 0 positional arguments but %d %s given", given,
                          given == 1 ? "was" : "were");
    if (given == 1) {
        lua_pushnil(L);
        while (lua_next(L, 2)) {
            const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
            if (strcmp(key, "memory_format") != 0)
                return lmt_errorf(L, "is_contiguous() got an unexpected keyword argument '%s'",
                                  key);
            if (lua_type(L, -1) != LUA_TSTRING || !mt_memory_format_known(lua_tostring(L, -1)))
                return lmt_errorf(L,
                                  "is_contiguous(): argument 'memory_format' must be "
                                  "torch.memory_format, not %s",
                                  lmt_value_type(L, -1));
            fmt = lua_tostring(L, -1);
            lua_pop(L, 1);
        }
    }
    lua_pushboolean(L, mt_tensor_is_contiguous_as(t, fmt));
    return 1;
}

/* the memory format t's strides suggest (PyTorch's suggest_memory_format): for the Lua ops whose
 * results follow their input's layout (lua/mindtorch/_layout.lua) */
static int t_suggest_memory_format(lua_State *L) {
    lua_pushstring(L, mt_suggest_memory_format(lmt_check_tensor(L, 1)));
    return 1;
}

static int t_is_floating_point(lua_State *L) {
    lua_pushboolean(L, mt_dtype_is_floating((mt_dtype)lmt_check_tensor(L, 1)->dtype));
    return 1;
}

static int t_data_ptr(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    if (t->device.type == MT_DEV_META) {
        lua_pushinteger(L, 0);
        return 1;
    }
    if (mt_tensor_sync(t)) return lmt_error(L);
    lua_pushinteger(L, (lua_Integer)(uintptr_t)mt_tensor_raw(t));
    return 1;
}

static int t_type(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    if (lua_isnoneornil(L, 2)) {
        char buf[64];
        lua_pushstring(L, mt_tensor_type_name(t, buf, sizeof buf));
        return 1;
    }
    mt_dtype dt = lmt_check_dtype(L, 2);
    mt_tensor *r = mto_to_dtype(t, dt, false, false, NULL);
    if (!r) return lmt_error(L);
    lmt_push_tensor(L, r);
    return 1;
}

static int t_requires_grad_(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    bool on = lua_isnoneornil(L, 2) ? true : lua_toboolean(L, 2);
    if (on && !mt_dtype_is_floating(
                  (mt_dtype)t->dtype)) /* requires_grad_()'s wording (the setter's differs) */
        return lmt_errorf(L, "only Tensors of floating point dtype can require gradients");
    lmt_set_requires_grad(L, t, on);
    lua_settop(L, 1);
    return 1;
}

static int t_len(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    if (t->ndim == 0) return lmt_errorf(L, "len() of a 0-d tensor");
    lua_pushinteger(L, t->sizes[0]);
    return 1;
}

/* ---- fields ---------------------------------------------------------------------------------- */

typedef int (*getter)(lua_State *L, mt_tensor *t);

static int g_shape(lua_State *L, mt_tensor *t) {
    lmt_push_size(L, t->sizes, t->ndim);
    return 1;
}
static int g_dtype(lua_State *L, mt_tensor *t) {
    lmt_push_dtype(L, (mt_dtype)t->dtype);
    return 1;
}
static int g_device(lua_State *L, mt_tensor *t) {
    lmt_push_device(L, t->device);
    return 1;
}
static int g_requires_grad(lua_State *L, mt_tensor *t) {
    lua_pushboolean(L, mt_tensor_requires_grad(t));
    return 1;
}
static int g_ndim(lua_State *L, mt_tensor *t) {
    lua_pushinteger(L, t->ndim);
    return 1;
}
static int g_false(lua_State *L, mt_tensor *t) {
    MT_UNUSED(t);
    lua_pushboolean(L, 0);
    return 1;
}
static int g_itemsize(lua_State *L, mt_tensor *t) {
    lua_pushinteger(L, (lua_Integer)mt_dtype_size((mt_dtype)t->dtype));
    return 1;
}
static int g_nbytes(lua_State *L, mt_tensor *t) {
    lua_pushinteger(L, t->numel * (lua_Integer)mt_dtype_size((mt_dtype)t->dtype));
    return 1;
}
static int g_layout(lua_State *L, mt_tensor *t) {
    MT_UNUSED(t);
    lua_pushstring(L, "torch.strided");
    return 1;
}
/* x.data: the same storage, detached, with its own version counter (PyTorch's .data) */
static int g_data(lua_State *L, mt_tensor *t) {
    mt_tensor *d = mt_tensor_from_storage(t->storage, t->offset, t->ndim, t->sizes, t->strides,
                                          (mt_dtype)t->dtype);
    if (!d) return lmt_error(L);
    lmt_push_tensor(L, d);
    return 1;
}
static int g_T(lua_State *L, mt_tensor *t) {
    int64_t dims[MT_MAX_DIM];
    for (int i = 0; i < t->ndim; i++) dims[i] = t->ndim - 1 - i;
    mt_tensor *r = mto_permute(t, (mt_ilist){dims, t->ndim});
    if (!r) return lmt_error(L);
    lmt_push_tensor(L, r);
    return 1;
}

/* x.mT, x.mH (the conjugate is the identity on real dtypes): the last two dims swapped */
static int matrix_transpose(lua_State *L, mt_tensor *t, const char *what) {
    if (t->ndim == 1)
        return lmt_errorf(
            L, "tensor.%s is only supported on matrices or batches of matrices. Got 1-D tensor.",
            what);
    mt_tensor *r = t->ndim == 0 ? mto_alias(t) : mto_transpose_int(t, t->ndim - 2, t->ndim - 1);
    if (!r) return lmt_error(L);
    lmt_push_tensor(L, r);
    return 1;
}
static int g_mT(lua_State *L, mt_tensor *t) {
    return matrix_transpose(L, t, "mT");
}
static int g_mH(lua_State *L, mt_tensor *t) {
    return matrix_transpose(L, t, "mH");
}
/* x.H: a matrix's (conjugate) transpose */
static int g_H(lua_State *L, mt_tensor *t) {
    if (t->ndim != 0 && t->ndim != 2)
        return lmt_errorf(
            L, "tensor.H is only supported on matrices (2-D tensors). Got %d-D tensor.%s", t->ndim,
            t->ndim > 2 ? " For batches of matrices, consider using tensor.mH" : "");
    return matrix_transpose(L, t, "H");
}

/* x.real: x itself (every dtype here is real); x.imag: refused, as PyTorch refuses it there */
static int g_real(lua_State *L, mt_tensor *t) {
    (void)t;
    lua_pushvalue(L, 1);
    return 1;
}
static int g_imag(lua_State *L, mt_tensor *t) {
    (void)t;
    return lmt_errorf(L, "imag is not implemented for tensors with non-complex dtypes.");
}

static const struct {
    const char *name;
    getter get;
} getters[] = {
    {"shape", g_shape},
    {"dtype", g_dtype},
    {"device", g_device},
    {"requires_grad", g_requires_grad},
    {"ndim", g_ndim},
    {"is_sparse", g_false},
    {"is_quantized", g_false},
    {"itemsize", g_itemsize},
    {"nbytes", g_nbytes},
    {"layout", g_layout},
    {"data", g_data},
    {"T", g_T},
    {"mT", g_mT},
    {"mH", g_mH},
    {"H", g_H},
    {"real", g_real},
    {"imag", g_imag},
    /* autograd (lmt_autograd.c) */
    {"grad", lmt_g_grad},
    {"grad_fn", lmt_g_grad_fn},
    {"is_leaf", lmt_g_is_leaf},
    {"retains_grad", lmt_g_retains_grad},
    {"_version", lmt_g_version},
    {"output_nr", lmt_g_output_nr},
    {"_base", lmt_g_base},
};

/* ---- __index / __newindex -------------------------------------------------------------------- */

/* upvalue 1: torch.Tensor (methods); upvalue 2: getters (name -> lightuserdata fn) */
static int tensor_index(lua_State *L) {
    int kt = lua_type(L, 2);
    if (kt == LUA_TSTRING) {
        lua_pushvalue(L, 2);
        if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
        lua_pop(L, 1);
        lua_pushvalue(L, 2);
        if (lua_rawget(L, lua_upvalueindex(2)) == LUA_TLIGHTUSERDATA) {
            getter g = (getter)(uintptr_t)lua_touserdata(L, -1);
            return g(L, lmt_check_tensor(L, 1));
        }
        lua_pop(L, 1);
        /* is_cpu, is_cuda, is_<type> for every device type the registry knows */
        const char *k = lua_tostring(L, 2);
        int type;
        if (strncmp(k, "is_", 3) == 0 && (type = mt_devtype_find(k + 3)) >= 0) {
            lua_pushboolean(L, lmt_check_tensor(L, 1)->device.type == type);
            return 1;
        }
        /* the Lua front's properties (grad, grad_fn, ...) and user attributes */
        lua_pushvalue(L, 2);
        if (lua_rawget(L, lua_upvalueindex(3)) == LUA_TFUNCTION) {
            lua_pushvalue(L, 1);
            lua_call(L, 1, 1);
            return 1;
        }
        lua_pop(L, 1);
        push_attributes(L, 1, false);
        if (lua_type(L, -1) == LUA_TTABLE) {
            lua_pushvalue(L, 2);
            lua_rawget(L, -2);
            return 1;
        }
        lua_pushnil(L);
        return 1;
    }
    /* x[i], x[{...}], x[mask]: the Lua front's indexing (torch.Tensor.__index_value) */
    lua_getfield(L, lua_upvalueindex(1), "__index_value");
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_call(L, 2, 1);
    return 1;
}

/* upvalue 1: setters table (name -> function(self, value)) from the Lua front */
static int tensor_newindex(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    if (lua_type(L, 2) == LUA_TSTRING) {
        const char *k = lua_tostring(L, 2);
        if (strcmp(k, "requires_grad") == 0) {
            if (!lua_isboolean(L, 3))
                return lmt_errorf(L, "requires_grad must be a bool, not %s", luaL_typename(L, 3));
            return lmt_set_requires_grad(L, t, lua_toboolean(L, 3));
        }
        if (strcmp(k, "grad") == 0) return lmt_set_grad(L, t, 3);
        lua_pushvalue(L, 2);
        if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TFUNCTION) {
            lua_pushvalue(L, 1);
            lua_pushvalue(L, 3);
            lua_call(L, 2, 0);
            return 0;
        }
        lua_pop(L, 1);
        push_attributes(L, 1, true);
        lua_pushvalue(L, 2);
        lua_pushvalue(L, 3);
        lua_rawset(L, -3);
        return 0;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, "mindtorch");
    lua_getfield(L, -1, "Tensor");
    lua_getfield(L, -1, "__setindex_value");
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_call(L, 3, 0);
    return 0;
}

static int tensor_tostring_fallback(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    char buf[64];
    lua_pushfstring(L, "%s of %d dims", mt_tensor_type_name(t, buf, sizeof buf), t->ndim);
    return 1;
}

/* torch._tensor_attributes(x [, create]): x's table of user attributes (nil when it has none
 * and create is false); serialization saves and restores it without going through __newindex */
static int tensor_attributes(lua_State *L) {
    lmt_check_tensor(L, 1);
    push_attributes(L, 1, lua_toboolean(L, 2));
    return 1;
}

/* torch.is_tensor(x) */
static int is_tensor(lua_State *L) {
    lua_pushboolean(L, luaL_testudata(L, 1, LMT_TENSOR) != NULL);
    return 1;
}

void lmt_open_tensor(lua_State *L) {
    /* registry.mindtorch.attributes: userdata -> user attributes, weak keys */
    lmt_push_registry(L, NULL);
    lua_newtable(L);
    lua_newtable(L);
    lua_pushstring(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "attributes");
    lua_pop(L, 1);
    /* torch.Tensor: the methods table; ops and the Lua front add to it */
    lua_newtable(L);
    static const luaL_Reg methods[] = {
        {"item", t_item},
        {"tolist", t_tolist},
        {"size", t_size},
        {"stride", t_stride},
        {"dim", t_dim},
        {"ndimension", t_dim},
        {"numel", t_numel},
        {"nelement", t_numel},
        {"element_size", t_element_size},
        {"storage_offset", t_storage_offset},
        {"is_contiguous", t_is_contiguous},
        {"_suggest_memory_format", t_suggest_memory_format},
        {"is_floating_point", t_is_floating_point},
        {"data_ptr", t_data_ptr},
        {"type", t_type},
        {"requires_grad_", t_requires_grad_},
        {NULL, NULL},
    };
    luaL_setfuncs(L, methods, 0);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "Tensor");
    lmt_push_registry(L, NULL);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "Tensor");
    lua_pop(L, 1);

    luaL_newmetatable(L, LMT_TENSOR);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &tensor_mt_key);
    lua_pushvalue(L, -2); /* upvalue 1: methods */
    lua_createtable(L, 0, (int)MT_ARRAY_LEN(getters));
    for (size_t i = 0; i < MT_ARRAY_LEN(getters); i++) {
        lua_pushlightuserdata(L, (void *)(uintptr_t)getters[i].get);
        lua_setfield(L, -2, getters[i].name);
    }
    lua_newtable(L); /* upvalue 3: Lua-front getters (torch.Tensor.__getters) */
    lua_pushvalue(L, -1);
    lua_setfield(L, -4, "__getters");
    lua_pushcclosure(L, tensor_index, 3);
    lua_setfield(L, -2, "__index");
    lua_newtable(L); /* upvalue: Lua-front setters (torch.Tensor.__setters) */
    lua_pushvalue(L, -1);
    lua_setfield(L, -4, "__setters");
    lua_pushcclosure(L, tensor_newindex, 1);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, tensor_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, tensor_close);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, t_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, tensor_tostring_fallback);
    lua_setfield(L, -2, "__tostring");
    lua_pushstring(L, "torch.Tensor");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 2); /* metatable, methods */

    lua_pushcfunction(L, is_tensor);
    lua_setfield(L, -2, "is_tensor");
    lua_pushcfunction(L, tensor_attributes);
    lua_setfield(L, -2, "_tensor_attributes");
}
