/* deriv_stats.c: derivative formulas of the statistics ops (src/ops/statistics.lua) that their
 * declarations name. */
#include "autograd_impl.h"
#include "formula.h"

#include <float.h>

/* cummax/cummin: each gradient goes back to the position its value came from (PyTorch's
 * cummaxmin_backward: zeros with the gradient added at the indices along dim) */
void mt_d_cummaxmin(mt_bw *b) {
    mt_tensor *x = A(0);
    if (x->ndim == 0 || x->numel == 0) {
        SET(0, x->ndim == 0 ? G(0) : K(mt_zeros_meta(META(0))));
        return;
    }
    mt_tensor *z = K(mt_zeros_meta(META(0)));
    if (z->dtype != G(0)->dtype) z = K(mto_to_dtype(z, (mt_dtype)G(0)->dtype, false, false, NULL));
    SET(0, K(mto_scatter_add(z, mt_wrap(V(1).i, x->ndim), R(1), G(0))));
}

/* logcumsumexp: PyTorch's formula (after TensorFlow's), the gradient's positive and negative
 * parts each summed from the end in log space */
static mt_tensor *reverse_logcumsumexp(mt_bw *b, mt_tensor *x, int64_t d) {
    mt_ilist flip = {&d, 1};
    return K(mto_flip(K(mto_logcumsumexp(K(mto_flip(x, flip)), d)), flip));
}

void mt_d_logcumsumexp(mt_bw *b) {
    mt_tensor *g = G(0), *x = A(0), *res = R(0);
    if (g->ndim == 0 || g->numel == 0) {
        SET(0, g);
        return;
    }
    int64_t d = mt_wrap(V(1).i, x->ndim);
    double lowest = g->dtype == MT_FLOAT64    ? -DBL_MAX
                    : g->dtype == MT_FLOAT16  ? -65504.0
                    : g->dtype == MT_BFLOAT16 ? -3.3895313892515355e38
                                              : -FLT_MAX;
    mt_tensor *log_abs = K(mto_log(K(mto_abs(g))));
    mt_tensor *pos =
        K(mto_where_ScalarOther(K(mto_gt_Scalar(g, SI(0))), log_abs, mt_vdouble(lowest)));
    mt_tensor *neg =
        K(mto_where_ScalarOther(K(mto_lt_Scalar(g, SI(0))), log_abs, mt_vdouble(lowest)));
    mt_tensor *out_pos = K(mto_exp(K(
        mto_add_Tensor(reverse_logcumsumexp(b, K(mto_sub_Tensor(pos, res, SI(1))), d), x, SI(1)))));
    mt_tensor *out_neg = K(mto_exp(K(
        mto_add_Tensor(reverse_logcumsumexp(b, K(mto_sub_Tensor(neg, res, SI(1))), d), x, SI(1)))));
    SET(0, K(mto_sub_Tensor(out_pos, out_neg, SI(1))));
}
