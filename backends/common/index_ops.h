/* index_ops.h: shared shape rules of the joining and indexing ops. */
#ifndef MT_INDEX_OPS_H
#define MT_INDEX_OPS_H

#include "mt_dispatch.h"

/* cat's result shape and dtype (skipping PyTorch's legacy empty 1-d inputs); the dim wrapped */
int mt_cat_shape(mt_value *args, int *dim, mt_outspec *out);
void mt_index_register(void);

#endif
