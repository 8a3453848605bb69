/* fuzz_lua.h: what the Lua-driven fuzz targets share: one lua_State per process with
 * mindtorch opened through the embedding API, the input written to a private temporary file,
 * and a Lua checker that must answer nil (a correct result or a clear error) for every input.
 * Any other answer is a finding: the target prints it and aborts, so libFuzzer keeps the input. */
#ifndef FUZZ_LUA_H
#define FUZZ_LUA_H

#include <lauxlib.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mindtorch.h"

/* Lua shared by the checkers: clear(err, prefixes...) is true when err names the file and
 * says what is wrong with it; touch(v) reads every element of every tensor in v (a tensor
 * whose geometry outruns its storage shows up there, under AddressSanitizer; of a tensor past 2^20
 * elements, a broadcast view that may be huge, its last element), each table once
 * (loaded object graphs share tables and have cycles), with raw next (no __pairs runs). */
static const char FUZZ_LUA_PRELUDE[] =
    "function clear(err, ...)\n"
    "  if type(err) ~= 'string' then return false end\n"
    "  for _, p in ipairs({...}) do if err:find(p, 1, true) then return true end end\n"
    "  return false\n"
    "end\n"
    /* torch.load's errors for a bad file: it picks the reader by the first bytes, so a mutated
       file of one format may reach any of them */
    "function load_error_clear(err)\n"
    "  return clear(err, 'not a valid mindtorch file', 'is not defined: require or declare',\n"
    "               'not a valid PyTorch checkpoint', 'Weights only load failed', 'tar format',\n"
    "               'Attempting to deserialize object on a')\n"
    "end\n"
    "function touch(v, depth, seen)\n"
    "  depth, seen = depth or 0, seen or {}\n"
    "  if depth > 300 then error('nested deeper than the loaders allow') end\n"
    "  if torch.is_tensor(v) then\n"
    "    local n = 1\n"
    "    for i = 1, v:dim() do n = n * v.shape[i] end\n"
    "    if n ~= v:numel() then error('numel does not match the shape') end\n"
    "    if n > (1 << 20) then\n" /* a broadcast view (stride 0) may be huge: its last element */
    "      local last = {}\n"
    "      for i = 1, v:dim() do last[i] = v.shape[i] end\n"
    "      v[last]:item()\n"
    "    elseif n > 0 then v:to(torch.float64):sum():item() end\n"
    "  elseif type(v) == 'table' and not seen[v] then\n"
    "    seen[v] = true\n"
    "    for k, x in next, v do touch(k, depth + 1, seen) touch(x, depth + 1, seen) end\n"
    "  end\n"
    "end\n";

/* Lua line coverage for libFuzzer: the interpreter is not instrumented, so a line hook counts
 * (previous line, line) pairs of the readers' Lua code in libFuzzer's extra counters; inputs
 * that take new paths through the Lua readers are kept like those that reach new C code. */
#define FUZZ_LUA_COUNTERS 65536
__attribute__((
    used,
    section("__libfuzzer_extra_counters"))) static uint8_t fuzz_lua_counters[FUZZ_LUA_COUNTERS];
static uintptr_t fuzz_prev_line;

static inline void fuzz_line_hook(lua_State *L, lua_Debug *ar) {
    /* the chunk's source string (interned: one address per file) and the line, never the
     * closure, which the readers create anew on each call */
    if (!lua_getinfo(L, "S", ar)) return;
    uintptr_t here = (uintptr_t)ar->source * 31u ^ (uintptr_t)ar->currentline * 2654435761u;
    fuzz_lua_counters[(here ^ fuzz_prev_line >> 1) % FUZZ_LUA_COUNTERS]++;
    fuzz_prev_line = here;
}

static lua_State *fuzz_L;
static char fuzz_path[64];
static int fuzz_runs;

static inline void fuzz_cleanup(void) {
    if (fuzz_path[0]) unlink(fuzz_path);
}

/* Open mindtorch once (the core module from this binary, the Lua files next to the library)
 * and compile the target's checker, a chunk that receives the input's path and its bytes. */
static inline void fuzz_lua_init(const char *checker, const char *suffix) {
    if (fuzz_L) return;
    fuzz_L = luaL_newstate();
    luaL_openlibs(fuzz_L);
    luaL_getsubtable(fuzz_L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(fuzz_L, mt_lua_open); /* luaopen style: what core.so would run */
    lua_setfield(fuzz_L, -2, "mindtorch.core");
    lua_pop(fuzz_L, 1);
    if (mt_open(fuzz_L)) {
        fprintf(stderr, "fuzz: %s\n", mt_error_msg());
        abort();
    }
    if (luaL_dostring(fuzz_L, FUZZ_LUA_PRELUDE) || luaL_loadstring(fuzz_L, checker)) {
        fprintf(stderr, "fuzz: %s\n", lua_tostring(fuzz_L, -1));
        abort();
    }
    lua_setglobal(fuzz_L, "fuzz_check");
    const char *dir = getenv("TMPDIR");
    snprintf(fuzz_path, sizeof fuzz_path, "%s/mtfuzz-XXXXXX%s",
             dir && strlen(dir) < 32 ? dir : "/tmp", suffix);
    int fd = mkstemps(fuzz_path, (int)strlen(suffix));
    if (fd < 0) abort();
    close(fd);
    atexit(fuzz_cleanup);
}

/* Write the input to the temporary file and run the checker on it; abort on a finding. */
static inline void fuzz_lua_run(const uint8_t *data, size_t size) {
    FILE *f = fopen(fuzz_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
    lua_State *L = fuzz_L;
    lua_getglobal(L, "fuzz_check");
    lua_pushstring(L, fuzz_path);
    lua_pushlstring(L, (const char *)data, size);
    fuzz_prev_line = 0;
    lua_sethook(L, fuzz_line_hook, LUA_MASKLINE, 0);
    int status = lua_pcall(L, 2, 1, 0);
    lua_sethook(L, NULL, 0, 0);
    if (status != LUA_OK || !lua_isnil(L, -1)) {
        fprintf(stderr, "fuzz: finding: %s\n", lua_tostring(L, -1));
        abort();
    }
    lua_pop(L, 1);
    /* a full collection now and then keeps the tensors of earlier inputs from piling up */
    if (++fuzz_runs % 64 == 0) lua_gc(L, LUA_GCCOLLECT);
}

#endif
