/* deriv_nn.c: derivative formulas of the convolution and pooling ops. A convolution's input
 * gradient is the convolution the other way round (transposed <-> not), so it is itself
 * differentiable; the weight gradient is its own op. */
#include "formula.h"

#include <string.h>

/* entry i of a stride/padding/... list of one value or one per spatial dim */
static int64_t at(mt_value v, int i) {
    return v.il[v.n == 1 ? 0 : i];
}

/* convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
 */
static void convolution_bw(mt_bw *b) {
    bool transposed = V(6).b;
    if (NEEDS(0)) {
        const mt_input_meta *mi = META(0);
        mt_tensor *w = A(1);
        int sp = w->ndim - 2;
        /* a convolution's input gradient is a transposed convolution whose output_padding
         * restores the rows and columns the forward's stride skipped */
        int64_t opad[3] = {0, 0, 0};
        for (int i = 0; !transposed && i < sp; i++) {
            int64_t s = at(V(3), i), p = at(V(4), i), d = at(V(5), i), k = w->sizes[2 + i];
            opad[i] = mi->sizes[2 + i] - ((G(0)->sizes[2 + i] - 1) * s - 2 * p + d * (k - 1) + 1);
        }
        mt_tensor *gi =
            K(mto_convolution(G(0), w, NULL, mt_vlist(V(3)), mt_vlist(V(4)), mt_vlist(V(5)),
                              !transposed, (mt_ilist){opad, sp}, V(8).i));
        /* in the layout the forward gave its result, as PyTorch's: channels-last when the weight
         * or the input (saved when the weight's gradient is wanted too) suggests it */
        const char *cl = "channels_last";
        if (!transposed && w->ndim == 4 &&
            (!strcmp(mt_suggest_memory_format(w), cl) ||
             (A(0) && !strcmp(mt_suggest_memory_format(A(0)), cl))))
            gi = K(mto_contiguous(gi, cl));
        SET(0, gi);
    }
    if (NEEDS(1)) {
        const mt_input_meta *mw = META(1);
        SET(1,
            K(mto_convolution_backward_weight(G(0), A(0), mt_meta_sizes(mw), mt_vlist(V(3)),
                                              mt_vlist(V(4)), mt_vlist(V(5)), transposed, V(8).i)));
    }
    if (NEEDS(2)) {
        int64_t dims[MT_MAX_DIM];
        int n = 0;
        for (int i = 0; i < G(0)->ndim; i++)
            if (i != 1) dims[n++] = i;
        SET(2, K(mto_sum_dim_IntList(G(0), (mt_ilist){dims, n}, false, -1)));
    }
}

/* max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) */
static void max_pool_bw(mt_bw *b) {
    SET(0, K(mto_max_pool2d_with_indices_backward(G(0), A(0), mt_vlist(V(1)), mt_vlist(V(2)),
                                                  mt_vlist(V(3)), mt_vlist(V(4)), V(5).b, R(1))));
}

/* the backward's own gradient: grad picked at the maxima */
static void max_pool_bw_bw(mt_bw *b) {
    mt_tensor *g = K(mto_flatten_using_ints(G(0), -2, -1)),
              *idx = K(mto_flatten_using_ints(A(7), -2, -1));
    const mt_input_meta *m = META(0);
    SET(0, K(mto_view(K(mto_gather(g, -1, idx, false)), mt_meta_sizes(m))));
}

/* avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override) */
static void avg_pool_bw(mt_bw *b) {
    SET(0, K(mto_avg_pool2d_backward(G(0), A(0), mt_vlist(V(1)), mt_vlist(V(2)), mt_vlist(V(3)),
                                     V(4).b, V(5).b, V(6))));
}

static void avg_pool_bw_bw(mt_bw *b) {
    SET(0, K(mto_avg_pool2d(G(0), mt_vlist(V(2)), mt_vlist(V(3)), mt_vlist(V(4)), V(5).b, V(6).b,
                            V(7))));
}

static void adaptive_bw(mt_bw *b) {
    SET(0, K(mto__adaptive_avg_pool2d_backward(G(0), A(0))));
}

static void adaptive_bw_bw(mt_bw *b) {
    const mt_input_meta *m = META(0);
    SET(0, K(mto__adaptive_avg_pool2d(G(0), (mt_ilist){m->sizes + m->ndim - 2, 2})));
}

/* nll_loss_forward and nll_loss2d_forward(self, target, weight, reduction, ignore_index) ->
 * (output, total_weight): the gradient reaches self at the target classes only */
static void nll_loss_bw(mt_bw *b) {
    SET(0, K(mto_nll_loss_backward(G(0), A(0), A(1), A(2), V(3).i, V(4).i, R(1))));
}

static void nll_loss2d_bw(mt_bw *b) {
    SET(0, K(mto_nll_loss2d_backward(G(0), A(0), A(1), A(2), V(3).i, V(4).i, R(1))));
}

/* the backwards (grad_output, self, target, weight, reduction, ignore_index, total_weight) are
 * linear in grad_output: its gradient is the loss of the incoming gradient (the same total
 * weight divides a mean); nll_loss2d_backward's target is the one with 3 dims */
static void nll_loss_bw_bw(mt_bw *b) {
    mt_tensor *out = NULL, *total = NULL;
    int st = A(2)->ndim != 3
                 ? mto_nll_loss_forward(G(0), A(2), A(3), V(4).i, V(5).i, &out, &total)
                 : mto_nll_loss2d_forward(G(0), A(2), A(3), V(4).i, V(5).i, &out, &total);
    CHECK(st);
    K(total);
    SET(0, K(out));
}

