/* linalg_comp.c: torch.linalg functions written with the factorization kernels and other ops
 * (src/ops/linalg_lapack.lua): solve, inv, det, slogdet, the Cholesky solves, the legacy
 * top-level forms, matrix_power, multi_dot, cross, vecdot, vander. They run above every
 * dispatch key; det, slogdet, inv_ex and solve_ex have derivative formulas of their own
 * (src/autograd/deriv_lapack.c), the others are differentiated through what they call. */
#include "common_ops.h"
#include "linalg_lapack.h"
#include "mt_ops_gen.h"

#include <stdlib.h>
#include <string.h>

/* LAPACK's infos read on the host (none to read on the meta device) */
int mt_la_check_info_tensor(mt_tensor *info, mt_la_failure kind, const char *fname) {
    if (info->device.type == MT_DEV_META || info->numel == 0) return 0;
    mt_tensor *h = mto_to_device(info, (mt_device){MT_DEV_CPU, 0}, MT_INT32, false, false, NULL);
    mt_tensor *hc = h ? mto_contiguous(h, NULL) : NULL;
    int st = hc && !mt_tensor_sync(hc)
                 ? mt_la_check_infos(mt_tensor_data(hc), hc->numel, info->ndim > 0, kind, fname)
                 : -1;
    mt_tensor_decref(h);
    mt_tensor_decref(hc);
    return st;
}

/* a copy of t whose matrices are column-major (PyTorch's layout for LAPACK results) */
static mt_tensor *colmajor_clone(la_scope *s, mt_tensor *t) {
    mt_tensor *tt = TS(s, mto_transpose_int(t, -2, -1));
    mt_tensor *c = TS(s, mto_clone(tt, "contiguous_format"));
    return TS(s, mto_transpose_int(c, -2, -1));
}

static int64_t last(const mt_tensor *t, int k) { /* size of dim -k */
    return t->sizes[t->ndim - k];
}

/* ---- LU ------------------------------------------------------------------------------------- */

/* The checked form of an _ex function: its results in r (info dropped), or PyTorch's error for
 * the first failed matrix; takes the references of outs and info */
static int ret_checked(mt_value *r, int n, mt_tensor **outs, mt_tensor *info, mt_la_failure kind,
                       const char *fname) {
    int st = mt_la_check_info_tensor(info, kind, fname);
    mt_tensor_decref(info);
    for (int i = 0; i < n; i++) {
        if (st)
            mt_tensor_decref(outs[i]);
        else
            r[i] = mt_vtensor(outs[i]);
    }
    return st;
}

static int c_lu_factor(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *outs[2], *info;
    if (mto_linalg_lu_factor_ex(a[0].t, a[1].b, false, &outs[0], &outs[1], &info)) return -1;
    return ret_checked(r, 2, outs, info, MT_LA_LU, "torch.linalg.lu_factor");
}

static int c_lu(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *LU, *piv, *info;
    if (mto_linalg_lu_factor_ex(a[0].t, a[1].b, false, &LU, &piv, &info)) return -1;
    mt_tensor *P, *L, *U;
    /* without pivoting P is empty, as PyTorch's */
    int st = mto_lu_unpack(LU, piv, true, a[1].b, &P, &L, &U);
    mt_tensor_decref(LU);
    mt_tensor_decref(piv);
    mt_tensor_decref(info);
    if (st) return -1;
    r[0] = mt_vtensor(P);
    r[1] = mt_vtensor(L);
    r[2] = mt_vtensor(U);
    return 0;
}

/* lu_solve(B, LU_data, LU_pivots) */
static int c_lu_solve_legacy(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_linalg_lu_solve(a[1].t, a[2].t, a[0].t, true, false));
}

/* ---- determinants --------------------------------------------------------------------------- */

/* the sign of the row permutation: -1 for an odd number of row swaps */
static mt_tensor *permutation_sign(la_scope *s, mt_tensor *piv, mt_dtype dt) {
    int64_t n = last(piv, 1);
    mt_tensor *ar =
        TS(s, mto_arange_start(mt_vint(1), mt_vint(n + 1), MT_INT32, piv->device, false, false));
    mt_tensor *moved = TS(s, mto_ne_Tensor(piv, ar));
    mt_tensor *swaps = TS(s, mto_sum_dim_IntList(moved, MT_ILIST(-1), false, MT_INT64));
    mt_tensor *odd = TS(s, mto_remainder_Scalar(swaps, mt_vint(2)));
    mt_tensor *twice = TS(s, mto_mul_Scalar(odd, mt_vint(-2)));
    mt_tensor *sign = TS(s, mto_add_Scalar(twice, mt_vint(1), mt_vint(1)));
    return TS(s, mto_to_dtype(sign, dt, false, false, NULL));
}

