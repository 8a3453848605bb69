/* reduce.h: what every device shares about reductions and along-a-dim ops: decoding an
 * overload's arguments into one description (which dims, result dtypes, PyTorch's checks)
 * and their meta functions. */
#ifndef MT_REDUCE_H
#define MT_REDUCE_H

#include "mt_dispatch.h"
#include "mt_red_gen.h"

/* the reduction kinds the declarations name (src/ops/reductions.lua: reduce = {kind = ...}) */
enum {
#define MT_R_ENUM(K) MT_R_##K,
    MT_RED_KINDS(MT_R_ENUM)
#undef MT_R_ENUM
};

/* a reduction's result dtype rule and checks (gen_reductions.lua documents each) */
enum { MT_RR_SUM, MT_RR_MEAN, MT_RR_SAME, MT_RR_INDEX, MT_RR_BOOL, MT_RR_MOMENT, MT_RR_NORM };

/* the arguments a reduction overload may have, found by name in its schema */
enum {
    MT_RA_DIM,
    MT_RA_KEEPDIM,
    MT_RA_DTYPE,
    MT_RA_UNBIASED,
    MT_RA_CORRECTION,
    MT_RA_P,
    MT_RA_COUNT
};

/* One reduction overload as its declaration describes it (generated: build/gen/mt_red_gen.c). */
typedef struct mt_red_desc {
    uint8_t kind, rule;
    const char *name;  /* the op's name in messages */
    const char *kname; /* PyTorch's kernel name when some dtypes are refused */
    uint16_t refused;  /* dtypes (bit per mt_dtype) the kernel lacks */
    uint8_t nres;
    int8_t arg[MT_RA_COUNT]; /* argument positions, -1 when the overload has none */
    double identity;         /* an empty reduction's value */
} mt_red_desc;
typedef struct mt_red_decl {
    int op;
    mt_red_desc d;
} mt_red_decl;
extern const mt_red_decl mt_red_decls[];
extern const int mt_red_ndecls;

typedef struct mt_red {
    int kind;
    const char *name; /* "max": for messages */
    bool reduce[MT_MAX_DIM];
    bool keepdim;
    bool with_indices;     /* max.dim/min.dim: a second result */
    bool with_mean;        /* var_mean/std_mean: a second result */
    mt_dtype out, compute; /* result and accumulation dtypes */
    double p;              /* norm */
    int64_t correction;    /* var/std */
    double identity;       /* the value of an empty reduction */
    int nres;
} mt_red;

/* Decode a reduction call (any overload) with PyTorch's checks and dtype rules. */
int mt_red_decode(const mt_call *c, mt_value *args, mt_red *r);
/* The result shape of a reduction (keepdim keeps size-1 dims). */
int mt_red_out_shape(const mt_tensor *self, const mt_red *r, int64_t *shape);
int mt_meta_reduce(mt_call *c, mt_value *args, mt_outspec *outs);

/* Ops along one dim (cumsum, cumprod, softmax, log_softmax): declared with dimop = "KIND". */
enum {
#define MT_D_ENUM(K) MT_D_##K,
    MT_DIMOP_KINDS(MT_D_ENUM)
#undef MT_D_ENUM
};
typedef struct mt_dimop_decl {
    int op;
    int kind;
} mt_dimop_decl;
extern const mt_dimop_decl mt_dimop_decls[];
extern const int mt_dimop_ndecls;
typedef struct mt_dimop {
    int kind;
    int dim;
    mt_dtype out, compute;
} mt_dimop;
int mt_dimop_decode(const mt_call *c, mt_value *args, mt_dimop *d);
int mt_meta_dimop(mt_call *c, mt_value *args, mt_outspec *outs);

void mt_reduce_register(void);

#endif
