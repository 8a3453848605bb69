/* linalg.c: the meta functions of the matrix products (shapes, dtypes, PyTorch's checks), and
 * matmul and outer, written with the products. */
#include "common_ops.h"
#include "linalg.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <string.h>

static int same_dtype(const mt_tensor *a, const mt_tensor *b) {
    if (a->dtype != b->dtype)
        return mt_error(MT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        mt_dtype_scalar_name((mt_dtype)a->dtype),
                        mt_dtype_scalar_name((mt_dtype)b->dtype));
    return 0;
}

/* the dtypes the products compute (the CPU's; a device with float16 kernels adds float16) */
static int supported(const char *kname, const mt_tensor *t) {
    mt_dtype dt = (mt_dtype)t->dtype;
    if (mt_lacks_float16_kernel(t->device, dt) || dt == MT_BOOL)
        return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kname,
                        mt_dtype_scalar_name(dt));
    return 0;
}

static void set_out(mt_outspec *o, int n, const int64_t *sizes, mt_dtype dt) {
    o->ndim = (int8_t)n;
    memcpy(o->sizes, sizes, sizeof(int64_t) * (size_t)n);
    o->dtype = (uint8_t)dt;
}

/* self must broadcast to the product's shape (addmm, addmv, baddbmm) */
static int check_bias(const mt_tensor *self, int n, const int64_t *shape) {
    mt_tensor *s = (mt_tensor *)self;
    mt_tensor *e = mto_expand(s, (mt_ilist){shape, n}, false);
    if (!e) return -1;
    mt_tensor_decref(e);
    return 0;
}

int mt_linalg_check(int opid, mt_value *a, int *n, int64_t *shape) {
    switch (opid) {
    case MT_OP_mm:
    case MT_OP_addmm: {
        mt_tensor *m1 = a[opid == MT_OP_mm ? 0 : 1].t, *m2 = a[opid == MT_OP_mm ? 1 : 2].t;
        if (m1->ndim != 2)
            return mt_error(MT_ERR_RUNTIME,
                            opid == MT_OP_mm ? "self must be a matrix"
                                             : "mat1 must be a matrix, got %d-D tensor",
                            m1->ndim);
        if (m2->ndim != 2)
            return mt_error(MT_ERR_RUNTIME,
                            opid == MT_OP_mm ? "mat2 must be a matrix"
                                             : "mat2 must be a matrix, got %d-D tensor",
                            m2->ndim);
        if (m1->sizes[1] != m2->sizes[0])
            return mt_error(MT_ERR_RUNTIME,
                            "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                            (long long)m1->sizes[0], (long long)m1->sizes[1],
                            (long long)m2->sizes[0], (long long)m2->sizes[1]);
        if (same_dtype(m1, m2) || supported("addmm_impl_cpu_", m1)) return -1;
        *n = 2;
        shape[0] = m1->sizes[0];
        shape[1] = m2->sizes[1];
        if (opid == MT_OP_addmm && (same_dtype(a[0].t, m1) || check_bias(a[0].t, 2, shape)))
            return -1;
        return 0;
    }
    case MT_OP_bmm:
    case MT_OP_baddbmm: {
        mt_tensor *b1 = a[opid == MT_OP_bmm ? 0 : 1].t, *b2 = a[opid == MT_OP_bmm ? 1 : 2].t;
        if (b1->ndim != 3) return mt_error(MT_ERR_RUNTIME, "batch1 must be a 3D tensor");
        if (b2->ndim != 3) return mt_error(MT_ERR_RUNTIME, "batch2 must be a 3D tensor");
        if (b2->sizes[0] != b1->sizes[0] || b2->sizes[1] != b1->sizes[2])
            return mt_error(
                MT_ERR_RUNTIME,
                "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but "
                "got: [%lld, %lld].",
                (long long)b1->sizes[0], (long long)b1->sizes[2], (long long)b2->sizes[0],
                (long long)b2->sizes[1]);
        if (same_dtype(b1, b2) || supported("bmm", b1)) return -1;
        *n = 3;
        shape[0] = b1->sizes[0];
        shape[1] = b1->sizes[1];
        shape[2] = b2->sizes[2];
        if (opid == MT_OP_baddbmm && (same_dtype(a[0].t, b1) || check_bias(a[0].t, 3, shape)))
            return -1;
        return 0;
    }
    case MT_OP_mv:
    case MT_OP_addmv: {
        mt_tensor *m = a[opid == MT_OP_mv ? 0 : 1].t, *v = a[opid == MT_OP_mv ? 1 : 2].t;
        int sd = opid == MT_OP_mv ? 1 : a[0].t->ndim;
        if (m->ndim != 2 || v->ndim != 1)
            return mt_error(MT_ERR_RUNTIME, "vector + matrix @ vector expected, got %d, %d, %d", sd,
                            m->ndim, v->ndim);
        if (m->sizes[1] != v->sizes[0])
            return mt_error(MT_ERR_RUNTIME, "size mismatch, got %lld, %lldx%lld,%lld",
                            (long long)m->sizes[0], (long long)m->sizes[0], (long long)m->sizes[1],
                            (long long)v->sizes[0]);
        if (same_dtype(m, v) || supported("addmv_impl_cpu", m)) return -1;
        *n = 1;
        shape[0] = m->sizes[0];
        if (opid == MT_OP_addmv && (same_dtype(a[0].t, m) || check_bias(a[0].t, 1, shape)))
            return -1;
        return 0;
    }
    case MT_OP_dot: {
        mt_tensor *x = a[0].t, *y = a[1].t;
        if (x->ndim != 1 || y->ndim != 1)
            return mt_error(MT_ERR_RUNTIME, "1D tensors expected, but got %dD and %dD tensors",
                            x->ndim, y->ndim);
        if (x->dtype != y->dtype)
            return mt_error(MT_ERR_RUNTIME,
                            "dot : expected both vectors to have same dtype, but found %s and %s",
                            mt_dtype_scalar_name((mt_dtype)x->dtype),
                            mt_dtype_scalar_name((mt_dtype)y->dtype));
        if (x->sizes[0] != y->sizes[0])
            return mt_error(
                MT_ERR_RUNTIME,
                "inconsistent tensor size, expected tensor [%lld] and src [%lld] to have the same "
                "number of elements, but got %lld and %lld elements respectively",
                (long long)x->sizes[0], (long long)y->sizes[0], (long long)x->sizes[0],
                (long long)y->sizes[0]);
        if (supported("dot", x)) return -1;
        *n = 0;
        return 0;
    }
    default:
        return mt_error(MT_ERR_RUNTIME, "not a matrix product");
    }
}