static int c_det(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    if (mt_la_check_square_float(A, "linalg.det", "A")) return -1;
    SCOPE;
    mt_tensor *LU = NULL, *piv = NULL, *info = NULL;
    T_MULTI(mto_linalg_lu_factor_ex(A, true, false, &LU, &piv, &info));
    T(LU), T(piv), T(info);
    mt_tensor *diag = T(mto_diagonal(LU, 0, -2, -1));
    mt_tensor *prod = T(mto_prod_dim_int(diag, -1, false, -1));
    mt_tensor *sign = S.failed ? NULL : permutation_sign(&S, piv, (mt_dtype)A->dtype);
    return la_ret1(&S, r, T(mto_mul_Tensor(prod, sign)));
}

static int slogdet(mt_tensor *A, const char *fname, mt_value *r) {
    if (mt_la_check_square_float(A, fname, "A")) return -1;
    SCOPE;
    mt_tensor *LU = NULL, *piv = NULL, *info = NULL;
    T_MULTI(mto_linalg_lu_factor_ex(A, true, false, &LU, &piv, &info));
    T(LU), T(piv), T(info);
    mt_tensor *diag = T(mto_diagonal(LU, 0, -2, -1));
    mt_tensor *signs = T(mto_sign(diag));
    mt_tensor *dsign = T(mto_prod_dim_int(signs, -1, false, -1));
    mt_tensor *absd = T(mto_abs(diag));
    mt_tensor *logd = T(mto_log(absd));
    mt_tensor *psign = S.failed ? NULL : permutation_sign(&S, piv, (mt_dtype)A->dtype);
    mt_tensor *outs[2] = {T(mto_mul_Tensor(dsign, psign)),
                          T(mto_sum_dim_IntList(logd, MT_ILIST(-1), false, -1))};
    return la_ret(&S, r, 2, outs);
}

static int c_slogdet(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return slogdet(a[0].t, "linalg.slogdet", r);
}

/* log(sign) is 0, nan or -inf: added to log|det| it gives logdet */
static int c_logdet(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    if (mt_la_check_square_float(A, "logdet", "A")) return -1;
    mt_tensor *sign, *logabs;
    if (mto_linalg_slogdet(A, &sign, &logabs)) return -1;
    SCOPE;
    T(sign), T(logabs);
    mt_tensor *logsign = T(mto_log(sign));
    return la_ret1(&S, r, T(mto_add_Tensor(logsign, logabs, mt_vint(1))));
}

static int c_det_alias(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_linalg_det(a[0].t));
}

static int c_slogdet_alias(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *s, *l;
    if (mto_linalg_slogdet(a[0].t, &s, &l)) return -1;
    r[0] = mt_vtensor(s);
    r[1] = mt_vtensor(l);
    return 0;
}

/* ---- inverse and solve ---------------------------------------------------------------------- */

static int c_inv_ex(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    if (mt_la_check_square_float(A, "linalg.inv", "A")) return -1;
    if (A->dtype == MT_FLOAT16 || A->dtype == MT_BFLOAT16)
        return mt_error(MT_ERR_RUNTIME, "linalg.inv: Low precision dtypes not supported. Got %s",
                        mt_dtype_scalar_name((mt_dtype)A->dtype));
    SCOPE;
    mt_tensor *LU = NULL, *piv = NULL, *info = NULL;
    T_MULTI(mto_linalg_lu_factor_ex(A, true, false, &LU, &piv, &info));
    T(LU), T(piv), T(info);
    mt_tensor *I = T(mto_eye(last(A, 1), A->dtype, A->device, false, false));
    mt_tensor *X = T(mto_linalg_lu_solve(LU, piv, I, true, false));
    if (!S.failed && a[1].b && mt_la_check_info_tensor(info, MT_LA_INV, "linalg.inv_ex"))
        S.failed = true;
    mt_tensor *outs[2] = {X, info};
    return la_ret(&S, r, 2, outs);
}

