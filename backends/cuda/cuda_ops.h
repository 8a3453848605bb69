/* cuda_ops.h: the CUDA module's kernel tables (registered by cuda_module.c) and what they share. */
#ifndef MT_CUDA_OPS_H
#define MT_CUDA_OPS_H

#include "cuda_runtime.h"
#include "mt_dispatch.h"

extern int cuda_devtype; /* the "cuda" device type the core gave the module */
/* the core ops the kernels call, looked up by name at registration */
extern const mt_op *cuda_op_contiguous, *cuda_op_copy_;

extern const mt_kernel_entry cuda_copy_kernels[], cuda_ew_kernels[], cuda_reduce_kernels[],
    cuda_index_kernels[], cuda_blas_kernels[], cuda_conv_kernels[], cuda_random_kernels[],
    cuda_shape_kernels[], cuda_sort_kernels[], cuda_select_kernels[], cuda_unique_kernels[],
    cuda_factory_kernels[], cuda_linalg_kernels[], cuda_special_kernels[];
extern const size_t cuda_copy_kernels_count, cuda_ew_kernels_count, cuda_reduce_kernels_count,
    cuda_index_kernels_count, cuda_blas_kernels_count, cuda_conv_kernels_count,
    cuda_random_kernels_count, cuda_shape_kernels_count, cuda_sort_kernels_count,
    cuda_select_kernels_count, cuda_unique_kernels_count, cuda_factory_kernels_count,
    cuda_linalg_kernels_count, cuda_special_kernels_count;

/* out = op(in[0 .. nin), s1, alpha) element-wise on out's device (the kernels/ck_args.h
 * operations): inputs broadcast to out and are converted, the operation computes in `compute`'s
 * type (float for the half types), the value is converted to out's dtype. s1 is the scalar
 * second operand or the fill value, alpha the multiplier of add, sub, addcmul ... (either may
 * be NULL). 0, or -1 with the error set. */
int cuda_ew(mt_tensor *out, int op, int nin, mt_tensor *const *in, const mt_value *s1,
            const mt_value *alpha, mt_dtype compute);

/* cuda_ew with the sequences' two further parameters (ck_ew_args' s2 and s3) */
int cuda_ew_ex(mt_tensor *out, int op, int nin, mt_tensor *const *in, const mt_value *s1,
               const mt_value *alpha, double s2, double s3, mt_dtype compute);

/* a contiguous t set to zeros (a driver memset on its device's current stream) */
int cuda_zero(mt_tensor *t);

/* byte copies for the core (storage copies, pinned transfers): synchronous */
int cuda_copy_bytes(void *dst, mt_device dd, const void *src, mt_device sd, size_t n);

/* out = self gathered along dim at index (index and out of one shape), on the device */
int cuda_gather(mt_tensor *self, int dim, mt_tensor *index, mt_tensor *out);

/* Sort self along dim d (stable; NaN after every number ascending, before it descending); store
 * sorted positions [skip, skip + keep) of each row into vals and their 0-based places in self into
 * inds (whose dim d has keep entries, or is absent when squeeze is set). cuda_ops_sort.c. */
int cuda_sort_rows(mt_tensor *self, int d, bool desc, int64_t keep, int64_t skip, mt_tensor *vals,
                   mt_tensor *inds, bool squeeze);

/* The n int64 of a device tensor (counts of parts, written by the stream's work so far) replaced
 * by their exclusive prefix sums, through the host (which waits for the stream); their sum in
 * *total: a count pass's parts learn where their output starts. cuda_ops_select.c. */
int cuda_scan_counts(mt_tensor *counts, int64_t n, int64_t *total);

/* t itself when contiguous, else a contiguous copy on its device (a new reference either way);
 * NULL with the error set */
mt_tensor *cuda_dense(mt_tensor *t);

/* A row-major matrix operand of cuda_gemm: stored as it is (rows of ld elements) or, with trans,
 * stored transposed; batch_stride elements between the matrices of a batch (0: one for all). */
typedef struct cuda_matrix {
    const void *p;
    int64_t ld, batch_stride;
    bool trans;
} cuda_matrix;

/* For each b < batch: C[b] (M x N, rows of ldc) = alpha * A[b] (M x K) B[b] (K x N) +
 * beta * C[b], on the current stream of `device` (cuBLAS; float32, float64, float16, bfloat16). */
int cuda_gemm(int device, mt_dtype dt, int64_t batch, int64_t M, int64_t N, int64_t K, double alpha,
              cuda_matrix A, cuda_matrix B, double beta, void *C, int64_t ldc, int64_t c_stride);

/* B (m x n, column-major, columns ldb apart) := op(A)^-1 B, or B op(A)^-1 when !left, for the
 * triangular A (column-major, lda; op(A) = A^T with trans; its diagonal taken as ones with unit),
 * on the current stream of `device` (cuBLAS trsm; float32 or float64). */
int cuda_trsm(int device, mt_dtype dt, bool left, bool upper, bool trans, bool unit, int64_t m,
              int64_t n, const void *A, int64_t lda, void *B, int64_t ldb);

/* out = the lower (upper) triangle of self's matrices from `diagonal` on, zeros elsewhere (out may
 * be self); cuda_ops_conv.c */
int cuda_triangle(mt_tensor *self, mt_tensor *out, bool upper, int64_t diagonal);

#endif
