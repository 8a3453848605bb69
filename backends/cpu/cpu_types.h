/* cpu_types.h: the C type of each dtype and element conversions, for CPU kernels.
 *
 * Every conversion goes through a "wide" value: int64_t for bool and integer types, double
 * for floating types. That reproduces C++ static_cast semantics as PyTorch uses them
 * (float16/bfloat16 round through float, bool is "!= 0").
 */
#ifndef MT_CPU_TYPES_H
#define MT_CPU_TYPES_H

#include "mt_dtype.h"
#include "mt_half.h"

/* X(dtype enum, C storage type, short name, wide kind I or F) */
#define MT_FOR_ALL_DTYPES(X)                                                                       \
    X(MT_BOOL, uint8_t, b8, I)                                                                     \
    X(MT_UINT8, uint8_t, u8, I)                                                                    \
    X(MT_INT8, int8_t, i8, I)                                                                      \
    X(MT_INT16, int16_t, i16, I)                                                                   \
    X(MT_INT32, int32_t, i32, I)                                                                   \
    X(MT_INT64, int64_t, i64, I)                                                                   \
    X(MT_FLOAT16, uint16_t, f16, F)                                                                \
    X(MT_BFLOAT16, uint16_t, bf16, F)                                                              \
    X(MT_FLOAT32, float, f32, F)                                                                   \
    X(MT_FLOAT64, double, f64, F)

/* load: storage value -> wide value */
#define MT_LOAD_b8(v) ((int64_t)((v) != 0))
#define MT_LOAD_u8(v) ((int64_t)(v))
#define MT_LOAD_i8(v) ((int64_t)(v))
#define MT_LOAD_i16(v) ((int64_t)(v))
#define MT_LOAD_i32(v) ((int64_t)(v))
#define MT_LOAD_i64(v) ((int64_t)(v))
#define MT_LOAD_f16(v) ((double)mt_f16_to_f32(v))
#define MT_LOAD_bf16(v) ((double)mt_bf16_to_f32(v))
#define MT_LOAD_f32(v) ((double)(v))
#define MT_LOAD_f64(v) ((double)(v))

/* store from an int64 wide value */
#define MT_STORE_I_b8(w) ((uint8_t)((w) != 0))
#define MT_STORE_I_u8(w) ((uint8_t)(w))
#define MT_STORE_I_i8(w) ((int8_t)(w))
#define MT_STORE_I_i16(w) ((int16_t)(w))
#define MT_STORE_I_i32(w) ((int32_t)(w))
#define MT_STORE_I_i64(w) ((int64_t)(w))
#define MT_STORE_I_f16(w) (mt_f32_to_f16((float)(w)))
#define MT_STORE_I_bf16(w) (mt_f32_to_bf16((float)(w)))
#define MT_STORE_I_f32(w) ((float)(w))
#define MT_STORE_I_f64(w) ((double)(w))

/* store from a double wide value */
#define MT_STORE_F_b8(w) ((uint8_t)((w) != 0))
#define MT_STORE_F_u8(w) ((uint8_t)mt_d2i(w))
#define MT_STORE_F_i8(w) ((int8_t)mt_d2i(w))
#define MT_STORE_F_i16(w) ((int16_t)mt_d2i(w))
#define MT_STORE_F_i32(w) ((int32_t)mt_d2i(w))
#define MT_STORE_F_i64(w) (mt_d2i(w))
#define MT_STORE_F_f16(w) (mt_f32_to_f16((float)(w)))
#define MT_STORE_F_bf16(w) (mt_f32_to_bf16((float)(w)))
#define MT_STORE_F_f32(w) ((float)(w))
#define MT_STORE_F_f64(w) ((double)(w))

#endif