static int c_inv(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *X, *info;
    if (mto_linalg_inv_ex(a[0].t, false, &X, &info)) return -1;
    return ret_checked(r, 1, &X, info, MT_LA_INV, "linalg.inv");
}

/* B is a vector when it is 1-D or A's batch of vectors (PyTorch's rule) */
static bool solve_is_vector(const mt_tensor *A, const mt_tensor *B) {
    return B->ndim == 1 || (B->ndim == A->ndim - 1 &&
                            memcmp(B->sizes, A->sizes, sizeof(int64_t) * (size_t)B->ndim) == 0);
}

static int c_solve_ex(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *B = a[1].t;
    bool left = a[2].b;
    if (mt_la_check_matrix(A, "linalg.solve", "A") || mt_la_check_floating(A, "linalg.solve"))
        return -1;
    if (A->dtype != B->dtype)
        return mt_error(
            MT_ERR_RUNTIME,
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            "%s and B of type %s instead",
            mt_dtype_scalar_name((mt_dtype)A->dtype), mt_dtype_scalar_name((mt_dtype)B->dtype));
    bool vec = solve_is_vector(A, B);
    if (mt_la_check_square(A, "linalg.solve", "A")) return -1;
    if (!vec && B->ndim < 2) return mt_la_check_matrix(B, "linalg.solve", "B");
    int64_t n = last(A, 1);
    /* a vector is a column, also when left is false (then it does not fit) */
    int64_t br = vec ? last(B, 1) : last(B, 2);
    int64_t bc = vec ? 1 : last(B, 1);
    if ((left ? br : bc) != n)
        return mt_error(
            MT_ERR_RUNTIME,
            "linalg.solve: Incompatible shapes of A and B for the equation %s (%lldx%lld "
            "and %lldx%lld)",
            left ? "AX = B" : "XA = B", (long long)n, (long long)n, (long long)br, (long long)bc);
    SCOPE;
    mt_tensor *Bm = vec ? T(mto_unsqueeze(B, -1)) : B;
    mt_tensor *LU = NULL, *piv = NULL, *info = NULL;
    T_MULTI(mto_linalg_lu_factor_ex(A, true, false, &LU, &piv, &info));
    T(LU), T(piv), T(info);
    mt_tensor *X = T(mto_linalg_lu_solve(LU, piv, Bm, left, false));
    if (vec) X = T(mto_squeeze_dim(X, -1));
    if (vec && X && X->ndim >= 2) X = colmajor_clone(&S, X); /* PyTorch lays the batch out so */
    if (!S.failed && a[3].b && mt_la_check_info_tensor(info, MT_LA_SOLVE, "torch.linalg.solve_ex"))
        S.failed = true;
    mt_tensor *outs[2] = {X, info};
    return la_ret(&S, r, 2, outs);
}

static int c_solve(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *X, *info;
    if (mto_linalg_solve_ex(a[0].t, a[1].t, a[2].b, false, &X, &info)) return -1;
    return ret_checked(r, 1, &X, info, MT_LA_SOLVE, "torch.linalg.solve");
}

/* ---- Cholesky ------------------------------------------------------------------------------- */

static int c_cholesky(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *L, *info;
    if (mto_linalg_cholesky_ex(a[0].t, a[1].b, false, &L, &info)) return -1;
    return ret_checked(r, 1, &L, info, MT_LA_CHOLESKY, "linalg.cholesky");
}

/* A X = B with A = L L^T (or U^T U): two triangular solves */
static mt_tensor *cholesky_solve(mt_tensor *B, mt_tensor *F, bool upper) {
    SCOPE;
    mt_tensor *Ft = T(mto_transpose_int(F, -2, -1));
    mt_tensor *first = upper ? Ft : F, *second = upper ? F : Ft;
    mt_tensor *Y = T(mto_linalg_solve_triangular(first, B, false, true, false));
    mt_tensor *X = T(mto_linalg_solve_triangular(second, Y, true, true, false));
    if (X) mt_tensor_incref(X);
    la_release(&S);
    return X;
}

