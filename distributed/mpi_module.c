/* mpi_module.c: `require "mindtorch.distributed_mpi"`, the MPI transport under
 * torch.distributed (lua/mindtorch/distributed/init.lua holds the PyTorch-shaped API; this
 * file only moves bytes). Its own shared object, linked with Open MPI's libmpi: the core and
 * `require "mindtorch"` never load MPI.
 *
 * Collectives run on one communication thread, as PyTorch's ProcessGroupMPI does: each call
 * queues a work item and returns a request; the thread runs the items in the order they were
 * queued (the same order on every rank), each with MPI's blocking call, whose tuned algorithms
 * are up to twice as fast as the non-blocking ones on shared memory, and which progresses while
 * the calling thread computes (DistributedDataParallel's buckets overlap backward this way).
 * Waiting for a request has a deadline: a collective whose peers never come ends in a Lua
 * error after the process group's timeout instead of hanging. Point-to-point calls are MPI's
 * non-blocking ones made by the caller (MPI_THREAD_MULTIPLE), tested until complete.
 * Communicators return MPI errors (MPI_ERRORS_RETURN) and each becomes a Lua error naming
 * the call.
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
#include <sched.h>
#include <stdatomic.h>
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

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

/* ---- the communication thread ------------------------------------------------------------------
 */
typedef enum {
    W_ALLREDUCE,
    W_BCAST,
    W_REDUCE,
    W_ALLGATHER,
    W_GATHER,
    W_SCATTER,
    W_REDUCE_SCATTER,
    W_ALLTOALLV,
    W_BARRIER,
    W_CREATE,
    W_FREE
} work_kind;

typedef struct work {
    work_kind kind;
    const char *call; /* MPI's name of it, for errors */
    void *sbuf, *rbuf;
    int count, root;
    MPI_Datatype type;
    MPI_Op op;
    MPI_Comm comm;
    const int *v;    /* alltoallv's counts and displacements (4 x size ints), kept by the request */
    MPI_Group group; /* W_CREATE's group; its result in out */
    MPI_Comm out;
    int rc;
    atomic_bool done;
    atomic_int refs; /* the queue and the request: the last to let go frees it */
    struct work *next;
} work;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t more, finished;
    work *head, *tail;
    bool started;
    atomic_bool running; /* an item is inside MPI now */
    atomic_int queued;   /* items in the queue (read without the lock: a hint for spinning) */
} q = {PTHREAD_MUTEX_INITIALIZER,
       PTHREAD_COND_INITIALIZER,
       PTHREAD_COND_INITIALIZER,
       NULL,
       NULL,
       false,
       false,
       0};

static void work_release(work *w) {
    if (atomic_fetch_sub(&w->refs, 1) == 1) free(w);
}

/* ---- large allreduces: a ring --------------------------------------------------------------- */

/* Open MPI's allreduce allocates its temporary buffer on each call. Past glibc's largest mmap
 * threshold (32 MiB) that is a fresh mapping every time, and the page faults dominated: 100 MB
 * between 2 ranks on shared memory took 317 ms (23 ms with MALLOC_MMAP_THRESHOLD_ raised so the
 * buffer stays). Allreduces of RING_MIN_BYTES and more therefore run as a ring (a reduce-scatter,
 * then an allgather: each rank sends and receives 2 (n - 1) / n of the data, the least there is)
 * through a scratch buffer that the communication thread, the only caller, keeps. Each chunk is
 * reduced along the ring in one order and then copied, so every rank ends with the same bits. */
#define RING_MIN_BYTES ((size_t)32 << 20)
#define RING_MAX_COMMS 16
#define RING_TAG 1

static void *ring_scratch;
static size_t ring_scratch_bytes;

/* The ring's messages travel on a duplicate of the communicator, made the first time (all ranks
 * run the same collectives in the same order, so they make it together): they can never match
 * the caller's point-to-point messages, whatever their tags. Freed with the communicator. */
static struct { MPI_Comm comm, ring; } rings[RING_MAX_COMMS];
static int nrings;

static MPI_Comm ring_comm(MPI_Comm comm) {
    for (int i = 0; i < nrings; i++)
        if (rings[i].comm == comm) return rings[i].ring;
    if (nrings == RING_MAX_COMMS) return MPI_COMM_NULL;
    MPI_Comm dup;
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) return MPI_COMM_NULL;
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    rings[nrings].comm = comm;
    rings[nrings++].ring = dup;
    return dup;
}

