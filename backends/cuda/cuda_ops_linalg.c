/* cuda_ops_linalg.c: the factorization kernels of torch.linalg on CUDA (src/ops/linalg_lapack.lua),
 * as PyTorch computes them without MAGMA: cuSOLVER (cuda_solver.c) for LU, Cholesky, QR, the
 * symmetric eigenproblem, the SVD and LDL^T, cuBLAS trsm for the triangular solves, one matrix per
 * call over the batch. As on the CPU (backends/cpu/cpu_lapack.c) each kernel copies its input into
 * its result or a scratch tensor laid out column-major, one matrix after another; the meta
 * functions (backends/common/linalg_lapack.c) have checked shapes and dtypes. Infos stay on the
 * device unless an error must be raised from them (check_errors, eigh, svd), as PyTorch's do. */
#include <stdlib.h>
#include <string.h>

#include "cuda_ops.h"
#include "cuda_solver.h"
#include "kernels/ck_args.h"
#include "linalg_lapack.h"
#include "mt_tensor.h"

/* ---- geometry ---------------------------------------------------------------------------------
 */

static int64_t batch_count(const mt_tensor *t, int nb) {
    int64_t n = 1;
    for (int i = 0; i < nb; i++) n *= t->sizes[i];
    return n;
}

static int ld(int64_t rows) {
    return rows > 1 ? (int)rows : 1;
}

/* matrix i of t, whose matrices lie one after another, `elems` elements each */
static void *mat(const mt_tensor *t, int64_t i, int64_t elems) {
    return mt_tensor_raw(t) + (size_t)(i * elems) * mt_dtype_size((mt_dtype)t->dtype);
}

static void recount(mt_tensor *h) {
    h->numel = 1;
    for (int i = 0; i < h->ndim; i++) h->numel *= h->sizes[i];
}

/* Headers over t's storage for one call (copies of t's header, never referenced beyond it): its
 * matrices cut to rows x cols from (r0, c0); transposed; their diagonals */
static mt_tensor block(const mt_tensor *t, int64_t r0, int64_t c0, int64_t rows, int64_t cols) {
    mt_tensor h = *t;
    int nb = t->ndim - 2;
    h.offset += r0 * t->strides[nb] + c0 * t->strides[nb + 1];
    h.sizes[nb] = rows;
    h.sizes[nb + 1] = cols;
    recount(&h);
    return h;
}

static mt_tensor transposed(const mt_tensor *t) {
    mt_tensor h = *t;
    int nb = t->ndim - 2;
    h.sizes[nb] = t->sizes[nb + 1], h.sizes[nb + 1] = t->sizes[nb];
    h.strides[nb] = t->strides[nb + 1], h.strides[nb + 1] = t->strides[nb];
    return h;
}

static mt_tensor diagonal(const mt_tensor *t) {
    mt_tensor h = *t;
    int nb = t->ndim - 2;
    h.ndim = (int8_t)(nb + 1);
    h.sizes[nb] = t->sizes[nb] < t->sizes[nb + 1] ? t->sizes[nb] : t->sizes[nb + 1];
    h.strides[nb] = t->strides[nb] + t->strides[nb + 1];
    recount(&h);
    return h;
}

/* a header of one matrix of m (rows x cols, column-major) */
static mt_tensor one_matrix(const mt_tensor *m, void *p, int64_t rows, int64_t cols,
                            int64_t rstride, int64_t cstride) {
    mt_tensor h = *m;
    h.ndim = 2;
    h.sizes[0] = rows, h.sizes[1] = cols;
    h.strides[0] = rstride, h.strides[1] = cstride;
    h.offset = ((char *)p - (char *)m->storage->data) / (int64_t)mt_dtype_size((mt_dtype)m->dtype);
    recount(&h);
    return h;
}

/* ---- copies and fills on the device -----------------------------------------------------------
 */

/* dst = src broadcast to dst and converted to its dtype */
static int copy_into(mt_tensor *dst, mt_tensor *src) {
    mt_tensor *in[1] = {src};
    return dst->numel ? cuda_ew(dst, CK_COPY, 1, in, NULL, NULL, (mt_dtype)src->dtype) : 0;
}

static int fill(mt_tensor *t, int64_t v) {
    mt_value s = mt_vint(v);
    return t->numel ? cuda_ew(t, CK_FILL, 0, NULL, &s, NULL, (mt_dtype)t->dtype) : 0;
}

/* zeros, and ones along every matrix's diagonal */
static int eye_into(mt_tensor *t) {
    mt_tensor d = diagonal(t);
    return fill(t, 0) || fill(&d, 1) ? -1 : 0;
}

