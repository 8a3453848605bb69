/* cuda_ops_ew.c: the element-wise kernels of the CUDA module: arithmetic, comparisons, unary math,
 * where, addcmul/addcdiv, and (for cuda_copy.c) copies, casts and fills, all one launch of the
 * element-wise kernels of kernels/ck_elementwise.cu. The dispatcher has already made the result
 * (its broadcast shape and promoted dtype, or self for in-place forms) with the op's meta
 * function; here each operand's strides are aligned to the result's dimensions (0 where it
 * broadcasts) and dimensions that every operand walks contiguously are merged. */
#include <math.h>
#include <string.h>

#include "cuda_launch.h"
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"

/* operand k: t's strides right-aligned to the result's ndim dimensions */
static int operand(ck_ew_args *a, int k, const mt_tensor *t, const mt_tensor *out) {
    ck_operand *o = &a->o[k];
    o->ptr = (uint64_t)(uintptr_t)mt_tensor_raw(t);
    o->dtype = t->dtype;
    int lead = out->ndim - t->ndim;
    if (lead < 0)
        return mt_error(MT_ERR_RUNTIME, "a CUDA operand has more dimensions than the result");
    for (int d = 0; d < out->ndim; d++) {
        int td = d - lead;
        o->strides[d] = td < 0 || t->sizes[td] == 1 ? 0 : t->strides[td];
        if (td >= 0 && t->sizes[td] != 1 && t->sizes[td] != out->sizes[d])
            return mt_error(MT_ERR_RUNTIME, "a CUDA operand does not broadcast to the result");
    }
    if (t->device.type != cuda_devtype || cuda_device_of(t) != cuda_device_of(out))
        return mt_error(MT_ERR_RUNTIME,
                        "Expected all tensors to be on the same device, but found at least two "
                        "devices, cuda:%d and %s!",
                        cuda_device_of(out),
                        t->device.type == cuda_devtype ? "another cuda device" : "cpu");
    return 0;
}

/* dimensions of size 1 dropped, neighbours merged where every operand allows, and whether each
 * operand is then one contiguous run */
static void simplify(ck_ew_args *a) {
    int nops = a->nin + 1, nd = 0;
    for (int d = 0; d < a->ndim; d++) {
        if (a->sizes[d] == 1) continue;
        bool merge = nd > 0;
        for (int k = 0; k < nops && merge; k++)
            merge = a->o[k].strides[nd - 1] == a->o[k].strides[d] * a->sizes[d];
        if (merge) {
            a->sizes[nd - 1] *= a->sizes[d];
            for (int k = 0; k < nops; k++) a->o[k].strides[nd - 1] = a->o[k].strides[d];
        } else {
            a->sizes[nd] = a->sizes[d];
            for (int k = 0; k < nops; k++) a->o[k].strides[nd] = a->o[k].strides[d];
            nd++;
        }
    }
    a->ndim = nd;
    a->linear = 1;
    for (int k = 0; k < nops && a->linear; k++)
        a->linear = nd == 0 || (nd == 1 && a->o[k].strides[0] == 1);
}

/* every operand contiguous float32 on a 16-byte boundary, computed in float32: the float4 kernel */
static bool takes_float4(const ck_ew_args *a, mt_dtype compute) {
    if (!a->linear || compute != MT_FLOAT32) return false;
    if (a->op == CK_ARANGE || a->op == CK_LINSPACE || a->op == CK_LOGSPACE) return false;
    for (int k = 0; k <= a->nin; k++)
        if (a->o[k].dtype != MT_FLOAT32 || a->o[k].ptr % 16) return false;
    return true;
}

/* the special functions run in kernels of their own (ck_elementwise.cuh's apply_special) */
static bool is_special(int op) {
    return op == CK_LGAMMA || op == CK_DIGAMMA || op == CK_ERFINV || op == CK_POLYGAMMA ||
           op == CK_SPECIAL || op == CK_SPECIAL2 || op == CK_POLY || op == CK_ENTR ||
           op == CK_XLOG1PY || op == CK_NDTR;
}

static int compute_of(mt_dtype dt) {
    return dt == MT_FLOAT64           ? CK_COMPUTE_F64
           : mt_dtype_is_floating(dt) ? CK_COMPUTE_F32
                                      : CK_COMPUTE_I64;
}

/* a number as both compute types read it (a double past int64's range, or infinite, saturates;
 * NaN reads as 0) */
static void set_scalar(const mt_value *v, double *d, int64_t *i) {
    if (!v || v->tag == MT_V_NONE) return;
    *d = v->tag == MT_V_DOUBLE ? v->d : v->tag == MT_V_BOOL ? (double)v->b : (double)v->i;
    if (v->tag != MT_V_DOUBLE)
        *i = v->tag == MT_V_BOOL ? (int64_t)v->b : v->i;
    else
        *i = v->d >= 9.2e18    ? INT64_MAX
             : v->d <= -9.2e18 ? INT64_MIN
             : v->d == v->d    ? (int64_t)v->d
                               : 0;
}

