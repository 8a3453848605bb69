/* cpu_adv_index.c: CPU kernels of advanced indexing (_index_int, _index_put_int_).
 *
 * Both work on views with the indexed dims first (mt_index_plan's perm): for each position of
 * the indices' broadcast shape, the indices give one offset into self, and a block of self's
 * other dims is copied (or written, or added). Every index is checked before anything is
 * written, so a bad index leaves self as it was. */
#include "adv_index.h"
#include "cpu_index_util.h"
#include "cpu_kernels.h"
#include "mt_ops_gen.h"

#include <stdlib.h>
#include <string.h>

/* For each position of the broadcast shape: the element offset into `front` (self with the
 * indexed dims first) that the index tensors pick, wrapped and bounds-checked. */
static int64_t *index_offsets(const mt_tensor *front, const mt_index_plan *p, int64_t count) {
    int64_t *offs = malloc(sizeof(int64_t) * (size_t)(count ? count : 1));
    if (!offs) {
        mt_error(MT_ERR_MEMORY, "out of memory in indexing");
        return NULL;
    }
    int64_t pos[MT_MAX_DIM], ipos[MT_MAX_DIM];
    for (int64_t b = 0; b < count; b++) {
        unravel(b, p->bshape, p->nb, pos);
        int64_t off = 0;
        for (int j = 0; j < p->nidx; j++) {
            const mt_tensor *t = p->idx[j];
            for (int d = 0; d < t->ndim; d++) /* broadcast: size-1 dims read position 0 */
                ipos[d] = t->sizes[d] == 1 ? 0 : pos[d + p->nb - t->ndim];
            int64_t v = index_at(t, ipos), size = front->sizes[j];
            int64_t w = v < 0 && v != MT_ZERO_SENTINEL ? v + size : v;
            if (w < 0 || w >= size) {
                free(offs);
                mt_error(MT_ERR_INDEX,
                         "index %lld is out of bounds for dimension %d with size %lld",
                         mt_user_dim(v), j + 1, (long long)size);
                return NULL;
            }
            off += w * front->strides[j];
        }
        offs[b] = off;
    }
    return offs;
}

/* dst = src (or dst += src) over a block of nd dims; strides in elements */
static void block_apply(char *dst, const int64_t *dst_st, const char *src, const int64_t *src_st,
                        const int64_t *sizes, int nd, mt_dtype dt, bool add) {
    size_t isz = mt_dtype_size(dt);
    if (nd == 0) {
        if (add)
            add_elem(dst, src, dt, mt_vint(1));
        else
            memcpy(dst, src, isz);
        return;
    }
    if (nd == 1 && !add && dst_st[0] == 1 && src_st[0] == 1) {
        memcpy(dst, src, isz * (size_t)sizes[0]);
        return;
    }
    for (int64_t i = 0; i < sizes[0]; i++)
        block_apply(dst + i * dst_st[0] * (int64_t)isz, dst_st + 1,
                    src + i * src_st[0] * (int64_t)isz, src_st + 1, sizes + 1, nd - 1, dt, add);
}

static int64_t shape_numel(const int64_t *sizes, int n) {
    int64_t k = 1;
    for (int i = 0; i < n; i++) k *= sizes[i];
    return k;
}

/* Run dst[b, rest] = src[b, rest] (+= with add) for every b: dst and src are seen with the
 * broadcast dims first (nb of them; src may be self at the picked offsets, see `gather`). */
static int run_blocks(const mt_tensor *self, const mt_index_plan *p, const mt_tensor *other,
                      bool gather, bool add) {
    mt_tensor front, oview;
    int operm[MT_MAX_DIM];
    mt_permuted_view(self, p->perm, &front);
    mt_index_result_perm(p, operm);
    mt_permuted_view(other, operm, &oview);
    int64_t count = shape_numel(p->bshape, p->nb);
    int rest = front.ndim - p->nidx;
    if (count == 0 || shape_numel(front.sizes + p->nidx, rest) == 0) return 0;
    int64_t *offs = index_offsets(&front, p, count);
    if (!offs) return -1;
    mt_dtype dt = (mt_dtype)self->dtype;
    size_t isz = mt_dtype_size(dt);
    char *sbase = (char *)self->storage->data + self->offset * (int64_t)isz;
    char *obase = (char *)other->storage->data + other->offset * (int64_t)isz;
    int64_t pos[MT_MAX_DIM];
    for (int64_t b = 0; b < count; b++) {
        unravel(b, p->bshape, p->nb, pos);
        int64_t o = 0;
        for (int d = 0; d < p->nb; d++) o += pos[d] * oview.strides[d];
        char *s = sbase + offs[b] * (int64_t)isz, *x = obase + o * (int64_t)isz;
        if (gather)
            block_apply(x, oview.strides + p->nb, s, front.strides + p->nidx, front.sizes + p->nidx,
                        rest, dt, false);
        else
            block_apply(s, front.strides + p->nidx, x, oview.strides + p->nb, front.sizes + p->nidx,
                        rest, dt, add);
    }
    free(offs);
    return 0;
}

static int k_index_int(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_index_plan p;
    if (mt_index_plan_make(a[0].t, a[1].tl, a[1].n, &p)) return -1;
    return run_blocks(a[0].t, &p, r[0].t, true, false);
}

static int k_index_put_int_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    MT_UNUSED(r);
    mt_tensor *self = a[0].t, *values = a[2].t;
    mt_index_plan p;
    if (mt_index_plan_make(self, a[1].tl, a[1].n, &p)) return -1;
    /* values seen broadcast to the result shape (the meta function checked they fit) */
    mt_tensor v = *values;
    v.ndim = (int8_t)p.ndim;
    for (int d = 0; d < p.ndim; d++) {
        int vd = d - (p.ndim - values->ndim);
        v.sizes[d] = p.sizes[d];
        v.strides[d] = vd >= 0 && values->sizes[vd] == p.sizes[d] ? values->strides[vd] : 0;
    }
    return run_blocks(self, &p, &v, false, a[3].b);
}

void mt_cpu_adv_index_register(void) {
    mt_disp_impl(MT_OP__index_int, MT_KEY_CPU, k_index_int);
    mt_disp_impl(MT_OP__index_put_int_, MT_KEY_CPU, k_index_put_int_);
}
