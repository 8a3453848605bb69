/* cpu_batch_norm.c: _native_batch_norm_backward, batch normalization's three gradients in two
 * passes over each channel's N x (H W ...) elements, as PyTorch's CPU kernel: first the sums of
 * grad and of grad * (x - mean), then grad_input = grad * a + x * b + c with a, b, c per channel.
 * Float32 and float64, threads over channels; the derivative (src/autograd/deriv_nn.c) takes the
 * composed formula for other dtypes. */
#include "cpu_kernels.h"
#include "mt_ops_gen.h"
#include "mt_parallel.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    int64_t N, C, HW;
    const void *g, *x;               /* contiguous (N, C, HW) */
    const double *mean, *invstd, *w; /* per channel; w NULL: 1 */
    bool train;
    void *gi, *gw, *gb;
} bn_job;

/* Lanes of partial sums the compiler vectorises; each plane's sums go on in double. */
#define LANES 8

#define BN_TYPED(T, SFX)                                                                           \
    static void bn_backward_##SFX(void *job, int64_t c0, int64_t c1) {                             \
        const bn_job *j = job;                                                                     \
        int64_t HW = j->HW, M = j->N * HW;                                                         \
        for (int64_t c = c0; c < c1; c++) {                                                        \
            T m = (T)j->mean[c];                                                                   \
            double sum_dy = 0, sum_dy_xmu = 0;                                                     \
            for (int64_t n = 0; n < j->N; n++) {                                                   \
                const T *g = (const T *)j->g + (n * j->C + c) * HW;                                \
                const T *x = (const T *)j->x + (n * j->C + c) * HW;                                \
                T s1[LANES] = {0}, s2[LANES] = {0};                                                \
                int64_t i = 0;                                                                     \
                for (; i + LANES <= HW; i += LANES)                                                \
                    for (int k = 0; k < LANES; k++) {                                              \
                        s1[k] += g[i + k];                                                         \
                        s2[k] += g[i + k] * (x[i + k] - m);                                        \
                    }                                                                              \
                double p1 = 0, p2 = 0;                                                             \
                for (; i < HW; i++) p1 += g[i], p2 += (double)g[i] * (x[i] - m);                   \
                for (int k = 0; k < LANES; k++) p1 += s1[k], p2 += s2[k];                          \
                sum_dy += p1, sum_dy_xmu += p2;                                                    \
            }                                                                                      \
            double invstd = j->invstd[c], w = j->w ? j->w[c] : 1.0;                                \
            ((T *)j->gb)[c] = (T)sum_dy;                                                           \
            ((T *)j->gw)[c] = (T)(sum_dy_xmu * invstd);                                            \
            /* grad_input = (g - mean(g) - (x - mean) invstd^2 mean(g (x - mean))) invstd w in     \
             * training, g invstd w in evaluation: g a + x b + k */                                \
            double a = invstd * w, b = 0, k = 0;                                                   \
            if (j->train && M > 0) {                                                               \
                b = -a * invstd * invstd * sum_dy_xmu / (double)M;                                 \
                k = -a * sum_dy / (double)M - j->mean[c] * b;                                      \
            }                                                                                      \
            T ta = (T)a, tb = (T)b, tk = (T)k;                                                     \
            for (int64_t n = 0; n < j->N; n++) {                                                   \
                const T *g = (const T *)j->g + (n * j->C + c) * HW;                                \
                const T *x = (const T *)j->x + (n * j->C + c) * HW;                                \
                T *o = (T *)j->gi + (n * j->C + c) * HW;                                           \
                for (int64_t i = 0; i < HW; i++) o[i] = g[i] * ta + x[i] * tb + tk;                \
            }                                                                                      \
        }                                                                                          \
    }

BN_TYPED(float, f32)
BN_TYPED(double, f64)

/* a per-channel tensor as doubles (NULL in: NULL out, no error) */
static double *channel_doubles(mt_tensor *t, int64_t C, int *err) {
    if (!t) return NULL;
    double *d = malloc(sizeof(double) * (size_t)(C > 0 ? C : 1));
    mt_tensor *dense = d ? mt_cpu_as_dense(t, MT_FLOAT64) : NULL;
    if (!dense) {
        free(d);
        *err = d ? -1 : mt_error(MT_ERR_MEMORY, "out of memory in batch_norm backward");
        return NULL;
    }
    const double *s = mt_tensor_data(dense);
    for (int64_t i = 0; i < C; i++) d[i] = s[i];
    mt_tensor_decref(dense);
    return d;
}

/* _native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
 * save_invstd, train, eps) -> (grad_input, grad_weight, grad_bias); the meta function
 * (backends/common/batch_norm.c) checked the sizes */
static int bn_backward_impl(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[1].t;
    mt_dtype dt = (mt_dtype)x->dtype;
    if (dt != MT_FLOAT32 && dt != MT_FLOAT64)
        return mt_error(MT_ERR_RUNTIME, "\"batch_norm_backward_cpu\" not implemented for '%s'",
                        mt_dtype_scalar_name(dt));
    bool train = a[7].b;
    int64_t C = x->sizes[1], HW = 1;
    for (int i = 2; i < x->ndim; i++) HW *= x->sizes[i];
    int err = 0;
    double *mean = channel_doubles(train ? mt_vopt_tensor(a[5]) : mt_vopt_tensor(a[3]), C, &err);
    double *invstd =
        err ? NULL : channel_doubles(train ? mt_vopt_tensor(a[6]) : mt_vopt_tensor(a[4]), C, &err);
    double *w = err ? NULL : channel_doubles(mt_vopt_tensor(a[2]), C, &err);
    mt_tensor *g = err ? NULL : mt_cpu_as_dense(a[0].t, dt);
    mt_tensor *xd = g ? mt_cpu_as_dense(x, dt) : NULL;
    int st = -1;
    if (xd) {
        if (!train) /* running_var -> 1 / sqrt(running_var + eps) */
            for (int64_t i = 0; i < C; i++) invstd[i] = 1.0 / sqrt(invstd[i] + a[8].d);
        bn_job j = {x->sizes[0],
                    C,
                    HW,
                    mt_tensor_data(g),
                    mt_tensor_data(xd),
                    mean,
                    invstd,
                    w,
                    train,
                    mt_tensor_data(r[0].t),
                    mt_tensor_data(r[1].t),
                    mt_tensor_data(r[2].t)};
        mt_parallel_range(C, mt_threads_for(x->numel),
                          dt == MT_FLOAT32 ? bn_backward_f32 : bn_backward_f64, &j);
        st = 0;
    }
    mt_tensor_decref(g);
    mt_tensor_decref(xd);
    free(mean);
    free(invstd);
    free(w);
    return st;
}

void mt_cpu_batch_norm_register(void) {
    mt_disp_impl(MT_OP__native_batch_norm_backward, MT_KEY_CPU, bn_backward_impl);
}
