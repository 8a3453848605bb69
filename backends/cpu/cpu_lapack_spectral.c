/* cpu_lapack_spectral.c: the CPU kernels of QR (geqrf, orgqr, ormqr), the symmetric eigenvalue
 * problem (syevd), the SVD (gesdd), least squares (gels, gelsy, gelsd, gelss) and LDL^T (sytrf,
 * sytrs), on LAPACK as cpu_lapack.c. The meta functions (backends/common/linalg_lapack.c) have
 * checked shapes and dtypes. */
#include "cpu_lapack.h"
#include "mt_ops_gen.h"

#include <stdlib.h>

/* LAPACKE's drivers allocate their workspace; a negative info is a bad argument or no memory */
static int lapack_status(lapack_int info, const char *fname) {
    if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
        return mt_error(MT_ERR_MEMORY, "%s: out of memory for LAPACK's workspace", fname);
    if (info < 0)
        return mt_error(MT_ERR_RUNTIME, "%s: LAPACK argument %d was invalid", fname, -info);
    return 0;
}

#define ES(d) ((size_t)((d) ? 8 : 4))
#define AT(p, d, i) ((p) + (size_t)(i)*ES(d)) /* element i of a float32/float64 array */

/* ---- QR ------------------------------------------------------------------------------------- */

static lapack_int geqrf(bool d, int m, int n, void *a, int lda, void *tau) {
    return d ? LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau)
             : LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
}

static lapack_int orgqr(bool d, int m, int n, int k, void *a, int lda, const void *tau) {
    return d ? LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau)
             : LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau);
}

static int k_qr(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    bool complete = strcmp(a[1].s, "complete") == 0, ronly = strcmp(a[1].s, "r") == 0;
    bool d = A->dtype == MT_FLOAT64;
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1], k = m < n ? m : n, count = batch_count(A, nb);
    int64_t rr = complete ? m : k, qc = complete ? m : k;
    if (check_lapack_sizes("linalg.qr", m, n)) return -1;
    mt_tensor *buf = colmajor_copy(A, nb, A->sizes, m, n, (mt_dtype)A->dtype);
    char *tau = buf ? malloc(ES(d) * (size_t)(k ? k : 1)) : NULL;
    int st = -1;
    if (!tau) {
        if (buf) mt_error(MT_ERR_MEMORY, "linalg.qr: out of memory");
        goto done;
    }
    char *ap = mt_tensor_data(buf), *rp = mt_tensor_data(r[1].t);
    char *qp = ronly ? NULL : mt_tensor_data(r[0].t);
    for (int64_t b = 0; b < count; b++) {
        char *Ab = AT(ap, d, b * m * n), *Rb = AT(rp, d, b * rr * n);
        if (k && lapack_status(geqrf(d, (int)m, (int)n, Ab, ld(m), tau), "linalg.qr")) goto done;
        for (int64_t j = 0; j < n; j++) /* R: the upper triangle of geqrf's result */
            for (int64_t i = 0; i < rr; i++) {
                if (i <= j && i < m)
                    copy_bytes(AT(Rb, d, j * rr + i), AT(Ab, d, j * m + i), ES(d));
                else
                    zero_bytes(AT(Rb, d, j * rr + i), ES(d));
            }
        if (ronly || !m || !qc) continue;
        char *Qb = AT(qp, d, b * m * qc); /* Q: orgqr over the reflectors below the diagonal */
        int64_t cols = qc < n ? qc : n;
        copy_bytes(Qb, Ab, ES(d) * (size_t)(m * cols));
        if (qc > cols) zero_bytes(AT(Qb, d, m * cols), ES(d) * (size_t)(m * (qc - cols)));
        if (lapack_status(orgqr(d, (int)m, (int)qc, (int)k, Qb, ld(m), tau), "linalg.qr"))
            goto done;
    }
    st = 0;
done:
    free(tau);
    mt_tensor_decref(buf);
    return st;
}

static int k_geqrf(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *out = r[0].t, *tau = r[1].t;
    bool d = A->dtype == MT_FLOAT64;
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1], k = m < n ? m : n, count = batch_count(A, nb);
    if (check_lapack_sizes("torch.geqrf", m, n) || mt_cpu_copy(out, A)) return -1;
    char *ap = mt_tensor_data(out), *tp = mt_tensor_data(tau);
    for (int64_t b = 0; b < count && k; b++)
        if (lapack_status(geqrf(d, (int)m, (int)n, AT(ap, d, b * m * n), ld(m), AT(tp, d, b * k)),
                          "torch.geqrf"))
            return -1;
    return 0;
}

