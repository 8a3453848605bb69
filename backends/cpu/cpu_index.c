/* cpu_index.c: CPU kernels of joining, reordering and indexing: cat, flip, repeat, gather,
 * scatter, index_select/add/copy, masked_fill/select/scatter, nonzero, take, sort/topk/
 * kthvalue, unique, tril/triu.
 *
 * Index values arrive 0-based (the binding shifts the user's 1-based ones; a user's 0 comes
 * as MT_ZERO_SENTINEL), and errors quote them as the user wrote them (mt_user_dim). */
#include "cpu_index_util.h"
#include "common_ops.h"
#include "cpu_kernels.h"
#include "index_ops.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int out_of_bounds(int64_t v, int d, int64_t size) {
    return mt_error(MT_ERR_RUNTIME, "index %lld is out of bounds for dimension %d with size %lld",
                    mt_user_dim(v), d + 1, (long long)size);
}

/* ---- cat, flip, repeat ----------------------------------------------------------------------- */

static int k_cat(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_outspec o;
    int d;
    if (mt_cat_shape(a, &d, &o)) return -1;
    mt_tensor *out = r[0].t;
    int64_t at_ = 0;
    for (int i = 0; i < a[0].n; i++) {
        mt_tensor *t = a[0].tl[i];
        if (t->ndim == 1 && t->sizes[0] == 0 && out->ndim != 1) continue;
        mt_tensor v = *out;
        v.sizes[d] = t->sizes[d];
        v.offset = out->offset + at_ * out->strides[d];
        v.numel = 1;
        for (int k = 0; k < v.ndim; k++) v.numel *= v.sizes[k];
        if (v.numel) mt_cpu_copy(&v, t);
        at_ += t->sizes[d];
    }
    return 0;
}

static int k_flip(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor v = *a[0].t; /* self seen backwards along the flipped dims */
    for (int i = 0; i < a[1].n; i++) {
        int d;
        mt_wrap_dim(a[1].il[i], v.ndim, &d);
        if (v.ndim == 0 || v.sizes[d] == 0) continue;
        v.offset += (v.sizes[d] - 1) * v.strides[d];
        v.strides[d] = -v.strides[d];
    }
    return mt_cpu_copy(r[0].t, &v);
}

static int k_repeat(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *out = r[0].t;
    int n = a[1].n;
    if (out->numel == 0) return 0;
    if (2 * n > MT_MAX_DIM) { /* too many dims to interleave: one copy per tile */
        int64_t tiles = 1, idx[MT_MAX_DIM];
        for (int i = 0; i < n; i++) tiles *= a[1].il[i];
        for (int64_t t = 0; t < tiles; t++) {
            unravel(t, a[1].il, n, idx);
            mt_tensor v = *out;
            v.offset = out->offset;
            for (int i = 0; i < n; i++) {
                int sd = i - (n - self->ndim);
                int64_t s = sd >= 0 ? self->sizes[sd] : 1;
                v.sizes[i] = s;
                v.offset += idx[i] * s * out->strides[i];
            }
            mt_tensor src = *self;
            src.ndim = (int8_t)n;
            for (int i = 0; i < n; i++) {
                int sd = i - (n - self->ndim);
                src.sizes[i] = sd >= 0 ? self->sizes[sd] : 1;
                src.strides[i] = sd >= 0 ? self->strides[sd] : 0;
            }
            mt_cpu_copy(&v, &src);
        }
        return 0;
    }
    /* out seen as [r0, s0, r1, s1, ...]; self broadcast along the r dims: one copy */
    mt_tensor dst = *out, src = *self;
    dst.ndim = src.ndim = (int8_t)(2 * n);
    for (int i = 0; i < n; i++) {
        int sd = i - (n - self->ndim);
        int64_t s = sd >= 0 ? self->sizes[sd] : 1;
        dst.sizes[2 * i] = a[1].il[i];
        dst.sizes[2 * i + 1] = s;
        dst.strides[2 * i] = s * out->strides[i];
        dst.strides[2 * i + 1] = out->strides[i];
        src.sizes[2 * i] = a[1].il[i];
        src.sizes[2 * i + 1] = s;
        src.strides[2 * i] = 0;
        src.strides[2 * i + 1] = sd >= 0 ? self->strides[sd] : 0;
    }
    return mt_cpu_copy(&dst, &src);
}

