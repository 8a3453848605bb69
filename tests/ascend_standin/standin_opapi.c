/* standin_opapi.c: the ACL STAND-IN's libopapi.so (a test double, see standin.h): the ACLNN
 * operators the NPU backend calls, with CANN's signatures (backends/npu/acl_abi.h). The first
 * phase checks the arguments as the real operators document them (null pointers, shapes that
 * do not broadcast, unsupported dtypes) and plans; the second queues the plan on the stream,
 * whose worker thread computes on host memory: element-wise in PyTorch's opmath type (float
 * for float16/bfloat16/float32), reductions and matrix products accumulated in double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "standin_exec.h"

#define X(name, params)                                                                            \
    STANDIN_API aclnnStatus aclnn##name##GetWorkspaceSize MT_ACLNN_WS_PARAMS params;               \
    STANDIN_API aclnnStatus aclnn##name(void *workspace, uint64_t workspaceSize,                   \
                                        aclOpExecutor *executor, aclrtStream stream);
MT_ACLNN_OPS(X)
#undef X

/* every second phase: launch the plan */
#define X(name, params)                                                                            \
    aclnnStatus aclnn##name(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,      \
                            aclrtStream stream) {                                                  \
        return ex_launch(workspace, workspaceSize, executor, stream);                              \
    }
MT_ACLNN_OPS(X)
#undef X

/* CANN's operator library depends on libnnopbase; so does this one */
STANDIN_API int aclStandinOpapiVersion(void) {
    return 2;
}

#define TRY(call)                                                                                  \
    do {                                                                                           \
        aclnnStatus st_ = (call);                                                                  \
        if (st_ != ACLNN_SUCCESS) return st_;                                                      \
    } while (0)

/* ---- element-wise ---------------------------------------------------------------------------- */
enum {
    F_ADD,
    F_SUB,
    F_RSUB,
    F_MUL,
    F_DIV,
    F_EQ,
    F_NE,
    F_LT,
    F_LE,
    F_GT,
    F_GE,
    F_NEG,
    F_EXP,
    F_LOG,
    F_RELU,
    F_SIGMOID,
    F_TANH,
    F_NOT,
    F_COPY,
    F_FILL,
    F_MASKED_FILL,
    F_WHERE,
    F_ADDCMUL,
    F_ADDCDIV,
    F_SQRT,
    F_MAXIMUM,
};
/* where an element-wise plan's operands are: t[0] (self, or src / mask's target), then
 * t[1] another tensor (OTHER_T) and the result last; s[0] a scalar operand, s[1] alpha */
enum { OTHER_T = 1, OTHER_S = 2, ALPHA = 4, THIRD_T = 8 /* t[2]: where's condition, tensor2 */ };

static bool is_compare(int f) {
    return f >= F_EQ && f <= F_GE;
}

/* The floating functions, once for double and once for float (the C library's f-suffixed
 * functions). Add and sub with alpha are one fused multiply-add, as PyTorch's vectorized CPU
 * kernels compute them; relu lets NaN through, as clamp_min does. */
#define FLOAT_FUNCTIONS(name, T, sfx)                                                              \
    static T name(int f, T a, T b, T c, T k) {                                                     \
        switch (f) {                                                                               \
        case F_ADD:                                                                                \
            return fma##sfx(b, k, a);                                                              \
        case F_SUB:                                                                                \
            return fma##sfx(b, -k, a);                                                             \
        case F_RSUB:                                                                               \
            return fma##sfx(a, -k, b);                                                             \
        case F_MUL:                                                                                \
            return a * b;                                                                          \
        case F_DIV:                                                                                \
            return a / b;                                                                          \
        case F_EQ:                                                                                 \
            return a == b;                                                                         \
        case F_NE:                                                                                 \
            return a != b;                                                                         \
        case F_LT:                                                                                 \
            return a < b;                                                                          \
        case F_LE:                                                                                 \
            return a <= b;                                                                         \
        case F_GT:                                                                                 \
            return a > b;                                                                          \
        case F_GE:                                                                                 \
            return a >= b;                                                                         \
        case F_NOT:                                                                                \
            return a == 0;                                                                         \
        case F_NEG:                                                                                \
            return -a;                                                                             \
        case F_EXP:                                                                                \
            return exp##sfx(a);                                                                    \
        case F_LOG:                                                                                \
            return log##sfx(a);                                                                    \
        case F_RELU:                                                                               \
            return a > 0 || a != a ? a : 0;                                                        \
        case F_SIGMOID:                                                                            \
            return 1 / (1 + exp##sfx(-a));                                                         \
        case F_TANH:                                                                               \
            return tanh##sfx(a);                                                                   \
        case F_SQRT:                                                                               \
            return sqrt##sfx(a);                                                                   \
        case F_ADDCMUL:                                                                            \
            return a + k * b * c;                                                                  \
        case F_ADDCDIV:                                                                            \
            return a + k * b / c;                                                                  \
        case F_MAXIMUM: /* NaN propagates */                                                       \
            return a != a ? a : b != b ? b : a > b ? a : b;                                        \
        default:                                                                                   \
            return a; /* copies and fills */                                                       \
        }                                                                                          \
    }
// clang-format off
FLOAT_FUNCTIONS(fn_double, double, )
FLOAT_FUNCTIONS(fn_float, float, f)
// clang-format on

static int64_t fn_int(int f, int64_t a, int64_t b, int64_t c, int64_t k) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b, uk = (uint64_t)k; /* integers wrap */
    switch (f) {
    case F_ADD:
        return (int64_t)(ua + uk * ub);
    case F_SUB:
        return (int64_t)(ua - uk * ub);
    case F_RSUB:
        return (int64_t)(ub - uk * ua);
    case F_MUL:
        return (int64_t)(ua * ub);
    case F_ADDCMUL:
        return (int64_t)(ua + uk * ub * (uint64_t)c);
    case F_MAXIMUM:
        return a > b ? a : b;
    case F_NEG:
        return (int64_t)(0 - ua);
    case F_RELU:
        return a > 0 ? a : 0;
    case F_EQ:
        return a == b;
    case F_NE:
        return a != b;
    case F_LT:
        return a < b;
    case F_LE:
        return a <= b;
    case F_GT:
        return a > b;
    case F_GE:
        return a >= b;
    case F_NOT:
        return a == 0;
    default:
        return a; /* copies and fills */
    }
}