/* tau's values, contiguous in the result's dtype */
static mt_tensor *dense_tau(mt_tensor *tau, mt_dtype dt) {
    return mt_cpu_as_dense(tau, dt);
}

static int k_householder(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *out = r[0].t;
    bool d = A->dtype == MT_FLOAT64;
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1], count = batch_count(A, nb);
    int64_t kt = a[1].t->sizes[a[1].t->ndim - 1];
    const char *f = "torch.linalg.householder_product";
    if (check_lapack_sizes(f, m, n) || mt_cpu_copy(out, A)) return -1;
    mt_tensor *tau = dense_tau(a[1].t, (mt_dtype)A->dtype);
    if (!tau) return -1;
    char *op = mt_tensor_data(out), *tp = mt_tensor_data(tau);
    int st = 0;
    for (int64_t b = 0; b < count && m && n && !st; b++)
        st = lapack_status(
            orgqr(d, (int)m, (int)n, (int)kt, AT(op, d, b * m * n), ld(m), AT(tp, d, b * kt)), f);
    mt_tensor_decref(tau);
    return st;
}

static int k_ormqr(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *C = a[2].t, *out = r[0].t;
    bool left = a[3].b, trans = a[4].b, d = A->dtype == MT_FLOAT64;
    int nb = C->ndim - 2;
    int64_t ma = A->sizes[nb], ka = A->sizes[nb + 1], mc = C->sizes[nb], nc = C->sizes[nb + 1];
    int64_t kt = a[1].t->sizes[a[1].t->ndim - 1], count = batch_count(C, nb);
    if (check_lapack_sizes("torch.ormqr", mc, nc) || mt_cpu_copy(out, C)) return -1;
    mt_tensor *Ac = colmajor_copy(A, nb, A->sizes, ma, ka, (mt_dtype)A->dtype);
    mt_tensor *tau = Ac ? dense_tau(a[1].t, (mt_dtype)A->dtype) : NULL;
    int st = tau ? 0 : -1;
    char *ap = tau ? mt_tensor_data(Ac) : NULL, *tp = tau ? mt_tensor_data(tau) : NULL;
    char *op = mt_tensor_data(out);
    for (int64_t b = 0; b < count && mc && nc && !st; b++) {
        void *Ab = AT(ap, d, b * ma * ka), *tb = AT(tp, d, b * kt), *Cb = AT(op, d, b * mc * nc);
        char side = left ? 'L' : 'R', tr = trans ? 'T' : 'N';
        lapack_int info = d ? LAPACKE_dormqr(LAPACK_COL_MAJOR, side, tr, (int)mc, (int)nc, (int)kt,
                                             Ab, ld(ma), tb, Cb, ld(mc))
                            : LAPACKE_sormqr(LAPACK_COL_MAJOR, side, tr, (int)mc, (int)nc, (int)kt,
                                             Ab, ld(ma), tb, Cb, ld(mc));
        st = lapack_status(info, "torch.ormqr");
    }
    mt_tensor_decref(Ac);
    mt_tensor_decref(tau);
    return st;
}

/* ---- symmetric eigenvalues ------------------------------------------------------------------ */

static int k_eigh(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *W = r[0].t, *V = r[1].t;
    char uplo = (a[1].s[0] == 'U' || a[1].s[0] == 'u') ? 'U' : 'L';
    bool d = A->dtype == MT_FLOAT64;
    int nb = A->ndim - 2;
    int64_t n = A->sizes[nb], count = batch_count(A, nb);
    if (check_lapack_sizes("linalg.eigh", n, n) || mt_cpu_copy(V, A)) return -1;
    char *vp = mt_tensor_data(V), *wp = mt_tensor_data(W);
    for (int64_t b = 0; b < count && n; b++) {
        void *Vb = AT(vp, d, b * n * n), *Wb = AT(wp, d, b * n);
        lapack_int info = d ? LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', uplo, (int)n, Vb, ld(n), Wb)
                            : LAPACKE_ssyevd(LAPACK_COL_MAJOR, 'V', uplo, (int)n, Vb, ld(n), Wb);
        if (info > 0) return mt_la_info_error(MT_LA_EIGH, "linalg.eigh", nb ? b + 1 : 0, info);
        if (lapack_status(info, "linalg.eigh")) return -1;
    }
    return 0;
}

