/* cpu_kernels.h: the CPU backend's kernels, shared between its files and its registration. */
#ifndef MT_CPU_KERNELS_H
#define MT_CPU_KERNELS_H

#include "cpu_iter.h"
#include "mt_dispatch.h"

/* Copy src into dst (src broadcasts to dst; any dtypes). */
int mt_cpu_copy(mt_tensor *dst, mt_tensor *src);
/* Fill t with a scalar converted to t's dtype. */
int mt_cpu_fill(mt_tensor *t, mt_value value);
/* t as a contiguous tensor of dtype dt: a new reference (t itself when it already is one) */
mt_tensor *mt_cpu_as_dense(mt_tensor *t, mt_dtype dt);

int mt_cpu_copy_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_clone_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_fill_scalar_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_fill_tensor_impl(mt_call *c, mt_value *args, mt_value *rets);

/* creation */
int mt_cpu_empty_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_zeros_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_ones_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_full_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_arange_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_linspace_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_logspace_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_range_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_eye_impl(mt_call *c, mt_value *args, mt_value *rets);

int mt_cpu_ew_impl(mt_call *c, mt_value *args, mt_value *rets);
void mt_cpu_ew_register(void);

int mt_cpu_linalg_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_reduce_impl(mt_call *c, mt_value *args, mt_value *rets);
int mt_cpu_dimop_impl(mt_call *c, mt_value *args, mt_value *rets);

void mt_cpu_index_register(void);
void mt_cpu_adv_index_register(void);
void mt_cpu_random_register(void);
void mt_cpu_blas_register(void);
const char *mt_cpu_blas_config(void);
void mt_cpu_conv_register(void);
/* exp of float32 with AVX-512F (cpu_exp_avx512.c): an mt_loop_fn (data[0] out, data[1] in) */
void mt_cpu_exp_f32_avx512(char **data, const int64_t *strides, int64_t n, void *ctx);
/* the float32 loop of a family (MT_F_ADD, _SUB, _MUL, _DIV and the alpha variants) that writes
 * its result with streaming stores, or NULL (cpu_ew_stream_avx512.c; AVX-512F CPUs only) */
mt_loop_fn mt_cpu_ew_stream_f32(int fam);
/* the float32 tile kernel of a family (MT_F_ADD, _SUB, _MUL, _DIV and the alpha variants) for a
 * tiled iteration with a transposed input, writing with streaming stores, or NULL where the
 * family or the operands' layout has none (cpu_ew_tile_avx512.c; AVX-512F CPUs only) */
mt_tile_fn mt_cpu_ew_stream_tile_f32(int fam, const mt_iter *it);
/* the same for a copy of 4-byte elements from a transposed source (no ctx), or NULL */
mt_tile_fn mt_cpu_copy_stream_tile4(const mt_iter *it);
/* A conversion loop that writes with streaming stores (cpu_cast_stream_avx512.c) for the pair
 * (dst, src), or NULL; AVX-512F CPUs only. Its ctx names the ordinary loop of the pair, which
 * it leaves strided rows, edges and values out of range to. */
typedef struct {
    mt_loop_fn plain;
} mt_cpu_cast_ctx;
mt_loop_fn mt_cpu_cast_stream(mt_dtype dst, mt_dtype src);
void mt_cpu_batch_norm_register(void);
/* C (M x N, row stride ldc) += A (M x P) B^T (B: N x P), float32, on CPUs with AVX-512F only
 * (cpu_gemm_nt_avx512.c) */
void mt_cpu_sgemm_nt_avx512(int64_t M, int64_t N, int64_t P, const float *A, int64_t lda,
                            const float *B, int64_t ldb, float *C, int64_t ldc);
/* the same with B's rows anywhere: row j of B at brows[j] */
void mt_cpu_sgemm_nt_rows_avx512(int64_t M, int64_t N, int64_t P, const float *A, int64_t lda,
                                 const float *const *brows, float *C, int64_t ldc);
/* C (M x N, row stride ldc) = A (M x K; element (i, k) at A[i * rsa + k * csa]) B (K x N, row
 * stride ldb), float32, on CPUs with AVX-512F only (cpu_gemm_nn_avx512.c) */
void mt_cpu_sgemm_nn_avx512(int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa,
                            int64_t csa, const float *B, int64_t ldb, float *C, int64_t ldc);
/* C (M x N, row stride ldc) = alpha A B + beta C, float32, any strides of A (M x K) and B
 * (K x N); 0, or -1 with the error set (out of memory); CPUs with AVX-512F only
 * (cpu_gemm_avx512.c) */
int mt_cpu_sgemm_avx512(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t rsa,
                        int64_t csa, const float *B, int64_t rsb, int64_t csb, float beta, float *C,
                        int64_t ldc);
/* randn's float32 Box-Muller transform of one block of 16 uniforms in place (doc/rng.md, 4A), bit
 * for bit the lane-by-lane version's; CPUs with AVX2 and FMA only (cpu_random_avx2.c) */
void mt_cpu_normal_block_f32_avx2(float *d, float mean, float std);
/* the same with C = alpha A B + beta C0, C0 read with strides rsc0 and csc0 (0 along a dim it is
 * broadcast on: addmm's bias) and not overlapping C */
int mt_cpu_sgemm_avx512_c0(int64_t M, int64_t N, int64_t K, float alpha, const float *A,
                           int64_t rsa, int64_t csa, const float *B, int64_t rsb, int64_t csb,
                           float beta, const float *C0, int64_t rsc0, int64_t csc0, float *C,
                           int64_t ldc);
/* dst row j (dld bytes apart) = column j of a rows x cols block of 4-byte elements at src (rows
 * s0 bytes apart, columns contiguous); CPUs with AVX-512F only (cpu_transpose_avx512.c) */
void mt_cpu_transpose4_avx512(const char *src, int64_t s0, int64_t rows, int64_t cols, char *dst,
                              int64_t dld);
void mt_cpu_pool_register(void);
/* out[r] = the sum (or, when mean, the mean) of row r of 16 float32 rows of n <= MT_SUM_BLOCK
 * values, ld floats apart, as one row at a time would give it; CPUs with AVX-512F only
 * (cpu_reduce_rows_avx512.c) */
void mt_cpu_sum_rows16_f32(const float *x, int64_t ld, int64_t n, bool mean, float *out);
/* float32 max pooling of planes [p0, p1) with 2 x 2 windows at stride 2, where
 * mt_cpu_max_pool_2x2_fits (cpu_pool_avx512.c, AVX-512F) */
struct mt_pool_geom;
bool mt_cpu_max_pool_2x2_fits(const struct mt_pool_geom *g);
void mt_cpu_max_pool_2x2_f32(const struct mt_pool_geom *g, const float *in, float *out,
                             int64_t *idx, int64_t p0, int64_t p1);
void mt_cpu_nll_loss_register(void);
/* softmax (log: log_softmax) of one float32 row, y may be x (cpu_softmax_avx512.c, AVX-512F) */
void mt_cpu_softmax_row_f32_avx512(bool log, const float *x, float *y, int64_t n);
void mt_cpu_lapack_register(void);
void mt_cpu_lapack_spectral_register(void);
void mt_cpu_scatter_reduce_register(void);
void mt_cpu_stats_register(void);
void mt_cpu_reduce_select(void); /* the reduction loops the CPU can run */

void mt_cpu_register(void);

#endif
