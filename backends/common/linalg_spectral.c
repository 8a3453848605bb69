/* linalg_spectral.c: torch.linalg functions written with QR, eigh, the SVD and least squares
 * (src/ops/linalg_lapack.lua): the legacy qr, svd, symeig, orgqr; svd, svdvals, eigvalsh,
 * lstsq, ldl_factor; pinv, matrix_rank, cond; the vector and matrix norms; matrix_exp;
 * tensorinv and tensorsolve. Composites: autograd differentiates what they call. */
#include "common_ops.h"
#include "linalg_lapack.h"
#include "mt_ops_gen.h"

#include <float.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

static int64_t last(const mt_tensor *t, int k) {
    return t->sizes[t->ndim - k];
}

static double eps_of(mt_dtype dt) {
    return dt == MT_FLOAT64 ? DBL_EPSILON : FLT_EPSILON;
}

/* one value of a tensor read on the host (0 on the meta device, where there is none) */
static int host_double(mt_tensor *t, double *out) {
    *out = 0;
    if (t->device.type == MT_DEV_META) return 0;
    mt_tensor *h = mto_to_device(t, (mt_device){MT_DEV_CPU, 0}, MT_FLOAT64, false, true, NULL);
    int st = h && !mt_tensor_sync(h) ? 0 : -1;
    if (!st) *out = *(const double *)mt_tensor_data(h);
    mt_tensor_decref(h);
    return st;
}

static void ret2(mt_value *r, mt_tensor *a, mt_tensor *b) {
    r[0] = mt_vtensor(a);
    r[1] = mt_vtensor(b);
}

/* ---- QR, eigh, SVD: the legacy and derived forms -------------------------------------------- */

static int c_qr_legacy(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *Q, *R;
    if (mto_linalg_qr(a[0].t, a[1].b ? "reduced" : "complete", &Q, &R)) return -1;
    ret2(r, Q, R);
    return 0;
}

static int c_orgqr(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_linalg_householder_product(a[0].t, a[1].t));
}

static int c_eigvalsh(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *L, *V;
    if (mto_linalg_eigh(a[0].t, a[1].s, &L, &V)) return -1;
    mt_tensor_decref(V);
    return mt_ret_tensor(r, L);
}

static int c_symeig(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    if (mt_la_check_matrix(A, "linalg.symeig", "A")) return -1;
    mt_tensor *L, *V;
    if (mto_linalg_eigh(A, a[2].b ? "U" : "L", &L, &V)) return -1;
    if (!a[1].b) { /* no eigenvectors asked: an empty tensor in their place */
        mt_tensor_decref(V);
        V = mto_empty(MT_ILIST(0), A->dtype, A->device, false, false, NULL);
        if (!V) {
            mt_tensor_decref(L);
            return -1;
        }
    }
    ret2(r, L, V);
    return 0;
}

static int c_linalg_svd(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *U, *S, *Vh;
    if (mto__linalg_svd(a[0].t, a[1].b, true, a[2].tag == MT_V_STR ? a[2].s : NULL, &U, &S, &Vh))
        return -1;
    r[0] = mt_vtensor(U);
    r[1] = mt_vtensor(S);
    r[2] = mt_vtensor(Vh);
    return 0;
}

/* U and Vh are computed too: the derivative of the singular values needs them */
static mt_tensor *svdvals(mt_tensor *A, const char *driver) {
    mt_tensor *U, *S, *Vh;
    if (mto__linalg_svd(A, false, true, driver, &U, &S, &Vh)) return NULL;
    mt_tensor_decref(U);
    mt_tensor_decref(Vh);
    return S;
}

static int c_svdvals(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, svdvals(a[0].t, a[1].tag == MT_V_STR ? a[1].s : NULL));
}

/* svd(A, some, compute_uv) -> U, S, V (V, not V^T; zero U and V without compute_uv) */
static int c_svd_legacy(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    if (A->ndim < 2)
        return mt_error(
            MT_ERR_RUNTIME,
            "linalg.svd: input should have at least 2 dimensions, but has %d dimensions "
            "instead",
            A->ndim);
    SCOPE;
    mt_tensor *U = NULL, *Sv = NULL, *Vh = NULL, *V = NULL;
    if (a[2].b) {
        T_MULTI(mto__linalg_svd(A, !a[1].b, true, NULL, &U, &Sv, &Vh));
        T(U), T(Sv), T(Vh);
        V = T(mto_transpose_int(Vh, -2, -1));
    } else {
        Sv = T(svdvals(A, NULL));
        int64_t sz[MT_MAX_DIM];
        memcpy(sz, A->sizes, sizeof(int64_t) * (size_t)A->ndim);
        sz[A->ndim - 1] = last(A, 2);
        U = T(mto_zeros((mt_ilist){sz, A->ndim}, A->dtype, A->device, false, false));
        sz[A->ndim - 1] = sz[A->ndim - 2] = last(A, 1);
        mt_tensor *Z = T(mto_zeros((mt_ilist){sz, A->ndim}, A->dtype, A->device, false, false));
        V = T(mto_transpose_int(Z, -2, -1));
    }
    mt_tensor *outs[3] = {U, Sv, V};
    return la_ret(&S, r, 3, outs);
}

