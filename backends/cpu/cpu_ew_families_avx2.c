/* cpu_ew_families_avx2.c: the element-wise loops built for CPUs with AVX2 and FMA (the
 * Makefile compiles this file with -mavx2 -mfma); cpu_ew.c chooses them at run time. */
#define MT_EW_VARIANT mt_cpu_ew_loops_avx2
#define MT_EW_SIMD_MATH
#include "cpu_ew_families.c"