/* ---- gather and scatter ---------------------------------------------------------------------- */

static int k_gather(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *index = a[2].t, *out = r[0].t;
    int d;
    mt_wrap_dim(a[1].i, self->ndim, &d);
    int64_t n = index->numel, idx[MT_MAX_DIM], size = self->ndim ? self->sizes[d] : 1;
    size_t isz = mt_dtype_size((mt_dtype)self->dtype);
    for (int64_t k = 0; k < n; k++) {
        unravel(k, index->sizes, index->ndim, idx);
        int64_t v = index_at(index, idx);
        if (v < 0 || v >= size) return out_of_bounds(v, d, size);
        int64_t src[MT_MAX_DIM];
        memcpy(src, idx, sizeof src);
        if (self->ndim) src[d] = v;
        memcpy(at(out, idx), at(self, src), isz);
    }
    return 0;
}

static int k_scatter_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(r);
    int id = c->op->id;
    mt_tensor *self = a[0].t, *index = a[2].t, *src = id == MT_OP_scatter__value ? NULL : a[3].t;
    int d;
    mt_wrap_dim(a[1].i, self->ndim, &d);
    mt_dtype dt = (mt_dtype)self->dtype;
    size_t isz = mt_dtype_size(dt);
    char value[8];
    if (!src && mt_scalar_store_checked(a[3], dt, value, false)) return -1;
    int64_t n = index->numel, idx[MT_MAX_DIM], size = self->ndim ? self->sizes[d] : 1;
    for (int64_t k = 0; k < n; k++) {
        unravel(k, index->sizes, index->ndim, idx);
        int64_t v = index_at(index, idx);
        if (v < 0 || v >= size) return out_of_bounds(v, d, size);
        int64_t dst[MT_MAX_DIM];
        memcpy(dst, idx, sizeof dst);
        if (self->ndim) dst[d] = v;
        const char *from = src ? at(src, idx) : value;
        if (id == MT_OP_scatter_add_)
            add_elem(at(self, dst), from, dt, mt_vint(1));
        else
            memcpy(at(self, dst), from, isz);
    }
    return 0;
}

/* ---- index_select / index_add_ / index_copy_ ------------------------------------------------- */

static int k_index_select(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *index = a[2].t, *out = r[0].t;
    int d;
    mt_wrap_dim(a[1].i, self->ndim, &d);
    int64_t size = self->ndim ? self->sizes[d] : 1, ni = index->numel;
    int64_t *pos = malloc(sizeof(int64_t) * (size_t)(ni ? ni : 1));
    if (!pos) return mt_error(MT_ERR_MEMORY, "out of memory");
    for (int64_t j = 0; j < ni; j++) {
        int64_t z = 0, v = mt_load_int64(mt_tensor_raw(index) +
                                             j * (index->ndim ? index->strides[0] : 0) *
                                                 (int64_t)mt_dtype_size((mt_dtype)index->dtype),
                                         (mt_dtype)index->dtype);
        MT_UNUSED(z);
        if (index->dtype == MT_INT32 && v == INT32_MIN) v = MT_ZERO_SENTINEL; /* the user's 0 */
        if (v < 0 || v >= size) {
            free(pos);
            return mt_error(MT_ERR_RUNTIME,
                            "INDICES element is out of DATA bounds, id=%lld axis_dim=%lld",
                            mt_user_dim(v), (long long)size);
        }
        pos[j] = v;
    }
    if (self->ndim == 0) {
        for (int64_t j = 0; j < ni; j++)
            memcpy(mt_tensor_raw(out) +
                       j * out->strides[0] * (int64_t)mt_dtype_size((mt_dtype)out->dtype),
                   mt_tensor_raw(self), mt_dtype_size((mt_dtype)self->dtype));
        free(pos);
        return 0;
    }
    /* one slice copy per index: out's slice j <- self's slice pos[j] */
    for (int64_t j = 0; j < ni; j++) {
        mt_tensor dst = *out, src = *self;
        dst.sizes[d] = src.sizes[d] = 1;
        dst.offset = out->offset + j * out->strides[d];
        src.offset = self->offset + pos[j] * self->strides[d];
        dst.numel = src.numel = out->numel / (ni ? ni : 1);
        if (dst.numel) mt_cpu_copy(&dst, &src);
    }
    free(pos);
    return 0;
}

