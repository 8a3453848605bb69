/* deriv_ew.c: the derivatives of element-wise ops that need more than one expression (a
 * branch on an argument, a shared subexpression on a hot path). Every other element-wise
 * derivative is a formula in its op's declaration (src/ops/elementwise.lua, `grad`); these
 * functions are named there with `fn` (PyTorch's derivatives.yaml, as facts: the formulas and
 * the node names). */
#include "formula.h"
#include "mt_ops_gen.h"

#include <string.h>

void mt_d_add(mt_bw *b) {
    if (NEEDS(0)) SET(0, G(0));
    if (NEEDS(1)) SET(1, NUM(2) == 1 ? G(0) : K(mto_mul_Scalar(G(0), V(2))));
}

/* relu: the gradient where the result is above 0, in one pass (_threshold_grad, PyTorch's
 * threshold_backward) on devices that have the op; the others compose it (a mask, then a fill) */
void mt_d_relu(mt_bw *b) {
    mt_tensor *r = R(0), *g = G(0);
    if (mt_disp_has_kernel(MT_OP__threshold_grad, r->device.type))
        SET(0, K(mto__threshold_grad(r, g, mt_vint(0))));
    else
        SET(0, K(mto_masked_fill_Scalar(g, K(mto_le_Scalar(r, mt_vint(0))), mt_vint(0))));
}

static void div_bw(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_div_Tensor(G(0), A(1))));
    if (NEEDS(1)) { /* -grad * (self / other) / other */
        mt_tensor *q = K(mto_div_Tensor(K(mto_div_Tensor(A(0), A(1))), A(1)));
        SET(1, K(mto_mul_Tensor(K(mto_neg(G(0))), q)));
    }
}
static void div_scalar_bw(mt_bw *b) {
    SET(0, K(mto_div_Scalar(G(0), V(1))));
}
/* rounding division: zero gradients (true division when the mode is None) */
void mt_d_div_mode(mt_bw *b) {
    if (V(2).tag == MT_V_STR) {
        if (NEEDS(0)) SET(0, mt_bw_zeros(b, 0));
        if (NEEDS(1)) SET(1, mt_bw_zeros(b, 1));
        return;
    }
    div_bw(b);
}
void mt_d_div_scalar_mode(mt_bw *b) {
    if (V(2).tag == MT_V_STR)
        SET(0, mt_bw_zeros(b, 0));
    else
        div_scalar_bw(b);
}

/* d/dx x^p = p x^(p-1), zero where p == 0 (0^0 has slope 0 there) */
static mt_tensor *pow_self_grad(mt_bw *b, mt_tensor *self, mt_tensor *exponent) {
    mt_tensor *d = K(mto_mul_Tensor(
        exponent, K(mto_pow_Tensor_Tensor(self, K(mto_sub_Scalar(exponent, SD(1), SI(1)))))));
    mt_tensor *g = K(mto_mul_Tensor(G(0), d));
    return K(mto_masked_fill_Scalar(g, K(mto_eq_Scalar(exponent, SI(0))), SD(0)));
}
void mt_d_pow_tt(mt_bw *b) {
    if (NEEDS(0)) SET(0, pow_self_grad(b, A(0), A(1)));
    if (NEEDS(1)) { /* grad * result * log(self), zero where self == 0 and exponent >= 0 */
        mt_tensor *g = K(mto_mul_Tensor(K(mto_mul_Tensor(G(0), R(0))), K(mto_log(A(0)))));
        mt_tensor *mask =
            K(mto_logical_and(K(mto_eq_Scalar(A(0), SI(0))), K(mto_ge_Scalar(A(1), SI(0)))));
        SET(1, K(mto_masked_fill_Scalar(g, mask, SD(0))));
    }
}
void mt_d_pow_ts(mt_bw *b) {
    double p = NUM(1);
    if (p == 0) {
        SET(0, mt_bw_zeros(b, 0));
        return;
    }
    mt_tensor *d = K(mto_mul_Scalar(K(mto_pow_Tensor_Scalar(A(0), SD(p - 1))), SD(p)));
    SET(0, K(mto_mul_Tensor(G(0), d)));
}
void mt_d_pow_scalar(mt_bw *b) { /* base ** exponent: grad * result * log(base) */
    double base = NUM(0);
    mt_tensor *g = K(mto_mul_Scalar(K(mto_mul_Tensor(G(0), R(0))), SD(log(base))));
    if (base == 0) g = K(mto_masked_fill_Scalar(g, K(mto_ge_Scalar(A(1), SI(0))), SD(0)));
    SET(1, g);
}

