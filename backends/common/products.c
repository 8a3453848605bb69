/* products.c: products written with other ops (src/ops/products.lua): kron, inner, ger, vdot,
 * tensordot, chain_matmul, addbmm, addr, trace, vander, einsum. They run above every dispatch
 * key, so autograd, the meta device and the pipeline see mm, mul, sum ... */
#include "common_ops.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <stdlib.h>
#include <string.h>

static bool scalar_is(mt_value v, double x) {
    return mt_scalar_double(v) == x;
}

/* ---- kron, inner, ger, vdot ------------------------------------------------------------------ */

static int c_kron(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[0].t, *y = a[1].t;
    int nd = x->ndim > y->ndim ? x->ndim : y->ndim;
    if (2 * nd > MT_MAX_DIM) return mt_error(MT_ERR_RUNTIME, "kron: too many dimensions");
    int64_t xs[MT_MAX_DIM], ys[MT_MAX_DIM], out[MT_MAX_DIM];
    for (int i = 0; i < nd; i++) {
        int xi = i - (nd - x->ndim), yi = i - (nd - y->ndim);
        int64_t a0 = xi >= 0 ? x->sizes[xi] : 1, b0 = yi >= 0 ? y->sizes[yi] : 1;
        xs[2 * i] = a0; /* x as (a0, 1, a1, 1, ...), y as (1, b0, 1, b1, ...) */
        xs[2 * i + 1] = 1;
        ys[2 * i] = 1;
        ys[2 * i + 1] = b0;
        out[i] = a0 * b0;
    }
    mt_tensor *xr = mto_reshape(x, (mt_ilist){xs, 2 * nd});
    mt_tensor *yr = xr ? mto_reshape(y, (mt_ilist){ys, 2 * nd}) : NULL;
    mt_tensor *p = yr ? mto_mul_Tensor(xr, yr) : NULL;
    mt_tensor *o = p ? mto_reshape(p, (mt_ilist){out, nd}) : NULL;
    mt_tensor_decref(xr);
    mt_tensor_decref(yr);
    mt_tensor_decref(p);
    return mt_ret_tensor(r, o);
}