/* the operations whose s1 is a parameter rather than a scalar second operand */
static bool s1_is_parameter(int op) {
    return op == CK_FILL || op == CK_MASKED_FILL || op == CK_GELU || op == CK_CLAMP ||
           op == CK_LEAKY_RELU || op == CK_SOFTPLUS || op == CK_POLYGAMMA || op == CK_ELU ||
           op == CK_HARDSHRINK || op == CK_LOGIT;
}

static bool narrow_integer(mt_dtype dt) {
    return !mt_dtype_is_floating(dt) && dt != MT_INT64;
}

/* v stored in integer dtype dt and read back (-1 in uint8 is 255) */
static int64_t wrap_int(int64_t v, mt_dtype dt) {
    uint64_t b = 0;
    mt_store_int64(&b, dt, v);
    return mt_load_int64(&b, dt);
}

int cuda_ew(mt_tensor *out, int op, int nin, mt_tensor *const *in, const mt_value *s1,
            const mt_value *alpha, mt_dtype compute) {
    return cuda_ew_ex(out, op, nin, in, s1, alpha, 0, 0, compute);
}

int cuda_ew_ex(mt_tensor *out, int op, int nin, mt_tensor *const *in, const mt_value *s1,
               const mt_value *alpha, double s2, double s3, mt_dtype compute) {
    if (out->numel == 0) return 0;
    ck_ew_args a;
    memset(&a, 0, sizeof a);
    a.s2 = s2;
    a.s3 = s3;
    a.n = out->numel;
    a.op = op;
    a.nin = nin;
    a.ndim = out->ndim;
    memcpy(a.sizes, out->sizes, sizeof(int64_t) * (size_t)out->ndim);
    a.alpha = 1;
    a.ialpha = 1;
    set_scalar(alpha, &a.alpha, &a.ialpha);
    set_scalar(s1, &a.s1, &a.is1);
    a.scalar_in2 = s1 && s1->tag != MT_V_NONE && !s1_is_parameter(op);
    if (narrow_integer(compute)) { /* numbers converted to the dtype wrap, as the CPU's */
        a.is1 = wrap_int(a.is1, compute);
        a.ialpha = wrap_int(a.ialpha, compute);
    }
    if (operand(&a, 0, out, out)) return -1;
    /* an in-place op's compute type is self's, not always the operands' common one (half += a
     * float32 tensor computes in float32): its operands are not rounded */
    bool in_place = false, narrower = false;
    for (int k = 0; k < nin; k++) {
        if (operand(&a, k + 1, in[k], out)) return -1;
        in_place = in_place || in[k] == out;
        narrower = narrower || in[k]->dtype != compute;
    }
    if ((compute == MT_FLOAT16 || compute == MT_BFLOAT16) && narrower && !in_place)
        a.round_to = compute;
    simplify(&a);
    int c = compute_of(compute);
    cuda_fn fn = c == CK_COMPUTE_F64   ? CUDA_FN_EW_F64
                 : c == CK_COMPUTE_F32 ? CUDA_FN_EW_F32
                                       : CUDA_FN_EW_I64;
    if (is_special(op))
        fn = c == CK_COMPUTE_F64 ? CUDA_FN_EW_SPECIAL_F64 : CUDA_FN_EW_SPECIAL_F32;
    else if (takes_float4(&a, compute))
        fn = CUDA_FN_EW_DENSE_F32;
    return cuda_launch(cuda_device_of(out), fn, a.n, &a);
}

mt_tensor *cuda_dense(mt_tensor *t) {
    if (mt_tensor_is_contiguous(t)) {
        mt_tensor_incref(t);
        return t;
    }
    mt_tensor *c = mt_tensor_empty(t->ndim, t->sizes, (mt_dtype)t->dtype, t->device), *in[1] = {t};
    if (c && cuda_ew(c, CK_COPY, 1, in, NULL, NULL, (mt_dtype)t->dtype)) {
        mt_tensor_decref(c);
        return NULL;
    }
    return c;
}

/* ---- the kernels, by the forms of their arguments -------------------------------------------- */

/* the type a comparison computes in: the inputs' promoted type; with a Python number, a float
 * number makes integer tensors compare as the default float (PyTorch's result_type) */
static mt_dtype compare_type(mt_value *a, bool scalar) {
    mt_dtype x = (mt_dtype)a[0].t->dtype;
    if (!scalar) return mt_promote_types(x, (mt_dtype)a[1].t->dtype);
    return !mt_dtype_is_floating(x) && a[1].tag == MT_V_DOUBLE ? MT_FLOAT32 : x;
}

#define OUT(r) ((mt_dtype)(r)[0].t->dtype)

/* (self, other, alpha) and (self, Scalar other, alpha) */
#define K_ALPHA(fn, OP)                                                                            \
    static int k_##fn##_tensor(mt_call *c, mt_value *a, mt_value *r) {                             \
        (void)c;                                                                                   \
        mt_tensor *in[2] = {a[0].t, a[1].t};                                                       \
        return cuda_ew(r[0].t, OP, 2, in, NULL, &a[2], OUT(r));                                    \
    }                                                                                              \
    static int k_##fn##_scalar(mt_call *c, mt_value *a, mt_value *r) {                             \
        (void)c;                                                                                   \
        mt_tensor *in[1] = {a[0].t};                                                               \
        return cuda_ew(r[0].t, OP, 1, in, &a[1], &a[2], OUT(r));                                   \
    }