/* The source of index_add_/index_copy_ at self's rank: dim d walks the source's slices, the
 * other dims are its slice broadcast to self's slice (the meta checks allowed exactly that). */
static mt_tensor source_at_self_rank(const mt_tensor *self, const mt_tensor *src, int d) {
    mt_tensor v = *src;
    if (self->ndim == 0) return v;
    int64_t ss[MT_MAX_DIM], st[MT_MAX_DIM];
    int ms = 0;
    for (int k = 0; k < src->ndim; k++)
        if (k != d) {
            ss[ms] = src->sizes[k];
            st[ms++] = src->strides[k];
        }
    int lead = (self->ndim - 1) - ms, j = 0;
    v.ndim = self->ndim;
    v.numel = 1;
    for (int i = 0; i < self->ndim; i++) {
        if (i == d) {
            v.sizes[i] = src->ndim ? src->sizes[d] : 1;
            v.strides[i] = src->ndim ? src->strides[d] : 0;
        } else {
            int k = j++ - lead;
            bool own = k >= 0 && ss[k] != 1;
            v.sizes[i] = own ? ss[k] : self->sizes[i];
            v.strides[i] = own ? st[k] : 0;
        }
        v.numel *= v.sizes[i];
    }
    return v;
}

static int k_index_put_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(r);
    bool add = c->op->id == MT_OP_index_add_;
    mt_tensor *self = a[0].t, *index = a[2].t;
    int d;
    mt_wrap_dim(a[1].i, self->ndim, &d);
    mt_tensor src = source_at_self_rank(self, a[3].t, d);
    mt_dtype dt = (mt_dtype)self->dtype;
    size_t isz = mt_dtype_size(dt);
    int64_t size = self->ndim ? self->sizes[d] : 1, idx[MT_MAX_DIM], dst[MT_MAX_DIM];
    for (int64_t k = 0; k < src.numel; k++) {
        unravel(k, src.sizes, src.ndim, idx);
        int64_t p = src.ndim ? idx[d] : 0;
        int64_t v =
            mt_load_int64(mt_tensor_raw(index) + p * (index->ndim ? index->strides[0] : 0) *
                                                     (int64_t)mt_dtype_size((mt_dtype)index->dtype),
                          (mt_dtype)index->dtype);
        if (v < 0 || v >= size) {
            if (add) return mt_error(MT_ERR_INDEX, "index out of range in self");
            return mt_error(
                MT_ERR_INDEX,
                "index_copy_(): index %lld is out of bounds for dimension %d with size %lld",
                mt_user_dim(v), d + 1, (long long)size);
        }
        memcpy(dst, idx, sizeof dst);
        if (self->ndim) dst[d] = v;
        if (add)
            add_elem(at(self, dst), at(&src, idx), dt, a[4]);
        else
            memcpy(at(self, dst), at(&src, idx), isz);
    }
    return 0;
}

/* ---- masks ----------------------------------------------------------------------------------- */

typedef struct {
    char value[8];
    size_t isz;
} fill_ctx;

