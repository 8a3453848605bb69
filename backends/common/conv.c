/* conv.c: the convolution ops' checks (PyTorch's texts, in PyTorch's order), their meta
 * functions, and the conv1d/conv2d/conv_transpose1d/conv_transpose2d entry points, which batch
 * an unbatched input and call convolution. */
#include "mt_ops_gen.h"
#include "nn_shapes.h"
#include "shape.h"

#include <stdio.h>
#include <string.h>

const char *mt_sizes_str(int n, const int64_t *s, char *buf, size_t cap) {
    size_t used = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, i ? ", %lld" : "%lld", (long long)s[i]);
    if (used < cap) snprintf(buf + used, cap - used, "]");
    return buf;
}

/* a stride/padding/... list: one value, or one per spatial dim; expanded into out[spatial] */
static int expand_param(const char *name, mt_value v, int spatial, int64_t *out) {
    if (v.n != 1 && v.n != spatial) {
        char buf[128];
        return mt_error(MT_ERR_RUNTIME,
                        "expected %s to be a single integer value or a list of %d values to match "
                        "the convolution "
                        "dimensions, but got %s=%s",
                        name, spatial, name, mt_sizes_str(v.n, v.il, buf, sizeof buf));
    }
    for (int i = 0; i < spatial; i++) out[i] = v.il[v.n == 1 ? 0 : i];
    return 0;
}

static bool any_below(const int64_t *v, int n, int64_t lo) {
    for (int i = 0; i < n; i++)
        if (v[i] < lo) return true;
    return false;
}

/* "(8 x 8)" */
static const char *dims_str(int n, const int64_t *v, char *buf, size_t cap) {
    if (n == 1)
        snprintf(buf, cap, "(%lld)", (long long)v[0]);
    else
        snprintf(buf, cap, "(%lld x %lld)", (long long)v[0], (long long)v[1]);
    return buf;
}

