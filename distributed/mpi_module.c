/* mpi_module.c: `require "mindtorch.distributed_mpi"`, the MPI transport under
 * torch.distributed (lua/mindtorch/distributed/init.lua holds the PyTorch-shaped API; this
 * file only moves bytes). Its own shared object, linked with Open MPI's libmpi: the core and
 * `require "mindtorch"` never load MPI.
 *
 * Each collective runs in one of two ways. Given a timeout (the synchronous calls), it is MPI's
 * blocking form, whose tuned algorithms are up to twice as fast as the non-blocking ones on
 * shared memory, watched by a thread: past the timeout the watchdog prints which call timed
 * out and ends the process (status 1), and mpirun then ends every rank, as PyTorch's NCCL
 * watchdog does. Without one (async_op), it is MPI's non-blocking form returning a request;
 * waiting is a loop of MPI_Test with a deadline, ending in a Lua error. Communicators return
 * MPI errors (MPI_ERRORS_RETURN) and each becomes a Lua error naming the call.
 *
 * Tensors come in through the embedding API (mindtorch.h): the Lua side passes contiguous CPU
 * tensors, and a request keeps every tensor it reads or writes referenced until it completes.
 * float16 and bfloat16 travel as 2-byte MPI types of their own, reduced by user-defined ops;
 * bool is MPI_C_BOOL, reduced with MPI's logical ops (the Lua side maps the ReduceOp). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <lauxlib.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <lua.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mindtorch.h"
#include "mt_half.h"

#define COMM_MT "mindtorch.mpi.Comm"
#define REQ_MT "mindtorch.mpi.Request"

static MPI_Datatype half_type = MPI_DATATYPE_NULL, bf16_type = MPI_DATATYPE_NULL;
static MPI_Op op_sum, op_prod, op_min, op_max; /* for half_type and bf16_type */
static bool initialized_here;

/* ---- errors ---------------------------------------------------------------------------------- */
static int mpi_fail(lua_State *L, const char *call, int rc) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
    text[len] = 0;
    return luaL_error(L, "MPI error in %s: %s", call, len ? text : "unknown error");
}
#define CHECK_MPI(L, call, expr)                                                                   \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ != MPI_SUCCESS) return mpi_fail(L, call, rc_);                                     \
    } while (0)

static void need_init(lua_State *L) {
    int done = 0, finalized = 0;
    MPI_Initialized(&done);
    MPI_Finalized(&finalized);
    if (!done || finalized) luaL_error(L, "MPI is not initialized: call init_process_group first");
}

/* ---- the watchdog of blocking calls ------------------------------------------------------------
 * Arming and disarming are a few atomic stores (no signal, no wake-up: the ranks of a job often
 * share cores, and a thread woken per call costs them microseconds). The watchdog looks every
 * 50 ms; a generation count tells it the deadline it read belongs to the call still running. */
#include <stdatomic.h>

static struct {
    atomic_bool started;
    atomic_uint gen; /* odd while a call is armed */
    _Atomic double deadline;
    _Atomic(const char *) call;
    _Atomic double timeout_s;
    atomic_int rank;
} dog;

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *watchdog(void *arg) {
    (void)arg;
    for (;;) {
        struct timespec nap = {0, 50 * 1000 * 1000};
        nanosleep(&nap, NULL);
        unsigned g1 = atomic_load(&dog.gen);
        if (!(g1 & 1)) continue;
        double deadline = atomic_load(&dog.deadline);
        const char *call = atomic_load(&dog.call);
        double timeout_s = atomic_load(&dog.timeout_s);
        if (mono_s() < deadline || atomic_load(&dog.gen) != g1) continue;
        fprintf(
            stderr,
            "[Rank %d] Watchdog caught collective operation timeout: %s ran for %.0f milliseconds "
            "before timing out; ending this rank (mpirun ends the others)\n",
            atomic_load(&dog.rank), call, timeout_s * 1000.0);
        fflush(stderr);
        _exit(1);
    }
    return NULL;
}

