/* standin_dims.h: the thread indices of the CUDA driver stand-in, shared by its C side
 * (standin_cuda.c sets them for each simulated thread) and the kernels compiled for the host
 * (standin_kernel.h). */
#ifndef MT_STANDIN_DIMS_H
#define MT_STANDIN_DIMS_H

#include <stddef.h>

typedef struct ck_dim3 {
    unsigned int x, y, z;
} ck_dim3;

#ifdef __cplusplus
extern "C" {
#endif
extern __thread ck_dim3 threadIdx, blockIdx, blockDim, gridDim;
/* a kernel's host entry point: params as cuLaunchKernel passes them */
typedef void (*standin_thunk)(void **params);
/* param_bytes: the size of its one parameter, which a launch copies */
void standin_register_kernel(const char *name, standin_thunk thunk, size_t param_bytes);
#ifdef __cplusplus
}
#endif

#endif
