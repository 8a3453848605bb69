/* cpu_ew_loops.h: macros that stamp out one 1-d loop per (element-wise family, dtype).
 *
 * A loop gets the operands' pointers and byte strides for one run along the innermost dim
 * (mt_iter). Each family is written once as an expression of `a` (`b`, `c` for more inputs)
 * in the compute type `ctype`, with scalar parameters p0..p3 already converted to it. The
 * contiguous cases are plain indexed loops that the compiler vectorizes; float16/bfloat16
 * compute in float, one rounding per result, as PyTorch's CPU kernels do.
 */
#ifndef MT_CPU_EW_LOOPS_H
#define MT_CPU_EW_LOOPS_H

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "cpu_iter.h"
#include "mt_half.h"

typedef struct ew_ctx {
    double d[4];        /* parameters as doubles (floating compute) */
    int64_t i[4];       /* and as integers (integral compute) */
    bool has[4];        /* whether an optional parameter was given (clamp's bounds) */
    int mode;           /* a string parameter, decoded (gelu's approximate) */
    atomic_int zerodiv; /* set by integer division by zero */
} ew_ctx;

#define EW_ID(x) (x)
#define EW_ST_BOOL(v) ((uint8_t)((v) != 0))

/* dtype lists: M(args..., short name, storage type, compute type, load, store) */
#define EW_FLOATS(M, ...)                                                                          \
    M(__VA_ARGS__, f32, float, float, EW_ID, EW_ID)                                                \
    M(__VA_ARGS__, f64, double, double, EW_ID, EW_ID)                                              \
    M(__VA_ARGS__, f16, uint16_t, float, mt_f16_to_f32, mt_f32_to_f16)                             \
    M(__VA_ARGS__, bf16, uint16_t, float, mt_bf16_to_f32, mt_f32_to_bf16)
#define EW_INTS(M, ...)                                                                            \
    M(__VA_ARGS__, u8, uint8_t, uint8_t, EW_ID, EW_ID)                                             \
    M(__VA_ARGS__, i8, int8_t, int8_t, EW_ID, EW_ID)                                               \
    M(__VA_ARGS__, i16, int16_t, int16_t, EW_ID, EW_ID)                                            \
    M(__VA_ARGS__, i32, int32_t, int32_t, EW_ID, EW_ID)                                            \
    M(__VA_ARGS__, i64, int64_t, int64_t, EW_ID, EW_ID)
#define EW_BOOLS(M, ...) M(__VA_ARGS__, b8, uint8_t, uint8_t, EW_ID, EW_ST_BOOL)
/* the unions the declarations' dtype sets name (src/ops/gen_elementwise.lua) */
#define EW_NUMS(M, ...) EW_FLOATS(M, __VA_ARGS__) EW_INTS(M, __VA_ARGS__)
#define EW_ALL(M, ...) EW_FLOATS(M, __VA_ARGS__) EW_INTS(M, __VA_ARGS__) EW_BOOLS(M, __VA_ARGS__)
#define EW_INTB(M, ...) EW_INTS(M, __VA_ARGS__) EW_BOOLS(M, __VA_ARGS__)

#define EW_DT_f32 MT_FLOAT32
#define EW_DT_f64 MT_FLOAT64
#define EW_DT_f16 MT_FLOAT16
#define EW_DT_bf16 MT_BFLOAT16
#define EW_DT_u8 MT_UINT8
#define EW_DT_i8 MT_INT8
#define EW_DT_i16 MT_INT16
#define EW_DT_i32 MT_INT32
#define EW_DT_i64 MT_INT64
#define EW_DT_b8 MT_BOOL

/* parameters in the compute type; for float16/bfloat16 rounded through the storage type,
 * as PyTorch converts a scalar to the tensor's type before computing */
#define EW_IS_FLOAT ((ctype)0.5 != 0)
#define EW_PARAMS(T, LD, ST)                                                                       \
    ctype p0 = EW_IS_FLOAT ? (ctype)LD(ST((ctype)ctx->d[0])) : (ctype)ctx->i[0];                   \
    ctype p1 = EW_IS_FLOAT ? (ctype)LD(ST((ctype)ctx->d[1])) : (ctype)ctx->i[1];                   \
    ctype p2 = EW_IS_FLOAT ? (ctype)LD(ST((ctype)ctx->d[2])) : (ctype)ctx->i[2];                   \
    ctype p3 = EW_IS_FLOAT ? (ctype)LD(ST((ctype)ctx->d[3])) : (ctype)ctx->i[3];                   \
    (void)p0;                                                                                      \
    (void)p1;                                                                                      \
    (void)p2;                                                                                      \
    (void)p3;

#define EW_FN(kind, fam, dn) ew_##kind##_##fam##_##dn
#define EW_ENTRY(kind, fam, EXPR, dn, T, C, LD, ST) [EW_DT_##dn] = EW_FN(kind, fam, dn),

/* unary: out = EXPR(a) */
#define EW_DEF1(fam, EXPR, dn, T, C, LD, ST)                                                       \
    static void EW_FN(u, fam, dn)(char **dp, const int64_t *st, int64_t n, void *vctx) {           \
        typedef C ctype;                                                                           \
        ew_ctx *ctx = vctx;                                                                        \
        EW_PARAMS(T, LD, ST)                                                                       \
        if (st[0] == (int64_t)sizeof(T) && st[1] == (int64_t)sizeof(T)) {                          \
            T *restrict o = (T *)dp[0];                                                            \
            const T *restrict x = (const T *)dp[1];                                                \
            for (int64_t i = 0; i < n; i++) {                                                      \
                ctype a = LD(x[i]);                                                                \
                o[i] = ST(EXPR);                                                                   \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                ctype a = LD(*(const T *)(dp[1] + i * st[1]));                                     \
                *(T *)(dp[0] + i * st[0]) = ST(EXPR);                                              \
            }                                                                                      \
        }                                                                                          \
    }

