/* cpu_conv_direct_avx512.c: the direct convolution routines for CPUs with AVX-512F (the Makefile
 * compiles this file with -mavx512f -mavx2 -mfma); cpu_conv.c chooses them at run time. */
#define CD_VW 16
#define CD_TABLE mt_conv_direct_avx512
#include "cpu_conv_direct_impl.h"
