/* npu_ops.h: the NPU backend's kernels (registered on the NPU dispatch key by npu_module.c). */
#ifndef MT_NPU_OPS_H
#define MT_NPU_OPS_H

#include "mt_dispatch.h"
#include "npu_runtime.h"

int npu_copy_impl(mt_call *c, mt_value *args, mt_value *rets);
int npu_empty_impl(mt_call *c, mt_value *args, mt_value *rets);
int npu_zeros_impl(mt_call *c, mt_value *args, mt_value *rets);
int npu_fill_impl(mt_call *c, mt_value *args, mt_value *rets);
int npu_clone_impl(mt_call *c, mt_value *args, mt_value *rets);
int npu_arange_impl(mt_call *c, mt_value *args, mt_value *rets);
/* the ACLNN kernels: npu_ops_math.c (element-wise, reductions), npu_ops_nn.c (products,
 * softmax, gather/scatter, masked fill) */
void npu_register_math(void);
void npu_register_nn(void);
int npu_copy_bytes(void *dst, mt_device dd, const void *src, mt_device sd, size_t n);

#endif
