/* cpu_conv_direct.h: the direct float32 convolution of cpu_conv_direct_avx2.c (AVX2 + FMA). */
#ifndef MT_CPU_CONV_DIRECT_H
#define MT_CPU_CONV_DIRECT_H

#include "nn_shapes.h"

/* whether the direct routine takes this geometry (horizontal stride 1, few taps per output) */
bool mt_cpu_conv_direct_fits(const mt_conv_geom *g);
/* y (N, Cs, Ho, Wo) = convolution of x (N, Cb, H, W) with w (Cs, Cb / G, kh, kw), plus bias
 * (Cs) when given; all contiguous. Only on a CPU with AVX2 and FMA. */
int mt_cpu_conv_direct_f32(const mt_conv_geom *g, const float *x, const float *w, const float *bias,
                           float *y);
/* gw (Cs, Cb / G, kh, kw) = the weight gradient of that convolution from its output's gradient
 * go and its input x (same routine's geometry and conditions) */
int mt_cpu_conv_direct_weight_f32(const mt_conv_geom *g, const float *go, const float *x,
                                  float *gw);

#endif
