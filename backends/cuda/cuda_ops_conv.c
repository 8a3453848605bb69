/* cuda_ops_conv.c: convolutions and 2-D max pooling on CUDA. A convolution is columns and cuBLAS
 * products over chunks of samples, per group, in the three routines of nn_shapes.h ("big" is a
 * convolution's input, "small" its output; weight (Cs, Cb / G, kh, kw) either way):
 *   big -> small   im2col of big, then W x columns for every sample of the chunk (one batched gemm)
 *   small -> big   W^T x small into columns (one batched gemm), then col2im into big
 *   weight grad    im2col of big, then small x columns^T for every sample of the chunk (one
 *                  batched gemm into scratch), summed into the gradient by a gemm with ones
 * The columns of a chunk stay under COLS_BUDGET elements. */
#include <stdint.h>
#include <string.h>

#include "cuda_launch.h"
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"
#include "nn_shapes.h"

enum { COLS_BUDGET = 1 << 24 };

static cuda_fn conv_fn(mt_dtype dt) {
    return dt == MT_FLOAT64 ? CUDA_FN_CONV_F64 : CUDA_FN_CONV_F32;
}

/* im2col (big -> cols) or col2im (cols -> big) of nb samples of one group */
static int columns(int op, const mt_conv_geom *g, int device, mt_dtype dt, char *big, char *cols,
                   int64_t nb) {
    ck_conv_args k;
    memset(&k, 0, sizeof k);
    k.op = op;
    k.C = g->Cb / g->G;
    k.sample_stride = g->Cb * g->H * g->W;
    k.H = g->H, k.W = g->W, k.Ho = g->Ho, k.Wo = g->Wo, k.kh = g->kh, k.kw = g->kw;
    k.sh = g->sh, k.sw = g->sw, k.ph = g->ph, k.pw = g->pw, k.dh = g->dh, k.dw = g->dw;
    k.big = (ck_operand){.ptr = (uint64_t)(uintptr_t)big, .dtype = dt};
    k.small = (ck_operand){.ptr = (uint64_t)(uintptr_t)cols, .dtype = dt};
    k.n = op == CK_IM2COL ? nb * k.C * g->kh * g->kw * g->Ho * g->Wo : nb * k.C * g->H * g->W;
    return cuda_launch(device, conv_fn(dt), k.n, &k);
}

/* out += bias along dim 1 (out's channels) */
static int add_bias(mt_tensor *out, mt_tensor *bias) {
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM];
    int nd = out->ndim - 1;
    for (int d = 0; d < nd; d++) {
        sizes[d] = d == 0 ? bias->sizes[0] : 1;
        strides[d] = d == 0 ? bias->strides[0] : 0;
    }
    mt_tensor *view = mt_tensor_view_of(bias, nd, sizes, strides, bias->offset);
    if (!view) return -1;
    mt_tensor *in[2] = {out, view};
    int rc = cuda_ew(out, CK_ADD, 2, in, NULL, NULL, (mt_dtype)out->dtype);
    mt_tensor_decref(view);
    return rc;
}

enum { BIG_TO_SMALL, SMALL_TO_BIG, WEIGHT_GRAD };

/* The weight gradient's scratch: each sample's product of a group (Csg x K), `batch` samples of
 * them at a time (the chunk's, at most COLS_BUDGET elements), and as many ones to sum them with. */
typedef struct {
    mt_tensor *parts, *ones;
    int64_t batch;
} wg_scratch;

static int wg_scratch_make(wg_scratch *s, int64_t per_sample, int64_t chunk, mt_tensor *like) {
    s->batch = COLS_BUDGET / per_sample;
    if (s->batch < 1) s->batch = 1;
    if (s->batch > chunk) s->batch = chunk;
    int64_t n = s->batch * per_sample;
    s->parts = mt_tensor_empty(1, &n, (mt_dtype)like->dtype, like->device);
    s->ones = s->parts ? mt_tensor_empty(1, &s->batch, (mt_dtype)like->dtype, like->device) : NULL;
    mt_value one = mt_vdouble(1);
    return s->ones ? cuda_ew(s->ones, CK_FILL, 0, NULL, &one, NULL, (mt_dtype)like->dtype) : -1;
}