static void dog_arm(const char *call, double timeout_s) {
    if (!atomic_load(&dog.started)) return;
    atomic_store(&dog.deadline, mono_s() + timeout_s);
    atomic_store(&dog.call, call);
    atomic_store(&dog.timeout_s, timeout_s);
    atomic_fetch_add(&dog.gen, 1); /* odd: armed, with the values above */
}

static void dog_disarm(void) {
    if (!atomic_load(&dog.started)) return;
    atomic_fetch_add(&dog.gen, 1);
}

static void dog_start(void) {
    if (atomic_load(&dog.started)) return;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    atomic_store(&dog.rank, rank);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, watchdog, NULL) == 0) atomic_store(&dog.started, true);
    pthread_attr_destroy(&attr);
}

/* ---- half-precision reductions ----------------------------------------------------------------
 */
typedef float (*load_fn)(uint16_t);
typedef uint16_t (*store_fn)(float);

static void reduce_halves(void *in, void *inout, int *len, MPI_Datatype *dt, int kind) {
    load_fn ld = *dt == bf16_type ? mt_bf16_to_f32 : mt_f16_to_f32;
    store_fn st = *dt == bf16_type ? mt_f32_to_bf16 : mt_f32_to_f16;
    const uint16_t *a = in;
    uint16_t *b = inout;
    for (int i = 0; i < *len; i++) {
        float x = ld(a[i]), y = ld(b[i]), r;
        switch (kind) {
        case 0:
            r = x + y;
            break;
        case 1:
            r = x * y;
            break;
        case 2:
            r = (x < y || x != x) ? x : y;
            break; /* NaN propagates, as torch.minimum */
        default:
            r = (x > y || x != x) ? x : y;
            break;
        }
        b[i] = st(r);
    }
}
static void half_sum(void *a, void *b, int *n, MPI_Datatype *t) {
    reduce_halves(a, b, n, t, 0);
}
static void half_prod(void *a, void *b, int *n, MPI_Datatype *t) {
    reduce_halves(a, b, n, t, 1);
}
static void half_min(void *a, void *b, int *n, MPI_Datatype *t) {
    reduce_halves(a, b, n, t, 2);
}
static void half_max(void *a, void *b, int *n, MPI_Datatype *t) {
    reduce_halves(a, b, n, t, 3);
}

static int make_types(lua_State *L) {
    if (half_type != MPI_DATATYPE_NULL) return 0;
    CHECK_MPI(L, "MPI_Type_contiguous", MPI_Type_contiguous(2, MPI_BYTE, &half_type));
    CHECK_MPI(L, "MPI_Type_contiguous", MPI_Type_contiguous(2, MPI_BYTE, &bf16_type));
    CHECK_MPI(L, "MPI_Type_commit", MPI_Type_commit(&half_type));
    CHECK_MPI(L, "MPI_Type_commit", MPI_Type_commit(&bf16_type));
    CHECK_MPI(L, "MPI_Op_create", MPI_Op_create(half_sum, 1, &op_sum));
    CHECK_MPI(L, "MPI_Op_create", MPI_Op_create(half_prod, 1, &op_prod));
    CHECK_MPI(L, "MPI_Op_create", MPI_Op_create(half_min, 1, &op_min));
    CHECK_MPI(L, "MPI_Op_create", MPI_Op_create(half_max, 1, &op_max));
    return 0;
}

static MPI_Datatype mpi_type(mt_dtype dt) {
    switch (dt) {
    case MT_FLOAT32:
        return MPI_FLOAT;
    case MT_FLOAT64:
        return MPI_DOUBLE;
    case MT_FLOAT16:
        return half_type;
    case MT_BFLOAT16:
        return bf16_type;
    case MT_INT8:
        return MPI_INT8_T;
    case MT_INT16:
        return MPI_INT16_T;
    case MT_INT32:
        return MPI_INT32_T;
    case MT_INT64:
        return MPI_INT64_T;
    case MT_UINT8:
        return MPI_UINT8_T;
    case MT_BOOL:
        return MPI_C_BOOL;
    default:
        return MPI_DATATYPE_NULL;
    }
}