static int c_cholesky_solve(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *B = a[0].t, *F = a[1].t;
    if (B->ndim < 2)
        return mt_error(MT_ERR_RUNTIME,
                        "b should have at least 2 dimensions, but has %d dimensions instead",
                        B->ndim);
    if (F->ndim < 2)
        return mt_error(MT_ERR_RUNTIME,
                        "u should have at least 2 dimensions, but has %d dimensions instead",
                        F->ndim);
    if (last(F, 1) != last(F, 2))
        return mt_error(MT_ERR_RUNTIME,
                        "A must be batches of square matrices, but they are %lld by %lld matrices",
                        (long long)last(F, 2), (long long)last(F, 1));
    if (B->dtype != F->dtype)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected b and A to have the same dtype, but found b of type %s and A of "
                        "type %s instead.",
                        mt_dtype_scalar_name((mt_dtype)B->dtype),
                        mt_dtype_scalar_name((mt_dtype)F->dtype));
    if (last(B, 2) != last(F, 1))
        return mt_error(
            MT_ERR_RUNTIME,
            "Incompatible matrix sizes for cholesky_solve: each A matrix is %lld by %lld "
            "but each b matrix is %lld by %lld",
            (long long)last(F, 1), (long long)last(F, 1), (long long)last(B, 2),
            (long long)last(B, 1));
    if (mt_la_check_lapack_dtype(F, "cholesky_solve_cpu")) return -1;
    return mt_ret_tensor(r, cholesky_solve(B, F, a[2].b));
}

static int c_cholesky_inverse(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *F = a[0].t;
    if (mt_la_check_square(F, "cholesky_inverse", "A") ||
        mt_la_check_floating(F, "cholesky_inverse") ||
        mt_la_check_lapack_dtype(F, "cholesky_inverse_out_cpu"))
        return -1;
    mt_tensor *I = mto_eye(last(F, 1), F->dtype, F->device, false, false);
    mt_tensor *X = I ? cholesky_solve(I, F, a[1].b) : NULL;
    mt_tensor_decref(I);
    return mt_ret_tensor(r, X);
}

/* triangular_solve(B, A, upper, transpose, unitriangular) -> solution, a copy of A */
static int c_triangular_solve(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *B = a[0].t, *A = a[1].t;
    bool upper = a[2].b, trans = a[3].b;
    if (B->ndim < 2)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.triangular_solve: Expected b to have at least 2 dimensions, but it "
                        "has %d dimensions instead",
                        B->ndim);
    if (A->ndim < 2)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.triangular_solve: Expected A to have at least 2 dimensions, but it "
                        "has %d dimensions instead",
                        A->ndim);
    SCOPE;
    mt_tensor *Ae = trans ? T(mto_transpose_int(A, -2, -1)) : A;
    mt_tensor *outs[2] = {
        T(mto_linalg_solve_triangular(Ae, B, trans ? !upper : upper, true, a[4].b)),
        colmajor_clone(&S, A)};
    return la_ret(&S, r, 2, outs);
}

/* ---- matrix_power ------------------------------------------------------------------------- */

/* Binary powering with references held by hand, not a scope: only the running product and the
 * current square stay alive (a scope would keep every one: an exponent of 2^63 - 1 made 125 of
 * them, past a scope's room, and as many large matrices in memory). */
static int c_matrix_power(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    int64_t n = a[1].i;
    if (mt_la_check_square(A, "linalg.matrix_power", "A")) return -1;
    if (n == 0) {
        SCOPE;
        mt_tensor *I = T(mto_eye(last(A, 1), A->dtype, A->device, false, false));
        mt_tensor *Ie = T(mto_expand(I, (mt_ilist){A->sizes, A->ndim}, false));
        return la_ret1(&S, r, T(mto_clone(Ie, "contiguous_format")));
    }
    mt_tensor *base = n < 0 ? mto_linalg_inv(A) : A;
    if (!base) return -1;
    if (base == A) mt_tensor_incref(A);
    uint64_t e = n < 0 ? (uint64_t)(-(n + 1)) + 1 : (uint64_t)n;
    mt_tensor *acc = NULL;
    bool failed = false;
    for (;;) { /* base is A's 2^i-th power; acc the product of those of e's set bits so far */
        if (e & 1) {
            mt_tensor *p = acc ? mto_matmul(acc, base) : base;
            if (!p) {
                failed = true;
                break;
            }
            if (acc)
                mt_tensor_decref(acc);
            else
                mt_tensor_incref(p);
            acc = p;
        }
        e >>= 1;
        if (!e) break;
        mt_tensor *sq = mto_matmul(base, base);
        if (!sq) {
            failed = true;
            break;
        }
        mt_tensor_decref(base);
        base = sq;
    }
    mt_tensor_decref(base);
    if (!failed && acc == A) { /* the first power: a copy, never A itself */
        mt_tensor *copy = mto_clone(A, "contiguous_format");
        mt_tensor_decref(acc);
        acc = copy;
        failed = !copy;
    }
    if (failed) {
        if (acc) mt_tensor_decref(acc);
        return -1;
    }
    r[0] = mt_vtensor(acc);
    return 0;
}

