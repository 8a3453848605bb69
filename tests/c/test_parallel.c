/* test_parallel.c: the thread pool behind the CPU kernels' parallel loops (mt_parallel.c):
 * every index runs exactly once whatever the split, loops inside loops run inline, several
 * host threads may start loops at the same time, and a worker leaves its caller's CPU. */
#define _GNU_SOURCE /* sched_getcpu, pthread_setaffinity_np */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "mt_parallel.h"

typedef struct {
    atomic_int *hits;
    atomic_int calls;
    atomic_int inner_threads; /* what mt_threads_for says inside the body (should be 1) */
} count_job;

static void count_body(void *ctx, int64_t begin, int64_t end) {
    count_job *j = ctx;
    atomic_fetch_add(&j->calls, 1);
    atomic_fetch_add(&j->inner_threads, mt_threads_for(INT64_C(1) << 40) - 1);
    for (int64_t i = begin; i < end; i++) atomic_fetch_add(&j->hits[i], 1);
}

static void check_once(int64_t n, int nt) {
    count_job j = {calloc((size_t)(n > 0 ? n : 1), sizeof(atomic_int))};
    mt_parallel_range(n, nt, count_body, &j);
    for (int64_t i = 0; i < n; i++) assert_int_equal(atomic_load(&j.hits[i]), 1);
    assert_true(atomic_load(&j.calls) <= (nt > 1 ? nt : 1));
    if (nt > 1 && n > 1)
        assert_int_equal(atomic_load(&j.inner_threads), 0); /* a split loop's bodies */
    free(j.hits);
}

static void every_index_runs_once(void **state) {
    (void)state;
    const int64_t sizes[] = {0, 1, 2, 3, 7, 64, 1000, 100003};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int nt = 1; nt <= 8; nt++) check_once(sizes[s], nt);
}

/* mt_parallel_dynamic: every index once, in chunks of at most `grain` (the last may be short) */
typedef struct {
    atomic_int *hits;
    int64_t grain;
    atomic_int oversized;
} chunk_job;

static void chunk_body(void *ctx, int64_t begin, int64_t end) {
    chunk_job *j = ctx;
    if (end - begin > j->grain) atomic_fetch_add(&j->oversized, 1);
    for (int64_t i = begin; i < end; i++) atomic_fetch_add(&j->hits[i], 1);
}

static void dynamic_chunks_cover_every_index_once(void **state) {
    (void)state;
    const int64_t sizes[] = {1, 2, 7, 64, 1000, 100003}, grains[] = {0, 1, 3, 64, 5000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t g = 0; g < sizeof grains / sizeof *grains; g++)
            for (int nt = 1; nt <= 4; nt++) {
                int64_t n = sizes[s];
                chunk_job j = {calloc((size_t)n, sizeof(atomic_int)),
                               grains[g] > 0 ? grains[g] : 1};
                mt_parallel_dynamic(n, grains[g], nt, chunk_body, &j);
                for (int64_t i = 0; i < n; i++) assert_int_equal(atomic_load(&j.hits[i]), 1);
                if (nt > 1) assert_int_equal(atomic_load(&j.oversized), 0);
                free(j.hits);
            }
}

/* a loop body that starts a loop: the inner one runs on the body's own thread */
typedef struct {
    atomic_int total;
} nest_job;

static void inner_body(void *ctx, int64_t begin, int64_t end) {
    atomic_fetch_add(&((nest_job *)ctx)->total, (int)(end - begin));
}

static void outer_body(void *ctx, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; i++) mt_parallel_range(100, 4, inner_body, ctx);
}

static void loops_inside_loops_run_inline(void **state) {
    (void)state;
    nest_job j = {0};
    mt_parallel_range(16, 4, outer_body, &j);
    assert_int_equal(atomic_load(&j.total), 1600);
}

/* four host threads, each running many loops at once: each loop still runs every index once */
static void *host_thread(void *arg) {
    (void)arg;
    for (int r = 0; r < 300; r++) {
        int64_t n = 1 + (r * 7919) % 5000;
        count_job j = {calloc((size_t)n, sizeof(atomic_int))};
        mt_parallel_range(n, 1 + r % 4, count_body, &j);
        for (int64_t i = 0; i < n; i++)
            if (atomic_load(&j.hits[i]) != 1) {
                free(j.hits);
                return (void *)1;
            }
        free(j.hits);
    }
    return NULL;
}

static void concurrent_callers(void **state) {
    (void)state;
    pthread_t t[4];
    for (int i = 0; i < 4; i++) assert_int_equal(pthread_create(&t[i], NULL, host_thread, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *bad;
        pthread_join(t[i], &bad);
        assert_null(bad);
    }
}

static void thread_count_follows_the_setting(void **state) {
    (void)state;
    int saved = mt_get_num_threads();
    assert_int_equal(mt_set_num_threads(3), 0);
    assert_int_equal(mt_threads_for(MT_GRAIN_SIZE - 1), 1);
    assert_int_equal(mt_threads_for(MT_GRAIN_SIZE * 2), 2);
    assert_int_equal(mt_threads_for(MT_GRAIN_SIZE * 100), 3);
    assert_int_equal(mt_set_num_threads(0), -1);
    assert_int_equal(mt_set_num_threads(saved), 0);
}

/* the CPU each part of a 2-part loop ran on */
static void cpu_body(void *ctx, int64_t begin, int64_t end) {
    atomic_int *cpu = ctx;
    for (int64_t i = begin; i < end; i++) atomic_store(&cpu[i], sched_getcpu());
}

/* The caller moved onto its worker's CPU (Linux left such pairs together, each loop then ran
 * at one thread's speed): the worker moves off it after one loop and the loops that follow
 * run on two CPUs. */
static void a_worker_leaves_its_callers_cpu(void **state) {
    (void)state;
    cpu_set_t all;
    assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof all, &all), 0);
    if (CPU_COUNT(&all) < 2) {
        print_message("one CPU allowed: nothing to spread over\n");
        return;
    }
    int saved = mt_get_num_threads();
    assert_int_equal(mt_set_num_threads(2), 0);
    atomic_int cpu[2];
    mt_parallel_range(2, 2, cpu_body, cpu);
    cpu_set_t worker_cpu;
    CPU_ZERO(&worker_cpu);
    CPU_SET(atomic_load(&cpu[1]), &worker_cpu);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof worker_cpu, &worker_cpu), 0);
    int apart = 0;
    for (int k = 0; k < 50; k++) {
        mt_parallel_range(2, 2, cpu_body, cpu);
        apart += k >= 10 && atomic_load(&cpu[0]) != atomic_load(&cpu[1]);
    }
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof all, &all), 0);
    assert_int_equal(mt_set_num_threads(saved), 0);
    assert_true(apart >= 35); /* of 40 */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_index_runs_once),
        cmocka_unit_test(dynamic_chunks_cover_every_index_once),
        cmocka_unit_test(loops_inside_loops_run_inline),
        cmocka_unit_test(concurrent_callers),
        cmocka_unit_test(thread_count_follows_the_setting),
        cmocka_unit_test(a_worker_leaves_its_callers_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
