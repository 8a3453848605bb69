/* cpu_conv_direct.h: the direct float32 convolution routines of cpu_conv_direct_impl.h, built for
 * AVX2 + FMA and for AVX-512F (cpu_conv_direct_avx2.c, cpu_conv_direct_avx512.c). */
#ifndef MT_CPU_CONV_DIRECT_H
#define MT_CPU_CONV_DIRECT_H

#include "nn_shapes.h"

#include <stdlib.h>

/* a 64-byte aligned buffer (free() it): the vector loads and stores of the loops over it then
 * never split a cache line, whatever the heap's layout */
static inline void *mt_conv_alloc64(size_t n) {
    return aligned_alloc(64, (n + 63) & ~(size_t)63);
}

/* Both take contiguous float32 data and a geometry with horizontal stride 1 (see
 * mt_cpu_conv_direct_fits); they return 0, or -1 with the error set (out of memory). */
typedef struct {
    /* y (N, Cs, Ho, Wo) = convolution of x (N, Cb, H, W) with w (Cs, Cb / G, kh, kw), plus bias
     * (Cs) when given */
    int (*forward)(const mt_conv_geom *g, const float *x, const float *w, const float *bias,
                   float *y);
    /* gw (Cs, Cb / G, kh, kw) = that convolution's weight gradient from the gradient go of its
     * output and its input x */
    int (*weight)(const mt_conv_geom *g, const float *go, const float *x, float *gw);
} mt_conv_direct;

extern const mt_conv_direct mt_conv_direct_avx2, mt_conv_direct_avx512;

/* cpu_conv_cvec_avx512.c (AVX-512F only): the forward with 16 output channels per vector, for
 * layers whose output rows are narrower than a vector and whose output channels come in 16s */
bool mt_cpu_conv_cvec_fits(const mt_conv_geom *g);
int mt_cpu_conv_cvec_forward(const mt_conv_geom *g, const float *x, const float *w,
                             const float *bias, float *y);
/* cpu_conv_cvec_weight_avx512.c (AVX-512F only): the weight gradient of such layers with unit
 * horizontal stride and dilation and kernels 3 or 5 wide, at most 5 high */
bool mt_cpu_conv_cvec_weight_fits(const mt_conv_geom *g);
int mt_cpu_conv_cvec_weight(const mt_conv_geom *g, const float *go, const float *x, float *gw);
/* the weight gradient of wide stride-1 layers over padded planes, no columns
 * (cpu_conv_weight_padded.c, AVX-512 only): 1 when done, 0 when not taken (an input that is not
 * finite), -1 with the error set */
bool mt_cpu_conv_weight_padded_fits(const mt_conv_geom *g);
int mt_cpu_conv_weight_padded(const mt_conv_geom *g, const float *go, const float *x, float *gw);

/* whether the direct forward takes this geometry: horizontal stride 1, rows of at least 8
 * outputs, at most 4608 taps per output (512 channels of 3x3). Measured against im2col + gemm it
 * takes half the time from 1 to 256 channels. */
static inline bool mt_cpu_conv_direct_fits(const mt_conv_geom *g) {
    return g->sw == 1 && g->Cb / g->G * g->kh * g->kw <= 4608 && g->Wo >= 8;
}

/* whether the direct weight gradient takes it: the same, kernels at least 3 wide, and at most 256
 * taps per output (past that, from 64 channels of 3x3, and for 1x1 kernels, the gemm's one long
 * reduction is faster) */
static inline bool mt_cpu_conv_direct_weight_fits(const mt_conv_geom *g) {
    return mt_cpu_conv_direct_fits(g) && g->kw >= 3 && g->Cb / g->G * g->kh * g->kw <= 256;
}

#endif
