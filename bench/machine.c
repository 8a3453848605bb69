/* machine.c: the machine's limits that benchmarks are judged against: memory bandwidth
 * (a STREAM-style triad and a copy over 10M floats, on the run's thread count) and OpenBLAS's
 * sgemm peak. Prints lines "LIMIT <name> <value> <unit>". */
#include <cblas.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the copy and the triad, each thread on its slice of the arrays (the thread count of the run:
 * the element-wise benchmarks they are the limit for run on as many threads) */
typedef struct slice {
    float *a, *b, *c;
    size_t n;
    int what; /* 0: triad, 1: memcpy, 2: a copy loop, 3: a copy loop with streaming stores */
    pthread_barrier_t *start;
    double t0, t1;
} slice;

static void *run_slice(void *arg) {
    slice *s = arg;
    pthread_barrier_wait(s->start);
    s->t0 = now();
    if (s->what == 0)
        for (size_t i = 0; i < s->n; i++) s->c[i] = s->a[i] + 2.0f * s->b[i];
    else if (s->what == 1)
        memcpy(s->a, s->c, s->n * 4);
    else if (s->what == 2) /* built with -fno-tree-loop-distribute-patterns: not a memcpy call */
        for (size_t i = 0; i < s->n; i++) s->a[i] = s->c[i];
    else {
#ifdef __AVX512F__
        /* whole 64-byte lines written without reading them first (the slices start on lines:
         * aligned arrays, slice lengths a multiple of 16 floats) */
        size_t i = 0;
        for (; i + 16 <= s->n; i += 16) _mm512_stream_ps(s->a + i, _mm512_load_ps(s->c + i));
        for (; i < s->n; i++) s->a[i] = s->c[i];
        _mm_sfence();
#endif
    }
    s->t1 = now();
    return NULL;
}

static double timed(int what, int threads, float *a, float *b, float *c, size_t n) {
    pthread_t tid[64];
    slice sl[64];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    /* slices of whole 64-byte lines (the streaming copy needs them aligned) */
    size_t per = ((n + (size_t)threads - 1) / (size_t)threads + 15) & ~(size_t)15;
    for (int t = 0; t < threads; t++) {
        size_t lo = (size_t)t * per < n ? (size_t)t * per : n, hi = lo + per < n ? lo + per : n;
        sl[t] = (slice){a + lo, b + lo, c + lo, hi - lo, what, &start, 0, 0};
        pthread_create(&tid[t], NULL, run_slice, &sl[t]);
    }
    /* from the first thread's start to the last one's end (this thread may not be running) */
    double t0 = 1e300, t1 = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        if (sl[t].t0 < t0) t0 = sl[t].t0;
        if (sl[t].t1 > t1) t1 = sl[t].t1;
    }
    pthread_barrier_destroy(&start);
    return t1 - t0;
}

/* n floats on transparent huge pages where the kernel offers them (as mindtorch's allocator
 * asks for large blocks: with 4 KiB pages a stream needs a TLB walk every 4 KiB) */
static float *big_array(size_t n) {
    size_t huge = (size_t)2 << 20, bytes = (n * 4 + huge - 1) & ~(huge - 1);
    float *p = aligned_alloc(huge, bytes);
    if (!p) exit(1);
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    openblas_set_num_threads(threads);
    size_t n = 10 * 1000 * 1000;
    float *a = big_array(n), *b = big_array(n), *c = big_array(n);
    for (size_t i = 0; i < n; i++) {
        a[i] = 1.0f;
        b[i] = (float)i;
        c[i] = 0;
    }
    double best_triad = 1e9, best_copy = 1e9;
    for (int r = 0; r < 10; r++) {
        double t = timed(0, threads, a, b, c, n);
        if (t < best_triad) best_triad = t;
        /* the copy limit is the fastest of the C library's memcpy, a plain loop and (on CPUs
         * with AVX-512) a loop of streaming stores: glibc's memcpy streams only past a
         * threshold it derives from the cache sizes the CPU reports, which these virtual
         * machines may not; streamed stores skip the read of each line a plain store does */
        int kinds = 2;
#ifdef __AVX512F__
        kinds = 3;
#endif
        for (int what = 1; what <= kinds; what++) {
            t = timed(what, threads, a, b, c, n);
            if (t < best_copy) best_copy = t;
        }
    }
    /* bytes moved, counted as the benchmarks count them: arrays read plus the array written */
    printf("LIMIT memory_bandwidth_triad %.2f GB/s\n", 3.0 * n * 4 / best_triad / 1e9);
    printf("LIMIT memory_bandwidth_copy %.2f GB/s\n", 2.0 * n * 4 / best_copy / 1e9);
    int m = 1024;
    float *x = malloc((size_t)m * m * 4), *y = malloc((size_t)m * m * 4),
          *z = malloc((size_t)m * m * 4);
    for (int i = 0; i < m * m; i++) {
        x[i] = (float)(i % 7);
        y[i] = (float)(i % 5);
    }
    double best = 1e9;
    for (int r = 0; r < 5; r++) {
        double t0 = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, x, m, y, m, 0.0f, z,
                    m);
        double t = now() - t0;
        if (t < best) best = t;
    }
    printf("LIMIT sgemm_1024_peak %.2f GFLOP/s\n", 2.0 * m * m * m / best / 1e9);
    printf("# checksum %g %g\n", (double)c[n / 2], (double)z[m]);
    free(a);
    free(b);
    free(c);
    free(x);
    free(y);
    free(z);
    return 0;
}
