/* lmt_worker.c: the POSIX process calls DataLoader workers need, as torch._proc: fork, pipes,
 * length-prefixed messages over them (every length read back is checked), poll with a
 * timeout, waitpid, kill and _exit. The messages are what the Lua side encodes (the
 * serialization format of torch.save); nothing read is ever executed.
 *
 * A batch's tensor bytes do not go through the pipe: each in-flight task has a slot, a memfd
 * shared by the parent and the worker (made before the fork). The worker copies the batch's
 * tensors into its slot (growing the file when a batch is larger than any before) and sends
 * only their dtypes and shapes; the parent copies them out into new tensors. The slot's pages
 * stay mapped from batch to batch: no large buffer is allocated, faulted in and freed per
 * batch (on virtual machines a fresh page costs microseconds, hundreds per batch). */
#define _GNU_SOURCE /* memfd_create */
#include "lmt.h"
#include "mt_ops_gen.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

/* the largest message: 16 GiB (a batch larger than that is no batch) */
#define MSG_MAX ((uint64_t)1 << 34)

static int push_errno(lua_State *L, const char *what) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", what, strerror(errno));
    return 2;
}

static int check_fd(lua_State *L, int arg) {
    lua_Integer fd = luaL_checkinteger(L, arg);
    if (fd < 0 || fd > INT32_MAX) luaL_argerror(L, arg, "not a file descriptor");
    return (int)fd;
}

/* _proc.fork() -> pid (0 in the child) or nil, message. stdio is flushed first so the child
 * does not write the parent's buffered output again. */
static int proc_fork(lua_State *L) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return push_errno(L, "fork");
    if (pid == 0) signal(SIGPIPE, SIG_IGN); /* a closed pipe is an error return, not a death */
    lua_pushinteger(L, pid);
    return 1;
}

/* _proc.pipe() -> read fd, write fd (both close-on-exec) */
static int proc_pipe(lua_State *L) {
    int fds[2];
    if (pipe(fds) != 0) return push_errno(L, "pipe");
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
#ifdef F_SETPIPE_SZ
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20); /* best effort: a batch in one go, fewer switches */
#endif
    lua_pushinteger(L, fds[0]);
    lua_pushinteger(L, fds[1]);
    return 2;
}

static int proc_close(lua_State *L) {
    int fd = check_fd(L, 1);
    lua_pushboolean(L, close(fd) == 0);
    return 1;
}

static int write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* _proc.send(fd, s) -> true or nil, message: an 8-byte little-endian length, then s */
static int proc_send(lua_State *L) {
    int fd = check_fd(L, 1);
    size_t len;
    const char *s = luaL_checklstring(L, 2, &len);
    if ((uint64_t)len > MSG_MAX)
        return luaL_error(L, "a message of %I bytes is too large", (lua_Integer)len);
    unsigned char head[8];
    for (int i = 0; i < 8; i++) head[i] = (unsigned char)(((uint64_t)len >> (8 * i)) & 0xff);
    if (write_all(fd, (const char *)head, 8) != 0 || write_all(fd, s, len) != 0)
        return push_errno(L, "send");
    lua_pushboolean(L, 1);
    return 1;
}

/* reads exactly n bytes: 1 done, 0 end of file before any byte, -1 error or a short message */
static int read_all(int fd, char *p, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) {
            if (got == 0) return 0;
            errno = EPIPE;
            return -1;
        }
        got += (size_t)r;
    }
    return 1;
}

/* _proc.recv(fd [, timeout_s]) -> string, or nil, "eof" | "timeout" | message. With a timeout
 * (seconds, > 0), waits at most that long for the message to start. */
static int proc_recv(lua_State *L) {
    int fd = check_fd(L, 1);
    lua_Number timeout = luaL_optnumber(L, 2, 0);
    if (timeout > 0) {
        struct pollfd pfd = {fd, POLLIN, 0};
        double ms = timeout * 1000.0;
        int r;
        do r = poll(&pfd, 1, ms > INT32_MAX ? INT32_MAX : (int)ms);
        while (r < 0 && errno == EINTR);
        if (r < 0) return push_errno(L, "poll");
        if (r == 0) {
            lua_pushnil(L);
            lua_pushliteral(L, "timeout");
            return 2;
        }
    }
    unsigned char head[8];
    int r = read_all(fd, (char *)head, 8);
    if (r == 0) {
        lua_pushnil(L);
        lua_pushliteral(L, "eof");
        return 2;
    }
    if (r < 0) return push_errno(L, "recv");
    uint64_t len = 0;
    for (int i = 0; i < 8; i++) len |= (uint64_t)head[i] << (8 * i);
    if (len > MSG_MAX || len > (uint64_t)SIZE_MAX) {
        lua_pushnil(L);
        lua_pushliteral(L, "recv: a message length past the limit");
        return 2;
    }
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, (size_t)len);
    r = read_all(fd, p, (size_t)len);
    if (r != 1 && len > 0) {
        if (r == 0) errno = EPIPE;
        return push_errno(L, "recv");
    }
    luaL_pushresultsize(&b, (size_t)len);
    return 1;
}

