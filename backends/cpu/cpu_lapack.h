/* cpu_lapack.h: what the CPU's LAPACK kernels share (cpu_lapack.c: LU, Cholesky, triangular
 * solves; cpu_lapack_spectral.c: QR, eigh, SVD, least squares, LDL): the matrices of a batched
 * tensor as LAPACK reads them (column-major copies, one matrix after another) and its size
 * limits. */
#ifndef MT_CPU_LAPACK_H
#define MT_CPU_LAPACK_H

#include "cpu_kernels.h"
#include "linalg_lapack.h"

#include <lapacke.h>
#include <limits.h>
#include <string.h>

_Static_assert(sizeof(lapack_int) == sizeof(int32_t), "pivots are int32 tensors");

/* memset and memcpy that accept the NULL data of empty tensors when there is nothing to do */
static inline void zero_bytes(void *p, size_t n) {
    if (n) memset(p, 0, n);
}
static inline void copy_bytes(void *dst, const void *src, size_t n) {
    if (n) memcpy(dst, src, n);
}

/* ---- geometry ------------------------------------------------------------------------------- */

/* the number of matrices in t's first nb dims */
static inline int64_t batch_count(const mt_tensor *t, int nb) {
    int64_t n = 1;
    for (int i = 0; i < nb; i++) n *= t->sizes[i];
    return n;
}

/* LAPACK takes int sizes and sizes its workspaces in int too, up to several times m * n (gesdd,
 * syevd): larger matrices are refused rather than overflowed */
static inline int check_lapack_sizes(const char *fname, int64_t m, int64_t n) {
    if (m > INT_MAX || n > INT_MAX || m * n > INT_MAX / 8)
        return mt_error(MT_ERR_RUNTIME, "%s: matrices of %lld by %lld exceed LAPACK's int sizes",
                        fname, (long long)m, (long long)n);
    return 0;
}

static inline int ld(int64_t rows) {
    return rows > 1 ? (int)rows : 1;
}

/* a column-major copy of src broadcast to (batch..., rows, cols) in dtype dt */
static inline mt_tensor *colmajor_copy(mt_tensor *src, int nb, const int64_t *batch, int64_t rows,
                                       int64_t cols, mt_dtype dt) {
    mt_tensor *t = mt_la_empty_colmajor(nb, batch, rows, cols, dt, src->device);
    if (t && mt_cpu_copy(t, src)) {
        mt_tensor_decref(t);
        return NULL;
    }
    return t;
}

/* a contiguous int32 copy of pivots broadcast to (batch..., n) */
static inline mt_tensor *pivots_copy(mt_tensor *piv, int nb, const int64_t *batch, int64_t n) {
    int64_t sizes[MT_MAX_DIM];
    if (nb) memcpy(sizes, batch, sizeof(int64_t) * (size_t)nb);
    sizes[nb] = n;
    mt_tensor *t = mt_tensor_empty(nb + 1, sizes, MT_INT32, piv->device);
    if (t && mt_cpu_copy(t, piv)) {
        mt_tensor_decref(t);
        return NULL;
    }
    return t;
}

#endif
