/* ck_kernel.h: how a kernel of backends/cuda/kernels is declared. Under nvcc, CK_KERNEL(name, T)
 * is an extern "C" __global__ function of one argument of type T, by value. The test stand-in
 * of the driver (tests/cuda_standin) compiles the same sources as host C++ with its own
 * definitions of CK_KERNEL and of CUDA's keywords and thread indices (it includes its header
 * first, which defines CK_STANDIN). */
#ifndef MT_CK_KERNEL_H
#define MT_CK_KERNEL_H

#ifndef CK_STANDIN
#define CK_KERNEL(name, T) extern "C" __global__ void name(const T a)
#endif

/* the half conversions of mt_half.h, as host and device functions */
#define MT_HALF_FN static __host__ __device__ inline
#include "mt_half.h"

#include <math.h>

#include "ck_args.h"

#endif
