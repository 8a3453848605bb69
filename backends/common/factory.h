/* factory.h: argument rules of the creation ops, shared by meta functions and kernels. */
#ifndef MT_FACTORY_H
#define MT_FACTORY_H

#include "mt_dispatch.h"

/* The dtype a factory op produces: `dtype=` if given, else `fallback`. */
static inline mt_dtype mt_factory_dtype(mt_value dtype, mt_dtype fallback) {
    return dtype.tag == MT_V_DTYPE ? (mt_dtype)dtype.dtype : fallback;
}

/* arange's start/end/step (whichever overload), result dtype and length, checked with
 * PyTorch's messages. */
typedef struct mt_range {
    mt_value start, end, step;
    mt_dtype dtype;
    int64_t size;
} mt_range;
int mt_arange_args(const mt_call *c, mt_value *args, mt_range *r);
/* torch.range's (start, end, step, *, dtype ...): the end included, computed in the dtype's
 * accumulation type (double for float32/64, float for bfloat16, int64 for integers). */
int mt_range_args(mt_value *args, mt_range *r);

#endif
