/* pool.c: the pooling ops' checks (PyTorch's texts and order), their meta functions, and the
 * 1-D poolings, written as 2-D ones over a height of 1. */
#include "common_ops.h"
#include "mt_ops_gen.h"
#include "nn_shapes.h"
#include "shape.h"

#include <stdio.h>
#include <string.h>

static int64_t div_floor(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* PyTorch's pooling_output_shape, with its checks */
static int out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode,
                    int64_t *out) {
    if (stride == 0) return mt_error(MT_ERR_RUNTIME, "stride should not be zero");
    if (pad < 0)
        return mt_error(MT_ERR_RUNTIME, "pad must be non-negative, but got pad: %lld",
                        (long long)pad);
    if (pad > k / 2)
        return mt_error(
            MT_ERR_RUNTIME,
            "pad should be at most half of kernel size, but got pad=%lld and kernel_size=%lld",
            (long long)pad, (long long)k);
    int64_t o =
        div_floor(in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
    if (ceil_mode && (o - 1) * stride >= in + pad) o--; /* the last window must start inside */
    *out = o;
    return 0;
}

/* kernel_size, stride (empty: kernel_size), padding and dilation lists of one or two ints */
static int pool_params(const char *op, mt_value *k, mt_value *s, mt_value *p, mt_value *d,
                       mt_pool_geom *g) {
    if (k->n != 1 && k->n != 2)
        return mt_error(MT_ERR_RUNTIME,
                        "%s: kernel_size must either be a single int, or a tuple of two ints", op);
    if (s->n != 0 && s->n != 1 && s->n != 2)
        return mt_error(MT_ERR_RUNTIME,
                        "%s: stride must either be omitted, a single int, or a tuple of two ints",
                        op);
    if (p->n != 1 && p->n != 2)
        return mt_error(MT_ERR_RUNTIME, "%s: padding must %s a single int, or a tuple of two ints",
                        op, d ? "be either be" : "either be");
    if (d && d->n != 1 && d->n != 2)
        return mt_error(MT_ERR_RUNTIME,
                        "%s: dilation must be either a single int, or a tuple of two ints", op);
    g->kh = k->il[0], g->kw = k->il[k->n - 1];
    g->sh = s->n ? s->il[0] : g->kh, g->sw = s->n ? s->il[s->n - 1] : g->kw;
    g->ph = p->il[0], g->pw = p->il[p->n - 1];
    g->dh = d ? d->il[0] : 1, g->dw = d ? d->il[d->n - 1] : 1;
    return 0;
}

/* the input's planes and sizes, the output sizes, and pool2d_shape_check */
static int pool_shape(const mt_tensor *in, bool ceil_mode, mt_pool_geom *g) {
    int n = in->ndim;
    int64_t C = in->sizes[n - 3];
    g->planes = (n == 4 ? in->sizes[0] : 1) * C;
    g->H = in->sizes[n - 2], g->W = in->sizes[n - 1];
    if (out_size(g->H, g->kh, g->ph, g->sh, g->dh, ceil_mode, &g->Ho) ||
        out_size(g->W, g->kw, g->pw, g->sw, g->dw, ceil_mode, &g->Wo))
        return -1;
    if (g->kh <= 0 || g->kw <= 0)
        return mt_error(MT_ERR_RUNTIME,
                        "kernel size should be greater than zero, but got kH: %lld kW: %lld",
                        (long long)g->kh, (long long)g->kw);
    if (g->sh <= 0 || g->sw <= 0)
        return mt_error(MT_ERR_RUNTIME,
                        "stride should be greater than zero, but got dH: %lld dW: %lld",
                        (long long)g->sh, (long long)g->sw);
    if (g->dh <= 0 || g->dw <= 0)
        return mt_error(
            MT_ERR_RUNTIME,
            "dilation should be greater than zero, but got dilationH: %lld dilationW: %lld",
            (long long)g->dh, (long long)g->dw);
    bool dims_ok = (n == 3 || n == 4);
    for (int i = n - 3; i < n && dims_ok; i++) dims_ok = in->sizes[i] != 0;
    if (!dims_ok) {
        char b[160];
        return mt_error(MT_ERR_RUNTIME,
                        "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                        "input, but got:%s",
                        mt_sizes_str(n, in->sizes, b, sizeof b));
    }
    if (g->kw / 2 < g->pw || g->kh / 2 < g->ph)
        return mt_error(
            MT_ERR_RUNTIME,
            "pad should be at most half of kernel size, but got pad=%lld and kernel_size=%lld",
            (long long)g->pw, (long long)g->kw);
    if (g->Ho < 1 || g->Wo < 1)
        return mt_error(MT_ERR_RUNTIME,
                        "Given input size: (%lldx%lldx%lld). Calculated output size: "
                        "(%lldx%lldx%lld). Output size is "
                        "too small",
                        (long long)C, (long long)g->H, (long long)g->W, (long long)C,
                        (long long)g->Ho, (long long)g->Wo);
    return 0;
}

/* the dtypes PyTorch's CPU pooling takes: float32, float64, bfloat16 (and int64 when long_too);
 * float16 too on a device whose kernels compute it (CUDA's, in float, as PyTorch's CUDA kernels) */
static int float_only(const char *kname, const mt_tensor *t, bool long_too) {
    mt_dtype dt = (mt_dtype)t->dtype;
    if (mt_lacks_float16_kernel(t->device, dt) ||
        (!mt_dtype_is_floating(dt) && !(long_too && dt == MT_INT64)))
        return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kname,
                        mt_dtype_scalar_name(dt));
    return 0;
}

