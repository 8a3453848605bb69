/* cuda_solver.h: the dense cuSOLVER calls of the linear algebra kernels (cuda_ops_linalg.c),
 * float32 or float64, one column-major matrix per call, on the current stream of a device. A
 * session holds the thread's handle for the device and one workspace that grows to what each
 * call's *_bufferSize asks; infos (devInfo) are device ints that the caller reads when it must. */
#ifndef MT_CUDA_SOLVER_H
#define MT_CUDA_SOLVER_H

#include <stdbool.h>
#include <stdint.h>

#include "mt_tensor.h"

typedef struct cuda_solver {
    void *handle;    /* cusolverDnHandle_t */
    bool d;          /* float64, else float32 */
    mt_device dev;   /* the device of the work */
    mt_tensor *work; /* the workspace (bytes), grown on demand */
    mt_tensor *info; /* a scratch devInfo for the calls whose info nobody reads */
} cuda_solver;

/* The session for work on t's device in dtype dt (float32 or float64); -1 with the error set
 * (cuSOLVER missing: "torch.linalg on CUDA needs cuSOLVER, which was not found ..."). A failed
 * session may still be ended. */
int cuda_solver_begin(cuda_solver *s, const mt_tensor *t, mt_dtype dt);
void cuda_solver_end(cuda_solver *s);

/* cuSOLVER's sizes are int: larger matrices are refused, in fname's name */
int cuda_solver_check_sizes(const char *fname, int64_t m, int64_t n);

/* P A = L U (getrf); no pivoting when ipiv is NULL */
int cuda_solver_getrf(cuda_solver *s, int m, int n, void *A, int lda, int32_t *ipiv, int32_t *info);
/* op(A) X = B from getrf's factors (getrs) */
int cuda_solver_getrs(cuda_solver *s, bool trans, int n, int nrhs, const void *A, int lda,
                      const int32_t *ipiv, void *B, int ldb);
/* A = L L^T or U^T U (potrf), the other triangle left as it was */
int cuda_solver_potrf(cuda_solver *s, bool upper, int n, void *A, int lda, int32_t *info);
/* QR: the reflectors and tau (geqrf), Q from them (orgqr), C := op(Q) C or C op(Q) (ormqr) */
int cuda_solver_geqrf(cuda_solver *s, int m, int n, void *A, int lda, void *tau);
int cuda_solver_orgqr(cuda_solver *s, int m, int n, int k, void *A, int lda, const void *tau);
int cuda_solver_ormqr(cuda_solver *s, bool left, bool trans, int m, int n, int k, const void *A,
                      int lda, const void *tau, void *C, int ldc);
/* the eigenvalues (ascending) and eigenvectors of a symmetric A from its uplo triangle (syevd) */
int cuda_solver_syevd(cuda_solver *s, bool upper, int n, void *A, int lda, void *W, int32_t *info);
/* A (m >= n, destroyed) = U diag(S) VT (gesvd); job 'A', 'S' or 'N' for both U and VT */
int cuda_solver_gesvd(cuda_solver *s, char job, int m, int n, void *A, int lda, void *S, void *U,
                      int ldu, void *VT, int ldvt, int32_t *info);
/* A (destroyed) = U diag(S) V^T by Jacobi sweeps (gesvdj): econ gives min(m, n) columns of U
 * and V; info is min(m, n) + 1 when the sweeps did not converge */
int cuda_solver_gesvdj(cuda_solver *s, bool vectors, bool econ, int m, int n, void *A, int lda,
                       void *S, void *U, int ldu, void *V, int ldv, int32_t *info);
/* P A P^T = L D L^T from A's lower triangle, Bunch-Kaufman pivots as LAPACK's (sytrf) */
int cuda_solver_sytrf(cuda_solver *s, int n, void *A, int lda, int32_t *ipiv, int32_t *info);
/* A X = B from sytrf's lower factors and its pivots as int64 (the 64-bit API's sytrs; waits for
 * the stream, whose work reads a host workspace) */
int cuda_solver_sytrs(cuda_solver *s, int n, int nrhs, const void *A, int lda, const int64_t *ipiv,
                      void *B, int ldb);

#endif
