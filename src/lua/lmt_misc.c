/* lmt_misc.c: module-level functions that are not operators (default dtype, promotion). */
#include "lmt.h"
#include "mt_builtin.h"
#include "mt_parallel.h"
#include "mt_pipeline.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int get_default_dtype(lua_State *L) {
    lmt_push_dtype(L, mt_default_dtype());
    return 1;
}

static int set_default_dtype(lua_State *L) {
    if (mt_set_default_dtype(lmt_check_dtype(L, 1))) return lmt_error(L);
    return 0;
}

static int promote_types(lua_State *L) {
    lmt_push_dtype(L, mt_promote_types(lmt_check_dtype(L, 1), lmt_check_dtype(L, 2)));
    return 1;
}

static int can_cast(lua_State *L) {
    lua_pushboolean(L, mt_can_cast(lmt_check_dtype(L, 1), lmt_check_dtype(L, 2)));
    return 1;
}

static int get_num_threads(lua_State *L) {
    lua_pushinteger(L, mt_get_num_threads());
    return 1;
}

static int set_num_threads(lua_State *L) {
    int64_t n;
    if (lmt_to_int(L, 1, &n))
        return lmt_errorf(L, "set_num_threads expects an int, but got %s", luaL_typename(L, 1));
    if (mt_set_num_threads(n)) return lmt_error(L);
    return 0;
}

/* pipeline mode: the Lua front wraps these as torch.pipeline */
static int pipeline_enter(lua_State *L) {
    if (mt_pipeline_enter()) return lmt_error(L);
    return 0;
}

static int pipeline_exit(lua_State *L) {
    if (mt_pipeline_exit()) return lmt_error(L);
    return 0;
}

static int pipeline_flush(lua_State *L) {
    if (mt_pipeline_flush()) return lmt_error(L);
    return 0;
}

static int pipeline_active(lua_State *L) {
    lua_pushboolean(L, mt_pipeline_active());
    return 1;
}

static int pipeline_pending(lua_State *L) {
    lua_pushinteger(L, mt_pipeline_pending_ops());
    return 1;
}

/* a monotonic clock in seconds, for benchmarks (os.clock is CPU time) */
static int monotonic(lua_State *L) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec * 1e-9);
    return 1;
}

/* _isatty(f): whether f (an open Lua file, or a file descriptor number) is a terminal; false
   for anything else, so that a progress bar draws in place only where '\r' redraws a line */
static int is_atty(lua_State *L) {
    int fd = -1;
    if (lua_isinteger(L, 1)) {
        lua_Integer n = lua_tointeger(L, 1);
        if (n >= 0 && n <= 65535) fd = (int)n;
    } else {
        luaL_Stream *s = (luaL_Stream *)luaL_testudata(L, 1, LUA_FILEHANDLE);
        if (s && s->closef && s->f) fd = fileno(s->f);
    }
    lua_pushboolean(L, fd >= 0 && isatty(fd));
    return 1;
}

/* bytes of CPU tensor memory alive in this process (tests and the memory benchmarks use it) */
static int cpu_allocated_bytes(lua_State *L) {
    lua_pushinteger(L, mt_cpu_allocated_bytes());
    return 1;
}

static int blas_config(lua_State *L) {
    const char *c = mt_builtin_config("cpu"); /* the CPU backend's build: its BLAS */
    lua_pushstring(L, c ? c : "unknown BLAS");
    return 1;
}

void lmt_open_misc(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"get_default_dtype", get_default_dtype},
        {"set_default_dtype", set_default_dtype},
        {"promote_types", promote_types},
        {"can_cast", can_cast},
        {"get_num_threads", get_num_threads},
        {"_pipeline_enter", pipeline_enter},
        {"_pipeline_exit", pipeline_exit},
        {"_pipeline_flush", pipeline_flush},
        {"_pipeline_active", pipeline_active},
        {"_pipeline_pending", pipeline_pending},
        {"set_num_threads", set_num_threads},
        {"_cpu_allocated_bytes", cpu_allocated_bytes},
        {"_gc_mode", lmt_gc_mode},
        {"_gc_collections", lmt_gc_collections},
        {"_monotonic", monotonic},
        {"_isatty", is_atty},
        {"_blas_config", blas_config},
        {NULL, NULL},
    };
    luaL_setfuncs(L, fns, 0);
}
