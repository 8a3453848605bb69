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
MT_API int mt_la_check_lapack_dtype(const mt_tensor *t, const char *kname);
/* matrix, square, floating: the checks most linalg functions start with */
int mt_la_check_square_float(const mt_tensor *t, const char *fname, const char *arg);

/* P (row-major m x m, host memory, float32 or float64 by es) with A = P L U: the k row swaps of
 * LAPACK's 1-based pivots applied in order; perm is m entries of scratch. Pivots out of range get
 * lu_unpack's error. */
MT_API int mt_la_pivot_permutation(const int32_t *pv, int64_t m, int64_t k, int64_t *perm, char *P,
                                   size_t es);

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
    MT_LA_LDL,      /* sytrf: D[i,i] is zero (PyTorch 1.13 fails an assertion there) */
} mt_la_failure;
MT_API int mt_la_info_error(mt_la_failure kind, const char *fname, int64_t batch, int info);
/* the first failure among n infos (host memory), or 0 */
int mt_la_check_infos(const int32_t *info, int64_t n, bool batched, mt_la_failure kind,
                      const char *fname);

/* the same for an info tensor (read on the host; nothing to read on the meta device) */
MT_API int mt_la_check_info_tensor(mt_tensor *info, mt_la_failure kind, const char *fname);

/* a result of (batch..., rows, cols) laid out as LAPACK writes it: each matrix column-major,
 * the matrices one after another */
void mt_la_out_colmajor(mt_outspec *o, int nb, const int64_t *batch, int64_t rows, int64_t cols,
                        mt_dtype dt);
/* a row-major result of (batch..., sizes...) */
void mt_la_out_rowmajor(mt_outspec *o, int nb, const int64_t *batch, int nlast, const int64_t *last,
                        mt_dtype dt);
/* a new tensor of that column-major layout (kernels' scratch copies) */
MT_API mt_tensor *mt_la_empty_colmajor(int nb, const int64_t *batch, int64_t rows, int64_t cols,
                                       mt_dtype dt, mt_device dev);

/* whether t's device is CUDA's, where PyTorch's linalg takes other drivers and layouts (cuSOLVER)
 */
bool mt_la_on_cuda(const mt_tensor *t);

/* ---- a scope of temporaries: each op result is kept, and released at the end; after a failure
 * the following steps are skipped (T() evaluates nothing), so bodies are straight-line code --- */

typedef struct la_scope {
    mt_tensor *t[64];
    int n;
    bool failed;
} la_scope;

static inline mt_tensor *la_keep(la_scope *s, mt_tensor *t) {
    if (!t || s->n == (int)MT_ARRAY_LEN(s->t)) {
        if (t) { /* a body with more steps than the scope holds: a bug here, said as one */
            mt_tensor_decref(t);
            mt_error(MT_ERR_RUNTIME,
                     "internal error: more than %d intermediate results in one "
                     "linear algebra function",
                     (int)MT_ARRAY_LEN(s->t));
        }
        s->failed = true;
        return NULL;
    }
    return s->t[s->n++] = t;
}

static inline void la_release(la_scope *s) {
    for (int i = 0; i < s->n; i++) mt_tensor_decref(s->t[i]);
}

#define SCOPE la_scope S = {.n = 0, .failed = false}
#define TS(s, x) ((s)->failed ? NULL : la_keep((s), (x)))
#define T(x) TS(&S, x) /* never nest T(): the outer check runs before the inner call */
/* a multi-result op: `call` is an mto_ call returning int */
#define T_MULTI(call)                                                                              \
    do {                                                                                           \
        if (!S.failed && (call)) S.failed = true;                                                  \
    } while (0)

/* results r[0..n-1] from kept tensors (new references), then release the scope */
static inline int la_ret(la_scope *s, mt_value *r, int n, mt_tensor **outs) {
    int st = s->failed ? -1 : 0;
    if (!st)
        for (int i = 0; i < n; i++) {
            mt_tensor_incref(outs[i]);
            r[i] = mt_vtensor(outs[i]);
        }
    la_release(s);
    return st;
}

static inline int la_ret1(la_scope *s, mt_value *r, mt_tensor *t) {
    return la_ret(s, r, 1, &t);
}

#endif
