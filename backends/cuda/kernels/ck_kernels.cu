// ck_kernels.cu: every kernel of the CUDA module, one translation unit (nvcc builds one fat
// binary of it, embedded in the module; the driver stand-in compiles it for the host). The
// families: element-wise (with the dtype conversions the others use), reductions, softmax,
// gather and scatter.
#include "ck_kernel.h"

#include "ck_elementwise.cuh"
#include "ck_index.cuh"
#include "ck_reduce.cuh"
#include "ck_softmax.cuh"