static mt_tensor *tensordot(mt_tensor *x, mt_tensor *y, const int64_t *dx, const int64_t *dy, int n,
                            int m) {
    if (n != m)
        return mt_error_null(MT_ERR_RUNTIME, "both dimension lists should have same length");
    if (x->dtype != y->dtype)
        return mt_error_null(MT_ERR_RUNTIME, "expected scalar type %s but found %s",
                             mt_dtype_scalar_name((mt_dtype)x->dtype),
                             mt_dtype_scalar_name((mt_dtype)y->dtype));
    if (n > MT_MAX_DIM) return mt_error_null(MT_ERR_RUNTIME, "tensordot: too many dims");
    int wx[MT_MAX_DIM], wy[MT_MAX_DIM];
    bool cx[MT_MAX_DIM] = {0}, cy[MT_MAX_DIM] = {0};
    for (int i = 0; i < n; i++) {
        if (mt_wrap_dim(dx[i], x->ndim, &wx[i]) || mt_wrap_dim(dy[i], y->ndim, &wy[i])) return NULL;
        cx[wx[i]] = cy[wy[i]] = true;
    }
    mt_tensor *t1 = x, *t2 = y;
    mt_tensor_incref(t1);
    mt_tensor_incref(t2);
    int64_t k = 1;
    for (int i = 0; i < n; i++) { /* a size-1 side is summed first (broadcast contraction) */
        int64_t s1 = x->sizes[wx[i]], s2 = y->sizes[wy[i]];
        mt_tensor *nt = NULL;
        if (s2 == 1) {
            nt = mto_sum_dim_IntList(t1, MT_ILIST(wx[i]), true, -1);
            mt_tensor_decref(t1);
            t1 = nt;
        } else if (s1 == 1) {
            nt = mto_sum_dim_IntList(t2, MT_ILIST(wy[i]), true, -1);
            mt_tensor_decref(t2);
            t2 = nt;
        } else if (s1 != s2) {
            mt_tensor_decref(t1);
            mt_tensor_decref(t2);
            return mt_error_null(MT_ERR_RUNTIME,
                                 "contracted dimensions need to match, but first has size %lld in "
                                 "dim %lld and second has size %lld in dim %lld",
                                 (long long)s1, mt_user_dim(dx[i]), (long long)s2,
                                 mt_user_dim(dy[i]));
        } else {
            k *= s1;
            continue;
        }
        if (!nt) {
            mt_tensor_decref(t1);
            mt_tensor_decref(t2);
            return NULL;
        }
    }
    /* t1 as (free, contracted), t2 as (contracted, free), one mm */
    int64_t p1[MT_MAX_DIM], p2[MT_MAX_DIM], shape[2 * MT_MAX_DIM];
    int a1 = 0, a2 = 0, ns = 0;
    int64_t f1 = 1, f2 = 1;
    for (int i = 0; i < x->ndim; i++)
        if (!cx[i]) {
            p1[a1++] = i;
            f1 *= t1->sizes[i];
            shape[ns++] = t1->sizes[i];
        }
    for (int i = 0; i < n; i++) p1[a1++] = wx[i];
    for (int i = 0; i < n; i++) p2[a2++] = wy[i];
    for (int i = 0; i < y->ndim; i++)
        if (!cy[i]) {
            p2[a2++] = i;
            f2 *= t2->sizes[i];
            shape[ns++] = t2->sizes[i];
        }
    if (ns > MT_MAX_DIM) {
        mt_tensor_decref(t1);
        mt_tensor_decref(t2);
        return mt_error_null(MT_ERR_RUNTIME, "tensordot: too many dims");
    }
    mt_tensor *q1 = mto_permute(t1, (mt_ilist){p1, a1});
    mt_tensor *q2 = q1 ? mto_permute(t2, (mt_ilist){p2, a2}) : NULL;
    mt_tensor *m1 = q2 ? mto_reshape(q1, MT_ILIST(f1, k)) : NULL;
    mt_tensor *m2 = m1 ? mto_reshape(q2, MT_ILIST(k, f2)) : NULL;
    mt_tensor *mm = m2 ? mto_mm(m1, m2) : NULL;
    mt_tensor *out = mm ? mto_reshape(mm, (mt_ilist){shape, ns}) : NULL;
    mt_tensor *tmp[] = {t1, t2, q1, q2, m1, m2, mm};
    for (size_t i = 0; i < MT_ARRAY_LEN(tmp); i++) mt_tensor_decref(tmp[i]);
    return out;
}

static int c_tensordot(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, tensordot(a[0].t, a[1].t, a[2].il, a[3].il, a[2].n, a[3].n));
}

static int c_inner(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[0].t, *y = a[1].t;
    if (x->ndim == 0 || y->ndim == 0) return mt_ret_tensor(r, mto_mul_Tensor(x, y));
    if (x->sizes[x->ndim - 1] != y->sizes[y->ndim - 1]) {
        char s1[256], s2[256];
        mt_fmt_ilist(s1, sizeof s1, x->sizes, x->ndim);
        mt_fmt_ilist(s2, sizeof s2, y->sizes, y->ndim);
        return mt_error(MT_ERR_RUNTIME,
                        "inner() the last dimension must match on both input tensors but got "
                        "shapes %s and %s",
                        s1, s2);
    }
    int64_t dx = x->ndim - 1, dy = y->ndim - 1;
    return mt_ret_tensor(r, tensordot(x, y, &dx, &dy, 1, 1));
}

static int c_ger(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, mto_outer(a[0].t, a[1].t));
}

static int c_vdot(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[0].t, *y = a[1].t;
    if (x->ndim != 1 || y->ndim != 1)
        return mt_error(MT_ERR_RUNTIME, "1D tensors expected, but got %dD and %dD tensors", x->ndim,
                        y->ndim);
    return mt_ret_tensor(r, mto_dot(x, y));
}

/* ---- chain_matmul, addbmm, addr, trace, vander ----------------------------------------------- */

