/* nll_loss.c: the negative log-likelihood loss ops' argument checks and result shapes (their meta
 * functions, so every device and the pipeline share them) and nll_loss_nd, the entry
 * F.nll_loss and F.cross_entropy call, composed of the others as PyTorch composes it: (C) and
 * (N, C) inputs go to nll_loss_forward, (N, C, H, W) to nll_loss2d_forward, and other ranks to
 * the latter as (N, C, 1, d1 * d2 ...). The CPU kernels: backends/cpu/cpu_nll_loss.c.
 *
 * The messages are PyTorch 1.13's, its spacing included. Targets arrive 0-based (the binding
 * converts the user's 1-based classes; a user's 0 arrives as MT_ZERO_SENTINEL, or as
 * MT_ZERO_SENTINEL_U8 in a uint8 target); the kernels quote a bad one as the user wrote it. */
#include "common_ops.h"
#include "mt_ops_gen.h"
#include "nn_shapes.h"

#include <string.h>

enum { REDUCTION_NONE = 0 };

static void scalar_out(mt_outspec *o, mt_dtype dt) {
    o->ndim = 0;
    o->dtype = (uint8_t)dt;
}

/* what the kernels take: float32, float64 or bfloat16 log-probabilities, int64 targets (or
 * uint8 ones, as PyTorch's nll_loss_forward takes them; nll_loss2d does not) and a weight of the
 * input's dtype (checked in PyTorch's order: the kernel's dtype, the weight, the target) */
static int check_dtypes(const char *frame, const mt_tensor *self, const mt_tensor *target,
                        const mt_tensor *weight, bool spatial) {
    mt_dtype dt = (mt_dtype)self->dtype;
    if (dt != MT_FLOAT32 && dt != MT_FLOAT64 && dt != MT_BFLOAT16)
        return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", frame,
                        mt_dtype_scalar_name(dt));
    if (weight && weight->dtype != self->dtype)
        return mt_error(MT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        mt_dtype_scalar_name(dt), mt_dtype_scalar_name((mt_dtype)weight->dtype));
    if (target->dtype != MT_INT64 && (spatial || target->dtype != MT_UINT8))
        return mt_error(MT_ERR_RUNTIME, "expected scalar type Long but found %s",
                        mt_dtype_scalar_name((mt_dtype)target->dtype));
    return 0;
}

static int check_weight(const mt_tensor *weight, int64_t classes) {
    if (weight && (weight->ndim != 1 || weight->numel != classes)) {
        char b[160];
        return mt_error(MT_ERR_RUNTIME,
                        "weight tensor should be defined either for all %lld classes or no "
                        "classes but got weight tensor of shape: %s",
                        (long long)classes, mt_sizes_str(weight->ndim, weight->sizes, b, sizeof b));
    }
    return 0;
}

/* nll_loss_forward's and nll_loss_backward's shared checks: (C) or (N, C) input, a 0-d or 1-d
 * target of N entries */
static int check_1d_2d(const mt_tensor *self, const mt_tensor *target, const mt_tensor *weight) {
    if (self->ndim < 1 || self->ndim > 2)
        return mt_error(MT_ERR_RUNTIME, "input tensor should be 1D or 2D");
    if (target->ndim > 1)
        return mt_error(MT_ERR_RUNTIME,
                        "0D or 1D target tensor expected, multi-target not supported");
    bool no_batch_dim = self->ndim == 1 && target->ndim == 0;
    if (!no_batch_dim && self->sizes[0] != (target->ndim ? target->sizes[0] : 1)) {
        char b1[160], b2[160];
        return mt_error(MT_ERR_RUNTIME, "size mismatch (got input: %s, target: %s)",
                        mt_sizes_str(self->ndim, self->sizes, b1, sizeof b1),
                        mt_sizes_str(target->ndim, target->sizes, b2, sizeof b2));
    }
    return check_weight(weight, self->sizes[self->ndim - 1]);
}