/* the MPI op for a reduce name ("sum", "prod", "min", "max", "band", "bor", "bxor", "land",
 * "lor", "lxor") on dt; the Lua side has already refused what PyTorch refuses */
static MPI_Op mpi_op(lua_State *L, int arg, mt_dtype dt) {
    const char *names[] = {"sum",  "prod", "min", "max",  "band", "bor",
                           "bxor", "land", "lor", "lxor", NULL};
    int k = luaL_checkoption(L, arg, NULL, names);
    bool half = dt == MT_FLOAT16 || dt == MT_BFLOAT16;
    if (half && k > 3) luaL_argerror(L, arg, "no bitwise reduction of half-precision values");
    switch (k) {
    case 0:
        return half ? op_sum : MPI_SUM;
    case 1:
        return half ? op_prod : MPI_PROD;
    case 2:
        return half ? op_min : MPI_MIN;
    case 3:
        return half ? op_max : MPI_MAX;
    case 4:
        return MPI_BAND;
    case 5:
        return MPI_BOR;
    case 6:
        return MPI_BXOR;
    case 7:
        return MPI_LAND;
    case 8:
        return MPI_LOR;
    default:
        return MPI_LXOR;
    }
}

/* ---- buffers: a contiguous CPU tensor at a stack index -----------------------------------------
 */
typedef struct {
    void *data;
    int64_t numel;
    mt_dtype dtype;
    MPI_Datatype type;
} buffer;

static buffer check_buffer(lua_State *L, int arg) {
    mt_tensor_info info;
    if (mt_get_tensor_info(L, arg, &info) != 0) luaL_typeerror(L, arg, "Tensor");
    if (strcmp(info.device, "cpu") != 0)
        luaL_argerror(L, arg, "the MPI backend moves CPU tensors only");
    if (!info.contiguous) luaL_argerror(L, arg, "expected a contiguous tensor");
    buffer b = {info.data, info.numel, info.dtype, mpi_type(info.dtype)};
    if (b.type == MPI_DATATYPE_NULL) luaL_argerror(L, arg, "a dtype the MPI backend cannot move");
    if (b.numel > INT32_MAX) luaL_argerror(L, arg, "more than 2^31 - 1 elements in one MPI call");
    if (!b.data) b.data = (void *)&b; /* an empty tensor: any valid address, no byte is read */
    return b;
}

/* ---- communicators -------------------------------------------------------------------------- */
typedef struct {
    MPI_Comm comm; /* MPI_COMM_NULL when this rank is not a member, or once freed */
    bool owned;    /* created here (freed by free() or __gc), not MPI_COMM_WORLD */
} comm_box;

static comm_box *check_comm(lua_State *L, int arg) {
    comm_box *c = luaL_checkudata(L, arg, COMM_MT);
    if (c->comm == MPI_COMM_NULL) luaL_argerror(L, arg, "this rank is not a member of the group");
    need_init(L);
    return c;
}

static comm_box *push_comm(lua_State *L, MPI_Comm comm, bool owned) {
    comm_box *c = lua_newuserdatauv(L, sizeof *c, 0);
    c->comm = comm;
    c->owned = owned;
    luaL_setmetatable(L, COMM_MT);
    return c;
}

/* At exit: MPI_Finalize when the process ends with status 0. A rank that ends on an error
 * skips it: mpirun sees a rank exit non-zero without finalizing and ends the whole job, so
 * its peers fail at once instead of waiting in a collective for it. */
static void finalize_on_exit(int status, void *arg) {
    (void)arg;
    int done = 0, finalized = 0;
    MPI_Initialized(&done);
    MPI_Finalized(&finalized);
    if (status == 0 && done && !finalized && initialized_here) MPI_Finalize();
}