static int c_chain_matmul(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    int n = a[0].n;
    mt_tensor **ts = a[0].tl;
    if (n == 0) return mt_error(MT_ERR_RUNTIME, "chain_matmul(): Expected one or more matrices");
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim != 2)
            return mt_error(MT_ERR_RUNTIME, "Tensor dimension is %d, expected 2 instead.",
                            ts[i]->ndim);
    if (n == 1) return mt_ret_tensor(r, mto_clone(ts[0], NULL));
    for (int i = 0; i + 1 < n; i++)
        if (ts[i]->sizes[1] != ts[i + 1]->sizes[0]) {
            char s1[256], s2[256];
            mt_fmt_ilist(s1, sizeof s1, ts[i]->sizes, 2);
            mt_fmt_ilist(s2, sizeof s2, ts[i + 1]->sizes, 2);
            return mt_error(MT_ERR_RUNTIME,
                            "multi_dot(): tensors %d and %d with shapes %s and %s cannot be "
                            "multiplied",
                            i, i + 1, s1, s2);
        }
    mt_tensor *acc = mto_mm(ts[0], ts[1]);
    for (int i = 2; acc && i < n; i++) {
        mt_tensor *nx = mto_mm(acc, ts[i]);
        mt_tensor_decref(acc);
        acc = nx;
    }
    return mt_ret_tensor(r, acc);
}