/* a column-major copy of src broadcast to (batch..., rows, cols) in dtype dt */
static mt_tensor *colmajor_copy(mt_tensor *src, int nb, const int64_t *batch, int64_t rows,
                                int64_t cols, mt_dtype dt) {
    mt_tensor *t = mt_la_empty_colmajor(nb, batch, rows, cols, dt, src->device);
    if (t && copy_into(t, src)) {
        mt_tensor_decref(t);
        return NULL;
    }
    return t;
}

/* a contiguous copy of src broadcast to (batch..., n) in dtype dt */
static mt_tensor *rows_copy(mt_tensor *src, int nb, const int64_t *batch, int64_t n, mt_dtype dt) {
    int64_t sizes[MT_MAX_DIM];
    if (nb) memcpy(sizes, batch, sizeof(int64_t) * (size_t)nb);
    sizes[nb] = n;
    mt_tensor *t = mt_tensor_empty(nb + 1, sizes, dt, src->device);
    if (t && copy_into(t, src)) {
        mt_tensor_decref(t);
        return NULL;
    }
    return t;
}

/* an uninitialized 1-d tensor of n elements (at least one) on like's device */
static mt_tensor *scratch(const mt_tensor *like, int64_t n, mt_dtype dt) {
    int64_t size = n > 0 ? n : 1;
    return mt_tensor_empty(1, &size, dt, like->device);
}

/* a new int32 tensor of the batch dims of t (infos); zeros */
static mt_tensor *infos_for(const mt_tensor *t, int nb) {
    mt_tensor *i = mt_tensor_empty(nb, t->sizes, MT_INT32, t->device);
    if (i && cuda_zero(i)) {
        mt_tensor_decref(i);
        return NULL;
    }
    return i;
}

/* the `bytes` of a contiguous device tensor, on the host (waits for the stream); NULL with the
 * error set */
static void *to_host(mt_tensor *t, size_t bytes) {
    void *h = malloc(bytes ? bytes : 1);
    if (!h) {
        mt_error(MT_ERR_MEMORY, "out of memory reading a CUDA tensor");
        return NULL;
    }
    if (bytes && cuda_copy_bytes(h, MT_CPU, mt_tensor_raw(t), t->device, bytes)) {
        free(h);
        return NULL;
    }
    return h;
}

/* pivots come from users too: getrs would read and write outside the matrix on a bad one, so
 * they are checked on the host first (PyTorch's CUDA kernels do not check them) */
static int check_pivots(mt_tensor *pc, int64_t count, int64_t n, const char *msg) {
    int32_t *p = to_host(pc, sizeof(int32_t) * (size_t)(count * n));
    if (!p) return -1;
    int st = 0;
    for (int64_t i = 0; i < count * n && !st; i++)
        if (p[i] < 1 || p[i] > n) st = mt_error(MT_ERR_RUNTIME, "%s", msg);
    free(p);
    return st;
}

/* ---- LU ---------------------------------------------------------------------------------------
 */

/* without pivoting, the pivots are 1..k, as LAPACK's would be for no row swaps (PyTorch's) */
static int identity_pivots(mt_tensor *piv, int64_t count, int64_t k) {
    if (!count || !k) return 0;
    int32_t *h = malloc(sizeof(int32_t) * (size_t)k);
    if (!h) return mt_error(MT_ERR_MEMORY, "linalg.lu_factor: out of memory");
    for (int64_t i = 0; i < k; i++) h[i] = (int32_t)(i + 1);
    int st =
        cuda_copy_bytes(mt_tensor_raw(piv), piv->device, h, MT_CPU, sizeof(int32_t) * (size_t)k);
    free(h);
    if (st || count == 1) return st;
    /* the first row broadcast into the others */
    mt_tensor first = *piv, rest = *piv;
    first.ndim = rest.ndim = 2;
    first.sizes[0] = rest.sizes[0] = count - 1;
    first.sizes[1] = rest.sizes[1] = k;
    first.strides[0] = 0, rest.strides[0] = k;
    first.strides[1] = rest.strides[1] = 1;
    rest.offset += k;
    recount(&first), recount(&rest);
    return copy_into(&rest, &first);
}

static int k_lu_factor_ex(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *A = a[0].t, *LU = r[0].t, *piv = r[1].t, *info = r[2].t;
    bool pivot = a[1].b;
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1], k = m < n ? m : n, count = batch_count(A, nb);
    if (cuda_solver_check_sizes("linalg.lu_factor", m, n) || copy_into(LU, A) || cuda_zero(info))
        return -1;
    if (!pivot && identity_pivots(piv, count, k)) return -1;
    if (k && count) {
        cuda_solver s;
        int st = cuda_solver_begin(&s, LU, (mt_dtype)LU->dtype);
        for (int64_t b = 0; b < count && !st; b++)
            st = cuda_solver_getrf(&s, (int)m, (int)n, mat(LU, b, m * n), ld(m),
                                   pivot ? mat(piv, b, k) : NULL, mat(info, b, 1));
        cuda_solver_end(&s);
        if (st) return -1;
    }
    if (a[2].b) return mt_la_check_info_tensor(info, MT_LA_LU, "torch.linalg.lu_factor_ex");
    return 0;
}

