/* npu_lua.c: the NPU module as a Lua C module (require "mindtorch.npu_backend"): the raw
 * functions under torch.npu (lua/mindtorch/npu.lua shapes them into torch.cuda's API). */
#include <lauxlib.h>
#include <lua.h>
#include <pthread.h>

#include "npu_alloc.h"

MT_API int mt_npu_backend_init(void);

/* errors: mindtorch's message as a Lua error */
static int fail(lua_State *L) {
    return luaL_error(L, "%s", mt_error_msg());
}

static int check_device_arg(lua_State *L, int idx) {
    int d = lua_isnoneornil(L, idx) ? npu_current_device() : (int)luaL_checkinteger(L, idx);
    if (npu_check_device(d)) fail(L);
    return d;
}

static int l_is_available(lua_State *L) {
    const char *why;
    bool ok = npu_available(&why);
    lua_pushboolean(L, ok);
    lua_pushstring(L, ok ? "" : why);
    return 2;
}

static int l_device_count(lua_State *L) {
    lua_pushinteger(L, npu_device_count());
    return 1;
}

static int l_current_device(lua_State *L) {
    if (npu_ensure()) return fail(L);
    lua_pushinteger(L, npu_current_device());
    return 1;
}

static int l_set_device(lua_State *L) {
    if (npu_set_device((int)luaL_checkinteger(L, 1))) return fail(L);
    return 0;
}

static int l_synchronize(lua_State *L) {
    int d = check_device_arg(L, 1);
    if (npu_bind(d)) return fail(L);
    aclError e = npu_acl.aclrtSynchronizeDevice();
    if (e != ACL_SUCCESS) {
        npu_acl_error(e, "aclrtSynchronizeDevice");
        return fail(L);
    }
    return 0;
}

static int l_get_device_name(lua_State *L) {
    check_device_arg(L, 1);
    const char *n = npu_acl.aclrtGetSocName();
    lua_pushstring(L, n ? n : "Ascend");
    return 1;
}

static int l_mem_get_info(lua_State *L) {
    int d = check_device_arg(L, 1);
    size_t free_b = 0, total = 0;
    if (npu_bind(d)) return fail(L);
    aclError e = npu_acl.aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total);
    if (e != ACL_SUCCESS) {
        npu_acl_error(e, "aclrtGetMemInfo");
        return fail(L);
    }
    lua_pushinteger(L, (lua_Integer)free_b);
    lua_pushinteger(L, (lua_Integer)total);
    return 2;
}

/* ---- memory statistics ------------------------------------------------------------------------
 */
static void push_stat(lua_State *L, const npu_stat *s) {
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

static void push_pools(lua_State *L, const npu_stat arr[NPU_NPOOLS], const char *name) {
    lua_createtable(L, 0, 3);
    push_stat(L, &arr[NPU_POOL_ALL]);
    lua_setfield(L, -2, "all");
    push_stat(L, &arr[NPU_POOL_SMALL]);
    lua_setfield(L, -2, "small_pool");
    push_stat(L, &arr[NPU_POOL_LARGE]);
    lua_setfield(L, -2, "large_pool");
    lua_setfield(L, -2, name);
}

/* the nested form (torch.cuda.memory_stats_as_nested_dict); npu.lua flattens it */
static int l_memory_stats(lua_State *L) {
    int d = check_device_arg(L, 1);
    npu_stats s;
    npu_alloc_get_stats(d, &s);
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
    npu_alloc_reset_peak(check_device_arg(L, 1));
    return 0;
}

static int l_reset_accumulated(lua_State *L) {
    npu_alloc_reset_accumulated(check_device_arg(L, 1));
    return 0;
}

static int l_empty_cache(lua_State *L) {
    const char *why;
    if (npu_available(&why)) npu_alloc_empty_cache(); /* nothing to do before initialisation */
    return 0;
}

static int l_set_fraction(lua_State *L) {
    double f = luaL_checknumber(L, 1);
    int d = check_device_arg(L, 2);
    if (npu_alloc_set_fraction(f, d)) return fail(L);
    return 0;
}

static int l_memory_snapshot(lua_State *L) {
    int n = 0;
    npu_segment_info *segs = npu_alloc_snapshot(&n);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        npu_segment_info *s = &segs[i];
        lua_createtable(L, 0, 8);
        lua_pushinteger(L, s->device);
        lua_setfield(L, -2, "device");
        lua_pushinteger(L, (lua_Integer)s->address);
        lua_setfield(L, -2, "address");
        lua_pushinteger(L, (lua_Integer)s->total_size);
        lua_setfield(L, -2, "total_size");
        lua_pushinteger(L, (lua_Integer)s->allocated_size);
        lua_setfield(L, -2, "allocated_size");
        lua_pushinteger(L, (lua_Integer)s->active_size);
        lua_setfield(L, -2, "active_size");
        lua_pushinteger(L, (lua_Integer)s->stream);
        lua_setfield(L, -2, "stream");
        lua_pushstring(L, s->large ? "large" : "small");
        lua_setfield(L, -2, "segment_type");
        lua_createtable(L, s->nblocks, 0);
        for (int j = 0; j < s->nblocks; j++) {
            lua_createtable(L, 0, 2);
            lua_pushinteger(L, (lua_Integer)s->blocks[j].size);
            lua_setfield(L, -2, "size");
            lua_pushstring(L, s->blocks[j].state);
            lua_setfield(L, -2, "state");
            lua_rawseti(L, -2, j + 1);
        }
        lua_setfield(L, -2, "blocks");
        lua_rawseti(L, -2, i + 1);
    }
    npu_alloc_free_snapshot(segs, n);
    return 1;
}