/* One group's weight gradient from a chunk of nb samples (small: the first one's output gradient
 * of the group, cols: their columns): each sample's small x columns^T (Csg x K) by one batched
 * gemm into the parts, then their sum added into grad by a second, ones (1 x b) x parts (b x
 * Csg K), rather than a gemm per sample, each adding into grad. */
static int weight_grad_chunk(const mt_conv_geom *g, int device, mt_dtype dt, int64_t nb,
                             const char *small, const char *cols, const wg_scratch *s, char *grad) {
    size_t isz = mt_dtype_size(dt);
    int64_t Csg = g->Cs / g->G, K = g->Cb / g->G * g->kh * g->kw, L = g->Ho * g->Wo;
    char *parts = mt_tensor_raw(s->parts);
    int rc = 0;
    for (int64_t j = 0; j < nb && !rc; j += s->batch) {
        int64_t b = nb - j < s->batch ? nb - j : s->batch;
        cuda_matrix sm = {small + (size_t)(j * g->Cs * L) * isz, L, g->Cs * L, false};
        cuda_matrix ct = {cols + (size_t)(j * K * L) * isz, L, K * L, true};
        rc = cuda_gemm(device, dt, b, Csg, K, L, 1, sm, ct, 0, parts, K, Csg * K);
        cuda_matrix ones = {mt_tensor_raw(s->ones), b, 0, false};
        cuda_matrix pm = {parts, Csg * K, 0, false};
        if (!rc) rc = cuda_gemm(device, dt, 1, 1, Csg * K, b, 1, ones, pm, 1, grad, Csg * K, 0);
    }
    return rc;
}

