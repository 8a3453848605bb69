/* machine.c: the machine's limits that benchmarks are judged against: memory bandwidth
 * (a STREAM-style triad and a copy over 10M floats, on the run's thread count), the fastest C
 * loop found for bench/ops' transposed add (the same access pattern, for comparison: no goal is
 * judged against it) and OpenBLAS's sgemm peak. Prints lines "LIMIT <name> <value> <unit>". */
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

/* bench/ops' transposed add in C: out and a are 1000 x 10000 with strides (1, 1000) (a
 * transposed view of a row-major 10000 x 1000 array), b is row-major 1000 x 10000, out = a + b.
 * Along out's memory order b advances 40000 bytes an element: one operand of three is read
 * across its rows however the loop is ordered. Each thread takes a range of the 10000 columns
 * in strips of 16 (64 bytes of each row of b); the fastest of the loops below is the limit. */
#define TR_ROWS 1000
#define TR_COLS 10000
#define TR_STRIP 16

#ifdef __AVX512F__
/* dst row c (stride dld floats) = column c of the 16 x 16 block at src (row stride sld) */
static void transpose16(const float *src, long sld, float *dst, long dld) {
    __m512 r[16], t[16];
    for (int k = 0; k < 16; k++) r[k] = _mm512_loadu_ps(src + k * sld);
    for (int k = 0; k < 16; k += 2) {
        t[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
    }
    for (int k = 0; k < 16; k += 4) {
        __m512d lo0 = _mm512_castps_pd(t[k]), hi0 = _mm512_castps_pd(t[k + 1]);
        __m512d lo1 = _mm512_castps_pd(t[k + 2]), hi1 = _mm512_castps_pd(t[k + 3]);
        r[k] = _mm512_castpd_ps(_mm512_unpacklo_pd(lo0, lo1));
        r[k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(lo0, lo1));
        r[k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(hi0, hi1));
        r[k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(hi0, hi1));
    }
    for (int m = 0; m < 4; m++) {
        __m512 v0 = _mm512_shuffle_f32x4(r[m], r[4 + m], 0x88);
        __m512 v1 = _mm512_shuffle_f32x4(r[m], r[4 + m], 0xdd);
        __m512 w0 = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0x88);
        __m512 w1 = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0xdd);
        _mm512_storeu_ps(dst + m * dld, _mm512_shuffle_f32x4(v0, w0, 0x88));
        _mm512_storeu_ps(dst + (4 + m) * dld, _mm512_shuffle_f32x4(v1, w1, 0x88));
        _mm512_storeu_ps(dst + (8 + m) * dld, _mm512_shuffle_f32x4(v0, w0, 0xdd));
        _mm512_storeu_ps(dst + (12 + m) * dld, _mm512_shuffle_f32x4(v1, w1, 0xdd));
    }
}
#endif

/* out's columns [jb, jb + 16) = a's + b's rows there, read as `kind` says (0: a plain strided
 * loop; 1, 2: staged strips, 2 with a prefetch of each row's next strip before j1) */
static void transposed_add_strip(const float *a_all, const float *b, float *out_all, int kind,
                                 int jb, int j1, float *buf) {
#ifdef __AVX512F__
    if (kind > 0) {
        /* staged: the strip of b (1000 rows x 16) transposed into buf through registers, then
         * out's 16 columns = a's + buf's rows, every operand read along its memory */
        int i = 0;
        for (; i + 16 <= TR_ROWS; i += 16) {
            if (kind == 2 && jb + 2 * TR_STRIP <= j1)
                for (int k = 0; k < 16; k++)
                    _mm_prefetch((const char *)(b + (long)(i + k) * TR_COLS + jb + TR_STRIP),
                                 _MM_HINT_T0);
            transpose16(b + (long)i * TR_COLS + jb, TR_COLS, buf + i, TR_ROWS);
        }
        for (; i < TR_ROWS; i++)
            for (int c = 0; c < TR_STRIP; c++) buf[c * TR_ROWS + i] = b[(long)i * TR_COLS + jb + c];
        for (int c = 0; c < TR_STRIP; c++) {
            const float *a = a_all + (long)(jb + c) * TR_ROWS, *x = buf + c * TR_ROWS;
            float *o = out_all + (long)(jb + c) * TR_ROWS;
            for (int k = 0; k < TR_ROWS; k++) o[k] = a[k] + x[k];
        }
        return;
    }
#endif
    (void)buf, (void)kind, (void)j1; /* the staged loops need AVX-512 */
    for (int c = 0; c < TR_STRIP; c++) {
        const float *a = a_all + (long)(jb + c) * TR_ROWS, *x = b + jb + c;
        float *o = out_all + (long)(jb + c) * TR_ROWS;
        for (int k = 0; k < TR_ROWS; k++) o[k] = a[k] + x[(long)k * TR_COLS];
    }
}