int mt_meta_linalg(mt_call *c, mt_value *a, mt_outspec *o) {
    int n;
    int64_t shape[3];
    if (mt_linalg_check(c->op->id, a, &n, shape)) return -1;
    set_out(o, n, shape,
            (mt_dtype)
                a[c->op->id == MT_OP_addmm || c->op->id == MT_OP_addmv || c->op->id == MT_OP_baddbmm
                      ? 1
                      : 0]
                    .t->dtype);
    return 0;
}

/* ---- composites ------------------------------------------------------------------------------ */

static int c_outer(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[0].t, *y = a[1].t;
    if (x->ndim != 1)
        return mt_error(MT_ERR_RUNTIME, "outer: Expected 1-D argument self, but got %d-D", x->ndim);
    if (y->ndim != 1)
        return mt_error(MT_ERR_RUNTIME, "outer: Expected 1-D argument vec2, but got %d-D", y->ndim);
    mt_tensor *col = mto_reshape(x, MT_ILIST(-1, 1));
    if (!col) return -1;
    mt_tensor *out = mto_mul_Tensor(col, y);
    mt_tensor_decref(col);
    return mt_ret_tensor(r, out);
}

/* matmul: PyTorch's cases, each reduced to dot, mv, mm or bmm */
static int c_matmul(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *t1 = a[0].t, *t2 = a[1].t;
    int d1 = t1->ndim, d2 = t2->ndim;
    if (d1 == 0 || d2 == 0)
        return mt_error(MT_ERR_RUNTIME,
                        "both arguments to matmul need to be at least 1D, but they are %dD and %dD",
                        d1, d2);
    if (d1 == 1 && d2 == 1) return mt_ret_tensor(r, mto_dot(t1, t2));
    if (d1 == 2 && d2 == 1) return mt_ret_tensor(r, mto_mv(t1, t2));
    if (d1 == 2 && d2 == 2) return mt_ret_tensor(r, mto_mm(t1, t2));
    if (d1 == 1 && d2 == 2) {
        mt_tensor *row = mto_unsqueeze(t1, 0), *p = row ? mto_mm(row, t2) : NULL,
                  *out = p ? mto_squeeze_dim(p, 0) : NULL;
        mt_tensor_decref(row);
        mt_tensor_decref(p);
        return mt_ret_tensor(r, out);
    }
    if (d1 >= 3 && d2 <= 2) { /* fold t1's batch dims into rows */
        int64_t shape[MT_MAX_DIM];
        int n = 0;
        for (int i = 0; i < d1 - 1; i++) shape[n++] = t1->sizes[i];
        if (d2 == 2) shape[n++] = t2->sizes[1];
        mt_tensor *f = mto_reshape(t1, MT_ILIST(-1, t1->sizes[d1 - 1]));
        mt_tensor *p = f ? (d2 == 2 ? mto_mm(f, t2) : mto_mv(f, t2)) : NULL;
        mt_tensor *out = p ? mto_view(p, (mt_ilist){shape, n}) : NULL;
        mt_tensor_decref(f);
        mt_tensor_decref(p);
        return mt_ret_tensor(r, out);
    }
    /* batched: broadcast the batch dims, bmm, and shape the result */
    int64_t n = d1 > 1 ? t1->sizes[d1 - 2] : 1, m1 = t1->sizes[d1 - 1];
    int64_t m2 = d2 > 1 ? t2->sizes[d2 - 2] : t2->sizes[d2 - 1], p = d2 > 1 ? t2->sizes[d2 - 1] : 1;
    int nb1 = d1 > 2 ? d1 - 2 : 0, nb2 = d2 > 2 ? d2 - 2 : 0, nb;
    int64_t batch[MT_MAX_DIM];
    if (mt_broadcast_shapes(nb1, t1->sizes, nb2, t2->sizes, &nb, batch)) return -1;
    if (nb + 2 > MT_MAX_DIM) return mt_error(MT_ERR_RUNTIME, "matmul: too many dimensions");
    int64_t bn = 1;
    for (int i = 0; i < nb; i++) bn *= batch[i];
    int64_t e1[MT_MAX_DIM], e2[MT_MAX_DIM], outs[MT_MAX_DIM];
    memcpy(e1, batch, sizeof(int64_t) * (size_t)nb);
    memcpy(e2, batch, sizeof(int64_t) * (size_t)nb);
    memcpy(outs, batch, sizeof(int64_t) * (size_t)nb);
    e1[nb] = n, e1[nb + 1] = m1;
    e2[nb] = m2, e2[nb + 1] = p;
    int no = nb;
    if (d1 > 1) outs[no++] = n;
    if (d2 > 1) outs[no++] = p;
    mt_tensor *x1 = mto_expand(t1, (mt_ilist){e1, nb + 2}, false);
    mt_tensor *x2 = x1 ? mto_expand(t2, (mt_ilist){e2, nb + 2}, false) : NULL;
    mt_tensor *r1 = x2 ? mto_reshape(x1, MT_ILIST(bn, n, m1)) : NULL;
    mt_tensor *r2 = r1 ? mto_reshape(x2, MT_ILIST(bn, m2, p)) : NULL;
    mt_tensor *pr = r2 ? mto_bmm(r1, r2) : NULL;
    mt_tensor *out = pr ? mto_view(pr, (mt_ilist){outs, no}) : NULL;
    mt_tensor_decref(x1);
    mt_tensor_decref(x2);
    mt_tensor_decref(r1);
    mt_tensor_decref(r2);
    mt_tensor_decref(pr);
    return mt_ret_tensor(r, out);
}

void mt_linalg_register(void) {
    mt_disp_meta_group(MT_GROUP_PRODUCT, mt_meta_linalg);
    mt_disp_composite(MT_OP_outer, c_outer);
    mt_disp_composite(MT_OP_matmul, c_matmul);
}