static compute_class max_class(compute_class a, compute_class b) {
    return a > b ? a : b;
}

/* the type an element-wise plan computes in: the result's opmath type; for comparisons and
 * logical_not, the inputs' (a floating scalar makes integers compare as floats) */
static compute_class plan_class(const aclOpExecutor *e) {
    const aclTensor *self = &e->t[0], *out = &e->t[e->ntensors - 1];
    int f = (int)e->mode;
    if (is_compare(f)) {
        compute_class c = class_of(self->dtype);
        if (e->flags & OTHER_T) c = max_class(c, class_of(e->t[1].dtype));
        if ((e->flags & OTHER_S) && c == CLS_INT && dtype_is_float(e->s[0].dtype)) c = CLS_FLOAT;
        return c;
    }
    if (f == F_NOT) return class_of(self->dtype);
    if (f == F_COPY || f == F_WHERE) { /* exact between integers, else one rounding at the store */
        bool ints = class_of(self->dtype) == CLS_INT && class_of(out->dtype) == CLS_INT;
        if (f == F_WHERE) ints = ints && class_of(e->t[1].dtype) == CLS_INT;
        return ints ? CLS_INT : CLS_DOUBLE;
    }
    return class_of(out->dtype);
}

static int k_elementwise(aclOpExecutor *e) {
    const aclTensor *a = &e->t[0], *out = &e->t[e->ntensors - 1];
    const aclTensor *b = (e->flags & OTHER_T) ? &e->t[1] : NULL;
    const aclTensor *c = (e->flags & THIRD_T) ? &e->t[2] : NULL;
    int f = (int)e->mode, nd = out->ndim;
    compute_class cls = plan_class(e);
    const aclScalar *sb = (e->flags & OTHER_S) ? &e->s[0] : NULL,
                    *sk = (e->flags & ALPHA) ? &e->s[1] : NULL;
    double bd = sb ? scalar_f(sb) : 0, kd = sk ? scalar_f(sk) : 1;
    int64_t bi = sb ? scalar_i(sb) : 0, ki = sk ? scalar_i(sk) : 1;
    int64_t n = tensor_numel(out), idx[STANDIN_MAX_DIM];
    for (int64_t j = 0; j < n; j++) {
        unravel(j, nd, out->sizes, idx);
        int64_t oo = offset_at(out, nd, idx);
        if (f == F_FILL) {
            if (cls == CLS_INT)
                store_i(out, oo, bi);
            else
                store_f(out, oo, bd);
            continue;
        }
        int64_t ao = offset_at(a, nd, idx), bo = b ? offset_at(b, nd, idx) : 0;
        int64_t co = c ? offset_at(c, nd, idx) : 0;
        if (f == F_WHERE) { /* t[2] the condition picks self or other */
            const aclTensor *pick = load_i(c, co) ? a : b;
            int64_t po = pick == a ? ao : bo;
            if (cls == CLS_INT)
                store_i(out, oo, load_i(pick, po));
            else
                store_f(out, oo, load_f(pick, po));
            continue;
        }
        if (f == F_MASKED_FILL) { /* t[0] the target, t[1] the mask */
            if (load_i(b, bo)) {
                if (cls == CLS_INT)
                    store_i(out, oo, bi);
                else
                    store_f(out, oo, bd);
            }
            continue;
        }
        switch (cls) {
        case CLS_INT:
            store_i(out, oo,
                    fn_int(f, load_i(a, ao), b ? load_i(b, bo) : bi, c ? load_i(c, co) : 0, ki));
            break;
        case CLS_FLOAT:
            store_f(out, oo,
                    fn_float(f, (float)load_f(a, ao), (float)(b ? load_f(b, bo) : bd),
                             (float)(c ? load_f(c, co) : 0), (float)kd));
            break;
        default:
            store_f(out, oo,
                    fn_double(f, load_f(a, ao), b ? load_f(b, bo) : bd, c ? load_f(c, co) : 0, kd));
            break;
        }
    }
    return 0;
}

/* An element-wise plan's operands: self (and other, condition or a scalar) broadcast to out,
 * which is self for the in-place forms; `flags` says which are taken (a NULL one among them is
 * the caller's error) */
typedef struct {
    const aclTensor *self, *other, *third, *out; /* third: where's condition, tensor2 */
    const aclScalar *scalar, *alpha;
} ew_args;

static aclnnStatus plan_ew(const char *name, int f, int flags, ew_args x, uint64_t *ws,
                           aclOpExecutor **ex) {
    aclnnStatus st;
    aclOpExecutor *e = ex_new(name, k_elementwise, &st);
    if (!e) return st;
    e->mode = f;
    e->flags = flags;
    st = ex_tensor(e, x.self, "self");
    if (!st && (flags & OTHER_T)) st = ex_tensor(e, x.other, "other");
    if (!st && (flags & THIRD_T)) st = ex_tensor(e, x.third, "tensor2");
    if (!st) st = ex_tensor(e, x.out, "out");
    if (!st && (flags & OTHER_S)) st = ex_scalar(e, x.scalar, "other");
    if (!st && (flags & ALPHA)) {
        if (!x.alpha)
            st = ex_scalar(e, NULL, "alpha");
        else
            e->s[1] = *x.alpha;
    }
    if (!st) {
        const aclTensor *o = &e->t[e->ntensors - 1];
        char s1[96], s2[96];
        for (int i = 0; i < e->ntensors - 1 && !st; i++)
            if (!broadcasts_to(&e->t[i], o))
                st = ex_invalid(e, "the shape %s of an input does not broadcast to the output's %s",
                                shape_str(&e->t[i], s1, sizeof s1), shape_str(o, s2, sizeof s2));
    }
    return ex_done(e, st, ws, ex);
}