static int k_lu_solve(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *LU = a[0].t, *B = a[2].t, *X = r[0].t;
    bool left = a[3].b, adjoint = a[4].b;
    int nb = X->ndim - 2;
    int64_t n = LU->sizes[LU->ndim - 1], count = batch_count(X, nb);
    int64_t rows = X->sizes[nb], cols = X->sizes[nb + 1], nrhs = left ? cols : rows;
    if (cuda_solver_check_sizes("linalg.lu_solve", rows, cols)) return -1;
    mt_tensor *LUc = colmajor_copy(LU, nb, X->sizes, n, n, (mt_dtype)X->dtype);
    mt_tensor *pc = LUc ? rows_copy(a[1].t, nb, X->sizes, n, MT_INT32) : NULL;
    int st = -1;
    if (!pc || copy_into(X, B) ||
        check_pivots(pc, count, n, "linalg.lu_solve: pivots must be between 1 and n inclusive"))
        goto done;
    st = 0;
    if (n && nrhs && count) {
        /* left: X is column-major (n x nrhs); right: X is row-major, i.e. X^T column-major, and
         * X A = B is A^T X^T = B^T */
        bool trans = left == adjoint;
        cuda_solver s;
        st = cuda_solver_begin(&s, X, (mt_dtype)X->dtype);
        for (int64_t b = 0; b < count && !st; b++)
            st = cuda_solver_getrs(&s, trans, (int)n, (int)nrhs, mat(LUc, b, n * n), ld(n),
                                   mat(pc, b, n), mat(X, b, n * nrhs), ld(n));
        cuda_solver_end(&s);
    }
done:
    mt_tensor_decref(LUc);
    mt_tensor_decref(pc);
    return st;
}

/* P from the pivots on the host (they are read there to be checked anyway), then copied over */
static int unpack_pivots(mt_tensor *LU, mt_tensor *piv, mt_tensor *P) {
    int nb = LU->ndim - 2;
    int64_t m = LU->sizes[nb], n = LU->sizes[nb + 1], k = m < n ? m : n;
    int64_t count = batch_count(LU, nb);
    size_t es = mt_dtype_size((mt_dtype)P->dtype), bytes = (size_t)P->numel * es;
    mt_tensor *pc = rows_copy(piv, nb, LU->sizes, k, MT_INT32);
    int32_t *pv = pc ? to_host(pc, sizeof(int32_t) * (size_t)(count * k)) : NULL;
    char *host = pv ? calloc(bytes ? bytes : 1, 1) : NULL;
    int64_t *perm = host ? malloc(sizeof(int64_t) * (size_t)(m ? m : 1)) : NULL;
    int st = -1;
    if (!perm) {
        if (pv) mt_error(MT_ERR_MEMORY, "lu_unpack: out of memory");
        goto done;
    }
    for (int64_t b = 0; b < count; b++)
        if (mt_la_pivot_permutation(pv + b * k, m, k, perm, host + (size_t)(b * m * m) * es, es))
            goto done;
    st = bytes ? cuda_copy_bytes(mt_tensor_raw(P), P->device, host, MT_CPU, bytes) : 0;
done:
    free(perm);
    free(host);
    free(pv);
    mt_tensor_decref(pc);
    return st;
}

static int k_lu_unpack(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *LU = a[0].t;
    if (mt_la_check_lapack_dtype(LU, "lu_unpack")) return -1;
    int nb = LU->ndim - 2;
    int64_t m = LU->sizes[nb], n = LU->sizes[nb + 1], k = m < n ? m : n;
    if (a[2].b) { /* L: unit lower m x k; U: upper k x n */
        mt_tensor *L = r[1].t, *U = r[2].t;
        mt_tensor lv = block(LU, 0, 0, m, k), uv = block(LU, 0, 0, k, n), d = diagonal(L);
        if (copy_into(L, &lv) || cuda_triangle(L, L, false, -1) || fill(&d, 1) ||
            copy_into(U, &uv) || cuda_triangle(U, U, true, 0))
            return -1;
    }
    return a[3].b ? unpack_pivots(LU, a[1].t, r[0].t) : 0;
}

/* ---- Cholesky, triangular solves --------------------------------------------------------------
 */