/* ---- multi_dot: the product of a chain of matrices in the cheapest order ------------------- */

/* the textbook O(n^3) chain-order programme runs up to this many matrices; longer chains (whose
 * programme alone would take long) are multiplied left to right */
#define CHAIN_ORDER_MAX 64

/* a new reference to m[0] @ ... @ m[n-1], left to right */
static mt_tensor *chain_left(mt_tensor **m, int n) {
    mt_tensor *acc = m[0];
    mt_tensor_incref(acc);
    for (int i = 1; i < n && acc; i++) {
        mt_tensor *p = mto_mm(acc, m[i]);
        mt_tensor_decref(acc);
        acc = p;
    }
    return acc;
}

/* the product of m[i..j] split where the programme says (depth at most CHAIN_ORDER_MAX) */
static mt_tensor *chain_split(mt_tensor **m, const int *split, int n, int i, int j) {
    if (i == j) {
        mt_tensor_incref(m[i]);
        return m[i];
    }
    int k = split[i * n + j];
    mt_tensor *x = chain_split(m, split, n, i, k);
    mt_tensor *y = x ? chain_split(m, split, n, k + 1, j) : NULL;
    mt_tensor *p = y ? mto_mm(x, y) : NULL;
    mt_tensor_decref(x);
    mt_tensor_decref(y);
    return p;
}

/* dims[i] x dims[i+1] is m[i]'s shape */
static mt_tensor *chain_optimal(mt_tensor **m, const int64_t *dims, int n) {
    double *cost = calloc((size_t)(n * n), sizeof(double));
    int *split = calloc((size_t)(n * n), sizeof(int));
    mt_tensor *out = NULL;
    if (!cost || !split) {
        mt_error(MT_ERR_MEMORY, "multi_dot(): out of memory");
        goto done;
    }
    for (int len = 1; len < n; len++)
        for (int i = 0; i + len < n; i++) {
            int j = i + len;
            cost[i * n + j] = -1;
            for (int k = i; k < j; k++) {
                double q = cost[i * n + k] + cost[(k + 1) * n + j] +
                           (double)dims[i] * (double)dims[k + 1] * (double)dims[j + 1];
                if (cost[i * n + j] < 0 || q < cost[i * n + j]) {
                    cost[i * n + j] = q;
                    split[i * n + j] = k;
                }
            }
        }
    out = chain_split(m, split, n, 0, n - 1);
done:
    free(cost);
    free(split);
    return out;
}

/* squeeze(t, d), releasing t */
static mt_tensor *squeeze_owned(mt_tensor *t, int64_t d) {
    mt_tensor *s = mto_squeeze_dim(t, d);
    mt_tensor_decref(t);
    return s;
}