/* ---- least squares and LDL --------------------------------------------------------------------
 */

static int c_lstsq(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *B = a[1].t;
    const char *f = "torch.linalg.lstsq";
    if (A->ndim < 2)
        return mt_error(MT_ERR_RUNTIME, "%s: input must have at least 2 dimensions.", f);
    if (B->ndim < 1)
        return mt_error(MT_ERR_RUNTIME, "%s: other must have at least 1 dimension.", f);
    if (A->dtype != B->dtype)
        return mt_error(
            MT_ERR_RUNTIME,
            "%s: Expected input and other to have the same dtype, but got input's dtype "
            "%s and other's dtype %s",
            f, mt_dtype_scalar_name((mt_dtype)A->dtype), mt_dtype_scalar_name((mt_dtype)B->dtype));
    if (A->dtype != MT_FLOAT32 && A->dtype != MT_FLOAT64)
        return mt_error(MT_ERR_RUNTIME, "This function doesn't handle types other than float and "
                                        "double");
    if (A->ndim < B->ndim || A->ndim - B->ndim > 1)
        return mt_error(
            MT_ERR_RUNTIME,
            "%s: input.dim() must be greater or equal to other.dim() and (input.dim() - "
            "other.dim()) <= 1",
            f);
    bool vec = B->ndim == A->ndim - 1;
    int64_t m = last(A, 2), n = last(A, 1);
    if (vec ? last(B, 1) != m : last(B, 2) != m)
        return mt_error(MT_ERR_RUNTIME, "%s: input.size(-2) should match other.size(%d)", f,
                        vec ? -1 : -2);
    /* CUDA has only gels (PyTorch's default there), the CPU all four (gelsy by default) */
    bool cuda = mt_la_on_cuda(A);
    const char *drv = a[3].tag == MT_V_STR ? a[3].s : cuda ? "gels" : "gelsy";
    if (cuda && strcmp(drv, "gels") != 0)
        return mt_error(MT_ERR_RUNTIME, "%s: `driver` other than `gels` is not supported on CUDA",
                        f);
    double rcond = a[2].tag == MT_V_NONE ? eps_of((mt_dtype)A->dtype) * (double)(m > n ? m : n)
                                         : mt_scalar_double(a[2]);
    SCOPE;
    mt_tensor *Bm = vec ? T(mto_unsqueeze(B, -1)) : B;
    mt_tensor *X = NULL, *rank = NULL, *sv = NULL;
    /* LAPACK's drivers on detached inputs: the derivative is pinv's, below */
    mt_tensor *Ad = T(mto_detach(A)), *Bd = T(mto_detach(Bm));
    T_MULTI(mto__linalg_lstsq_raw(Ad, Bd, rcond, drv, &X, &rank, &sv));
    T(X), T(rank), T(sv);
    mt_tensor *sol = T(mto_narrow(X, -2, 0, n));
    if (mt_tls_get()->grad_enabled && (mt_tensor_requires_grad(A) || mt_tensor_requires_grad(B))) {
        /* LAPACK's values with PyTorch's derivative, that of pinv(A) B: sol + (P B - [P B]) */
        mt_tensor *P = T(mto_linalg_pinv_atol_rtol_float(A, MT_NONE, MT_NONE, false));
        mt_tensor *PB = T(mto_matmul(P, Bm));
        mt_tensor *PBd = T(mto_detach(PB));
        mt_tensor *zero = T(mto_sub_Tensor(PB, PBd, mt_vint(1)));
        mt_tensor *sold = T(mto_detach(sol));
        sol = T(mto_add_Tensor(sold, zero, mt_vint(1)));
    }
    if (vec) sol = T(mto_squeeze_dim(sol, -1));
    /* residuals: the squared norms of what is left below row n, when A is tall and of full rank */
    bool resid = !S.failed && m > n && strcmp(drv, "gelsy") != 0;
    /* whether there are residuals depends on the rank: data the meta device does not have */
    if (resid && strcmp(drv, "gels") != 0 && A->device.type == MT_DEV_META) {
        la_release(&S);
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "Could not run 'aten::linalg_lstsq' with arguments "
                                                "from the 'Meta' backend.");
    }
    if (resid && strcmp(drv, "gels") != 0) {
        mt_tensor *full = T(mto_eq_Scalar(rank, mt_vint(n)));
        mt_tensor *all = T(mto_all(full));
        double v = 0;
        if (all && host_double(all, &v)) S.failed = true;
        resid = !S.failed && v != 0;
    }
    mt_tensor *res;
    if (resid) {
        mt_tensor *tail = T(mto_narrow(X, -2, n, m - n));
        mt_tensor *sq = T(mto_mul_Tensor(tail, tail));
        res = T(mto_sum_dim_IntList(sq, MT_ILIST(-2), false, -1));
        if (vec) res = T(mto_squeeze_dim(res, -1));
    } else {
        res = T(mto_empty(MT_ILIST(0), A->dtype, A->device, false, false, NULL));
    }
    mt_tensor *outs[4] = {sol, res, rank, sv};
    return la_ret(&S, r, 4, outs);
}

