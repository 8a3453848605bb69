/* standin_kernel.h: included first when the CUDA driver stand-in compiles the module's kernel
 * sources (the .cu files of backends/cuda/kernels) as host C++: CUDA's function qualifiers mean
 * nothing, the thread indices are the simulated thread's (standin_dims.h), and each CK_KERNEL
 * registers an entry point that cuModuleGetFunction finds by the kernel's name. A test double: the
 * kernels' arithmetic and indexing run as written, one simulated thread at a time. */
#ifndef MT_STANDIN_KERNEL_H
#define MT_STANDIN_KERNEL_H

#define CK_STANDIN 1
#define __global__
#define __device__
#define __host__

#include "standin_dims.h"

/* CUDA's vector type of four floats */
struct float4 {
    float x, y, z, w;
};
static inline float4 make_float4(float x, float y, float z, float w) {
    return float4{x, y, z, w};
}

/* CUDA's atomics, for one host thread at a time */
template <typename T> static inline T atomicAdd(T *p, T v) {
    T old = *p;
    *p = old + v;
    return old;
}
static inline unsigned int atomicCAS(unsigned int *p, unsigned int expected, unsigned int v) {
    unsigned int old = *p;
    if (old == expected) *p = v;
    return old;
}
static inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long expected,
                                           unsigned long long v) {
    unsigned long long old = *p;
    if (old == expected) *p = v;
    return old;
}

#define CK_KERNEL(name, T)                                                                         \
    static void name##_body(const T a);                                                            \
    static void name##_thunk(void **params) {                                                      \
        name##_body(*(const T *)params[0]);                                                        \
    }                                                                                              \
    __attribute__((constructor)) static void name##_register(void) {                               \
        standin_register_kernel(#name, name##_thunk, sizeof(T));                                   \
    }                                                                                              \
    static void name##_body(const T a)

#endif
