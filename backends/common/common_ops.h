/* common_ops.h: kernels every device shares: views, composite ops and conversions. */
#ifndef MT_COMMON_OPS_H
#define MT_COMMON_OPS_H

#include "mt_dispatch.h"

int mt_k_view(mt_call *c, mt_value *a, mt_value *r);
int mt_k_transpose(mt_call *c, mt_value *a, mt_value *r);
int mt_k_t(mt_call *c, mt_value *a, mt_value *r);
int mt_k_permute(mt_call *c, mt_value *a, mt_value *r);
int mt_k_expand(mt_call *c, mt_value *a, mt_value *r);
int mt_k_narrow(mt_call *c, mt_value *a, mt_value *r);
int mt_k_select(mt_call *c, mt_value *a, mt_value *r);
int mt_k_squeeze(mt_call *c, mt_value *a, mt_value *r);
int mt_k_unsqueeze(mt_call *c, mt_value *a, mt_value *r);
int mt_k_as_strided(mt_call *c, mt_value *a, mt_value *r);
int mt_k_alias(mt_call *c, mt_value *a, mt_value *r);
int mt_k_detach(mt_call *c, mt_value *a, mt_value *r);
int mt_k_diagonal(mt_call *c, mt_value *a, mt_value *r);
int mt_k_resize_(mt_call *c, mt_value *a, mt_value *r);

void mt_common_register(void);

/* A composite's result: t in r[0] (a new reference it owns), or -1 when t is NULL (error set). */
static inline int mt_ret_tensor(mt_value *r, mt_tensor *t) {
    if (!t) return -1;
    r[0] = mt_vtensor(t);
    return 0;
}
/* A composite that returns its argument itself: a new reference to t. */
static inline int mt_ret_self(mt_value *r, mt_tensor *t) {
    mt_tensor_incref(t);
    return mt_ret_tensor(r, t);
}

/* PyTorch 1.13's CPU lacks float16 kernels for some ops (exp, mm, softmax ...): their meta
 * functions, shared by every device, refuse float16 as the CPU does, except on a device whose
 * backend says its kernels compute float16 themselves (mt_backend.float16_kernels). */
static inline bool mt_lacks_float16_kernel(mt_device d, mt_dtype dt) {
    return dt == MT_FLOAT16 && !mt_devtype_float16_kernels(d.type);
}

/* unique along dim d (wrapped): PyTorch's refusals of a tensor with empty dims (its texts, the
 * first one's trailing space included), for every device's kernel */
static inline int mt_unique_dim_check(const mt_tensor *self, int d) {
    int zeros = 0;
    for (int i = 0; i < self->ndim; i++) zeros += self->sizes[i] == 0;
    if (self->ndim == 0 || zeros == 0) return 0;
    if (self->sizes[d] == 0 && zeros > 1)
        return mt_error(MT_ERR_RUNTIME, "Number of zero sized dimensions is more than one, so "
                                        "unique cannot be applied ");
    if (self->sizes[d] != 0)
        return mt_error(MT_ERR_RUNTIME, "There are 0 sized dimensions, and they aren't selected, "
                                        "so unique cannot be applied");
    return 0;
}

#endif
