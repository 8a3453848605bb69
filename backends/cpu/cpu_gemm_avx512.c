/* cpu_gemm_avx512.c: C = alpha op(A) op(B) + beta C in float32 with AVX-512, the matrix products
 * of matmul, mm, bmm, addmm and linear on CPUs that have it.
 *
 * Why not OpenBLAS's sgemm here: Debian's OpenBLAS 0.3.21 runs its AVX2 (Haswell) kernels on
 * these AVX-512 machines (the environment sets OPENBLAS_CORETYPE=Haswell; its own detection
 * would pick Cooperlake): 1024 x 1024 reaches about 190 GFLOP/s on 2 threads where the FMA units
 * allow twice that. Its threads also contend with ours on 2 cores between calls (a training
 * step alternates products and element-wise work). doc/design.md has the measurements.
 *
 * The layout is the usual one of a blocked gemm (Goto's): a stretch of KC steps of the reduction
 * of B's columns is copied ("packed") into slivers of NR columns, each KC x NR floats,
 * contiguous; a block of MC rows of A into slivers of MR rows, k-major. The register block
 * (MR x NR: 12 rows, 2 vectors of 16 columns) adds one sliver of A times one of B into C. Packing
 * makes every operand layout the same (transposed views cost nothing more) and keeps the B sliver
 * in L1 while the A slivers of a block stream from L2. Edges are packed with zeros, so the
 * register block runs whole and only its stores are cut to the rows and columns that exist; a
 * last sliver of 4 or 8 rows or fewer runs a register block of that height.
 *
 * Threads split C into parts of whole slivers (columns when C is wider than tall, else rows);
 * each part packs what it reads into its own buffers. */
#include "cpu_kernels.h"
#include "cpu_transpose16_avx512.h"
#include "mt_parallel.h"
#include "mt_pool.h"

#include <immintrin.h>
#include <stdlib.h>

enum { MR = 12, NV = 2, NR = NV * 16, KC = 256, MC = 12 * MR, NC = 16 * NR };

typedef struct {
    int64_t M, N, K, rsa, csa, rsb, csb, ldc;
    const float *A, *B;
    float *C;
    float alpha, beta;
    const float *C0;    /* the term beta scales, when not C itself (addmm's bias) */
    int64_t rsc0, csc0; /* its strides (0 along a broadcast dim) */
    bool split_cols;    /* parts are ranges of NR-column slivers, else of MR-row slivers */
    int failed;         /* a part could not get its packing buffers */
} gemm_job;

/* the lanes of a vector that hold the first `cols` columns (any number, <= 0 too) */
static inline __mmask16 lanes(int64_t cols) {
    return cols >= 16 ? (__mmask16)0xFFFF : cols > 0 ? (__mmask16)((1u << cols) - 1) : 0;
}

/* Bp: kc x NR per sliver, the slivers of columns [j0, j0 + nc) of rows [k0, k0 + kc); columns
 * past N are zeros */
static void pack_b(const gemm_job *J, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *bp) {
    for (int64_t s = 0; s < nc; s += NR, bp += kc * NR) {
        int64_t w = nc - s < NR ? nc - s : NR;
        const float *b = J->B + k0 * J->rsb + (j0 + s) * J->csb;
        if (J->csb == 1) { /* rows of B are contiguous: vectors, masked at an edge */
            __mmask16 m[NV];
            for (int v = 0; v < NV; v++) m[v] = lanes(w - 16 * v);
            for (int64_t k = 0; k < kc; k++)
                for (int v = 0; v < NV; v++)
                    _mm512_store_ps(bp + k * NR + 16 * v,
                                    _mm512_maskz_loadu_ps(m[v], b + k * J->rsb + 16 * v));
            continue;
        }
        if (J->rsb == 1) { /* a transposed B (x W^T): columns contiguous, 16 x 16 transposes */
            for (int64_t k = 0; k < kc; k += 16) {
                int kn = kc - k < 16 ? (int)(kc - k) : 16;
                for (int v = 0; v < NV; v++) {
                    int64_t cols = w - 16 * v;
                    mt_tr16(b + (16 * v) * J->csb + k, J->csb,
                            cols < 0    ? 0
                            : cols > 16 ? 16
                                        : (int)cols,
                            lanes(kn), bp + k * NR + 16 * v, NR, kn, 0xFFFF);
                }
            }
            continue;
        }
        /* any other strides: column by column, each read along its own stride */
        for (int64_t j = 0; j < NR; j++)
            if (j < w)
                for (int64_t k = 0; k < kc; k++) bp[k * NR + j] = b[k * J->rsb + j * J->csb];
            else
                for (int64_t k = 0; k < kc; k++) bp[k * NR + j] = 0;
    }
}