K_ALPHA(add, CK_ADD)
K_ALPHA(sub, CK_SUB)
K_ALPHA(rsub, CK_RSUB)

/* (self, other) and (self, Scalar other) */
#define K_TWO(fn, OP)                                                                              \
    static int k_##fn##_tensor(mt_call *c, mt_value *a, mt_value *r) {                             \
        (void)c;                                                                                   \
        mt_tensor *in[2] = {a[0].t, a[1].t};                                                       \
        return cuda_ew(r[0].t, OP, 2, in, NULL, NULL, OUT(r));                                     \
    }                                                                                              \
    static int k_##fn##_scalar(mt_call *c, mt_value *a, mt_value *r) {                             \
        (void)c;                                                                                   \
        mt_tensor *in[1] = {a[0].t};                                                               \
        return cuda_ew(r[0].t, OP, 1, in, &a[1], NULL, OUT(r));                                    \
    }
K_TWO(mul, CK_MUL)
K_TWO(div, CK_DIV)

#define K_COMPARE(fn, OP)                                                                          \
    static int k_##fn##_tensor(mt_call *c, mt_value *a, mt_value *r) {                             \
        (void)c;                                                                                   \
        mt_tensor *in[2] = {a[0].t, a[1].t};                                                       \
        return cuda_ew(r[0].t, OP, 2, in, NULL, NULL, compare_type(a, false));                     \
    }                                                                                              \
    static int k_##fn##_scalar(mt_call *c, mt_value *a, mt_value *r) {                             \
        (void)c;                                                                                   \
        mt_tensor *in[1] = {a[0].t};                                                               \
        return cuda_ew(r[0].t, OP, 1, in, &a[1], NULL, compare_type(a, true));                     \
    }
/* logical and, or, xor (self, other): in the inputs' common type, as the comparisons */
#define K_LOGICAL(fn, OP)                                                                          \
    static int k_##fn(mt_call *c, mt_value *a, mt_value *r) {                                      \
        (void)c;                                                                                   \
        mt_tensor *in[2] = {a[0].t, a[1].t};                                                       \
        return cuda_ew(r[0].t, OP, 2, in, NULL, NULL, compare_type(a, false));                     \
    }
K_LOGICAL(land, CK_LAND)
K_LOGICAL(lor, CK_LOR)
K_LOGICAL(lxor, CK_LXOR)
K_COMPARE(eq, CK_EQ)
K_COMPARE(ne, CK_NE)
K_COMPARE(lt, CK_LT)
K_COMPARE(le, CK_LE)
K_COMPARE(gt, CK_GT)
K_COMPARE(ge, CK_GE)

/* (self): out of place and in place (the result is self) alike; the tests (logical_not, isnan,
 * isinf, isfinite) read their input in its own type */
static bool reads_in_input_type(int op) {
    return op == CK_LOGICAL_NOT || op == CK_ISNAN || op == CK_ISINF || op == CK_ISFINITE ||
           op == CK_ISPOSINF || op == CK_ISNEGINF || op == CK_SIGNBIT;
}

#define K_UNARY(fn, OP)                                                                            \
    static int k_##fn(mt_call *c, mt_value *a, mt_value *r) {                                      \
        (void)c;                                                                                   \
        mt_tensor *in[1] = {a[0].t};                                                               \
        mt_dtype ct = reads_in_input_type(OP) ? (mt_dtype)a[0].t->dtype : OUT(r);                  \
        return cuda_ew(r[0].t, OP, 1, in, NULL, NULL, ct);                                         \
    }
