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
#include "cpu_transpose16_avx512.h" /* the library's 16 x 16 transpose through registers */
#endif

#ifdef __AVX512F__
/* out's columns [jb, jb + 16) = a's + b's rows there, b's 16 x 16 blocks transposed in registers
 * straight into the add, b asked for 64 rows ahead and a 32, every whole line of out streamed: a
 * column of 1000 floats starts on a line (even columns) or half-way into one (odd ones), so odd
 * columns take rows [i - 8, i + 8) of two consecutive blocks */
static void transposed_add_fused(const float *a_all, const float *b, float *out_all, int jb) {
    __m512 prev[16], r[16];
    for (int c = 0; c < 16; c++) r[c] = _mm512_setzero_ps();
    for (int i = 0; i < TR_ROWS + 8; i += 16) {
        int rows = TR_ROWS - i < 16 ? TR_ROWS - i : 16;
        if (i + 64 + 16 <= TR_ROWS)
            for (int k = 0; k < 16; k++)
                _mm_prefetch((const char *)(b + (long)(i + 64 + k) * TR_COLS + jb), _MM_HINT_T0);
        if (i + 32 + 16 <= TR_ROWS)
            for (int c = 0; c < 16; c++)
                _mm_prefetch((const char *)(a_all + (long)(jb + c) * TR_ROWS + i + 32),
                             _MM_HINT_T0);
        for (int k = 0; k < 16; k++) {
            prev[k] = r[k];
            r[k] =
                k < rows ? _mm512_loadu_ps(b + (long)(i + k) * TR_COLS + jb) : _mm512_setzero_ps();
        }
        mt_tr16_regs(r);
        for (int c = 0; c < 16; c++) {
            const float *a = a_all + (long)(jb + c) * TR_ROWS;
            float *o = out_all + (long)(jb + c) * TR_ROWS;
            if (c % 2 == 0 && rows == 16)
                _mm512_stream_ps(o + i, _mm512_add_ps(_mm512_load_ps(a + i), r[c]));
            else if (c % 2 == 0) /* the last 8 rows: half a line, shared with the next column */
                _mm512_mask_storeu_ps(o + i, 0xFF,
                                      _mm512_add_ps(_mm512_maskz_loadu_ps(0xFF, a + i), r[c]));
            else if (i == 0) /* the first 8 rows: the other half of that line */
                _mm512_mask_storeu_ps(o, 0xFF, _mm512_add_ps(_mm512_maskz_loadu_ps(0xFF, a), r[c]));
            else {
                __m512 v = _mm512_castsi512_ps(_mm512_alignr_epi32(
                    _mm512_castps_si512(r[c]), _mm512_castps_si512(prev[c]), 8));
                _mm512_stream_ps(o + i - 8, _mm512_add_ps(_mm512_load_ps(a + i - 8), v));
            }
        }
    }
}
#endif

/* out's columns [jb, jb + 16) = a's + b's rows there, read as `kind` says (0: a plain strided
 * loop; 1, 2: staged strips, 2 with a prefetch of each row's next strip before j1; 3: fused,
 * streamed, with prefetches) */
static void transposed_add_strip(const float *a_all, const float *b, float *out_all, int kind,
                                 int jb, int j1, float *buf) {
#ifdef __AVX512F__
    if (kind == 3) {
        transposed_add_fused(a_all, b, out_all, jb);
        return;
    }
    if (kind > 0) {
        /* staged: the strip of b (1000 rows x 16) transposed into buf through registers, then
         * out's 16 columns = a's + buf's rows, every operand read along its memory */
        int i = 0;
        for (; i + 16 <= TR_ROWS; i += 16) {
            if (kind == 2 && jb + 2 * TR_STRIP <= j1)
                for (int k = 0; k < 16; k++)
                    _mm_prefetch((const char *)(b + (long)(i + k) * TR_COLS + jb + TR_STRIP),
                                 _MM_HINT_T0);
            mt_tr16(b + (long)i * TR_COLS + jb, TR_COLS, 16, 0xFFFF, buf + i, TR_ROWS, 16, 0xFFFF);
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
enum { TRIAD, MEMCPY, COPY_LOOP, COPY_STREAM, TRANSPOSED_ADD /* + the kind of loop: 0 to 3 */ };

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
#ifdef __AVX512F__
    if (s->what >= TRANSPOSED_ADD) _mm_sfence(); /* the fused loop's streaming stores */
#endif
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
    tr_kinds = 4;
#endif
    for (int r = 0; r < 5; r++)
        for (int kind = 0; kind < tr_kinds; kind++) {
            double t = timed(TRANSPOSED_ADD + kind, threads, a, b, c, n);
            if (t < best_tr) best_tr = t;
        }
    /* the last kind's values (the fused loop where it runs), from a cleared result: both halves
     * of a line two columns share, an even and an odd column's streamed lines */
    memset(c, 0, n * 4);
    timed(TRANSPOSED_ADD + tr_kinds - 1, threads, a, b, c, n);
    static const int probe[][2] = {{5, 7}, {5, 999}, {6, 0}, {6, 995}, {4, 500}, {9999, 999}};
    for (int k = 0; k < (int)(sizeof probe / sizeof probe[0]); k++) {
        size_t j = (size_t)probe[k][0], i = (size_t)probe[k][1];
        if (c[j * TR_ROWS + i] != a[j * TR_ROWS + i] + b[i * TR_COLS + j]) {
            fprintf(stderr, "machine: the transposed add computed a wrong value\n");
            return 1;
        }
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
