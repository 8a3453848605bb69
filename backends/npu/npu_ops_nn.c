/* npu_ops_nn.c: the NPU kernels of matrix products, softmax, gather/scatter and masked fills,
 * each one ACLNN operator. Dims and index values are 0-based here, as everywhere below the
 * Lua boundary. */
#include "npu_aclnn.h"
#include "npu_ops.h"

/* mm, bmm, mv, dot, addmm: matrix products keep their dtype (no reduced-precision shortcuts) */
typedef enum { MM, BMM, MATMUL, ADDMM } product;

static int run_product(product kind, mt_value *a, mt_value *r) {
    mt_tensor *out = r[0].t;
    npu_launch L;
    if (npu_launch_begin(&L, out)) return -1;
    int8_t keep = ACLNN_CUBE_KEEP_DTYPE;
    aclTensor *x = npu_tensor(&L, a[0].t), *y = npu_tensor(&L, a[1].t), *o = npu_tensor(&L, out);
    if (kind == ADDMM) {
        aclTensor *m2 = npu_tensor(&L, a[2].t);
        aclScalar *beta = npu_scalar(&L, a[3]), *alpha = npu_scalar(&L, a[4]);
        return NPU_ACLNN(&L, Addmm, x, y, m2, beta, alpha, o, keep);
    }
    if (kind == MM) return NPU_ACLNN(&L, Mm, x, y, o, keep);
    if (kind == BMM) return NPU_ACLNN(&L, BatchMatMul, x, y, o, keep);
    return NPU_ACLNN(&L, Matmul, x, y, o, keep); /* mv, dot */
}

static int mm_impl(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return run_product(MM, a, r);
}
static int bmm_impl(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return run_product(BMM, a, r);
}
static int matmul_impl(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return run_product(MATMUL, a, r);
}
static int addmm_impl(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return run_product(ADDMM, a, r);
}

/* softmax(self, dim, dtype): the operator reads any floating input and writes out's dtype */
static int run_softmax(bool log, mt_value *a, mt_value *r) {
    mt_tensor *self = a[0].t, *out = r[0].t;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    npu_launch L;
    if (npu_launch_begin(&L, out)) return -1;
    aclTensor *x = npu_tensor(&L, self), *o = npu_tensor(&L, out);
    if (!log) return NPU_ACLNN(&L, Softmax, x, d, o);
    return NPU_ACLNN(&L, LogSoftmax, x, d, o);
}

static int softmax_impl(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return run_softmax(false, a, r);
}
static int log_softmax_impl(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return run_softmax(true, a, r);
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
static int run_scatter(int64_t reduce, mt_value *a, mt_value *r) {
    mt_tensor *self = r[0].t;
    int d;
    if (mt_wrap_dim(a[1].i, self->ndim, &d)) return -1;
    npu_launch L;
    if (npu_launch_begin(&L, self)) return -1;
    aclTensor *x = npu_tensor(&L, self), *i = npu_tensor(&L, a[2].t), *s = npu_tensor(&L, a[3].t);
    return NPU_ACLNN(&L, InplaceScatter, x, d, i, s, reduce);
}

static int scatter_add_impl(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return run_scatter(ACLNN_SCATTER_ADD, a, r);
}
static int scatter_impl(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return run_scatter(ACLNN_SCATTER_REPLACE, a, r);
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

const mt_kernel_entry npu_nn_kernels[] = {
    {"mm", mm_impl},
    {"bmm", bmm_impl},
    {"mv", matmul_impl},
    {"dot", matmul_impl},
    {"addmm", addmm_impl},
    {"softmax.int", softmax_impl},
    {"log_softmax.int", log_softmax_impl},
    {"gather", gather_impl},
    {"scatter_add_", scatter_add_impl},
    {"scatter_.src", scatter_impl},
    {"masked_fill_.Scalar", masked_fill_impl},
};
const size_t npu_nn_kernels_count = MT_ARRAY_LEN(npu_nn_kernels);
