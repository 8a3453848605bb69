/* batch_norm.c: native_batch_norm and _batch_norm_with_var, composed of ops (so every device has
 * them), and the meta function of the fused backward, _native_batch_norm_backward (the CPU's
 * kernel: backends/cpu/cpu_batch_norm.c).
 *
 * The forward is already a few passes (var_mean, then one multiply-add over the input); what
 * autograd made of it was not: the composition's backward read the activations about a dozen
 * times. So _batch_norm_with_var is one op to autograd (NativeBatchNormBackward0, as PyTorch's),
 * whose derivative (src/autograd/deriv_nn.c) calls the fused backward where a kernel exists, and
 * native_batch_norm is that op followed by the running statistics' update, which the node must
 * not see: it saves what it reads, and an update after the save would fail its version check. */
#include "common_ops.h"
#include "mt_autograd.h"
#include "mt_ops_gen.h"
#include "nn_shapes.h"

#include <string.h>

/* the reduced dims of an (N, C, *) input: all but 1 */
static mt_ilist stat_dims(const mt_tensor *x, int64_t *dims) {
    int n = 0;
    for (int i = 0; i < x->ndim; i++)
        if (i != 1) dims[n++] = i;
    return (mt_ilist){dims, n};
}

/* (1, C, 1, ...): a per-channel vector's shape against the input */
static mt_ilist channel_shape(const mt_tensor *x, int64_t *shape) {
    for (int i = 0; i < x->ndim; i++) shape[i] = i == 1 ? x->sizes[1] : 1;
    return (mt_ilist){shape, x->ndim};
}