/* one routine: for WEIGHT_GRAD, a is small (the output's gradient) and w is big (the input) */
static int run(int routine, const mt_conv_geom *g, mt_tensor *a_in, mt_tensor *w_in,
               mt_tensor *bias, mt_tensor *out) {
    if (out->numel == 0) return 0;
    mt_dtype dt = (mt_dtype)out->dtype;
    /* a result in another layout (a channels-last convolution's): computed dense, copied in */
    if (routine != WEIGHT_GRAD && !mt_tensor_is_contiguous(out)) {
        mt_tensor *dense = mt_tensor_empty(out->ndim, out->sizes, dt, out->device);
        if (!dense) return -1;
        int rc = run(routine, g, a_in, w_in, bias, dense);
        mt_tensor *in[1] = {dense};
        if (!rc) rc = cuda_ew(out, CK_COPY, 1, in, NULL, NULL, dt);
        mt_tensor_decref(dense);
        return rc;
    }
    int device = cuda_device_of(out);
    size_t isz = mt_dtype_size(dt);
    int64_t Cbg = g->Cb / g->G, Csg = g->Cs / g->G, K = Cbg * g->kh * g->kw, L = g->Ho * g->Wo;
    int64_t per = K * L > 0 ? K * L : 1, chunk = COLS_BUDGET / per;
    if (chunk < 1) chunk = 1;
    if (chunk > g->N) chunk = g->N;
    mt_tensor *a = cuda_dense(a_in), *w = a ? cuda_dense(w_in) : NULL, *cols = NULL;
    int64_t ncols[1] = {chunk * K * L};
    wg_scratch wg = {0};
    int rc = -1;
    if (!a || !w || !(cols = mt_tensor_empty(1, ncols, dt, out->device))) goto done;
    if (routine == WEIGHT_GRAD && (cuda_zero(out) || wg_scratch_make(&wg, Csg * K, chunk, out)))
        goto done;
    char *A = mt_tensor_raw(a), *W = mt_tensor_raw(w), *O = mt_tensor_raw(out),
         *C = mt_tensor_raw(cols);
    rc = 0;
    for (int64_t n0 = 0; n0 < g->N && !rc; n0 += chunk) {
        int64_t nb = g->N - n0 < chunk ? g->N - n0 : chunk;
        for (int64_t gi = 0; gi < g->G && !rc; gi++) {
            if (routine == BIG_TO_SMALL) {
                rc = columns(CK_IM2COL, g, device, dt,
                             A + (size_t)((n0 * g->Cb + gi * Cbg) * g->H * g->W) * isz, C, nb);
                cuda_matrix wm = {W + (size_t)(gi * Csg * K) * isz, K, 0, false};
                cuda_matrix cm = {C, L, K * L, false};
                if (!rc)
                    rc = cuda_gemm(device, dt, nb, Csg, L, K, 1, wm, cm, 0,
                                   O + (size_t)((n0 * g->Cs + gi * Csg) * L) * isz, L, g->Cs * L);
            } else if (routine == SMALL_TO_BIG) {
                cuda_matrix wt = {W + (size_t)(gi * Csg * K) * isz, K, 0, true};
                cuda_matrix sm = {A + (size_t)((n0 * g->Cs + gi * Csg) * L) * isz, L, g->Cs * L,
                                  false};
                rc = cuda_gemm(device, dt, nb, K, L, Csg, 1, wt, sm, 0, C, L, K * L);
                if (!rc)
                    rc = columns(CK_COL2IM, g, device, dt,
                                 O + (size_t)((n0 * g->Cb + gi * Cbg) * g->H * g->W) * isz, C, nb);
            } else {
                rc = columns(CK_IM2COL, g, device, dt,
                             W + (size_t)((n0 * g->Cb + gi * Cbg) * g->H * g->W) * isz, C, nb);
                if (!rc)
                    rc = weight_grad_chunk(g, device, dt, nb,
                                           A + (size_t)((n0 * g->Cs + gi * Csg) * L) * isz, C, &wg,
                                           O + (size_t)(gi * Csg * K) * isz);
            }
        }
    }
    if (!rc && bias && routine != WEIGHT_GRAD) rc = add_bias(out, bias);
done:
    if (a) mt_tensor_decref(a);
    if (w) mt_tensor_decref(w);
    if (cols) mt_tensor_decref(cols);
    if (wg.parts) mt_tensor_decref(wg.parts);
    if (wg.ones) mt_tensor_decref(wg.ones);
    return rc;
}

/* convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
 */
static int k_convolution(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_conv_geom g;
    int64_t sizes[MT_MAX_DIM];
    if (mt_conv_check(a, sizes, &g)) return -1;
    mt_tensor *bias = a[2].tag == MT_V_TENSOR ? a[2].t : NULL;
    return run(a[6].b ? SMALL_TO_BIG : BIG_TO_SMALL, &g, a[0].t, a[1].t, bias, r[0].t);
}

/* convolution_backward_weight(grad_output, input, weight_size, ...): small is grad_output for a
 * convolution, input for a transposed one */
static int k_convolution_weight(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_conv_geom g;
    if (mt_conv_weight_geom(a, &g)) return -1;
    bool transposed = a[6].b;
    return run(WEIGHT_GRAD, &g, transposed ? a[1].t : a[0].t, transposed ? a[0].t : a[1].t, NULL,
               r[0].t);
}

/* A pooling or triangle launch (CK_*POOL*, CK_TRIL, CK_TRIU): big is the input (for a backward, its
 * gradient, fresh and zeroed), small the output (for a backward, its gradient), indices the
 * maxima's positions (max pooling only); a forward writes through dense copies where its results
 * are views. */
typedef struct {
    int op;
    mt_tensor *big, *small, *indices;
    bool include_pad;
    int64_t divisor;
} pool_job;

