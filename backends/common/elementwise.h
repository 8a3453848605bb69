/* elementwise.h: what every device shares about element-wise ops: type promotion
 * (torch.result_type), the layout of results (TensorIterator's rules), and the description of
 * each element-wise op that drives one generic meta function and one generic CPU kernel. */
#ifndef MT_ELEMENTWISE_H
#define MT_ELEMENTWISE_H

#include "mt_dispatch.h"

/* ---- type promotion ------------------------------------------------------------------------ */

/* PyTorch's ResultTypeState: dimensioned tensors, 0-d tensors and wrapped numbers (Lua
 * numbers) promote separately, and a lower class only matters when it is of a higher
 * category (bool < integer < floating). */
typedef struct mt_result_type {
    int dim, zero, wrapped; /* mt_dtype or -1 */
} mt_result_type;

void mt_rt_init(mt_result_type *r);
void mt_rt_tensor(mt_result_type *r, const mt_tensor *t);
void mt_rt_scalar(mt_result_type *r, mt_value v);
mt_dtype mt_rt_result(const mt_result_type *r);

/* ---- layout of results --------------------------------------------------------------------- */

/* Strides of a new result of `shape` computed from `inputs` (NULL entries are scalars):
 * PyTorch's TensorIterator allocation rule, so results are laid out like their inputs. */
void mt_ew_out_strides(int nin, mt_tensor *const *inputs, int ndim, const int64_t *shape,
                       int64_t *strides);

/* ---- element-wise op descriptions ----------------------------------------------------------- */

enum {
    MT_EW_SAME,  /* the promoted dtype */
    MT_EW_FLOAT, /* the promoted dtype, integers and bool becoming the default float */
    MT_EW_BOOL,  /* computed in the promoted dtype, result bool */
};

/* What an element-wise op computes: every backend implements these families by name. The list
 * is generated from the declarations' `ew` fields (build/gen/mt_ew_gen.h). */
#include "mt_ew_gen.h"

#define MT_EW_ENUM(name, shape, set) MT_F_##name,
enum { MT_EW_FAMILIES(MT_EW_ENUM) MT_EW_NFAMILIES };
#undef MT_EW_ENUM

/* how the ops' special argument rules are checked (see elementwise.c) */
enum {
    MT_EWC_NONE,
    MT_EWC_SUB,       /* bool operands refused */
    MT_EWC_NEG,       /* bool refused */
    MT_EWC_ALPHA,     /* a float alpha with integral operands refused */
    MT_EWC_DIVMODE,   /* rounding_mode: None -> true division, 'trunc'/'floor' keep integers */
    MT_EWC_POW,       /* integers to negative integer powers refused */
    MT_EWC_WHERE,     /* the condition must be bool; it does not take part in promotion */
    MT_EWC_CLAMP,     /* at least one bound */
    MT_EWC_RELU,      /* bool refused */
    MT_EWC_LERP,      /* end and weight must match self's dtype */
    MT_EWC_ADDCDIV,   /* integer division refused */
    MT_EWC_SAMEDTYPE, /* tensor operands of different dtypes refused (heaviside) */
};

#define MT_EW_MAX_IN 3
#define MT_EW_MAX_PARAMS 4

typedef struct mt_ew_desc {
    const char *kname; /* PyTorch's kernel name, for "... not implemented for 'Float'" */
    uint8_t family;    /* which CPU loop family computes it */
    uint8_t nin;       /* inputs: args[0..nin) are tensors or scalars (or None) */
    uint8_t rule;      /* MT_EW_SAME / FLOAT / BOOL */
    uint8_t check;     /* MT_EWC_* */
    uint16_t dtypes;   /* compute dtypes the kernel supports (bit per mt_dtype) */
    int8_t params[MT_EW_MAX_PARAMS]; /* args holding scalar parameters (alpha, slope...) or -1 */
} mt_ew_desc;

#define MT_DT_BIT(d) (1u << (d))
#define MT_DT_FLOATS                                                                               \
    (MT_DT_BIT(MT_FLOAT16) | MT_DT_BIT(MT_BFLOAT16) | MT_DT_BIT(MT_FLOAT32) | MT_DT_BIT(MT_FLOAT64))
#define MT_DT_INTS                                                                                 \
    (MT_DT_BIT(MT_UINT8) | MT_DT_BIT(MT_INT8) | MT_DT_BIT(MT_INT16) | MT_DT_BIT(MT_INT32) |        \
     MT_DT_BIT(MT_INT64))
#define MT_DT_NUMS (MT_DT_FLOATS | MT_DT_INTS)
#define MT_DT_ALL (MT_DT_NUMS | MT_DT_BIT(MT_BOOL))
#define MT_DT_INTB (MT_DT_INTS | MT_DT_BIT(MT_BOOL))
/* PyTorch 1.13's CPU kernels of math functions have no float16 version (bfloat16 they have) */
#define MT_DT_FLOATS_NOHALF (MT_DT_FLOATS & ~MT_DT_BIT(MT_FLOAT16))
#define MT_DT_FLOATS_NOHALF_NOBF16 (MT_DT_FLOATS_NOHALF & ~MT_DT_BIT(MT_BFLOAT16))
#define MT_DT_NUMS_NOHALF (MT_DT_NUMS & ~MT_DT_BIT(MT_FLOAT16))

/* The description of every declared element-wise op (build/gen/mt_ew_gen.c). */
typedef struct mt_ew_decl {
    int op;
    mt_ew_desc d;
} mt_ew_decl;
extern const mt_ew_decl mt_ew_decls[];
extern const int mt_ew_ndecls;

/* The description of an op (NULL if it is not element-wise). */
const mt_ew_desc *mt_ew_desc_of(int opid);
/* Attaches every description and the generic meta function to its op (at start-up). */
void mt_ew_register(void);

/* The dtypes of one call: what the kernel computes in and what the result holds. */
typedef struct mt_ew_types {
    mt_dtype compute, out;
    bool div_true; /* div with no rounding mode: true division */
} mt_ew_types;
int mt_ew_types_of(const mt_call *c, const mt_ew_desc *d, mt_value *args, mt_ew_types *t);

/* The generic meta function of every element-wise op. */
int mt_meta_elementwise(mt_call *c, mt_value *args, mt_outspec *outs);

#endif