static int c_multi_dot(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    int n = a[0].n;
    mt_tensor **ts = a[0].tl;
    if (n < 2)
        return mt_error(MT_ERR_RUNTIME, "multi_dot(): expected at least 2 tensors but got %d", n);
    for (int i = 0; i < n; i++) {
        int d = ts[i]->ndim;
        if ((i == 0 || i == n - 1) ? (d < 1 || d > 2) : d != 2) {
            const char *which = i == 0 ? "first" : i == n - 1 ? "last" : NULL;
            if (which)
                return mt_error(MT_ERR_RUNTIME,
                                "multi_dot(): the %s tensor must be 1D or 2D but got %dD", which,
                                d);
            return mt_error(MT_ERR_RUNTIME, "multi_dot(): tensor %d must be 2D but got %dD", i + 1,
                            d);
        }
        if (ts[i]->dtype != ts[0]->dtype)
            return mt_error(
                MT_ERR_RUNTIME,
                "multi_dot(): all tensors must have be the same dtype but tensor 1 is %s "
                "and tensor %d %s",
                mt_dtype_cxx_name((mt_dtype)ts[0]->dtype), i + 1,
                mt_dtype_cxx_name((mt_dtype)ts[i]->dtype));
    }
    /* the operands as matrices (the first as a row, the last as a column when 1-D) */
    mt_tensor **m = malloc(sizeof(mt_tensor *) * (size_t)n);
    int64_t *dims = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!m || !dims) {
        free(m);
        free(dims);
        return mt_error(MT_ERR_MEMORY, "multi_dot(): out of memory");
    }
    bool first_vec = ts[0]->ndim == 1, last_vec = ts[n - 1]->ndim == 1;
    for (int i = 0; i < n; i++) m[i] = ts[i];
    mt_tensor *out = NULL;
    if (first_vec && !(m[0] = mto_unsqueeze(ts[0], 0))) goto done;
    if (last_vec && !(m[n - 1] = mto_unsqueeze(ts[n - 1], -1))) goto done;
    for (int i = 0; i + 1 < n; i++)
        if (m[i]->sizes[1] != m[i + 1]->sizes[0]) {
            char x[64], y[64];
            mt_fmt_ilist(x, sizeof x, m[i]->sizes, 2);
            mt_fmt_ilist(y, sizeof y, m[i + 1]->sizes, 2);
            mt_error(MT_ERR_RUNTIME,
                     "multi_dot(): tensors %d and %d with shapes %s and %s cannot be multiplied",
                     i + 1, i + 2, x, y);
            goto done;
        }
    for (int i = 0; i < n; i++) dims[i] = m[i]->sizes[0];
    dims[n] = m[n - 1]->sizes[1];
    out = n <= CHAIN_ORDER_MAX ? chain_optimal(m, dims, n) : chain_left(m, n);
    if (out && first_vec) out = squeeze_owned(out, 0);
    if (out && last_vec) out = squeeze_owned(out, -1);
done:
    if (first_vec && m[0] != ts[0]) mt_tensor_decref(m[0]);
    if (last_vec && m[n - 1] != ts[n - 1]) mt_tensor_decref(m[n - 1]);
    free(m);
    free(dims);
    return mt_ret_tensor(r, out);
}

/* ---- cross, diagonal, matmul, vecdot, vander --------------------------------------------------
 */

static mt_tensor *cross(mt_tensor *x, mt_tensor *y, int64_t d) {
    SCOPE;
    /* rolled by -1: (x2, x3, x1); by 1: (x3, x1, x2) */
    mt_tensor *x1 = T(mto_roll(x, MT_ILIST(-1), MT_ILIST(d))),
              *y2 = T(mto_roll(y, MT_ILIST(1), MT_ILIST(d)));
    mt_tensor *x2 = T(mto_roll(x, MT_ILIST(1), MT_ILIST(d))),
              *y1 = T(mto_roll(y, MT_ILIST(-1), MT_ILIST(d)));
    mt_tensor *a = T(mto_mul_Tensor(x1, y2)), *b = T(mto_mul_Tensor(x2, y1));
    mt_tensor *out = T(mto_sub_Tensor(a, b, mt_vint(1)));
    if (out) mt_tensor_incref(out);
    la_release(&S);
    return out;
}

static int check_cross(mt_tensor *x, mt_tensor *y, int64_t dim, int *d) {
    if (x->ndim != y->ndim)
        return mt_error(MT_ERR_RUNTIME,
                        "linalg.cross: inputs must have the same number of dimensions.");
    if (mt_wrap_dim(dim, x->ndim, d)) return -1;
    if (x->sizes[*d] != 3 || y->sizes[*d] != 3)
        return mt_error(MT_ERR_RUNTIME,
                        "linalg.cross: inputs dimension %lld must have length 3. Got %lld and %lld",
                        mt_user_dim(dim), (long long)x->sizes[*d], (long long)y->sizes[*d]);
    return 0;
}

static int c_linalg_cross(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    int d;
    if (check_cross(a[0].t, a[1].t, a[2].i, &d)) return -1;
    return mt_ret_tensor(r, cross(a[0].t, a[1].t, d));
}

