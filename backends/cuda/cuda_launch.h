/* cuda_launch.h: the module's device code and its launches. The kernels of backends/cuda/kernels
 * are built by nvcc into one fat binary (sm_80, sm_90 and PTX for later GPUs) that the Makefile
 * embeds in the module (cuda_image); each device loads it once, on first launch. Built where
 * nvcc is absent, the image is empty and a launch says so. */
#ifndef MT_CUDA_LAUNCH_H
#define MT_CUDA_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_runtime.h"

/* the embedded image (the Makefile's generated cuda_image.S) and the architectures it holds
 * ("sm_80 sm_90 compute_90", or "" when built without nvcc) */
extern const unsigned char cuda_image[], cuda_image_end[];
extern const char cuda_image_arch[];

/* the kernels of kernels/ck_kernels.cu: X(enum suffix, the kernel's name) */
#define CUDA_KERNEL_LIST(X)                                                                        \
    X(EW_F32, ck_ew_f32)                                                                           \
    X(EW_F64, ck_ew_f64)                                                                           \
    X(EW_I64, ck_ew_i64)                                                                           \
    X(EW_DENSE_F32, ck_ew_dense_f32)                                                               \
    X(EW_SPECIAL_F32, ck_ew_special_f32)                                                           \
    X(EW_SPECIAL_F64, ck_ew_special_f64)                                                           \
    X(REDUCE_F32, ck_reduce_f32)                                                                   \
    X(REDUCE_F64, ck_reduce_f64)                                                                   \
    X(REDUCE_I64, ck_reduce_i64)                                                                   \
    X(SOFTMAX_F32, ck_softmax_f32)                                                                 \
    X(SOFTMAX_F64, ck_softmax_f64)                                                                 \
    X(SOFTMAX_I64, ck_softmax_i64)                                                                 \
    X(INDEX_F64, ck_index_f64)                                                                     \
    X(INDEX_I64, ck_index_i64)                                                                     \
    X(SCATTER_REDUCE_F64, ck_scatter_reduce_f64)                                                   \
    X(SCATTER_REDUCE_I64, ck_scatter_reduce_i64)                                                   \
    X(CONV_F32, ck_conv_f32)                                                                       \
    X(CONV_F64, ck_conv_f64)                                                                       \
    X(RANDOM_F32, ck_random_f32)                                                                   \
    X(RANDOM_F64, ck_random_f64)                                                                   \
    X(MULTINOMIAL, ck_multinomial)                                                                 \
    X(SORT_F32, ck_sort_f32)                                                                       \
    X(SORT_F64, ck_sort_f64)                                                                       \
    X(SORT_I64, ck_sort_i64)                                                                       \
    X(SELECT, ck_select)                                                                           \
    X(ADV_F64, ck_adv_f64)                                                                         \
    X(ADV_I64, ck_adv_i64)                                                                         \
    X(UNIQUE_F32, ck_unique_f32)                                                                   \
    X(UNIQUE_F64, ck_unique_f64)                                                                   \
    X(UNIQUE_I64, ck_unique_i64)

typedef enum {
#define X(id, name) CUDA_FN_##id,
    CUDA_KERNEL_LIST(X)
#undef X
        CUDA_FN_COUNT
} cuda_fn;

/* Launch fn over n elements (grid-stride blocks of CK_BLOCK threads) on the current stream of
 * `device`, with *args (a struct of ck_args.h) as its one parameter. 0, or -1 with the error. */
int cuda_launch(int device, cuda_fn fn, int64_t n, void *args);

#endif