/* ---- SVD ------------------------------------------------------------------------------------ */

/* an empty matrix's U and Vh: identities */
static void eye_colmajor(char *p, int64_t rows, int64_t cols, bool d) {
    zero_bytes(p, ES(d) * (size_t)(rows * cols));
    for (int64_t i = 0; i < rows && i < cols; i++) {
        if (d)
            ((double *)p)[i * rows + i] = 1;
        else
            ((float *)p)[i * rows + i] = 1;
    }
}

static int k_svd(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t;
    bool full = a[1].b, uv = a[2].b, d = A->dtype == MT_FLOAT64;
    int nb = A->ndim - 2;
    int64_t m = A->sizes[nb], n = A->sizes[nb + 1], k = m < n ? m : n, count = batch_count(A, nb);
    int64_t uc = full ? m : k, vr = full ? n : k;
    if (check_lapack_sizes("linalg.svd", m, n)) return -1;
    mt_tensor *buf = colmajor_copy(A, nb, A->sizes, m, n, (mt_dtype)A->dtype);
    if (!buf) return -1;
    char *ap = mt_tensor_data(buf), *sp = mt_tensor_data(r[1].t);
    char *up = uv ? mt_tensor_data(r[0].t) : NULL, *vp = uv ? mt_tensor_data(r[2].t) : NULL;
    double dummy[2];
    char jobz = uv ? (full ? 'A' : 'S') : 'N';
    int st = 0;
    for (int64_t b = 0; b < count && !st; b++) {
        void *Ub = uv ? (void *)AT(up, d, b * m * uc) : (void *)dummy;
        void *Vb = uv ? (void *)AT(vp, d, b * vr * n) : (void *)dummy;
        if (!k) { /* nothing to decompose: orthonormal bases as far as they go */
            if (uv) {
                eye_colmajor(Ub, m, uc, d);
                eye_colmajor(Vb, vr, n, d);
            }
            continue;
        }
        void *Ab = AT(ap, d, b * m * n), *Sb = AT(sp, d, b * k);
        lapack_int info = d ? LAPACKE_dgesdd(LAPACK_COL_MAJOR, jobz, (int)m, (int)n, Ab, ld(m), Sb,
                                             Ub, ld(m), Vb, ld(uv ? vr : 1))
                            : LAPACKE_sgesdd(LAPACK_COL_MAJOR, jobz, (int)m, (int)n, Ab, ld(m), Sb,
                                             Ub, ld(m), Vb, ld(uv ? vr : 1));
        if (info > 0)
            st = mt_la_info_error(MT_LA_SVD, "linalg.svd", nb ? b + 1 : 0, info);
        else
            st = lapack_status(info, "linalg.svd");
    }
    mt_tensor_decref(buf);
    return st;
}

/* ---- least squares -------------------------------------------------------------------------- */

