/* npu_ops_math.c: the NPU kernels of element-wise arithmetic, comparisons, unary math and
 * reductions, each one ACLNN operator. The dispatcher has already computed the result (its
 * broadcast shape and promoted dtype, or self for in-place forms) with the op's meta
 * function; the operators broadcast and convert their inputs themselves, as on the CPU. */
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

typedef struct {
    aclTensor *x, *y, *z, *o;
    aclScalar *s, *k;
} operands;

static int operands_of(npu_launch *L, ew_form form, mt_value *a, mt_value *r, operands *p) {
    if (npu_launch_begin(L, r[0].t)) return -1;
    *p = (operands){.x = npu_tensor(L, a[0].t), .o = npu_tensor(L, r[0].t)};
    if (form == TENSOR_ALPHA || form == TENSOR || form == THREE) p->y = npu_tensor(L, a[1].t);
    if (form == THREE) {
        p->z = npu_tensor(L, a[2].t);
        p->k = npu_scalar(L, a[3]);
    }
    if (form == SCALAR_ALPHA || form == SCALAR) p->s = npu_scalar(L, a[1]);
    if (form == TENSOR_ALPHA || form == SCALAR_ALPHA) p->k = npu_scalar(L, a[2]);
    return 0;
}

/* one kernel per op: the module knows ops by name only (their ids are the core's business) */
#define EW(fn, form, ...)                                                                          \
    static int k_##fn(mt_call *c, mt_value *a, mt_value *r) {                                      \
        (void)c;                                                                                   \
        npu_launch L;                                                                              \
        operands p;                                                                                \
        if (operands_of(&L, form, a, r, &p)) return -1;                                            \
        return NPU_ACLNN(&L, __VA_ARGS__);                                                         \
    }