#define BINARY(Name, F)                                                                            \
    aclnnStatus aclnn##Name##GetWorkspaceSize(const aclTensor *self, const aclTensor *other,       \
                                              aclTensor *out, uint64_t *ws, aclOpExecutor **ex) {  \
        return plan_ew("aclnn" #Name, F, OTHER_T,                                                  \
                       (ew_args){.self = self, .other = other, .out = out}, ws, ex);               \
    }
#define BINARY_SCALAR(Name, F)                                                                     \
    aclnnStatus aclnn##Name##GetWorkspaceSize(const aclTensor *self, const aclScalar *other,       \
                                              aclTensor *out, uint64_t *ws, aclOpExecutor **ex) {  \
        return plan_ew("aclnn" #Name, F, OTHER_S,                                                  \
                       (ew_args){.self = self, .scalar = other, .out = out}, ws, ex);              \
    }
#define UNARY(Name, F)                                                                             \
    aclnnStatus aclnn##Name##GetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *ws, \
                                              aclOpExecutor **ex) {                                \
        return plan_ew("aclnn" #Name, F, 0, (ew_args){.self = self, .out = out}, ws, ex);          \
    }                                                                                              \
    aclnnStatus aclnnInplace##Name##GetWorkspaceSize(aclTensor *selfRef, uint64_t *ws,             \
                                                     aclOpExecutor **ex) {                         \
        return plan_ew("aclnnInplace" #Name, F, 0, (ew_args){.self = selfRef, .out = selfRef}, ws, \
                       ex);                                                                        \
    }

/* Name: self op alpha * other (out = self + alpha other for Add, self - alpha other for Sub,
 * other - alpha self for Rsub); Names: the same with a scalar other */
