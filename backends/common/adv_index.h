/* adv_index.h: advanced indexing (x[{...}] with index tensors, _index, index_put_), the rules
 * every device shares: which dims the index tensors pick, the result's shape and layout. */
#ifndef MT_ADV_INDEX_H
#define MT_ADV_INDEX_H

#include "mt_dispatch.h"

/* How a list of int64 index tensors (NULL entries: whole dims) applies to self, PyTorch's way:
 * the index tensors broadcast to bshape; the result holds self's other dims in order with
 * bshape inserted at `at` (the first indexed dim when the indexed dims are adjacent, else 0). */
typedef struct mt_index_plan {
    int nidx;                   /* index tensors (the non-NULL entries) */
    mt_tensor *idx[MT_MAX_DIM]; /* them, in order (borrowed) */
    int perm[MT_MAX_DIM];       /* self's dims: the indexed ones first, then the others in order */
    int at;                     /* where bshape goes in the result */
    int nb;
    int64_t bshape[MT_MAX_DIM];
    int ndim; /* of the result */
    int64_t sizes[MT_MAX_DIM];
} mt_index_plan;

/* Check a list of index entries against self (count, dtypes, broadcasting) and plan it. */
MT_API int mt_index_plan_make(const mt_tensor *self, mt_tensor *const *list, int n,
                              mt_index_plan *p);

/* `t` seen with its dims reordered: view->dims[i] = t->dims[perm[i]] (struct copy, no ref). */
MT_API void mt_permuted_view(const mt_tensor *t, const int *perm, mt_tensor *view);

/* The result dims with bshape first: perm such that dims[i] of the reordered view is
 * result dim perm[i] (bshape's dims, then the rest in order). */
MT_API void mt_index_result_perm(const mt_index_plan *p, int *perm);

void mt_adv_index_register(void);

#endif