/* _proc.waitpid(pid [, nohang]) -> true, exit code (or -signal) when it ended; false when it
 * still runs (nohang); nil, message on error */
static int proc_waitpid(lua_State *L) {
    lua_Integer pid = luaL_checkinteger(L, 1);
    if (pid <= 0) return luaL_argerror(L, 1, "not a child's pid");
    int nohang = lua_toboolean(L, 2);
    int status = 0;
    pid_t r;
    do r = waitpid((pid_t)pid, &status, nohang ? WNOHANG : 0);
    while (r < 0 && errno == EINTR);
    if (r < 0) return push_errno(L, "waitpid");
    if (r == 0) {
        lua_pushboolean(L, 0);
        return 1;
    }
    lua_pushboolean(L, 1);
    lua_pushinteger(L, WIFEXITED(status)     ? WEXITSTATUS(status)
                       : WIFSIGNALED(status) ? -WTERMSIG(status)
                                             : -1);
    return 2;
}

static int proc_kill(lua_State *L) {
    lua_Integer pid = luaL_checkinteger(L, 1);
    if (pid <= 0) return luaL_argerror(L, 1, "not a child's pid");
    lua_Integer sig = luaL_optinteger(L, 2, SIGKILL);
    lua_pushboolean(L, kill((pid_t)pid, (int)sig) == 0);
    return 1;
}

/* _proc._exit(code): ends a worker at once (no Lua close, no atexit, no stdio flush) */
static int proc_exit(lua_State *L) {
    _exit((int)luaL_optinteger(L, 1, 0));
    return 0;
}

static int proc_getpid(lua_State *L) {
    lua_pushinteger(L, getpid());
    return 1;
}

/* _proc.sleep(seconds) */
static int proc_sleep(lua_State *L) {
    lua_Number s = luaL_checknumber(L, 1);
    if (s > 0) usleep((useconds_t)(s > 1000 ? 1e9 : s * 1e6));
    return 0;
}

/* ---- shared slots ---------------------------------------------------------------------------- */
#define LMT_SLOT "mindtorch.LoaderSlot"
#define SLOT_ALIGN 64 /* each tensor's bytes start on a cache line */

typedef struct {
    int fd;    /* the memfd; -1 once closed */
    char *map; /* this process's mapping of the file's first map_len bytes, or NULL */
    size_t map_len;
} loader_slot;

static loader_slot *check_slot(lua_State *L, int arg) {
    loader_slot *s = luaL_checkudata(L, arg, LMT_SLOT);
    if (s->fd < 0) luaL_argerror(L, arg, "the slot is closed");
    return s;
}

static void slot_unmap(loader_slot *s) {
    if (s->map) munmap(s->map, s->map_len);
    s->map = NULL;
    s->map_len = 0;
}

/* maps the file's first len bytes (the file is at least that long) */
static int slot_map(lua_State *L, loader_slot *s, size_t len) {
    if (s->map && s->map_len >= len) return 0;
    slot_unmap(s);
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
    if (p == MAP_FAILED)
        return luaL_error(L, "DataLoader: could not map a shared slot: %s", strerror(errno));
    s->map = p;
    s->map_len = len;
    return 0;
}

/* _proc.slot() -> a new, empty shared slot */
static int proc_slot(lua_State *L) {
    loader_slot *s = lua_newuserdatauv(L, sizeof *s, 0);
    s->fd = -1;
    s->map = NULL;
    s->map_len = 0;
    luaL_setmetatable(L, LMT_SLOT);
    s->fd = memfd_create("mindtorch-dataloader", MFD_CLOEXEC);
    if (s->fd < 0) return push_errno(L, "memfd_create");
    return 1;
}