static int c_ldl_factor(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *LD, *piv, *info;
    if (mto_linalg_ldl_factor_ex(a[0].t, a[1].b, false, &LD, &piv, &info)) return -1;
    int st = 0;
    if (info->device.type != MT_DEV_META) { /* sytrf's info > 0: D has a zero block */
        mt_tensor *mx = mto_amax(info, (mt_ilist){NULL, 0}, false);
        double v = 0;
        st = mx ? host_double(mx, &v) : -1;
        mt_tensor_decref(mx);
        if (!st && v > 0)
            st = mt_error(MT_ERR_RUNTIME,
                          "torch.linalg.ldl_factor: the factorization could not be used: D[%d,%d] "
                          "is zero (the matrix is singular)",
                          (int)v, (int)v);
    }
    mt_tensor_decref(info);
    if (st) {
        mt_tensor_decref(LD);
        mt_tensor_decref(piv);
        return -1;
    }
    ret2(r, LD, piv);
    return 0;
}

/* ---- pinv, matrix_rank, cond ------------------------------------------------------------------
 */

/* max(atol, rtol * largest): rtol defaults to eps * max(m, n) unless atol is given and positive */
static mt_tensor *tolerance(la_scope *s, mt_tensor *A, mt_tensor *largest, mt_value atol,
                            mt_value rtol) {
    double at = mt_is_none(atol) ? 0 : mt_scalar_double(atol);
    double rt = mt_is_none(rtol)
                    ? ((mt_is_none(atol) || at <= 0)
                           ? eps_of((mt_dtype)A->dtype) *
                                 (double)(last(A, 1) > last(A, 2) ? last(A, 1) : last(A, 2))
                           : 0)
                    : mt_scalar_double(rtol);
    mt_tensor *rel = TS(s, mto_mul_Scalar(largest, mt_vdouble(rt)));
    return TS(s, mto_clamp(rel, mt_vdouble(at), MT_NONE));
}

static int check_pinv_input(const mt_tensor *A) {
    if (A->ndim >= 2 && (A->dtype == MT_FLOAT32 || A->dtype == MT_FLOAT64)) return 0;
    char s[256];
    mt_fmt_ilist(s, sizeof s, A->sizes, A->ndim);
    return mt_error(MT_ERR_RUNTIME,
                    "linalg.pinv(%s{%s}): expected a tensor with 2 or more dimensions of float, "
                    "double, cfloat or cdouble types",
                    mt_dtype_scalar_name((mt_dtype)A->dtype), s);
}

static mt_tensor *pinv(mt_tensor *A, mt_value atol, mt_value rtol, bool hermitian) {
    SCOPE;
    mt_tensor *out;
    if (hermitian) {
        mt_tensor *L = NULL, *U = NULL;
        T_MULTI(mto_linalg_eigh(A, "L", &L, &U));
        T(L), T(U);
        mt_tensor *absL = T(mto_abs(L));
        mt_tensor *big = T(mto_amax(absL, MT_ILIST(-1), true));
        mt_tensor *tol = S.failed ? NULL : tolerance(&S, A, big, atol, rtol);
        mt_tensor *keep = T(mto_gt_Tensor(absL, tol));
        mt_tensor *rec = T(mto_reciprocal(L));
        mt_tensor *inv = T(mto_where_ScalarOther(keep, rec, mt_vint(0)));
        mt_tensor *invr = T(mto_unsqueeze(inv, -2));
        mt_tensor *scaled = T(mto_mul_Tensor(U, invr));
        mt_tensor *Ut = T(mto_transpose_int(U, -2, -1));
        out = T(mto_matmul(scaled, Ut));
    } else {
        mt_tensor *U = NULL, *Sv = NULL, *Vh = NULL;
        T_MULTI(mto__linalg_svd(A, false, true, NULL, &U, &Sv, &Vh));
        T(U), T(Sv), T(Vh);
        mt_tensor *big = T(mto_amax(Sv, MT_ILIST(-1), true));
        mt_tensor *tol = S.failed ? NULL : tolerance(&S, A, big, atol, rtol);
        mt_tensor *keep = T(mto_gt_Tensor(Sv, tol));
        mt_tensor *rec = T(mto_reciprocal(Sv));
        mt_tensor *inv = T(mto_where_ScalarOther(keep, rec, mt_vint(0)));
        mt_tensor *V = T(mto_transpose_int(Vh, -2, -1));
        mt_tensor *invr = T(mto_unsqueeze(inv, -2));
        mt_tensor *scaled = T(mto_mul_Tensor(V, invr));
        mt_tensor *Ut = T(mto_transpose_int(U, -2, -1));
        out = T(mto_matmul(scaled, Ut));
    }
    if (out) mt_tensor_incref(out);
    la_release(&S);
    return out;
}

