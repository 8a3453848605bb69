/* accel_lua.c: the raw torch.<dev> functions over an accel_module (accel_lua.h). Every function
 * has the module as its upvalue; errors are mindtorch's message as a Lua error. */
#include <lauxlib.h>
#include <stdint.h>
#include <stdio.h>

#include "accel_lua.h"
#include "accel_stream.h"

static accel_module *mod(lua_State *L) {
    return lua_touserdata(L, lua_upvalueindex(1));
}

static int fail(lua_State *L) {
    return luaL_error(L, "%s", mt_error_msg());
}

static int check(lua_State *L, int rc) {
    return rc ? fail(L) : 0;
}

/* a device argument: nil is the current device */
static int device_arg(lua_State *L, int idx) {
    const accel_driver *d = mod(L)->drv;
    int dev = lua_isnoneornil(L, idx) ? d->current_device() : (int)luaL_checkinteger(L, idx);
    check(L, d->check_device(dev));
    return dev;
}

static void event_mt_name(lua_State *L, char *buf, size_t cap) {
    snprintf(buf, cap, "mindtorch.%s.Event", mod(L)->drv->type);
}

/* ---- devices ----------------------------------------------------------------------------- */
static int l_is_available(lua_State *L) {
    const char *why = "";
    bool ok = mod(L)->drv->available(&why);
    lua_pushboolean(L, ok);
    lua_pushstring(L, ok ? "" : why);
    return 2;
}

static int l_device_count(lua_State *L) {
    lua_pushinteger(L, mod(L)->drv->device_count());
    return 1;
}

static int l_current_device(lua_State *L) {
    check(L, mod(L)->drv->init());
    lua_pushinteger(L, mod(L)->drv->current_device());
    return 1;
}

static int l_set_device(lua_State *L) {
    return check(L, mod(L)->drv->set_device((int)luaL_checkinteger(L, 1)));
}

static int l_init(lua_State *L) {
    return check(L, mod(L)->drv->init());
}

static int l_is_initialized(lua_State *L) {
    lua_pushboolean(L, mod(L)->drv->initialized());
    return 1;
}

static int l_synchronize(lua_State *L) {
    const accel_driver *d = mod(L)->drv;
    int dev = device_arg(L, 1);
    check(L, d->bind(dev));
    return check(L, d->device_sync());
}

static int l_properties(lua_State *L) {
    accel_properties p;
    check(L, mod(L)->drv->properties(device_arg(L, 1), &p));
    lua_createtable(L, 0, 5);
    lua_pushstring(L, p.name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, p.major);
    lua_setfield(L, -2, "major");
    lua_pushinteger(L, p.minor);
    lua_setfield(L, -2, "minor");
    lua_pushinteger(L, p.total_memory);
    lua_setfield(L, -2, "total_memory");
    lua_pushinteger(L, p.multi_processor_count);
    lua_setfield(L, -2, "multi_processor_count");
    return 1;
}

static int l_can_access_peer(lua_State *L) {
    int dev = device_arg(L, 1), peer = device_arg(L, 2);
    bool can = false;
    if (dev != peer) check(L, mod(L)->drv->can_access_peer(dev, peer, &can));
    lua_pushboolean(L, can);
    return 1;
}

static int l_enable_peer_access(lua_State *L) {
    int dev = device_arg(L, 1), peer = device_arg(L, 2);
    return check(L, mod(L)->drv->enable_peer_access(dev, peer));
}

static int l_mem_get_info(lua_State *L) {
    const accel_driver *d = mod(L)->drv;
    int dev = device_arg(L, 1);
    size_t free_b = 0, total = 0;
    check(L, d->bind(dev));
    check(L, d->mem_info(&free_b, &total));
    lua_pushinteger(L, (lua_Integer)free_b);
    lua_pushinteger(L, (lua_Integer)total);
    return 2;
}

/* ---- the caching allocator --------------------------------------------------------------- */
static accel_alloc *caching(lua_State *L) {
    accel_alloc *a = accel_storage_caching(mod(L)->storage);
    if (!a) luaL_error(L, "out of host memory for the %s allocator", mod(L)->drv->name);
    return a;
}