K_UNARY(neg, CK_NEG)
K_UNARY(abs, CK_ABS)
K_UNARY(exp, CK_EXP)
K_UNARY(log, CK_LOG)
K_UNARY(sqrt, CK_SQRT)
K_UNARY(relu, CK_RELU)
K_UNARY(sigmoid, CK_SIGMOID)
K_UNARY(tanh, CK_TANH)
K_UNARY(logical_not, CK_LOGICAL_NOT)
K_UNARY(erf, CK_ERF)
K_UNARY(silu, CK_SILU)
K_UNARY(sin, CK_SIN)
K_UNARY(cos, CK_COS)
K_UNARY(rsqrt, CK_RSQRT)
K_UNARY(reciprocal, CK_RECIPROCAL)
K_UNARY(log1p, CK_LOG1P)
K_UNARY(expm1, CK_EXPM1)
K_UNARY(sign, CK_SIGN)
K_UNARY(isnan, CK_ISNAN)
K_UNARY(isinf, CK_ISINF)
K_UNARY(isfinite, CK_ISFINITE)
K_UNARY(exp2, CK_EXP2)
K_UNARY(log2, CK_LOG2)
K_UNARY(log10, CK_LOG10)
K_UNARY(tan, CK_TAN)
K_UNARY(asin, CK_ASIN)
K_UNARY(acos, CK_ACOS)
K_UNARY(atan, CK_ATAN)
K_UNARY(sinh, CK_SINH)
K_UNARY(cosh, CK_COSH)
K_UNARY(asinh, CK_ASINH)
K_UNARY(acosh, CK_ACOSH)
K_UNARY(atanh, CK_ATANH)
K_UNARY(erfc, CK_ERFC)
K_UNARY(trunc, CK_TRUNC)
K_UNARY(floor, CK_FLOOR)
K_UNARY(ceil, CK_CEIL)
K_UNARY(round, CK_ROUND)
K_UNARY(frac, CK_FRAC)
K_UNARY(lgamma, CK_LGAMMA)
K_UNARY(digamma, CK_DIGAMMA)
K_UNARY(erfinv, CK_ERFINV)
K_UNARY(isposinf, CK_ISPOSINF)
K_UNARY(isneginf, CK_ISNEGINF)
K_UNARY(signbit, CK_SIGNBIT)
K_UNARY(sinc, CK_SINC)
/* _polygamma(self, n) and polygamma_(self, n) (torch.polygamma(n, x) calls the first) */
static int k_polygamma(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[1] = {a[0].t};
    return cuda_ew(r[0].t, CK_POLYGAMMA, 1, in, &a[1], NULL, OUT(r));
}
K_TWO(copysign, CK_COPYSIGN)
K_TWO(xlogy, CK_XLOGY)
/* (self, other) of two tensors only */
#define K_TENSORS(fn, OP)                                                                          \
    static int k_##fn(mt_call *c, mt_value *a, mt_value *r) {                                      \
        (void)c;                                                                                   \
        mt_tensor *in[2] = {a[0].t, a[1].t};                                                       \
        return cuda_ew(r[0].t, OP, 2, in, NULL, NULL, OUT(r));                                     \
    }
K_TENSORS(fmax, CK_FMAX)
K_TENSORS(fmin, CK_FMIN)
K_TENSORS(hypot, CK_HYPOT)
K_TENSORS(logaddexp, CK_LOGADDEXP)
K_TENSORS(logaddexp2, CK_LOGADDEXP2)
K_TENSORS(heaviside, CK_HEAVISIDE)
K_TENSORS(gcd, CK_GCD)
K_TENSORS(lcm, CK_LCM)

/* nextafter(self, other): a bfloat16 result steps bfloat16's bits (s2 says so), as the CPU;
 * float16 is refused, as PyTorch's CUDA kernel (floating types and bfloat16) does */
static int k_nextafter(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    if (OUT(r) == MT_FLOAT16)
        return mt_error(MT_ERR_RUNTIME, "\"nextafter_cuda\" not implemented for 'Half'");
    mt_tensor *in[2] = {a[0].t, a[1].t};
    return cuda_ew_ex(r[0].t, CK_NEXTAFTER, 2, in, NULL, NULL, OUT(r) == MT_BFLOAT16, 0, OUT(r));
}
K_TWO(fmod, CK_FMOD)
K_TWO(remainder, CK_REMAINDER)
K_TWO(floor_divide, CK_FLOOR_DIVIDE)

/* div(self, other, rounding_mode) for a tensor or a number other: None is true division (the
 * meta function made the result floating), "trunc" and "floor" round the quotient (the meta
 * function refused any other word) */
static int div_op(const mt_value *mode) {
    if (mode->tag != MT_V_STR) return CK_DIV;
    return !strcmp(mode->s, "trunc") ? CK_TRUNC_DIVIDE : CK_FLOOR_DIVIDE;
}
static int k_div_mode_tensor(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[2] = {a[0].t, a[1].t};
    return cuda_ew(r[0].t, div_op(&a[2]), 2, in, NULL, NULL, OUT(r));
}
static int k_div_mode_scalar(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[1] = {a[0].t};
    return cuda_ew(r[0].t, div_op(&a[2]), 1, in, &a[1], NULL, OUT(r));
}
static int k_atan2(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[2] = {a[0].t, a[1].t};
    return cuda_ew(r[0].t, CK_ATAN2, 2, in, NULL, NULL, OUT(r));
}

/* the bitwise operations (self, other), (self, Scalar other) and (self): a shift's count is
 * masked to 64 bits for int64, to 32 for the narrower types; bool's not is logical */
static double bit_width(mt_dtype dt) {
    return dt == MT_INT64 ? 64 : dt == MT_BOOL ? 1 : 32;
}
#define K_BITS(fn, OP)                                                                             \
    static int k_##fn##_tensor(mt_call *c, mt_value *a, mt_value *r) {                             \
        (void)c;                                                                                   \
        mt_tensor *in[2] = {a[0].t, a[1].t};                                                       \
        return cuda_ew_ex(r[0].t, OP, 2, in, NULL, NULL, bit_width(OUT(r)), 0, OUT(r));            \
    }                                                                                              \
    static int k_##fn##_scalar(mt_call *c, mt_value *a, mt_value *r) {                             \
        (void)c;                                                                                   \
        mt_tensor *in[1] = {a[0].t};                                                               \
        return cuda_ew_ex(r[0].t, OP, 1, in, &a[1], NULL, bit_width(OUT(r)), 0, OUT(r));           \
    }
