/* npu_ops_nn.c: the NPU kernels of matrix products, softmax, gather/scatter and masked fills,
 * each one ACLNN operator. Dims and index values are 0-based here, as everywhere below the
 * Lua boundary. */
#include "mt_ops_gen.h"
#include "npu_aclnn.h"
#include "npu_ops.h"

/* mm, bmm, mv, dot, addmm: matrix products keep their dtype (no reduced-precision shortcuts) */
static int product_impl(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *out = r[0].t;
    npu_launch L;
    if (npu_launch_begin(&L, out)) return -1;
    int id = c->op->id;
    int8_t keep = ACLNN_CUBE_KEEP_DTYPE;
    aclTensor *x = npu_tensor(&L, a[0].t), *y = npu_tensor(&L, a[1].t), *o = npu_tensor(&L, out);
    if (id == MT_OP_addmm) {
        aclTensor *m2 = npu_tensor(&L, a[2].t);
        aclScalar *beta = npu_scalar(&L, a[3]), *alpha = npu_scalar(&L, a[4]);
        return NPU_ACLNN(&L, Addmm, x, y, m2, beta, alpha, o, keep);
    }
    if (id == MT_OP_mm) return NPU_ACLNN(&L, Mm, x, y, o, keep);
    if (id == MT_OP_bmm) return NPU_ACLNN(&L, BatchMatMul, x, y, o, keep);
    return NPU_ACLNN(&L, Matmul, x, y, o, keep); /* mv, dot */
}

/* softmax(self, dim, dtype): the operator reads any floating input and writes out's dtype */
static int softmax_impl(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *self = a[0].t, *out = r[0].t;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    npu_launch L;
    if (npu_launch_begin(&L, out)) return -1;
    aclTensor *x = npu_tensor(&L, self), *o = npu_tensor(&L, out);
    if (c->op->id == MT_OP_softmax_int) return NPU_ACLNN(&L, Softmax, x, d, o);
    return NPU_ACLNN(&L, LogSoftmax, x, d, o);
}

/* gather(self, dim, index): an index out of range is found by the device, so it is reported at
 * the next synchronisation (as on CUDA) */
static int gather_impl(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *self = a[0].t, *out = r[0].t;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    npu_launch L;
    if (npu_launch_begin(&L, out)) return -1;
    aclTensor *x = npu_tensor(&L, self), *i = npu_tensor(&L, a[2].t), *o = npu_tensor(&L, out);
    return NPU_ACLNN(&L, Gather, x, d, i, o);
}

/* scatter_add_(self, dim, index, src) and scatter_(self, dim, index, src) */
static int scatter_impl(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *self = r[0].t;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    npu_launch L;
    if (npu_launch_begin(&L, self)) return -1;
    aclTensor *x = npu_tensor(&L, self), *i = npu_tensor(&L, a[2].t), *s = npu_tensor(&L, a[3].t);
    int64_t reduce = c->op->id == MT_OP_scatter_add_ ? ACLNN_SCATTER_ADD : ACLNN_SCATTER_REPLACE;
    return NPU_ACLNN(&L, InplaceScatter, x, d, i, s, reduce);
}

static int masked_fill_impl(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *self = r[0].t;
    npu_launch L;
    if (npu_launch_begin(&L, self)) return -1;
    aclTensor *x = npu_tensor(&L, self), *m = npu_tensor(&L, a[1].t);
    aclScalar *v = npu_scalar(&L, a[2]);
    return NPU_ACLNN(&L, InplaceMaskedFillScalar, x, m, v);
}

void npu_register_nn(void) {
    static const int products[] = {MT_OP_mm, MT_OP_bmm, MT_OP_mv, MT_OP_dot, MT_OP_addmm};
    for (size_t i = 0; i < MT_ARRAY_LEN(products); i++)
        mt_disp_impl(products[i], MT_KEY_NPU, product_impl);
    mt_disp_impl(MT_OP_softmax_int, MT_KEY_NPU, softmax_impl);
    mt_disp_impl(MT_OP_log_softmax_int, MT_KEY_NPU, softmax_impl);
    mt_disp_impl(MT_OP_gather, MT_KEY_NPU, gather_impl);
    mt_disp_impl(MT_OP_scatter_add_, MT_KEY_NPU, scatter_impl);
    mt_disp_impl(MT_OP_scatter__src, MT_KEY_NPU, scatter_impl);
    mt_disp_impl(MT_OP_masked_fill__Scalar, MT_KEY_NPU, masked_fill_impl);
}
