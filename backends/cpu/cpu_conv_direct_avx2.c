/* cpu_conv_direct_avx2.c: the direct convolution routines for CPUs with AVX2 and FMA (the
 * Makefile compiles this file with -mavx2 -mfma); cpu_conv.c chooses them at run time. */
#define CD_VW 8
#define CD_TABLE mt_conv_direct_avx2
#include "cpu_conv_direct_impl.h"
