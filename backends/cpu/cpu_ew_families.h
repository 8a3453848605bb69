/* cpu_ew_families.h: the element-wise loop tables, in two builds (cpu_ew_families.c). */
#ifndef MT_CPU_EW_FAMILIES_H
#define MT_CPU_EW_FAMILIES_H

#include "cpu_iter.h"
#include "mt_dtype.h"

/* The CPU's own variants of declared families (negative, apart from the MT_F_* values). */
enum {
    MT_CPU_EW_DIV_TRUNC = -1, /* div(rounding_mode='trunc') */
    MT_CPU_EW_ADD_ALPHA = -2, /* add, sub, rsub with an alpha other than 1 */
    MT_CPU_EW_SUB_ALPHA = -3,
    MT_CPU_EW_RSUB_ALPHA = -4,
    MT_CPU_EW_LERP_SCALAR = -5, /* lerp with a Scalar weight */
    MT_CPU_EW_POW_SQUARE = -6,  /* pow with the exponents PyTorch computes specially */
    MT_CPU_EW_POW_CUBE = -7,
    MT_CPU_EW_POW_INV_SQUARE = -8,
};

/* The loops of a family (an MT_F_* value or a variant above), indexed by compute dtype; NULL
 * when the family has none. */
const mt_loop_fn *mt_cpu_ew_loops_base(int fam);
const mt_loop_fn *mt_cpu_ew_loops_avx2(int fam);

#endif