static int c_pinv(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    if (check_pinv_input(a[0].t)) return -1;
    return mt_ret_tensor(r, pinv(a[0].t, a[1], a[2], a[3].b));
}

/* pinv(A, rcond, hermitian): atol 0, rtol rcond */
static int c_pinv_rcond(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    if (check_pinv_input(a[0].t)) return -1;
    return mt_ret_tensor(r, pinv(a[0].t, mt_vdouble(0), a[1], a[2].b));
}

static int c_pinverse(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    if (check_pinv_input(a[0].t)) return -1;
    return mt_ret_tensor(r, pinv(a[0].t, mt_vdouble(0), a[1], false));
}

static mt_tensor *matrix_rank(mt_tensor *A, mt_value atol, mt_value rtol, bool hermitian) {
    if (mt_la_check_matrix(A, "torch.linalg.matrix_rank", "input")) return NULL;
    if (A->dtype != MT_FLOAT32 && A->dtype != MT_FLOAT64)
        return mt_error_null(MT_ERR_RUNTIME,
                             "This function doesn't handle types other than float and double");
    SCOPE;
    mt_tensor *Sv;
    if (hermitian) {
        mt_tensor *L = NULL, *U = NULL;
        T_MULTI(mto_linalg_eigh(A, "L", &L, &U));
        T(L), T(U);
        Sv = T(mto_abs(L));
    } else {
        Sv = T(svdvals(A, NULL));
    }
    mt_tensor *big = T(mto_amax(Sv, MT_ILIST(-1), true));
    mt_tensor *tol = S.failed ? NULL : tolerance(&S, A, big, atol, rtol);
    mt_tensor *keep = T(mto_gt_Tensor(Sv, tol));
    mt_tensor *out = T(mto_sum_dim_IntList(keep, MT_ILIST(-1), false, MT_INT64));
    if (out) mt_tensor_incref(out);
    la_release(&S);
    return out;
}

static int c_matrix_rank(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, matrix_rank(a[0].t, a[1], a[2], a[3].b));
}

static int c_matrix_rank_tol(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, matrix_rank(a[0].t, a[1], mt_vdouble(0), a[2].b));
}

static mt_tensor *matrix_norm(mt_tensor *A, mt_value ord, const char *sord, int64_t d0, int64_t d1,
                              bool keepdim, int dtype);

/* cond(A, p): the ratio of extreme singular values for p in (nil, 2, -2), else
 * norm(A, p) * norm(inv(A), p) */
static mt_tensor *cond(mt_tensor *A, mt_value p, const char *sp) {
    if (A->ndim < 2)
        return mt_error_null(MT_ERR_RUNTIME,
                             "linalg.cond: The input tensor must have at least 2 dimensions.");
    bool svd_kind = !sp && (mt_is_none(p) || fabs(mt_scalar_double(p)) == 2);
    if (!svd_kind && !sp) {
        double v = mt_scalar_double(p);
        if (v != 1 && v != -1 && !isinf(v))
            return mt_error_null(MT_ERR_RUNTIME, "linalg.cond got an invalid norm type: %g", v);
    }
    if (sp && strcmp(sp, "fro") != 0 && strcmp(sp, "nuc") != 0)
        return mt_error_null(MT_ERR_RUNTIME, "linalg.cond got an invalid norm type: %s", sp);
    if (mt_la_check_floating(A, "linalg.cond")) return NULL;
    SCOPE;
    mt_tensor *out;
    if (svd_kind) {
        mt_tensor *Sv = T(svdvals(A, NULL));
        int64_t k = Sv ? last(Sv, 1) : 0;
        mt_tensor *first = T(mto_select_int(Sv, -1, 0)), *lastv = T(mto_select_int(Sv, -1, k - 1));
        bool inverse = !mt_is_none(p) && mt_scalar_double(p) < 0;
        out = T(mto_div_Tensor(inverse ? lastv : first, inverse ? first : lastv));
    } else {
        char name[64];
        if (sp)
            snprintf(name, sizeof name, "linalg.cond(ord=%s)", sp);
        else
            snprintf(name, sizeof name, "linalg.cond(ord=%g)", mt_scalar_double(p));
        if (mt_la_check_square(A, name, "A")) {
            la_release(&S);
            return NULL;
        }
        mt_tensor *Ai = NULL, *info = NULL;
        T_MULTI(mto_linalg_inv_ex(A, false, &Ai, &info));
        T(Ai), T(info);
        mt_tensor *n1 = S.failed ? NULL : T(matrix_norm(A, p, sp, -2, -1, false, -1));
        mt_tensor *n2 = S.failed ? NULL : T(matrix_norm(Ai, p, sp, -2, -1, false, -1));
        out = T(mto_mul_Tensor(n1, n2));
    }
    if (out) mt_tensor_incref(out);
    la_release(&S);
    return out;
}