static void push_stat(lua_State *L, const accel_stat *s) {
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, s->current);
    lua_setfield(L, -2, "current");
    lua_pushinteger(L, s->peak);
    lua_setfield(L, -2, "peak");
    lua_pushinteger(L, s->allocated);
    lua_setfield(L, -2, "allocated");
    lua_pushinteger(L, s->freed);
    lua_setfield(L, -2, "freed");
}

static void push_pools(lua_State *L, const accel_stat arr[ACCEL_NPOOLS], const char *name) {
    lua_createtable(L, 0, 3);
    push_stat(L, &arr[ACCEL_POOL_ALL]);
    lua_setfield(L, -2, "all");
    push_stat(L, &arr[ACCEL_POOL_SMALL]);
    lua_setfield(L, -2, "small_pool");
    push_stat(L, &arr[ACCEL_POOL_LARGE]);
    lua_setfield(L, -2, "large_pool");
    lua_setfield(L, -2, name);
}

/* the nested form (torch.cuda.memory_stats_as_nested_dict); _accelerator.lua flattens it */
static int l_memory_stats(lua_State *L) {
    int dev = device_arg(L, 1);
    accel_stats s;
    accel_alloc_get_stats(caching(L), dev, &s);
    lua_newtable(L);
    push_pools(L, s.allocation, "allocation");
    push_pools(L, s.segment, "segment");
    push_pools(L, s.active, "active");
    push_pools(L, s.inactive_split, "inactive_split");
    push_pools(L, s.allocated_bytes, "allocated_bytes");
    push_pools(L, s.reserved_bytes, "reserved_bytes");
    push_pools(L, s.active_bytes, "active_bytes");
    push_pools(L, s.inactive_split_bytes, "inactive_split_bytes");
    push_stat(L, &s.oversize_allocations);
    lua_setfield(L, -2, "oversize_allocations");
    push_stat(L, &s.oversize_segments);
    lua_setfield(L, -2, "oversize_segments");
    lua_pushinteger(L, s.num_alloc_retries);
    lua_setfield(L, -2, "num_alloc_retries");
    lua_pushinteger(L, s.num_ooms);
    lua_setfield(L, -2, "num_ooms");
    lua_pushinteger(L, s.max_split_size);
    lua_setfield(L, -2, "max_split_size");
    return 1;
}

static int l_reset_peak(lua_State *L) {
    int dev = device_arg(L, 1);
    accel_alloc_reset_peak(caching(L), dev);
    return 0;
}

static int l_reset_accumulated(lua_State *L) {
    int dev = device_arg(L, 1);
    accel_alloc_reset_accumulated(caching(L), dev);
    return 0;
}

static int l_empty_cache(lua_State *L) {
    if (mod(L)->drv->available(NULL)) /* nothing to do before initialisation */
        accel_alloc_empty_cache(caching(L));
    return 0;
}

static int l_set_fraction(lua_State *L) {
    double f = luaL_checknumber(L, 1);
    int dev = device_arg(L, 2);
    return check(L, accel_alloc_set_fraction(caching(L), f, dev));
}

static void set_int(lua_State *L, const char *k, lua_Integer v) {
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static int l_memory_snapshot(lua_State *L) {
    int n = 0;
    accel_segment_info *segs = accel_alloc_snapshot(caching(L), &n);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        accel_segment_info *s = &segs[i];
        lua_createtable(L, 0, 8);
        set_int(L, "device", s->device);
        set_int(L, "address", (lua_Integer)s->address);
        set_int(L, "total_size", (lua_Integer)s->total_size);
        set_int(L, "allocated_size", (lua_Integer)s->allocated_size);
        set_int(L, "active_size", (lua_Integer)s->active_size);
        set_int(L, "stream", (lua_Integer)s->stream);
        lua_pushstring(L, s->large ? "large" : "small");
        lua_setfield(L, -2, "segment_type");
        lua_createtable(L, s->nblocks, 0);
        for (int j = 0; j < s->nblocks; j++) {
            lua_createtable(L, 0, 2);
            set_int(L, "size", (lua_Integer)s->blocks[j].size);
            lua_pushstring(L, s->blocks[j].state);
            lua_setfield(L, -2, "state");
            lua_rawseti(L, -2, j + 1);
        }
        lua_setfield(L, -2, "blocks");
        lua_rawseti(L, -2, i + 1);
    }
    accel_alloc_free_snapshot(segs, n);
    return 1;
}

