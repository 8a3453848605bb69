/* reduce.h: what every device shares about reductions and along-a-dim ops: decoding an
 * overload's arguments into one description (which dims, result dtypes, PyTorch's checks)
 * and their meta functions. */
#ifndef MT_REDUCE_H
#define MT_REDUCE_H

#include "mt_dispatch.h"

enum {
    MT_R_SUM, MT_R_PROD, MT_R_MEAN, MT_R_MAX, MT_R_MIN, MT_R_ARGMAX, MT_R_ARGMIN,
    MT_R_ALL, MT_R_ANY, MT_R_VAR, MT_R_STD, MT_R_NORM,
};

typedef struct mt_red {
    int kind;
    const char *name;      /* "max": for messages */
    bool reduce[MT_MAX_DIM];
    bool keepdim;
    bool with_indices;     /* max.dim/min.dim: a second result */
    bool with_mean;        /* var_mean/std_mean: a second result */
    mt_dtype out, compute; /* result and accumulation dtypes */
    double p;              /* norm */
    int64_t correction;    /* var/std */
    int nres;
} mt_red;

/* Decode a reduction call (any overload) with PyTorch's checks and dtype rules. */
int mt_red_decode(const mt_call *c, mt_value *args, mt_red *r);
/* The result shape of a reduction (keepdim keeps size-1 dims). */
int mt_red_out_shape(const mt_tensor *self, const mt_red *r, int64_t *shape);
int mt_meta_reduce(mt_call *c, mt_value *args, mt_outspec *outs);

/* Ops along one dim (cumsum, cumprod, softmax, log_softmax). */
enum { MT_D_CUMSUM, MT_D_CUMPROD, MT_D_SOFTMAX, MT_D_LOG_SOFTMAX };
typedef struct mt_dimop {
    int kind;
    int dim;
    mt_dtype out, compute;
} mt_dimop;
int mt_dimop_decode(const mt_call *c, mt_value *args, mt_dimop *d);
int mt_meta_dimop(mt_call *c, mt_value *args, mt_outspec *outs);

void mt_reduce_register(void);

#endif