static int k_cholesky_ex(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *A = a[0].t, *F = r[0].t, *info = r[1].t;
    bool upper = a[1].b;
    int nb = A->ndim - 2;
    int64_t n = A->sizes[nb], count = batch_count(A, nb);
    if (cuda_solver_check_sizes("linalg.cholesky", n, n) || copy_into(F, A) || cuda_zero(info))
        return -1;
    if (n && count) {
        cuda_solver s;
        int st = cuda_solver_begin(&s, F, (mt_dtype)F->dtype);
        for (int64_t b = 0; b < count && !st; b++)
            st = cuda_solver_potrf(&s, upper, (int)n, mat(F, b, n * n), ld(n), mat(info, b, 1));
        cuda_solver_end(&s);
        /* potrf leaves the other triangle as it was */
        if (st || cuda_triangle(F, F, upper, 0)) return -1;
    }
    if (a[2].b) return mt_la_check_info_tensor(info, MT_LA_CHOLESKY, "linalg.cholesky_ex");
    return 0;
}

static int k_solve_triangular(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *A = a[0].t, *X = r[0].t;
    bool upper = a[2].b, left = a[3].b, unit = a[4].b;
    int nb = X->ndim - 2;
    int64_t n = A->sizes[A->ndim - 1], rows = X->sizes[nb], cols = X->sizes[nb + 1],
            count = batch_count(X, nb);
    if (cuda_solver_check_sizes("linalg.solve_triangular", rows, cols)) return -1;
    mt_tensor *Ac = colmajor_copy(A, nb, X->sizes, n, n, (mt_dtype)X->dtype);
    int st = Ac && !copy_into(X, a[1].t) ? 0 : -1;
    for (int64_t b = 0; b < count && rows && cols && !st; b++)
        st = cuda_trsm(cuda_device_of(X), (mt_dtype)X->dtype, left, upper, false, unit, rows, cols,
                       mat(Ac, b, n * n), ld(n), mat(X, b, rows * cols), ld(rows));
    mt_tensor_decref(Ac);
    return st;
}

/* ---- QR ---------------------------------------------------------------------------------------
 */

/* tau's values, contiguous in dtype dt */
static mt_tensor *dense_tau(mt_tensor *tau, mt_dtype dt) {
    return rows_copy(tau, tau->ndim - 1, tau->sizes, tau->sizes[tau->ndim - 1], dt);
}

/* geqrf over every matrix of the column-major buf, the scales into tau (count x k) */
static int geqrf_all(mt_tensor *buf, mt_tensor *tau, int64_t count, int64_t m, int64_t n) {
    int64_t k = m < n ? m : n;
    if (!k || !count) return 0;
    cuda_solver s;
    int st = cuda_solver_begin(&s, buf, (mt_dtype)buf->dtype);
    for (int64_t b = 0; b < count && !st; b++)
        st = cuda_solver_geqrf(&s, (int)m, (int)n, mat(buf, b, m * n), ld(m), mat(tau, b, k));
    cuda_solver_end(&s);
    return st;
}

static int k_qr(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *A = a[0].t;
    bool complete = strcmp(a[1].s, "complete") == 0, ronly = strcmp(a[1].s, "r") == 0;
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1], k = m < n ? m : n, count = batch_count(A, nb);
    int64_t rr = complete ? m : k, qc = complete ? m : k;
    if (cuda_solver_check_sizes("linalg.qr", m, n)) return -1;
    mt_tensor *buf = colmajor_copy(A, nb, A->sizes, m, n, (mt_dtype)A->dtype);
    mt_tensor *tau = buf ? scratch(buf, count * k, (mt_dtype)A->dtype) : NULL;
    int st = -1;
    if (!tau || geqrf_all(buf, tau, count, m, n)) goto done;
    mt_tensor rv = block(buf, 0, 0, rr, n); /* R: the upper triangle of geqrf's result */
    if (copy_into(r[1].t, &rv) || cuda_triangle(r[1].t, r[1].t, true, 0)) goto done;
    st = 0;
    if (ronly || !m || !qc || !count) goto done;
    mt_tensor *Q = r[0].t;
    if (!k) { /* no reflectors: Q is the identity */
        st = eye_into(Q);
        goto done;
    }
    /* Q: orgqr over the reflectors below the diagonal, its further columns zeros at first */
    int64_t cols = qc < n ? qc : n;
    mt_tensor qv = block(Q, 0, 0, m, cols), av = block(buf, 0, 0, m, cols);
    mt_tensor rest = block(Q, 0, cols, m, qc - cols);
    if (copy_into(&qv, &av) || fill(&rest, 0)) {
        st = -1;
        goto done;
    }
    cuda_solver s;
    st = cuda_solver_begin(&s, Q, (mt_dtype)Q->dtype);
    for (int64_t b = 0; b < count && !st; b++)
        st = cuda_solver_orgqr(&s, (int)m, (int)qc, (int)k, mat(Q, b, m * qc), ld(m),
                               mat(tau, b, k));
    cuda_solver_end(&s);