static int pool(const pool_job *j, const mt_pool_geom *g) {
    bool forward = j->op == CK_MAXPOOL || j->op == CK_AVGPOOL || j->op == CK_ADAPTIVE_AVGPOOL ||
                   j->op == CK_TRIL || j->op == CK_TRIU;
    mt_tensor *big = cuda_dense(j->big), *small = big ? cuda_dense(j->small) : NULL;
    mt_tensor *idx = small && j->indices ? cuda_dense(j->indices) : NULL;
    int rc = -1;
    if (small && (idx || !j->indices)) {
        ck_conv_args k;
        memset(&k, 0, sizeof k);
        k.op = j->op;
        k.n = g->planes * g->Ho * g->Wo;
        k.H = g->H, k.W = g->W, k.Ho = g->Ho, k.Wo = g->Wo, k.kh = g->kh, k.kw = g->kw;
        k.sh = g->sh, k.sw = g->sw, k.ph = g->ph, k.pw = g->pw, k.dh = g->dh, k.dw = g->dw;
        k.count_include_pad = j->include_pad;
        k.divisor = j->divisor;
        k.big = (ck_operand){.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(big), .dtype = big->dtype};
        k.small =
            (ck_operand){.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(small), .dtype = small->dtype};
        if (idx)
            k.indices =
                (ck_operand){.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(idx), .dtype = idx->dtype};
        rc = cuda_launch(cuda_device_of(big), conv_fn((mt_dtype)big->dtype), k.n, &k);
        if (!rc && forward && small != j->small) {
            mt_tensor *in[1] = {small};
            rc = cuda_ew(j->small, CK_COPY, 1, in, NULL, NULL, (mt_dtype)small->dtype);
        }
        if (!rc && forward && idx && idx != j->indices) {
            mt_tensor *in[1] = {idx};
            rc = cuda_ew(j->indices, CK_COPY, 1, in, NULL, NULL, MT_INT64);
        }
    }
    if (big) mt_tensor_decref(big);
    if (small) mt_tensor_decref(small);
    if (idx) mt_tensor_decref(idx);
    return rc;
}

/* A pooling's backward (j->big: grad_input, fresh): zeroed, then the gradients added, in a dense
 * tensor copied in where grad_input is laid out otherwise (a channels-last input's). For float16
 * and bfloat16 they are added into a float copy, rounded once at the end, as PyTorch's kernels
 * accumulate in float (an element that several windows share would otherwise be rounded at each
 * addition). */
static int pool_backward(pool_job *j, const mt_pool_geom *g) {
    mt_tensor *gi = j->big;
    if (gi->numel == 0) return 0;
    bool half = gi->dtype == MT_FLOAT16 || gi->dtype == MT_BFLOAT16;
    bool apart = half || !mt_tensor_is_contiguous(gi);
    mt_dtype adt = half ? MT_FLOAT32 : (mt_dtype)gi->dtype;
    mt_tensor *acc = apart ? mt_tensor_empty(gi->ndim, gi->sizes, adt, gi->device) : gi;
    if (!acc) return -1;
    j->big = acc;
    int rc = cuda_zero(acc) ? -1 : pool(j, g);
    if (apart) {
        mt_tensor *in[1] = {acc};
        if (!rc) rc = cuda_ew(gi, CK_COPY, 1, in, NULL, NULL, adt);
        mt_tensor_decref(acc);
    }
    j->big = gi;
    return rc;
}

/* max_pool2d_with_indices(self, ...) -> (values, indices) */
static int k_max_pool(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_pool_geom g;
    if (mt_max_pool_geom(a, &g)) return -1;
    pool_job j = {CK_MAXPOOL, a[0].t, r[0].t, r[1].t, false, 0};
    return r[0].t->numel ? pool(&j, &g) : 0;
}

/* max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
 * ceil_mode, indices) -> grad_input (contiguous, fresh): grad_output added at the indices */
