/* deriv_ew.c: derivative formulas of the element-wise ops (PyTorch's derivatives.yaml, as
 * facts: the formulas and the node names). In-place forms share their out-of-place formulas. */
#include "formula.h"

#include <string.h>

#define LN2 0.69314718055994530942
#define LN10 2.30258509299404568402

/* ---- binary arithmetic -------------------------------------------------------------------- */

static void add_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, G(0));
    if (NEEDS(1)) SET(1, NUM(2) == 1 ? G(0) : K(mto_mul_Scalar(G(0), V(2))));
}
static void add_scalar_bw(mt_bw *b) { SET(0, G(0)); }

static void sub_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, G(0));
    if (NEEDS(1)) SET(1, K(mto_mul_Scalar(G(0), SD(-NUM(2)))));
}

static void rsub_bw(mt_bw *b) { /* other - alpha * self */
    if (NEEDS(0)) SET(0, K(mto_mul_Scalar(G(0), SD(-NUM(2)))));
    if (NEEDS(1)) SET(1, G(0));
}
static void rsub_scalar_bw(mt_bw *b) { SET(0, K(mto_mul_Scalar(G(0), SD(-NUM(2))))); }

static void mul_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_mul_Tensor(G(0), A(1))));
    if (NEEDS(1)) SET(1, K(mto_mul_Tensor(G(0), A(0))));
}
static void mul_scalar_bw(mt_bw *b) { SET(0, K(mto_mul_Scalar(G(0), V(1)))); }

static void div_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_div_Tensor(G(0), A(1))));
    if (NEEDS(1)) { /* -grad * (self / other) / other */
        mt_tensor *q = K(mto_div_Tensor(K(mto_div_Tensor(A(0), A(1))), A(1)));
        SET(1, K(mto_mul_Tensor(K(mto_neg(G(0))), q)));
    }
}
static void div_scalar_bw(mt_bw *b) { SET(0, K(mto_div_Scalar(G(0), V(1)))); }

/* rounding division: zero gradients (true division when the mode is None) */
static void div_mode_bw(mt_bw *b) {
    if (V(2).tag == MT_V_STR) {
        if (NEEDS(0)) SET(0, mt_bw_zeros(b, 0));
        if (NEEDS(1)) SET(1, mt_bw_zeros(b, 1));
        return;
    }
    div_bw(b);
}
static void div_scalar_mode_bw(mt_bw *b) {
    if (V(2).tag == MT_V_STR) SET(0, mt_bw_zeros(b, 0));
    else div_scalar_bw(b);
}

static void remainder_bw(mt_bw *b) { /* other: -grad * floor(self / other) */
    if (NEEDS(0)) SET(0, G(0));
    if (NEEDS(1)) SET(1, K(mto_mul_Tensor(K(mto_neg(G(0))), K(mto_div_Tensor_mode(A(0), A(1), "floor")))));
}
static void fmod_bw(mt_bw *b) { /* other: -grad * trunc(self / other) */
    if (NEEDS(0)) SET(0, G(0));
    if (NEEDS(1)) SET(1, K(mto_mul_Tensor(K(mto_neg(G(0))), K(mto_div_Tensor_mode(A(0), A(1), "trunc")))));
}
/* d/dx x^p = p x^(p-1), zero where p == 0 (0^0 has slope 0 there) */
static mt_tensor *pow_self_grad(mt_bw *b, mt_tensor *self, mt_tensor *exponent) {
    mt_tensor *d = K(mto_mul_Tensor(exponent, K(mto_pow_Tensor_Tensor(self, K(mto_sub_Scalar(exponent, SD(1), SI(1)))))));
    mt_tensor *g = K(mto_mul_Tensor(G(0), d));
    return K(mto_masked_fill_Scalar(g, K(mto_eq_Scalar(exponent, SI(0))), SD(0)));
}

static void pow_tt_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, pow_self_grad(b, A(0), A(1)));
    if (NEEDS(1)) { /* grad * result * log(self), zero where self == 0 and exponent >= 0 */
        mt_tensor *g = K(mto_mul_Tensor(K(mto_mul_Tensor(G(0), R(0))), K(mto_log(A(0)))));
        mt_tensor *mask = K(mto_logical_and(K(mto_eq_Scalar(A(0), SI(0))), K(mto_ge_Scalar(A(1), SI(0)))));
        SET(1, K(mto_masked_fill_Scalar(g, mask, SD(0))));
    }
}