done:
    mt_tensor_decref(buf);
    mt_tensor_decref(tau);
    return st;
}

static int k_geqrf(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *A = a[0].t, *out = r[0].t;
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1];
    if (cuda_solver_check_sizes("torch.geqrf", m, n) || copy_into(out, A)) return -1;
    return geqrf_all(out, r[1].t, batch_count(A, nb), m, n);
}

static int k_householder(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *A = a[0].t, *out = r[0].t;
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1], count = batch_count(A, nb);
    int64_t kt = a[1].t->sizes[a[1].t->ndim - 1];
    if (cuda_solver_check_sizes("torch.linalg.householder_product", m, n) || copy_into(out, A))
        return -1;
    if (!m || !n || !count) return 0;
    mt_tensor *tau = dense_tau(a[1].t, (mt_dtype)A->dtype);
    if (!tau) return -1;
    cuda_solver s;
    int st = cuda_solver_begin(&s, out, (mt_dtype)out->dtype);
    for (int64_t b = 0; b < count && !st; b++)
        st = cuda_solver_orgqr(&s, (int)m, (int)n, (int)kt, mat(out, b, m * n), ld(m),
                               mat(tau, b, kt));
    cuda_solver_end(&s);
    mt_tensor_decref(tau);
    return st;
}

static int k_ormqr(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *A = a[0].t, *C = a[2].t, *out = r[0].t;
    bool left = a[3].b, trans = a[4].b;
    int nb = C->ndim - 2;
    int64_t ma = A->sizes[nb], ka = A->sizes[nb + 1], mc = C->sizes[nb], nc = C->sizes[nb + 1];
    int64_t kt = a[1].t->sizes[a[1].t->ndim - 1], count = batch_count(C, nb);
    if (cuda_solver_check_sizes("torch.ormqr", mc, nc) ||
        cuda_solver_check_sizes("torch.ormqr", ma, ka) || copy_into(out, C))
        return -1;
    if (!mc || !nc || !kt || !count) return 0; /* no reflectors: Q is the identity */
    mt_tensor *Ac = colmajor_copy(A, nb, A->sizes, ma, ka, (mt_dtype)A->dtype);
    mt_tensor *tau = Ac ? dense_tau(a[1].t, (mt_dtype)A->dtype) : NULL;
    int st = -1;
    if (tau) {
        cuda_solver s;
        st = cuda_solver_begin(&s, out, (mt_dtype)out->dtype);
        for (int64_t b = 0; b < count && !st; b++)
            st = cuda_solver_ormqr(&s, left, trans, (int)mc, (int)nc, (int)kt, mat(Ac, b, ma * ka),
                                   ld(ma), mat(tau, b, kt), mat(out, b, mc * nc), ld(mc));
        cuda_solver_end(&s);
    }
    mt_tensor_decref(Ac);
    mt_tensor_decref(tau);
    return st;
}

/* ---- the symmetric eigenproblem ----------------------------------------------------------------
 */

static int k_eigh(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *A = a[0].t, *W = r[0].t, *V = r[1].t;
    bool upper = a[1].s[0] == 'U' || a[1].s[0] == 'u';
    int nb = A->ndim - 2;
    int64_t n = A->sizes[nb], count = batch_count(A, nb);
    if (cuda_solver_check_sizes("linalg.eigh", n, n) || copy_into(V, A)) return -1;
    if (!n || !count) return 0;
    mt_tensor *info = infos_for(A, nb);
    if (!info) return -1;
    cuda_solver s;
    int st = cuda_solver_begin(&s, V, (mt_dtype)V->dtype);
    for (int64_t b = 0; b < count && !st; b++)
        st = cuda_solver_syevd(&s, upper, (int)n, mat(V, b, n * n), ld(n), mat(W, b, n),
                               mat(info, b, 1));
    cuda_solver_end(&s);
    if (!st) st = mt_la_check_info_tensor(info, MT_LA_EIGH, "linalg.eigh");
    mt_tensor_decref(info);
    return st;
}

/* ---- SVD --------------------------------------------------------------------------------------
 */

/* What one SVD call computes. U is column-major (m x uc); Vh is row-major (vr x n) on CUDA, as
 * PyTorch lays it out there: it is V column-major, which cuSOLVER writes. */
typedef struct svd_job {
    mt_tensor *A, *U, *S, *Vh, *info;
    int64_t m, n, k, uc, vr;
    bool full, uv;
} svd_job;