/* init() -> world communicator: MPI_Init_thread once per process (serialized calls: the Lua
 * state that owns torch.distributed makes them all) */
static int l_init(lua_State *L) {
    int done = 0, finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return luaL_error(L, "MPI was finalized in this process: it cannot start again");
    MPI_Initialized(&done);
    if (!done) {
        int provided;
        CHECK_MPI(L, "MPI_Init_thread",
                  MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided));
        initialized_here = true;
        /* the exit handler lives in this object: lua_close must not unload it (and libmpi) */
        Dl_info self;
        if (!dladdr((void *)finalize_on_exit, &self) || !self.dli_fname ||
            !dlopen(self.dli_fname, RTLD_LAZY | RTLD_NODELETE))
            return luaL_error(L, "torch.distributed: could not pin the MPI module in memory");
        on_exit(finalize_on_exit, NULL);
    }
    CHECK_MPI(L, "MPI_Comm_set_errhandler",
              MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    make_types(L);
    dog_start();
    push_comm(L, MPI_COMM_WORLD, false);
    return 1;
}

static int l_is_initialized(lua_State *L) {
    int done = 0, finalized = 0;
    MPI_Initialized(&done);
    MPI_Finalized(&finalized);
    lua_pushboolean(L, done && !finalized);
    return 1;
}

/* the launcher's view without initializing MPI: Open MPI's environment, else nil */
static int l_launcher(lua_State *L) {
    const char *rank = getenv("OMPI_COMM_WORLD_RANK"), *size = getenv("OMPI_COMM_WORLD_SIZE");
    if (!rank || !size) return 0;
    lua_pushinteger(L, strtol(rank, NULL, 10));
    lua_pushinteger(L, strtol(size, NULL, 10));
    return 2;
}

static int c_rank(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    int r;
    CHECK_MPI(L, "MPI_Comm_rank", MPI_Comm_rank(c->comm, &r));
    lua_pushinteger(L, r);
    return 1;
}

static int c_size(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    int n;
    CHECK_MPI(L, "MPI_Comm_size", MPI_Comm_size(c->comm, &n));
    lua_pushinteger(L, n);
    return 1;
}

static int c_is_member(lua_State *L) {
    comm_box *c = luaL_checkudata(L, 1, COMM_MT);
    lua_pushboolean(L, c->comm != MPI_COMM_NULL);
    return 1;
}

/* comm:create(ranks) -> communicator of those ranks (of comm, 0-based, in that order):
 * collective over comm, as PyTorch's new_group; ranks outside get a non-member handle */
static int c_create(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    int n = (int)luaL_len(L, 2), size;
    CHECK_MPI(L, "MPI_Comm_size", MPI_Comm_size(c->comm, &size));
    if (n < 1 || n > size)
        return luaL_argerror(L, 2, "a group needs between 1 and world size ranks");
    int *ranks = lua_newuserdatauv(L, sizeof(int) * (size_t)n, 0);
    for (int i = 0; i < n; i++) {
        lua_geti(L, 2, i + 1);
        lua_Integer r = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
        if (r < 0 || r >= size) return luaL_argerror(L, 2, "a rank out of range");
        ranks[i] = (int)r;
    }
    MPI_Group world_group, group;
    CHECK_MPI(L, "MPI_Comm_group", MPI_Comm_group(c->comm, &world_group));
    int rc = MPI_Group_incl(world_group, n, ranks, &group);
    MPI_Group_free(&world_group);
    if (rc != MPI_SUCCESS) return mpi_fail(L, "MPI_Group_incl", rc);
    MPI_Comm out = MPI_COMM_NULL;
    rc = MPI_Comm_create(c->comm, group, &out);
    MPI_Group_free(&group);
    if (rc != MPI_SUCCESS) return mpi_fail(L, "MPI_Comm_create", rc);
    if (out != MPI_COMM_NULL) MPI_Comm_set_errhandler(out, MPI_ERRORS_RETURN);
    push_comm(L, out, out != MPI_COMM_NULL);
    return 1;
}

