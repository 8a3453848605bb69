/* npu_ops_math.c: the NPU kernels of element-wise arithmetic, comparisons, unary math and
 * reductions, each one ACLNN operator. The dispatcher has already computed the result (its
 * broadcast shape and promoted dtype, or self for in-place forms) with the op's meta
 * function; the operators broadcast and convert their inputs themselves, as on the CPU. */
#include "mt_ops_gen.h"
#include "npu_aclnn.h"
#include "npu_ops.h"

/* how an op's arguments map onto its operator's */
typedef enum {
    TENSOR_ALPHA, /* (self, other, alpha) -> (self, other, alpha, out) */
    SCALAR_ALPHA, /* (self, Scalar other, alpha) */
    TENSOR,       /* (self, other) */
    SCALAR,       /* (self, Scalar other) */
    UNARY,        /* (self) */
    THREE,        /* (self, tensor1, tensor2, value) */
} ew_form;

static const struct {
    int op;
    ew_form form;
} forms[] = {
    {MT_OP_add_Tensor, TENSOR_ALPHA},
    {MT_OP_add__Tensor, TENSOR_ALPHA},
    {MT_OP_sub_Tensor, TENSOR_ALPHA},
    {MT_OP_sub__Tensor, TENSOR_ALPHA},
    {MT_OP_rsub_Tensor, TENSOR_ALPHA},
    {MT_OP_add_Scalar, SCALAR_ALPHA},
    {MT_OP_add__Scalar, SCALAR_ALPHA},
    {MT_OP_sub_Scalar, SCALAR_ALPHA},
    {MT_OP_sub__Scalar, SCALAR_ALPHA},
    {MT_OP_rsub_Scalar, SCALAR_ALPHA},
    {MT_OP_mul_Tensor, TENSOR},
    {MT_OP_mul__Tensor, TENSOR},
    {MT_OP_div_Tensor, TENSOR},
    {MT_OP_div__Tensor, TENSOR},
    {MT_OP_eq_Tensor, TENSOR},
    {MT_OP_ne_Tensor, TENSOR},
    {MT_OP_lt_Tensor, TENSOR},
    {MT_OP_le_Tensor, TENSOR},
    {MT_OP_gt_Tensor, TENSOR},
    {MT_OP_ge_Tensor, TENSOR},
    {MT_OP_mul_Scalar, SCALAR},
    {MT_OP_mul__Scalar, SCALAR},
    {MT_OP_div_Scalar, SCALAR},
    {MT_OP_div__Scalar, SCALAR},
    {MT_OP_eq_Scalar, SCALAR},
    {MT_OP_ne_Scalar, SCALAR},
    {MT_OP_lt_Scalar, SCALAR},
    {MT_OP_le_Scalar, SCALAR},
    {MT_OP_gt_Scalar, SCALAR},
    {MT_OP_ge_Scalar, SCALAR},
    {MT_OP_neg, UNARY},
    {MT_OP_neg_, UNARY},
    {MT_OP_exp, UNARY},
    {MT_OP_exp_, UNARY},
    {MT_OP_log, UNARY},
    {MT_OP_log_, UNARY},
    {MT_OP_relu, UNARY},
    {MT_OP_relu_, UNARY},
    {MT_OP_sigmoid, UNARY},
    {MT_OP_sigmoid_, UNARY},
    {MT_OP_sqrt, UNARY},
    {MT_OP_sqrt_, UNARY},
    {MT_OP_maximum, TENSOR},
    {MT_OP_addcmul, THREE},
    {MT_OP_addcmul_, THREE},
    {MT_OP_addcdiv, THREE},
    {MT_OP_addcdiv_, THREE},
    {MT_OP_tanh, UNARY},
    {MT_OP_tanh_, UNARY},
    {MT_OP_logical_not, UNARY},
    {MT_OP_logical_not_, UNARY},
};

static ew_form form_of(int op) {
    for (size_t i = 0; i < MT_ARRAY_LEN(forms); i++)
        if (forms[i].op == op) return forms[i].form;
    return UNARY; /* not reached: only the ops above are registered */
}