static int k_lstsq_raw(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *B = a[1].t, *X = r[0].t;
    const char *drv = a[3].s;
    bool d = A->dtype == MT_FLOAT64, gels = strcmp(drv, "gels") == 0,
         gelsy = strcmp(drv, "gelsy") == 0, gelsd = strcmp(drv, "gelsd") == 0;
    int nb = X->ndim - 2;
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1], mx = X->sizes[nb],
            nrhs = X->sizes[nb + 1], k = m < n ? m : n, count = batch_count(X, nb);
    const char *f = "torch.linalg.lstsq";
    if (check_lapack_sizes(f, mx, nrhs) || check_lapack_sizes(f, m, n)) return -1;
    mt_tensor *Ac = colmajor_copy(A, nb, X->sizes, m, n, (mt_dtype)A->dtype);
    mt_tensor *Bc = Ac ? colmajor_copy(B, nb, X->sizes, m, nrhs, (mt_dtype)A->dtype) : NULL;
    lapack_int *jpvt = Bc ? calloc((size_t)(n ? n : 1), sizeof(lapack_int)) : NULL;
    int st = -1;
    if (!jpvt) {
        if (Bc) mt_error(MT_ERR_MEMORY, "%s: out of memory", f);
        goto done;
    }
    char *ap = mt_tensor_data(Ac), *bp = mt_tensor_data(Bc), *xp = mt_tensor_data(X);
    int64_t *rank = gels ? NULL : mt_tensor_data(r[1].t);
    char *sv = (gels || gelsy) ? NULL : mt_tensor_data(r[2].t);
    double rcond = a[2].d;
    for (int64_t b = 0; b < count; b++) {
        char *Ab = AT(ap, d, b * m * n), *Xb = AT(xp, d, b * mx * nrhs);
        zero_bytes(Xb, ES(d) * (size_t)(mx * nrhs)); /* B in the top m rows of each column */
        for (int64_t j = 0; j < nrhs; j++)
            copy_bytes(AT(Xb, d, j * mx), AT(bp, d, b * m * nrhs + j * m), ES(d) * (size_t)m);
        lapack_int rk = 0, info = 0;
        if (k && nrhs) {
            if (gels) {
                info = d ? LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (int)m, (int)n, (int)nrhs,
                                         (double *)Ab, ld(m), (double *)Xb, ld(mx))
                         : LAPACKE_sgels(LAPACK_COL_MAJOR, 'N', (int)m, (int)n, (int)nrhs,
                                         (float *)Ab, ld(m), (float *)Xb, ld(mx));
            } else if (gelsy) {
                zero_bytes(jpvt, sizeof(lapack_int) * (size_t)(n ? n : 1));
                info = d ? LAPACKE_dgelsy(LAPACK_COL_MAJOR, (int)m, (int)n, (int)nrhs, (double *)Ab,
                                          ld(m), (double *)Xb, ld(mx), jpvt, rcond, &rk)
                         : LAPACKE_sgelsy(LAPACK_COL_MAJOR, (int)m, (int)n, (int)nrhs, (float *)Ab,
                                          ld(m), (float *)Xb, ld(mx), jpvt, (float)rcond, &rk);
            } else {
                void *Sb = AT(sv, d, b * k);
                if (gelsd)
                    info =
                        d ? LAPACKE_dgelsd(LAPACK_COL_MAJOR, (int)m, (int)n, (int)nrhs,
                                           (double *)Ab, ld(m), (double *)Xb, ld(mx), Sb, rcond,
                                           &rk)
                          : LAPACKE_sgelsd(LAPACK_COL_MAJOR, (int)m, (int)n, (int)nrhs, (float *)Ab,
                                           ld(m), (float *)Xb, ld(mx), Sb, (float)rcond, &rk);
                else
                    info =
                        d ? LAPACKE_dgelss(LAPACK_COL_MAJOR, (int)m, (int)n, (int)nrhs,
                                           (double *)Ab, ld(m), (double *)Xb, ld(mx), Sb, rcond,
                                           &rk)
                          : LAPACKE_sgelss(LAPACK_COL_MAJOR, (int)m, (int)n, (int)nrhs, (float *)Ab,
                                           ld(m), (float *)Xb, ld(mx), Sb, (float)rcond, &rk);
            }
        } else if (sv && k) { /* no right-hand sides: the singular values still */
            zero_bytes(AT(sv, d, b * k), ES(d) * (size_t)k);
        }
        if (info > 0) {
            mt_error(MT_ERR_RUNTIME,
                     "%s: %sThe least squares solution could not be computed because the input "
                     "matrix does not have full rank (error code: %d).",
                     f, "", (int)info);
            goto done;
        }
        if (lapack_status(info, f)) goto done;
        if (rank) rank[b] = rk;
    }
    st = 0;
done:
    free(jpvt);
    mt_tensor_decref(Ac);
    mt_tensor_decref(Bc);
    return st;
}

/* ---- LDL^T ---------------------------------------------------------------------------------- */