static void pow_ts_bw(mt_bw *b) {
    double p = NUM(1);
    if (p == 0) {
        SET(0, mt_bw_zeros(b, 0));
        return;
    }
    mt_tensor *d = K(mto_mul_Scalar(K(mto_pow_Tensor_Scalar(A(0), SD(p - 1))), SD(p)));
    SET(0, K(mto_mul_Tensor(G(0), d)));
}

static void pow_scalar_bw(mt_bw *b) { /* base ** exponent: grad * result * log(base) */
    double base = NUM(0);
    mt_tensor *g = K(mto_mul_Scalar(K(mto_mul_Tensor(G(0), R(0))), SD(log(base))));
    if (base == 0) g = K(mto_masked_fill_Scalar(g, K(mto_ge_Scalar(A(1), SI(0))), SD(0)));
    SET(1, g);
}

static void atan2_bw(mt_bw *b) {
    mt_tensor *den = K(mto_add_Tensor(K(mto_mul_Tensor(A(0), A(0))), K(mto_mul_Tensor(A(1), A(1))), SI(1)));
    mt_tensor *gd = K(mto_div_Tensor(G(0), den));
    if (NEEDS(0)) SET(0, K(mto_mul_Tensor(gd, A(1))));
    if (NEEDS(1)) SET(1, K(mto_mul_Tensor(K(mto_neg(gd)), A(0))));
}

/* maximum / minimum: the larger (smaller) side takes the gradient; ties split it */
static void extremum_bw(mt_bw *b, bool max) {
    mt_tensor *tie = K(mto_eq_Tensor(A(0), A(1)));
    mt_tensor *g = K(mto_where_self(tie, K(mto_div_Scalar(G(0), SI(2))), G(0)));
    if (NEEDS(0)) SET(0, K(mto_masked_fill_Scalar(g, K(max ? mto_lt_Tensor(A(0), A(1)) : mto_gt_Tensor(A(0), A(1))), SD(0))));
    if (NEEDS(1)) SET(1, K(mto_masked_fill_Scalar(g, K(max ? mto_gt_Tensor(A(0), A(1)) : mto_lt_Tensor(A(0), A(1))), SD(0))));
}
static void maximum_bw(mt_bw *b) { extremum_bw(b, true); }
static void minimum_bw(mt_bw *b) { extremum_bw(b, false); }

/* ---- unary math ---------------------------------------------------------------------------- */

