/* lmt_generator.c: torch.Generator objects and the module's seeding functions (manual_seed,
 * seed, initial_seed, get_rng_state, set_rng_state, default_generator).
 *
 * Seeds are unsigned 64-bit in PyTorch; Lua integers are signed, so seeds of 2^63 and more
 * show as negative integers and round-trip exactly (manual_seed(-1) is seed 2^64 - 1). */
#include "lmt.h"
#include "mt_generator.h"
#include "mt_ops_gen.h"
#include "mt_pipeline.h"

#include <string.h>

#define LMT_GENERATOR "mindtorch.Generator"

typedef struct lmt_generator {
    mt_generator *g; /* the binding's arg conversion reads this first field */
} lmt_generator;

static void push_generator(lua_State *L, mt_generator *g) {
    lmt_generator *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->g = g;
    luaL_setmetatable(L, LMT_GENERATOR);
}

/* A finalizer may reach a generator whose own __gc already ran (Lua resurrects both in one
 * cycle): its state is gone, so every use is refused. */
static mt_generator *check_generator(lua_State *L, int idx) {
    mt_generator *g = ((lmt_generator *)luaL_checkudata(L, idx, LMT_GENERATOR))->g;
    if (!g) lmt_errorf(L, "this Generator has been freed (its __gc ran) and can no longer be used");
    return g;
}

static uint64_t check_seed(lua_State *L, int idx, const char *who) {
    int64_t v;
    if (lmt_to_int(L, idx, &v))
        lmt_errorf(L, "%s(): argument 'seed' must be int, not %s", who, luaL_typename(L, idx));
    return (uint64_t)v;
}

/* the device argument at idx (or the `device` field of an options table there), cpu if none */
static mt_device device_arg(lua_State *L, int idx) {
    mt_device dev = MT_CPU;
    if (lua_istable(L, idx)) {
        lua_getfield(L, idx, "device");
        lua_replace(L, idx);
    }
    if (!lua_isnoneornil(L, idx) && lmt_to_device(L, idx, &dev)) lmt_error(L);
    return dev;
}

/* torch.Generator([device]) or torch.Generator{device = ...}: an accelerator's generator belongs
 * to one device, the current one when the index is left out (as PyTorch's CUDA generator) */
static int generator_new(lua_State *L) {
    mt_device dev = device_arg(L, 1);
    if (dev.type == MT_DEV_META)
        return lmt_errorf(L, "Device type META is not supported for torch.Generator() api.");
    if (dev.type != MT_DEV_CPU) dev = mt_device_resolve(dev);
    mt_generator *g = mt_generator_new(dev);
    if (!g) return lmt_error(L);
    push_generator(L, g);
    return 1;
}

static int generator_gc(lua_State *L) {
    lmt_generator *u = luaL_checkudata(L, 1, LMT_GENERATOR);
    mt_generator_decref(u->g);
    u->g = NULL;
    return 0;
}

/* Deferred random ops draw when they run: the pipeline runs before a state is read or set, so
 * streams are the same as without it. */
static void settle(lua_State *L) {
    if (mt_pipeline_flush()) lmt_error(L);
}

static int generator_manual_seed(lua_State *L) {
    settle(L);
    mt_generator_manual_seed(check_generator(L, 1), check_seed(L, 2, "manual_seed"));
    lua_settop(L, 1);
    return 1;
}

static int generator_seed(lua_State *L) {
    settle(L);
    lua_pushinteger(L, (lua_Integer)mt_generator_seed(check_generator(L, 1)));
    return 1;
}

static int generator_initial_seed(lua_State *L) {
    mt_generator *g = check_generator(L, 1);
    pthread_mutex_lock(&g->lock);
    uint64_t s = g->seed;
    pthread_mutex_unlock(&g->lock);
    lua_pushinteger(L, (lua_Integer)s);
    return 1;
}

static int push_state(lua_State *L, mt_generator *g) {
    settle(L);
    int64_t n = (int64_t)mt_generator_state_bytes(g);
    mt_tensor *t = mt_tensor_empty(1, &n, MT_UINT8, MT_CPU);
    if (!t) return lmt_error(L);
    mt_generator_get_state(g, mt_tensor_data(t));
    lmt_push_tensor(L, t);
    return 1;
}

