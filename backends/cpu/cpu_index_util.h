/* cpu_index_util.h: element addressing shared by the CPU indexing kernels (cpu_index.c,
 * cpu_adv_index.c). */
#ifndef MT_CPU_INDEX_UTIL_H
#define MT_CPU_INDEX_UTIL_H

#include "mt_tensor.h"
#include "mt_value.h"

/* element offset (in elements) of a multi-index */
static inline int64_t offset_of(const mt_tensor *t, const int64_t *idx) {
    int64_t off = t->offset;
    for (int i = 0; i < t->ndim; i++) off += idx[i] * t->strides[i];
    return off;
}

static inline void unravel(int64_t k, const int64_t *sizes, int n, int64_t *idx) {
    for (int i = n - 1; i >= 0; i--) {
        idx[i] = sizes[i] ? k % sizes[i] : 0;
        k = sizes[i] ? k / sizes[i] : 0;
    }
}

static inline char *at(const mt_tensor *t, const int64_t *idx) {
    return (char *)t->storage->data +
           offset_of(t, idx) * (int64_t)mt_dtype_size((mt_dtype)t->dtype);
}

static inline int64_t index_at(const mt_tensor *index, const int64_t *idx) {
    return mt_load_int64(at(index, idx), (mt_dtype)index->dtype);
}

/* dst += alpha * src for one element of dtype dt (PyTorch's arithmetic in that dtype) */
static inline void add_elem(char *dst, const char *src, mt_dtype dt, mt_value alpha) {
    switch (dt) {
    case MT_FLOAT32:
        *(float *)dst += (float)mt_scalar_double(alpha) * *(const float *)src;
        return;
    case MT_FLOAT64:
        *(double *)dst += mt_scalar_double(alpha) * *(const double *)src;
        return;
    case MT_FLOAT16:
    case MT_BFLOAT16: {
        float v = (float)mt_load_double(dst, dt) +
                  (float)mt_scalar_double(alpha) * (float)mt_load_double(src, dt);
        mt_store_double(dst, dt, v);
        return;
    }
    case MT_BOOL:
        *(uint8_t *)dst = *(uint8_t *)dst || (mt_scalar_int(alpha) && *(const uint8_t *)src);
        return;
    default:
        mt_store_int64(
            dst, dt,
            (int64_t)((uint64_t)mt_load_int64(dst, dt) +
                      (uint64_t)mt_scalar_int(alpha) * (uint64_t)mt_load_int64(src, dt)));
    }
}

#endif