static int c_cond(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, cond(a[0].t, a[1], NULL));
}

static int c_cond_str(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, cond(a[0].t, MT_NONE, a[1].s));
}

/* ---- norms ---------------------------------------------------------------------------------- */

/* vector_norm(x, ord, dims (NULL: all), keepdim, dtype) */
static mt_tensor *vector_norm(mt_tensor *x, mt_value ord, const int64_t *dims, int ndims,
                              bool keepdim, int dtype) {
    if (mt_la_check_floating(x, "linalg.vector_norm")) return NULL;
    if (dtype >= 0 && !mt_dtype_is_floating((mt_dtype)dtype))
        return mt_error_null(MT_ERR_RUNTIME,
                             "linalg.vector_norm: dtype should be floating point or complex, but "
                             "got %s",
                             mt_dtype_scalar_name((mt_dtype)dtype));
    SCOPE;
    mt_tensor *in =
        dtype >= 0 && dtype != x->dtype ? T(mto_to_dtype(x, dtype, false, false, NULL)) : x;
    mt_tensor *out;
    if (!dims) { /* every element: the norm of the flattened tensor, reshaped for keepdim */
        mt_tensor *flat = T(mto_reshape(in, MT_ILIST(-1)));
        out = T(mto_norm_ScalarOpt_dim(flat, ord, MT_ILIST(0), false));
        if (keepdim && x->ndim) {
            int64_t ones[MT_MAX_DIM];
            for (int i = 0; i < x->ndim; i++) ones[i] = 1;
            out = T(mto_reshape(out, (mt_ilist){ones, x->ndim}));
        }
    } else {
        out = T(mto_norm_ScalarOpt_dim(in, ord, (mt_ilist){dims, ndims}, keepdim));
    }
    if (out) mt_tensor_incref(out);
    la_release(&S);
    return out;
}

static int c_vector_norm(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    bool all = a[2].tag == MT_V_NONE;
    return mt_ret_tensor(r, vector_norm(a[0].t, a[1], all ? NULL : a[2].il, all ? 0 : a[2].n,
                                        a[3].b, a[4].tag == MT_V_DTYPE ? a[4].dtype : -1));
}

/* matrix_norm over dims d0, d1: ord a number (sord NULL) or 'fro' / 'nuc' */
static mt_tensor *matrix_norm(mt_tensor *A, mt_value ord, const char *sord, int64_t d0, int64_t d1,
                              bool keepdim, int dtype) {
    if (mt_la_check_matrix(A, "linalg.matrix_norm", "A") ||
        mt_la_check_floating(A, "linalg.matrix_norm"))
        return NULL;
    int w0, w1;
    if (mt_wrap_dim(d0, A->ndim, &w0) || mt_wrap_dim(d1, A->ndim, &w1)) return NULL;
    if (w0 == w1)
        return mt_error_null(MT_ERR_RUNTIME,
                             "linalg.matrix_norm: dims must be different. Got (%lld, %lld)",
                             mt_user_dim(d0), mt_user_dim(d1));
    double v = sord ? 0 : mt_scalar_double(ord);
    if (sord ? (strcmp(sord, "fro") != 0 && strcmp(sord, "nuc") != 0)
             : (v != 1 && v != -1 && v != 2 && v != -2 && !isinf(v))) {
        if (sord)
            return mt_error_null(MT_ERR_RUNTIME, "linalg.matrix_norm: Order %s not supported.",
                                 sord);
        return mt_error_null(MT_ERR_RUNTIME, "linalg.matrix_norm: Order %g not supported.", v);
    }
    int64_t dims[2] = {w0, w1};
    if (sord && strcmp(sord, "fro") == 0)
        return vector_norm(A, mt_vint(2), dims, 2, keepdim, dtype);
    SCOPE;
    mt_tensor *in =
        dtype >= 0 && dtype != A->dtype ? T(mto_to_dtype(A, dtype, false, false, NULL)) : A;
    mt_tensor *out;
    if (sord || fabs(v) == 2) { /* the singular values of the matrices moved last */
        int64_t dst[2] = {-2, -1};
        mt_tensor *moved = T(mto_movedim(in, (mt_ilist){dims, 2}, (mt_ilist){dst, 2}));
        mt_tensor *Sv = S.failed ? NULL : T(svdvals(moved, NULL));
        if (sord)
            out = T(mto_sum_dim_IntList(Sv, MT_ILIST(-1), false, -1));
        else
            out =
                v > 0 ? T(mto_amax(Sv, MT_ILIST(-1), false)) : T(mto_amin(Sv, MT_ILIST(-1), false));
        if (keepdim) { /* two size-1 dims last, moved back where the reduced dims were */
            out = T(mto_unsqueeze(out, -1));
            out = T(mto_unsqueeze(out, -1));
            out = T(mto_movedim(out, (mt_ilist){dst, 2}, (mt_ilist){dims, 2}));
        }
    } else { /* 1: the largest column sum; inf: the largest row sum (smallest for -1, -inf) */
        bool cols = fabs(v) == 1;
        int sum_dim = cols ? w0 : w1, ext_dim = cols ? w1 : w0;
        mt_tensor *ab = T(mto_abs(in));
        mt_tensor *sums = T(mto_sum_dim_IntList(ab, MT_ILIST(sum_dim), true, -1));
        out = v > 0 ? T(mto_amax(sums, MT_ILIST(ext_dim), true))
                    : T(mto_amin(sums, MT_ILIST(ext_dim), true));
        if (!keepdim) {
            out = T(mto_squeeze_dim(out, w0 > w1 ? w0 : w1));
            out = T(mto_squeeze_dim(out, w0 > w1 ? w1 : w0));
        }
    }
    if (out) mt_tensor_incref(out);
    la_release(&S);
    return out;
}

