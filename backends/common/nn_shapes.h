/* nn_shapes.h: the geometry of convolutions and poolings, and PyTorch's checks of their
 * arguments, shared by the meta functions (shapes) and the device kernels (loops); exported for
 * the device modules (backends/cuda) as part of the backend interface. */
#ifndef MT_NN_SHAPES_H
#define MT_NN_SHAPES_H

#include "mt_dispatch.h"

/* A convolution seen from both ends: the "big" side is a convolution's input (a transposed
 * convolution's output), the "small" side its output (a transposed convolution's input).
 * Weight is (Cs, Cb / groups, kh, kw) either way, so the three routines (big -> small,
 * small -> big, weight gradient) serve both kinds. 1-D convolutions have H = Ho = kh = 1. */
typedef struct mt_conv_geom {
    int64_t N, Cb, Cs, G;
    int64_t H, W, Ho, Wo;
    int64_t kh, kw, sh, sw, ph, pw, dh, dw;
} mt_conv_geom;

/* convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
 * groups): PyTorch's checks, the result's sizes (ndim of input) and the geometry */
MT_API int mt_conv_check(mt_value *args, int64_t *out_sizes, mt_conv_geom *g);
/* the geometry of convolution_backward_weight(grad_output, input, weight_size, stride, padding,
 * dilation, transposed, groups) */
MT_API int mt_conv_weight_geom(mt_value *args, mt_conv_geom *g);

/* A 2-D pooling window: input planes (N * C of them) of H x W, output Ho x Wo. */
typedef struct mt_pool_geom {
    int64_t planes, H, W, Ho, Wo;
    int64_t kh, kw, sh, sw, ph, pw, dh, dw;
} mt_pool_geom;

/* max_pool2d_with_indices / avg_pool2d argument checks (PyTorch's texts) and the geometry (the
 * input is 3-D or 4-D); adaptive_avg_pool2d's from self and output_size */
MT_API int mt_max_pool_geom(mt_value *args, mt_pool_geom *g);
MT_API int mt_avg_pool_geom(mt_value *args, mt_pool_geom *g);
MT_API int mt_adaptive_pool_geom(const mt_tensor *self, const mt_value *output_size,
                                 mt_pool_geom *g);

/* the adaptive window [start, end) of output cell i of o over an input of n */
static inline int64_t mt_adaptive_start(int64_t i, int64_t o, int64_t n) {
    return (i * n) / o;
}
static inline int64_t mt_adaptive_end(int64_t i, int64_t o, int64_t n) {
    return ((i + 1) * n + o - 1) / o;
}

/* sizes as PyTorch prints them in messages: "[4, 3, 3, 3]" */
const char *mt_sizes_str(int n, const int64_t *s, char *buf, size_t cap);

void mt_nn_register(void);

#endif