static void neg_bw(mt_bw *b) { SET(0, K(mto_neg(G(0)))); }
static void abs_bw(mt_bw *b) { SET(0, K(mto_mul_Tensor(G(0), K(mto_sign(A(0)))))); }
static void reciprocal_bw(mt_bw *b) { SET(0, K(mto_mul_Tensor(K(mto_neg(G(0))), K(mto_mul_Tensor(R(0), R(0)))))); }
static void sqrt_bw(mt_bw *b) { SET(0, K(mto_div_Tensor(G(0), K(mto_mul_Scalar(R(0), SI(2)))))); }
static void rsqrt_bw(mt_bw *b) {
    SET(0, K(mto_mul_Tensor(K(mto_mul_Scalar(G(0), SD(-0.5))), K(mto_pow_Tensor_Scalar(R(0), SI(3))))));
}
static void exp_bw(mt_bw *b) { SET(0, K(mto_mul_Tensor(G(0), R(0)))); }
static void exp2_bw(mt_bw *b) { SET(0, K(mto_mul_Scalar(K(mto_mul_Tensor(G(0), R(0))), SD(LN2)))); }
static void expm1_bw(mt_bw *b) { SET(0, K(mto_mul_Tensor(G(0), K(mto_add_Scalar(R(0), SI(1), SI(1)))))); }
/* d erf(x)/dx = 2/sqrt(pi) exp(-x^2); erfinv's is the reciprocal at x = erfinv(y) */
static void erf_bw(mt_bw *b) {
    SET(0, K(mto_mul_Tensor(G(0), K(mto_mul_Scalar(K(mto_exp(K(mto_neg(K(mto_mul_Tensor(A(0), A(0))))))), SD(M_2_SQRTPI))))));
}
static void erfc_bw(mt_bw *b) {
    SET(0, K(mto_mul_Tensor(G(0), K(mto_mul_Scalar(K(mto_exp(K(mto_neg(K(mto_mul_Tensor(A(0), A(0))))))), SD(-M_2_SQRTPI))))));
}
static void erfinv_bw(mt_bw *b) {
    SET(0, K(mto_mul_Tensor(G(0), K(mto_mul_Scalar(K(mto_exp(K(mto_mul_Tensor(R(0), R(0))))), SD(0.5 * sqrt(M_PI)))))));
}
static void log_bw(mt_bw *b) { SET(0, K(mto_div_Tensor(G(0), A(0)))); }
static void log2_bw(mt_bw *b) { SET(0, K(mto_div_Tensor(G(0), K(mto_mul_Scalar(A(0), SD(LN2)))))); }
static void log10_bw(mt_bw *b) { SET(0, K(mto_div_Tensor(G(0), K(mto_mul_Scalar(A(0), SD(LN10)))))); }
static void log1p_bw(mt_bw *b) { SET(0, K(mto_div_Tensor(G(0), K(mto_add_Scalar(A(0), SI(1), SI(1)))))); }
static void sin_bw(mt_bw *b) { SET(0, K(mto_mul_Tensor(G(0), K(mto_cos(A(0)))))); }
static void cos_bw(mt_bw *b) { SET(0, K(mto_mul_Tensor(G(0), K(mto_neg(K(mto_sin(A(0)))))))); }
static void tan_bw(mt_bw *b) {
    SET(0, K(mto_mul_Tensor(G(0), K(mto_add_Scalar(K(mto_mul_Tensor(R(0), R(0))), SI(1), SI(1))))));
}
/* 1 - x^2 */
static mt_tensor *one_minus_sq(mt_bw *b, mt_tensor *x) { return K(mto_rsub_Scalar(K(mto_mul_Tensor(x, x)), SI(1), SI(1))); }
static void asin_bw(mt_bw *b) { SET(0, K(mto_div_Tensor(G(0), K(mto_sqrt(one_minus_sq(b, A(0))))))); }
static void acos_bw(mt_bw *b) { SET(0, K(mto_div_Tensor(K(mto_neg(G(0))), K(mto_sqrt(one_minus_sq(b, A(0))))))); }
static void atan_bw(mt_bw *b) {
    SET(0, K(mto_div_Tensor(G(0), K(mto_add_Scalar(K(mto_mul_Tensor(A(0), A(0))), SI(1), SI(1))))));
}
static void sinh_bw(mt_bw *b) { SET(0, K(mto_mul_Tensor(G(0), K(mto_cosh(A(0)))))); }
static void cosh_bw(mt_bw *b) { SET(0, K(mto_mul_Tensor(G(0), K(mto_sinh(A(0)))))); }
static void tanh_bw(mt_bw *b) { SET(0, K(mto_mul_Tensor(G(0), one_minus_sq(b, R(0))))); }
static void sigmoid_bw(mt_bw *b) {
    mt_tensor *d = K(mto_mul_Tensor(R(0), K(mto_rsub_Scalar(R(0), SI(1), SI(1)))));
    SET(0, K(mto_mul_Tensor(G(0), d)));
}
static void relu_bw(mt_bw *b) { SET(0, K(mto_masked_fill_Scalar(G(0), K(mto_le_Scalar(R(0), SI(0))), SD(0)))); }