static int two_dims(mt_value v, int64_t *d0, int64_t *d1) {
    if (v.n != 2)
        return mt_error(MT_ERR_RUNTIME, "linalg.matrix_norm: dim must be a 2-tuple. Got %d dims",
                        v.n);
    *d0 = v.il[0];
    *d1 = v.il[1];
    return 0;
}

static int c_matrix_norm(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    int64_t d0 = 0, d1 = 0;
    if (two_dims(a[2], &d0, &d1)) return -1;
    bool str = a[1].tag == MT_V_STR;
    return mt_ret_tensor(r, matrix_norm(a[0].t, str ? MT_NONE : a[1], str ? a[1].s : NULL, d0, d1,
                                        a[3].b, a[4].tag == MT_V_DTYPE ? a[4].dtype : -1));
}

/* linalg_norm(A, ord, dim, keepdim, dtype): a vector norm for one dim (or all, without ord), a
 * matrix norm for two */
static int c_linalg_norm(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    mt_value ord = a[1], dim = a[2];
    bool keep = a[3].b, str = ord.tag == MT_V_STR;
    int dtype = a[4].tag == MT_V_DTYPE ? a[4].dtype : -1;
    if (dim.tag != MT_V_NONE) {
        if (dim.n == 2)
            return mt_ret_tensor(r, matrix_norm(A, str ? MT_NONE : ord,
                                                str ? ord.s : (mt_is_none(ord) ? "fro" : NULL),
                                                dim.il[0], dim.il[1], keep, dtype));
        if (str)
            return mt_error(MT_ERR_RUNTIME,
                            "linalg.norm: If ord is a string, dim must be a 2-tuple. Got %d dims",
                            dim.n);
        return mt_ret_tensor(
            r, vector_norm(A, mt_is_none(ord) ? mt_vint(2) : ord, dim.il, dim.n, keep, dtype));
    }
    if (str) return mt_ret_tensor(r, matrix_norm(A, MT_NONE, ord.s, -2, -1, keep, dtype));
    if (mt_is_none(ord)) return mt_ret_tensor(r, vector_norm(A, mt_vint(2), NULL, 0, keep, dtype));
    if (A->ndim != 1 && A->ndim != 2)
        return mt_error(MT_ERR_RUNTIME,
                        "linalg.norm: If dim is not specified but ord is, the input must be 1D or "
                        "2D. Got %dD.",
                        A->ndim);
    if (A->ndim == 1) return mt_ret_tensor(r, vector_norm(A, ord, NULL, 0, keep, dtype));
    return mt_ret_tensor(r, matrix_norm(A, ord, NULL, -2, -1, keep, dtype));
}

static int c_nuclear_norm(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    if (A->ndim != 2)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected a tensor with 2 dimensions, but got a tensor with %d dimension%s "
                        "instead.",
                        A->ndim, A->ndim == 1 ? "" : "s");
    return mt_ret_tensor(r, matrix_norm(A, MT_NONE, "nuc", -2, -1, a[1].b, -1));
}

static int c_nuclear_norm_dim(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    int64_t d0 = 0, d1 = 0;
    if (two_dims(a[1], &d0, &d1)) return -1;
    return mt_ret_tensor(r, matrix_norm(a[0].t, MT_NONE, "nuc", d0, d1, a[2].b, -1));
}

