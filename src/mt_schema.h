/* mt_schema.h: an operator's declared signature, from which everything about calling it
 * (the Lua binding, argument checks, error texts, typed C wrappers, docs) is derived.
 * Schemas are written once, in PyTorch's schema language, under src/ops/; the build turns
 * them into the tables below (build/gen/mt_ops_gen.c) with src/ops/opgen.lua. */
#ifndef MT_SCHEMA_H
#define MT_SCHEMA_H

#include "mt_value.h"

typedef enum mt_argtype {
    MT_A_TENSOR,
    MT_A_TENSORLIST,
    MT_A_INT,
    MT_A_INTLIST, /* int[] / SymInt[]: sizes and other integer lists */
    MT_A_DIM,     /* int dim: 1-based at the Lua boundary */
    MT_A_DIMLIST,
    MT_A_INDEX, /* an index value into a dim: 1-based at the Lua boundary */
    MT_A_FLOAT,
    MT_A_FLOATLIST,
    MT_A_BOOL,
    MT_A_SCALAR,
    MT_A_DTYPE,
    MT_A_DEVICE,
    MT_A_STR,
    MT_A_GENERATOR,
    MT_A_INDEXTENSOR,     /* a tensor of index values: 1-based at the Lua boundary */
    MT_A_INDEXTENSORLIST, /* index tensors (1-based) or bool masks, one per leading dim */
} mt_argtype;

enum { MT_ALIAS_NONE, MT_ALIAS_VIEW, MT_ALIAS_WRITE };

typedef struct mt_arg {
    const char *name;
    uint8_t type;     /* mt_argtype */
    uint8_t optional; /* accepts None */
    uint8_t kwonly;   /* after '*' */
    uint8_t alias;    /* (a) view or (a!) written */
    int8_t fixed_len; /* int[2]: one int is broadcast to this length; 0 if not fixed */
    uint8_t has_default;
    mt_value def;
} mt_arg;

typedef struct mt_ret {
    const char *name;
    uint8_t type; /* MT_A_TENSOR, MT_A_TENSORLIST, MT_A_INDEXTENSOR, MT_A_INT, MT_A_FLOAT, ... */
    uint8_t alias;
} mt_ret;

enum {
    MT_S_FUNCTION = 1 << 0,     /* torch.name(...) */
    MT_S_METHOD = 1 << 1,       /* x:name(...) */
    MT_S_INPLACE = 1 << 2,      /* writes its first argument and returns it */
    MT_S_VIEW = 1 << 3,         /* returns a view of an argument */
    MT_S_MIXED_DEVICE = 1 << 4, /* takes tensors on several devices (copy_, to) */
    MT_S_FACTORY = 1 << 5,      /* creates tensors from nothing: device comes from `device=` */
    MT_S_HIDDEN = 1 << 6,       /* internal: no Lua binding */
    MT_S_NONDIFF = 1 << 7,      /* outputs never require grad (comparisons, argmax, ...) */
};

/* The generic kernel family an op belongs to, from its declaration: a backend registers one
 * kernel for a whole group (mt_disp_impl_group) instead of listing the ops. */
typedef enum mt_op_group {
    MT_GROUP_NONE,
    MT_GROUP_ELEMENTWISE, /* described by an `ew` field (backends/common/elementwise.h) */
    MT_GROUP_REDUCTION,   /* sum, max.dim, var, norm, all, ... (backends/common/reduce.h) */
    MT_GROUP_DIMOP,       /* along one dim: cumsum, cumprod, softmax, log_softmax */
    MT_GROUP_PRODUCT,     /* matrix products: mm, bmm, mv, dot, addmm, addmv, baddbmm */
    MT_NUM_GROUPS
} mt_op_group;

typedef struct mt_schema {
    const char *name;     /* "add" */
    const char *overload; /* "Tensor", or "" */
    const char *text;     /* the declaration as written */
    const char *doc;      /* one line for the reference */
    uint16_t flags;
    uint8_t group; /* mt_op_group */
    uint8_t nargs, nrets;
    const mt_arg *args;
    const mt_ret *rets;
} mt_schema;

#endif