static void gelu_bw(mt_bw *b) {
    mt_tensor *x = A(0);
    mt_tensor *d;
    if (V(1).tag == MT_V_STR && strcmp(V(1).s, "tanh") == 0) {
        /* u = k (x + c x^3): d/dx 0.5 x (1 + tanh u) = 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2) */
        const double k = 0.79788456080286535588, c = 0.044715;
        mt_tensor *x2 = K(mto_mul_Tensor(x, x));
        mt_tensor *u = K(mto_mul_Scalar(K(mto_add_Tensor(x, K(mto_mul_Scalar(K(mto_mul_Tensor(x2, x)), SD(c))), SI(1))), SD(k)));
        mt_tensor *t = K(mto_tanh(u));
        mt_tensor *left = K(mto_mul_Scalar(K(mto_add_Scalar(t, SI(1), SI(1))), SD(0.5)));
        mt_tensor *du = K(mto_mul_Scalar(K(mto_add_Scalar(K(mto_mul_Scalar(x2, SD(3 * c))), SI(1), SI(1))), SD(k)));
        mt_tensor *right = K(mto_mul_Tensor(K(mto_mul_Tensor(K(mto_mul_Scalar(x, SD(0.5))), one_minus_sq(b, t))), du));
        d = K(mto_add_Tensor(left, right, SI(1)));
    } else { /* Phi(x) + x phi(x) */
        /* Phi(x) = 0.5 (1 + erf(x / sqrt 2)) from the forward: gelu(x) / x is Phi where x != 0 */
        mt_tensor *pdf = K(mto_mul_Scalar(K(mto_exp(K(mto_mul_Scalar(K(mto_mul_Tensor(x, x)), SD(-0.5))))),
                                          SD(0.39894228040143267794)));
        mt_tensor *phi_cdf = K(mto_gelu(x, "none"));
        /* x Phi(x) is the forward; Phi(x) = gelu(x)/x except at 0, where it is 0.5 */
        mt_tensor *zero = K(mto_eq_Scalar(x, SI(0)));
        mt_tensor *safe_x = K(mto_masked_fill_Scalar(x, zero, SD(1)));
        mt_tensor *cdf2 = K(mto_masked_fill_Scalar(K(mto_div_Tensor(phi_cdf, safe_x)), zero, SD(0.5)));
        d = K(mto_add_Tensor(cdf2, K(mto_mul_Tensor(x, pdf)), SI(1)));
    }
    SET(0, K(mto_mul_Tensor(G(0), d)));
}

static void silu_bw(mt_bw *b) { /* s (1 + x (1 - s)) */
    mt_tensor *s = K(mto_sigmoid(A(0)));
    mt_tensor *d = K(mto_mul_Tensor(s, K(mto_add_Scalar(K(mto_mul_Tensor(A(0), K(mto_rsub_Scalar(s, SI(1), SI(1))))), SI(1), SI(1)))));
    SET(0, K(mto_mul_Tensor(G(0), d)));
}

static void softplus_bw(mt_bw *b) { /* sigmoid(beta x), or 1 above the threshold */
    mt_tensor *bx = K(mto_mul_Scalar(A(0), V(1)));
    mt_tensor *d = K(mto_sigmoid(bx));
    d = K(mto_masked_fill_Scalar(d, K(mto_gt_Scalar(bx, V(2))), SD(1)));
    SET(0, K(mto_mul_Tensor(G(0), d)));
}

static void elu_bw(mt_bw *b) { /* scale above 0; alpha scale input_scale exp(x input_scale) below */
    double alpha = NUM(1), scale = NUM(2), in = NUM(3);
    mt_tensor *neg = K(mto_mul_Scalar(K(mto_exp(K(mto_mul_Scalar(A(0), SD(in))))), SD(alpha * scale * in)));
    mt_tensor *d = K(mto_where_ScalarSelf(K(mto_gt_Scalar(A(0), SI(0))), SD(scale), neg));
    SET(0, K(mto_mul_Tensor(G(0), d)));
}

static void leaky_relu_bw(mt_bw *b) {
    mt_tensor *pos = K(mto_gt_Scalar(A(0), SI(0)));
    SET(0, K(mto_where_self(pos, G(0), K(mto_mul_Scalar(G(0), V(1))))));
}

static void hardtanh_bw(mt_bw *b) {
    mt_tensor *out = K(mto_logical_or(K(mto_le_Scalar(A(0), V(1))), K(mto_ge_Scalar(A(0), V(2)))));
    SET(0, K(mto_masked_fill_Scalar(G(0), out, SD(0))));
}

static void clamp_bw(mt_bw *b) { /* the gradient passes where min <= x <= max */
    mt_tensor *g = G(0);
    if (V(1).tag != MT_V_NONE) g = K(mto_masked_fill_Scalar(g, K(mto_lt_Scalar(A(0), V(1))), SD(0)));
    if (V(2).tag != MT_V_NONE) g = K(mto_masked_fill_Scalar(g, K(mto_gt_Scalar(A(0), V(2))), SD(0)));
    SET(0, g);
}