int mt_conv_check(mt_value *a, int64_t *out, mt_conv_geom *g) {
    mt_tensor *in = a[0].t, *w = a[1].t, *bias = a[2].tag == MT_V_TENSOR ? a[2].t : NULL;
    bool transposed = a[6].b;
    int64_t groups = a[8].i;
    int k = in->ndim, wd = w->ndim, sp = wd - 2;
    int64_t stride[3], pad[3], dil[3], opad[3];
    char b1[160], b2[160];
    if (sp < 1) return mt_error(MT_ERR_RUNTIME, "weight should have at least three dimensions");
    if (sp > 3)
        return mt_error(MT_ERR_RUNTIME, "convolution: expected a 3-D, 4-D or 5-D weight, got %d-D",
                        wd);
    if (expand_param("stride", a[3], sp, stride) || expand_param("padding", a[4], sp, pad) ||
        expand_param("dilation", a[5], sp, dil) || expand_param("output_padding", a[7], sp, opad))
        return -1;
    if (groups <= 0) return mt_error(MT_ERR_RUNTIME, "non-positive groups is not supported");
    if (any_below(pad, sp, 0)) return mt_error(MT_ERR_RUNTIME, "negative padding is not supported");
    if (any_below(opad, sp, 0))
        return mt_error(MT_ERR_RUNTIME, "negative output_padding is not supported");
    if (any_below(stride, sp, 1))
        return mt_error(MT_ERR_RUNTIME, "non-positive stride is not supported");
    if (any_below(dil, sp, 1))
        return mt_error(MT_ERR_RUNTIME, "non-positive dilation is not supported");
    if (k != wd)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected %d-dimensional input for %d-dimensional weight %s, but got "
                        "%d-dimensional input of "
                        "size %s instead",
                        wd, wd, mt_sizes_str(wd, w->sizes, b1, sizeof b1), k,
                        mt_sizes_str(k, in->sizes, b2, sizeof b2));
    if (w->sizes[0] < groups)
        return mt_error(MT_ERR_RUNTIME,
                        "Given groups=%lld, expected weight to be at least %lld at dimension 0, "
                        "but got weight of size "
                        "%s instead",
                        (long long)groups, (long long)groups,
                        mt_sizes_str(wd, w->sizes, b1, sizeof b1));
    if (w->sizes[0] % groups)
        return mt_error(MT_ERR_RUNTIME, /* PyTorch's text has the doubled brackets */
                        "Given groups=%lld, expected weight to be divisible by %lld at dimension "
                        "0, but got weight of "
                        "size [%s] instead",
                        (long long)groups, (long long)groups,
                        mt_sizes_str(wd, w->sizes, b1, sizeof b1));
    int64_t want_c = transposed ? w->sizes[0] : w->sizes[1] * groups;
    if (in->sizes[1] != want_c) {
        if (transposed)
            return mt_error(MT_ERR_RUNTIME,
                            "Given transposed=1, weight of size %s, expected input%s to have %lld "
                            "channels, but got "
                            "%lld channels instead",
                            mt_sizes_str(wd, w->sizes, b1, sizeof b1),
                            mt_sizes_str(k, in->sizes, b2, sizeof b2), (long long)want_c,
                            (long long)in->sizes[1]);
        return mt_error(MT_ERR_RUNTIME,
                        "Given groups=%lld, weight of size %s, expected input%s to have %lld "
                        "channels, but got %lld "
                        "channels instead",
                        (long long)groups, mt_sizes_str(wd, w->sizes, b1, sizeof b1),
                        mt_sizes_str(k, in->sizes, b2, sizeof b2), (long long)want_c,
                        (long long)in->sizes[1]);
    }
    int64_t nbias = transposed ? w->sizes[1] * groups : w->sizes[0];
    if (bias && (bias->ndim != 1 || bias->sizes[0] != nbias))
        return mt_error(MT_ERR_RUNTIME,
                        "Given %sweight of size %s, expected bias to be 1-dimensional with %lld "
                        "elements, but got bias "
                        "of size %s instead",
                        transposed ? "transposed=1, " : "",
                        mt_sizes_str(wd, w->sizes, b1, sizeof b1), (long long)nbias,
                        mt_sizes_str(bias->ndim, bias->sizes, b2, sizeof b2));
    if (sp == 3)
        return mt_error(MT_ERR_NOT_IMPLEMENTED,
                        "convolution: 3-D convolutions are not implemented in mindtorch");
    int64_t insz[2], outsz[2];
    for (int i = 0; i < sp; i++) insz[i] = in->sizes[2 + i];
    if (!transposed) {
        int64_t padded[2], kern[2];
        bool small = false;
        for (int i = 0; i < sp; i++) {
            padded[i] = insz[i] + 2 * pad[i];
            kern[i] = dil[i] * (w->sizes[2 + i] - 1) + 1;
            small |= padded[i] < kern[i];
            outsz[i] = (padded[i] - kern[i]) / stride[i] + 1;
        }
        if (small)
            return mt_error(MT_ERR_RUNTIME,
                            "Calculated padded input size per channel: %s. Kernel size: %s. Kernel "
                            "size can't be greater "
                            "than actual input size",
                            dims_str(sp, padded, b1, sizeof b1), dims_str(sp, kern, b2, sizeof b2));
    } else {
        /* PyTorch words this for the 2-D kernel that 1-D calls run in (height 1, stride 1) */
        int64_t o2[2] = {sp == 2 ? opad[0] : 0, opad[sp - 1]},
                s2[2] = {sp == 2 ? stride[0] : 1, stride[sp - 1]},
                d2[2] = {sp == 2 ? dil[0] : 1, dil[sp - 1]};
        for (int i = 0; i < 2; i++)
            if (o2[i] >= s2[i] && o2[i] >= d2[i])
                return mt_error(
                    MT_ERR_RUNTIME,
                    "output padding must be smaller than either stride or dilation, but got "
                    "output_padding_height: %lld output_padding_width: %lld stride_height: %lld "
                    "stride_width: %lld dilation_height: %lld dilation_width: %lld",
                    (long long)o2[0], (long long)o2[1], (long long)s2[0], (long long)s2[1],
                    (long long)d2[0], (long long)d2[1]);
        bool small = false;
        for (int i = 0; i < sp; i++) {
            outsz[i] = (insz[i] - 1) * stride[i] - 2 * pad[i] + dil[i] * (w->sizes[2 + i] - 1) +
                       opad[i] + 1;
            small |= outsz[i] < 1;
        }
        if (small)
            return mt_error(MT_ERR_RUNTIME,
                            "Given input size per channel: %s. Calculated output size per channel: "
                            "%s. Output size is "
                            "too small",
                            dims_str(sp, insz, b1, sizeof b1), dims_str(sp, outsz, b2, sizeof b2));
    }
    if (in->dtype != w->dtype) {
        if (in->dtype == MT_FLOAT32 && !transposed) {
            char t1[64], t2[64];
            return mt_error(MT_ERR_RUNTIME,
                            "Input type (%s) and weight type (%s) should be the same or input "
                            "should be a MKLDNN "
                            "tensor and weight is a dense tensor",
                            mt_tensor_type_name(in, t1, sizeof t1),
                            mt_tensor_type_name(w, t2, sizeof t2));
        }
        return mt_error(MT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        mt_dtype_scalar_name((mt_dtype)in->dtype),
                        mt_dtype_scalar_name((mt_dtype)w->dtype));
    }
    if (in->dtype == MT_FLOAT16 || in->dtype == MT_BOOL)
        return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'",
                        transposed ? "slow_conv_transpose2d_out_cpu" : "slow_conv2d_cpu",
                        mt_dtype_scalar_name((mt_dtype)in->dtype));
    if (bias && bias->dtype != in->dtype)
        return mt_error(MT_ERR_RUNTIME, "Input type (%s) and bias type (%s) should be the same",
                        mt_dtype_cxx_name((mt_dtype)in->dtype),
                        mt_dtype_cxx_name((mt_dtype)bias->dtype));

    out[0] = in->sizes[0];
    out[1] = transposed ? w->sizes[1] * groups : w->sizes[0];
    for (int i = 0; i < sp; i++) out[2 + i] = outsz[i];
    if (g) {
        const int64_t *big = transposed ? out : in->sizes, *small = transposed ? in->sizes : out;
        int o = sp == 2 ? 0 : -1; /* 1-D: the height terms are 1 */
        *g = (mt_conv_geom){.N = in->sizes[0],
                            .Cb = big[1],
                            .Cs = small[1],
                            .G = groups,
                            .H = o < 0 ? 1 : big[2],
                            .W = big[2 + sp - 1],
                            .Ho = o < 0 ? 1 : small[2],
                            .Wo = small[2 + sp - 1],
                            .kh = o < 0 ? 1 : w->sizes[2],
                            .kw = w->sizes[2 + sp - 1],
                            .sh = o < 0 ? 1 : stride[0],
                            .sw = stride[sp - 1],
                            .ph = o < 0 ? 0 : pad[0],
                            .pw = pad[sp - 1],
                            .dh = o < 0 ? 1 : dil[0],
                            .dw = dil[sp - 1]};
    }
    return 0;
}

