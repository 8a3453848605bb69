/* deriv_stats.c: derivative formulas of the statistics ops (src/ops/statistics.lua) that their
 * declarations name. */
#include "autograd_impl.h"
#include "formula.h"

/* cummax/cummin: each gradient goes back to the position its value came from (PyTorch's
 * cummaxmin_backward: zeros with the gradient added at the indices along dim) */
void mt_d_cummaxmin(mt_bw *b) {
    mt_tensor *x = A(0);
    if (x->ndim == 0 || x->numel == 0) {
        SET(0, x->ndim == 0 ? G(0) : K(mt_zeros_meta(META(0))));
        return;
    }
    mt_tensor *z = K(mt_zeros_meta(META(0)));
    if (z->dtype != G(0)->dtype) z = K(mto_to_dtype(z, (mt_dtype)G(0)->dtype, false, false));
    SET(0, K(mto_scatter_add(z, mt_wrap(V(1).i, x->ndim), R(1), G(0))));
}