/* gesvd (m >= n only) on the given matrices (all when `which` is NULL): A^T's SVD when m < n */
static int svd_gesvd(cuda_solver *s, const svd_job *j, const int64_t *which, int64_t nwhich) {
    bool tall = j->m >= j->n;
    int64_t m = tall ? j->m : j->n, n = tall ? j->n : j->m; /* the matrix gesvd sees */
    mt_tensor At = transposed(j->A);
    int nb = j->A->ndim - 2;
    mt_tensor *buf = colmajor_copy(tall ? j->A : &At, nb, j->A->sizes, m, n, (mt_dtype)j->A->dtype);
    if (!buf) return -1;
    /* tall: U direct, VT (vr x n) into scratch, then into Vh; wide: U' = V direct into Vh,
     * VT' = U^T (uc x m) into scratch, then into U */
    int64_t srows = tall ? j->vr : j->uc, scols = n, ssize = srows * scols;
    char job = j->uv ? (j->full ? 'A' : 'S') : 'N';
    mt_tensor *tmp = j->uv ? scratch(buf, ssize, (mt_dtype)buf->dtype) : NULL;
    int st = j->uv && !tmp ? -1 : 0;
    for (int64_t i = 0; i < (which ? nwhich : batch_count(j->A, nb)) && !st; i++) {
        int64_t b = which ? which[i] : i;
        void *U = NULL, *VT = NULL, *sp = tmp ? mt_tensor_raw(tmp) : NULL;
        int ldu = 1, ldvt = 1;
        if (j->uv) {
            U = tall ? mat(j->U, b, j->m * j->uc) : mat(j->Vh, b, j->vr * j->n);
            ldu = ld(m);
            VT = sp, ldvt = ld(srows);
        }
        st = cuda_solver_gesvd(s, job, (int)m, (int)n, mat(buf, b, m * n), ld(m),
                               mat(j->S, b, j->k), U, ldu, VT, ldvt, mat(j->info, b, 1));
        if (st || !j->uv) continue;
        /* scratch (srows x n, column-major) transposed is the other factor */
        mt_tensor src = one_matrix(tmp, sp, scols, srows, srows, 1);
        mt_tensor dst = tall ? one_matrix(j->Vh, mat(j->Vh, b, j->vr * j->n), j->n, j->vr, 1, j->n)
                             : one_matrix(j->U, mat(j->U, b, j->m * j->uc), j->m, j->uc, 1, j->m);
        st = copy_into(&dst, &src);
    }
    mt_tensor_decref(tmp);
    mt_tensor_decref(buf);
    return st;
}

/* gesvdj on every matrix; U and V are scratch when the vectors are not wanted */
static int svd_gesvdj(cuda_solver *s, const svd_job *j) {
    int nb = j->A->ndim - 2;
    int64_t m = j->m, n = j->n, count = batch_count(j->A, nb);
    mt_tensor *buf = colmajor_copy(j->A, nb, j->A->sizes, m, n, (mt_dtype)j->A->dtype);
    mt_tensor *us = buf && !j->uv ? scratch(buf, (m + n) * j->k, (mt_dtype)buf->dtype) : NULL;
    int st = buf && (j->uv || us) ? 0 : -1;
    for (int64_t b = 0; b < count && !st; b++) {
        void *U = j->uv ? mat(j->U, b, m * j->uc) : mt_tensor_raw(us);
        void *V = j->uv ? mat(j->Vh, b, j->vr * n) : mat(us, m, j->k);
        st = cuda_solver_gesvdj(s, j->uv, !j->full || !j->uv, (int)m, (int)n, mat(buf, b, m * n),
                                ld(m), mat(j->S, b, j->k), U, ld(m), V, ld(n), mat(j->info, b, 1));
    }
    mt_tensor_decref(us);
    mt_tensor_decref(buf);
    return st;
}

/* the matrices whose Jacobi sweeps did not converge (info k + 1), redone by gesvd as PyTorch
 * does when no driver was asked for */
static int svd_fallback(cuda_solver *s, const svd_job *j) {
    int64_t count = j->info->numel;
    int32_t *info = to_host(j->info, sizeof(int32_t) * (size_t)count);
    int64_t *which = info ? malloc(sizeof(int64_t) * (size_t)(count ? count : 1)) : NULL, nw = 0;
    int st = -1;
    if (!which) {
        if (info) mt_error(MT_ERR_MEMORY, "linalg.svd: out of memory");
    } else {
        for (int64_t b = 0; b < count; b++)
            if (info[b] == j->k + 1) which[nw++] = b;
        st = nw ? svd_gesvd(s, j, which, nw) : 0;
    }
    free(which);
    free(info);
    return st;
}