/* an out-of-place unary op and its in-place form */
#define UNARY_CASES(op, Name)                                                                      \
    case MT_OP_##op:                                                                               \
        return NPU_ACLNN(&L, Name, x, o);                                                          \
    case MT_OP_##op##_:                                                                            \
        return NPU_ACLNN(&L, Inplace##Name, x);

static int elementwise_impl(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *out = r[0].t;
    npu_launch L;
    if (npu_launch_begin(&L, out)) return -1;
    ew_form form = form_of(c->op->id);
    aclTensor *x = npu_tensor(&L, a[0].t), *y = NULL, *o = npu_tensor(&L, out);
    aclScalar *s = NULL, *k = NULL;
    aclTensor *z = NULL;
    if (form == TENSOR_ALPHA || form == TENSOR || form == THREE) y = npu_tensor(&L, a[1].t);
    if (form == THREE) {
        z = npu_tensor(&L, a[2].t);
        k = npu_scalar(&L, a[3]);
    }
    if (form == SCALAR_ALPHA || form == SCALAR) s = npu_scalar(&L, a[1]);
    if (form == TENSOR_ALPHA || form == SCALAR_ALPHA) k = npu_scalar(&L, a[2]);
    switch (c->op->id) {
    case MT_OP_add_Tensor:
        return NPU_ACLNN(&L, Add, x, y, k, o);
    case MT_OP_add__Tensor:
        return NPU_ACLNN(&L, InplaceAdd, x, y, k);
    case MT_OP_sub_Tensor:
        return NPU_ACLNN(&L, Sub, x, y, k, o);
    case MT_OP_sub__Tensor:
        return NPU_ACLNN(&L, InplaceSub, x, y, k);
    case MT_OP_rsub_Tensor:
        return NPU_ACLNN(&L, Rsub, x, y, k, o);
    case MT_OP_add_Scalar:
        return NPU_ACLNN(&L, Adds, x, s, k, o);
    case MT_OP_add__Scalar:
        return NPU_ACLNN(&L, InplaceAdds, x, s, k);
    case MT_OP_sub_Scalar:
        return NPU_ACLNN(&L, Subs, x, s, k, o);
    case MT_OP_sub__Scalar:
        return NPU_ACLNN(&L, InplaceSubs, x, s, k);
    case MT_OP_rsub_Scalar:
        return NPU_ACLNN(&L, Rsubs, x, s, k, o);
    case MT_OP_mul_Tensor:
        return NPU_ACLNN(&L, Mul, x, y, o);
    case MT_OP_mul__Tensor:
        return NPU_ACLNN(&L, InplaceMul, x, y);
    case MT_OP_div_Tensor:
        return NPU_ACLNN(&L, Div, x, y, o);
    case MT_OP_div__Tensor:
        return NPU_ACLNN(&L, InplaceDiv, x, y);
    case MT_OP_mul_Scalar:
        return NPU_ACLNN(&L, Muls, x, s, o);
    case MT_OP_mul__Scalar:
        return NPU_ACLNN(&L, InplaceMuls, x, s);
    case MT_OP_div_Scalar:
        return NPU_ACLNN(&L, Divs, x, s, o);
    case MT_OP_div__Scalar:
        return NPU_ACLNN(&L, InplaceDivs, x, s);
    case MT_OP_eq_Tensor:
        return NPU_ACLNN(&L, EqTensor, x, y, o);
    case MT_OP_ne_Tensor:
        return NPU_ACLNN(&L, NeTensor, x, y, o);
    case MT_OP_lt_Tensor:
        return NPU_ACLNN(&L, LtTensor, x, y, o);
    case MT_OP_le_Tensor:
        return NPU_ACLNN(&L, LeTensor, x, y, o);
    case MT_OP_gt_Tensor:
        return NPU_ACLNN(&L, GtTensor, x, y, o);
    case MT_OP_ge_Tensor:
        return NPU_ACLNN(&L, GeTensor, x, y, o);
    case MT_OP_eq_Scalar:
        return NPU_ACLNN(&L, EqScalar, x, s, o);
    case MT_OP_ne_Scalar:
        return NPU_ACLNN(&L, NeScalar, x, s, o);
    case MT_OP_lt_Scalar:
        return NPU_ACLNN(&L, LtScalar, x, s, o);
    case MT_OP_le_Scalar:
        return NPU_ACLNN(&L, LeScalar, x, s, o);
    case MT_OP_gt_Scalar:
        return NPU_ACLNN(&L, GtScalar, x, s, o);
    case MT_OP_ge_Scalar:
        return NPU_ACLNN(&L, GeScalar, x, s, o);
        UNARY_CASES(neg, Neg)
        UNARY_CASES(exp, Exp)
        UNARY_CASES(log, Log)
        UNARY_CASES(relu, Relu)
        UNARY_CASES(sigmoid, Sigmoid)
        UNARY_CASES(tanh, Tanh)
        UNARY_CASES(sqrt, Sqrt)
    case MT_OP_maximum:
        return NPU_ACLNN(&L, Maximum, x, y, o);
    case MT_OP_addcmul:
        return NPU_ACLNN(&L, Addcmul, x, y, z, k, o);
    case MT_OP_addcmul_:
        return NPU_ACLNN(&L, InplaceAddcmul, x, y, z, k);
    case MT_OP_addcdiv:
        return NPU_ACLNN(&L, Addcdiv, x, y, z, k, o);
    case MT_OP_addcdiv_:
        return NPU_ACLNN(&L, InplaceAddcdiv, x, y, z, k);
    case MT_OP_logical_not:
        return NPU_ACLNN(&L, LogicalNot, x, o);
    default:
        return NPU_ACLNN(&L, InplaceLogicalNot, x);
    }
}

/* where(condition, self, other) */
static int where_impl(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    npu_launch L;
    if (npu_launch_begin(&L, r[0].t)) return -1;
    aclTensor *cond = npu_tensor(&L, a[0].t), *x = npu_tensor(&L, a[1].t),
              *y = npu_tensor(&L, a[2].t), *o = npu_tensor(&L, r[0].t);
    return NPU_ACLNN(&L, SWhere, cond, x, y, o);
}

/* sum and mean, of everything or over dims: the dims are listed explicitly (all of them for a
 * full reduction), 0-based */
static int reduce_impl(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *self = a[0].t, *out = r[0].t;
    int id = c->op->id;
    bool over_dims = id == MT_OP_sum_dim_IntList || id == MT_OP_mean_dim;
    int64_t dims[MT_MAX_DIM];
    int n = 0;
    if (over_dims && a[1].tag == MT_V_INTLIST && a[1].n > 0) {
        for (int i = 0; i < a[1].n; i++) {
            int d;
            if (mt_wrap_dim(a[1].il[i], self->ndim, &d)) return -1;
            if (self->ndim) dims[n++] = d;
        }
    } else
        for (int i = 0; i < self->ndim; i++) dims[n++] = i;
    bool keep = over_dims && a[2].b;
    npu_launch L;
    if (npu_launch_begin(&L, out)) return -1;
    aclTensor *x = npu_tensor(&L, self), *o = npu_tensor(&L, out);
    aclIntArray *d = npu_int_array(&L, dims, n);
    aclDataType dt = npu_acl_dtype((mt_dtype)out->dtype);
    if (id == MT_OP_sum || id == MT_OP_sum_dim_IntList)
        return NPU_ACLNN(&L, ReduceSum, x, d, keep, dt, o);
    return NPU_ACLNN(&L, Mean, x, d, keep, dt, o);
}

void npu_register_math(void) {
    for (size_t i = 0; i < MT_ARRAY_LEN(forms); i++)
        mt_disp_impl(forms[i].op, MT_KEY_NPU, elementwise_impl);
    mt_disp_impl(MT_OP_where_self, MT_KEY_NPU, where_impl);
    static const int reductions[] = {MT_OP_sum, MT_OP_sum_dim_IntList, MT_OP_mean, MT_OP_mean_dim};
    for (size_t i = 0; i < MT_ARRAY_LEN(reductions); i++)
        mt_disp_impl(reductions[i], MT_KEY_NPU, reduce_impl);
}