static int c_frobenius_norm(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, vector_norm(a[0].t, mt_vint(2), a[1].il, a[1].n, a[2].b, -1));
}

/* ---- matrix_exp: scaling and squaring with the degree-13 Pade approximant (Higham 2005) -------
 */

static const double PADE13[14] = {64764752532480000.0,
                                  32382376266240000.0,
                                  7771770303897600.0,
                                  1187353796428800.0,
                                  129060195264000.0,
                                  10559470521600.0,
                                  670442572800.0,
                                  33522128640.0,
                                  1323241920.0,
                                  40840800.0,
                                  960960.0,
                                  16380.0,
                                  182.0,
                                  1.0};
#define THETA13 5.371920351148152

/* c2 * A2 + c4 * A4 + c6 * A6 (+ c0 * I) */
static mt_tensor *poly3(la_scope *s, mt_tensor *A2, mt_tensor *A4, mt_tensor *A6, double c2,
                        double c4, double c6, mt_tensor *I, double c0) {
    mt_tensor *t = TS(s, mto_mul_Scalar(A2, mt_vdouble(c2)));
    t = TS(s, mto_add_Tensor(t, A4, mt_vdouble(c4)));
    t = TS(s, mto_add_Tensor(t, A6, mt_vdouble(c6)));
    return I ? TS(s, mto_add_Tensor(t, I, mt_vdouble(c0))) : t;
}

static int c_matrix_exp(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    if (mt_la_check_square(A, "linalg.matrix_exp", "A")) return -1;
    if (!mt_dtype_is_floating((mt_dtype)A->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "matrix_exp: Expected a floating point or complex tensor as input. Got %s",
                        mt_dtype_scalar_name((mt_dtype)A->dtype));
    SCOPE;
    /* s: the squarings that bring the largest 1-norm in the batch under theta_13 */
    mt_tensor *ab = T(mto_abs(A));
    mt_tensor *colsum = T(mto_sum_dim_IntList(ab, MT_ILIST(-2), false, -1));
    mt_tensor *nmax = A->numel ? T(mto_amax(colsum, (mt_ilist){NULL, 0}, false)) : NULL;
    double norm = 0;
    if (nmax && host_double(nmax, &norm)) S.failed = true;
    int sq = norm > THETA13 ? (int)ceil(log2(norm / THETA13)) : 0;
    if (sq > 1000) sq = 1000; /* inf or nan: the result is nan anyway */
    mt_tensor *As = sq ? T(mto_mul_Scalar(A, mt_vdouble(ldexp(1.0, -sq)))) : A;
    const double *b = PADE13;
    mt_tensor *I = T(mto_eye(last(A, 1), A->dtype, A->device, false, false));
    mt_tensor *A2 = T(mto_matmul(As, As)), *A4 = T(mto_matmul(A2, A2)), *A6 = T(mto_matmul(A4, A2));
    mt_tensor *u1 = poly3(&S, A2, A4, A6, b[9], b[11], b[13], NULL, 0);
    mt_tensor *u2 = poly3(&S, A2, A4, A6, b[3], b[5], b[7], I, b[1]);
    mt_tensor *a6u1 = T(mto_matmul(A6, u1));
    mt_tensor *u = T(mto_add_Tensor(a6u1, u2, mt_vint(1)));
    mt_tensor *U = T(mto_matmul(As, u));
    mt_tensor *v1 = poly3(&S, A2, A4, A6, b[8], b[10], b[12], NULL, 0);
    mt_tensor *v2 = poly3(&S, A2, A4, A6, b[2], b[4], b[6], I, b[0]);
    mt_tensor *a6v1 = T(mto_matmul(A6, v1));
    mt_tensor *V = T(mto_add_Tensor(a6v1, v2, mt_vint(1)));
    mt_tensor *P = T(mto_add_Tensor(V, U, mt_vint(1))), *Q = T(mto_sub_Tensor(V, U, mt_vint(1)));
    mt_tensor *X = T(mto_linalg_solve(Q, P, true));
    if (S.failed) return la_ret1(&S, r, NULL);
    /* the squarings (up to 1000) outside the scope, which holds 64: only the latest is kept */
    mt_tensor_incref(X);
    la_release(&S);
    for (int i = 0; i < sq; i++) {
        mt_tensor *X2 = mto_matmul(X, X);
        mt_tensor_decref(X);
        if (!X2) return -1;
        X = X2;
    }
    if (X->ndim >= 2 && !mt_tensor_is_contiguous(X)) { /* PyTorch's result is row-major */
        mt_tensor *Xc = mto_contiguous(X, NULL);
        mt_tensor_decref(X);
        if (!Xc) return -1;
        X = Xc;
    }
    r[0] = mt_vtensor(X);
    return 0;
}

/* ---- tensorinv, tensorsolve ----------------------------------------------------------------- */

static int64_t prod(const int64_t *v, int n) {
    int64_t p = 1;
    for (int i = 0; i < n; i++) p *= v[i];
    return p;
}

static int c_tensorinv(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    int64_t ind = a[1].i;
    if (ind <= 0)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected a strictly positive integer for 'ind', but got %lld",
                        (long long)ind);
    if (ind > A->ndim) ind = A->ndim;
    int64_t p = prod(A->sizes, (int)ind), q = prod(A->sizes + ind, A->ndim - (int)ind);
    if (p != q)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                        "prod(self.shape[:ind]), but got %lld != %lld",
                        (long long)q, (long long)p);
    int64_t shape[MT_MAX_DIM];
    int k = 0;
    for (int i = (int)ind; i < A->ndim; i++) shape[k++] = A->sizes[i];
    for (int i = 0; i < ind; i++) shape[k++] = A->sizes[i];
    SCOPE;
    mt_tensor *M = T(mto_reshape(A, MT_ILIST(p, q)));
    mt_tensor *Mi = T(mto_linalg_inv(M));
    return la_ret1(&S, r, T(mto_reshape(Mi, (mt_ilist){shape, k})));
}

