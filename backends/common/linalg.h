/* linalg.h: shapes and checks of the matrix products, shared by the meta functions and the
 * device kernels. */
#ifndef MT_LINALG_H
#define MT_LINALG_H

#include "mt_dispatch.h"

/* PyTorch's checks for mm/bmm/mv/dot/addmm/addmv/baddbmm; the result shape on success. */
int mt_linalg_check(int opid, mt_value *args, int *ndim, int64_t *shape);
int mt_meta_linalg(mt_call *c, mt_value *args, mt_outspec *outs);
void mt_linalg_register(void);

#endif