K_BITS(band, CK_BAND)
K_BITS(bor, CK_BOR)
K_BITS(bxor, CK_BXOR)
K_BITS(shl, CK_SHL)
K_BITS(shr, CK_SHR)
static int k_bnot(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[1] = {a[0].t};
    return cuda_ew_ex(r[0].t, CK_BNOT, 1, in, NULL, NULL, bit_width(OUT(r)), 0, OUT(r));
}

/* elu(self, alpha, scale, input_scale): alpha * scale is taken in the compute type, as the CPU */
static int k_elu(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[1] = {a[0].t};
    double al = mt_scalar_double(a[1]), scale = mt_scalar_double(a[2]);
    mt_value neg =
        mt_vdouble(OUT(r) == MT_FLOAT64 ? al * scale : (double)((float)al * (float)scale));
    return cuda_ew_ex(r[0].t, CK_ELU, 1, in, &a[2], &neg, mt_scalar_double(a[3]), 0, OUT(r));
}

/* hardshrink(self, lambd) */
static int k_hardshrink(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[1] = {a[0].t};
    return cuda_ew(r[0].t, CK_HARDSHRINK, 1, in, &a[1], NULL, OUT(r));
}

/* logit(self, eps?): x clamped to [eps, 1 - eps] when eps is given and not negative */
static int k_logit(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[1] = {a[0].t};
    bool clamps = a[1].tag != MT_V_NONE && a[1].d >= 0;
    mt_value eps = clamps ? a[1] : mt_vdouble(0), flag = mt_vint(clamps);
    return cuda_ew(r[0].t, CK_LOGIT, 1, in, &eps, &flag, OUT(r));
}

/* deg2rad, rad2deg: a product with the constant rounded to the result's dtype first */
static int scaled(mt_tensor *out, mt_tensor *self, double k) {
    uint64_t b = 0;
    mt_store_double(&b, (mt_dtype)out->dtype, k);
    mt_value v = mt_vdouble(mt_load_double(&b, (mt_dtype)out->dtype));
    mt_tensor *in[1] = {self};
    return cuda_ew(out, CK_MUL, 1, in, &v, NULL, (mt_dtype)out->dtype);
}
static int k_deg2rad(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return scaled(r[0].t, a[0].t, 3.14159265358979323846 / 180.0);
}
static int k_rad2deg(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return scaled(r[0].t, a[0].t, 180.0 / 3.14159265358979323846);
}

/* flip(self, dims): a copy that reads self from the last element backwards along those dims
 * (negative strides, which the kernel's offsets take as they are) */
static int k_flip(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *self = a[0].t, *out = r[0].t;
    if (out->numel == 0) return 0;
    int64_t strides[MT_MAX_DIM], offset = self->offset;
    memcpy(strides, self->strides, sizeof(int64_t) * (size_t)self->ndim);
    bool flipped[MT_MAX_DIM] = {false};
    for (int i = 0; i < a[1].n; i++) {
        int d;
        if (mt_wrap_dim(a[1].il[i], self->ndim, &d)) return -1;
        flipped[d] = true;
    }
    for (int d = 0; d < self->ndim; d++)
        if (flipped[d] && self->sizes[d] > 1) {
            offset += (self->sizes[d] - 1) * strides[d];
            strides[d] = -strides[d];
        }
    /* the reversed view exists only for this launch: a tensor header over self's storage */
    mt_tensor rev = *self;
    rev.offset = offset;
    memcpy(rev.strides, strides, sizeof strides);
    mt_tensor *in[1] = {&rev};
    return cuda_ew(out, CK_COPY, 1, in, NULL, NULL, (mt_dtype)self->dtype);
}

/* the least (or greatest) value of an integer dtype */
static int64_t int_limit(mt_dtype dt, bool greatest) {
    switch (dt) {
    case MT_BOOL:
        return greatest;
    case MT_UINT8:
        return greatest ? UINT8_MAX : 0;
    case MT_INT8:
        return greatest ? INT8_MAX : INT8_MIN;
    case MT_INT16:
        return greatest ? INT16_MAX : INT16_MIN;
    case MT_INT32:
        return greatest ? INT32_MAX : INT32_MIN;
    default:
        return greatest ? INT64_MAX : INT64_MIN;
    }
}

/* clamp(self, min?, max?) and hardtanh(self, min_val, max_val): a bound left out is the type's
 * infinity or integer limit (a given one wraps into the type, as the CPU converts it) */
static int clamp(mt_tensor *out, mt_tensor *self, const mt_value *lo, const mt_value *hi) {
    mt_dtype ct = (mt_dtype)out->dtype;
    bool fl = mt_dtype_is_floating(ct);
    mt_value l = lo->tag != MT_V_NONE ? *lo
                 : fl                 ? mt_vdouble(-INFINITY)
                                      : mt_vint(int_limit(ct, false));
    mt_value h = hi->tag != MT_V_NONE ? *hi
                 : fl                 ? mt_vdouble(INFINITY)
                                      : mt_vint(int_limit(ct, true));
    mt_tensor *in[1] = {self};
    return cuda_ew(out, CK_CLAMP, 1, in, &h, &l, ct);
}

static int k_clamp(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return clamp(r[0].t, a[0].t, &a[1], &a[2]);
}