/* branch-free per element size (random masks would mispredict a branch half the time) */
#define MASKED_FILL_TYPED(T)                                                                       \
    do {                                                                                           \
        T v;                                                                                       \
        memcpy(&v, f->value, sizeof v);                                                            \
        if (st[0] == sizeof(T) && st[1] == 1) {                                                    \
            T *d = (T *)dp[0];                                                                     \
            const uint8_t *m = (const uint8_t *)dp[1];                                             \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T keep = (T)((T)(m[i] != 0) - 1); /* all ones where the mask is false */           \
                d[i] = (T)((d[i] & keep) | (v & (T)~keep));                                        \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T *d = (T *)(dp[0] + i * st[0]);                                                   \
                *d = *(const uint8_t *)(dp[1] + i * st[1]) ? v : *d;                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static void masked_fill_loop(char **dp, const int64_t *st, int64_t n, void *vctx) {
    fill_ctx *f = vctx;
    switch (f->isz) {
    case 1:
        MASKED_FILL_TYPED(uint8_t);
        break;
    case 2:
        MASKED_FILL_TYPED(uint16_t);
        break;
    case 4:
        MASKED_FILL_TYPED(uint32_t);
        break;
    default:
        MASKED_FILL_TYPED(uint64_t);
        break;
    }
}

static int k_masked_fill_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(r);
    mt_tensor *self = a[0].t, *mask = a[1].t;
    mt_dtype dt = (mt_dtype)self->dtype;
    fill_ctx f = {.isz = mt_dtype_size(dt)};
    mt_value v = a[2];
    if (c->op->id == MT_OP_masked_fill__Tensor) {
        mt_tensor *vt = a[2].t;
        const void *p = mt_tensor_raw(vt);
        v = mt_dtype_is_floating((mt_dtype)vt->dtype)
                ? mt_vdouble(mt_load_double(p, (mt_dtype)vt->dtype))
                : mt_vint(mt_load_int64(p, (mt_dtype)vt->dtype));
    }
    if (mt_scalar_store_checked(v, dt, f.value, false)) return -1;
    if (self->numel == 0) return 0;
    mt_tensor *ops[2] = {self, mask};
    mt_iter it;
    mt_iter_init(&it, 2, ops, self->ndim, self->sizes);
    mt_iter_run(&it, masked_fill_loop, &f);
    return 0;
}

/* a contiguous copy of t broadcast to shape (a new reference) */
static mt_tensor *dense(mt_tensor *t, int n, const int64_t *shape) {
    mt_tensor *e = mto_expand(t, (mt_ilist){shape, n}, false);
    mt_tensor *c = e ? mto_clone(e, "contiguous_format") : NULL;
    mt_tensor_decref(e);
    return c;
}

static int k_masked_select(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *mask = a[1].t;
    if (mask->dtype != MT_BOOL && mask->dtype != MT_UINT8)
        return mt_error(MT_ERR_RUNTIME, "masked_select: expected BoolTensor for mask");
    int64_t shape[MT_MAX_DIM];
    int n;
    if (mt_broadcast_shapes(self->ndim, self->sizes, mask->ndim, mask->sizes, &n, shape)) return -1;
    mt_tensor *s = dense(self, n, shape), *m = s ? dense(mask, n, shape) : NULL;
    int status = -1;
    if (!m) goto done;
    int64_t total = 0, numel = s->numel;
    const uint8_t *mp = (const uint8_t *)mt_tensor_raw(m);
    for (int64_t i = 0; i < numel; i++) total += mp[i] != 0;
    mt_tensor *out = mt_tensor_empty(1, &total, (mt_dtype)self->dtype, MT_CPU);
    if (!out) goto done;
    size_t isz = mt_dtype_size((mt_dtype)self->dtype);
    char *o = mt_tensor_raw(out);
    const char *sp = mt_tensor_raw(s);
    for (int64_t i = 0, j = 0; i < numel; i++)
        if (mp[i]) memcpy(o + j++ * (int64_t)isz, sp + i * (int64_t)isz, isz);
    r[0] = mt_vtensor(out);
    status = 0;
done:
    mt_tensor_decref(s);
    mt_tensor_decref(m);
    return status;
}

static int k_masked_scatter_(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    MT_UNUSED(r);
    mt_tensor *self = a[0].t, *mask = a[1].t;
    mt_tensor *m = dense(mask, self->ndim, self->sizes);
    mt_tensor *src = m ? mto_contiguous(a[2].t, NULL) : NULL;
    int status = -1;
    if (!src) goto done;
    const uint8_t *mp = (const uint8_t *)mt_tensor_raw(m);
    int64_t ones = 0, idx[MT_MAX_DIM];
    for (int64_t i = 0; i < self->numel; i++) ones += mp[i] != 0;
    if (src->numel < ones) {
        mt_error(MT_ERR_RUNTIME, "Number of elements of source < number of ones in mask");
        goto done;
    }
    size_t isz = mt_dtype_size((mt_dtype)self->dtype);
    const char *sp = mt_tensor_raw(src);
    for (int64_t i = 0, j = 0; i < self->numel; i++) {
        if (!mp[i]) continue;
        unravel(i, self->sizes, self->ndim, idx);
        memcpy(at(self, idx), sp + j++ * (int64_t)isz, isz);
    }
    status = 0;
done:
    mt_tensor_decref(m);
    mt_tensor_decref(src);
    return status;
}

/* nonzero: coordinates of the nonzero elements in C order, laid out column-major like PyTorch */
static int k_nonzero(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = mto_contiguous(a[0].t, NULL);
    if (!self) return -1;
    mt_dtype dt = (mt_dtype)self->dtype;
    size_t isz = mt_dtype_size(dt);
    const char *p = mt_tensor_raw(self);
    int64_t count = 0, nd = self->ndim;
    for (int64_t i = 0; i < self->numel; i++)
        count += mt_load_double(p + i * (int64_t)isz, dt) != 0;
    int64_t sizes[2] = {count, nd}, strides[2] = {1, count > 0 ? count : 1};
    mt_tensor *out = mt_tensor_empty_strided(2, sizes, strides, MT_INT64, MT_CPU);
    if (!out) {
        mt_tensor_decref(self);
        return -1;
    }
    int64_t *o = (int64_t *)mt_tensor_raw(out), idx[MT_MAX_DIM], j = 0;
    for (int64_t i = 0; i < self->numel; i++) {
        if (mt_load_double(p + i * (int64_t)isz, dt) == 0) continue;
        unravel(i, self->sizes, (int)nd, idx);
        for (int k = 0; k < nd; k++) o[j + k * count] = idx[k];
        j++;
    }
    mt_tensor_decref(self);
    r[0] = mt_vtensor(out);
    return 0;
}

static int k_take(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *index = a[1].t, *out = r[0].t;
    size_t isz = mt_dtype_size((mt_dtype)self->dtype);
    int64_t n = self->numel, idx[MT_MAX_DIM], pos[MT_MAX_DIM];
    for (int64_t k = 0; k < index->numel; k++) {
        unravel(k, index->sizes, index->ndim, idx);
        int64_t v = index_at(index, idx), w = v < 0 && v != MT_ZERO_SENTINEL ? v + n : v;
        if (w < 0 || w >= n)
            return mt_error(
                MT_ERR_INDEX,
                "out of range: tried to access index %lld on a tensor of %lld elements.",
                mt_user_dim(v), (long long)n);
        unravel(w, self->sizes, self->ndim, pos);
        memcpy(at(out, idx), at(self, pos), isz);
    }
    return 0;
}

/* ---- sort, topk, kthvalue -------------------------------------------------------------------- */

typedef struct {
    double d;
    int64_t i64;
    bool nan;
} key;

/* ascending order with NaN last; ties keep their positions (a stable merge sort) */
static bool less(const key *a, const key *b, bool integral) {
    if (a->nan) return false;
    if (b->nan) return true;
    return integral ? a->i64 < b->i64 : a->d < b->d;
}

static void merge_sort(int64_t *perm, int64_t *tmp, const key *keys, int64_t n, bool desc,
                       bool integral) {
    for (int64_t w = 1; w < n; w *= 2)
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo,
                    j = mid, k = lo;
            while (i < mid && j < hi) {
                /* descending is the reverse order with NaN first, still stable */
                bool take_right = desc ? less(&keys[perm[i]], &keys[perm[j]], integral)
                                       : less(&keys[perm[j]], &keys[perm[i]], integral);
                tmp[k++] = take_right ? perm[j++] : perm[i++];
            }
            while (i < mid) tmp[k++] = perm[i++];
            while (j < hi) tmp[k++] = perm[j++];
            memcpy(perm + lo, tmp + lo, sizeof(int64_t) * (size_t)(hi - lo));
        }
}