static int k_svd(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *A = a[0].t;
    const char *driver = a[3].tag == MT_V_STR ? a[3].s : NULL;
    svd_job j = {.A = A, .S = r[1].t, .full = a[1].b, .uv = a[2].b};
    int nb = A->ndim - 2;
    j.m = A->sizes[nb], j.n = A->sizes[nb + 1], j.k = j.m < j.n ? j.m : j.n;
    j.uc = j.full ? j.m : j.k, j.vr = j.full ? j.n : j.k;
    if (j.uv) j.U = r[0].t, j.Vh = r[2].t;
    if (driver && strcmp(driver, "gesvd") != 0 && strcmp(driver, "gesvdj") != 0) {
        if (strcmp(driver, "gesvda") == 0)
            return mt_error(MT_ERR_RUNTIME,
                            "torch.linalg.svd: the gesvda driver is not available in mindtorch "
                            "(gesvd and gesvdj are)");
        return mt_error(
            MT_ERR_RUNTIME,
            "torch.linalg.svd: unknown svd driver %s in svd_cusolver computation. "
            "Check doc at https://pytorch.org/docs/stable/generated/torch.linalg.svd.html",
            driver);
    }
    if (cuda_solver_check_sizes("linalg.svd", j.m, j.n)) return -1;
    if (!batch_count(A, nb)) return 0;
    if (!j.k) /* nothing to decompose: orthonormal bases as far as they go */
        return j.uv && (eye_into(j.U) || eye_into(j.Vh)) ? -1 : 0;
    if (!(j.info = infos_for(A, nb))) return -1;
    cuda_solver s;
    int st = cuda_solver_begin(&s, A, (mt_dtype)A->dtype);
    bool jacobi = !driver || strcmp(driver, "gesvdj") == 0;
    if (!st) st = jacobi ? svd_gesvdj(&s, &j) : svd_gesvd(&s, &j, NULL, 0);
    if (!st && !driver) st = svd_fallback(&s, &j);
    cuda_solver_end(&s);
    if (!st) st = mt_la_check_info_tensor(j.info, MT_LA_SVD, "linalg.svd");
    mt_tensor_decref(j.info);
    return st;
}

/* ---- least squares ----------------------------------------------------------------------------
 */

/* PyTorch's gels on CUDA: with A = QR, X = R^-1 Q^T B when A is tall; when it is wide, with
 * A^T = QR, X = Q R^-T B (the least-norm solution). No rank check: a rank-deficient A gives
 * infinities, as there. */
static int k_lstsq_raw(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *A = a[0].t, *B = a[1].t, *X = r[0].t;
    const char *f = "torch.linalg.lstsq";
    if (strcmp(a[3].s, "gels") != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA");
    int nb = X->ndim - 2;
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1], mx = X->sizes[nb],
            nrhs = X->sizes[nb + 1], k = m < n ? m : n, count = batch_count(X, nb);
    if (cuda_solver_check_sizes(f, mx, nrhs) || cuda_solver_check_sizes(f, m, n)) return -1;
    bool tall = m >= n;
    mt_tensor At = transposed(A);
    mt_tensor *F =
        colmajor_copy(tall ? A : &At, nb, X->sizes, tall ? m : n, tall ? n : m, (mt_dtype)A->dtype);
    mt_tensor *tau = F ? scratch(F, count * k, (mt_dtype)A->dtype) : NULL;
    mt_tensor top = block(X, 0, 0, m, nrhs), below = block(X, m, 0, mx - m, nrhs);
    int st = -1;
    if (!tau || copy_into(&top, B) || fill(&below, 0)) goto done;
    st = 0;
    if (!k || !nrhs || !count) goto done;
    int device = cuda_device_of(X);
    mt_dtype dt = (mt_dtype)X->dtype;
    int64_t fr = tall ? m : n; /* the rows of the factorized matrix */
    if (geqrf_all(F, tau, count, fr, k)) {
        st = -1;
        goto done;
    }
    cuda_solver s;
    st = cuda_solver_begin(&s, X, dt);
    for (int64_t b = 0; b < count && !st; b++) {
        void *Fb = mat(F, b, fr * k), *tb = mat(tau, b, k), *Xb = mat(X, b, mx * nrhs);
        if (tall) /* Q^T B, then R X = its top n rows */
            st = cuda_solver_ormqr(&s, true, true, (int)m, (int)nrhs, (int)k, Fb, ld(m), tb, Xb,
                                   ld(mx)) ||
                 cuda_trsm(device, dt, true, true, false, false, n, nrhs, Fb, ld(m), Xb, ld(mx));
        else /* R^T Z = B in the top m rows, zeros below, then Q Z */
            st = cuda_trsm(device, dt, true, true, true, false, m, nrhs, Fb, ld(n), Xb, ld(mx)) ||
                 cuda_solver_ormqr(&s, true, false, (int)n, (int)nrhs, (int)k, Fb, ld(n), tb, Xb,
                                   ld(mx));
    }
    cuda_solver_end(&s);
done:
    mt_tensor_decref(F);
    mt_tensor_decref(tau);
    return st ? -1 : 0;
}