/* nll_loss2d's: (N, C, H, W) input, (N, H, W) target */
static int check_2d(const mt_tensor *self, const mt_tensor *target, const mt_tensor *weight) {
    if (target->ndim != 3)
        return mt_error(MT_ERR_RUNTIME,
                        "only batches of spatial targets supported (3D tensors) but got targets "
                        "of dimension: %d",
                        target->ndim);
    if (self->ndim != 4)
        return mt_error(MT_ERR_RUNTIME,
                        "only batches of spatial inputs supported (4D tensors), but got input of "
                        "dimension: %d",
                        self->ndim);
    if (weight && weight->numel != self->sizes[1])
        return mt_error(MT_ERR_RUNTIME,
                        "weight tensor should be defined either for all or no classes");
    if (self->sizes[0] != target->sizes[0] || self->sizes[2] != target->sizes[1] ||
        self->sizes[3] != target->sizes[2]) {
        char b1[160], b2[160];
        return mt_error(MT_ERR_RUNTIME, "size mismatch (got input: %s , target: %s",
                        mt_sizes_str(self->ndim, self->sizes, b1, sizeof b1),
                        mt_sizes_str(target->ndim, target->sizes, b2, sizeof b2));
    }
    return 0;
}

/* (self, target, weight, reduction, ignore_index) -> (output, total_weight) */
static int meta_forward(mt_value *a, mt_outspec *o, bool spatial) {
    mt_tensor *self = a[0].t, *target = a[1].t, *weight = mt_vopt_tensor(a[2]);
    int64_t reduction = a[3].i;
    if (spatial ? check_2d(self, target, weight) : check_1d_2d(self, target, weight)) return -1;
    if (check_dtypes(spatial ? "nll_loss2d_forward_out_frame" : "nll_loss_out_frame", self, target,
                     weight, spatial))
        return -1;
    mt_dtype dt = (mt_dtype)self->dtype;
    scalar_out(&o[0], dt);
    scalar_out(&o[1], dt);
    if (reduction == REDUCTION_NONE && (spatial || self->ndim == 2)) {
        /* one loss per sample (and position): the target's shape */
        o[0].ndim = (int8_t)target->ndim;
        memcpy(o[0].sizes, target->sizes, sizeof(int64_t) * (size_t)target->ndim);
    }
    return 0;
}

static int meta_nll_loss_forward(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    return meta_forward(a, o, false);
}

static int meta_nll_loss2d_forward(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    return meta_forward(a, o, true);
}