#define WITH_ALPHA(Name, F)                                                                        \
    aclnnStatus aclnn##Name##GetWorkspaceSize(const aclTensor *self, const aclTensor *other,       \
                                              const aclScalar *alpha, aclTensor *out,              \
                                              uint64_t *ws, aclOpExecutor **ex) {                  \
        ew_args x = {.self = self, .other = other, .alpha = alpha, .out = out};                    \
        return plan_ew("aclnn" #Name, F, OTHER_T | ALPHA, x, ws, ex);                              \
    }                                                                                              \
    aclnnStatus aclnn##Name##sGetWorkspaceSize(const aclTensor *self, const aclScalar *other,      \
                                               const aclScalar *alpha, aclTensor *out,             \
                                               uint64_t *ws, aclOpExecutor **ex) {                 \
        ew_args x = {.self = self, .scalar = other, .alpha = alpha, .out = out};                   \
        return plan_ew("aclnn" #Name "s", F, OTHER_S | ALPHA, x, ws, ex);                          \
    }
/* their in-place forms (CANN declares InplaceAdd's selfRef const, InplaceSub's not) */
#define INPLACE_WITH_ALPHA(Name, F, qualifier)                                                     \
    aclnnStatus aclnnInplace##Name##GetWorkspaceSize(                                              \
        qualifier aclTensor *selfRef, const aclTensor *other, const aclScalar *alpha,              \
        uint64_t *ws, aclOpExecutor **ex) {                                                        \
        ew_args x = {.self = selfRef, .other = other, .alpha = alpha, .out = selfRef};             \
        return plan_ew("aclnnInplace" #Name, F, OTHER_T | ALPHA, x, ws, ex);                       \
    }                                                                                              \
    aclnnStatus aclnnInplace##Name##sGetWorkspaceSize(                                             \
        qualifier aclTensor *selfRef, const aclScalar *other, const aclScalar *alpha,              \
        uint64_t *ws, aclOpExecutor **ex) {                                                        \
        ew_args x = {.self = selfRef, .scalar = other, .alpha = alpha, .out = selfRef};            \
        return plan_ew("aclnnInplace" #Name "s", F, OTHER_S | ALPHA, x, ws, ex);                   \
    }
/* InplaceName (a tensor other) and InplaceNames (a scalar other) */
#define INPLACE(Name, F)                                                                           \
    aclnnStatus aclnnInplace##Name##GetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,   \
                                                     uint64_t *ws, aclOpExecutor **ex) {           \
        ew_args x = {.self = selfRef, .other = other, .out = selfRef};                             \
        return plan_ew("aclnnInplace" #Name, F, OTHER_T, x, ws, ex);                               \
    }                                                                                              \
    aclnnStatus aclnnInplace##Name##sGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,  \
                                                      uint64_t *ws, aclOpExecutor **ex) {          \
        ew_args x = {.self = selfRef, .scalar = other, .out = selfRef};                            \
        return plan_ew("aclnnInplace" #Name "s", F, OTHER_S, x, ws, ex);                           \
    }

WITH_ALPHA(Add, F_ADD)
WITH_ALPHA(Sub, F_SUB)
WITH_ALPHA(Rsub, F_RSUB)
INPLACE_WITH_ALPHA(Add, F_ADD, const)
INPLACE_WITH_ALPHA(Sub, F_SUB, )
INPLACE(Mul, F_MUL)
INPLACE(Div, F_DIV)
BINARY(Mul, F_MUL)
BINARY_SCALAR(Muls, F_MUL)
BINARY(Div, F_DIV)
BINARY_SCALAR(Divs, F_DIV)
BINARY(EqTensor, F_EQ)
BINARY(NeTensor, F_NE)
BINARY(LtTensor, F_LT)
BINARY(LeTensor, F_LE)
BINARY(GtTensor, F_GT)
BINARY(GeTensor, F_GE)
BINARY_SCALAR(EqScalar, F_EQ)
BINARY_SCALAR(NeScalar, F_NE)
BINARY_SCALAR(LtScalar, F_LT)
BINARY_SCALAR(LeScalar, F_LE)
BINARY_SCALAR(GtScalar, F_GT)
BINARY_SCALAR(GeScalar, F_GE)
UNARY(Neg, F_NEG)
UNARY(Exp, F_EXP)
UNARY(Log, F_LOG)
UNARY(Relu, F_RELU)
UNARY(Sigmoid, F_SIGMOID)
UNARY(Tanh, F_TANH)
UNARY(LogicalNot, F_NOT)
UNARY(Sqrt, F_SQRT)
BINARY(Maximum, F_MAXIMUM)

/* Addcmul: self + value * tensor1 * tensor2; Addcdiv: self + value * tensor1 / tensor2 */
#define ADDC(Name, F)                                                                              \
    aclnnStatus aclnn##Name##GetWorkspaceSize(const aclTensor *self, const aclTensor *tensor1,     \
                                              const aclTensor *tensor2, const aclScalar *value,    \
                                              aclTensor *out, uint64_t *ws, aclOpExecutor **ex) {  \
        ew_args x = {                                                                              \
            .self = self, .other = tensor1, .third = tensor2, .alpha = value, .out = out};         \
        return plan_ew("aclnn" #Name, F, OTHER_T | THIRD_T | ALPHA, x, ws, ex);                    \
    }                                                                                              \
    aclnnStatus aclnnInplace##Name##GetWorkspaceSize(                                              \
        aclTensor *selfRef, const aclTensor *tensor1, const aclTensor *tensor2,                    \
        const aclScalar *value, uint64_t *ws, aclOpExecutor **ex) {                                \
        ew_args x = {                                                                              \
            .self = selfRef, .other = tensor1, .third = tensor2, .alpha = value, .out = selfRef};  \
        return plan_ew("aclnnInplace" #Name, F, OTHER_T | THIRD_T | ALPHA, x, ws, ex);             \
    }
ADDC(Addcmul, F_ADDCMUL)
ADDC(Addcdiv, F_ADDCDIV)

/* SWhere: condition ? self : other (all three broadcast to out) */
aclnnStatus aclnnSWhereGetWorkspaceSize(const aclTensor *condition, const aclTensor *self,
                                        const aclTensor *other, aclTensor *out, uint64_t *ws,
                                        aclOpExecutor **ex) {
    if (condition && condition->dtype != ACL_BOOL && condition->dtype != ACL_UINT8) {
        standin_set_error(
            "EZ1001: [stand-in] aclnnSWhereGetWorkspaceSize: condition must be BOOL or UINT8");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return plan_ew("aclnnSWhere", F_WHERE, OTHER_T | THIRD_T,
                   (ew_args){.self = self, .other = other, .third = condition, .out = out}, ws, ex);
}

aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, aclDataType dtype, aclTensor *out,
                                      uint64_t *ws, aclOpExecutor **ex) {
    if (out && out->dtype != dtype) {
        standin_set_error("EZ1001: [stand-in] aclnnCastGetWorkspaceSize: out's dtype %d is not the "
                          "dtype %d asked for",
                          (int)out->dtype, (int)dtype);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (self && out && !same_shape(self, out)) {
        standin_set_error(
            "EZ1001: [stand-in] aclnnCastGetWorkspaceSize: self and out differ in shape");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return plan_ew("aclnnCast", F_COPY, 0, (ew_args){.self = self, .out = out}, ws, ex);
}
aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src, uint64_t *ws,
                                             aclOpExecutor **ex) {
    return plan_ew("aclnnInplaceCopy", F_COPY, 0, (ew_args){.self = src, .out = selfRef}, ws, ex);
}
aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclScalar *value,
                                                   uint64_t *ws, aclOpExecutor **ex) {
    return plan_ew("aclnnInplaceFillScalar", F_FILL, OTHER_S,
                   (ew_args){.self = selfRef, .scalar = value, .out = selfRef}, ws, ex);
}
aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef, uint64_t *ws, aclOpExecutor **ex) {
    int64_t zero = 0;
    aclScalar z = {.dtype = ACL_INT64};
    memcpy(z.bytes, &zero, sizeof zero);
    return plan_ew("aclnnInplaceZero", F_FILL, OTHER_S,
                   (ew_args){.self = selfRef, .scalar = &z, .out = selfRef}, ws, ex);
}
aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclTensor *mask,
                                                         const aclScalar *value, uint64_t *ws,
                                                         aclOpExecutor **ex) {
    if (mask && mask->dtype != ACL_BOOL) {
        standin_set_error(
            "EZ1001: [stand-in] aclnnInplaceMaskedFillScalarGetWorkspaceSize: mask must be BOOL");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return plan_ew("aclnnInplaceMaskedFillScalar", F_MASKED_FILL, OTHER_T | OTHER_S,
                   (ew_args){.self = selfRef, .other = mask, .scalar = value, .out = selfRef}, ws,
                   ex);
}

/* Arange: out[i] = start + i * step (computed in double, as PyTorch's CPU kernel) */
static int k_arange(aclOpExecutor *e) {
    const aclTensor *out = &e->t[0];
    double start = scalar_f(&e->s[0]), step = scalar_f(&e->s[1]);
    bool ints = class_of(out->dtype) == CLS_INT;
    int64_t istart = scalar_i(&e->s[0]), istep = scalar_i(&e->s[1]);
    for (int64_t i = 0; i < tensor_numel(out); i++) {
        if (ints)
            store_i(out, out->offset + i * out->strides[0], istart + i * istep);
        else
            store_f(out, out->offset + i * out->strides[0], start + (double)i * step);
    }
    return 0;
}

aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end,
                                        const aclScalar *step, aclTensor *out, uint64_t *ws,
                                        aclOpExecutor **ex) {
    aclnnStatus st;
    aclOpExecutor *e = ex_new("aclnnArange", k_arange, &st);
    if (!e) return st;
    st = ex_tensor(e, out, "out");
    if (!st) st = ex_scalar(e, start, "start");
    if (!st) st = ex_scalar(e, step, "step");
    if (!st && !end) st = ex_scalar(e, NULL, "end");
    if (!st && out->ndim != 1) st = ex_invalid(e, "out must be 1-D");
    if (!st && scalar_f(step) == 0) st = ex_invalid(e, "step must be nonzero");
    return ex_done(e, st, ws, ex);
}