/* Ap: kc x MR per sliver (k-major), the slivers of rows [i0, i0 + mc) of columns [k0, k0 + kc);
 * rows past M are zeros */
static void pack_a(const gemm_job *J, int64_t i0, int64_t mc, int64_t k0, int64_t kc, float *ap) {
    for (int64_t s = 0; s < mc; s += MR, ap += kc * MR) {
        int64_t h = mc - s < MR ? mc - s : MR;
        const float *a = J->A + (i0 + s) * J->rsa + k0 * J->csa;
        if (J->rsa == 1 && h == MR) { /* a transposed A: MR rows of it are contiguous */
            __mmask16 m = (__mmask16)((1u << MR) - 1);
            for (int64_t k = 0; k < kc; k++)
                _mm512_mask_storeu_ps(ap + k * MR, m, _mm512_maskz_loadu_ps(m, a + k * J->csa));
            continue;
        }
        if (J->csa == 1) { /* rows of A contiguous: 16 x 16 transposes, MR lanes stored */
            for (int64_t k = 0; k < kc; k += 16) {
                int kn = kc - k < 16 ? (int)(kc - k) : 16;
                mt_tr16(a + k, J->rsa, (int)h, lanes(kn), ap + k * MR, MR, kn, lanes(MR));
            }
            continue;
        }
        for (int64_t i = 0; i < MR; i++)
            if (i < h)
                for (int64_t k = 0; k < kc; k++) ap[k * MR + i] = a[i * J->rsa + k * J->csa];
            else
                for (int64_t k = 0; k < kc; k++) ap[k * MR + i] = 0;
    }
}

/* c[0, mr) x [columns of m] = alpha * (ap sliver x bp sliver) + sscale * s, s (rows srs apart,
 * columns contiguous) being c itself or the term addmm adds (s not read when sscale is 0: beta 0
 * overwrites, NaN in C included, as in BLAS) */
static inline __attribute__((always_inline)) void block(int rows, int64_t kc, const float *ap,
                                                        const float *bp, float *c, int64_t ldc,
                                                        int64_t mr, const __mmask16 *m, float alpha,
                                                        const float *s, int64_t srs, float sscale) {
    __m512 acc[MR][NV];
    for (int i = 0; i < rows; i++)
        for (int v = 0; v < NV; v++) acc[i][v] = _mm512_setzero_ps();
    for (int64_t k = 0; k < kc; k++, ap += MR, bp += NR) {
        __m512 b[NV];
        for (int v = 0; v < NV; v++) b[v] = _mm512_load_ps(bp + 16 * v);
        for (int i = 0; i < rows; i++) {
            __m512 a = _mm512_set1_ps(ap[i]);
            for (int v = 0; v < NV; v++) acc[i][v] = _mm512_fmadd_ps(a, b[v], acc[i][v]);
        }
    }
    __m512 al = _mm512_set1_ps(alpha), ss = _mm512_set1_ps(sscale);
    for (int i = 0; i < rows; i++) {
        if (i >= mr) break;
        float *ci = c + i * ldc;
        const float *si = s + i * srs;
        for (int v = 0; v < NV; v++) {
            __m512 r = _mm512_mul_ps(al, acc[i][v]);
            if (sscale == 1)
                r = _mm512_fmadd_ps(al, acc[i][v], _mm512_maskz_loadu_ps(m[v], si + 16 * v));
            else if (sscale != 0)
                r = _mm512_fmadd_ps(al, acc[i][v],
                                    _mm512_mul_ps(ss, _mm512_maskz_loadu_ps(m[v], si + 16 * v)));
            _mm512_mask_storeu_ps(ci + 16 * v, m[v], r);
        }
    }
}