static void ring_comm_free(MPI_Comm comm) {
    for (int i = 0; i < nrings; i++)
        if (rings[i].comm == comm) {
            MPI_Comm_free(&rings[i].ring);
            rings[i] = rings[--nrings];
            return;
        }
}

/* chunk c of p over count elements: [first, first + len) */
static void ring_chunk(int count, int p, int c, int64_t *first, int *len) {
    int64_t lo = (int64_t)count * c / p, hi = (int64_t)count * (c + 1) / p;
    *first = lo;
    *len = (int)(hi - lo);
}

/* buf op= over the ring communicator's p ranks, in place (tsize: the type's bytes); MPI_ERR_*
 * as MPI's calls return them */
static int ring_allreduce(char *buf, int count, MPI_Datatype type, int tsize, MPI_Op op,
                          MPI_Comm ring, int p) {
    int me, rc;
    MPI_Comm_rank(ring, &me);
    size_t need = ((size_t)count / (size_t)p + 1) * (size_t)tsize;
    if (need > ring_scratch_bytes) {
        void *grown = realloc(ring_scratch, need);
        if (!grown) return MPI_ERR_NO_MEM;
        ring_scratch = grown;
        ring_scratch_bytes = need;
    }
    int right = (me + 1) % p, left = (me + p - 1) % p;
    int64_t sfirst, rfirst;
    int slen, rlen;
    /* reduce-scatter: at step s send chunk me - s, receive chunk me - s - 1 and reduce it in;
     * afterwards this rank holds chunk me + 1 complete */
    for (int s = 0; s < p - 1; s++) {
        ring_chunk(count, p, (me - s + 2 * p) % p, &sfirst, &slen);
        ring_chunk(count, p, (me - s - 1 + 2 * p) % p, &rfirst, &rlen);
        rc = MPI_Sendrecv(buf + sfirst * tsize, slen, type, right, RING_TAG, ring_scratch, rlen,
                          type, left, RING_TAG, ring, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return rc;
        rc = MPI_Reduce_local(ring_scratch, buf + rfirst * tsize, rlen, type, op);
        if (rc != MPI_SUCCESS) return rc;
    }
    /* allgather: at step s send chunk me + 1 - s (complete), receive chunk me - s in place */
    for (int s = 0; s < p - 1; s++) {
        ring_chunk(count, p, (me + 1 - s + 2 * p) % p, &sfirst, &slen);
        ring_chunk(count, p, (me - s + 2 * p) % p, &rfirst, &rlen);
        rc = MPI_Sendrecv(buf + sfirst * tsize, slen, type, right, RING_TAG, buf + rfirst * tsize,
                          rlen, type, left, RING_TAG, ring, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

static int allreduce(work *w) {
    int p, tsize;
    MPI_Comm_size(w->comm, &p);
    MPI_Type_size(w->type, &tsize);
    if (p > 1 && (size_t)w->count * (size_t)tsize >= RING_MIN_BYTES) {
        MPI_Comm ring = ring_comm(w->comm);
        if (ring != MPI_COMM_NULL)
            return ring_allreduce(w->rbuf, w->count, w->type, tsize, w->op, ring, p);
    }
    return MPI_Allreduce(MPI_IN_PLACE, w->rbuf, w->count, w->type, w->op, w->comm);
}

static int run_work(work *w) {
    switch (w->kind) {
    case W_ALLREDUCE:
        return allreduce(w);
    case W_BCAST:
        return MPI_Bcast(w->rbuf, w->count, w->type, w->root, w->comm);
    case W_REDUCE:
        return MPI_Reduce(w->sbuf, w->rbuf, w->count, w->type, w->op, w->root, w->comm);
    case W_ALLGATHER:
        return MPI_Allgather(w->sbuf, w->count, w->type, w->rbuf, w->count, w->type, w->comm);
    case W_GATHER:
        return MPI_Gather(w->sbuf, w->count, w->type, w->rbuf, w->count, w->type, w->root, w->comm);
    case W_SCATTER:
        return MPI_Scatter(w->sbuf, w->count, w->type, w->rbuf, w->count, w->type, w->root,
                           w->comm);
    case W_REDUCE_SCATTER:
        return MPI_Reduce_scatter_block(w->sbuf, w->rbuf, w->count, w->type, w->op, w->comm);
    case W_ALLTOALLV: {
        int size;
        MPI_Comm_size(w->comm, &size);
        return MPI_Alltoallv(w->sbuf, w->v, w->v + size, w->type, w->rbuf, w->v + 2 * size,
                             w->v + 3 * size, w->type, w->comm);
    }
    case W_BARRIER:
        return MPI_Barrier(w->comm);
    case W_CREATE: {
        int rc = MPI_Comm_create(w->comm, w->group, &w->out);
        MPI_Group_free(&w->group);
        if (rc == MPI_SUCCESS && w->out != MPI_COMM_NULL)
            MPI_Comm_set_errhandler(w->out, MPI_ERRORS_RETURN);
        return rc;
    }
    case W_FREE:
        ring_comm_free(w->comm);
        return MPI_Comm_free(&w->comm);
    }
    return MPI_ERR_OTHER;
}

/* a short spin, yielding, before sleeping on a condition: a wake-up through the kernel costs
 * tens of microseconds on these VMs, as much as a 1 MB all_reduce's tenth */
enum { SPIN_US = 50 };

static void *comm_thread(void *arg) {
    (void)arg;
    for (;;) {
        double until = mono_s() + SPIN_US * 1e-6;
        while (!atomic_load(&q.queued) && mono_s() < until) sched_yield();
        pthread_mutex_lock(&q.lock);
        while (!q.head) pthread_cond_wait(&q.more, &q.lock);
        work *w = q.head;
        q.head = w->next;
        if (!q.head) q.tail = NULL;
        atomic_fetch_sub(&q.queued, 1);
        atomic_store(&q.running, true);
        pthread_mutex_unlock(&q.lock);
        w->rc = run_work(w);
        pthread_mutex_lock(&q.lock);
        atomic_store(&w->done, true);
        atomic_store(&q.running, false);
        pthread_cond_broadcast(&q.finished);
        pthread_mutex_unlock(&q.lock);
        work_release(w);
    }
    return NULL;
}

static int start_thread(lua_State *L) {
    if (q.started) return 0;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, comm_thread, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        return luaL_error(L, "torch.distributed: could not start the communication thread: %s",
                          strerror(rc));
    q.started = true;
    return 0;
}

static work *work_new(lua_State *L, work_kind kind, const char *call, MPI_Comm comm) {
    work *w = calloc(1, sizeof *w);
    if (!w) luaL_error(L, "not enough memory for a %s", call);
    w->kind = kind;
    w->call = call;
    w->comm = comm;
    w->out = MPI_COMM_NULL;
    atomic_init(&w->done, false);
    atomic_init(&w->refs, 1);
    return w;
}

static void enqueue(work *w) {
    atomic_fetch_add(&w->refs, 1);
    pthread_mutex_lock(&q.lock);
    if (q.tail)
        q.tail->next = w;
    else
        q.head = w;
    q.tail = w;
    atomic_fetch_add(&q.queued, 1);
    pthread_cond_signal(&q.more);
    pthread_mutex_unlock(&q.lock);
}

/* waits until w is done: true, or false when timeout_s (< 0: none) passed first */
static bool work_wait(work *w, double timeout_s) {
    double until = mono_s() + SPIN_US * 1e-6;
    while (!atomic_load(&w->done) && mono_s() < until) sched_yield();
    if (atomic_load(&w->done)) return true;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    if (timeout_s >= 0) {
        double whole = (double)(time_t)timeout_s;
        deadline.tv_sec += (time_t)timeout_s;
        deadline.tv_nsec += (long)((timeout_s - whole) * 1e9);
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
    }
    bool ok = true;
    pthread_mutex_lock(&q.lock);
    while (!atomic_load(&w->done)) {
        if (timeout_s < 0) {
            pthread_cond_wait(&q.finished, &q.lock);
        } else if (pthread_cond_timedwait(&q.finished, &q.lock, &deadline) == ETIMEDOUT) {
            ok = atomic_load(&w->done);
            break;
        }
    }
    pthread_mutex_unlock(&q.lock);
    return ok;
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
    if (status != 0 || !done || finalized || !initialized_here) return;
    /* items still queued (destroy_process_group's communicator frees, which it does not wait
     * for) finish first, for up to 10 s; a collective stuck inside MPI (one that timed out)
     * does not, and MPI_Finalize would hang on it: then the rank ends without it */
    for (int i = 0; i < 10000; i++) {
        pthread_mutex_lock(&q.lock);
        bool idle = !atomic_load(&q.running) && q.head == NULL;
        pthread_mutex_unlock(&q.lock);
        if (idle) {
            MPI_Finalize();
            return;
        }
        struct timespec nap = {0, 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}

/* init() -> world communicator: MPI_Init_thread once per process (MPI_THREAD_MULTIPLE: the
 * communication thread runs the collectives while the caller makes point-to-point calls) */
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
    start_thread(L);
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
    /* in the queue's order, as every collective: the thread runs it, this waits */
    work *w = work_new(L, W_CREATE, "MPI_Comm_create", c->comm);
    w->group = group;
    enqueue(w);
    work_wait(w, -1);
    int rc2 = w->rc;
    MPI_Comm out = w->out;
    work_release(w);
    if (rc2 != MPI_SUCCESS) return mpi_fail(L, "MPI_Comm_create", rc2);
    push_comm(L, out, out != MPI_COMM_NULL);
    return 1;
}

/* comm:free(): collective over the group's members (destroy_process_group); never __gc */
static int c_free(lua_State *L) {
    comm_box *c = luaL_checkudata(L, 1, COMM_MT);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (c->owned && c->comm != MPI_COMM_NULL && !finalized) {
        work *w = work_new(L, W_FREE, "MPI_Comm_free", c->comm);
        enqueue(w);
        work_release(w);
    }
    c->comm = MPI_COMM_NULL;
    c->owned = false;
    return 0;
}

/* ---- requests: a queued collective, or a point-to-point MPI request -----------------------------
 */
typedef struct {
    work *w;         /* a collective, or NULL */
    MPI_Request req; /* a send or receive */
    bool done;
    int source; /* of a completed receive */
} req_box;

/* pushes a request whose uservalue 1 holds the table of tensors it uses (at index keep) */
static req_box *push_req(lua_State *L, int keep) {
    req_box *r = lua_newuserdatauv(L, sizeof *r, 1);
    r->w = NULL;
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

/* a finished collective: its MPI error, if any, raised */
static void settle_work(lua_State *L, req_box *r) {
    work *w = r->w;
    r->w = NULL;
    r->done = true;
    int rc = w->rc;
    const char *call = w->call;
    work_release(w);
    if (rc != MPI_SUCCESS) mpi_fail(L, call, rc);
}

static void settle(req_box *r, MPI_Status *st) {
    r->done = true;
    r->source = st->MPI_SOURCE;
    r->req = MPI_REQUEST_NULL;
}

/* req:test() -> true when complete */
static int r_test(lua_State *L) {
    req_box *r = luaL_checkudata(L, 1, REQ_MT);
    if (!r->done && r->w) {
        if (atomic_load(&r->w->done)) settle_work(L, r);
    } else if (!r->done) {
        need_init(L);
        int flag = 0;
        MPI_Status st;
        CHECK_MPI(L, "MPI_Test", MPI_Test(&r->req, &flag, &st));
        if (flag) settle(r, &st);
    }
    lua_pushboolean(L, r->done);
    return 1;
}

/* req:wait([timeout_s]) -> true, or false when the timeout passed first. A collective waits
 * for the communication thread; a send or receive polls MPI_Test, backing off from a spin to
 * 1 ms naps, so a rank that waits long does not hold a core. */
static int r_wait(lua_State *L) {
    req_box *r = luaL_checkudata(L, 1, REQ_MT);
    lua_Number timeout = luaL_optnumber(L, 2, -1);
    if (!r->done && r->w) {
        if (!work_wait(r->w, timeout)) {
            lua_pushboolean(L, 0);
            return 1;
        }
        settle_work(L, r);
    }
    double deadline = timeout >= 0 ? mono_s() + timeout : 0;
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
        if (timeout >= 0 && mono_s() >= deadline) {
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
 * or write its tensors, so they move to a registry list that is never emptied (a receive is
 * freed by MPI when it completes; a collective by whichever of the thread and this lets go
 * last). Never a wait here: a collector must not block on peers. */
static int r_gc(lua_State *L) {
    req_box *r = luaL_checkudata(L, 1, REQ_MT);
    int finalized = 0;
    MPI_Finalized(&finalized);
    bool pending = false;
    if (r->w) {
        pending = !atomic_load(&r->w->done);
        work_release(r->w);
        r->w = NULL;
    } else if (!r->done && r->req != MPI_REQUEST_NULL && !finalized) {
        MPI_Request_free(&r->req);
        pending = true;
    }
    if (pending) {
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

/* queues w for the request at the top of the stack */
static int submit(lua_State *L, req_box *r, work *w) {
    r->w = w;
    enqueue(w);
    return 1;
}

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

/* comm:allreduce(t, op) in place */
static int c_allreduce(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer b = check_buffer(L, 2);
    MPI_Op op = mpi_op(L, 3, b.dtype);
    work *w = work_new(L, W_ALLREDUCE, "MPI_Allreduce", c->comm);
    w->rbuf = b.data;
    w->count = count_of(L, &b);
    w->type = b.type;
    w->op = op;
    return submit(L, push_req(L, keep_args(L)), w);
}

/* comm:bcast(t, root) */
static int c_bcast(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer b = check_buffer(L, 2);
    int root = check_root(L, c, 3);
    work *w = work_new(L, W_BCAST, "MPI_Bcast", c->comm);
    w->rbuf = b.data;
    w->count = count_of(L, &b);
    w->type = b.type;
    w->root = root;
    return submit(L, push_req(L, keep_args(L)), w);
}

/* comm:reduce(t, op, root): the result in root's t */
static int c_reduce(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer b = check_buffer(L, 2);
    MPI_Op op = mpi_op(L, 3, b.dtype);
    int root = check_root(L, c, 4), me;
    MPI_Comm_rank(c->comm, &me);
    work *w = work_new(L, W_REDUCE, "MPI_Reduce", c->comm);
    w->sbuf = me == root ? MPI_IN_PLACE : b.data;
    w->rbuf = me == root ? b.data : NULL;
    w->count = count_of(L, &b);
    w->type = b.type;
    w->op = op;
    w->root = root;
    return submit(L, push_req(L, keep_args(L)), w);
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
    work *w = work_new(L, W_ALLGATHER, "MPI_Allgather", c->comm);
    w->sbuf = s.data;
    w->rbuf = o.data;
    w->count = count_of(L, &s);
    w->type = s.type;
    return submit(L, push_req(L, keep_args(L)), w);
}

/* comm:gather(send, recv_or_nil, root) */
static int c_gather(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer s = check_buffer(L, 2);
    int root = check_root(L, c, 4), me;
    MPI_Comm_rank(c->comm, &me);
    void *out = NULL;
    if (me == root) out = check_gathered(L, 3, c, &s).data;
    work *w = work_new(L, W_GATHER, "MPI_Gather", c->comm);
    w->sbuf = s.data;
    w->rbuf = out;
    w->count = count_of(L, &s);
    w->type = s.type;
    w->root = root;
    return submit(L, push_req(L, keep_args(L)), w);
}

/* comm:scatter(send_or_nil, recv, root) */
static int c_scatter(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer o = check_buffer(L, 3);
    int root = check_root(L, c, 4), me;
    MPI_Comm_rank(c->comm, &me);
    void *in = NULL;
    if (me == root) in = check_gathered(L, 2, c, &o).data;
    work *w = work_new(L, W_SCATTER, "MPI_Scatter", c->comm);
    w->sbuf = in;
    w->rbuf = o.data;
    w->count = count_of(L, &o);
    w->type = o.type;
    w->root = root;
    return submit(L, push_req(L, keep_args(L)), w);
}

/* comm:reduce_scatter(send, recv, op): send holds size blocks of recv's size */
static int c_reduce_scatter(lua_State *L) {
    comm_box *c = check_comm(L, 1);
    buffer o = check_buffer(L, 3);
    buffer s = check_gathered(L, 2, c, &o);
    MPI_Op op = mpi_op(L, 4, s.dtype);
    work *w = work_new(L, W_REDUCE_SCATTER, "MPI_Reduce_scatter_block", c->comm);
    w->sbuf = s.data;
    w->rbuf = o.data;
    w->count = count_of(L, &o);
    w->type = o.type;
    w->op = op;
    return submit(L, push_req(L, keep_args(L)), w);
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
    work *w = work_new(L, W_ALLTOALLV, "MPI_Alltoallv", c->comm);
    w->sbuf = s.data;
    w->rbuf = o.data;
    w->type = s.type;
    w->v = v;
    return submit(L, push_req(L, keep_args(L)), w); /* the request keeps v: the thread reads it */
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
    work *w = work_new(L, W_BARRIER, "MPI_Barrier", c->comm);
    return submit(L, push_req(L, keep_args(L)), w);
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