/* the byte count of t's elements, and the aligned end after them from off; -1 on overflow */
static int slot_span(mt_tensor *t, size_t off, size_t *nbytes, size_t *end) {
    size_t isz = mt_dtype_size((mt_dtype)t->dtype);
    if (t->numel < 0 || (uint64_t)t->numel > SIZE_MAX / isz) return -1;
    *nbytes = (size_t)t->numel * isz;
    size_t e = off + *nbytes;
    if (e < off || e > SIZE_MAX - SLOT_ALIGN) return -1;
    *end = (e + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN;
    return 0;
}

/* the tensors of the list at arg (CPU tensors), checked */
static mt_tensor *slot_tensor(lua_State *L, int arg, lua_Integer i) {
    lua_geti(L, arg, i);
    mt_tensor *t = lmt_box_tensor(L, -1);
    lua_pop(L, 1); /* the list keeps it alive */
    if (!t || t->device.type != MT_DEV_CPU)
        luaL_error(L, "DataLoader: a shared slot holds CPU tensors only (item %d)", (int)i);
    return t;
}

/* slot:put(tensors) -> bytes used: the tensors' elements, row-major, each from a 64-byte
 * boundary; the file grows (doubling) when they do not fit */
static int slot_put(lua_State *L) {
    loader_slot *s = check_slot(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 2);
    size_t total = 0, nb;
    for (lua_Integer i = 1; i <= n; i++)
        if (slot_span(slot_tensor(L, 2, i), total, &nb, &total))
            return luaL_error(L, "DataLoader: a batch too large for shared memory");
    struct stat st;
    if (fstat(s->fd, &st) != 0) return push_errno(L, "fstat");
    size_t have = (size_t)st.st_size;
    if (total > have) {
        size_t want = have > SIZE_MAX / 2 ? total : have * 2;
        if (want < total) want = total;
        if (ftruncate(s->fd, (off_t)want) != 0)
            return push_errno(L, "DataLoader: could not grow a shared slot");
        have = want;
    }
    if (total) slot_map(L, s, have);
    size_t off = 0;
    for (lua_Integer i = 1; i <= n; i++) {
        mt_tensor *t = slot_tensor(L, 2, i);
        mt_tensor *c = mto_contiguous(t, NULL);
        if (!c || mt_tensor_sync(c)) {
            if (c) mt_tensor_decref(c);
            return lmt_error(L);
        }
        size_t end = off;
        slot_span(c, off, &nb, &end);
        if (nb) memcpy(s->map + off, mt_tensor_raw(c), nb);
        mt_tensor_decref(c);
        off = end;
    }
    lua_pushinteger(L, (lua_Integer)total);
    return 1;
}

/* slot:get(tensors, total): fills the (new, contiguous) tensors from the slot, as put laid
 * them out; total is what put returned, and both it and the layout are checked against the
 * file's size before a byte is read */
static int slot_get(lua_State *L) {
    loader_slot *s = check_slot(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer claimed = luaL_checkinteger(L, 3);
    lua_Integer n = luaL_len(L, 2);
    size_t total = 0, nb;
    for (lua_Integer i = 1; i <= n; i++) {
        mt_tensor *t = slot_tensor(L, 2, i);
        if (!mt_tensor_is_contiguous(t))
            return luaL_error(L, "DataLoader: slot:get needs contiguous tensors");
        if (slot_span(t, total, &nb, &total))
            return luaL_error(L, "DataLoader: a batch too large for shared memory");
    }
    struct stat st;
    if (fstat(s->fd, &st) != 0) return push_errno(L, "fstat");
    if (claimed < 0 || (uint64_t)claimed != (uint64_t)total || total > (size_t)st.st_size)
        return luaL_error(L, "DataLoader: a worker's batch does not match its shared slot");
    if (total) slot_map(L, s, (size_t)st.st_size);
    size_t off = 0;
    for (lua_Integer i = 1; i <= n; i++) {
        mt_tensor *t = slot_tensor(L, 2, i);
        if (mt_tensor_sync(t)) return lmt_error(L);
        size_t end = off;
        slot_span(t, off, &nb, &end);
        if (nb) memcpy(mt_tensor_raw(t), s->map + off, nb);
        off = end;
    }
    return 0;
}

/* slot:close() (and __gc, __close): unmaps and closes; a worker's copy closes its own */
static int slot_close(lua_State *L) {
    loader_slot *s = luaL_checkudata(L, 1, LMT_SLOT);
    slot_unmap(s);
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    return 0;
}

void lmt_open_worker(lua_State *L) {
    static const luaL_Reg slot_methods[] = {
        {"put", slot_put}, {"get", slot_get}, {"close", slot_close}, {NULL, NULL}};
    if (luaL_newmetatable(L, LMT_SLOT)) {
        luaL_newlib(L, slot_methods);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, slot_close);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, slot_close);
        lua_setfield(L, -2, "__close");
    }
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {
        {"fork", proc_fork},   {"pipe", proc_pipe},  {"close", proc_close},
        {"send", proc_send},   {"recv", proc_recv},  {"waitpid", proc_waitpid},
        {"kill", proc_kill},   {"_exit", proc_exit}, {"getpid", proc_getpid},
        {"sleep", proc_sleep}, {"slot", proc_slot},  {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "_proc");
}