/* PyTorch's checks of torch.batch_norm's arguments */
static int check_args(const mt_tensor *x, mt_tensor *const *per_channel) {
    static const char *names[4] = {"weight", "bias", "running_mean", "running_var"};
    if (x->ndim < 2)
        return mt_error(MT_ERR_INDEX,
                        "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    if (!mt_dtype_is_floating((mt_dtype)x->dtype) || x->dtype == MT_FLOAT16)
        return mt_error(MT_ERR_RUNTIME, "\"batch_norm\" not implemented for '%s'",
                        mt_dtype_scalar_name((mt_dtype)x->dtype));
    for (int i = 0; i < 4; i++)
        if (per_channel[i] && per_channel[i]->numel != x->sizes[1])
            return mt_error(MT_ERR_RUNTIME, "%s should contain %lld elements not %lld", names[i],
                            (long long)x->sizes[1], (long long)per_channel[i]->numel);
    return 0;
}

/* _batch_norm_with_var(input, weight, bias, running_mean, running_var, training, eps) -> (out,
 * save_mean, save_invstd, batch variance): one node to autograd, which reads the running
 * statistics in evaluation and never writes them (native_batch_norm does, after it) */
static int c_batch_norm_with_var(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[0].t, *pc[4] = {mt_vopt_tensor(a[1]), mt_vopt_tensor(a[2]),
                                     mt_vopt_tensor(a[3]), mt_vopt_tensor(a[4])};
    mt_tensor *weight = pc[0], *bias = pc[1], *rmean = pc[2], *rvar = pc[3];
    bool training = a[5].b;
    double eps = a[6].d;
    if (check_args(x, pc)) return -1;
    if (!training && (!rmean || !rvar))
        return mt_error(MT_ERR_RUNTIME, "running_mean and running_var must be defined in "
                                        "evaluation mode");
    int64_t dims[MT_MAX_DIM], shape[MT_MAX_DIM], zero = 0;
    mt_ilist rd = stat_dims(x, dims), cs = channel_shape(x, shape), none = {&zero, 1};
    mt_tensor *mean = NULL, *var = NULL, *invstd = NULL, *scale = NULL, *shift = NULL;
    mt_tensor *save_mean = NULL, *save_invstd = NULL, *out = NULL, *t = NULL;
    int st = -1;
    if (training) {
        if (mto_var_mean_correction(x, rd, mt_vint(0), false, &var, &mean)) goto done;
        t = mto_add_Scalar(var, mt_vdouble(eps), mt_vint(1));
    } else {
        mean = rmean;
        mt_tensor_incref(mean);
        t = mto_add_Scalar(rvar, mt_vdouble(eps), mt_vint(1));
        var = mto_empty(none, x->dtype, x->device, false, false, NULL);
    }
    if (!t || !var || !(invstd = mto_rsqrt(t))) goto done;
    mt_tensor_decref(t);
    t = NULL;
    if (training) {
        save_mean = mean, save_invstd = invstd;
        mt_tensor_incref(save_mean);
        mt_tensor_incref(save_invstd);
    } else if (!(save_mean = mto_empty(none, x->dtype, x->device, false, false, NULL)) ||
               !(save_invstd = mto_empty(none, x->dtype, x->device, false, false, NULL))) {
        goto done;
    }
    /* out = input * scale + shift per channel: scale = weight * invstd, shift = bias - mean *
     * scale (one pass over the input, as PyTorch's CPU kernel) */
    scale = weight ? mto_mul_Tensor(invstd, weight) : (mt_tensor_incref(invstd), invstd);
    if (!scale || !(t = mto_mul_Tensor(mean, scale))) goto done;
    shift = bias ? mto_sub_Tensor(bias, t, mt_vint(1)) : mto_neg(t);
    if (!shift) goto done;
    mt_tensor *sv = mto_view(shift, cs), *cv = sv ? mto_view(scale, cs) : NULL;
    if (cv) out = mto_addcmul(sv, x, cv, mt_vint(1));
    mt_tensor_decref(sv);
    mt_tensor_decref(cv);
    if (!out) goto done;
    r[0] = mt_vtensor(out);
    r[1] = mt_vtensor(save_mean);
    r[2] = mt_vtensor(save_invstd);
    r[3] = mt_vtensor(var);
    save_mean = save_invstd = var = NULL;
    st = 0;
done:
    mt_tensor_decref(t);
    mt_tensor_decref(mean);
    mt_tensor_decref(var);
    mt_tensor_decref(invstd);
    mt_tensor_decref(scale);
    mt_tensor_decref(shift);
    mt_tensor_decref(save_mean);
    mt_tensor_decref(save_invstd);
    return st;
}

/* native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
 * _batch_norm_with_var, then, in training, the running statistics moved towards the batch's mean
 * and unbiased variance, out of autograd's sight (as ATen's kernel writes them) */
static int c_native_batch_norm(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[0].t, *rmean = mt_vopt_tensor(a[3]), *rvar = mt_vopt_tensor(a[4]);
    bool training = a[5].b;
    double momentum = a[6].d;
    mt_tensor *pc[4] = {mt_vopt_tensor(a[1]), mt_vopt_tensor(a[2]), rmean, rvar};
    if (check_args(x, pc)) return -1;
    mt_tensor *out, *mean, *invstd, *var;
    /* the running statistics reach the node only in evaluation, where nothing writes them */
    if (mto__batch_norm_with_var(x, mt_vopt_tensor(a[1]), mt_vopt_tensor(a[2]),
                                 training ? NULL : rmean, training ? NULL : rvar, training, a[7].d,
                                 &out, &mean, &invstd, &var))
        return -1;
    int st = 0;
    if (training && rmean && rvar && x->numel > 0) { /* an empty batch leaves them, as PyTorch */
        int64_t n = x->numel / x->sizes[1];
        double unbias = (double)n / (double)(n - 1); /* inf for one value, as PyTorch's */
        bool grad = mt_grad_enabled();
        mt_set_grad_enabled(false);
        mt_tensor *t[4] = {mto_mul__Scalar(rmean, mt_vdouble(1 - momentum)), NULL, NULL, NULL};
        if (t[0]) t[1] = mto_add__Tensor(rmean, mean, mt_vdouble(momentum));
        if (t[1]) t[2] = mto_mul__Scalar(rvar, mt_vdouble(1 - momentum));
        if (t[2]) t[3] = mto_add__Tensor(rvar, var, mt_vdouble(momentum * unbias));
        mt_set_grad_enabled(grad);
        st = t[3] ? 0 : -1;
        for (int i = 0; i < 4; i++) mt_tensor_decref(t[i]);
    }
    mt_tensor_decref(var);
    if (st) {
        mt_tensor_decref(out);
        mt_tensor_decref(mean);
        mt_tensor_decref(invstd);
        return -1;
    }
    r[0] = mt_vtensor(out);
    r[1] = mt_vtensor(mean);
    r[2] = mt_vtensor(invstd);
    return 0;
}

/* _native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
 * save_invstd, train, eps): the input's gradient shaped as the input, weight's and bias's per
 * channel, in the input's dtype */
static int meta_native_batch_norm_backward(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *g = a[0].t, *x = a[1].t;
    mt_tensor *pc[4] = {mt_vopt_tensor(a[2]), NULL, mt_vopt_tensor(a[3]), mt_vopt_tensor(a[4])};
    if (check_args(x, pc)) return -1;
    if (g->ndim != x->ndim || memcmp(g->sizes, x->sizes, sizeof(int64_t) * (size_t)x->ndim)) {
        char gs[160], xs[160];
        return mt_error(MT_ERR_RUNTIME,
                        "native_batch_norm_backward: grad_out of size %s does not match input "
                        "of size %s",
                        mt_sizes_str(g->ndim, g->sizes, gs, sizeof gs),
                        mt_sizes_str(x->ndim, x->sizes, xs, sizeof xs));
    }
    mt_tensor *stats[2] = {a[7].b ? mt_vopt_tensor(a[5]) : mt_vopt_tensor(a[3]),
                           a[7].b ? mt_vopt_tensor(a[6]) : mt_vopt_tensor(a[4])};
    for (int i = 0; i < 2; i++)
        if (!stats[i] || stats[i]->numel != x->sizes[1])
            return mt_error(
                MT_ERR_RUNTIME, "native_batch_norm_backward: %s should contain %lld elements",
                a[7].b ? (i ? "save_invstd" : "save_mean") : (i ? "running_var" : "running_mean"),
                (long long)x->sizes[1]);
    o[0].ndim = (int8_t)x->ndim;
    memcpy(o[0].sizes, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
    for (int i = 0; i < 3; i++) o[i].dtype = x->dtype;
    o[1].ndim = o[2].ndim = 1;
    o[1].sizes[0] = o[2].sizes[0] = x->sizes[1];
    return 0;
}

void mt_batch_norm_register(void) {
    mt_disp_composite(MT_OP_native_batch_norm, c_native_batch_norm);
    mt_disp_composite(MT_OP__batch_norm_with_var, c_batch_norm_with_var);
    mt_disp_meta(MT_OP__native_batch_norm_backward, meta_native_batch_norm_backward);
}