/* maximum / minimum: the larger (smaller) side takes the gradient; ties split it */
static void extremum_bw(mt_bw *b, bool max) {
    mt_tensor *tie = K(mto_eq_Tensor(A(0), A(1)));
    mt_tensor *g = K(mto_where_self(tie, K(mto_div_Scalar(G(0), SI(2))), G(0)));
    if (NEEDS(0))
        SET(0, K(mto_masked_fill_Scalar(
                   g, K(max ? mto_lt_Tensor(A(0), A(1)) : mto_gt_Tensor(A(0), A(1))), SD(0))));
    if (NEEDS(1))
        SET(1, K(mto_masked_fill_Scalar(
                   g, K(max ? mto_gt_Tensor(A(0), A(1)) : mto_lt_Tensor(A(0), A(1))), SD(0))));
}
void mt_d_maximum(mt_bw *b) {
    extremum_bw(b, true);
}
void mt_d_minimum(mt_bw *b) {
    extremum_bw(b, false);
}

/* 1 - x^2 */
static mt_tensor *one_minus_sq(mt_bw *b, mt_tensor *x) {
    return K(mto_rsub_Scalar(K(mto_mul_Tensor(x, x)), SI(1), SI(1)));
}

void mt_d_gelu(mt_bw *b) {
    mt_tensor *x = A(0);
    mt_tensor *d;
    if (V(1).tag == MT_V_STR && strcmp(V(1).s, "tanh") == 0) {
        /* u = k (x + c x^3): d/dx 0.5 x (1 + tanh u) = 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c
         * x^2) */
        const double k = 0.79788456080286535588, c = 0.044715;
        mt_tensor *x2 = K(mto_mul_Tensor(x, x));
        mt_tensor *u = K(mto_mul_Scalar(
            K(mto_add_Tensor(x, K(mto_mul_Scalar(K(mto_mul_Tensor(x2, x)), SD(c))), SI(1))),
            SD(k)));
        mt_tensor *t = K(mto_tanh(u));
        mt_tensor *left = K(mto_mul_Scalar(K(mto_add_Scalar(t, SI(1), SI(1))), SD(0.5)));
        mt_tensor *du = K(mto_mul_Scalar(
            K(mto_add_Scalar(K(mto_mul_Scalar(x2, SD(3 * c))), SI(1), SI(1))), SD(k)));
        mt_tensor *right = K(mto_mul_Tensor(
            K(mto_mul_Tensor(K(mto_mul_Scalar(x, SD(0.5))), one_minus_sq(b, t))), du));
        d = K(mto_add_Tensor(left, right, SI(1)));
    } else { /* Phi(x) + x phi(x) */
        /* Phi(x) = 0.5 (1 + erf(x / sqrt 2)) from the forward: gelu(x) / x is Phi where x != 0 */
        mt_tensor *pdf =
            K(mto_mul_Scalar(K(mto_exp(K(mto_mul_Scalar(K(mto_mul_Tensor(x, x)), SD(-0.5))))),
                             SD(0.39894228040143267794)));
        mt_tensor *phi_cdf = K(mto_gelu(x, "none"));
        /* x Phi(x) is the forward; Phi(x) = gelu(x)/x except at 0, where it is 0.5 */
        mt_tensor *zero = K(mto_eq_Scalar(x, SI(0)));
        mt_tensor *safe_x = K(mto_masked_fill_Scalar(x, zero, SD(1)));
        mt_tensor *cdf2 =
            K(mto_masked_fill_Scalar(K(mto_div_Tensor(phi_cdf, safe_x)), zero, SD(0.5)));
        d = K(mto_add_Tensor(cdf2, K(mto_mul_Tensor(x, pdf)), SI(1)));
    }
    SET(0, K(mto_mul_Tensor(G(0), d)));
}
void mt_d_silu(mt_bw *b) { /* s (1 + x (1 - s)) */
    mt_tensor *s = K(mto_sigmoid(A(0)));
    mt_tensor *d = K(mto_mul_Tensor(
        s, K(mto_add_Scalar(K(mto_mul_Tensor(A(0), K(mto_rsub_Scalar(s, SI(1), SI(1))))), SI(1),
                            SI(1)))));
    SET(0, K(mto_mul_Tensor(G(0), d)));
}

void mt_d_clamp(mt_bw *b) { /* the gradient passes where min <= x <= max */
    mt_tensor *g = G(0);
    if (V(1).tag != MT_V_NONE)
        g = K(mto_masked_fill_Scalar(g, K(mto_lt_Scalar(A(0), V(1))), SD(0)));
    if (V(2).tag != MT_V_NONE)
        g = K(mto_masked_fill_Scalar(g, K(mto_gt_Scalar(A(0), V(2))), SD(0)));
    SET(0, g);
}
void mt_d_clamp_tensor(mt_bw *b) {
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
