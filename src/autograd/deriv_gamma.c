/* deriv_gamma.c: the derivatives of src/ops/gamma.lua that need more than a formula: polygamma
 * (its order is an int argument, raised by one), the incomplete gamma functions (no derivative
 * in their first argument, as PyTorch) and logit (its eps decides the values outside the
 * clamp). */
#include "formula.h"
#include "mt_ops_gen.h"

/* d/dx psi^(n)(x) = psi^(n+1)(x); argument 1 is n */
void mt_d_polygamma(mt_bw *b) {
    if (NEEDS(0)) SET(0, K(mto_mul_Tensor(G(0), K(mto__polygamma(A(0), V(1).i + 1)))));
}

/* d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) = -d/dx Q(a, x) */
static void igamma_bw(mt_bw *b, const char *what, bool upper) {
    if (NEEDS(0)) {
        mt_error(MT_ERR_RUNTIME, "the derivative for '%s' is not implemented.", what);
        mt_bw_fail(b);
    }
    if (!NEEDS(1)) return;
    mt_tensor *a = A(0), *x = A(1);
    mt_tensor *t = K(mto_mul_Tensor(K(mto_sub_Scalar(a, SI(1), SI(1))), K(mto_log(x))));
    t = K(mto_sub_Tensor(K(mto_sub_Tensor(t, x, SI(1))), K(mto_lgamma(a)), SI(1)));
    mt_tensor *g = K(mto_mul_Tensor(G(0), K(mto_exp(t))));
    SET(1, upper ? K(mto_neg(g)) : g);
}
void mt_d_igamma(mt_bw *b) {
    igamma_bw(b, "igamma: input", false);
}
void mt_d_igammac(mt_bw *b) {
    igamma_bw(b, "igammac: input", true);
}

/* grad / (x (1 - x)); outside [0, 1] NaN without eps, outside [eps, 1 - eps] 0 with one */
void mt_d_logit(mt_bw *b) {
    if (!NEEDS(0)) return;
    mt_tensor *x = A(0);
    mt_tensor *g =
        K(mto_div_Tensor(G(0), K(mto_mul_Tensor(x, K(mto_rsub_Scalar(x, SI(1), SI(1)))))));
    bool has_eps = V(1).tag != MT_V_NONE && NUM(1) >= 0;
    double lo = has_eps ? NUM(1) : 0, hi = has_eps ? 1 - NUM(1) : 1;
    mt_tensor *out = K(mto_logical_or(K(mto_lt_Scalar(x, SD(lo))), K(mto_gt_Scalar(x, SD(hi)))));
    SET(0, K(mto_masked_fill_Scalar(g, out, SD(has_eps ? 0.0 : NAN))));
}
