/* cpu_gemm_nt_avx512.c: C += A B^T in float32 with AVX-512, for products whose operands both run
 * along the reduction (rows of A and of B contiguous) and whose result is small: a convolution's
 * weight gradient, (output channels) x (input channels x taps) summed over every output pixel.
 *
 * Why not OpenBLAS's sgemm: on that shape (64 x 576, reduction 3136: a ResNet block's 3x3 layer)
 * it runs at 160 GFLOP/s on 2 threads with the AVX2 kernels it takes on these machines
 * (OPENBLAS_CORETYPE=Haswell), this loop at 230-250: the weight gradient was a ResNet block's
 * slowest part.
 *
 * The loop is the dot-product form: a block of MR rows of A and NR rows of B keeps MR x NR
 * vectors of partial sums in registers over a stretch of the reduction (PC elements, so the
 * block's rows of B stay in L1 while every row block of A passes), then adds their horizontal
 * sums to C. No packing: each operand is read where it lies. Threads split B's rows. */
#include "cpu_kernels.h"
#include "mt_parallel.h"

#include <immintrin.h>

enum { MR = 4, NR = 6, PC = 1024 };

/* c[i][j] += sum over p < n of a[i][p] b[j][p], for i < mr, j < nr (the pointers past mr and nr
 * repeat the last valid row, so the loop is always the full block) */
static inline __attribute__((always_inline)) void
block(const float *const *a, const float *const *b, int64_t n, float *const *c, int mr, int nr) {
    __m512 acc[MR][NR];
    for (int i = 0; i < MR; i++)
        for (int j = 0; j < NR; j++) acc[i][j] = _mm512_setzero_ps();
    int64_t p = 0;
    for (; p + 16 <= n; p += 16) {
        __m512 av[MR];
        for (int i = 0; i < MR; i++) av[i] = _mm512_loadu_ps(a[i] + p);
        for (int j = 0; j < NR; j++) {
            __m512 bv = _mm512_loadu_ps(b[j] + p);
            for (int i = 0; i < MR; i++) acc[i][j] = _mm512_fmadd_ps(av[i], bv, acc[i][j]);
        }
    }
    if (p < n) {
        __mmask16 m = (__mmask16)((1u << (n - p)) - 1);
        __m512 av[MR];
        for (int i = 0; i < MR; i++) av[i] = _mm512_maskz_loadu_ps(m, a[i] + p);
        for (int j = 0; j < NR; j++) {
            __m512 bv = _mm512_maskz_loadu_ps(m, b[j] + p);
            for (int i = 0; i < MR; i++) acc[i][j] = _mm512_fmadd_ps(av[i], bv, acc[i][j]);
        }
    }
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < nr; j++) c[i][j] += _mm512_reduce_add_ps(acc[i][j]);
}

typedef struct {
    int64_t M, N, P, lda, ldb, ldc;
    const float *A, *B;
    const float *const *brows; /* B's rows where they lie, or NULL: row j at B + j * ldb */
    float *C;
} nt_job;

/* the row blocks [q0, q1) of B (NR rows each) against all of A */
static void nt_part(void *job, int64_t q0, int64_t q1) {
    const nt_job *J = job;
    int64_t j1 = q1 * NR < J->N ? q1 * NR : J->N;
    for (int64_t p0 = 0; p0 < J->P; p0 += PC) {
        int64_t pn = J->P - p0 < PC ? J->P - p0 : PC;
        for (int64_t j = q0 * NR; j < j1; j += NR) {
            int nr = j1 - j < NR ? (int)(j1 - j) : NR;
            const float *b[NR];
            for (int t = 0; t < NR; t++) {
                int64_t r = j + (t < nr ? t : nr - 1);
                b[t] = (J->brows ? J->brows[r] : J->B + r * J->ldb) + p0;
            }
            for (int64_t i = 0; i < J->M; i += MR) {
                int mr = J->M - i < MR ? (int)(J->M - i) : MR;
                const float *a[MR];
                float *c[MR];
                for (int t = 0; t < MR; t++) {
                    a[t] = J->A + (i + (t < mr ? t : mr - 1)) * J->lda + p0;
                    c[t] = J->C + (i + (t < mr ? t : mr - 1)) * J->ldc + j;
                }
                block(a, b, pn, c, mr, nr);
            }
        }
    }
}

void mt_cpu_sgemm_nt_avx512(int64_t M, int64_t N, int64_t P, const float *A, int64_t lda,
                            const float *B, int64_t ldb, float *C, int64_t ldc) {
    if (M <= 0 || N <= 0 || P <= 0) return;
    nt_job J = {M, N, P, lda, ldb, ldc, A, B, NULL, C};
    int64_t blocks = (N + NR - 1) / NR;
    mt_parallel_range(blocks, mt_threads_for(M * N * P / 16), nt_part, &J);
}

void mt_cpu_sgemm_nt_rows_avx512(int64_t M, int64_t N, int64_t P, const float *A, int64_t lda,
                                 const float *const *brows, float *C, int64_t ldc) {
    if (M <= 0 || N <= 0 || P <= 0) return;
    nt_job J = {M, N, P, lda, 0, ldc, A, NULL, brows, C};
    int64_t blocks = (N + NR - 1) / NR;
    mt_parallel_range(blocks, mt_threads_for(M * N * P / 16), nt_part, &J);
}
