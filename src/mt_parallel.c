/* mt_parallel.c: the process-wide intra-op thread count. It starts at OpenMP's default (the
 * cores, or OMP_NUM_THREADS) and every parallel loop passes it explicitly, so a count set from
 * one thread holds for all of them. */
#include "mt_parallel.h"

#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int num_threads;
static void (*blas_hook)(int n);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_count(void) {
    int n = omp_get_max_threads();
    atomic_store(&num_threads, n > 0 ? n : 1);
}

int mt_get_num_threads(void) {
    pthread_once(&once, init_count);
    return atomic_load(&num_threads);
}

int mt_set_num_threads(int64_t n) {
    if (n <= 0 || n > 1024) return mt_error(MT_ERR_RUNTIME, "set_num_threads expects a positive integer");
    pthread_once(&once, init_count);
    atomic_store(&num_threads, (int)n);
    if (blas_hook) blas_hook((int)n);
    return 0;
}

void mt_set_num_threads_hook(void (*hook)(int n)) {
    blas_hook = hook;
    if (hook) hook(mt_get_num_threads());
}

int mt_threads_for(int64_t work) {
    if (work < MT_GRAIN_SIZE || omp_in_parallel()) return 1;
    int n = mt_get_num_threads();
    int64_t useful = (work + MT_GRAIN_SIZE - 1) / MT_GRAIN_SIZE;
    return useful < n ? (int)useful : n;
}
