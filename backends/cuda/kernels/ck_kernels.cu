// ck_kernels.cu: every kernel of the CUDA module, one translation unit (nvcc builds one fat
// binary of it, embedded in the module; the driver stand-in compiles it for the host). The
// families: element-wise, reductions, softmax, gather and scatter (scatter_reduce too), convolution
// columns and pooling, random draws, sort and unique, selection by masks and index tensors, over
// what they share (ck_common.cuh).
#include "ck_kernel.h"

#include "ck_common.cuh"

#include "ck_conv.cuh"
#include "ck_elementwise.cuh"
#include "ck_index.cuh"
#include "ck_random.cuh"
#include "ck_reduce.cuh"
#include "ck_scatter_reduce.cuh"
#include "ck_select.cuh"
#include "ck_softmax.cuh"
#include "ck_sort.cuh"
#include "ck_unique.cuh" // after ck_select and ck_sort, whose helpers it uses