/* unary with a bool result */
#define EW_DEF1B(fam, EXPR, dn, T, C, LD, ST)                                                      \
    static void EW_FN(ub, fam, dn)(char **dp, const int64_t *st, int64_t n, void *vctx) {          \
        typedef C ctype;                                                                           \
        (void)vctx;                                                                                \
        for (int64_t i = 0; i < n; i++) {                                                          \
            ctype a = LD(*(const T *)(dp[1] + i * st[1]));                                         \
            (void)a;                                                                               \
            *(uint8_t *)(dp[0] + i * st[0]) = (uint8_t)((EXPR) != 0);                              \
        }                                                                                          \
    }

/* binary: out = EXPR(a, b), with fast paths for contiguous operands and a broadcast scalar */
#define EW_DEF2_BODY(T, LD, OUT_T, STORE, EXPR)                                                    \
    const int64_t S = (int64_t)sizeof(T), SO = (int64_t)sizeof(OUT_T);                             \
    if (st[0] == SO && st[1] == S && st[2] == S) {                                                 \
        OUT_T *restrict o = (OUT_T *)dp[0];                                                        \
        const T *restrict x = (const T *)dp[1], *restrict y = (const T *)dp[2];                    \
        for (int64_t i = 0; i < n; i++) {                                                          \
            ctype a = LD(x[i]), b = LD(y[i]);                                                      \
            o[i] = STORE(EXPR);                                                                    \
        }                                                                                          \
    } else if (st[0] == SO && st[1] == S && st[2] == 0) {                                          \
        OUT_T *restrict o = (OUT_T *)dp[0];                                                        \
        const T *restrict x = (const T *)dp[1];                                                    \
        const ctype b = LD(*(const T *)dp[2]);                                                     \
        for (int64_t i = 0; i < n; i++) {                                                          \
            ctype a = LD(x[i]);                                                                    \
            o[i] = STORE(EXPR);                                                                    \
        }                                                                                          \
    } else if (st[0] == SO && st[1] == 0 && st[2] == S) {                                          \
        OUT_T *restrict o = (OUT_T *)dp[0];                                                        \
        const T *restrict y = (const T *)dp[2];                                                    \
        const ctype a = LD(*(const T *)dp[1]);                                                     \
        for (int64_t i = 0; i < n; i++) {                                                          \
            ctype b = LD(y[i]);                                                                    \
            o[i] = STORE(EXPR);                                                                    \
        }                                                                                          \
    } else {                                                                                       \
        for (int64_t i = 0; i < n; i++) {                                                          \
            ctype a = LD(*(const T *)(dp[1] + i * st[1])),                                         \
                  b = LD(*(const T *)(dp[2] + i * st[2]));                                         \
            *(OUT_T *)(dp[0] + i * st[0]) = STORE(EXPR);                                           \
        }                                                                                          \
    }

#define EW_TO_BOOL(v) ((uint8_t)((v) != 0))

#define EW_DEF2(fam, EXPR, dn, T, C, LD, ST)                                                       \
    static void EW_FN(b, fam, dn)(char **dp, const int64_t *st, int64_t n, void *vctx) {           \
        typedef C ctype;                                                                           \
        ew_ctx *ctx = vctx;                                                                        \
        EW_PARAMS(T, LD, ST)                                                                       \
        EW_DEF2_BODY(T, LD, T, ST, EXPR)                                                           \
    }

#define EW_DEF2B(fam, EXPR, dn, T, C, LD, ST)                                                      \
    static void EW_FN(bb, fam, dn)(char **dp, const int64_t *st, int64_t n, void *vctx) {          \
        typedef C ctype;                                                                           \
        (void)vctx;                                                                                \
        EW_DEF2_BODY(T, LD, uint8_t, EW_TO_BOOL, EXPR)                                             \
    }

/* ternary: out = EXPR(a, b, c) */
#define EW_DEF3(fam, EXPR, dn, T, C, LD, ST)                                                       \
    static void EW_FN(t, fam, dn)(char **dp, const int64_t *st, int64_t n, void *vctx) {           \
        typedef C ctype;                                                                           \
        ew_ctx *ctx = vctx;                                                                        \
        EW_PARAMS(T, LD, ST)                                                                       \
        for (int64_t i = 0; i < n; i++) {                                                          \
            ctype a = LD(*(const T *)(dp[1] + i * st[1]));                                         \
            ctype b = LD(*(const T *)(dp[2] + i * st[2]));                                         \
            ctype c = LD(*(const T *)(dp[3] + i * st[3]));                                         \
            *(T *)(dp[0] + i * st[0]) = ST(EXPR);                                                  \
        }                                                                                          \
    }

/* where(cond, a, b): the condition is a bool (or uint8) tensor */
#define EW_DEFW(fam, EXPR, dn, T, C, LD, ST)                                                       \
    static void EW_FN(t, fam, dn)(char **dp, const int64_t *st, int64_t n, void *vctx) {           \
        (void)vctx;                                                                                \
        for (int64_t i = 0; i < n; i++) {                                                          \
            uint8_t cond = *(const uint8_t *)(dp[1] + i * st[1]);                                  \
            const char *src = cond ? dp[2] + i * st[2] : dp[3] + i * st[3];                        \
            memcpy(dp[0] + i * st[0], src, sizeof(T));                                             \
        }                                                                                          \
    }

#endif