int mt_max_pool_geom(mt_value *a, mt_pool_geom *g) {
    mt_tensor *in = a[0].t;
    if (pool_params("max_pool2d", &a[1], &a[2], &a[3], &a[4], g)) return -1;
    if (in->ndim != 3 && in->ndim != 4)
        return mt_error(MT_ERR_RUNTIME,
                        "non-empty 3D or 4D (batch mode) tensor expected for input");
    if (pool_shape(in, a[5].b, g)) return -1;
    return float_only("max_pool2d", in, false);
}

int mt_avg_pool_geom(mt_value *a, mt_pool_geom *g) {
    mt_tensor *in = a[0].t;
    if (pool_params("avg_pool2d", &a[1], &a[2], &a[3], NULL, g)) return -1;
    if (a[6].tag != MT_V_NONE && a[6].i == 0)
        return mt_error(MT_ERR_RUNTIME, "divisor must be not zero");
    if (in->ndim < 3) {
        int lo = in->ndim ? -in->ndim : -1, hi = in->ndim ? in->ndim - 1 : 0;
        return mt_error(MT_ERR_INDEX,
                        "Dimension out of range (expected to be in range of [%d, %d], but got -3)",
                        lo, hi);
    }
    if (pool_shape(in, a[4].b, g)) return -1;
    return float_only("avg_pool2d", in, true);
}

/* PyTorch's refusal of a negative output size, for the kernel and the composite alike */
static int negative_output_size(const mt_value *os) {
    if (os->il[0] >= 0 && os->il[1] >= 0) return 0;
    return mt_error(MT_ERR_RUNTIME,
                    "adaptive_avg_pool2d: elements of output_size must be greater than or equal "
                    "to 0 but received {%lld, %lld}",
                    (long long)os->il[0], (long long)os->il[1]);
}

int mt_adaptive_pool_geom(const mt_tensor *in, const mt_value *os, mt_pool_geom *g) {
    char b[160];
    if (os->n != 2) return mt_error(MT_ERR_RUNTIME, "adaptive_avg_pool2d: output_size must be 2");
    if (in->ndim != 3 && in->ndim != 4)
        return mt_error(MT_ERR_RUNTIME,
                        "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got %s",
                        mt_sizes_str(in->ndim, in->sizes, b, sizeof b));
    for (int i = 1; i < in->ndim; i++)
        if (in->sizes[i] == 0)
            return mt_error(MT_ERR_RUNTIME,
                            "adaptive_avg_pool2d(): Expected input to have non-zero size for "
                            "non-batch dimensions, but "
                            "input has sizes %s with dimension %d being empty",
                            mt_sizes_str(in->ndim, in->sizes, b, sizeof b), i);
    if (negative_output_size(os)) return -1;
    int n = in->ndim;
    *g = (mt_pool_geom){.planes = (n == 4 ? in->sizes[0] : 1) * in->sizes[n - 3],
                        .H = in->sizes[n - 2],
                        .W = in->sizes[n - 1],
                        .Ho = os->il[0],
                        .Wo = os->il[1]};
    return float_only("adaptive_avg_pool2d", in, false);
}