/* ---- pinned host memory ------------------------------------------------------------------ */
static int l_host_memory_stats(lua_State *L) {
    accel_host_alloc *h = accel_storage_host_caching(mod(L)->storage);
    accel_host_stats s = {0};
    if (h) accel_host_alloc_get_stats(h, &s);
    lua_createtable(L, 0, 6);
    set_int(L, "allocated_blocks", s.allocated_blocks);
    set_int(L, "allocated_bytes", s.allocated_bytes);
    set_int(L, "cached_blocks", s.cached_blocks);
    set_int(L, "cached_bytes", s.cached_bytes);
    set_int(L, "segments", s.segments);
    set_int(L, "reserved_bytes", s.reserved_bytes);
    return 1;
}

static int l_host_empty_cache(lua_State *L) {
    accel_host_alloc *h = accel_storage_host_caching(mod(L)->storage);
    if (h && mod(L)->drv->available(NULL)) accel_host_alloc_empty_cache(h);
    return 0;
}

/* ---- streams ----------------------------------------------------------------------------- */
/* stream handles in Lua: light userdata of the runtime's stream */
static void *check_stream(lua_State *L, int idx) {
    luaL_checktype(L, idx, LUA_TLIGHTUSERDATA);
    return lua_touserdata(L, idx);
}

static int l_stream_new(lua_State *L) {
    accel_module *m = mod(L);
    int dev = device_arg(L, 1);
    int high = luaL_optinteger(L, 2, 0) < 0; /* priority < 0: the high-priority pool */
    check(L, m->drv->bind(dev));
    pthread_mutex_lock(&m->pool_mu);
    unsigned k = m->stream_next[dev][high]++ % ACCEL_STREAMS_PER_POOL;
    void **slot = &m->stream_pool[dev][high][k];
    if (!*slot && m->drv->stream_create(slot, high ? -1 : 0)) {
        *slot = NULL;
        pthread_mutex_unlock(&m->pool_mu);
        return fail(L);
    }
    lua_pushlightuserdata(L, *slot);
    pthread_mutex_unlock(&m->pool_mu);
    return 1;
}

static int l_current_stream(lua_State *L) {
    void *s = accel_current_stream(mod(L)->drv, device_arg(L, 1));
    if (!s) return fail(L);
    lua_pushlightuserdata(L, s);
    return 1;
}

static int l_default_stream(lua_State *L) {
    void *s = accel_default_stream(mod(L)->drv, device_arg(L, 1));
    if (!s) return fail(L);
    lua_pushlightuserdata(L, s);
    return 1;
}

static int l_set_stream(lua_State *L) {
    int dev = device_arg(L, 1);
    accel_set_current_stream(dev, lua_isnoneornil(L, 2) ? NULL : check_stream(L, 2));
    return 0;
}

/* a stream's handle as an integer (torch.cuda.Stream.cuda_stream's value) */
static int l_stream_address(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)(uintptr_t)check_stream(L, 1));
    return 1;
}

static int l_stream_query(lua_State *L) {
    bool done = false;
    check(L, mod(L)->drv->stream_query(check_stream(L, 1), &done));
    lua_pushboolean(L, done);
    return 1;
}

static int l_stream_synchronize(lua_State *L) {
    return check(L, mod(L)->drv->stream_sync(check_stream(L, 1)));
}

/* record_stream(storage address, stream): the block is reused only after the stream's work */
static int l_record_stream(lua_State *L) {
    void *p = (void *)(uintptr_t)luaL_checkinteger(L, 1);
    return check(L, accel_alloc_record_stream(caching(L), p, check_stream(L, 2)));
}