static int k_ldl_factor_ex(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *A = a[0].t, *LD = r[0].t;
    bool d = A->dtype == MT_FLOAT64;
    int nb = A->ndim - 2;
    int64_t n = A->sizes[nb], count = batch_count(A, nb);
    if (check_lapack_sizes("torch.linalg.ldl_factor_ex", n, n) || mt_cpu_copy(LD, A)) return -1;
    char *p = mt_tensor_data(LD);
    int32_t *pv = mt_tensor_data(r[1].t), *inf = mt_tensor_data(r[2].t);
    for (int64_t b = 0; b < count; b++) {
        char *M = AT(p, d, b * n * n);
        lapack_int info = 0;
        if (n)
            info = d ? LAPACKE_dsytrf(LAPACK_COL_MAJOR, 'L', (int)n, (double *)M, ld(n), pv + b * n)
                     : LAPACKE_ssytrf(LAPACK_COL_MAJOR, 'L', (int)n, (float *)M, ld(n), pv + b * n);
        if (info < 0 && lapack_status(info, "torch.linalg.ldl_factor_ex")) return -1;
        inf[b] = info;
        for (int64_t j = 1; j < n; j++) /* the strict upper triangle, which sytrf leaves, zeroed */
            zero_bytes(AT(M, d, j * n), ES(d) * (size_t)j);
    }
    if (a[2].b)
        return mt_la_check_infos(inf, count, nb > 0, MT_LA_LDL, "torch.linalg.ldl_factor_ex");
    return 0;
}

/* sytrs reads pivot k (and k+1 for a 2x2 block): they must stay inside the matrix */
static int check_ldl_pivots(const int32_t *p, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        int64_t v = p[i] < 0 ? -(int64_t)p[i] : p[i];
        bool ok = v >= 1 && v <= n;
        if (ok && p[i] < 0) { /* a 2x2 block: this row and the next share the pivot */
            ok = i + 1 < n && p[i + 1] == p[i];
            i++;
        }
        if (!ok)
            return mt_error(MT_ERR_RUNTIME,
                            "torch.linalg.ldl_solve: pivots are not those of linalg.ldl_factor "
                            "(each between -n and n, not zero; a negative one repeated for its 2x2 "
                            "block)");
    }
    return 0;
}

static int k_ldl_solve(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *LD = a[0].t, *X = r[0].t;
    bool d = X->dtype == MT_FLOAT64;
    int nb = X->ndim - 2;
    int64_t n = LD->sizes[LD->ndim - 1], nrhs = X->sizes[nb + 1], count = batch_count(X, nb);
    if (check_lapack_sizes("torch.linalg.ldl_solve", n, nrhs)) return -1;
    mt_tensor *LDc = colmajor_copy(LD, nb, X->sizes, n, n, (mt_dtype)X->dtype);
    mt_tensor *pc = LDc ? pivots_copy(a[1].t, nb, X->sizes, n) : NULL;
    int st = -1;
    if (!pc || mt_cpu_copy(X, a[2].t)) goto done;
    char *lp = mt_tensor_data(LDc), *xp = mt_tensor_data(X);
    int32_t *pv = mt_tensor_data(pc);
    for (int64_t b = 0; b < count; b++) {
        if (check_ldl_pivots(pv + b * n, n)) goto done;
        if (!n || !nrhs) continue;
        void *Lb = AT(lp, d, b * n * n), *Xb = AT(xp, d, b * n * nrhs);
        lapack_int info = d ? LAPACKE_dsytrs(LAPACK_COL_MAJOR, 'L', (int)n, (int)nrhs, Lb, ld(n),
                                             pv + b * n, Xb, ld(n))
                            : LAPACKE_ssytrs(LAPACK_COL_MAJOR, 'L', (int)n, (int)nrhs, Lb, ld(n),
                                             pv + b * n, Xb, ld(n));
        if (lapack_status(info, "torch.linalg.ldl_solve")) goto done;
    }
    st = 0;
done:
    mt_tensor_decref(LDc);
    mt_tensor_decref(pc);
    return st;
}

void mt_cpu_lapack_spectral_register(void) {
    static const struct {
        int op;
        mt_impl_fn fn;
    } impls[] = {
        {MT_OP_linalg_qr, k_qr},
        {MT_OP_geqrf, k_geqrf},
        {MT_OP_linalg_householder_product, k_householder},
        {MT_OP_ormqr, k_ormqr},
        {MT_OP_linalg_eigh, k_eigh},
        {MT_OP__linalg_svd, k_svd},
        {MT_OP__linalg_lstsq_raw, k_lstsq_raw},
        {MT_OP_linalg_ldl_factor_ex, k_ldl_factor_ex},
        {MT_OP_linalg_ldl_solve, k_ldl_solve},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(impls); i++)
        mt_disp_impl(impls[i].op, MT_KEY_CPU, impls[i].fn);
}
