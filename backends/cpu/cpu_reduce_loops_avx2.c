/* cpu_reduce_loops_avx2.c: the reduction loops built for CPUs with AVX2 and FMA (the Makefile
 * compiles this file with -mavx2 -mfma); cpu_reduce.c chooses them at run time. */
#define MT_REDUCE_LOOPS mt_reduce_loops_avx2
#include "cpu_reduce_loops.c"
