/* cpu_gemm_nn_avx512.c: C = A B in float32 with AVX-512, for a convolution's forward and input
 * gradient: A is the weight (output channels x input channels and taps, or its transpose), B the
 * columns or a 1x1 layer's input planes (reduction x pixels, rows contiguous), C the output planes.
 *
 * Why not OpenBLAS's sgemm: a 1x1 layer (64 x 64 weights over a 56x56 plane, per sample) runs
 * at 87 GFLOP/s on 2 threads in OpenBLAS with the AVX2 kernels it takes on these machines
 * (OPENBLAS_CORETYPE=Haswell): the reduction is short (64), so its packing and thread start-up
 * are paid per sample; PyTorch's oneDNN runs that layer at about 224.
 *
 * The loop is the outer-product form: a block of MR rows of C and NR = 3 vectors of columns lives
 * in registers; for every step of the reduction, NV vectors of B's row are loaded and each of the
 * MR values of A is broadcast against them. The reduction goes in stretches of KC, so a stretch
 * of B's block of columns (KC x NR floats) stays in L1 while every row block of A passes. No
 * packing: each operand is read where it lies (A through a row and a column stride, so its
 * transpose costs nothing). Threads split C's blocks of columns. */
#include "cpu_kernels.h"
#include "mt_parallel.h"

#include <immintrin.h>

enum { MR = 6, NV = 3, NR = NV * 16, KC = 128 };

typedef struct {
    int64_t M, N, K, rsa, csa, ldb, ldc;
    const float *A, *B;
    float *C;
} nn_job;

/* c[i][0, NR) (= or +=) sum over k < kn of a[i][k * csa] b[k * ldb + (0, NR)], for i < MR
 * (the pointers of a block with fewer rows repeat its last row, so the loop is always the full
 * block); m masks the columns of each vector that exist */
static inline __attribute__((always_inline)) void block(const float *const *a, int64_t csa,
                                                        const float *b, int64_t ldb, int64_t kn,
                                                        float *const *c, const __mmask16 *m,
                                                        bool accumulate) {
    __m512 acc[MR][NV];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++)
            acc[i][v] =
                accumulate ? _mm512_maskz_loadu_ps(m[v], c[i] + 16 * v) : _mm512_setzero_ps();
    for (int64_t k = 0; k < kn; k++) {
        const float *bk = b + k * ldb;
        __m512 bv[NV];
        for (int v = 0; v < NV; v++) bv[v] = _mm512_maskz_loadu_ps(m[v], bk + 16 * v);
        for (int i = 0; i < MR; i++) {
            __m512 ai = _mm512_set1_ps(a[i][k * csa]);
            for (int v = 0; v < NV; v++) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
        }
    }
    /* every row of the block is stored, the repeated ones over the last row with its own values
     * (a bound on the row count would keep the accumulators in memory instead of registers) */
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++) _mm512_mask_storeu_ps(c[i] + 16 * v, m[v], acc[i][v]);
}

/* C's column blocks [q0, q1) (NR columns each) over all of its rows */
static void nn_part(void *job, int64_t q0, int64_t q1) {
    const nn_job *J = job;
    for (int64_t q = q0; q < q1; q++) {
        int64_t j = q * NR, left = J->N - j;
        __mmask16 m[NV];
        for (int v = 0; v < NV; v++) {
            int64_t cols = left - 16 * v;
            m[v] = cols >= 16 ? (__mmask16)0xFFFF
                   : cols > 0 ? (__mmask16)((1u << cols) - 1)
                              : (__mmask16)0;
        }
        for (int64_t k0 = 0; k0 < J->K; k0 += KC) {
            int64_t kn = J->K - k0 < KC ? J->K - k0 : KC;
            const float *b = J->B + k0 * J->ldb + j;
            for (int64_t i = 0; i < J->M; i += MR) {
                int mr = J->M - i < MR ? (int)(J->M - i) : MR;
                const float *a[MR];
                float *c[MR];
                for (int t = 0; t < MR; t++) {
                    int64_t r = i + (t < mr ? t : mr - 1);
                    a[t] = J->A + r * J->rsa + k0 * J->csa;
                    c[t] = J->C + r * J->ldc + j;
                }
                block(a, J->csa, b, J->ldb, kn, c, m, k0 > 0);
            }
        }
    }
}

void mt_cpu_sgemm_nn_avx512(int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa,
                            int64_t csa, const float *B, int64_t ldb, float *C, int64_t ldc) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) C[i * ldc + j] = 0;
        return;
    }
    nn_job J = {M, N, K, rsa, csa, ldb, ldc, A, B, C};
    int64_t blocks = (N + NR - 1) / NR;
    mt_parallel_range(blocks, mt_threads_for(M * N * K / 16), nn_part, &J);
}
