/* npu_ops.h: the NPU backend's kernels, by op name (registered on the NPU's dispatch key by
 * npu_module.c), and what the module learns from the core when it registers. */
#ifndef MT_NPU_OPS_H
#define MT_NPU_OPS_H

#include "mt_dispatch.h"
#include "npu_runtime.h"

/* the "npu" device type's id and the ops the kernels call, set by npu_module.c */
extern int npu_devtype;
extern const mt_op *npu_op_contiguous, *npu_op_copy_;

/* creation and copies (npu_copy.c), element-wise and reductions (npu_ops_math.c), products,
 * softmax, gather/scatter, masked fill (npu_ops_nn.c) */
extern const mt_kernel_entry npu_copy_kernels[], npu_math_kernels[], npu_nn_kernels[];
extern const size_t npu_copy_kernels_count, npu_math_kernels_count, npu_nn_kernels_count;
int npu_copy_bytes(void *dst, mt_device dd, const void *src, mt_device sd, size_t n);

#endif