/* ---- streams: per device, pools of streams handed out round-robin (as torch.cuda's) -----------
 */
enum { STREAMS_PER_POOL = 4 };
static aclrtStream stream_pool[NPU_MAX_DEVICES][2][STREAMS_PER_POOL];
static unsigned stream_next[NPU_MAX_DEVICES][2];
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;

/* stream handles in Lua: light userdata of the aclrtStream */
static aclrtStream check_stream(lua_State *L, int idx) {
    luaL_checktype(L, idx, LUA_TLIGHTUSERDATA);
    return lua_touserdata(L, idx);
}

static int l_stream_new(lua_State *L) {
    int d = check_device_arg(L, 1);
    int high = luaL_optinteger(L, 2, 0) < 0; /* priority < 0: the high-priority pool */
    if (npu_bind(d)) return fail(L);
    pthread_mutex_lock(&pool_mu);
    unsigned k = stream_next[d][high]++ % STREAMS_PER_POOL;
    aclrtStream *slot = &stream_pool[d][high][k];
    if (!*slot) {
        aclError e = npu_acl.aclrtCreateStreamWithConfig(
            slot, high ? 0 : 1, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC);
        if (e != ACL_SUCCESS) {
            *slot = NULL;
            pthread_mutex_unlock(&pool_mu);
            npu_acl_error(e, "aclrtCreateStreamWithConfig");
            return fail(L);
        }
    }
    lua_pushlightuserdata(L, *slot);
    pthread_mutex_unlock(&pool_mu);
    return 1;
}

static int l_current_stream(lua_State *L) {
    int d = check_device_arg(L, 1);
    aclrtStream s = npu_current_stream(d);
    if (!s) return fail(L);
    lua_pushlightuserdata(L, s);
    return 1;
}

static int l_default_stream(lua_State *L) {
    int d = check_device_arg(L, 1);
    aclrtStream s = npu_default_stream(d);
    if (!s) return fail(L);
    lua_pushlightuserdata(L, s);
    return 1;
}

static int l_set_stream(lua_State *L) {
    int d = check_device_arg(L, 1);
    npu_set_current_stream(d, lua_isnoneornil(L, 2) ? NULL : check_stream(L, 2));
    return 0;
}

static int acl_result(lua_State *L, aclError e, const char *what) {
    if (e != ACL_SUCCESS) {
        npu_acl_error(e, what);
        return fail(L);
    }
    return 0;
}

static int l_stream_query(lua_State *L) {
    aclrtStreamStatus st;
    acl_result(L, npu_acl.aclrtStreamQuery(check_stream(L, 1), &st), "aclrtStreamQuery");
    lua_pushboolean(L, st == ACL_STREAM_STATUS_COMPLETE);
    return 1;
}