/* comm:free(): collective over the group's members (destroy_process_group); never __gc */
static int c_free(lua_State *L) {
    comm_box *c = luaL_checkudata(L, 1, COMM_MT);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (c->owned && c->comm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&c->comm);
    c->comm = MPI_COMM_NULL;
    c->owned = false;
    return 0;
}

/* ---- requests ------------------------------------------------------------------------------ */
typedef struct {
    MPI_Request req;
    bool done;
    int source; /* of a completed receive */
} req_box;

/* pushes a request whose uservalue 1 holds the table of tensors it uses (at index keep) */
static req_box *push_req(lua_State *L, int keep) {
    req_box *r = lua_newuserdatauv(L, sizeof *r, 1);
    r->req = MPI_REQUEST_NULL;
    r->done = false;
    r->source = -1;
    luaL_setmetatable(L, REQ_MT);
    lua_pushvalue(L, keep);
    lua_setiuservalue(L, -2, 1);
    return r;
}

/* the arguments at 2 .. top, as the table the request keeps */
static int keep_args(lua_State *L) {
    int top = lua_gettop(L);
    lua_createtable(L, top, 0);
    for (int i = 2; i <= top; i++) {
        lua_pushvalue(L, i);
        lua_rawseti(L, -2, i);
    }
    return lua_gettop(L);
}

static void settle(req_box *r, MPI_Status *st) {
    r->done = true;
    r->source = st->MPI_SOURCE;
    r->req = MPI_REQUEST_NULL;
}