static void clamp_tensor_bw(mt_bw *b) {
    mt_tensor *x = A(0), *lo = A(1), *hi = A(2);
    if (NEEDS(0)) {
        mt_tensor *g = G(0);
        if (lo) g = K(mto_masked_fill_Scalar(g, K(mto_lt_Tensor(x, lo)), SD(0)));
        if (hi) g = K(mto_masked_fill_Scalar(g, K(mto_gt_Tensor(x, hi)), SD(0)));
        SET(0, g);
    }
    if (lo && NEEDS(1)) { /* min takes the gradient where it won (and max did not) */
        mt_tensor *won = K(mto_lt_Tensor(x, lo));
        if (hi) won = K(mto_logical_and(won, K(mto_le_Tensor(lo, hi))));
        SET(1, K(mto_masked_fill_Scalar(G(0), K(mto_logical_not(won)), SD(0))));
    }
    if (hi && NEEDS(2)) {
        mt_tensor *won = K(mto_gt_Tensor(x, hi));
        if (lo) won = K(mto_logical_or(won, K(mto_gt_Tensor(lo, hi))));
        SET(2, K(mto_masked_fill_Scalar(G(0), K(mto_logical_not(won)), SD(0))));
    }
}

/* ---- interpolation and fused ops --------------------------------------------------------------- */

static void lerp_scalar_bw(mt_bw *b) {
    double w = NUM(2);
    if (NEEDS(0)) SET(0, K(mto_mul_Scalar(G(0), SD(1 - w))));
    if (NEEDS(1)) SET(1, K(mto_mul_Scalar(G(0), SD(w))));
}
static void lerp_tensor_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_mul_Tensor(G(0), K(mto_rsub_Scalar(A(2), SI(1), SI(1))))));
    if (NEEDS(1)) SET(1, K(mto_mul_Tensor(G(0), A(2))));
    if (NEEDS(2)) SET(2, K(mto_mul_Tensor(G(0), K(mto_sub_Tensor(A(1), A(0), SI(1))))));
}
static void addcmul_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, G(0));
    if (NEEDS(1)) SET(1, K(mto_mul_Scalar(K(mto_mul_Tensor(G(0), A(2))), V(3))));
    if (NEEDS(2)) SET(2, K(mto_mul_Scalar(K(mto_mul_Tensor(G(0), A(1))), V(3))));
}
static void addcdiv_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, G(0));
    if (NEEDS(1)) SET(1, K(mto_mul_Scalar(K(mto_div_Tensor(G(0), A(2))), V(3))));
    if (NEEDS(2)) { /* -grad value t1 / t2^2 */
        mt_tensor *q = K(mto_div_Tensor(K(mto_div_Tensor(A(1), A(2))), A(2)));
        SET(2, K(mto_mul_Tensor(K(mto_mul_Scalar(G(0), SD(-NUM(3)))), q)));
    }
}

/* where(condition, self, other): each side gets the gradient where it was chosen */
static void where_bw(mt_bw *b) {
    if (NEEDS(1)) SET(1, K(mto_masked_fill_Scalar(G(0), K(mto_logical_not(A(0))), SD(0))));
    if (NEEDS(2)) SET(2, K(mto_masked_fill_Scalar(G(0), A(0), SD(0))));
}

