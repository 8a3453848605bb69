/* npu_ops.h: the NPU backend's kernels (registered on the NPU dispatch key by npu_module.c). */
#ifndef MT_NPU_OPS_H
#define MT_NPU_OPS_H

#include "mt_dispatch.h"
#include "npu_runtime.h"

int npu_copy_impl(mt_call *c, mt_value *args, mt_value *rets);
int npu_empty_impl(mt_call *c, mt_value *args, mt_value *rets);
int npu_zeros_impl(mt_call *c, mt_value *args, mt_value *rets);
int npu_fill_impl(mt_call *c, mt_value *args, mt_value *rets);
int npu_copy_bytes(void *dst, mt_device dd, const void *src, mt_device sd, size_t n);

#endif
