/* mt_dtype.h: the element types of tensors, their names, sizes and promotion rules. */
#ifndef MT_DTYPE_H
#define MT_DTYPE_H

#include "mt_common.h"

/* Ordered by promotion category: bool < integers < floating point. */
typedef enum mt_dtype {
    MT_BOOL,
    MT_UINT8,
    MT_INT8,
    MT_INT16,
    MT_INT32,
    MT_INT64,
    MT_FLOAT16,
    MT_BFLOAT16,
    MT_FLOAT32,
    MT_FLOAT64,
    MT_NUM_DTYPES
} mt_dtype;

#define MT_DTYPE_NONE (-1)

typedef struct mt_dtype_info {
    const char *name;        /* "float32": torch.float32 */
    const char *alias;       /* "float": torch.float, or NULL */
    const char *scalar_name; /* "Float": c10's ScalarType name used in error messages */
    const char *tensor_name; /* "FloatTensor" */
    uint8_t itemsize;
    bool is_floating;
    bool is_signed;
} mt_dtype_info;

MT_API const mt_dtype_info *mt_dtype_get(mt_dtype t);
static inline size_t mt_dtype_size(mt_dtype t) {
    static const uint8_t sz[MT_NUM_DTYPES] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
    return sz[t];
}
static inline bool mt_dtype_is_floating(mt_dtype t) {
    return t >= MT_FLOAT16;
}
static inline bool mt_dtype_is_integral(mt_dtype t, bool include_bool) {
    return t <= MT_INT64 && (include_bool || t != MT_BOOL);
}
MT_API const char *mt_dtype_name(mt_dtype t);        /* "float32" */
MT_API const char *mt_dtype_scalar_name(mt_dtype t); /* "Float" */
/* The C++ element type PyTorch's messages print ("float", "long int", "c10::Half") */
MT_API const char *mt_dtype_cxx_name(mt_dtype t);
/* Look up "float32", "float", "half", ...; returns MT_DTYPE_NONE when unknown. */
MT_API int mt_dtype_from_name(const char *name);

/* torch.promote_types */
MT_API mt_dtype mt_promote_types(mt_dtype a, mt_dtype b);
/* torch.can_cast: may a value of type `from` be written into `to` by an in-place op? */
MT_API bool mt_can_cast(mt_dtype from, mt_dtype to);

/* The default floating point dtype (torch.get_default_dtype); per thread, starts float32. */
MT_API mt_dtype mt_default_dtype(void);
MT_API int mt_set_default_dtype(mt_dtype t);

/* Read one element of type t at p as a double / int64, and write one from a double / int64. */
/* double -> int64 as x86's cvttsd2si does it (NaN and out of range give INT64_MIN), without the
 * undefined behaviour of a plain C cast. */
static inline int64_t mt_d2i(double v) {
    return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? (int64_t)v : INT64_MIN;
}

MT_API double mt_load_double(const void *p, mt_dtype t);
MT_API int64_t mt_load_int64(const void *p, mt_dtype t);
MT_API void mt_store_double(void *p, mt_dtype t, double v);
MT_API void mt_store_int64(void *p, mt_dtype t, int64_t v);

#endif