/* ---- LDL^T ------------------------------------------------------------------------------------
 */

static int k_ldl_factor_ex(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *A = a[0].t, *LD = r[0].t, *piv = r[1].t, *info = r[2].t;
    int nb = A->ndim - 2;
    int64_t n = A->sizes[nb], count = batch_count(A, nb);
    const char *f = "torch.linalg.ldl_factor_ex";
    if (cuda_solver_check_sizes(f, n, n) || copy_into(LD, A) || cuda_zero(info)) return -1;
    if (n && count) {
        cuda_solver s;
        int st = cuda_solver_begin(&s, LD, (mt_dtype)LD->dtype);
        for (int64_t b = 0; b < count && !st; b++)
            st = cuda_solver_sytrf(&s, (int)n, mat(LD, b, n * n), ld(n), mat(piv, b, n),
                                   mat(info, b, 1));
        cuda_solver_end(&s);
        /* the strict upper triangle, which sytrf leaves, zeroed as the CPU's */
        if (st || cuda_triangle(LD, LD, false, 0)) return -1;
    }
    return a[2].b ? mt_la_check_info_tensor(info, MT_LA_LDL, f) : 0;
}

/* sytrs reads pivot k (and k+1 for a 2x2 block): they must stay inside the matrix (the CPU's
 * check, on the values as the device will read them) */
static int check_ldl_pivots(mt_tensor *pc, int64_t count, int64_t n) {
    int64_t *p = to_host(pc, sizeof(int64_t) * (size_t)(count * n));
    if (!p) return -1;
    int st = 0;
    for (int64_t b = 0; b < count && !st; b++)
        for (int64_t i = 0; i < n && !st; i++) {
            int64_t v = p[b * n + i], m = v < 0 ? -v : v;
            bool ok = m >= 1 && m <= n;
            if (ok && v < 0) { /* a 2x2 block: this row and the next share the pivot */
                ok = i + 1 < n && p[b * n + i + 1] == v;
                i++;
            }
            if (!ok)
                st = mt_error(MT_ERR_RUNTIME,
                              "torch.linalg.ldl_solve: pivots are not those of linalg.ldl_factor "
                              "(each between -n and n, not zero; a negative one repeated for its "
                              "2x2 block)");
        }
    free(p);
    return st;
}

static int k_ldl_solve(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *LD = a[0].t, *X = r[0].t;
    int nb = X->ndim - 2;
    int64_t n = LD->sizes[LD->ndim - 1], nrhs = X->sizes[nb + 1], count = batch_count(X, nb);
    if (cuda_solver_check_sizes("torch.linalg.ldl_solve", n, nrhs)) return -1;
    mt_tensor *LDc = colmajor_copy(LD, nb, X->sizes, n, n, (mt_dtype)X->dtype);
    mt_tensor *pc = LDc ? rows_copy(a[1].t, nb, X->sizes, n, MT_INT64) : NULL;
    int st = -1;
    if (!pc || copy_into(X, a[2].t) || check_ldl_pivots(pc, count, n)) goto done;
    st = 0;
    if (n && nrhs && count) {
        cuda_solver s;
        st = cuda_solver_begin(&s, X, (mt_dtype)X->dtype);
        for (int64_t b = 0; b < count && !st; b++)
            st = cuda_solver_sytrs(&s, (int)n, (int)nrhs, mat(LDc, b, n * n), ld(n), mat(pc, b, n),
                                   mat(X, b, n * nrhs), ld(n));
        cuda_solver_end(&s);
    }
done:
    mt_tensor_decref(LDc);
    mt_tensor_decref(pc);
    return st;
}

const mt_kernel_entry cuda_linalg_kernels[] = {
    {"linalg_lu_factor_ex", k_lu_factor_ex},
    {"linalg_lu_solve", k_lu_solve},
    {"lu_unpack", k_lu_unpack},
    {"linalg_cholesky_ex", k_cholesky_ex},
    {"linalg_solve_triangular", k_solve_triangular},
    {"linalg_qr", k_qr},
    {"geqrf", k_geqrf},
    {"linalg_householder_product", k_householder},
    {"ormqr", k_ormqr},
    {"linalg_eigh", k_eigh},
    {"_linalg_svd", k_svd},
    {"_linalg_lstsq_raw", k_lstsq_raw},
    {"linalg_ldl_factor_ex", k_ldl_factor_ex},
    {"linalg_ldl_solve", k_ldl_solve},
};
const size_t cuda_linalg_kernels_count = MT_ARRAY_LEN(cuda_linalg_kernels);