/* leaky_relu(self, negative_slope), softplus(self, beta, threshold) */
static int k_leaky_relu(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[1] = {a[0].t};
    return cuda_ew(r[0].t, CK_LEAKY_RELU, 1, in, &a[1], NULL, OUT(r));
}

static int k_softplus(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[1] = {a[0].t};
    return cuda_ew(r[0].t, CK_SOFTPLUS, 1, in, &a[2], &a[1], OUT(r));
}

/* gelu(self, approximate): "tanh" takes the tanh formula */
static int k_gelu(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[1] = {a[0].t};
    bool tanh_form = a[1].tag == MT_V_STR && !strcmp(a[1].s, "tanh");
    mt_value form = mt_vint(tanh_form);
    return cuda_ew(r[0].t, CK_GELU, 1, in, &form, NULL, OUT(r));
}

/* pow(self, exponent) for a tensor or a number exponent */
static int k_pow_tensor(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[2] = {a[0].t, a[1].t};
    return cuda_ew(r[0].t, CK_POW, 2, in, NULL, NULL, OUT(r));
}

static int k_pow_scalar(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[1] = {a[0].t};
    return cuda_ew(r[0].t, CK_POW, 1, in, &a[1], NULL, OUT(r));
}

static int k_maximum(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[2] = {a[0].t, a[1].t};
    return cuda_ew(r[0].t, CK_MAXIMUM, 2, in, NULL, NULL, OUT(r));
}

static int k_minimum(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[2] = {a[0].t, a[1].t};
    return cuda_ew(r[0].t, CK_MINIMUM, 2, in, NULL, NULL, OUT(r));
}

/* (self, tensor1, tensor2, value) */
static int k_addcmul(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[3] = {a[0].t, a[1].t, a[2].t};
    return cuda_ew(r[0].t, CK_ADDCMUL, 3, in, NULL, &a[3], OUT(r));
}

static int k_addcdiv(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *in[3] = {a[0].t, a[1].t, a[2].t};
    return cuda_ew(r[0].t, CK_ADDCDIV, 3, in, NULL, &a[3], OUT(r));
}

/* where(condition, self, other), each of self and other a tensor or a number (made a 0-d
 * tensor of the result's dtype on its device, which broadcasts) */
static mt_tensor *operand_of(mt_value *v, mt_tensor *out) {
    if (v->tag == MT_V_TENSOR) {
        mt_tensor_incref(v->t);
        return v->t;
    }
    mt_tensor *t = mt_tensor_empty(0, NULL, (mt_dtype)out->dtype, out->device);
    if (t && cuda_ew(t, CK_FILL, 0, NULL, v, NULL, (mt_dtype)out->dtype)) {
        mt_tensor_decref(t);
        return NULL;
    }
    return t;
}

static int k_where(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *x = operand_of(&a[1], r[0].t), *y = x ? operand_of(&a[2], r[0].t) : NULL;
    mt_tensor *in[3] = {a[0].t, x, y};
    int rc = y ? cuda_ew(r[0].t, CK_WHERE, 3, in, NULL, NULL, OUT(r)) : -1;
    if (x) mt_tensor_decref(x);
    if (y) mt_tensor_decref(y);
    return rc;
}

/* pow.Scalar(Scalar self, Tensor exponent) and remainder.Scalar_Tensor(Scalar self, Tensor
 * other): the number made a 0-d tensor of the result's dtype, as where's numbers are */
static int number_first(mt_value *a, mt_value *r, int op) {
    mt_tensor *x = operand_of(&a[0], r[0].t);
    mt_tensor *in[2] = {x, a[1].t};
    int rc = x ? cuda_ew(r[0].t, op, 2, in, NULL, NULL, OUT(r)) : -1;
    if (x) mt_tensor_decref(x);
    return rc;
}
static int k_pow_number(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return number_first(a, r, CK_POW);
}
static int k_remainder_number(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return number_first(a, r, CK_REMAINDER);
}