/* a contiguous result with the input's sizes but the last two */
static void pooled_sizes(mt_outspec *o, const mt_tensor *in, int64_t ho, int64_t wo, mt_dtype dt) {
    o->ndim = (int8_t)in->ndim;
    memcpy(o->sizes, in->sizes, sizeof(int64_t) * (size_t)in->ndim);
    o->sizes[in->ndim - 2] = ho;
    o->sizes[in->ndim - 1] = wo;
    o->dtype = (uint8_t)dt;
}

/* a pooling's result, and its backward's (the input's gradient): in the layout the input
 * suggests, as PyTorch's */
static int pooled_out(mt_outspec *o, const mt_tensor *in, int64_t ho, int64_t wo, mt_dtype dt) {
    pooled_sizes(o, in, ho, wo, dt);
    return mt_outspec_layout(o, mt_suggest_memory_format(in));
}

static int meta_max_pool(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_pool_geom g;
    if (mt_max_pool_geom(a, &g)) return -1;
    if (pooled_out(&o[0], a[0].t, g.Ho, g.Wo, (mt_dtype)a[0].t->dtype)) return -1;
    return pooled_out(&o[1], a[0].t, g.Ho, g.Wo, MT_INT64); /* the indices: the same layout */
}

static int meta_avg_pool(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_pool_geom g;
    if (mt_avg_pool_geom(a, &g)) return -1;
    return pooled_out(o, a[0].t, g.Ho, g.Wo, (mt_dtype)a[0].t->dtype);
}

static int meta_adaptive(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_pool_geom g;
    if (mt_adaptive_pool_geom(a[0].t, &a[1], &g)) return -1;
    return pooled_out(o, a[0].t, g.Ho, g.Wo, (mt_dtype)a[0].t->dtype);
}