static int k_max_pool_backward(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_pool_geom g;
    if (mt_max_pool_geom(a + 1, &g)) return -1;
    pool_job j = {CK_MAXPOOL_BACKWARD, r[0].t, a[0].t, a[7].t, false, 0};
    return pool_backward(&j, &g);
}

static int64_t divisor_of(mt_value v) {
    return v.tag == MT_V_NONE ? 0 : v.i;
}

/* avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
 * and its backward (grad_output, self, ... the same) */
static int k_avg_pool(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_pool_geom g;
    if (mt_avg_pool_geom(a, &g)) return -1;
    pool_job j = {CK_AVGPOOL, a[0].t, r[0].t, NULL, a[5].b, divisor_of(a[6])};
    return r[0].t->numel ? pool(&j, &g) : 0;
}

static int k_avg_pool_backward(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_pool_geom g;
    if (mt_avg_pool_geom(a + 1, &g)) return -1;
    pool_job j = {CK_AVGPOOL_BACKWARD, r[0].t, a[0].t, NULL, a[6].b, divisor_of(a[7])};
    return pool_backward(&j, &g);
}

/* _adaptive_avg_pool2d(self, output_size) and its backward (grad_output, self) */
static int k_adaptive(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_pool_geom g;
    if (mt_adaptive_pool_geom(a[0].t, &a[1], &g)) return -1;
    pool_job j = {CK_ADAPTIVE_AVGPOOL, a[0].t, r[0].t, NULL, false, 0};
    return r[0].t->numel ? pool(&j, &g) : 0;
}

static int k_adaptive_backward(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_pool_geom g;
    mt_value os = mt_vilist(a[0].t->sizes + a[0].t->ndim - 2, 2);
    if (mt_adaptive_pool_geom(a[1].t, &os, &g)) return -1;
    pool_job j = {CK_ADAPTIVE_AVGPOOL_BACKWARD, r[0].t, a[0].t, NULL, false, 0};
    return pool_backward(&j, &g);
}

/* tril(self, diagonal), triu, and in place: the matrices of the last two dims */
int cuda_triangle(mt_tensor *self, mt_tensor *out, bool upper, int64_t diagonal) {
    int op = upper ? CK_TRIU : CK_TRIL;
    if (out->numel == 0) return 0;
    if (self->ndim < 2)
        return mt_error(MT_ERR_RUNTIME, "%s: input tensor must have at least 2 dimensions",
                        upper ? "triu" : "tril");
    pool_job j = {op, self, out, NULL, false, 0};
    mt_pool_geom g = {.planes = 1,
                      .H = self->sizes[self->ndim - 2],
                      .W = self->sizes[self->ndim - 1],
                      .kh = diagonal};
    /* one work item per element: planes x Ho x Wo covers them all */
    g.Ho = out->numel / (g.W ? g.W : 1), g.Wo = g.W;
    return pool(&j, &g);
}

static int k_tril(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return cuda_triangle(a[0].t, r[0].t, false, a[1].i);
}

static int k_triu(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return cuda_triangle(a[0].t, r[0].t, true, a[1].i);
}

const mt_kernel_entry cuda_conv_kernels[] = {
    {"convolution", k_convolution},
    {"convolution_backward_weight", k_convolution_weight},
    {"max_pool2d_with_indices", k_max_pool},
    {"max_pool2d_with_indices_backward", k_max_pool_backward},
    {"avg_pool2d", k_avg_pool},
    {"avg_pool2d_backward", k_avg_pool_backward},
    {"_adaptive_avg_pool2d", k_adaptive},
    {"_adaptive_avg_pool2d_backward", k_adaptive_backward},
    {"tril", k_tril},
    {"triu", k_triu},
    {"tril_", k_tril},
    {"triu_", k_triu},
};
const size_t cuda_conv_kernels_count = MT_ARRAY_LEN(cuda_conv_kernels);