/* ---- events ------------------------------------------------------------------------------ */
typedef struct levent {
    void *e;
    const accel_driver *drv;
} levent;

static void *check_event(lua_State *L, int idx) {
    char name[64];
    event_mt_name(L, name, sizeof name);
    return ((levent *)luaL_checkudata(L, idx, name))->e;
}

static int l_event_gc(lua_State *L) {
    levent *le = lua_touserdata(L, 1);
    if (le && le->e) le->drv->event_destroy(le->e);
    if (le) le->e = NULL;
    return 0;
}

static int l_event_new(lua_State *L) {
    const accel_driver *d = mod(L)->drv;
    check(L, d->init());
    check(L, d->bind(d->current_device()));
    bool timing = lua_toboolean(L, 1);
    levent *le = lua_newuserdatauv(L, sizeof *le, 0);
    *le = (levent){NULL, d};
    char name[64];
    event_mt_name(L, name, sizeof name);
    luaL_setmetatable(L, name);
    check(L, d->event_create(&le->e, timing));
    return 1;
}

static int l_event_record(lua_State *L) {
    return check(L, mod(L)->drv->event_record(check_event(L, 1), check_stream(L, 2)));
}

static int l_event_query(lua_State *L) {
    bool done = false;
    check(L, mod(L)->drv->event_query(check_event(L, 1), &done));
    lua_pushboolean(L, done);
    return 1;
}

static int l_event_synchronize(lua_State *L) {
    return check(L, mod(L)->drv->event_sync(check_event(L, 1)));
}

static int l_event_wait(lua_State *L) { /* stream waits for the event's recorded work */
    return check(L, mod(L)->drv->stream_wait_event(check_stream(L, 2), check_event(L, 1)));
}

static int l_event_elapsed(lua_State *L) {
    float ms = 0;
    check(L, mod(L)->drv->event_elapsed(check_event(L, 1), check_event(L, 2), &ms));
    lua_pushnumber(L, ms);
    return 1;
}

void accel_lua_register(lua_State *L, accel_module *m) {
    char name[64];
    snprintf(name, sizeof name, "mindtorch.%s.Event", m->drv->type);
    if (luaL_newmetatable(L, name)) {
        lua_pushcfunction(L, l_event_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {
        {"is_available", l_is_available},
        {"device_count", l_device_count},
        {"current_device", l_current_device},
        {"set_device", l_set_device},
        {"init", l_init},
        {"is_initialized", l_is_initialized},
        {"synchronize", l_synchronize},
        {"get_device_properties", l_properties},
        {"can_device_access_peer", l_can_access_peer},
        {"enable_peer_access", l_enable_peer_access},
        {"mem_get_info", l_mem_get_info},
        {"memory_stats", l_memory_stats},
        {"reset_peak_memory_stats", l_reset_peak},
        {"reset_accumulated_memory_stats", l_reset_accumulated},
        {"empty_cache", l_empty_cache},
        {"set_per_process_memory_fraction", l_set_fraction},
        {"memory_snapshot", l_memory_snapshot},
        {"host_memory_stats", l_host_memory_stats},
        {"host_empty_cache", l_host_empty_cache},
        {"stream_new", l_stream_new},
        {"current_stream", l_current_stream},
        {"default_stream", l_default_stream},
        {"set_stream", l_set_stream},
        {"stream_query", l_stream_query},
        {"stream_address", l_stream_address},
        {"stream_synchronize", l_stream_synchronize},
        {"record_stream", l_record_stream},
        {"event_new", l_event_new},
        {"event_record", l_event_record},
        {"event_query", l_event_query},
        {"event_synchronize", l_event_synchronize},
        {"event_wait", l_event_wait},
        {"event_elapsed", l_event_elapsed},
        {NULL, NULL},
    };
    lua_pushlightuserdata(L, m);
    luaL_setfuncs(L, fns, 1);
}