/* Sorts each row along dim; writes the first `keep` values and indices of each row (in the
 * result's layout, whose dim has `keep` entries, or none when squeeze is set). */
static int sort_rows(mt_tensor *self, int d, bool desc, int64_t keep, int64_t skip, mt_tensor *vals,
                     mt_tensor *inds, bool squeeze) {
    mt_dtype dt = (mt_dtype)self->dtype;
    bool integral = !mt_dtype_is_floating(dt);
    int64_t n = self->ndim ? self->sizes[d] : 1, rows = n ? self->numel / n : 0;
    key *keys = malloc(sizeof(key) * (size_t)(n ? n : 1));
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)(n ? n : 1)),
            *tmp = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!keys || !perm || !tmp) {
        free(keys), free(perm), free(tmp);
        return mt_error(MT_ERR_MEMORY, "out of memory sorting");
    }
    size_t isz = mt_dtype_size(dt);
    /* rows: every position of the other dims */
    int nd = self->ndim, on = 0;
    int64_t osizes[MT_MAX_DIM], idx[MT_MAX_DIM], oidx[MT_MAX_DIM];
    for (int i = 0; i < nd; i++)
        if (i != d) osizes[on++] = self->sizes[i];
    for (int64_t rrow = 0; rrow < rows; rrow++) {
        unravel(rrow, osizes, on, oidx);
        for (int i = 0, j = 0; i < nd; i++) idx[i] = i == d ? 0 : oidx[j++];
        for (int64_t k = 0; k < n; k++) {
            if (nd) idx[d] = k;
            const char *p = at(self, idx);
            keys[k].d = mt_load_double(p, dt);
            keys[k].i64 = integral ? mt_load_int64(p, dt) : 0;
            keys[k].nan = keys[k].d != keys[k].d;
            perm[k] = k;
        }
        merge_sort(perm, tmp, keys, n, desc, integral);
        for (int64_t k = 0; k < keep; k++) {
            int64_t src = perm[k + skip];
            int64_t out_idx[MT_MAX_DIM];
            int m = 0;
            for (int i = 0, j = 0; i < nd; i++) {
                if (i == d) {
                    if (!squeeze) out_idx[m++] = k;
                } else {
                    out_idx[m++] = oidx[j++];
                }
            }
            if (nd) idx[d] = src;
            memcpy(at(vals, out_idx), at(self, idx), isz);
            *(int64_t *)at(inds, out_idx) = src;
        }
    }
    free(keys), free(perm), free(tmp);
    return 0;
}

