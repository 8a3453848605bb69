/* mt_parallel.c: the process-wide intra-op thread count and the pool that runs parallel loops.
 *
 * The count starts at OMP_NUM_THREADS (as PyTorch reads it) or the cores this process may run
 * on; every loop asks mt_threads_for for its share, so a count set from one thread holds for
 * all of them.
 *
 * Why our own pool and not OpenMP: libgomp's idle workers spin for a long while after each
 * parallel region. Between our element-wise loops run OpenBLAS's own threads (gemm), and on a
 * machine with few cores the spinning workers took the cores from them: a LeNet training step
 * took 2.5x longer with 2 threads than with 1. These workers spin only briefly, then sleep on a
 * condition variable, so the cores are free for OpenBLAS between our loops. */
#define _GNU_SOURCE /* sched_getaffinity, sched_getcpu, pthread_setaffinity_np */
#include "mt_parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_int num_threads;
static void (*blas_hook)(int n);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_count(void) {
    int n = 0;
    const char *env = getenv("OMP_NUM_THREADS");
    if (env) n = atoi(env);
    if (n <= 0) {
        cpu_set_t set;
        n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                        : (int)sysconf(_SC_NPROCESSORS_ONLN);
    }
    atomic_store(&num_threads, n > 0 ? n : 1);
}

int mt_get_num_threads(void) {
    pthread_once(&once, init_count);
    return atomic_load(&num_threads);
}

int mt_set_num_threads(int64_t n) {
    if (n <= 0 || n > 1024)
        return mt_error(MT_ERR_RUNTIME, "set_num_threads expects a positive integer");
    pthread_once(&once, init_count);
    atomic_store(&num_threads, (int)n);
    if (blas_hook) blas_hook((int)n);
    return 0;
}

void mt_set_num_threads_hook(void (*hook)(int n)) {
    blas_hook = hook;
    if (hook) hook(mt_get_num_threads());
}

/* set on the pool's workers and on a thread while it runs a parallel loop: loops inside a
 * loop run on their own thread */
static _Thread_local bool in_parallel;

int mt_threads_for(int64_t work) {
    if (work < MT_GRAIN_SIZE || in_parallel) return 1;
    int n = mt_get_num_threads();
    int64_t useful = (work + MT_GRAIN_SIZE - 1) / MT_GRAIN_SIZE;
    return useful < n ? (int)useful : n;
}

/* ---- the pool ---- */

/* One job at a time: the thread that holds `busy` publishes the job and bumps `generation`;
 * worker i runs part i + 1 of it when i + 1 < parts; the caller runs part 0 and waits until
 * `pending` (the workers' parts) is zero. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    atomic_flag busy;
    int nworkers;
    bool stopping;
    pthread_t *threads;
    /* the job */
    mt_parallel_fn fn;
    void *ctx;
    int64_t n;
    int parts;
    atomic_uint generation;
    atomic_int pending;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
          ATOMIC_FLAG_INIT};

/* how long an idle worker or a waiting caller polls before it sleeps: a few microseconds,
 * enough to catch the next loop of a run of element-wise ops, too short to starve OpenBLAS */
#define SPIN_POLLS 2000

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* The CPU each of the first SPREAD_PARTS parts of a loop ran on, as last noted.
 *
 * Linux may start a worker on its creator's CPU, or wake it there, and leave both there: each
 * ran within the last half millisecond, so the load balancer counts both as cache-hot and
 * moves neither, and every parallel loop runs at one thread's speed. A 10M float32 sum through
 * this pool, 2 threads, 150 loops a run: in 2 runs of 5 the two parts shared a CPU in 133 and
 * 150 loops (59-62 GB/s); with this, at most 27 loops of a run (153-175 GB/s). A worker that
 * finds it ran its part on the CPU of an earlier part moves itself to one that no part ran on,
 * then lets itself be moved again: a nudge, not a binding. */
#define SPREAD_PARTS 64
static atomic_int part_cpu[SPREAD_PARTS];

static void note_cpu(int part) {
    if (part < SPREAD_PARTS)
        atomic_store_explicit(&part_cpu[part], sched_getcpu(), memory_order_relaxed);
}

static void spread(int mine, int part, int parts) {
    bool clash = false;
    cpu_set_t allowed, unused;
    if (mine < 0 || part >= SPREAD_PARTS || parts > SPREAD_PARTS) return;
    for (int q = 0; q < part; q++)
        clash = clash || atomic_load_explicit(&part_cpu[q], memory_order_relaxed) == mine;
    if (!clash || pthread_getaffinity_np(pthread_self(), sizeof allowed, &allowed) != 0) return;
    if (CPU_COUNT(&allowed) < parts) return; /* more threads than CPUs: sharing is the plan */
    unused = allowed;
    for (int q = 0; q < parts; q++) {
        int c = atomic_load_explicit(&part_cpu[q], memory_order_relaxed);
        if (c >= 0 && c < CPU_SETSIZE) CPU_CLR(c, &unused);
    }
    if (CPU_COUNT(&unused) == 0) return;
    /* a running thread whose allowed set leaves its CPU is moved before the call returns */
    if (pthread_setaffinity_np(pthread_self(), sizeof unused, &unused) == 0)
        pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed);
}

static void run_part(mt_parallel_fn fn, void *ctx, int64_t n, int parts, int part) {
    int64_t chunk = (n + parts - 1) / parts, begin = part * chunk;
    int64_t end = begin + chunk < n ? begin + chunk : n;
    if (begin < end) fn(ctx, begin, end);
}

/* a new worker's part and the generation before the job it was started for */
typedef struct {
    int part;
    unsigned seen;
} worker_start;