/* _batch_norm_with_var(input, weight, bias, running_mean, running_var, training, eps):
 * the fused backward (two passes over the data) where a kernel takes it; otherwise, and when the
 * backward is itself recorded (create_graph), the formula written with ops: in training it
 * recomputes the batch's statistics from the input, so that a second derivative flows through
 * them */
static bool fused_bn_backward(mt_bw *b) {
    mt_tensor *x = A(0), *w = A(1);
    bool floating = x->dtype == MT_FLOAT32 || x->dtype == MT_FLOAT64;
    bool cpu = x->device.type == MT_DEV_CPU || x->device.type == MT_DEV_META;
    return !mt_grad_enabled() && floating && cpu && G(0)->dtype == x->dtype &&
           (!w || w->dtype == x->dtype);
}

void mt_d_native_batch_norm(mt_bw *b) {
    mt_tensor *g = G(0), *x = A(0), *w = A(1);
    bool train = V(5).b;
    double eps = V(6).d;
    int64_t dims[MT_MAX_DIM], shape[MT_MAX_DIM];
    int nd = 0;
    for (int i = 0; i < g->ndim; i++) {
        shape[i] = i == 1 ? g->sizes[1] : 1;
        if (i != 1) dims[nd++] = i;
    }
    mt_ilist rd = {dims, nd}, cs = {shape, g->ndim};
    if (!NEEDS(0) && !NEEDS(1)) {
        SET(2, K(mto_sum_dim_IntList(g, rd, false, -1)));
        return;
    }
    if (fused_bn_backward(b)) {
        mt_tensor *gi = NULL, *gw = NULL, *gb = NULL;
        CHECK(mto__native_batch_norm_backward(g, x, w, A(3), A(4), R(1), R(2), train, eps, &gi, &gw,
                                              &gb));
        K(gi), K(gw), K(gb);
        if (NEEDS(0)) SET(0, gi);
        if (NEEDS(1)) SET(1, gw);
        if (NEEDS(2)) SET(2, gb);
        return;
    }
    mt_tensor *mean = NULL, *invstd = NULL;
    if (train && mt_grad_enabled()) {
        mt_tensor *var = NULL;
        CHECK(mto_var_mean_correction(x, rd, mt_vint(0), false, &var, &mean));
        K(var), K(mean);
        invstd = K(mto_rsqrt(K(mto_add_Scalar(var, mt_vdouble(eps), mt_vint(1)))));
    } else if (train) {
        mean = R(1), invstd = R(2);
    } else {
        mean = A(3);
        invstd = K(mto_rsqrt(K(mto_add_Scalar(A(4), mt_vdouble(eps), mt_vint(1)))));
    }
    mt_tensor *xhat = K(mto_mul_Tensor(K(mto_sub_Tensor(x, K(mto_view(mean, cs)), mt_vint(1))),
                                       K(mto_view(invstd, cs))));
    mt_tensor *gb = K(mto_sum_dim_IntList(g, rd, false, -1));
    mt_tensor *gw = K(mto_sum_dim_IntList(K(mto_mul_Tensor(g, xhat)), rd, false, -1));
    if (NEEDS(0)) {
        mt_tensor *scale = K(mto_view(w ? K(mto_mul_Tensor(invstd, w)) : invstd, cs));
        mt_tensor *d = g;
        if (train) { /* g - mean(g) - xhat mean(g xhat) */
            double m = (double)(x->numel / (x->sizes[1] ? x->sizes[1] : 1));
            mt_tensor *c1 = K(mto_div_Scalar(K(mto_view(gb, cs)), mt_vdouble(m)));
            mt_tensor *c2 = K(mto_div_Scalar(K(mto_view(gw, cs)), mt_vdouble(m)));
            d = K(mto_sub_Tensor(K(mto_sub_Tensor(g, c1, mt_vint(1))), K(mto_mul_Tensor(xhat, c2)),
                                 mt_vint(1)));
        }
        SET(0, K(mto_mul_Tensor(d, scale)));
    }
    if (NEEDS(1)) SET(1, gw);
    if (NEEDS(2)) SET(2, gb);
}

static mt_derivative table[] = {
    D(convolution, "ConvolutionBackward0", convolution_bw, "input: weight; weight: input; bias:"),
    D_NOT_IMPLEMENTED(convolution_backward_weight, "ConvolutionBackwardWeightBackward0",
                      "grad_output:; input:", "convolution_backward_weight"),
    D(max_pool2d_with_indices, "MaxPool2DWithIndicesBackward0", max_pool_bw, "self: self, result1"),
    D(max_pool2d_with_indices_backward, "MaxPool2DWithIndicesBackwardBackward0", max_pool_bw_bw,
      "grad_output: indices"),
    D(avg_pool2d, "AvgPool2DBackward0", avg_pool_bw, "self: self"),
    D(avg_pool2d_backward, "AvgPool2DBackwardBackward0", avg_pool_bw_bw, "grad_output:"),
    D(_adaptive_avg_pool2d, "AdaptiveAvgPool2DBackward0", adaptive_bw, "self: self"),
    D(_adaptive_avg_pool2d_backward, "AdaptiveAvgPool2DBackwardBackward0", adaptive_bw_bw,
      "grad_output:"),
    D(nll_loss_forward, "NllLossBackward0", nll_loss_bw,
      "self: self, target, weight, result1; !weight:"),
    D(nll_loss2d_forward, "NllLoss2DBackward0", nll_loss2d_bw,
      "self: self, target, weight, result1; !weight:"),
    D(nll_loss_backward, "NllLossBackwardBackward0", nll_loss_bw_bw, "grad_output: target, weight"),
    D(nll_loss2d_backward, "NllLoss2DBackwardBackward0", nll_loss_bw_bw,
      "grad_output: target, weight"),
};

void mt_deriv_nn_register(void) {
    mt_derivatives_register(table, (int)MT_ARRAY_LEN(table));
}