static int k_sortlike(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *self = a[0].t;
    int id = c->op->id, d;
    mt_wrap_dim(a[id == MT_OP_sort ? 1 : 2].i, self->ndim, &d);
    int64_t n = self->ndim ? self->sizes[d] : 1;
    if (id == MT_OP_sort) return sort_rows(self, d, a[2].b, n, 0, r[0].t, r[1].t, false);
    if (id == MT_OP_sort_stable) return sort_rows(self, d, a[3].b, n, 0, r[0].t, r[1].t, false);
    if (id == MT_OP_topk) return sort_rows(self, d, a[3].b, a[1].i, 0, r[0].t, r[1].t, false);
    /* kthvalue: the k-th smallest */
    return sort_rows(self, d, false, 1, a[1].i - 1, r[0].t, r[1].t, !a[3].b && self->ndim);
}

/* ---- unique ---------------------------------------------------------------------------------- */

/* lexicographic comparison of two rows of w elements, each ordered as sort orders them: NaN after
 * every number, NaNs tied (a comparison that is a total order, so the merge sort is defined) */
static int row_cmp(const char *x, const char *y, int64_t w, mt_dtype dt) {
    size_t isz = mt_dtype_size(dt);
    bool integral = !mt_dtype_is_floating(dt);
    for (int64_t i = 0; i < w; i++) {
        const char *px = x + i * (int64_t)isz, *py = y + i * (int64_t)isz;
        if (integral) {
            int64_t a = mt_load_int64(px, dt), b = mt_load_int64(py, dt);
            if (a != b) return a < b ? -1 : 1;
        } else {
            double a = mt_load_double(px, dt), b = mt_load_double(py, dt);
            if (a < b || (!isnan(a) && isnan(b))) return -1;
            if (a > b || (isnan(a) && !isnan(b))) return 1;
        }
    }
    return 0;
}

/* two rows are one value of unique's when every element is == (so a row holding NaN never is, as
 * PyTorch's CUDA unique and unique_consecutive have it) */
static bool row_eq(const char *x, const char *y, int64_t w, mt_dtype dt) {
    size_t isz = mt_dtype_size(dt);
    for (int64_t i = 0; i < w; i++) {
        const char *px = x + i * (int64_t)isz, *py = y + i * (int64_t)isz;
        if (mt_dtype_is_floating(dt) ? mt_load_double(px, dt) != mt_load_double(py, dt)
                                     : mt_load_int64(px, dt) != mt_load_int64(py, dt))
            return false;
    }
    return true;
}