/* rows [i0, i1) x columns [j0, j1) of C, the whole reduction */
static void gemm_tile(gemm_job *J, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    /* buffers as large as this tile needs (a small product should not touch 640 KiB) */
    int64_t kcap = J->K < KC ? J->K : KC, ncap = j1 - j0 < NC ? j1 - j0 : NC;
    int64_t mcap = i1 - i0 < MC ? i1 - i0 : MC;
    size_t bbytes = (size_t)kcap * (size_t)((ncap + NR - 1) / NR * NR) * sizeof(float);
    size_t abytes = (size_t)kcap * (size_t)((mcap + MR - 1) / MR * MR) * sizeof(float);
    float *bp = mt_pool_alloc_aligned(bbytes), *ap = mt_pool_alloc_aligned(abytes);
    if (!bp || !ap) {
        mt_pool_free_aligned(bp, bbytes);
        mt_pool_free_aligned(ap, abytes);
        __atomic_store_n(&J->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t jc = j0; jc < j1; jc += NC) {
        int64_t nc = j1 - jc < NC ? j1 - jc : NC;
        for (int64_t pc = 0; pc < J->K; pc += KC) {
            int64_t kc = J->K - pc < KC ? J->K - pc : KC;
            /* the first stretch adds beta times C's term (C, or C0 when given: read in place
             * when its columns are contiguous, else first copied into this part of C), the
             * others what C holds so far */
            bool first = pc == 0, c0 = first && J->C0 && J->csc0 == 1;
            float sscale = first ? J->beta : 1;
            int64_t srs = c0 ? J->rsc0 : J->ldc;
            if (first && J->C0 && !c0 && J->beta != 0)
                for (int64_t i = i0; i < i1; i++)
                    for (int64_t j = jc; j < jc + nc; j++)
                        J->C[i * J->ldc + j] = J->C0[i * J->rsc0 + j * J->csc0];
            pack_b(J, pc, kc, jc, nc, bp);
            for (int64_t ic = i0; ic < i1; ic += MC) {
                int64_t mc = i1 - ic < MC ? i1 - ic : MC;
                pack_a(J, ic, mc, pc, kc, ap);
                for (int64_t jr = 0; jr < nc; jr += NR) {
                    __mmask16 m[NV];
                    for (int v = 0; v < NV; v++) m[v] = lanes(nc - jr - 16 * v);
                    const float *bs = bp + jr * kc;
                    for (int64_t ir = 0; ir < mc; ir += MR) {
                        float *c = J->C + (ic + ir) * J->ldc + jc + jr;
                        const float *src = c0 ? J->C0 + (ic + ir) * srs + jc + jr : c;
                        /* the last sliver of a block, when it has 4 or 8 rows or fewer, by a
                         * register block of that height (a product of 64 rows computed 72) */
                        int64_t mr = mc - ir;
                        if (mr <= 4)
                            block(4, kc, ap + ir * kc, bs, c, J->ldc, mr, m, J->alpha, src, srs,
                                  sscale);
                        else if (mr <= 8)
                            block(8, kc, ap + ir * kc, bs, c, J->ldc, mr, m, J->alpha, src, srs,
                                  sscale);
                        else
                            block(MR, kc, ap + ir * kc, bs, c, J->ldc, mr, m, J->alpha, src, srs,
                                  sscale);
                    }
                }
            }
        }
    }
    mt_pool_free_aligned(bp, bbytes);
    mt_pool_free_aligned(ap, abytes);
}

static void gemm_part(void *job, int64_t q0, int64_t q1) {
    gemm_job *J = job;
    if (J->split_cols) {
        int64_t j1 = q1 * NR < J->N ? q1 * NR : J->N;
        gemm_tile(J, 0, J->M, q0 * NR, j1);
    } else {
        int64_t i1 = q1 * MR < J->M ? q1 * MR : J->M;
        gemm_tile(J, q0 * MR, i1, 0, J->N);
    }
}

int mt_cpu_sgemm_avx512_c0(int64_t M, int64_t N, int64_t K, float alpha, const float *A,
                           int64_t rsa, int64_t csa, const float *B, int64_t rsb, int64_t csb,
                           float beta, const float *C0, int64_t rsc0, int64_t csc0, float *C,
                           int64_t ldc) {
    if (M <= 0 || N <= 0) return 0;
    if (K <= 0 || alpha == 0) { /* no product: C = beta C0, 0 overwriting (NaN included) */
        if (C0 || beta != 1)
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++)
                    C[i * ldc + j] = beta == 0 ? 0
                                     : C0      ? beta * C0[i * rsc0 + j * csc0]
                                               : beta * C[i * ldc + j];
        return 0;
    }
    gemm_job J = {.M = M,
                  .N = N,
                  .K = K,
                  .rsa = rsa,
                  .csa = csa,
                  .rsb = rsb,
                  .csb = csb,
                  .ldc = ldc,
                  .A = A,
                  .B = B,
                  .C = C,
                  .alpha = alpha,
                  .beta = beta,
                  .C0 = C0,
                  .rsc0 = rsc0,
                  .csc0 = csc0,
                  .split_cols = N >= M};
    int64_t parts = J.split_cols ? (N + NR - 1) / NR : (M + MR - 1) / MR;
    mt_parallel_range(parts, mt_threads_for(M * N * K / 64), gemm_part, &J);
    return J.failed ? mt_error(MT_ERR_MEMORY, "out of memory in a matrix product") : 0;
}

int mt_cpu_sgemm_avx512(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t rsa,
                        int64_t csa, const float *B, int64_t rsb, int64_t csb, float beta, float *C,
                        int64_t ldc) {
    return mt_cpu_sgemm_avx512_c0(M, N, K, alpha, A, rsa, csa, B, rsb, csb, beta, NULL, 0, 0, C,
                                  ldc);
}