/* ---- reductions ------------------------------------------------------------------------------ */
/* ReduceSum and Mean: t[0] self, t[1] out; dims in e->dims (all when empty); the workspace
 * holds one double (or int64) accumulator per result element */
static int k_reduce(aclOpExecutor *e) {
    const aclTensor *self = &e->t[0], *out = &e->t[1];
    bool reduced[STANDIN_MAX_DIM] = {false};
    int64_t count = 1;
    for (int i = 0; i < self->ndim; i++) reduced[i] = e->dims.n == 0;
    for (int i = 0; i < e->dims.n; i++) reduced[e->dims.v[i]] = true;
    for (int i = 0; i < self->ndim; i++)
        if (reduced[i]) count *= self->sizes[i];
    int64_t nout = tensor_numel(out), n = tensor_numel(self), idx[STANDIN_MAX_DIM];
    bool ints = class_of(e->dtype) == CLS_INT && !e->mode;
    double *accf = e->workspace;
    int64_t *acci = e->workspace;
    memset(e->workspace, 0, (size_t)nout * 8);
    for (int64_t j = 0; j < n; j++) {
        unravel(j, self->ndim, self->sizes, idx);
        int64_t at = 0;
        for (int i = 0; i < self->ndim; i++)
            if (!reduced[i]) at = at * self->sizes[i] + idx[i];
        int64_t off = offset_at(self, self->ndim, idx);
        if (ints)
            acci[at] = (int64_t)((uint64_t)acci[at] + (uint64_t)load_i(self, off));
        else
            accf[at] += load_f(self, off);
    }
    for (int64_t j = 0; j < nout; j++) {
        unravel(j, out->ndim, out->sizes, idx);
        int64_t off = offset_at(out, out->ndim, idx);
        if (ints)
            store_i(out, off, acci[j]);
        else
            store_f(out, off, e->mode ? accf[j] / (double)count : accf[j]); /* mean: 0/0 is NaN */
    }
    return 0;
}

static aclnnStatus plan_reduce(const char *name, bool mean, const aclTensor *self,
                               const aclIntArray *dims, bool keep, aclDataType dtype,
                               aclTensor *out, uint64_t *ws, aclOpExecutor **ex) {
    aclnnStatus st;
    aclOpExecutor *e = ex_new(name, k_reduce, &st);
    if (!e) return st;
    e->mode = mean;
    e->keep = keep;
    e->dtype = dtype;
    st = ex_tensor(e, self, "self");
    if (!st) st = ex_tensor(e, out, "out");
    if (!st && !dims) st = ex_tensor(e, NULL, "dims");
    if (!st && out->dtype != dtype)
        st = ex_invalid(e, "out's dtype differs from the dtype asked for");
    if (!st && mean && !dtype_is_float(dtype)) st = ex_invalid(e, "mean needs a floating dtype");
    bool reduced[STANDIN_MAX_DIM] = {false};
    for (int i = 0; !st && i < dims->n; i++) {
        int64_t d = dims->v[i], nd = self->ndim ? self->ndim : 1;
        if (d < -nd || d >= nd)
            st = ex_invalid(e, "dim %lld is out of range", (long long)d);
        else {
            if (d < 0) d += nd;
            if (self->ndim == 0) continue;
            if (reduced[d]) st = ex_invalid(e, "dim %lld appears twice", (long long)d);
            reduced[d] = true;
            e->dims.v[e->dims.n++] = d;
        }
    }
    if (!st && self->ndim == 0) e->dims.n = 0;
    if (!st) { /* the result's shape */
        aclTensor want = {.ndim = 0};
        for (int i = 0; i < self->ndim; i++) {
            bool r = dims->n == 0 || reduced[i];
            if (!r)
                want.sizes[want.ndim++] = self->sizes[i];
            else if (keep)
                want.sizes[want.ndim++] = 1;
        }
        char s1[96], s2[96];
        if (!same_shape(&want, out))
            st = ex_invalid(e, "out has shape %s, the reduction gives %s",
                            shape_str(out, s1, sizeof s1), shape_str(&want, s2, sizeof s2));
        int64_t nout = tensor_numel(out);
        e->workspace_size = (uint64_t)(nout > 0 ? nout : 1) * 8;
    }
    return ex_done(e, st, ws, ex);
}

aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims,
                                           bool keepDims, aclDataType dtype, aclTensor *out,
                                           uint64_t *ws, aclOpExecutor **ex) {
    return plan_reduce("aclnnReduceSum", false, self, dims, keepDims, dtype, out, ws, ex);
}
aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                      aclDataType dtype, aclTensor *out, uint64_t *ws,
                                      aclOpExecutor **ex) {
    return plan_reduce("aclnnMean", true, self, dim, keepDim, dtype, out, ws, ex);
}

/* ---- softmax --------------------------------------------------------------------------------- */
static int k_softmax(aclOpExecutor *e) {
    const aclTensor *self = &e->t[0], *out = &e->t[1];
    int nd = self->ndim, d = (int)e->dim;
    int64_t len = nd ? self->sizes[d] : 1, rows = len ? tensor_numel(self) / len : 0;
    int64_t shape[STANDIN_MAX_DIM], idx[STANDIN_MAX_DIM];
    memcpy(shape, self->sizes, sizeof shape);
    if (nd) shape[d] = 1;
    for (int64_t r = 0; r < rows; r++) {
        unravel(r, nd, shape, idx);
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < len; j++) {
            if (nd) idx[d] = j;
            double v = load_f(self, offset_at(self, nd, idx));
            if (v > mx || v != v) mx = v;
        }
        for (int64_t j = 0; j < len; j++) {
            if (nd) idx[d] = j;
            sum += exp(load_f(self, offset_at(self, nd, idx)) - mx);
        }
        for (int64_t j = 0; j < len; j++) {
            if (nd) idx[d] = j;
            double x = load_f(self, offset_at(self, nd, idx)) - mx;
            store_f(out, offset_at(out, nd, idx), e->mode ? x - log(sum) : exp(x) / sum);
        }
    }
    return 0;
}

static aclnnStatus plan_softmax(const char *name, bool logarithm, const aclTensor *self,
                                int64_t dim, aclTensor *out, uint64_t *ws, aclOpExecutor **ex) {
    aclnnStatus st;
    aclOpExecutor *e = ex_new(name, k_softmax, &st);
    if (!e) return st;
    e->mode = logarithm;
    st = ex_tensor(e, self, "self");
    if (!st) st = ex_tensor(e, out, "out");
    if (!st && (!dtype_is_float(self->dtype) || !dtype_is_float(out->dtype)))
        st = ex_invalid(e, "self and out must be FLOAT16, BFLOAT16, FLOAT or DOUBLE");
    if (!st && !same_shape(self, out)) st = ex_invalid(e, "self and out differ in shape");
    int64_t nd = self && self->ndim ? self->ndim : 1;
    if (!st && (dim < -nd || dim >= nd))
        st = ex_invalid(e, "dim %lld is out of range", (long long)dim);
    e->dim = dim < 0 ? dim + nd : dim;
    return ex_done(e, st, ws, ex);
}

aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
                                         uint64_t *ws, aclOpExecutor **ex) {
    return plan_softmax("aclnnSoftmax", false, self, dim, out, ws, ex);
}
aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
                                            uint64_t *ws, aclOpExecutor **ex) {
    return plan_softmax("aclnnLogSoftmax", true, self, dim, out, ws, ex);
}

/* ---- matrix products ------------------------------------------------------------------------- */
/* a matrix operand seen as [batch, rows, cols] element strides (0 where broadcast or absent) */
typedef struct {
    int64_t batch, rows, cols; /* sizes */
    int64_t bs, rs, cs;        /* strides */
} mat_view;

/* role 'a': a vector is a row [1, k]; role 'b' or 'o' (a result of a vector product): a column */
static mat_view view_of(const aclTensor *t, char role) {
    mat_view v = {1, 1, 1, 0, 0, 0};
    const int64_t *s = t->sizes, *st = t->strides;
    switch (t->ndim) {
    case 0:
        break;
    case 1:
        if (role == 'a')
            v.cols = s[0], v.cs = st[0];
        else
            v.rows = s[0], v.rs = st[0];
        break;
    case 2:
        v.rows = s[0], v.rs = st[0], v.cols = s[1], v.cs = st[1];
        break;
    default:
        v.batch = s[0], v.bs = st[0], v.rows = s[1], v.rs = st[1], v.cols = s[2], v.cs = st[2];
        break;
    }
    if (v.batch == 1) v.bs = 0;
    return v;
}

/* t[0..] = [bias,] a, b, out; s[0] beta, s[1] alpha (addmm) */
static int k_matmul(aclOpExecutor *e) {
    bool addmm = e->ntensors == 4;
    const aclTensor *bias = addmm ? &e->t[0] : NULL, *a = &e->t[addmm], *b = &e->t[addmm + 1],
                    *out = &e->t[addmm + 2];
    mat_view A = view_of(a, 'a'), B = view_of(b, 'b'),
             O = view_of(out, a->ndim == 1 && b->ndim != 1 ? 'a' : 'o');
    if (a->ndim == 1 && b->ndim == 2)
        O = (mat_view){1, 1, out->sizes[0], 0, 0, out->strides[0]}; /* [k] @ [k, m] */
    double beta = addmm ? scalar_f(&e->s[0]) : 0, alpha = addmm ? scalar_f(&e->s[1]) : 1;
    int64_t batch = O.batch, n = A.rows, k = A.cols, m = B.cols;
    for (int64_t p = 0; p < batch; p++)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < m; j++) {
                double acc = 0;
                for (int64_t q = 0; q < k; q++)
                    acc += load_f(a, a->offset + p * A.bs + i * A.rs + q * A.cs) *
                           load_f(b, b->offset + p * B.bs + q * B.rs + j * B.cs);
                double v = alpha * acc;
                if (bias && beta != 0) { /* beta 0 ignores self, NaN included (PyTorch's rule) */
                    int64_t idx[2] = {i, j};
                    v += beta * load_f(bias, offset_at(bias, 2, idx));
                }
                store_f(out, out->offset + p * O.bs + i * O.rs + j * O.cs, v);
            }
    return 0;
}

