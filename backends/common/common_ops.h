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

/* _to_copy for CPU and meta results (the NPU module registers its own) */

void mt_common_register(void);

#endif
