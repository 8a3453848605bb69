/* lmt_io.c: bytes in and out of tensors: torch.frombuffer (a Lua string's bytes as a tensor)
 * and torch._gunzip (a gzip file's contents, through zlib, bounded), what file readers need,
 * and torch._fsync (what makes torch.save durable). */
#include "lmt.h"
#include "mt_ops_gen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* a Lua error from a printf format (lua_pushfstring knows no %lld or %zu): the core's error
 * slot formats it, lmt_error raises it */
#define io_errorf(L, ...) (mt_error(MT_ERR_RUNTIME, __VA_ARGS__), lmt_error(L))

/* torch._gunzip(path [, max [, head]]) -> string: the inflated contents of a gzip file (a
 * plain file is read as it is). With max, at most max bytes are inflated: more is an error,
 * or with head, the first max bytes are the answer. Readers of untrusted files pass the size
 * the file's own header implies, so a small bomb never inflates into memory. */
static int gunzip(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    lua_Integer max = luaL_optinteger(L, 2, -1);
    int head = lua_toboolean(L, 3);
    if (lua_gettop(L) >= 2 && !lua_isnil(L, 2) && max < 0)
        return io_errorf(L, "_gunzip: max must be non-negative, got %lld", (long long)max);
    errno = 0;
    gzFile f = gzopen(path, "rb");
    if (!f)
        return io_errorf(L, "[Errno %d] %s: '%s'", errno ? errno : ENOENT,
                         strerror(errno ? errno : ENOENT), path);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t got = 0;
    for (;;) {
        if (head && max >= 0 && got == (size_t)max) break;
        size_t want = 1 << 16;
        /* one byte past max is enough to know the data is longer than allowed */
        if (max >= 0 && want > (size_t)max - got + 1) want = (size_t)max - got + 1;
        char *p = luaL_prepbuffsize(&b, want);
        int n = gzread(f, p, (unsigned)want);
        if (n < 0) {
            int code;
            char copy[256];
            snprintf(copy, sizeof copy, "%s", gzerror(f, &code));
            gzclose(f);
            return io_errorf(L, "%s: corrupt or truncated gzip data (%s)", path, copy);
        }
        if (n == 0) break;
        got += (size_t)n;
        if (max >= 0 && got > (size_t)max) {
            if (!head) {
                gzclose(f);
                return io_errorf(
                    L, "%s: inflated data is longer than the %lld bytes its header allows", path,
                    (long long)max);
            }
            n -= (int)(got - (size_t)max);
            got = (size_t)max;
        }
        luaL_addsize(&b, (size_t)n);
    }
    gzclose(f);
    luaL_pushresult(&b);
    return 1;
}

/* torch.frombuffer(bytes, {dtype=, count=-1, offset=0}): a 1-d tensor with a copy of the
 * bytes (PyTorch's frombuffer shares the buffer; Lua strings are immutable, so a copy). The
 * checks and their wording are PyTorch's, in its order; counts below -1 (which PyTorch takes
 * as -1) and counts whose byte length overflows are refused. */
static int frombuffer(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    mt_dtype dt = MT_FLOAT32;
    lua_Integer count = -1, offset = 0;
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
    if (lua_istable(L, 2)) {
        if (lua_getfield(L, 2, "dtype") != LUA_TNIL) dt = lmt_check_dtype(L, -1);
        lua_pop(L, 1);
        if (lua_getfield(L, 2, "count") != LUA_TNIL) count = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
        if (lua_getfield(L, 2, "offset") != LUA_TNIL) offset = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
    }
    size_t isz = mt_dtype_size(dt);
    if (count < -1)
        return io_errorf(L, "count must be -1 or a non-negative number of elements, got %lld",
                         (long long)count);
    if (len == 0 || count == 0)
        return io_errorf(L, "both buffer length (%zu) and count (%lld) must not be 0", len,
                         (long long)count);
    if (offset < 0 || (size_t)offset >= len)
        return io_errorf(L,
                         "offset (%lld bytes) must be non-negative and no greater than buffer "
                         "length (%zu bytes) minus 1",
                         (long long)offset, len);
    size_t avail = len - (size_t)offset;
    if (count < 0) {
        if (avail % isz)
            return io_errorf(L,
                             "buffer length (%zu bytes) after offset (%lld bytes) must be a "
                             "multiple of element size (%zu)",
                             avail, (long long)offset, isz);
        count = (lua_Integer)(avail / isz);
    } else if ((size_t)count > avail / isz) { /* a division: count * isz may overflow */
        return io_errorf(L,
                         "requested buffer length (%lld * %zu bytes) after offset (%lld bytes) "
                         "must not be greater "
                         "than actual buffer length (%zu bytes)",
                         (long long)count, isz, (long long)offset, len);
    }
    int64_t n = count;
    mt_tensor *t = mt_tensor_empty(1, &n, dt, MT_CPU);
    if (!t) return lmt_error(L);
    if (n) memcpy(mt_tensor_raw(t), s + offset, (size_t)n * isz);
    lmt_push_tensor(L, t);
    lmt_gc_hint(L);
    return 1;
}

/* torch._fsync(file or path): flush a Lua file's buffers and fsync it, or fsync the file or
 * directory at path (what makes a rename durable); errors carry errno's text */
static int fsync_of(lua_State *L) {
    int fd, own = 0;
    if (lua_type(L, 1) == LUA_TSTRING) {
        const char *path = lua_tostring(L, 1);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return io_errorf(L, "[Errno %d] %s: '%s'", errno, strerror(errno), path);
        own = 1;
    } else {
        luaL_Stream *st = luaL_checkudata(L, 1, LUA_FILEHANDLE);
        if (!st->closef || !st->f) return io_errorf(L, "_fsync: the file is closed");
        if (fflush(st->f) != 0) return io_errorf(L, "[Errno %d] %s", errno, strerror(errno));
        fd = fileno(st->f);
    }
    int rc = fsync(fd), err = errno;
    if (own) close(fd);
    /* directories on some file systems do not support fsync: nothing to make durable there */
    if (rc != 0 && err != EINVAL && err != EROFS)
        return io_errorf(L, "[Errno %d] %s", err, strerror(err));
    return 0;
}

/* torch._tensor_bytes(t): t's elements as a string, row-major, in the machine's byte order
 * (little-endian on every platform mindtorch builds for) */
static int tensor_bytes(lua_State *L) {
    mt_tensor *t = lmt_check_tensor(L, 1);
    if (t->device.type != MT_DEV_CPU) return io_errorf(L, "_tensor_bytes: expected a CPU tensor");
    mt_tensor *c = mto_contiguous(t, NULL);
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
    static const luaL_Reg fns[] = {
        {"_gunzip", gunzip},  {"frombuffer", frombuffer}, {"_tensor_bytes", tensor_bytes},
        {"_crc32", crc32_of}, {"_fsync", fsync_of},       {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