/* a backward's grad_output must have the pooled shape; the result has self's */
static int grad_fits(const mt_tensor *go, const mt_tensor *self, int64_t ho, int64_t wo,
                     mt_outspec *o) {
    bool ok = go->ndim == self->ndim && go->dtype == self->dtype;
    for (int i = 0; ok && i < self->ndim; i++)
        ok = go->sizes[i] == (i == self->ndim - 2 ? ho : i == self->ndim - 1 ? wo : self->sizes[i]);
    if (!ok) {
        char b1[160], b2[160];
        int64_t want[MT_MAX_DIM];
        memcpy(want, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
        want[self->ndim - 2] = ho, want[self->ndim - 1] = wo;
        return mt_error(MT_ERR_RUNTIME, "Expected grad_output of size %s (%s), but got %s (%s)",
                        mt_sizes_str(self->ndim, want, b1, sizeof b1),
                        mt_dtype_scalar_name((mt_dtype)self->dtype),
                        mt_sizes_str(go->ndim, go->sizes, b2, sizeof b2),
                        mt_dtype_scalar_name((mt_dtype)go->dtype));
    }
    return pooled_out(o, self, self->sizes[self->ndim - 2], self->sizes[self->ndim - 1],
                      (mt_dtype)self->dtype);
}

static int meta_max_pool_bw(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_pool_geom g;
    if (mt_max_pool_geom(a + 1, &g)) return -1;
    mt_tensor *idx = a[7].t;
    if (idx->dtype != MT_INT64 || idx->ndim != a[0].t->ndim)
        return mt_error(
            MT_ERR_RUNTIME,
            "max_pool2d_with_indices_backward: indices must be an int64 tensor shaped like "
            "grad_output");
    for (int i = 0; i < idx->ndim; i++)
        if (idx->sizes[i] != a[0].t->sizes[i])
            return mt_error(
                MT_ERR_RUNTIME,
                "max_pool2d_with_indices_backward: indices must be an int64 tensor shaped "
                "like grad_output");
    return grad_fits(a[0].t, a[1].t, g.Ho, g.Wo, o);
}

static int meta_avg_pool_bw(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_pool_geom g;
    if (mt_avg_pool_geom(a + 1, &g)) return -1;
    return grad_fits(a[0].t, a[1].t, g.Ho, g.Wo, o);
}

static int meta_adaptive_bw(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *go = a[0].t, *self = a[1].t;
    if (go->ndim != self->ndim || go->ndim < 3)
        return mt_error(
            MT_ERR_RUNTIME,
            "adaptive_avg_pool2d_backward: grad_output and self must have the same number "
            "of dims (3 or 4)");
    mt_value os = mt_vilist(go->sizes + go->ndim - 2, 2);
    mt_pool_geom g;
    if (mt_adaptive_pool_geom(self, &os, &g)) return -1;
    return grad_fits(go, self, g.Ho, g.Wo, o);
}

/* ---- 1-D poolings: a height-1 2-D pooling ---------------------------------------------------- */

static int ret_squeezed(mt_value *r, mt_tensor *t) {
    if (!t) return -1;
    mt_tensor *s = mto_squeeze_dim(t, -2);
    mt_tensor_decref(t);
    if (!s) return -1;
    r[0] = mt_vtensor(s);
    return 0;
}

static int dims_2_or_3(const mt_tensor *t, const char *op) {
    if (t->ndim == 2 || t->ndim == 3) return 0;
    return mt_error(MT_ERR_RUNTIME,
                    "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 "
                    "'self' (while checking "
                    "arguments for %s)",
                    t->ndim, op);
}

static int c_max_pool1d(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *in = a[0].t;
    char b[160];
    if (in->ndim != 2 && in->ndim != 3)
        return mt_error(MT_ERR_RUNTIME,
                        "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                        "batch size for input, "
                        "but got:%s",
                        mt_sizes_str(in->ndim, in->sizes, b, sizeof b));
    if (a[1].n != 1)
        return mt_error(MT_ERR_RUNTIME,
                        "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of "
                        "size 1 but got size %d",
                        a[1].n);
    if (a[2].n > 1)
        return mt_error(MT_ERR_RUNTIME,
                        "max_pool1d() stride must be None, an int, list of ints, or tuple of ints "
                        "of size 1 but got size %d",
                        a[2].n);
    if (a[3].n != 1)
        return mt_error(MT_ERR_RUNTIME,
                        "max_pool1d() padding must be an int, list of ints, or tuple of ints of "
                        "size 1 but got size %d",
                        a[3].n);
    if (a[4].n != 1)
        return mt_error(MT_ERR_RUNTIME,
                        "max_pool1d() dilation must be an int, list of ints or tuple of ints of "
                        "size 1 but got size %d",
                        a[4].n);
    int64_t k = a[1].il[0], s = a[2].n ? a[2].il[0] : k, p = a[3].il[0], d = a[4].il[0];
    if (float_only("max_pool1d_impl", in, false)) return -1;
    if (k <= 0)
        return mt_error(MT_ERR_RUNTIME,
                        "max_pool1d() kernel_size must be greater than zero, but got %lld",
                        (long long)k);
    if (s <= 0)
        return mt_error(MT_ERR_RUNTIME,
                        "max_pool1d() stride must be greater than zero, but got %lld",
                        (long long)s);
    if (p < 0)
        return mt_error(MT_ERR_RUNTIME, "max_pool1d() padding must be non-negative, but got %lld",
                        (long long)p);
    if (p > k / 2)
        return mt_error(
            MT_ERR_RUNTIME,
            "max_pool1d() padding should be at most half of kernel size, but got padding=%lld and "
            "kernel_size=%lld",
            (long long)p, (long long)k);
    if (d <= 0)
        return mt_error(MT_ERR_RUNTIME,
                        "max_pool1d() dilation must be greater than zero, but got %lld",
                        (long long)d);
    mt_tensor *x = mto_unsqueeze(in, -2);
    if (!x) return -1;
    mt_tensor *out =
        mto_max_pool2d(x, MT_ILIST(1, k), MT_ILIST(1, s), MT_ILIST(0, p), MT_ILIST(1, d), a[5].b);
    mt_tensor_decref(x);
    return ret_squeezed(r, out);
}

static int c_max_pool2d(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_value res[2];
    if (mt_call_op(MT_OP_max_pool2d_with_indices, a, res)) return -1;
    mt_tensor_decref(res[1].t);
    r[0] = res[0];
    return 0;
}

static int c_avg_pool1d(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    if (dims_2_or_3(a[0].t, "avg_pool1d")) return -1;
    const char *names[3] = {"kernel_size", "stride", "padding"};
    for (int i = 1; i <= 3; i++)
        if (a[i].n != 1 && !(i == 2 && a[i].n == 0))
            return mt_error(MT_ERR_RUNTIME,
                            "avg_pool1d() argument '%s' should contain one int (got %d)",
                            names[i - 1], a[i].n);
    int64_t k = a[1].il[0], s = a[2].n ? a[2].il[0] : k, p = a[3].il[0];
    mt_tensor *x = mto_unsqueeze(a[0].t, -2);
    if (!x) return -1;
    mt_tensor *out =
        mto_avg_pool2d(x, MT_ILIST(1, k), MT_ILIST(1, s), MT_ILIST(0, p), a[4].b, a[5].b, MT_NONE);
    mt_tensor_decref(x);
    return ret_squeezed(r, out);
}

/* PyTorch's adaptive_avg_pool2d: to 1x1, the mean over the last two dimensions (whatever the
 * input's dims and dtype, so long as mean takes them: a 2-D or 5-D input, an empty plane's NaN),
 * faster than the windows' loop and with mean's order of additions, so its values are PyTorch's;
 * otherwise the pooling kernel, _adaptive_avg_pool2d */
static int c_adaptive_avg_pool2d(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    const mt_value *os = &a[1];
    if (os->n != 2) return mt_error(MT_ERR_RUNTIME, "adaptive_avg_pool2d: output_size must be 2");
    if (negative_output_size(os)) return -1;
    if (os->il[0] == 1 && os->il[1] == 1) {
        mt_tensor *out = mto_mean_dim(a[0].t, MT_ILIST(-1, -2), true, -1);
        /* a channels-last input's: the strides of that format, (C, 1, C, C), as PyTorch gives
         * them; only size-1 dims' strides change, so no element moves */
        if (out && out->ndim == 4 &&
            strcmp(mt_suggest_memory_format(a[0].t), "channels_last") == 0 &&
            mt_memory_format_strides("channels_last", 4, out->sizes, out->strides)) {
            mt_tensor_decref(out);
            return -1;
        }
        return mt_ret_tensor(r, out);
    }
    return mt_ret_tensor(r, mto__adaptive_avg_pool2d(a[0].t, (mt_ilist){os->il, 2}));
}

static int c_adaptive_avg_pool1d(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    if (dims_2_or_3(a[0].t, "adaptive_avg_pool1d")) return -1;
    if (a[1].n != 1)
        return mt_error(
            MT_ERR_RUNTIME,
            "adaptive_avg_pool1d() argument 'output_size' should contain one int (got %d)", a[1].n);
    mt_tensor *x = mto_unsqueeze(a[0].t, -2);
    if (!x) return -1;
    mt_tensor *out = mto_adaptive_avg_pool2d(x, MT_ILIST(1, a[1].il[0]));
    mt_tensor_decref(x);
    return ret_squeezed(r, out);
}

void mt_pool_register(void) {
    mt_disp_meta(MT_OP_max_pool2d_with_indices, meta_max_pool);
    mt_disp_meta(MT_OP_max_pool2d_with_indices_backward, meta_max_pool_bw);
    mt_disp_meta(MT_OP_avg_pool2d, meta_avg_pool);
    mt_disp_meta(MT_OP_avg_pool2d_backward, meta_avg_pool_bw);
    mt_disp_meta(MT_OP__adaptive_avg_pool2d, meta_adaptive);
    mt_disp_meta(MT_OP__adaptive_avg_pool2d_backward, meta_adaptive_bw);
    mt_disp_composite(MT_OP_adaptive_avg_pool2d, c_adaptive_avg_pool2d);
    mt_disp_composite(MT_OP_max_pool2d, c_max_pool2d);
    mt_disp_composite(MT_OP_max_pool1d, c_max_pool1d);
    mt_disp_composite(MT_OP_avg_pool1d, c_avg_pool1d);
    mt_disp_composite(MT_OP_adaptive_avg_pool1d, c_adaptive_avg_pool1d);
}