static aclnnStatus plan_matmul(const char *name, int min_nd, int max_nd, const aclTensor *bias,
                               const aclTensor *a, const aclTensor *b, const aclScalar *beta,
                               const aclScalar *alpha, aclTensor *out, uint64_t *ws,
                               aclOpExecutor **ex) {
    aclnnStatus st;
    aclOpExecutor *e = ex_new(name, k_matmul, &st);
    if (!e) return st;
    if (bias) {
        st = ex_tensor(e, bias, "self");
        if (!st) st = ex_scalar(e, beta, "beta");
        if (!st) st = ex_scalar(e, alpha, "alpha");
    }
    if (!st) st = ex_tensor(e, a, bias ? "mat1" : "self");
    if (!st) st = ex_tensor(e, b, bias ? "mat2" : "mat2");
    if (!st) st = ex_tensor(e, out, "out");
    for (int i = 0; !st && i < e->ntensors; i++)
        if (!dtype_is_float(e->t[i].dtype))
            st = ex_invalid(e, "only FLOAT16, BFLOAT16, FLOAT and DOUBLE are supported");
    if (!st && (a->ndim < min_nd || a->ndim > max_nd || b->ndim < min_nd || b->ndim > max_nd))
        st = ex_invalid(e, "operands of %d to %d dims expected, got %d and %d", min_nd, max_nd,
                        a->ndim, b->ndim);
    if (!st) {
        mat_view A = view_of(a, 'a'), B = view_of(b, 'b');
        int64_t batch = A.batch > B.batch ? A.batch : B.batch;
        /* the result's shape from the operands' */
        aclTensor want = {.ndim = 0};
        if (a->ndim == 3) want.sizes[want.ndim++] = batch;
        if (a->ndim >= 2) want.sizes[want.ndim++] = A.rows;
        if (b->ndim >= 2) want.sizes[want.ndim++] = B.cols;
        char s1[96], s2[96], s3[96];
        if (A.cols != B.rows || (A.batch != B.batch && A.batch != 1 && B.batch != 1))
            st = ex_invalid(e, "shapes %s and %s cannot be multiplied", shape_str(a, s1, sizeof s1),
                            shape_str(b, s2, sizeof s2));
        else if (!same_shape(&want, out))
            st = ex_invalid(e, "out has shape %s, the product gives %s",
                            shape_str(out, s3, sizeof s3), shape_str(&want, s2, sizeof s2));
        else if (bias && !broadcasts_to(bias, out))
            st = ex_invalid(e, "self %s does not broadcast to %s", shape_str(bias, s1, sizeof s1),
                            shape_str(out, s2, sizeof s2));
    }
    return ex_done(e, st, ws, ex);
}

aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                    int8_t cubeMathType, uint64_t *ws, aclOpExecutor **ex) {
    (void)cubeMathType;
    return plan_matmul("aclnnMm", 2, 2, NULL, self, mat2, NULL, NULL, out, ws, ex);
}
aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                             aclTensor *out, int8_t cubeMathType, uint64_t *ws,
                                             aclOpExecutor **ex) {
    (void)cubeMathType;
    return plan_matmul("aclnnBatchMatMul", 3, 3, NULL, self, mat2, NULL, NULL, out, ws, ex);
}
/* the stand-in's Matmul covers the 1-D and 2-D cases (dot, mv, vm, mm) */
aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                        aclTensor *out, int8_t cubeMathType, uint64_t *ws,
                                        aclOpExecutor **ex) {
    (void)cubeMathType;
    return plan_matmul("aclnnMatmul", 1, 2, NULL, self, mat2, NULL, NULL, out, ws, ex);
}
aclnnStatus aclnnAddmmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat1,
                                       const aclTensor *mat2, const aclScalar *beta,
                                       const aclScalar *alpha, aclTensor *out, int8_t cubeMathType,
                                       uint64_t *ws, aclOpExecutor **ex) {
    (void)cubeMathType;
    if (!self) {
        standin_set_error("EZ1001: [stand-in] aclnnAddmmGetWorkspaceSize: self is a null pointer");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    return plan_matmul("aclnnAddmm", 2, 2, self, mat1, mat2, beta, alpha, out, ws, ex);
}

/* ---- gather and scatter ---------------------------------------------------------------------- */
/* t[0] self (the source), t[1] index, t[2] out */
static int k_gather(aclOpExecutor *e) {
    const aclTensor *self = &e->t[0], *index = &e->t[1], *out = &e->t[2];
    int nd = index->ndim, d = (int)e->dim;
    int64_t size = self->ndim ? self->sizes[d] : 1, n = tensor_numel(index), idx[STANDIN_MAX_DIM];
    size_t isz = standin_dtype_size(self->dtype);
    for (int64_t j = 0; j < n; j++) {
        unravel(j, nd, index->sizes, idx);
        int64_t v = load_i(index, offset_at(index, nd, idx));
        if (v < -size || v >= size)
            return ex_fail(e, "index %lld is out of bounds for dimension %d with size %lld",
                           (long long)v, d, (long long)size);
        int64_t o = offset_at(out, nd, idx);
        if (nd) idx[d] = v < 0 ? v + size : v;
        memcpy((char *)out->data + o * (int64_t)isz,
               (char *)self->data + offset_at(self, nd, idx) * (int64_t)isz, isz);
    }
    return 0;
}

/* t[0] the target, t[1] index, t[2] src; mode: the reduction */
static int k_scatter(aclOpExecutor *e) {
    const aclTensor *self = &e->t[0], *index = &e->t[1], *src = &e->t[2];
    int nd = index->ndim, d = (int)e->dim;
    int64_t size = self->ndim ? self->sizes[d] : 1, n = tensor_numel(index), idx[STANDIN_MAX_DIM];
    compute_class cls = class_of(self->dtype);
    for (int64_t j = 0; j < n; j++) {
        unravel(j, nd, index->sizes, idx);
        int64_t v = load_i(index, offset_at(index, nd, idx)), so = offset_at(src, nd, idx);
        if (v < -size || v >= size)
            return ex_fail(e, "index %lld is out of bounds for dimension %d with size %lld",
                           (long long)v, d, (long long)size);
        if (nd) idx[d] = v < 0 ? v + size : v;
        int64_t o = offset_at(self, nd, idx);
        int f = e->mode == ACLNN_SCATTER_ADD   ? F_ADD
                : e->mode == ACLNN_SCATTER_MUL ? F_MUL
                                               : F_COPY;
        if (cls == CLS_INT)
            store_i(self, o,
                    f == F_COPY ? load_i(src, so)
                                : fn_int(f, load_i(self, o), load_i(src, so), 0, 1));
        else
            store_f(self, o,
                    f == F_COPY ? load_f(src, so)
                                : fn_double(f, load_f(self, o), load_f(src, so), 0, 1));
    }
    return 0;
}

/* ScatterAdd: out = self, then the scatter into out (t[3]) */
static int k_scatter_out(aclOpExecutor *e) {
    const aclTensor *self = &e->t[0], *out = &e->t[3];
    int64_t n = tensor_numel(out), idx[STANDIN_MAX_DIM];
    for (int64_t j = 0; j < n; j++) {
        unravel(j, out->ndim, out->sizes, idx);
        int64_t so = offset_at(self, out->ndim, idx), oo = offset_at(out, out->ndim, idx);
        if (class_of(out->dtype) == CLS_INT)
            store_i(out, oo, load_i(self, so));
        else
            store_f(out, oo, load_f(self, so));
    }
    e->t[0] = *out;
    return k_scatter(e);
}

/* the checks gather and scatter share: index INT32/INT64 with self's number of dims, no larger
 * than `bound` outside dim */
static aclnnStatus check_index(aclOpExecutor *e, const aclTensor *self, const aclTensor *index,
                               const aclTensor *bound, int64_t dim) {
    int64_t nd = self->ndim ? self->ndim : 1;
    if (index->dtype != ACL_INT64 && index->dtype != ACL_INT32)
        return ex_invalid(e, "index must be INT32 or INT64");
    if (dim < -nd || dim >= nd) return ex_invalid(e, "dim %lld is out of range", (long long)dim);
    e->dim = dim < 0 ? dim + nd : dim;
    if ((self->ndim ? self->ndim : 1) != (index->ndim ? index->ndim : 1))
        return ex_invalid(e, "index and self must have the same number of dimensions");
    for (int i = 0; i < index->ndim && bound->ndim; i++)
        if (i != e->dim && index->sizes[i] > bound->sizes[i])
            return ex_invalid(e, "index is larger than self outside dimension %lld",
                              (long long)e->dim);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnGatherGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                        aclTensor *out, uint64_t *ws, aclOpExecutor **ex) {
    aclnnStatus st;
    aclOpExecutor *e = ex_new("aclnnGather", k_gather, &st);
    if (!e) return st;
    st = ex_tensor(e, self, "self");
    if (!st) st = ex_tensor(e, index, "index");
    if (!st) st = ex_tensor(e, out, "out");
    if (!st) st = check_index(e, self, index, self, dim);
    if (!st && (!same_shape(index, out) || out->dtype != self->dtype))
        st = ex_invalid(e, "out must have index's shape and self's dtype");
    return ex_done(e, st, ws, ex);
}

static aclnnStatus plan_scatter(const char *name, int (*kernel)(aclOpExecutor *),
                                const aclTensor *self, int64_t dim, const aclTensor *index,
                                const aclTensor *src, const aclTensor *out, int64_t reduce,
                                uint64_t *ws, aclOpExecutor **ex) {
    aclnnStatus st;
    aclOpExecutor *e = ex_new(name, kernel, &st);
    if (!e) return st;
    e->mode = reduce;
    st = ex_tensor(e, self, "self");
    if (!st) st = ex_tensor(e, index, "index");
    if (!st) st = ex_tensor(e, src, "src");
    if (!st && out) st = ex_tensor(e, out, "out");
    if (!st) st = check_index(e, self, index, src, dim);
    if (!st && (reduce < ACLNN_SCATTER_REPLACE || reduce > ACLNN_SCATTER_MUL))
        st = ex_invalid(e, "reduce must be 0, 1 or 2");
    if (!st && out && (!same_shape(self, out) || self->dtype != out->dtype))
        st = ex_invalid(e, "out must have self's shape and dtype");
    return ex_done(e, st, ws, ex);
}

aclnnStatus aclnnScatterAddGetWorkspaceSize(const aclTensor *self, int64_t dim,
                                            const aclTensor *index, const aclTensor *src,
                                            aclTensor *out, uint64_t *ws, aclOpExecutor **ex) {
    return plan_scatter("aclnnScatterAdd", k_scatter_out, self, dim, index, src, out,
                        ACLNN_SCATTER_ADD, ws, ex);
}
aclnnStatus aclnnInplaceScatterGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
                                                const aclTensor *index, const aclTensor *src,
                                                int64_t reduce, uint64_t *ws, aclOpExecutor **ex) {
    return plan_scatter("aclnnInplaceScatter", k_scatter, selfRef, dim, index, src, NULL, reduce,
                        ws, ex);
}