/* (grad_output, self, target, weight, reduction, ignore_index, total_weight) -> grad_input */
static int meta_backward(mt_value *a, mt_outspec *o, bool spatial) {
    mt_tensor *go = a[0].t, *self = a[1].t, *target = a[2].t, *weight = mt_vopt_tensor(a[3]);
    mt_tensor *tw = a[6].t;
    int64_t reduction = a[4].i;
    if (spatial ? check_2d(self, target, weight) : check_1d_2d(self, target, weight)) return -1;
    if (check_dtypes(spatial ? "nll_loss2d_backward_out_frame" : "nll_loss_backward_out_frame",
                     self, target, weight, spatial))
        return -1;
    char b1[160], b2[160];
    if (tw->numel != 1)
        return mt_error(MT_ERR_RUNTIME,
                        "expected total_weight to be a single element tensor, got: %s (%lld "
                        "elements)",
                        mt_sizes_str(tw->ndim, tw->sizes, b1, sizeof b1), (long long)tw->numel);
    if (go->dtype != self->dtype || tw->dtype != self->dtype)
        return mt_error(
            MT_ERR_RUNTIME, "expected scalar type %s but found %s",
            mt_dtype_scalar_name((mt_dtype)self->dtype),
            mt_dtype_scalar_name((mt_dtype)(go->dtype != self->dtype ? go->dtype : tw->dtype)));
    if (reduction == REDUCTION_NONE && (spatial || self->ndim == 2)) {
        bool same = go->ndim == target->ndim;
        for (int i = 0; same && i < go->ndim; i++) same = go->sizes[i] == target->sizes[i];
        if (!same)
            return mt_error(MT_ERR_RUNTIME, "Expected grad_output of size %s, but got %s",
                            mt_sizes_str(target->ndim, target->sizes, b1, sizeof b1),
                            mt_sizes_str(go->ndim, go->sizes, b2, sizeof b2));
    } else if (go->ndim > 1 || go->numel != 1) {
        return mt_error(MT_ERR_RUNTIME, "Expected a single element grad_output tensor, but got: %s",
                        mt_sizes_str(go->ndim, go->sizes, b1, sizeof b1));
    }
    o->ndim = (int8_t)self->ndim;
    memcpy(o->sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    o->dtype = self->dtype;
    return 0;
}

static int meta_nll_loss_backward(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    return meta_backward(a, o, false);
}

static int meta_nll_loss2d_backward(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    return meta_backward(a, o, true);
}

/* nll_loss_nd(self, target, weight, reduction, ignore_index) */
static int c_nll_loss_nd(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *target = a[1].t, *weight = mt_vopt_tensor(a[2]);
    int64_t reduction = a[3].i, ignore = a[4].i;
    if (self->ndim < 1)
        return mt_error(MT_ERR_VALUE, "Expected 1 or more dimensions (got %d)", self->ndim);
    int64_t tn = target->ndim ? target->sizes[0] : 1;
    if (self->ndim != 1 && self->sizes[0] != tn)
        return mt_error(MT_ERR_VALUE,
                        "Expected input batch_size (%lld) to match target batch_size (%lld).",
                        (long long)self->sizes[0], (long long)tn);
    mt_tensor *out = NULL, *tw = NULL;
    int st;
    if (self->ndim <= 2) {
        st = mto_nll_loss_forward(self, target, weight, reduction, ignore, &out, &tw);
    } else if (self->ndim == 4) {
        st = mto_nll_loss2d_forward(self, target, weight, reduction, ignore, &out, &tw);
    } else { /* (N, C, d1, d2, ...) as (N, C, 1, d1 d2 ...) */
        int64_t n = self->sizes[0], cl = self->sizes[1], out_size[MT_MAX_DIM];
        int on = self->ndim - 1;
        out_size[0] = n;
        memcpy(out_size + 1, self->sizes + 2, sizeof(int64_t) * (size_t)(self->ndim - 2));
        bool match = target->ndim == on;
        for (int i = 1; match && i < on; i++) match = target->sizes[i] == out_size[i];
        if (!match) {
            char b1[160], b2[160];
            return mt_error(MT_ERR_RUNTIME, "Expected target size %s, got %s",
                            mt_sizes_str(on, out_size, b1, sizeof b1),
                            mt_sizes_str(target->ndim, target->sizes, b2, sizeof b2));
        }
        bool some_in = self->numel > 0, some_t = target->numel > 0;
        int64_t in4[4] = {n, cl, some_in ? 1 : 0, some_in ? -1 : 0};
        int64_t t3[3] = {n, some_t ? 1 : 0, some_t ? -1 : 0};
        mt_tensor *ic = mto_contiguous(self, NULL), *tc = ic ? mto_contiguous(target, NULL) : NULL;
        mt_tensor *iv = tc ? mto_view(ic, (mt_ilist){in4, 4}) : NULL;
        mt_tensor *tv = iv ? mto_view(tc, (mt_ilist){t3, 3}) : NULL;
        st = tv ? mto_nll_loss2d_forward(iv, tv, weight, reduction, ignore, &out, &tw) : -1;
        mt_tensor_decref(ic), mt_tensor_decref(tc), mt_tensor_decref(iv), mt_tensor_decref(tv);
        if (!st && reduction == REDUCTION_NONE) {
            mt_tensor *shaped = mto_view(out, (mt_ilist){out_size, on});
            mt_tensor_decref(out);
            out = shaped;
            st = shaped ? 0 : -1;
        }
    }
    mt_tensor_decref(tw);
    if (st) {
        mt_tensor_decref(out);
        return -1;
    }
    r[0] = mt_vtensor(out);
    return 0;
}

void mt_nll_loss_register(void) {
    mt_disp_meta(MT_OP_nll_loss_forward, meta_nll_loss_forward);
    mt_disp_meta(MT_OP_nll_loss2d_forward, meta_nll_loss2d_forward);
    mt_disp_meta(MT_OP_nll_loss_backward, meta_nll_loss_backward);
    mt_disp_meta(MT_OP_nll_loss2d_backward, meta_nll_loss2d_backward);
    mt_disp_composite(MT_OP_nll_loss_nd, c_nll_loss_nd);
}