static int k_unique(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t, *src = NULL, *out = NULL, *inv = NULL, *cnt = NULL;
    bool by_dim = a[4].tag == MT_V_INT;
    int d = 0, status = -1;
    if (by_dim && mt_wrap_dim(a[4].i, self->ndim, &d)) return -1;
    if (by_dim && mt_unique_dim_check(self, d)) return -1;
    /* rows to compare: elements (flattened), or slices along dim (moved to the front) */
    if (by_dim) {
        mt_tensor *m = mto_transpose_int(self, 0, d);
        src = m ? mto_contiguous(m, NULL) : NULL;
        mt_tensor_decref(m);
    } else {
        src = mto_contiguous(self, NULL);
    }
    if (!src) return -1;
    mt_dtype dt = (mt_dtype)self->dtype;
    size_t isz = mt_dtype_size(dt);
    int64_t nrows = by_dim ? (self->ndim ? self->sizes[d] : 1) : src->numel;
    int64_t width = by_dim ? (nrows ? src->numel / nrows : 0) : 1;
    const char *p = mt_tensor_raw(src);
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)(nrows + 1)),
            *tmp = malloc(sizeof(int64_t) * (size_t)(nrows + 1));
    int64_t *group = malloc(sizeof(int64_t) * (size_t)(nrows + 1));
    if (!perm || !tmp || !group) {
        mt_error(MT_ERR_MEMORY, "out of memory in unique");
        goto done;
    }
    for (int64_t i = 0; i < nrows; i++) perm[i] = i;
        /* a stable merge sort of rows, comparing element by element */
#define ROWCMP(x, y) row_cmp(p + (x)*width * (int64_t)isz, p + (y)*width * (int64_t)isz, width, dt)
    for (int64_t w = 1; w < nrows; w *= 2)
        for (int64_t lo = 0; lo < nrows; lo += 2 * w) {
            int64_t mid = lo + w < nrows ? lo + w : nrows,
                    hi = lo + 2 * w < nrows ? lo + 2 * w : nrows;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = ROWCMP(perm[j], perm[i]) < 0 ? perm[j++] : perm[i++];
            while (i < mid) tmp[k++] = perm[i++];
            while (j < hi) tmp[k++] = perm[j++];
            memcpy(perm + lo, tmp + lo, sizeof(int64_t) * (size_t)(hi - lo));
        }
    int64_t ng = 0;
    for (int64_t i = 0; i < nrows; i++) {
        if (i == 0 || !row_eq(p + perm[i] * width * (int64_t)isz,
                              p + perm[i - 1] * width * (int64_t)isz, width, dt))
            ng++;
        group[perm[i]] = ng - 1;
    }
    /* results */
    int64_t osizes[MT_MAX_DIM];
    int on = 1;
    osizes[0] = ng;
    if (by_dim)
        for (int i = 1; i < src->ndim; i++) osizes[on++] = src->sizes[i];
    mt_tensor *o = mt_tensor_empty(on, osizes, dt, MT_CPU);
    if (!o) goto done;
    for (int64_t i = 0, g = -1; i < nrows && width > 0; i++) /* rows of no elements: no data */
        if (group[perm[i]] != g) {
            g = group[perm[i]];
            memcpy(mt_tensor_raw(o) + g * width * (int64_t)isz, p + perm[i] * width * (int64_t)isz,
                   (size_t)width * isz);
        }
    if (by_dim && d != 0) { /* move the dim back: a transposed view, as PyTorch returns */
        out = mto_transpose_int(o, 0, d);
        mt_tensor_decref(o);
        if (!out) goto done;
    } else {
        out = o;
    }
    int64_t ish[MT_MAX_DIM];
    int in_n = by_dim ? 1 : self->ndim;
    if (by_dim)
        ish[0] = nrows;
    else
        memcpy(ish, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    inv = mt_tensor_empty(in_n, ish, MT_INT64, MT_CPU);
    cnt = mt_tensor_empty(1, &ng, MT_INT64, MT_CPU);
    if (!inv || !cnt) goto done;
    int64_t *ip = (int64_t *)mt_tensor_raw(inv), *cp = (int64_t *)mt_tensor_raw(cnt);
    for (int64_t g = 0; g < ng; g++) cp[g] = 0;
    for (int64_t i = 0; i < nrows; i++) {
        ip[i] = group[i];
        cp[group[i]]++;
    }
    r[0] = mt_vtensor(out);
    r[1] = mt_vtensor(inv);
    r[2] = mt_vtensor(cnt);
    out = inv = cnt = NULL;
    status = 0;
done:
#undef ROWCMP
    free(perm), free(tmp), free(group);
    mt_tensor_decref(src);
    mt_tensor_decref(out);
    mt_tensor_decref(inv);
    mt_tensor_decref(cnt);
    return status;
}