static void *worker_main(void *arg) {
    worker_start start = *(worker_start *)arg;
    free(arg);
    int part = start.part;
    unsigned seen = start.seen;
    in_parallel = true;
    for (;;) {
        for (int polls = 0; atomic_load_explicit(&pool.generation, memory_order_acquire) == seen &&
                            polls < SPIN_POLLS;
             polls++)
            cpu_relax();
        /* the job is read under the lock it was written under, with its generation */
        pthread_mutex_lock(&pool.lock);
        while (atomic_load_explicit(&pool.generation, memory_order_acquire) == seen &&
               !pool.stopping)
            pthread_cond_wait(&pool.wake, &pool.lock);
        if (pool.stopping) {
            pthread_mutex_unlock(&pool.lock);
            return NULL;
        }
        seen = atomic_load_explicit(&pool.generation, memory_order_acquire);
        mt_parallel_fn fn = pool.fn;
        void *ctx = pool.ctx;
        int64_t n = pool.n;
        int parts = pool.parts;
        pthread_mutex_unlock(&pool.lock);
        if (part >= parts) continue;
        note_cpu(part);
        run_part(fn, ctx, n, parts, part);
        int mine = sched_getcpu(); /* where the part ran, read before the caller may go on */
        if (atomic_fetch_sub_explicit(&pool.pending, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&pool.lock);
            pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.lock);
        }
        spread(mine, part, parts); /* after the caller is released: it need not wait on a move */
    }
}

/* grows the pool to `want` workers (with the lock held); false when no thread could start */
static bool grow(int want) {
    if (want <= pool.nworkers) return true;
    pthread_t *t = realloc(pool.threads, sizeof(pthread_t) * (size_t)want);
    if (!t) return false;
    pool.threads = t;
    while (pool.nworkers < want) {
        worker_start *start = malloc(sizeof *start);
        if (!start) return pool.nworkers > 0;
        *start = (worker_start){pool.nworkers + 1, atomic_load(&pool.generation)};
        if (pthread_create(&t[pool.nworkers], NULL, worker_main, start) != 0) {
            free(start);
            return pool.nworkers > 0;
        }
        pool.nworkers++;
    }
    return true;
}

void mt_parallel_range(int64_t n, int nt, mt_parallel_fn fn, void *ctx) {
    if (n <= 0) return;
    if (nt > n) nt = (int)n;
    /* one thread, a loop inside a loop, or another thread's loop holding the pool: run here */
    if (nt <= 1 || in_parallel ||
        atomic_flag_test_and_set_explicit(&pool.busy, memory_order_acquire)) {
        fn(ctx, 0, n);
        return;
    }
    pthread_mutex_lock(&pool.lock);
    bool ok = grow(nt - 1);
    if (nt - 1 > pool.nworkers) nt = pool.nworkers + 1;
    if (ok && nt > 1) {
        pool.fn = fn;
        pool.ctx = ctx;
        pool.n = n;
        pool.parts = nt;
        atomic_store_explicit(&pool.pending, nt - 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
        pthread_cond_broadcast(&pool.wake);
    }
    pthread_mutex_unlock(&pool.lock);
    if (!ok || nt <= 1) {
        atomic_flag_clear_explicit(&pool.busy, memory_order_release);
        fn(ctx, 0, n);
        return;
    }
    in_parallel = true;
    note_cpu(0);
    run_part(fn, ctx, n, nt, 0);
    in_parallel = false;
    for (int polls = 0;
         atomic_load_explicit(&pool.pending, memory_order_acquire) > 0 && polls < SPIN_POLLS;
         polls++)
        cpu_relax();
    if (atomic_load_explicit(&pool.pending, memory_order_acquire) > 0) {
        pthread_mutex_lock(&pool.lock);
        while (atomic_load_explicit(&pool.pending, memory_order_acquire) > 0)
            pthread_cond_wait(&pool.done, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
    }
    atomic_flag_clear_explicit(&pool.busy, memory_order_release);
}

typedef struct {
    int64_t n, grain;
    atomic_llong next;
    mt_parallel_fn fn;
    void *ctx;
} dynamic_job;

static void dynamic_part(void *job, int64_t b, int64_t e) {
    MT_UNUSED(b);
    MT_UNUSED(e);
    dynamic_job *d = job;
    for (;;) {
        int64_t c0 = atomic_fetch_add_explicit(&d->next, d->grain, memory_order_relaxed);
        if (c0 >= d->n) return;
        d->fn(d->ctx, c0, c0 + d->grain < d->n ? c0 + d->grain : d->n);
    }
}

void mt_parallel_dynamic(int64_t n, int64_t grain, int nt, mt_parallel_fn fn, void *ctx) {
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    int64_t chunks = (n + grain - 1) / grain;
    if (nt > chunks) nt = (int)chunks;
    if (nt <= 1) {
        fn(ctx, 0, n);
        return;
    }
    dynamic_job d = {n, grain, 0, fn, ctx};
    atomic_init(&d.next, 0);
    mt_parallel_range(nt, nt, dynamic_part, &d);
}

/* at exit the idle workers are stopped and joined, so leak checkers see no live threads */
__attribute__((destructor)) static void stop_pool(void) {
    if (atomic_flag_test_and_set(&pool.busy)) return; /* a loop still running: leave it be */
    pthread_mutex_lock(&pool.lock);
    pool.stopping = true;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < pool.nworkers; i++) pthread_join(pool.threads[i], NULL);
    free(pool.threads);
    pool.threads = NULL;
    pool.nworkers = 0;
}