/* an out-of-place unary op and its in-place form */
#define EW_UNARY(fn, Name)                                                                         \
    EW(fn, UNARY, Name, p.x, p.o)                                                                  \
    EW(fn##_, UNARY, Inplace##Name, p.x)

EW(add_tensor, TENSOR_ALPHA, Add, p.x, p.y, p.k, p.o)
EW(add__tensor, TENSOR_ALPHA, InplaceAdd, p.x, p.y, p.k)
EW(sub_tensor, TENSOR_ALPHA, Sub, p.x, p.y, p.k, p.o)
EW(sub__tensor, TENSOR_ALPHA, InplaceSub, p.x, p.y, p.k)
EW(rsub_tensor, TENSOR_ALPHA, Rsub, p.x, p.y, p.k, p.o)
EW(add_scalar, SCALAR_ALPHA, Adds, p.x, p.s, p.k, p.o)
EW(add__scalar, SCALAR_ALPHA, InplaceAdds, p.x, p.s, p.k)
EW(sub_scalar, SCALAR_ALPHA, Subs, p.x, p.s, p.k, p.o)
EW(sub__scalar, SCALAR_ALPHA, InplaceSubs, p.x, p.s, p.k)
EW(rsub_scalar, SCALAR_ALPHA, Rsubs, p.x, p.s, p.k, p.o)
EW(mul_tensor, TENSOR, Mul, p.x, p.y, p.o)
EW(mul__tensor, TENSOR, InplaceMul, p.x, p.y)
EW(div_tensor, TENSOR, Div, p.x, p.y, p.o)
EW(div__tensor, TENSOR, InplaceDiv, p.x, p.y)
EW(mul_scalar, SCALAR, Muls, p.x, p.s, p.o)
EW(mul__scalar, SCALAR, InplaceMuls, p.x, p.s)
EW(div_scalar, SCALAR, Divs, p.x, p.s, p.o)
EW(div__scalar, SCALAR, InplaceDivs, p.x, p.s)
EW(eq_tensor, TENSOR, EqTensor, p.x, p.y, p.o)
EW(ne_tensor, TENSOR, NeTensor, p.x, p.y, p.o)
EW(lt_tensor, TENSOR, LtTensor, p.x, p.y, p.o)
EW(le_tensor, TENSOR, LeTensor, p.x, p.y, p.o)
EW(gt_tensor, TENSOR, GtTensor, p.x, p.y, p.o)
EW(ge_tensor, TENSOR, GeTensor, p.x, p.y, p.o)
EW(eq_scalar, SCALAR, EqScalar, p.x, p.s, p.o)
EW(ne_scalar, SCALAR, NeScalar, p.x, p.s, p.o)
EW(lt_scalar, SCALAR, LtScalar, p.x, p.s, p.o)
EW(le_scalar, SCALAR, LeScalar, p.x, p.s, p.o)
EW(gt_scalar, SCALAR, GtScalar, p.x, p.s, p.o)
EW(ge_scalar, SCALAR, GeScalar, p.x, p.s, p.o)
EW_UNARY(neg, Neg)
EW_UNARY(exp, Exp)
EW_UNARY(log, Log)
EW_UNARY(relu, Relu)
EW_UNARY(sigmoid, Sigmoid)
EW_UNARY(tanh, Tanh)
EW_UNARY(sqrt, Sqrt)
EW(maximum, TENSOR, Maximum, p.x, p.y, p.o)
EW(addcmul, THREE, Addcmul, p.x, p.y, p.z, p.k, p.o)
EW(addcmul_, THREE, InplaceAddcmul, p.x, p.y, p.z, p.k)
EW(addcdiv, THREE, Addcdiv, p.x, p.y, p.z, p.k, p.o)
EW(addcdiv_, THREE, InplaceAddcdiv, p.x, p.y, p.z, p.k)
EW(logical_not, UNARY, LogicalNot, p.x, p.o)
EW(logical_not_, UNARY, InplaceLogicalNot, p.x)

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
static int reduce(mt_value *a, mt_value *r, bool over_dims, bool sum) {
    mt_tensor *self = a[0].t, *out = r[0].t;
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
    if (sum) return NPU_ACLNN(&L, ReduceSum, x, d, keep, dt, o);
    return NPU_ACLNN(&L, Mean, x, d, keep, dt, o);
}

static int sum_all(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return reduce(a, r, false, true);
}
static int sum_dims(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return reduce(a, r, true, true);
}
static int mean_all(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return reduce(a, r, false, false);
}
static int mean_dims(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return reduce(a, r, true, false);
}

const mt_kernel_entry npu_math_kernels[] = {
    {"add.Tensor", k_add_tensor},
    {"add_.Tensor", k_add__tensor},
    {"sub.Tensor", k_sub_tensor},
    {"sub_.Tensor", k_sub__tensor},
    {"rsub.Tensor", k_rsub_tensor},
    {"add.Scalar", k_add_scalar},
    {"add_.Scalar", k_add__scalar},
    {"sub.Scalar", k_sub_scalar},
    {"sub_.Scalar", k_sub__scalar},
    {"rsub.Scalar", k_rsub_scalar},
    {"mul.Tensor", k_mul_tensor},
    {"mul_.Tensor", k_mul__tensor},
    {"div.Tensor", k_div_tensor},
    {"div_.Tensor", k_div__tensor},
    {"mul.Scalar", k_mul_scalar},
    {"mul_.Scalar", k_mul__scalar},
    {"div.Scalar", k_div_scalar},
    {"div_.Scalar", k_div__scalar},
    {"eq.Tensor", k_eq_tensor},
    {"ne.Tensor", k_ne_tensor},
    {"lt.Tensor", k_lt_tensor},
    {"le.Tensor", k_le_tensor},
    {"gt.Tensor", k_gt_tensor},
    {"ge.Tensor", k_ge_tensor},
    {"eq.Scalar", k_eq_scalar},
    {"ne.Scalar", k_ne_scalar},
    {"lt.Scalar", k_lt_scalar},
    {"le.Scalar", k_le_scalar},
    {"gt.Scalar", k_gt_scalar},
    {"ge.Scalar", k_ge_scalar},
    {"neg", k_neg},
    {"neg_", k_neg_},
    {"exp", k_exp},
    {"exp_", k_exp_},
    {"log", k_log},
    {"log_", k_log_},
    {"relu", k_relu},
    {"relu_", k_relu_},
    {"sigmoid", k_sigmoid},
    {"sigmoid_", k_sigmoid_},
    {"sqrt", k_sqrt},
    {"sqrt_", k_sqrt_},
    {"tanh", k_tanh},
    {"tanh_", k_tanh_},
    {"maximum", k_maximum},
    {"addcmul", k_addcmul},
    {"addcmul_", k_addcmul_},
    {"addcdiv", k_addcdiv},
    {"addcdiv_", k_addcdiv_},
    {"logical_not", k_logical_not},
    {"logical_not_", k_logical_not_},
    {"where.self", where_impl},
    {"sum", sum_all},
    {"sum.dim_IntList", sum_dims},
    {"mean", mean_all},
    {"mean.dim", mean_dims},
};
const size_t npu_math_kernels_count = MT_ARRAY_LEN(npu_math_kernels);