static int c_addbmm(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *b1 = a[1].t, *b2 = a[2].t;
    /* PyTorch expands self to the result's size before it looks at the batches */
    if (b1->ndim >= 2 && b2->ndim >= 3) {
        mt_tensor *e = mto_expand(self, MT_ILIST(b1->sizes[1], b2->sizes[2]), false);
        if (!e) return -1;
        mt_tensor_decref(e);
    }
    if (b1->ndim != 3) return mt_error(MT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    if (b2->ndim != 3) return mt_error(MT_ERR_RUNTIME, "batch2 must be a 3D tensor");
    if (b1->sizes[0] != b2->sizes[0])
        return mt_error(MT_ERR_RUNTIME,
                        "batch1 and batch2 must have same number of batches, got %lld and %lld",
                        (long long)b1->sizes[0], (long long)b2->sizes[0]);
    if (b1->sizes[2] != b2->sizes[1])
        return mt_error(MT_ERR_RUNTIME,
                        "Incompatible matrix sizes for bmm (%lldx%lld and %lldx%lld)",
                        (long long)b1->sizes[1], (long long)b1->sizes[2], (long long)b2->sizes[1],
                        (long long)b2->sizes[2]);
    /* the sum over the batch of b1[i] @ b2[i] is one mm: (n, B*k) @ (B*k, p) */
    int64_t bk = b1->sizes[0] * b1->sizes[2];
    mt_tensor *t1 = mto_transpose_int(b1, 0, 1);
    mt_tensor *m1 = t1 ? mto_reshape(t1, MT_ILIST(b1->sizes[1], bk)) : NULL;
    mt_tensor *m2 = m1 ? mto_reshape(b2, MT_ILIST(bk, b2->sizes[2])) : NULL;
    mt_tensor *out = m2 ? mto_addmm(self, m1, m2, a[3], a[4]) : NULL;
    mt_tensor_decref(t1);
    mt_tensor_decref(m1);
    mt_tensor_decref(m2);
    return mt_ret_tensor(r, out);
}

static int c_addr(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *v1 = a[1].t, *v2 = a[2].t;
    if (v1->ndim != 1)
        return mt_error(MT_ERR_RUNTIME, "addr: Expected 1-D argument vec1, but got %d-D", v1->ndim);
    if (v2->ndim != 1)
        return mt_error(MT_ERR_RUNTIME, "addr: Expected 1-D argument vec2, but got %d-D", v2->ndim);
    mt_dtype dt = mt_promote_types(mt_promote_types((mt_dtype)self->dtype, (mt_dtype)v1->dtype),
                                   (mt_dtype)v2->dtype);
    if (!mt_dtype_is_floating(dt) && dt != MT_BOOL) {
        if (a[3].tag == MT_V_DOUBLE)
            return mt_error(MT_ERR_RUNTIME,
                            "For integral input tensors, argument beta must not be a floating "
                            "point number.");
        if (a[4].tag == MT_V_DOUBLE)
            return mt_error(MT_ERR_RUNTIME,
                            "For integral input tensors, argument alpha must not be a floating "
                            "point number.");
    }
    mt_tensor *o = mto_outer(v1, v2), *s = NULL, *e = NULL, *out = NULL;
    if (!o) return -1;
    if (!scalar_is(a[4], 1)) {
        mt_tensor *t = mto_mul_Scalar(o, a[4]);
        mt_tensor_decref(o);
        if (!(o = t)) return -1;
    }
    if (!(e = mto_expand(self, (mt_ilist){o->sizes, o->ndim}, false))) goto done;
    if (scalar_is(a[3], 0)) { /* beta = 0: self is ignored (its NaN included) */
        out = mto__to_copy(o, dt, o->device, false, NULL);
        goto done;
    }
    if (scalar_is(a[3], 1)) {
        out = mto_add_Tensor(e, o, mt_vint(1));
    } else if ((s = mto_mul_Scalar(e, a[3]))) {
        out = mto_add_Tensor(s, o, mt_vint(1));
    }
done:
    mt_tensor_decref(o);
    mt_tensor_decref(s);
    mt_tensor_decref(e);
    return mt_ret_tensor(r, out);
}

static int c_trace(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    if (self->ndim != 2)
        return mt_error(MT_ERR_RUNTIME, "trace: expected a matrix, but got tensor with dim %d",
                        self->ndim);
    if (self->dtype == MT_FLOAT16 || self->dtype == MT_BFLOAT16 || self->dtype == MT_BOOL)
        return mt_error(MT_ERR_RUNTIME, "\"trace\" not implemented for '%s'",
                        mt_dtype_scalar_name((mt_dtype)self->dtype));
    mt_tensor *d = mto_diagonal(self, 0, 0, 1);
    mt_tensor *out = d ? mto_sum(d, -1) : NULL;
    mt_tensor_decref(d);
    return mt_ret_tensor(r, out);
}

static int c_vander(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[0].t;
    if (x->ndim != 1) return mt_error(MT_ERR_RUNTIME, "x must be a one-dimensional tensor.");
    int64_t n = x->sizes[0], N = a[1].tag == MT_V_INT ? a[1].i : n;
    if (N < 0) return mt_error(MT_ERR_RUNTIME, "N must be non-negative.");
    mt_dtype dt = mt_promote_types((mt_dtype)x->dtype, MT_INT64);
    if (dt == MT_FLOAT16)
        return mt_error(MT_ERR_RUNTIME, "\"cumprod_out_cpu\" not implemented for 'Half'");
    if (N == 0)
        return mt_ret_tensor(r, mto_empty(MT_ILIST(n, 0), dt, x->device, false, false, NULL));
    /* PyTorch's way: ones, then the running products of x (so the values match exactly) */
    mt_tensor *ones = mto_ones(MT_ILIST(n, 1), dt, x->device, false, false);
    mt_tensor *xc = ones ? mto__to_copy(x, dt, x->device, false, NULL) : NULL;
    mt_tensor *u = xc ? mto_unsqueeze(xc, 1) : NULL;
    mt_tensor *e = u ? mto_expand(u, MT_ILIST(n, N - 1), false) : NULL;
    mt_tensor *cp = e ? mto_cumprod(e, 1, -1) : NULL;
    mt_tensor *parts[2] = {ones, cp};
    mt_tensor *v = cp ? mto_cat(parts, 2, 1) : NULL;
    mt_tensor *out = v && !a[2].b ? mto_flip(v, MT_ILIST(1)) : NULL;
    if (v && a[2].b) {
        out = v;
        v = NULL;
    }
    mt_tensor *tmp[] = {ones, xc, u, e, cp, v};
    for (size_t i = 0; i < MT_ARRAY_LEN(tmp); i++) mt_tensor_decref(tmp[i]);
    return mt_ret_tensor(r, out);
}

/* ---- einsum ---------------------------------------------------------------------------------- */

#define EIN_LABELS 52
#define EIN_ELL 52 /* the label number ellipsis dims are tagged with */

static int label_of(char ch) {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    return -1;
}

static char label_char(int l) {
    return (char)(l < 26 ? 'A' + l : 'a' + l - 26);
}

typedef struct {
    int n; /* subscripts, an ellipsis counted once */
    int8_t sub[MT_MAX_DIM * 2];
    bool ell;
} ein_term;

/* one operand's (or the output's) subscripts from eq[lo, hi) */
static int parse_term(const char *eq, int lo, int hi, int k, ein_term *t) {
    t->n = 0;
    t->ell = false;
    for (int i = lo; i < hi; i++) {
        char ch = eq[i];
        if (ch == ' ') continue;
        if (ch == '.') {
            if (t->ell || i + 2 >= hi || eq[i + 1] != '.' || eq[i + 2] != '.')
                return mt_error(MT_ERR_RUNTIME,
                                "einsum(): found '.' for operand %d that is not part of any "
                                "ellipsis",
                                k);
            t->ell = true;
            if (t->n >= (int)sizeof t->sub)
                return mt_error(MT_ERR_RUNTIME, "einsum(): too many subscripts");
            t->sub[t->n++] = EIN_ELL;
            i += 2;
            continue;
        }
        int l = label_of(ch);
        if (l < 0)
            return mt_error(MT_ERR_RUNTIME,
                            "einsum(): invalid subscript given at index %d in the equation string, "
                            "subscripts must be in [a-zA-Z]",
                            i);
        if (t->n >= (int)sizeof t->sub)
            return mt_error(MT_ERR_RUNTIME, "einsum(): too many subscripts");
        t->sub[t->n++] = (int8_t)l;
    }
    return 0;
}

/* an operand viewed over the global dims (ellipsis dims first, then labels 0..51, size 1 where
 * it lacks one), its repeated labels taken as diagonals */
static mt_tensor *align_operand(mt_tensor *op, const ein_term *t, int k, int ell_n, const int *gpos,
                                int gn, int64_t *lsize) {
    int nlab = t->n - (t->ell ? 1 : 0);
    int nell = t->ell ? op->ndim - nlab : 0;
    if (t->ell ? op->ndim < nlab : op->ndim != nlab) {
        if (t->ell)
            return mt_error_null(MT_ERR_RUNTIME,
                                 "einsum(): the number of subscripts in the equation (%d) is more "
                                 "than the number of dimensions (%d) for operand %d",
                                 nlab, op->ndim, k);
        return mt_error_null(MT_ERR_RUNTIME,
                             "einsum(): the number of subscripts in the equation (%d) does not "
                             "match the number of dimensions (%d) for operand %d and no ellipsis "
                             "was given",
                             nlab, op->ndim, k);
    }
    /* dim label of each of op's dims: labels, or EIN_LABELS + j for ellipsis dim j (right aligned)
     */
    int dl[MT_MAX_DIM];
    int d = 0;
    for (int i = 0; i < t->n; i++) {
        if (t->sub[i] == EIN_ELL) {
            for (int j = 0; j < nell; j++) dl[d++] = EIN_LABELS + (ell_n - nell) + j;
        } else {
            dl[d++] = t->sub[i];
        }
    }
    mt_tensor *cur = op;
    mt_tensor_incref(cur);
    /* repeated labels: a diagonal (moved last by diagonal()), relabelled */
    int nd = op->ndim;
    for (int i = 0; i < nd; i++)
        for (int j = i + 1; j < nd; j++) {
            if (dl[i] != dl[j]) continue;
            if (cur->sizes[i] != cur->sizes[j]) {
                mt_tensor_decref(cur);
                return mt_error_null(MT_ERR_RUNTIME,
                                     "einsum(): subscript %c is repeated for operand %d but the "
                                     "sizes don't match, %lld != %lld",
                                     label_char(dl[i]), k, (long long)cur->sizes[j],
                                     (long long)cur->sizes[i]);
            }
            mt_tensor *dg = mto_diagonal(cur, 0, i, j);
            mt_tensor_decref(cur);
            if (!(cur = dg)) return NULL;
            int lab = dl[i], m = 0;
            for (int q = 0; q < nd; q++)
                if (q != i && q != j) dl[m++] = dl[q];
            dl[m++] = lab;
            nd = m;
            i = -1; /* start over on the new layout */
            break;
        }
    /* sizes per label (broadcast 1s allowed), then a permute + view over the global dims */
    for (int i = 0; i < nd; i++) {
        int64_t s = cur->sizes[i];
        int64_t *ls = &lsize[dl[i]];
        if (*ls == 1 || *ls == -1) {
            *ls = s;
        } else if (s != 1 && s != *ls) {
            mt_tensor_decref(cur);
            if (dl[i] >= EIN_LABELS)
                return mt_error_null(MT_ERR_RUNTIME,
                                     "einsum(): operands do not broadcast with remapped shapes");
            return mt_error_null(MT_ERR_RUNTIME,
                                 "einsum(): subscript %c has size %lld for operand %d which does "
                                 "not broadcast with previously seen size %lld",
                                 label_char(dl[i]), (long long)s, k, (long long)*ls);
        }
    }
    int64_t perm[MT_MAX_DIM], shape[MT_MAX_DIM];
    int np = 0;
    for (int g = 0; g < gn; g++)
        for (int i = 0; i < nd; i++)
            if (dl[i] == gpos[g]) perm[np++] = i;
    mt_tensor *p = mto_permute(cur, (mt_ilist){perm, np});
    mt_tensor_decref(cur);
    if (!p) return NULL;
    int q = 0;
    for (int g = 0; g < gn; g++) {
        bool has = false;
        for (int i = 0; i < nd; i++) has |= dl[i] == gpos[g];
        shape[g] = has ? p->sizes[q++] : 1;
    }
    mt_tensor *v = mto_reshape(p, (mt_ilist){shape, gn});
    mt_tensor_decref(p);
    return v;
}

static int c_einsum(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    const char *eq = a[0].s;
    int nops = a[1].n;
    mt_tensor **ops = a[1].tl;
    if (nops == 0) return mt_error(MT_ERR_RUNTIME, "einsum(): must provide at least one operand");
    int len = (int)strlen(eq);
    const char *arrow = strstr(eq, "->");
    int lhs_end = arrow ? (int)(arrow - eq) : len;
    /* operand terms, split at commas */
    ein_term *terms = mt_calloc((size_t)nops, sizeof *terms);
    if (!terms) return -1;
    int k = 0, start = 0, st = 0;
    for (int i = 0; i <= lhs_end && st == 0; i++) {
        if (i < lhs_end && eq[i] != ',') continue;
        if (k >= nops) {
            st = mt_error(MT_ERR_RUNTIME,
                          "einsum(): fewer operands were provided than specified in the equation");
            break;
        }
        st = parse_term(eq, start, i, k, &terms[k]);
        k++;
        start = i + 1;
    }
    if (st == 0 && k < nops)
        st = mt_error(MT_ERR_RUNTIME,
                      "einsum(): more operands were provided than specified in the equation");
    if (st) {
        free(terms);
        return -1;
    }
    int count[EIN_LABELS] = {0}, ell_n = 0;
    for (int i = 0; i < nops; i++) {
        int nlab = terms[i].n - (terms[i].ell ? 1 : 0);
        if (terms[i].ell && ops[i]->ndim - nlab > ell_n) ell_n = ops[i]->ndim - nlab;
        for (int j = 0; j < terms[i].n; j++)
            if (terms[i].sub[j] != EIN_ELL) count[terms[i].sub[j]]++;
    }
    /* output: given, or the ellipsis dims then the labels seen once, in label order */
    ein_term out;
    if (arrow) {
        if (parse_term(eq, lhs_end + 2, len, -1, &out)) {
            free(terms);
            return -1;
        }
        bool seen[EIN_LABELS] = {0};
        for (int j = 0; j < out.n; j++) {
            int l = out.sub[j];
            if (l == EIN_ELL) continue;
            if (seen[l]) {
                free(terms);
                return mt_error(
                    MT_ERR_RUNTIME,
                    "einsum(): output subscript %c appears more than once in the output",
                    label_char(l));
            }
            seen[l] = true;
            if (!count[l]) {
                free(terms);
                return mt_error(MT_ERR_RUNTIME,
                                "einsum(): output subscript %c does not appear in the equation for "
                                "any input operand",
                                label_char(l));
            }
        }
    } else {
        out.n = 0;
        out.ell = false;
        bool any_ell = false;
        for (int i = 0; i < nops; i++) any_ell |= terms[i].ell;
        if (any_ell) {
            out.ell = true;
            out.sub[out.n++] = EIN_ELL;
        }
        for (int l = 0; l < EIN_LABELS; l++)
            if (count[l] == 1) out.sub[out.n++] = (int8_t)l;
    }
    /* global dims: the output's (ellipsis dims where the output has them), then summed labels */
    int gpos[EIN_LABELS + MT_MAX_DIM], gn = 0, n_out = 0;
    bool placed[EIN_LABELS + MT_MAX_DIM] = {0};
    for (int j = 0; j < out.n; j++) {
        if (out.sub[j] == EIN_ELL) {
            for (int e = 0; e < ell_n; e++) gpos[gn++] = EIN_LABELS + e, placed[EIN_LABELS + e] = 1;
        } else {
            gpos[gn++] = out.sub[j];
            placed[out.sub[j]] = true;
        }
    }
    n_out = gn;
    for (int e = 0; e < ell_n; e++) /* ellipsis dims missing from the output are summed */
        if (!placed[EIN_LABELS + e]) gpos[gn++] = EIN_LABELS + e;
    for (int l = 0; l < EIN_LABELS; l++)
        if (count[l] && !placed[l]) gpos[gn++] = l;
    if (gn > MT_MAX_DIM) {
        free(terms);
        return mt_error(MT_ERR_RUNTIME, "einsum(): mindtorch supports at most %d dims in all",
                        MT_MAX_DIM);
    }
    /* uses[i * gn + g]: operand i has global dim g (what decides when a dim can be summed) */
    bool *uses = mt_calloc((size_t)nops * (size_t)gn + 1, sizeof *uses);
    if (!uses) {
        free(terms);
        return -1;
    }
    for (int i = 0; i < nops; i++) {
        int nell = terms[i].ell ? ops[i]->ndim - (terms[i].n - 1) : 0;
        for (int g = 0; g < gn; g++) {
            int l = gpos[g];
            bool has = false;
            if (l >= EIN_LABELS)
                has = terms[i].ell && l - EIN_LABELS >= ell_n - nell;
            else
                for (int j = 0; j < terms[i].n; j++) has |= terms[i].sub[j] == l;
            uses[i * gn + g] = has;
        }
    }
    int64_t lsize[EIN_LABELS + MT_MAX_DIM];
    for (int i = 0; i < EIN_LABELS + MT_MAX_DIM; i++) lsize[i] = -1;
    mt_tensor **al = mt_calloc((size_t)nops, sizeof *al);
    if (!al) {
        free(terms);
        return -1;
    }
    for (int i = 0; i < nops && st == 0; i++) {
        if (i > 0 && ops[i]->dtype != ops[0]->dtype)
            st = mt_error(MT_ERR_RUNTIME, "expected scalar type %s but found %s",
                          mt_dtype_scalar_name((mt_dtype)ops[0]->dtype),
                          mt_dtype_scalar_name((mt_dtype)ops[i]->dtype));
        else if (!(al[i] = align_operand(ops[i], &terms[i], i, ell_n, gpos, gn, lsize)))
            st = -1;
    }
    free(terms);
    /* left to right: multiply, then sum the dims no later operand and not the output uses */
    mt_tensor *acc = NULL;
    if (st == 0) {
        acc = al[0];
        al[0] = NULL;
    }
    for (int i = 0; st == 0 && i < nops; i++) {
        if (i > 0) {
            mt_tensor *p = mto_mul_Tensor(acc, al[i]);
            mt_tensor_decref(acc);
            if (!(acc = p)) {
                st = -1;
                break;
            }
        }
        int64_t sum_dims[MT_MAX_DIM];
        int ns = 0;
        for (int g = n_out; g < gn; g++) {
            bool later = false;
            for (int j = i + 1; j < nops; j++) later |= uses[j * gn + g];
            /* summed once: after the last operand that has it */
            if (!later && uses[i * gn + g]) sum_dims[ns++] = g;
        }
        if (ns) {
            /* (in the operands' dtype: integers are not widened) */
            mt_tensor *s = mto_sum_dim_IntList(acc, (mt_ilist){sum_dims, ns}, true, acc->dtype);
            mt_tensor_decref(acc);
            if (!(acc = s)) st = -1;
        }
    }
    for (int i = 0; i < nops; i++) mt_tensor_decref(al[i]);
    free(al);
    free(uses);
    if (st) {
        mt_tensor_decref(acc);
        return -1;
    }
    /* the output dims: the first n_out (sizes of 1 broadcast to the label's size) */
    int64_t shape[MT_MAX_DIM];
    for (int g = 0; g < n_out; g++) shape[g] = acc->sizes[g];
    mt_tensor *o = mto_reshape(acc, (mt_ilist){shape, n_out});
    mt_tensor_decref(acc);
    return mt_ret_tensor(r, o);
}

/* addbmm_, addr_: the out-of-place result copied into self */
static int c_add_inplace(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *self = a[0].t;
    mt_tensor *v = c->op->id == MT_OP_addbmm_ ? mto_addbmm(self, a[1].t, a[2].t, a[3], a[4])
                                              : mto_addr(self, a[1].t, a[2].t, a[3], a[4]);
    if (!v) return -1;
    bool same = v->ndim == self->ndim &&
                !memcmp(v->sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    if (!same && c->op->id == MT_OP_addbmm_) { /* PyTorch writes it as out=self: self resized */
        mt_tensor *rs = mto_resize_(self, (mt_ilist){v->sizes, v->ndim}, NULL);
        mt_tensor_decref(rs);
        if (!rs) {
            mt_tensor_decref(v);
            return -1;
        }
        same = true;
    }
    if (!same && self->ndim != 2) {
        mt_tensor_decref(v);
        return mt_error(MT_ERR_RUNTIME, "2D tensor expected, got %dD tensor for input", self->ndim);
    }
    if (!same) {
        char x[256], y[256];
        mt_fmt_ilist(x, sizeof x, v->sizes, v->ndim);
        mt_fmt_ilist(y, sizeof y, self->sizes, self->ndim);
        mt_tensor_decref(v);
        return mt_error(MT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        y, x);
    }
    mt_tensor *w = mto_copy_(self, v, false);
    mt_tensor_decref(v);
    return mt_ret_tensor(r, w);
}

void mt_products_register(void) {
    static const struct {
        int op;
        mt_kernel k;
    } composites[] = {
        {MT_OP_kron, c_kron},
        {MT_OP_inner, c_inner},
        {MT_OP_ger, c_ger},
        {MT_OP_vdot, c_vdot},
        {MT_OP_tensordot, c_tensordot},
        {MT_OP_chain_matmul, c_chain_matmul},
        {MT_OP_addbmm, c_addbmm},
        {MT_OP_addr, c_addr},
        {MT_OP_trace, c_trace},
        {MT_OP_vander, c_vander},
        {MT_OP_einsum, c_einsum},
        {MT_OP_addbmm_, c_add_inplace},
        {MT_OP_addr_, c_add_inplace},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(composites); i++)
        mt_disp_composite(composites[i].op, composites[i].k);
}