static void set_state(lua_State *L, mt_generator *g, int idx) {
    settle(L);
    mt_tensor *t = lmt_to_tensor(L, idx);
    if (!t || t->dtype != MT_UINT8 || t->device.type != MT_DEV_CPU)
        lmt_errorf(L, "RNG state must be a torch.ByteTensor");
    mt_tensor *c = mto_contiguous(t, NULL);
    if (!c) lmt_error(L);
    int st = mt_generator_set_state(g, mt_tensor_data(c), (size_t)c->numel);
    mt_tensor_decref(c);
    if (st) lmt_error(L);
}

static int generator_get_state(lua_State *L) {
    return push_state(L, check_generator(L, 1));
}

static int generator_set_state(lua_State *L) {
    set_state(L, check_generator(L, 1), 2);
    lua_settop(L, 1);
    return 1;
}

static int generator_index(lua_State *L) {
    mt_generator *g = check_generator(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "device") == 0) {
        lmt_push_device(L, g->device);
        return 1;
    }
    luaL_getmetatable(L, LMT_GENERATOR);
    lua_getfield(L, -1, "__methods");
    lua_getfield(L, -1, k);
    return 1;
}

static int generator_tostring(lua_State *L) {
    lua_pushfstring(L, "<torch.Generator object at %p>", (void *)check_generator(L, 1));
    return 1;
}

static int generator_eq(lua_State *L) {
    lmt_generator *a = luaL_testudata(L, 1, LMT_GENERATOR),
                  *b = luaL_testudata(L, 2, LMT_GENERATOR);
    lua_pushboolean(L, a && b && a->g == b->g);
    return 1;
}

/* ---- module functions: the default CPU generator --------------------------------------------- */

static mt_generator *cpu_default(void) {
    return mt_default_generator(MT_DEV_CPU);
}

/* torch.default_generator: one userdata per state, kept in the registry */
static void push_default(lua_State *L) {
    lmt_push_registry(L, "default_generator");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        mt_generator *g = cpu_default();
        mt_generator_incref(g);
        push_generator(L, g);
        lmt_push_registry(L, NULL);
        lua_pushvalue(L, -2);
        lua_setfield(L, -2, "default_generator");
        lua_pop(L, 1);
    }
}

/* torch.manual_seed seeds every device's generator too, as PyTorch's seeds CUDA's */
static int manual_seed(lua_State *L) {
    uint64_t s = check_seed(L, 1, "manual_seed");
    settle(L);
    mt_generator_manual_seed_all(s);
    push_default(L);
    return 1;
}

/* torch._device_generator(device): one device's default generator (torch.cuda.default_generators
 * is made of these; the current device when the index is left out) */
static int device_generator(lua_State *L) {
    mt_device dev = device_arg(L, 1);
    mt_generator *g = mt_device_generator(dev);
    if (!g) return lmt_error(L);
    mt_generator_incref(g);
    push_generator(L, g);
    return 1;
}

static int seed(lua_State *L) {
    settle(L);
    lua_pushinteger(L, (lua_Integer)mt_generator_seed(cpu_default()));
    return 1;
}

static int initial_seed(lua_State *L) {
    lua_settop(L, 0);
    push_default(L);
    return generator_initial_seed(L);
}

static int get_rng_state(lua_State *L) {
    return push_state(L, cpu_default());
}

static int set_rng_state(lua_State *L) {
    set_state(L, cpu_default(), 1);
    return 0;
}

void lmt_open_generator(lua_State *L) {
    /* stack: module table */
    luaL_newmetatable(L, LMT_GENERATOR);
    static const luaL_Reg meta[] = {
        {"__gc", generator_gc},
        {"__index", generator_index},
        {"__tostring", generator_tostring},
        {"__eq", generator_eq},
        {NULL, NULL},
    };
    luaL_setfuncs(L, meta, 0);
    static const luaL_Reg methods[] = {
        {"manual_seed", generator_manual_seed},   {"seed", generator_seed},
        {"initial_seed", generator_initial_seed}, {"get_state", generator_get_state},
        {"set_state", generator_set_state},       {NULL, NULL},
    };
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__methods");
    lua_pushstring(L, "torch.Generator");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);

    static const luaL_Reg fns[] = {
        {"Generator", generator_new},
        {"manual_seed", manual_seed},
        {"seed", seed},
        {"initial_seed", initial_seed},
        {"get_rng_state", get_rng_state},
        {"set_rng_state", set_rng_state},
        {"_device_generator", device_generator},
        {NULL, NULL},
    };
    luaL_setfuncs(L, fns, 0);
    push_default(L);
    lua_setfield(L, -2, "default_generator");
}