static int c_tensorsolve(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *B = a[1].t;
    SCOPE;
    mt_tensor *Am = A;
    if (a[2].tag == MT_V_INTLIST && a[2].n > 0) { /* the given dims moved to the end */
        int n = a[2].n;
        int64_t dst[MT_MAX_DIM];
        if (n > A->ndim) n = A->ndim;
        for (int i = 0; i < n; i++) dst[i] = A->ndim - n + i;
        Am = T(mto_movedim(A, (mt_ilist){a[2].il, n}, (mt_ilist){dst, n}));
    }
    if (S.failed) return la_ret1(&S, r, NULL);
    int bn = B->ndim < Am->ndim ? B->ndim : Am->ndim;
    int64_t p = prod(Am->sizes, bn), q = prod(Am->sizes + bn, Am->ndim - bn);
    if (p != q) {
        la_release(&S);
        return mt_error(MT_ERR_RUNTIME,
                        "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                        "prod(self.shape[:other.ndim]), but got %lld != %lld",
                        (long long)q, (long long)p);
    }
    mt_tensor *M = T(mto_reshape(Am, MT_ILIST(p, q)));
    mt_tensor *v = T(mto_reshape(B, MT_ILIST(-1)));
    mt_tensor *X = T(mto_linalg_solve(M, v, true));
    return la_ret1(&S, r, T(mto_reshape(X, (mt_ilist){Am->sizes + bn, Am->ndim - bn})));
}

void mt_linalg_spectral_register(void) {
    static const struct {
        int op;
        mt_kernel k;
    } composites[] = {
        {MT_OP_qr, c_qr_legacy},
        {MT_OP_orgqr, c_orgqr},
        {MT_OP_linalg_eigvalsh, c_eigvalsh},
        {MT_OP_symeig, c_symeig},
        {MT_OP_linalg_svd, c_linalg_svd},
        {MT_OP_linalg_svdvals, c_svdvals},
        {MT_OP_svd, c_svd_legacy},
        {MT_OP_linalg_lstsq, c_lstsq},
        {MT_OP_linalg_ldl_factor, c_ldl_factor},
        {MT_OP_linalg_pinv_atol_rtol_float, c_pinv},
        {MT_OP_linalg_pinv, c_pinv_rcond},
        {MT_OP_pinverse, c_pinverse},
        {MT_OP_linalg_matrix_rank_atol_rtol_float, c_matrix_rank},
        {MT_OP_linalg_matrix_rank, c_matrix_rank_tol},
        {MT_OP_linalg_cond, c_cond},
        {MT_OP_linalg_cond_p_str, c_cond_str},
        {MT_OP_linalg_vector_norm, c_vector_norm},
        {MT_OP_linalg_matrix_norm, c_matrix_norm},
        {MT_OP_linalg_matrix_norm_str_ord, c_matrix_norm},
        {MT_OP_linalg_norm, c_linalg_norm},
        {MT_OP_linalg_norm_ord_str, c_linalg_norm},
        {MT_OP_nuclear_norm, c_nuclear_norm},
        {MT_OP_nuclear_norm_dim, c_nuclear_norm_dim},
        {MT_OP_frobenius_norm_dim, c_frobenius_norm},
        {MT_OP_linalg_matrix_exp, c_matrix_exp},
        {MT_OP_matrix_exp, c_matrix_exp},
        {MT_OP_linalg_tensorinv, c_tensorinv},
        {MT_OP_linalg_tensorsolve, c_tensorsolve},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(composites); i++)
        mt_disp_composite(composites[i].op, composites[i].k);
}