int mt_conv_weight_geom(mt_value *a, mt_conv_geom *g) {
    mt_tensor *go = a[0].t, *in = a[1].t;
    bool transposed = a[6].b;
    mt_tensor *big = transposed ? go : in, *small = transposed ? in : go;
    const mt_value ws = a[2];
    int sp = ws.n - 2;
    int64_t stride[2], pad[2], dil[2], groups = a[7].i;
    if (sp < 1 || sp > 2 || go->ndim != ws.n || in->ndim != ws.n)
        return mt_error(MT_ERR_RUNTIME,
                        "convolution_backward_weight: expected 3-D or 4-D tensors and weight_size");
    if (expand_param("stride", a[3], sp, stride) || expand_param("padding", a[4], sp, pad) ||
        expand_param("dilation", a[5], sp, dil))
        return -1;
    if (groups <= 0 || any_below(pad, sp, 0) || any_below(stride, sp, 1) || any_below(dil, sp, 1))
        return mt_error(MT_ERR_RUNTIME,
                        "convolution_backward_weight: invalid convolution parameters");
    int o = sp == 2 ? 0 : -1;
    *g = (mt_conv_geom){.N = in->sizes[0],
                        .Cb = big->sizes[1],
                        .Cs = small->sizes[1],
                        .G = groups,
                        .H = o < 0 ? 1 : big->sizes[2],
                        .W = big->sizes[1 + sp],
                        .Ho = o < 0 ? 1 : small->sizes[2],
                        .Wo = small->sizes[1 + sp],
                        .kh = o < 0 ? 1 : ws.il[2],
                        .kw = ws.il[1 + sp],
                        .sh = o < 0 ? 1 : stride[0],
                        .sw = stride[sp - 1],
                        .ph = o < 0 ? 0 : pad[0],
                        .pw = pad[sp - 1],
                        .dh = o < 0 ? 1 : dil[0],
                        .dw = dil[sp - 1]};
    bool fits =
        go->sizes[0] == in->sizes[0] && ws.il[0] == g->Cs && ws.il[1] * groups == g->Cb &&
        g->Cs % groups == 0 && g->Ho == (g->H + 2 * g->ph - g->dh * (g->kh - 1) - 1) / g->sh + 1 &&
        g->Wo == (g->W + 2 * g->pw - g->dw * (g->kw - 1) - 1) / g->sw + 1 && g->kh > 0 && g->kw > 0;
    if (!fits)
        return mt_error(MT_ERR_RUNTIME,
                        "convolution_backward_weight: grad_output, input and weight_size do not "
                        "belong to one convolution");
    if (go->dtype != in->dtype)
        return mt_error(MT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        mt_dtype_scalar_name((mt_dtype)in->dtype),
                        mt_dtype_scalar_name((mt_dtype)go->dtype));
    return 0;
}