/* cross(self, other, dim=nil): the first dim of size 3 (PyTorch warns that this is deprecated) */
static int c_cross(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[0].t, *y = a[1].t;
    int64_t dim;
    if (a[2].tag == MT_V_INT) {
        dim = a[2].i;
    } else {
        dim = -1;
        for (int i = 0; i < x->ndim && dim < 0; i++)
            if (x->sizes[i] == 3) dim = i;
        if (dim < 0) return mt_error(MT_ERR_RUNTIME, "no dimension of size 3 in input");
    }
    int d;
    if (check_cross(x, y, dim, &d)) return -1;
    return mt_ret_tensor(r, cross(x, y, d));
}

static int c_linalg_diagonal(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_diagonal(a[0].t, a[1].i, a[2].i, a[3].i));
}

static int c_linalg_matmul(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_matmul(a[0].t, a[1].t));
}

static int c_vecdot(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[0].t, *y = a[1].t;
    if (x->dtype != y->dtype)
        return mt_error(
            MT_ERR_RUNTIME,
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            "%s and y of type %s instead",
            mt_dtype_scalar_name((mt_dtype)x->dtype), mt_dtype_scalar_name((mt_dtype)y->dtype));
    SCOPE;
    mt_tensor *p = T(mto_mul_Tensor(x, y));
    return la_ret1(&S, r, T(mto_sum_dim_IntList(p, MT_ILIST(a[2].i), false, -1)));
}

/* vander(x, N): x^0 ... x^(N-1) along a new last dim, as cumulative products */
static int c_linalg_vander(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[0].t;
    int64_t N = a[1].tag == MT_V_INT ? a[1].i : (x->ndim ? last(x, 1) : 0);
    if (x->ndim == 0 || N <= 1) return mt_error(MT_ERR_RUNTIME, "N must be greater than 1.");
    SCOPE;
    int64_t shape[MT_MAX_DIM];
    memcpy(shape, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
    shape[x->ndim] = N - 1;
    mt_tensor *xu = T(mto_unsqueeze(x, -1));
    mt_tensor *xs = T(mto_expand(xu, (mt_ilist){shape, x->ndim + 1}, false));
    shape[x->ndim] = 1;
    mt_tensor *ones =
        T(mto_ones((mt_ilist){shape, x->ndim + 1}, x->dtype, x->device, false, false));
    mt_tensor *parts[2] = {ones, xs};
    mt_tensor *cat = S.failed ? NULL : T(mto_cat(parts, 2, -1));
    return la_ret1(&S, r, T(mto_cumprod(cat, -1, -1)));
}

void mt_linalg_comp_register(void) {
    static const struct {
        int op;
        mt_kernel k;
    } composites[] = {
        {MT_OP_linalg_lu_factor, c_lu_factor},
        {MT_OP_linalg_lu, c_lu},
        {MT_OP_lu_solve, c_lu_solve_legacy},
        {MT_OP_linalg_det, c_det},
        {MT_OP_det, c_det_alias},
        {MT_OP_linalg_slogdet, c_slogdet},
        {MT_OP_slogdet, c_slogdet_alias},
        {MT_OP_logdet, c_logdet},
        {MT_OP_linalg_inv_ex, c_inv_ex},
        {MT_OP_linalg_inv, c_inv},
        {MT_OP_inverse, c_inv},
        {MT_OP_linalg_solve_ex, c_solve_ex},
        {MT_OP_linalg_solve, c_solve},
        {MT_OP_linalg_cholesky, c_cholesky},
        {MT_OP_cholesky, c_cholesky},
        {MT_OP_cholesky_solve, c_cholesky_solve},
        {MT_OP_cholesky_inverse, c_cholesky_inverse},
        {MT_OP_triangular_solve, c_triangular_solve},
        {MT_OP_linalg_matrix_power, c_matrix_power},
        {MT_OP_matrix_power, c_matrix_power},
        {MT_OP_linalg_multi_dot, c_multi_dot},
        {MT_OP_linalg_cross, c_linalg_cross},
        {MT_OP_cross, c_cross},
        {MT_OP_linalg_diagonal, c_linalg_diagonal},
        {MT_OP_linalg_matmul, c_linalg_matmul},
        {MT_OP_linalg_vecdot, c_vecdot},
        {MT_OP_linalg_vander, c_linalg_vander},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(composites); i++)
        mt_disp_composite(composites[i].op, composites[i].k);
}
