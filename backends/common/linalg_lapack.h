/* linalg_lapack.h: the checks torch.linalg's functions share (PyTorch's wording), and the
 * column-major layout LAPACK's results have, for the meta functions (linalg_lapack.c), the
 * composites (linalg_comp.c) and every device's kernels. */
#ifndef MT_LINALG_LAPACK_H
#define MT_LINALG_LAPACK_H

#include "mt_dispatch.h"

/* "<fname>: The input tensor <arg> must have at least 2 dimensions." */
int mt_la_check_matrix(const mt_tensor *t, const char *fname, const char *arg);
/* "<fname>: <arg> must be batches of square matrices, but they are m by n matrices" */
int mt_la_check_square(const mt_tensor *t, const char *fname, const char *arg);
/* "<fname>: Expected a floating point or complex tensor as input. Got <dtype>" */
int mt_la_check_floating(const mt_tensor *t, const char *fname);
/* float32 and float64 are what the LAPACK kernels compute; else PyTorch's kernel error */
int mt_la_check_lapack_dtype(const mt_tensor *t, const char *kname);
/* matrix, square, floating: the checks most linalg functions start with */
int mt_la_check_square_float(const mt_tensor *t, const char *fname, const char *arg);

/* the batch shape of `ndim` dims that a and b broadcast to (their last two dims excluded) */
int mt_la_broadcast_batch(const mt_tensor *a, const mt_tensor *b, int *nb, int64_t *batch);

/* LAPACK's failures (info > 0), worded as PyTorch words them for function `fname`; `batch` is
 * the failing matrix's position (1-based, as Lua counts), or 0 when the input is one matrix */
typedef enum mt_la_failure {
    MT_LA_LU,       /* getrf: U[i,i] is zero */
    MT_LA_INV,      /* the inverse of a singular matrix */
    MT_LA_SOLVE,    /* solving with a singular matrix */
    MT_LA_CHOLESKY, /* potrf: not positive-definite */
    MT_LA_EIGH,     /* syevd: no convergence */
    MT_LA_SVD,      /* gesdd: no convergence */
} mt_la_failure;
int mt_la_info_error(mt_la_failure kind, const char *fname, int64_t batch, int info);
/* the first failure among n infos (host memory), or 0 */
int mt_la_check_infos(const int32_t *info, int64_t n, bool batched, mt_la_failure kind,
                      const char *fname);

/* a result of (batch..., rows, cols) laid out as LAPACK writes it: each matrix column-major,
 * the matrices one after another */
void mt_la_out_colmajor(mt_outspec *o, int nb, const int64_t *batch, int64_t rows, int64_t cols,
                        mt_dtype dt);
/* a row-major result of (batch..., sizes...) */
void mt_la_out_rowmajor(mt_outspec *o, int nb, const int64_t *batch, int nlast, const int64_t *last,
                        mt_dtype dt);
/* a new tensor of that column-major layout (kernels' scratch copies) */
mt_tensor *mt_la_empty_colmajor(int nb, const int64_t *batch, int64_t rows, int64_t cols,
                                mt_dtype dt, mt_device dev);

#endif