static mt_derivative table[] = {
    D(add_Tensor, "AddBackward0", add_bw, "self:; other:"),
    D(add_Scalar, "AddBackward0", add_scalar_bw, "self:"),
    D(add__Tensor, "AddBackward0", add_bw, "self:; other:"),
    D(add__Scalar, "AddBackward0", add_scalar_bw, "self:"),
    D(sub_Tensor, "SubBackward0", sub_bw, "self:; other:"),
    D(sub_Scalar, "SubBackward0", add_scalar_bw, "self:"),
    D(sub__Tensor, "SubBackward0", sub_bw, "self:; other:"),
    D(sub__Scalar, "SubBackward0", add_scalar_bw, "self:"),
    D(rsub_Tensor, "RsubBackward0", rsub_bw, "self:; other:"),
    D(rsub_Scalar, "RsubBackward1", rsub_scalar_bw, "self:"),
    D(mul_Tensor, "MulBackward0", mul_bw, "self: other; other: self"),
    D(mul_Scalar, "MulBackward0", mul_scalar_bw, "self:"),
    D(mul__Tensor, "MulBackward0", mul_bw, "self: other; other: self"),
    D(mul__Scalar, "MulBackward0", mul_scalar_bw, "self:"),
    D(div_Tensor, "DivBackward0", div_bw, "self: other; other: self, other"),
    D(div_Scalar, "DivBackward0", div_scalar_bw, "self:"),
    D(div__Tensor, "DivBackward0", div_bw, "self: other; other: self, other"),
    D(div__Scalar, "DivBackward0", div_scalar_bw, "self:"),
    D(true_divide_Tensor, "DivBackward0", div_bw, "self: other; other: self, other"),
    D(true_divide_Scalar, "DivBackward0", div_scalar_bw, "self:"),
    D(true_divide__Tensor, "DivBackward0", div_bw, "self: other; other: self, other"),
    D(true_divide__Scalar, "DivBackward0", div_scalar_bw, "self:"),
    D(div_Tensor_mode, "DivBackward2", div_mode_bw, "self: other; other: self, other"),
    D(div_Scalar_mode, "DivBackward2", div_scalar_mode_bw, "self:"),
    D(div__Tensor_mode, "DivBackward2", div_mode_bw, "self: other; other: self, other"),
    D(div__Scalar_mode, "DivBackward2", div_scalar_mode_bw, "self:"),
    DF(floor_divide, "torch::autograd::NotImplemented", mt_bw_zero_grads, "self:; other:", MT_D_NOT_IMPLEMENTED),
    DF(floor_divide_Scalar, "torch::autograd::NotImplemented", mt_bw_zero_grads, "self:", MT_D_NOT_IMPLEMENTED),
    DF(floor_divide__Tensor, "torch::autograd::NotImplemented", mt_bw_zero_grads, "self:; other:", MT_D_NOT_IMPLEMENTED),
    DF(floor_divide__Scalar, "torch::autograd::NotImplemented", mt_bw_zero_grads, "self:", MT_D_NOT_IMPLEMENTED),
    D(remainder_Tensor, "RemainderBackward1", remainder_bw, "self:; other: self, other"),
    D(remainder_Scalar, "RemainderBackward0", mt_bw_pass, "self:"),
    D(remainder__Tensor, "RemainderBackward1", remainder_bw, "self:; other: self, other"),
    D(remainder__Scalar, "RemainderBackward0", mt_bw_pass, "self:"),
    DF(remainder_Scalar_Tensor, "torch::autograd::NotImplemented", mt_bw_zero_grads, "other:", MT_D_NOT_IMPLEMENTED),
    D(fmod_Tensor, "FmodBackward1", fmod_bw, "self:; other: self, other"),
    D(fmod_Scalar, "FmodBackward0", mt_bw_pass, "self:"),
    D(fmod__Tensor, "FmodBackward1", fmod_bw, "self:; other: self, other"),
    D(fmod__Scalar, "FmodBackward0", mt_bw_pass, "self:"),
    D(pow_Tensor_Tensor, "PowBackward1", pow_tt_bw, "self: self, exponent; exponent: self, exponent, result"),
    D(pow__Tensor, "PowBackward1", pow_tt_bw, "self: self, exponent; exponent: self, exponent, result"),
    D(pow_Tensor_Scalar, "PowBackward0", pow_ts_bw, "self: self"),
    D(pow__Scalar, "PowBackward0", pow_ts_bw, "self: self"),
    D(pow_Scalar, "PowBackward2", pow_scalar_bw, "exponent: exponent, result"),
    D(atan2, "Atan2Backward0", atan2_bw, "self: self, other; other: self, other"),
    D(atan2_, "Atan2Backward0", atan2_bw, "self: self, other; other: self, other"),
    D(maximum, "MaximumBackward0", maximum_bw, "self: self, other; other: self, other"),
    D(minimum, "MinimumBackward0", minimum_bw, "self: self, other; other: self, other"),
    D(eq__Tensor, "EqBackward1", mt_bw_zero_grads, "self:"),
    D(eq__Scalar, "EqBackward0", mt_bw_zero_grads, "self:"),
    D(ne__Tensor, "NeBackward1", mt_bw_zero_grads, "self:"),
    D(ne__Scalar, "NeBackward0", mt_bw_zero_grads, "self:"),
    D(lt__Tensor, "LtBackward1", mt_bw_zero_grads, "self:"),
    D(lt__Scalar, "LtBackward0", mt_bw_zero_grads, "self:"),
    D(le__Tensor, "LeBackward1", mt_bw_zero_grads, "self:"),
    D(le__Scalar, "LeBackward0", mt_bw_zero_grads, "self:"),
    D(gt__Tensor, "GtBackward1", mt_bw_zero_grads, "self:"),
    D(gt__Scalar, "GtBackward0", mt_bw_zero_grads, "self:"),
    D(ge__Tensor, "GeBackward1", mt_bw_zero_grads, "self:"),
    D(ge__Scalar, "GeBackward0", mt_bw_zero_grads, "self:"),
    D(neg, "NegBackward0", neg_bw, "self:"),
    D(neg_, "NegBackward0", neg_bw, "self:"),
    D(abs, "AbsBackward0", abs_bw, "self: self"),
    D(abs_, "AbsBackward0", abs_bw, "self: self"),
    D(sign, "SignBackward0", mt_bw_zero_grads, "self:"),
    D(sign_, "SignBackward0", mt_bw_zero_grads, "self:"),
    D(reciprocal, "ReciprocalBackward0", reciprocal_bw, "self: result"),
    D(reciprocal_, "ReciprocalBackward0", reciprocal_bw, "self: result"),
    D(sqrt, "SqrtBackward0", sqrt_bw, "self: result"),
    D(sqrt_, "SqrtBackward0", sqrt_bw, "self: result"),
    D(rsqrt, "RsqrtBackward0", rsqrt_bw, "self: result"),
    D(rsqrt_, "RsqrtBackward0", rsqrt_bw, "self: result"),
    D(exp, "ExpBackward0", exp_bw, "self: result"),
    D(exp_, "ExpBackward0", exp_bw, "self: result"),
    D(exp2, "Exp2Backward0", exp2_bw, "self: result"),
    D(exp2_, "Exp2Backward0", exp2_bw, "self: result"),
    D(expm1, "Expm1Backward0", expm1_bw, "self: result"),
    D(expm1_, "Expm1Backward0", expm1_bw, "self: result"),
    D(log, "LogBackward0", log_bw, "self: self"),
    D(log_, "LogBackward0", log_bw, "self: self"),
    D(log2, "Log2Backward0", log2_bw, "self: self"),
    D(log2_, "Log2Backward0", log2_bw, "self: self"),
    D(log10, "Log10Backward0", log10_bw, "self: self"),
    D(log10_, "Log10Backward0", log10_bw, "self: self"),
    D(log1p, "Log1PBackward0", log1p_bw, "self: self"),
    D(log1p_, "Log1PBackward0", log1p_bw, "self: self"),
    D(sin, "SinBackward0", sin_bw, "self: self"),
    D(sin_, "SinBackward0", sin_bw, "self: self"),
    D(cos, "CosBackward0", cos_bw, "self: self"),
    D(cos_, "CosBackward0", cos_bw, "self: self"),
    D(tan, "TanBackward0", tan_bw, "self: result"),
    D(tan_, "TanBackward0", tan_bw, "self: result"),
    D(asin, "AsinBackward0", asin_bw, "self: self"),
    D(asin_, "AsinBackward0", asin_bw, "self: self"),
    D(acos, "AcosBackward0", acos_bw, "self: self"),
    D(acos_, "AcosBackward0", acos_bw, "self: self"),
    D(atan, "AtanBackward0", atan_bw, "self: self"),
    D(atan_, "AtanBackward0", atan_bw, "self: self"),
    D(sinh, "SinhBackward0", sinh_bw, "self: self"),
    D(sinh_, "SinhBackward0", sinh_bw, "self: self"),
    D(cosh, "CoshBackward0", cosh_bw, "self: self"),
    D(cosh_, "CoshBackward0", cosh_bw, "self: self"),
    D(erf, "ErfBackward0", erf_bw, "self: self"),
    D(erf_, "ErfBackward0", erf_bw, "self: self"),
    D(erfc, "ErfcBackward0", erfc_bw, "self: self"),
    D(erfc_, "ErfcBackward0", erfc_bw, "self: self"),
    D(erfinv, "ErfinvBackward0", erfinv_bw, "self: result"),
    D(erfinv_, "ErfinvBackward0", erfinv_bw, "self: result"),
    D(tanh, "TanhBackward0", tanh_bw, "self: result"),
    D(tanh_, "TanhBackward0", tanh_bw, "self: result"),
    D(sigmoid, "SigmoidBackward0", sigmoid_bw, "self: result"),
    D(sigmoid_, "SigmoidBackward0", sigmoid_bw, "self: result"),
    D(relu, "ReluBackward0", relu_bw, "self: result"),
    D(relu_, "ReluBackward0", relu_bw, "self: result"),
    D(floor, "FloorBackward0", mt_bw_zero_grads, "self:"),
    D(floor_, "FloorBackward0", mt_bw_zero_grads, "self:"),
    D(ceil, "CeilBackward0", mt_bw_zero_grads, "self:"),
    D(ceil_, "CeilBackward0", mt_bw_zero_grads, "self:"),
    D(round, "RoundBackward0", mt_bw_zero_grads, "self:"),
    D(round_, "RoundBackward0", mt_bw_zero_grads, "self:"),
    D(round_decimals, "RoundBackward1", mt_bw_zero_grads, "self:"),
    D(round__decimals, "RoundBackward1", mt_bw_zero_grads, "self:"),
    D(trunc, "TruncBackward0", mt_bw_zero_grads, "self:"),
    D(trunc_, "TruncBackward0", mt_bw_zero_grads, "self:"),
    D(frac, "FracBackward0", mt_bw_pass, "self:"),
    D(frac_, "FracBackward0", mt_bw_pass, "self:"),
    D(gelu, "GeluBackward0", gelu_bw, "self: self"),
    D(gelu_, "GeluBackward0", gelu_bw, "self: self"),
    D(silu, "SiluBackward0", silu_bw, "self: self"),
    D(silu_, "SiluBackward0", silu_bw, "self: self"),
    D(softplus, "SoftplusBackward0", softplus_bw, "self: self"),
    D(elu, "EluBackward0", elu_bw, "self: self"),
    D(elu_, "EluBackward0", elu_bw, "self: self"),
    D(leaky_relu, "LeakyReluBackward0", leaky_relu_bw, "self: self"),
    D(leaky_relu_, "LeakyReluBackward0", leaky_relu_bw, "self: self"),
    D(hardtanh, "HardtanhBackward0", hardtanh_bw, "self: self"),
    D(hardtanh_, "HardtanhBackward0", hardtanh_bw, "self: self"),
    D(clamp, "ClampBackward1", clamp_bw, "self: self"),
    D(clamp_, "ClampBackward1", clamp_bw, "self: self"),
    D(clip, "ClampBackward1", clamp_bw, "self: self"),
    D(clip_, "ClampBackward1", clamp_bw, "self: self"),
    D(clamp_Tensor, "ClampBackward0", clamp_tensor_bw, "self: self, min, max; min: self, min, max; max: self, min, max"),
    D(clip_Tensor, "ClampBackward0", clamp_tensor_bw, "self: self, min, max; min: self, min, max; max: self, min, max"),
    D(clamp__Tensor, "ClampBackward0", clamp_tensor_bw, "self: self, min, max; min: self, min, max; max: self, min, max"),
    D(lerp_Scalar, "LerpBackward0", lerp_scalar_bw, "self:; end:"),
    D(lerp__Scalar, "LerpBackward0", lerp_scalar_bw, "self:; end:"),
    D(lerp_Tensor, "LerpBackward1", lerp_tensor_bw, "self: weight; end: weight; weight: self, end"),
    D(lerp__Tensor, "LerpBackward1", lerp_tensor_bw, "self: weight; end: weight; weight: self, end"),
    D(addcmul, "AddcmulBackward0", addcmul_bw, "self:; tensor1: tensor2; tensor2: tensor1"),
    D(addcmul_, "AddcmulBackward0", addcmul_bw, "self:; tensor1: tensor2; tensor2: tensor1"),
    D(addcdiv, "AddcdivBackward0", addcdiv_bw, "self:; tensor1: tensor2; tensor2: tensor1, tensor2"),
    D(addcdiv_, "AddcdivBackward0", addcdiv_bw, "self:; tensor1: tensor2; tensor2: tensor1, tensor2"),
    D(where_self, "WhereBackward0", where_bw, "self: condition; other: condition"),
    D(where_ScalarSelf, "WhereBackward0", where_bw, "other: condition"),
    D(where_ScalarOther, "WhereBackward0", where_bw, "self: condition"),
};

void mt_deriv_ew_register(void) { mt_derivatives_register(table, (int)MT_ARRAY_LEN(table)); }
