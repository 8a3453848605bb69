/* machine.c: the machine's limits that benchmarks are judged against: memory bandwidth
 * (a STREAM-style triad and a copy over 10M floats) and OpenBLAS's sgemm peak. Prints lines
 * "LIMIT <name> <value> <unit>". */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    openblas_set_num_threads(threads);
    size_t n = 10 * 1000 * 1000;
    float *a = aligned_alloc(64, n * 4), *b = aligned_alloc(64, n * 4),
          *c = aligned_alloc(64, n * 4);
    for (size_t i = 0; i < n; i++) {
        a[i] = 1.0f;
        b[i] = (float)i;
        c[i] = 0;
    }
    double best_triad = 1e9, best_copy = 1e9;
    for (int r = 0; r < 10; r++) {
        double t0 = now();
        for (size_t i = 0; i < n; i++) c[i] = a[i] + 2.0f * b[i];
        double t1 = now();
        memcpy(a, c, n * 4);
        double t2 = now();
        if (t1 - t0 < best_triad) best_triad = t1 - t0;
        if (t2 - t1 < best_copy) best_copy = t2 - t1;
    }
    /* bytes moved: triad reads 2 arrays and writes 1 (the write also reads for ownership) */
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
