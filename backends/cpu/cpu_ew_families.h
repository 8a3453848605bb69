/* cpu_ew_families.h: the element-wise loop tables, in two builds (cpu_ew_families.c). */
#ifndef MT_CPU_EW_FAMILIES_H
#define MT_CPU_EW_FAMILIES_H

#include "cpu_iter.h"
#include "mt_dtype.h"

/* The loops of a family (an MT_F_* value, negated for its variants), indexed by compute
 * dtype; NULL when the family has none. */
const mt_loop_fn *mt_cpu_ew_loops_base(int fam);
const mt_loop_fn *mt_cpu_ew_loops_avx2(int fam);

#endif