/* req:test() -> true when complete */
static int r_test(lua_State *L) {
    req_box *r = luaL_checkudata(L, 1, REQ_MT);
    if (!r->done) {
        need_init(L);
        int flag = 0;
        MPI_Status st;
        CHECK_MPI(L, "MPI_Test", MPI_Test(&r->req, &flag, &st));
        if (flag) settle(r, &st);
    }
    lua_pushboolean(L, r->done);
    return 1;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* req:wait([timeout_s]) -> true, or false when the timeout passed first. Polls MPI_Test,
 * backing off from a spin to 1 ms naps, so a rank that waits long does not hold a core. */
static int r_wait(lua_State *L) {
    req_box *r = luaL_checkudata(L, 1, REQ_MT);
    lua_Number timeout = luaL_optnumber(L, 2, -1);
    double deadline = timeout >= 0 ? now_s() + timeout : 0;
    long nap_ns = 0;
    for (int polls = 0; !r->done; polls++) {
        need_init(L);
        int flag = 0;
        MPI_Status st;
        CHECK_MPI(L, "MPI_Test", MPI_Test(&r->req, &flag, &st));
        if (flag) {
            settle(r, &st);
            break;
        }
        if (timeout >= 0 && now_s() >= deadline) {
            lua_pushboolean(L, 0);
            return 1;
        }
        if (polls > 2000) {
            nap_ns = nap_ns ? (nap_ns * 2 > 1000000 ? 1000000 : nap_ns * 2) : 1000;
            struct timespec ts = {0, nap_ns};
            nanosleep(&ts, NULL);
        }
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int r_source(lua_State *L) {
    req_box *r = luaL_checkudata(L, 1, REQ_MT);
    if (!r->done) return 0;
    lua_pushinteger(L, r->source);
    return 1;
}

/* a request collected before it completed (its Work dropped without wait): MPI may still read
 * or write its tensors, so they move to a registry list that is never emptied, and MPI frees
 * the request when it completes. Never a wait here: a collector must not block on peers. */
static int r_gc(lua_State *L) {
    req_box *r = luaL_checkudata(L, 1, REQ_MT);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!r->done && r->req != MPI_REQUEST_NULL && !finalized) {
        MPI_Request_free(&r->req);
        lua_getfield(L, LUA_REGISTRYINDEX, "mindtorch.mpi.orphans");
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_newtable(L);
            lua_pushvalue(L, -1);
            lua_setfield(L, LUA_REGISTRYINDEX, "mindtorch.mpi.orphans");
        }
        lua_getiuservalue(L, 1, 1);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    }
    r->done = true;
    return 0;
}

/* Runs the blocking form of a collective, watched, when a timeout (seconds) is at stack index
 * targ; else starts its non-blocking form into r->req. */
#define LAUNCH(L, targ, r, bname, bcall, nbname, nbcall)                                           \
    do {                                                                                           \
        if (lua_type(L, targ) == LUA_TNUMBER) {                                                    \
            dog_arm(bname, lua_tonumber(L, targ));                                                 \
            int rc_ = (bcall);                                                                     \
            dog_disarm();                                                                          \
            if (rc_ != MPI_SUCCESS) return mpi_fail(L, bname, rc_);                                \
            r->done = true;                                                                        \
        } else {                                                                                   \
            CHECK_MPI(L, nbname, nbcall);                                                          \
        }                                                                                          \
    } while (0)

/* ---- operations: each returns a request ---------------------------------------------------------
 */
static int count_of(lua_State *L, const buffer *b) {
    (void)L;
    return (int)b->numel;
}

static int check_root(lua_State *L, comm_box *c, int arg) {
    lua_Integer root = luaL_checkinteger(L, arg);
    int size;
    MPI_Comm_size(c->comm, &size);
    if (root < 0 || root >= size) luaL_argerror(L, arg, "a rank out of range");
    return (int)root;
}

/* comm:allreduce(t, op [, timeout]) in place (each call below: with a timeout, blocking) */
static int c_allreduce(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer b = check_buffer(L, 2);
    MPI_Op op = mpi_op(L, 3, b.dtype);
    int keep = keep_args(L);
    req_box *r = push_req(L, keep);
    LAUNCH(L, 4, r, "MPI_Allreduce",
           MPI_Allreduce(MPI_IN_PLACE, b.data, count_of(L, &b), b.type, op, c->comm),
           "MPI_Iallreduce",
           MPI_Iallreduce(MPI_IN_PLACE, b.data, count_of(L, &b), b.type, op, c->comm, &r->req));
    return 1;
}

/* comm:bcast(t, root) */
static int c_bcast(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer b = check_buffer(L, 2);
    int root = check_root(L, c, 3);
    int keep = keep_args(L);
    req_box *r = push_req(L, keep);
    LAUNCH(L, 4, r, "MPI_Bcast", MPI_Bcast(b.data, count_of(L, &b), b.type, root, c->comm),
           "MPI_Ibcast", MPI_Ibcast(b.data, count_of(L, &b), b.type, root, c->comm, &r->req));
    return 1;
}

/* comm:reduce(t, op, root): the result in root's t */
static int c_reduce(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer b = check_buffer(L, 2);
    MPI_Op op = mpi_op(L, 3, b.dtype);
    int root = check_root(L, c, 4), me;
    MPI_Comm_rank(c->comm, &me);
    int keep = keep_args(L);
    req_box *r = push_req(L, keep);
    void *in = me == root ? MPI_IN_PLACE : b.data, *out = me == root ? b.data : NULL;
    LAUNCH(L, 5, r, "MPI_Reduce", MPI_Reduce(in, out, count_of(L, &b), b.type, op, root, c->comm),
           "MPI_Ireduce",
           MPI_Ireduce(in, out, count_of(L, &b), b.type, op, root, c->comm, &r->req));
    return 1;
}

/* the receive buffer of a gather-like call: size * send count elements of send's dtype */
static buffer check_gathered(lua_State *L, int arg, comm_box *c, const buffer *send) {
    buffer out = check_buffer(L, arg);
    int size;
    MPI_Comm_size(c->comm, &size);
    if (out.dtype != send->dtype)
        luaL_argerror(L, arg, "the output's dtype differs from the input's");
    if (out.numel != send->numel * size)
        luaL_argerror(L, arg, "the output's size is not world size times the input's");
    return out;
}

/* comm:allgather(send, recv) */
static int c_allgather(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer s = check_buffer(L, 2);
    buffer o = check_gathered(L, 3, c, &s);
    int keep = keep_args(L);
    req_box *r = push_req(L, keep);
    int n = count_of(L, &s);
    LAUNCH(L, 4, r, "MPI_Allgather", MPI_Allgather(s.data, n, s.type, o.data, n, s.type, c->comm),
           "MPI_Iallgather",
           MPI_Iallgather(s.data, n, s.type, o.data, n, s.type, c->comm, &r->req));
    return 1;
}

/* comm:gather(send, recv_or_nil, root) */
static int c_gather(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer s = check_buffer(L, 2);
    int root = check_root(L, c, 4), me;
    MPI_Comm_rank(c->comm, &me);
    void *out = NULL;
    if (me == root) out = check_gathered(L, 3, c, &s).data;
    int keep = keep_args(L);
    req_box *r = push_req(L, keep);
    int n = count_of(L, &s);
    LAUNCH(L, 5, r, "MPI_Gather", MPI_Gather(s.data, n, s.type, out, n, s.type, root, c->comm),
           "MPI_Igather", MPI_Igather(s.data, n, s.type, out, n, s.type, root, c->comm, &r->req));
    return 1;
}

/* comm:scatter(send_or_nil, recv, root) */
static int c_scatter(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer o = check_buffer(L, 3);
    int root = check_root(L, c, 4), me;
    MPI_Comm_rank(c->comm, &me);
    void *in = NULL;
    if (me == root) in = check_gathered(L, 2, c, &o).data;
    int keep = keep_args(L);
    req_box *r = push_req(L, keep);
    int n = count_of(L, &o);
    LAUNCH(L, 5, r, "MPI_Scatter", MPI_Scatter(in, n, o.type, o.data, n, o.type, root, c->comm),
           "MPI_Iscatter", MPI_Iscatter(in, n, o.type, o.data, n, o.type, root, c->comm, &r->req));
    return 1;
}

/* comm:reduce_scatter(send, recv, op): send holds size blocks of recv's size */
static int c_reduce_scatter(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer o = check_buffer(L, 3);
    buffer s = check_gathered(L, 2, c, &o);
    MPI_Op op = mpi_op(L, 4, s.dtype);
    int keep = keep_args(L);
    req_box *r = push_req(L, keep);
    int n = count_of(L, &o);
    LAUNCH(L, 5, r, "MPI_Reduce_scatter_block",
           MPI_Reduce_scatter_block(s.data, o.data, n, o.type, op, c->comm),
           "MPI_Ireduce_scatter_block",
           MPI_Ireduce_scatter_block(s.data, o.data, n, o.type, op, c->comm, &r->req));
    return 1;
}

/* reads a table of size non-negative counts (elements) into ints, with their displacements */
static void counts_of(lua_State *L, int arg, int size, int *counts, int *displs, int64_t total) {
    luaL_checktype(L, arg, LUA_TTABLE);
    if (luaL_len(L, arg) != size) luaL_argerror(L, arg, "expected one split size per rank");
    int64_t at = 0;
    for (int i = 0; i < size; i++) {
        lua_geti(L, arg, i + 1);
        lua_Integer n = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
        if (n < 0 || n > INT32_MAX || at > INT32_MAX)
            luaL_argerror(L, arg, "a split size out of range");
        counts[i] = (int)n;
        displs[i] = (int)at;
        at += n;
    }
    if (at != total) luaL_argerror(L, arg, "split sizes do not add up to the tensor's elements");
}

/* comm:alltoallv(send, send_counts, recv, recv_counts) (counts in elements, per rank) */
static int c_alltoallv(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer s = check_buffer(L, 2);
    buffer o = check_buffer(L, 4);
    if (o.dtype != s.dtype)
        return luaL_argerror(L, 4, "the output's dtype differs from the input's");
    int size;
    MPI_Comm_size(c->comm, &size);
    int *v = lua_newuserdatauv(L, sizeof(int) * 4 * (size_t)size, 0);
    counts_of(L, 3, size, v, v + size, s.numel);
    counts_of(L, 5, size, v + 2 * size, v + 3 * size, o.numel);
    int keep = keep_args(L); /* keeps v as well: MPI reads the arrays until completion */
    req_box *r = push_req(L, keep);
    LAUNCH(L, 6, r, "MPI_Alltoallv",
           MPI_Alltoallv(s.data, v, v + size, s.type, o.data, v + 2 * size, v + 3 * size, o.type,
                         c->comm),
           "MPI_Ialltoallv",
           MPI_Ialltoallv(s.data, v, v + size, s.type, o.data, v + 2 * size, v + 3 * size, o.type,
                          c->comm, &r->req));
    return 1;
}

/* comm:send(t, dst, tag) / comm:recv(t, src (-1: any), tag) */
static int c_send(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer b = check_buffer(L, 2);
    int dst = check_root(L, c, 3);
    int tag = (int)luaL_optinteger(L, 4, 0);
    int keep = keep_args(L);
    req_box *r = push_req(L, keep);
    CHECK_MPI(L, "MPI_Isend",
              MPI_Isend(b.data, count_of(L, &b), b.type, dst, tag, c->comm, &r->req));
    return 1;
}

static int c_recv(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer b = check_buffer(L, 2);
    lua_Integer src = luaL_checkinteger(L, 3);
    int src_rank = src < 0 ? MPI_ANY_SOURCE : check_root(L, c, 3);
    int tag = (int)luaL_optinteger(L, 4, 0);
    int keep = keep_args(L);
    req_box *r = push_req(L, keep);
    CHECK_MPI(L, "MPI_Irecv",
              MPI_Irecv(b.data, count_of(L, &b), b.type, src_rank, tag, c->comm, &r->req));
    return 1;
}

static int c_barrier(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    int keep = keep_args(L);
    req_box *r = push_req(L, keep);
    LAUNCH(L, 2, r, "MPI_Barrier", MPI_Barrier(c->comm), "MPI_Ibarrier",
           MPI_Ibarrier(c->comm, &r->req));
    return 1;
}

/* comm:abort(code): ends every rank of the job (what a rank that cannot go on does) */
static int c_abort(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    MPI_Abort(c->comm, (int)luaL_optinteger(L, 2, 1));
    return 0;
}

MT_API int luaopen_mindtorch_distributed_mpi(lua_State *L) {
    static const luaL_Reg comm_methods[] = {
        {"rank", c_rank},           {"size", c_size},       {"is_member", c_is_member},
        {"create", c_create},       {"free", c_free},       {"allreduce", c_allreduce},
        {"bcast", c_bcast},         {"reduce", c_reduce},   {"allgather", c_allgather},
        {"gather", c_gather},       {"scatter", c_scatter}, {"reduce_scatter", c_reduce_scatter},
        {"alltoallv", c_alltoallv}, {"send", c_send},       {"recv", c_recv},
        {"barrier", c_barrier},     {"abort", c_abort},     {NULL, NULL}};
    static const luaL_Reg req_methods[] = {
        {"test", r_test}, {"wait", r_wait}, {"source", r_source}, {NULL, NULL}};
    static const luaL_Reg fns[] = {{"init", l_init},
                                   {"is_initialized", l_is_initialized},
                                   {"launcher", l_launcher},
                                   {NULL, NULL}};
    if (luaL_newmetatable(L, COMM_MT)) {
        luaL_newlib(L, comm_methods);
        lua_setfield(L, -2, "__index");
    }
    lua_pop(L, 1);
    if (luaL_newmetatable(L, REQ_MT)) {
        luaL_newlib(L, req_methods);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, r_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    luaL_newlib(L, fns);
    int major = 0, minor = 0;
    MPI_Get_version(&major, &minor);
    lua_pushfstring(L, "%d.%d", major, minor);
    lua_setfield(L, -2, "mpi_version");
    return 1;
}