/* the copy, the triad and the transposed add, each thread on its slice of the arrays (the thread
 * count of the run: the element-wise benchmarks they are the limit for run on as many threads) */
enum { TRIAD, MEMCPY, COPY_LOOP, COPY_STREAM, TRANSPOSED_ADD /* + the kind of loop: 0, 1, 2 */ };

typedef struct slice {
    float *a, *b, *c;
    size_t n;   /* the elements of a, b and c from the slice's start */
    int j0, j1; /* the transposed add's columns */
    int what;
    pthread_barrier_t *start;
    double t0, t1;
} slice;

static void *run_slice(void *arg) {
    slice *s = arg;
    float *buf = NULL;
    if (s->what >= TRANSPOSED_ADD && !(buf = aligned_alloc(64, sizeof(float) * TR_ROWS * TR_STRIP)))
        exit(1);
    pthread_barrier_wait(s->start);
    s->t0 = now();
    if (s->what >= TRANSPOSED_ADD)
        for (int jb = s->j0; jb < s->j1; jb += TR_STRIP)
            transposed_add_strip(s->a, s->b, s->c, s->what - TRANSPOSED_ADD, jb, s->j1, buf);
    else if (s->what == TRIAD)
        for (size_t i = 0; i < s->n; i++) s->c[i] = s->a[i] + 2.0f * s->b[i];
    else if (s->what == MEMCPY)
        memcpy(s->a, s->c, s->n * 4);
    else if (s->what ==
             COPY_LOOP) /* built with -fno-tree-loop-distribute-patterns: not a memcpy call */
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
    free(buf);
    return NULL;
}

static double timed(int what, int threads, float *a, float *b, float *c, size_t n) {
    pthread_t tid[64];
    slice sl[64];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    /* slices of whole 64-byte lines (the streaming copy needs them aligned) */
    size_t per = ((n + (size_t)threads - 1) / (size_t)threads + 15) & ~(size_t)15;
    int strips = TR_COLS / TR_STRIP, per_t = (strips + threads - 1) / threads;
    for (int t = 0; t < threads; t++) {
        if (what >= TRANSPOSED_ADD) { /* whole strips of columns; the arrays whole */
            int lo = t * per_t < strips ? t * per_t : strips;
            int hi = lo + per_t < strips ? lo + per_t : strips;
            sl[t] = (slice){a, b, c, n, lo * TR_STRIP, hi * TR_STRIP, what, &start, 0, 0};
        } else {
            size_t lo = (size_t)t * per < n ? (size_t)t * per : n;
            size_t hi = lo + per < n ? lo + per : n;
            sl[t] = (slice){a + lo, b + lo, c + lo, hi - lo, 0, 0, what, &start, 0, 0};
        }
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
        double t = timed(TRIAD, threads, a, b, c, n);
        if (t < best_triad) best_triad = t;
        /* the copy limit is the fastest of the C library's memcpy, a plain loop and (on CPUs
         * with AVX-512) a loop of streaming stores: glibc's memcpy streams only past a
         * threshold it derives from the cache sizes the CPU reports, which these virtual
         * machines may not; streamed stores skip the read of each line a plain store does */
        int last = COPY_LOOP;
#ifdef __AVX512F__
        last = COPY_STREAM;
#endif
        for (int what = MEMCPY; what <= last; what++) {
            t = timed(what, threads, a, b, c, n);
            if (t < best_copy) best_copy = t;
        }
    }
    /* bytes moved, counted as the benchmarks count them: arrays read plus the array written */
    printf("LIMIT memory_bandwidth_triad %.2f GB/s\n", 3.0 * n * 4 / best_triad / 1e9);
    printf("LIMIT memory_bandwidth_copy %.2f GB/s\n", 2.0 * n * 4 / best_copy / 1e9);
    /* the transposed add: c = a' + b (n = TR_ROWS * TR_COLS) */
    double best_tr = 1e9;
    int tr_kinds = 1;
#ifdef __AVX512F__
    tr_kinds = 3;
#endif
    for (int r = 0; r < 5; r++)
        for (int kind = 0; kind < tr_kinds; kind++) {
            double t = timed(TRANSPOSED_ADD + kind, threads, a, b, c, n);
            if (t < best_tr) best_tr = t;
        }
    if (c[(size_t)5 * TR_ROWS + 7] != a[(size_t)5 * TR_ROWS + 7] + b[(size_t)7 * TR_COLS + 5]) {
        fprintf(stderr, "machine: the transposed add computed a wrong value\n");
        return 1;
    }
    printf("LIMIT transposed_add_10M %.2f GB/s\n", 3.0 * n * 4 / best_tr / 1e9);
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