/* record_stream(storage address, stream): the block is reused only after the stream's work */
static int l_record_stream(lua_State *L) {
    void *p = (void *)(uintptr_t)luaL_checkinteger(L, 1);
    if (npu_alloc_record_stream(p, check_stream(L, 2))) return fail(L);
    return 0;
}

static int l_stream_synchronize(lua_State *L) {
    return acl_result(L, npu_acl.aclrtSynchronizeStream(check_stream(L, 1)),
                      "aclrtSynchronizeStream");
}

/* ---- events -----------------------------------------------------------------------------------
 */
static const char *EVENT_MT = "mindtorch.npu.Event";

typedef struct levent {
    aclrtEvent e;
} levent;

static aclrtEvent check_event(lua_State *L, int idx) {
    levent *le = luaL_checkudata(L, idx, EVENT_MT);
    return le->e;
}

static int l_event_new(lua_State *L) {
    if (npu_ensure() || npu_bind(npu_current_device())) return fail(L);
    bool timing = lua_toboolean(L, 1);
    levent *le = lua_newuserdatauv(L, sizeof *le, 0);
    le->e = NULL;
    luaL_setmetatable(L, EVENT_MT);
    acl_result(L,
               npu_acl.aclrtCreateEventWithFlag(&le->e, ACL_EVENT_SYNC |
                                                            (timing ? ACL_EVENT_TIME_LINE : 0)),
               "aclrtCreateEventWithFlag");
    return 1;
}

static int l_event_gc(lua_State *L) {
    levent *le = luaL_checkudata(L, 1, EVENT_MT);
    if (le->e) npu_acl.aclrtDestroyEvent(le->e);
    le->e = NULL;
    return 0;
}

static int l_event_record(lua_State *L) {
    return acl_result(L, npu_acl.aclrtRecordEvent(check_event(L, 1), check_stream(L, 2)),
                      "aclrtRecordEvent");
}

static int l_event_query(lua_State *L) {
    aclrtEventRecordedStatus st;
    acl_result(L, npu_acl.aclrtQueryEventStatus(check_event(L, 1), &st), "aclrtQueryEventStatus");
    lua_pushboolean(L, st == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    return 1;
}

static int l_event_synchronize(lua_State *L) {
    return acl_result(L, npu_acl.aclrtSynchronizeEvent(check_event(L, 1)), "aclrtSynchronizeEvent");
}

static int l_event_wait(lua_State *L) { /* stream waits for the event's recorded work */
    return acl_result(L, npu_acl.aclrtStreamWaitEvent(check_stream(L, 2), check_event(L, 1)),
                      "aclrtStreamWaitEvent");
}

static int l_event_elapsed(lua_State *L) {
    float ms = 0;
    acl_result(L, npu_acl.aclrtEventElapsedTime(&ms, check_event(L, 1), check_event(L, 2)),
               "aclrtEventElapsedTime");
    lua_pushnumber(L, ms);
    return 1;
}

MT_API int luaopen_mindtorch_npu_backend(lua_State *L) {
    if (mt_npu_backend_init()) return luaL_error(L, "%s", mt_error_msg());
    if (luaL_newmetatable(L, EVENT_MT)) {
        lua_pushcfunction(L, l_event_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {
        {"is_available", l_is_available},
        {"device_count", l_device_count},
        {"current_device", l_current_device},
        {"set_device", l_set_device},
        {"synchronize", l_synchronize},
        {"get_device_name", l_get_device_name},
        {"mem_get_info", l_mem_get_info},
        {"memory_stats", l_memory_stats},
        {"reset_peak_memory_stats", l_reset_peak},
        {"reset_accumulated_memory_stats", l_reset_accumulated},
        {"empty_cache", l_empty_cache},
        {"set_per_process_memory_fraction", l_set_fraction},
        {"memory_snapshot", l_memory_snapshot},
        {"stream_new", l_stream_new},
        {"current_stream", l_current_stream},
        {"default_stream", l_default_stream},
        {"set_stream", l_set_stream},
        {"stream_query", l_stream_query},
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
    luaL_newlib(L, fns);
    return 1;
}