static int meta_convolution(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    int64_t sizes[MT_MAX_DIM];
    if (mt_conv_check(a, sizes, NULL)) return -1;
    o->ndim = (int8_t)a[0].t->ndim;
    memcpy(o->sizes, sizes, sizeof(int64_t) * (size_t)o->ndim);
    o->dtype = a[0].t->dtype;
    /* channels-last when the input or the weight is (PyTorch 1.13's CPU convolutions; its
     * transposed ones give contiguous results) */
    if (a[6].b) return 0;
    const char *fmt = mt_suggest_memory_format(a[0].t);
    if (strcmp(fmt, "channels_last") != 0) fmt = mt_suggest_memory_format(a[1].t);
    return mt_outspec_layout(o, fmt);
}

static int meta_conv_weight(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_conv_geom g;
    if (mt_conv_weight_geom(a, &g)) return -1;
    o->ndim = (int8_t)a[2].n;
    memcpy(o->sizes, a[2].il, sizeof(int64_t) * (size_t)a[2].n);
    o->dtype = a[1].t->dtype;
    return 0;
}

/* ---- conv1d, conv2d, conv_transpose1d, conv_transpose2d ------------------------------------ */

/* batch an unbatched input, convolve, and unbatch */
static int conv_entry(mt_value *r, const char *name, int sp, mt_tensor *in, mt_tensor *w,
                      mt_tensor *bias, mt_value stride, mt_value pad, mt_value dil, bool transposed,
                      mt_value opad, int64_t groups) {
    if (in->ndim != sp + 1 && in->ndim != sp + 2) {
        char b[160];
        return mt_error(
            MT_ERR_RUNTIME,
            "Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s",
            sp + 1, sp + 2, name, mt_sizes_str(in->ndim, in->sizes, b, sizeof b));
    }
    bool unbatched = in->ndim == sp + 1;
    mt_tensor *x = unbatched ? mto_unsqueeze(in, 0) : in;
    if (!x) return -1;
    mt_value args[9] = {mt_vtensor(x),        mt_vtensor(w), mt_vtensor(bias), stride, pad, dil,
                        mt_vbool(transposed), opad,          mt_vint(groups)};
    mt_value res[1];
    int st = mt_call_op(MT_OP_convolution, args, res);
    if (unbatched) mt_tensor_decref(x);
    if (st) return -1;
    if (unbatched) {
        mt_tensor *s = mto_squeeze_dim(res[0].t, 0);
        mt_tensor_decref(res[0].t);
        if (!s) return -1;
        res[0].t = s;
    }
    r[0] = res[0];
    return 0;
}

static int c_conv(mt_call *c, mt_value *a, mt_value *r) {
    int sp = c->op->id == MT_OP_conv1d ? 1 : 2;
    int64_t zero[2] = {0, 0};
    return conv_entry(r, sp == 1 ? "conv1d" : "conv2d", sp, a[0].t, a[1].t, mt_vopt_tensor(a[2]),
                      a[3], a[4], a[5], false, mt_vilist(zero, sp), a[6].i);
}

static int c_conv_transpose(mt_call *c, mt_value *a, mt_value *r) {
    int sp = c->op->id == MT_OP_conv_transpose1d ? 1 : 2;
    return conv_entry(r, sp == 1 ? "conv_transpose1d" : "conv_transpose2d", sp, a[0].t, a[1].t,
                      mt_vopt_tensor(a[2]), a[3], a[4], a[7], true, a[5], a[6].i);
}

void mt_pool_register(void);
void mt_batch_norm_register(void);
void mt_nll_loss_register(void);

void mt_nn_register(void) {
    mt_disp_meta(MT_OP_convolution, meta_convolution);
    mt_disp_meta(MT_OP_convolution_backward_weight, meta_conv_weight);
    mt_disp_composite(MT_OP_conv1d, c_conv);
    mt_disp_composite(MT_OP_conv2d, c_conv);
    mt_disp_composite(MT_OP_conv_transpose1d, c_conv_transpose);
    mt_disp_composite(MT_OP_conv_transpose2d, c_conv_transpose);
    mt_pool_register();
    mt_batch_norm_register();
    mt_nll_loss_register();
}