/* ---- tril / triu ----------------------------------------------------------------------------- */

static int k_tri(mt_call *c, mt_value *a, mt_value *r) {
    int id = c->op->id;
    bool lower = id == MT_OP_tril || id == MT_OP_tril_;
    mt_tensor *self = a[0].t, *out = r[0].t;
    if (out != self) mt_cpu_copy(out, self);
    int64_t k = a[1].i, rows = out->sizes[out->ndim - 2], cols = out->sizes[out->ndim - 1];
    int64_t batches = (rows != 0 && cols != 0) ? out->numel / (rows * cols) : 0, idx[MT_MAX_DIM];
    size_t isz = mt_dtype_size((mt_dtype)out->dtype);
    for (int64_t b = 0; b < batches; b++) {
        unravel(b, out->sizes, out->ndim - 2, idx);
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                bool keep = lower ? j - i <= k : j - i >= k;
                if (keep) continue;
                idx[out->ndim - 2] = i;
                idx[out->ndim - 1] = j;
                memset(at(out, idx), 0, isz);
            }
    }
    return 0;
}

void mt_cpu_index_register(void) {
    mt_disp_impl(MT_OP_cat, MT_KEY_CPU, k_cat);
    mt_disp_impl(MT_OP_flip, MT_KEY_CPU, k_flip);
    mt_disp_impl(MT_OP_repeat, MT_KEY_CPU, k_repeat);
    mt_disp_impl(MT_OP_gather, MT_KEY_CPU, k_gather);
    mt_disp_impl(MT_OP_scatter__src, MT_KEY_CPU, k_scatter_);
    mt_disp_impl(MT_OP_scatter__value, MT_KEY_CPU, k_scatter_);
    mt_disp_impl(MT_OP_scatter_add_, MT_KEY_CPU, k_scatter_);
    mt_disp_impl(MT_OP_index_select, MT_KEY_CPU, k_index_select);
    mt_disp_impl(MT_OP_index_add_, MT_KEY_CPU, k_index_put_);
    mt_disp_impl(MT_OP_index_copy_, MT_KEY_CPU, k_index_put_);
    mt_disp_impl(MT_OP_masked_fill__Scalar, MT_KEY_CPU, k_masked_fill_);
    mt_disp_impl(MT_OP_masked_fill__Tensor, MT_KEY_CPU, k_masked_fill_);
    mt_disp_impl(MT_OP_masked_scatter_, MT_KEY_CPU, k_masked_scatter_);
    mt_disp_impl(MT_OP_take, MT_KEY_CPU, k_take);
    mt_disp_impl(MT_OP_sort, MT_KEY_CPU, k_sortlike);
    mt_disp_impl(MT_OP_sort_stable, MT_KEY_CPU, k_sortlike);
    mt_disp_impl(MT_OP_topk, MT_KEY_CPU, k_sortlike);
    mt_disp_impl(MT_OP_kthvalue, MT_KEY_CPU, k_sortlike);
    mt_disp_impl(MT_OP_tril, MT_KEY_CPU, k_tri);
    mt_disp_impl(MT_OP_triu, MT_KEY_CPU, k_tri);
    mt_disp_impl(MT_OP_tril_, MT_KEY_CPU, k_tri);
    mt_disp_impl(MT_OP_triu_, MT_KEY_CPU, k_tri);
    /* data-dependent result shapes: full kernels (no meta function, so no pipeline) */
    mt_disp_kernel(MT_OP_masked_select, MT_KEY_CPU, k_masked_select);
    mt_disp_kernel(MT_OP_nonzero, MT_KEY_CPU, k_nonzero);
    mt_disp_kernel(MT_OP_unique, MT_KEY_CPU, k_unique);
}