/* lerp(self, end, weight): a number weight made a 0-d tensor as where's numbers are */
static int k_lerp(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *w = operand_of(&a[2], r[0].t);
    mt_tensor *in[3] = {a[0].t, a[1].t, w};
    int rc = w ? cuda_ew(r[0].t, CK_LERP, 3, in, NULL, NULL, OUT(r)) : -1;
    if (w) mt_tensor_decref(w);
    return rc;
}
const mt_kernel_entry cuda_ew_kernels[] = {
    {"add.Tensor", k_add_tensor},
    {"add_.Tensor", k_add_tensor},
    {"add.Scalar", k_add_scalar},
    {"add_.Scalar", k_add_scalar},
    {"sub.Tensor", k_sub_tensor},
    {"sub_.Tensor", k_sub_tensor},
    {"sub.Scalar", k_sub_scalar},
    {"sub_.Scalar", k_sub_scalar},
    {"rsub.Tensor", k_rsub_tensor},
    {"rsub.Scalar", k_rsub_scalar},
    {"mul.Tensor", k_mul_tensor},
    {"mul_.Tensor", k_mul_tensor},
    {"mul.Scalar", k_mul_scalar},
    {"mul_.Scalar", k_mul_scalar},
    {"div.Tensor", k_div_tensor},
    {"div_.Tensor", k_div_tensor},
    {"div.Scalar", k_div_scalar},
    {"div_.Scalar", k_div_scalar},
    {"div.Tensor_mode", k_div_mode_tensor},
    {"div_.Tensor_mode", k_div_mode_tensor},
    {"div.Scalar_mode", k_div_mode_scalar},
    {"div_.Scalar_mode", k_div_mode_scalar},
    {"eq.Tensor", k_eq_tensor},
    {"eq.Scalar", k_eq_scalar},
    {"ne.Tensor", k_ne_tensor},
    {"ne.Scalar", k_ne_scalar},
    {"lt.Tensor", k_lt_tensor},
    {"lt.Scalar", k_lt_scalar},
    {"le.Tensor", k_le_tensor},
    {"le.Scalar", k_le_scalar},
    {"gt.Tensor", k_gt_tensor},
    {"gt.Scalar", k_gt_scalar},
    {"ge.Tensor", k_ge_tensor},
    {"ge.Scalar", k_ge_scalar},
    {"neg", k_neg},
    {"neg_", k_neg},
    {"abs", k_abs},
    {"abs_", k_abs},
    {"exp", k_exp},
    {"exp_", k_exp},
    {"log", k_log},
    {"log_", k_log},
    {"sqrt", k_sqrt},
    {"sqrt_", k_sqrt},
    {"relu", k_relu},
    {"relu_", k_relu},
    {"sigmoid", k_sigmoid},
    {"sigmoid_", k_sigmoid},
    {"tanh", k_tanh},
    {"tanh_", k_tanh},
    {"logical_not", k_logical_not},
    {"logical_not_", k_logical_not},
    {"maximum", k_maximum},
    {"minimum", k_minimum},
    {"addcmul", k_addcmul},
    {"addcmul_", k_addcmul},
    {"addcdiv", k_addcdiv},
    {"addcdiv_", k_addcdiv},
    {"where.self", k_where},
    {"where.ScalarSelf", k_where},
    {"where.ScalarOther", k_where},
    {"where.Scalar", k_where},
    {"lerp.Scalar", k_lerp},
    {"lerp.Tensor", k_lerp},
    {"lerp_.Scalar", k_lerp},
    {"lerp_.Tensor", k_lerp},
    {"erf", k_erf},
    {"erf_", k_erf},
    {"silu", k_silu},
    {"sin", k_sin},
    {"sin_", k_sin},
    {"cos", k_cos},
    {"cos_", k_cos},
    {"rsqrt", k_rsqrt},
    {"rsqrt_", k_rsqrt},
    {"reciprocal", k_reciprocal},
    {"reciprocal_", k_reciprocal},
    {"log1p", k_log1p},
    {"log1p_", k_log1p},
    {"expm1", k_expm1},
    {"expm1_", k_expm1},
    {"sign", k_sign},
    {"sign_", k_sign},
    {"gelu", k_gelu},
    {"isnan", k_isnan},
    {"isinf", k_isinf},
    {"isfinite", k_isfinite},
    {"flip", k_flip},
    {"exp2", k_exp2},
    {"exp2_", k_exp2},
    {"log2", k_log2},
    {"log2_", k_log2},
    {"log10", k_log10},
    {"log10_", k_log10},
    {"tan", k_tan},
    {"tan_", k_tan},
    {"asin", k_asin},
    {"asin_", k_asin},
    {"acos", k_acos},
    {"acos_", k_acos},
    {"atan", k_atan},
    {"atan_", k_atan},
    {"sinh", k_sinh},
    {"sinh_", k_sinh},
    {"cosh", k_cosh},
    {"cosh_", k_cosh},
    {"asinh", k_asinh},
    {"asinh_", k_asinh},
    {"acosh", k_acosh},
    {"acosh_", k_acosh},
    {"atanh", k_atanh},
    {"atanh_", k_atanh},
    {"erfc", k_erfc},
    {"erfc_", k_erfc},
    {"trunc", k_trunc},
    {"trunc_", k_trunc},
    {"floor", k_floor},
    {"floor_", k_floor},
    {"ceil", k_ceil},
    {"ceil_", k_ceil},
    {"round", k_round},
    {"round_", k_round},
    {"frac", k_frac},
    {"frac_", k_frac},
    {"lgamma", k_lgamma},
    {"lgamma_", k_lgamma},
    {"digamma", k_digamma},
    {"digamma_", k_digamma},
    {"erfinv", k_erfinv},
    {"erfinv_", k_erfinv},
    {"_polygamma", k_polygamma},
    {"polygamma_", k_polygamma},
    {"fmod.Tensor", k_fmod_tensor},
    {"fmod.Scalar", k_fmod_scalar},
    {"fmod_.Tensor", k_fmod_tensor},
    {"fmod_.Scalar", k_fmod_scalar},
    {"remainder.Tensor", k_remainder_tensor},
    {"remainder.Scalar", k_remainder_scalar},
    {"remainder_.Tensor", k_remainder_tensor},
    {"remainder_.Scalar", k_remainder_scalar},
    {"floor_divide", k_floor_divide_tensor},
    {"floor_divide.Scalar", k_floor_divide_scalar},
    {"floor_divide_.Tensor", k_floor_divide_tensor},
    {"floor_divide_.Scalar", k_floor_divide_scalar},
    {"atan2", k_atan2},
    {"atan2_", k_atan2},
    {"clamp", k_clamp},
    {"clamp_", k_clamp},
    {"hardtanh", k_clamp},
    {"hardtanh_", k_clamp},
    {"leaky_relu", k_leaky_relu},
    {"leaky_relu_", k_leaky_relu},
    {"softplus", k_softplus},
    {"pow.Tensor_Tensor", k_pow_tensor},
    {"pow.Tensor_Scalar", k_pow_scalar},
    {"pow_.Scalar", k_pow_scalar},
    {"pow_.Tensor", k_pow_tensor},
    {"pow.Scalar", k_pow_number},
    {"remainder.Scalar_Tensor", k_remainder_number},
    {"true_divide.Tensor", k_div_tensor},
    {"true_divide.Scalar", k_div_scalar},
    {"true_divide_.Tensor", k_div_tensor},
    {"true_divide_.Scalar", k_div_scalar},
    {"clip", k_clamp},
    {"clip_", k_clamp},
    {"eq_.Tensor", k_eq_tensor},
    {"eq_.Scalar", k_eq_scalar},
    {"ne_.Tensor", k_ne_tensor},
    {"ne_.Scalar", k_ne_scalar},
    {"lt_.Tensor", k_lt_tensor},
    {"lt_.Scalar", k_lt_scalar},
    {"le_.Tensor", k_le_tensor},
    {"le_.Scalar", k_le_scalar},
    {"gt_.Tensor", k_gt_tensor},
    {"gt_.Scalar", k_gt_scalar},
    {"ge_.Tensor", k_ge_tensor},
    {"ge_.Scalar", k_ge_scalar},
    {"logical_and", k_land},
    {"logical_and_", k_land},
    {"logical_or", k_lor},
    {"logical_or_", k_lor},
    {"logical_xor", k_lxor},
    {"logical_xor_", k_lxor},
    {"elu", k_elu},
    {"elu_", k_elu},
    {"hardshrink", k_hardshrink},
    {"logit", k_logit},
    {"logit_", k_logit},
    {"fmax", k_fmax},
    {"fmin", k_fmin},
    {"hypot", k_hypot},
    {"hypot_", k_hypot},
    {"gcd", k_gcd},
    {"gcd_", k_gcd},
    {"lcm", k_lcm},
    {"lcm_", k_lcm},
    {"nextafter", k_nextafter},
    {"nextafter_", k_nextafter},
    {"logaddexp", k_logaddexp},
    {"logaddexp2", k_logaddexp2},
    {"copysign.Tensor", k_copysign_tensor},
    {"copysign.Scalar", k_copysign_scalar},
    {"copysign_.Tensor", k_copysign_tensor},
    {"copysign_.Scalar", k_copysign_scalar},
    {"xlogy.Tensor", k_xlogy_tensor},
    {"xlogy.Scalar", k_xlogy_scalar},
    {"xlogy_.Tensor", k_xlogy_tensor},
    {"xlogy_.Scalar", k_xlogy_scalar},
    {"heaviside", k_heaviside},
    {"heaviside_", k_heaviside},
    {"isposinf", k_isposinf},
    {"isneginf", k_isneginf},
    {"signbit", k_signbit},
    {"sinc", k_sinc},
    {"sinc_", k_sinc},
    {"deg2rad", k_deg2rad},
    {"deg2rad_", k_deg2rad},
    {"rad2deg", k_rad2deg},
    {"rad2deg_", k_rad2deg},
    {"bitwise_and.Tensor", k_band_tensor},
    {"bitwise_and.Scalar", k_band_scalar},
    {"bitwise_and_.Tensor", k_band_tensor},
    {"bitwise_and_.Scalar", k_band_scalar},
    {"bitwise_or.Tensor", k_bor_tensor},
    {"bitwise_or.Scalar", k_bor_scalar},
    {"bitwise_or_.Tensor", k_bor_tensor},
    {"bitwise_or_.Scalar", k_bor_scalar},
    {"bitwise_xor.Tensor", k_bxor_tensor},
    {"bitwise_xor.Scalar", k_bxor_scalar},
    {"bitwise_xor_.Tensor", k_bxor_tensor},
    {"bitwise_xor_.Scalar", k_bxor_scalar},
    {"bitwise_left_shift.Tensor", k_shl_tensor},
    {"bitwise_left_shift.Scalar", k_shl_scalar},
    {"bitwise_left_shift_.Tensor", k_shl_tensor},
    {"bitwise_left_shift_.Scalar", k_shl_scalar},
    {"bitwise_right_shift.Tensor", k_shr_tensor},
    {"bitwise_right_shift.Scalar", k_shr_scalar},
    {"bitwise_right_shift_.Tensor", k_shr_tensor},
    {"bitwise_right_shift_.Scalar", k_shr_scalar},
    {"bitwise_not", k_bnot},
    {"bitwise_not_", k_bnot},
};
const size_t cuda_ew_kernels_count = MT_ARRAY_LEN(cuda_ew_kernels);
