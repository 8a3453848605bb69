/* lmt_io.c: bytes in and out of tensors: torch.frombuffer (a Lua string's bytes as a tensor)
 * and torch._gunzip (a gzip file's contents, through zlib), what dataset readers need. */
#include "lmt.h"
#include "mt_ops_gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* torch._gunzip(path) -> string */
static int gunzip(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    gzFile f = gzopen(path, "rb");
    if (!f) return lmt_errorf(L, "[Errno %d] %s: '%s'", errno, strerror(errno ? errno : ENOENT), path);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (;;) {
        char *p = luaL_prepbuffsize(&b, 1 << 16);
        int n = gzread(f, p, 1 << 16);
        if (n < 0) {
            int code;
            const char *msg = gzerror(f, &code);
            char copy[256];
            snprintf(copy, sizeof copy, "%s", msg);
            gzclose(f);
            return lmt_errorf(L, "%s: corrupt or truncated gzip data (%s)", path, copy);
        }
        if (n == 0) break;
        luaL_addsize(&b, (size_t)n);
    }
    gzclose(f);
    luaL_pushresult(&b);
    return 1;
}

/* torch.frombuffer(bytes, {dtype=, count=-1, offset=0}): a 1-d tensor with a copy of the
 * bytes (PyTorch's frombuffer shares the buffer; Lua strings are immutable, so a copy) */
static int frombuffer(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    mt_dtype dt = MT_FLOAT32;
    lua_Integer count = -1, offset = 0;
    if (lua_istable(L, 2)) {
        if (lua_getfield(L, 2, "dtype") != LUA_TNIL) dt = lmt_check_dtype(L, -1);
        lua_pop(L, 1);
        if (lua_getfield(L, 2, "count") != LUA_TNIL) count = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
        if (lua_getfield(L, 2, "offset") != LUA_TNIL) offset = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
    }
    size_t isz = mt_dtype_size(dt);
    char msg[256];
    if (offset < 0 || (size_t)offset > len) {
        snprintf(msg, sizeof msg, "offset (%lld bytes) must be non-negative and no greater than buffer length (%zu bytes) minus 1",
                 (long long)offset, len);
        return lmt_errorf(L, "%s", msg);
    }
    size_t avail = len - (size_t)offset;
    if (count < 0) {
        if (avail % isz) {
            snprintf(msg, sizeof msg, "buffer length (%zu bytes) after offset (%lld bytes) must be a multiple of element size (%zu)",
                     avail, (long long)offset, isz);
            return lmt_errorf(L, "%s", msg);
        }
        count = (lua_Integer)(avail / isz);
    } else if ((size_t)count * isz > avail) {
        snprintf(msg, sizeof msg, "requested buffer length (%lld * %zu bytes) after offset (%lld bytes) must not be greater "
                                  "than actual buffer length (%zu bytes)",
                 (long long)count, isz, (long long)offset, len);
        return lmt_errorf(L, "%s", msg);
    }
    int64_t n = count;
    mt_tensor *t = mt_tensor_empty(1, &n, dt, MT_CPU);
    if (!t) return lmt_error(L);
    if (n) memcpy(mt_tensor_raw(t), s + offset, (size_t)n * isz);
    lmt_push_tensor(L, t);
    lmt_gc_hint(L);
    return 1;
}

/* torch._tensor_bytes(t): t's elements as a string, row-major, in the machine's byte order
 * (little-endian on every platform mindtorch builds for) */
static int tensor_bytes(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    if (t->device.type != MT_DEV_CPU) return lmt_errorf(L, "_tensor_bytes: expected a CPU tensor");
    mt_tensor *c = mto_contiguous(t);
    if (!c) return lmt_error(L);
    if (mt_tensor_sync(c)) {
        mt_tensor_decref(c);
        return lmt_error(L);
    }
    size_t n = (size_t)c->numel * mt_dtype_size((mt_dtype)c->dtype);
    lua_pushlstring(L, n ? mt_tensor_raw(c) : "", n);
    mt_tensor_decref(c);
    return 1;
}

/* torch._crc32(s): zlib's CRC-32 of a string */
static int crc32_of(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    uLong c = crc32(0L, Z_NULL, 0);
    while (len > 0) { /* crc32 takes uInt lengths */
        uInt chunk = len > (1u << 30) ? (1u << 30) : (uInt)len;
        c = crc32(c, (const Bytef *)s, chunk);
        s += chunk;
        len -= chunk;
    }
    lua_pushinteger(L, (lua_Integer)c);
    return 1;
}

void lmt_open_io(lua_State *L) {
    static const luaL_Reg fns[] = {{"_gunzip", gunzip},
                                   {"frombuffer", frombuffer},
                                   {"_tensor_bytes", tensor_bytes},
                                   {"_crc32", crc32_of},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
