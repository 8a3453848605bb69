/* cpu_ew_families.c: the CPU element-wise loops: one family per computation, stamped out for
 * every dtype by cpu_ew_loops.h, and the tables the kernel (cpu_ew.c) picks them from.
 *
 * This file is compiled twice: as is, for any x86-64, and by cpu_ew_families_avx2.c with
 * AVX2 and FMA enabled (chosen at run time when the CPU has them). Without floating-point
 * contraction both builds compute the same values; the AVX2 one does it eight lanes at once. */
#include "cpu_ew_families.h"
#include "cpu_ew_loops.h"
#include "elementwise.h"
#include "mt_ops_gen.h"
#include "special_scalar.h"

#ifndef MT_EW_VARIANT
#define MT_EW_VARIANT mt_cpu_ew_loops_base
#endif

#ifdef MT_EW_SIMD_MATH
/* The AVX2 build computes the transcendental functions eight (four) lanes at a time with the C
 * library's vector math (libmvec), as PyTorch's AVX2 kernels do with Sleef: within a few ulp of
 * the scalar functions the other build calls, not always the same last bit. */
#define MT_SIMD __attribute__((simd("notinbranch")))
#define MT_SIMD_MATH(fn)                                                                           \
    float fn##f(float) MT_SIMD;                                                                    \
    double fn(double) MT_SIMD
MT_SIMD_MATH(exp);
MT_SIMD_MATH(exp2);
MT_SIMD_MATH(expm1);
MT_SIMD_MATH(log);
MT_SIMD_MATH(log2);
MT_SIMD_MATH(log10);
MT_SIMD_MATH(log1p);
MT_SIMD_MATH(sin);
MT_SIMD_MATH(cos);
MT_SIMD_MATH(tan);
MT_SIMD_MATH(asin);
MT_SIMD_MATH(acos);
MT_SIMD_MATH(atan);
MT_SIMD_MATH(sinh);
MT_SIMD_MATH(cosh);
MT_SIMD_MATH(tanh);
#endif

#include <string.h>

/* The families are written once for signed and unsigned types alike ("a < 0" on uint8). */
#pragma GCC diagnostic ignored "-Wtype-limits"

/* ---- scalar helpers used by the families' expressions ------------------------------------- */

#define EW_M(name, x) _Generic((x), float : name##f, default : name)(x)
#define EW_M2(name, x, y) _Generic((x), float : name##f, default : name)(x, y)

static inline int64_t zerodiv(ew_ctx *ctx) {
    atomic_store_explicit(&ctx->zerodiv, 1, memory_order_relaxed);
    return 0;
}

/* integer division and modulus: by zero -> error, by -1 -> no overflow trap */
static inline int64_t idiv_trunc(int64_t a, int64_t b, ew_ctx *ctx) {
    if (b == 0) return zerodiv(ctx);
    return b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b;
}
static inline int64_t ifmod(int64_t a, int64_t b, ew_ctx *ctx) {
    if (b == 0) return zerodiv(ctx);
    return b == -1 ? 0 : a % b;
}
#define EW_IDIV(a, b) ((ctype)idiv_trunc(a, b, ctx))
#define EW_IMOD(a, b) ((ctype)ifmod(a, b, ctx))

static inline int64_t ifloordiv(int64_t a, int64_t b, ew_ctx *ctx) {
    if (b == 0) return zerodiv(ctx);
    if (b == -1) return (int64_t)(0 - (uint64_t)a);
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) q--;
    return q;
}

static inline int64_t iremainder(int64_t a, int64_t b, ew_ctx *ctx) {
    if (b == 0) return zerodiv(ctx);
    if (b == -1) return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

/* PyTorch's floor division of floating values (c10's div_floor_floating) */
static inline double dfloordiv(double a, double b) {
    if (b == 0) return a / b;
    double mod = fmod(a, b), div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    double fl;
    if (div != 0) {
        fl = floor(div);
        if (div - fl > 0.5) fl += 1.0;
    } else {
        fl = copysign(0.0, a / b);
    }
    return fl;
}
static inline float ffloordiv(float a, float b) {
    if (b == 0) return a / b;
    float mod = fmodf(a, b), div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    float fl;
    if (div != 0) {
        fl = floorf(div);
        if (div - fl > 0.5f) fl += 1.0f;
    } else {
        fl = copysignf(0.0f, a / b);
    }
    return fl;
}
#define EW_FFLOORDIV(a, b) _Generic((a), float : ffloordiv, default : dfloordiv)(a, b)

static inline double dremainder(double a, double b) {
    double m = fmod(a, b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
}
static inline float fremainder(float a, float b) {
    float m = fmodf(a, b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
}
#define EW_FREMAINDER(a, b) _Generic((a), float : fremainder, default : dremainder)(a, b)

/* integer powers by squaring; negative exponents give 0 except for bases 1 and -1 */
static inline int64_t ipow(int64_t base, int64_t e) {
    if (e < 0) return base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0;
    uint64_t r = 1, b = (uint64_t)base;
    while (e) {
        if (e & 1) r *= b;
        b *= b;
        e >>= 1;
    }
    return (int64_t)r;
}

/* shifts as x86 does them: the count masked to the promoted type's width */
#define EW_SHL(a, b)                                                                               \
    ((ctype)(sizeof(ctype) == 8 ? (int64_t)((uint64_t)(a) << ((b)&63))                             \
                                : (int64_t)((uint32_t)(a) << ((b)&31))))
#define EW_SHR(a, b)                                                                               \
    ((ctype)(sizeof(ctype) == 8 ? (int64_t)(a) >> ((b)&63) : (int64_t)((int32_t)(a) >> ((b)&31))))

#define EW_MAXF(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) > (b) ? (a) : (b))
#define EW_MINF(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) < (b) ? (a) : (b))

static inline double round_decimals(double a, int64_t d) {
    bool neg = d < 0;
    double p = pow(10.0, (double)(neg ? -d : d));
    return neg ? nearbyint(a / p) * p : nearbyint(a * p) / p;
}
static inline float round_decimalsf(float a, int64_t d) {
    bool neg = d < 0;
    float p = powf(10.0f, (float)(neg ? -d : d));
    return neg ? nearbyintf(a / p) * p : nearbyintf(a * p) / p;
}

static inline double gelu_d(double x, int mode) {
    if (mode) {
        const double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5, kKappa = 0.044715;
        double inner = kBeta * (x + kKappa * x * x * x);
        return 0.5 * x * (1 + tanh(inner));
    }
    return x * 0.5 * (1 + erf(x * M_SQRT1_2));
}
static inline float gelu_f(float x, int mode) {
    if (mode) {
        const float kBeta = (float)(M_SQRT2 * M_2_SQRTPI * 0.5), kKappa = 0.044715f;
        float inner = kBeta * (x + kKappa * x * x * x);
        return 0.5f * x * (1 + tanhf(inner));
    }
    return x * 0.5f * (1 + erff(x * (float)M_SQRT1_2));
}
#define EW_GELU(a) _Generic((a), float : gelu_f, default : gelu_d)(a, ctx->mode)

/* log(exp(a) + exp(b)) from the larger one: equal infinities give themselves (no inf - inf) */
#define EW_LOGADDEXP(a, b)                                                                         \
    ((isinf(a) && (a) == (b))                                                                      \
         ? (a)                                                                                     \
         : (((a) > (b) ? (a) : (b)) + EW_M(log1p, EW_M(exp, -EW_M(fabs, (a) - (b))))))

#define EW_LOGADDEXP2(a, b)                                                                        \
    ((isinf(a) && (a) == (b))                                                                      \
         ? (a)                                                                                     \
         : (((a) > (b) ? (a) : (b)) +                                                              \
            EW_M(log1p, EW_M(exp2, -EW_M(fabs, (a) - (b)))) * (ctype)1.4426950408889634))

/* heaviside: other's value where self is 0, else whether self is positive (NaN: 0) */
#define EW_HEAVISIDE(a, b) ((a) == 0 ? (b) : (ctype)((a) > 0))
/* xlogy: NaN where y is NaN, else 0 where x is 0, else x * log(y) */
#define EW_XLOGY(a, b) (isnan(b) ? (b) : (a) == 0 ? (ctype)0 : (a)*EW_M(log, b))
/* sinc in the compute type (float for float32, double for float64) */
#define EW_PI ((ctype)3.14159265358979323846)
#define EW_SINC(a) ((a) == 0 ? (ctype)1 : EW_M(sin, EW_PI * (a)) / (EW_PI * (a)))
/* a constant rounded to the result's dtype first, as PyTorch's scalar multiplications */
#define EW_DEF_SCALED(fam, K, dn, T, C, LD, ST) EW_DEF1(fam, a *(C)LD(ST((C)(K))), dn, T, C, LD, ST)

/* gcd and lcm: special_scalar.h's, which the CUDA kernels compute too */
static inline int64_t ew_gcd(int64_t a, int64_t b) {
    return mt_sp_gcd(a, b);
}
static inline int64_t ew_lcm(int64_t a, int64_t b) {
    return mt_sp_lcm(a, b);
}

/* nextafter in a 16-bit format (half or bfloat16): the neighbouring value of that format, by
 * stepping its bits (sign and magnitude order like the integers) */
static inline float ew_nextafter16(float a, float b, bool half) {
    if (isnan(a) || isnan(b)) return NAN;
    if (a == b) return b;
    uint16_t x = half ? mt_f32_to_f16(a) : mt_f32_to_bf16(a);
    if (a == 0)
        x = b > 0 ? 0x0001 : 0x8001;
    else if ((a < b) == (a > 0))
        x++;
    else
        x--;
    return half ? mt_f16_to_f32(x) : mt_bf16_to_f32(x);
}

/* clamp with optional bounds (p0 = min, p1 = max); NaN stays NaN */
#define EW_LO(a) ((ctx->has[0] && (a) < p0) ? p0 : (a))
#define EW_CLAMP(a) (isnan((double)(a)) ? (a) : (ctx->has[1] && EW_LO(a) > p1) ? p1 : EW_LO(a))

/* ---- the families ---------------------------------------------------------------------------- */

/* Each family's loops for every dtype of its declared set, as an expression of `a` (`b`, `c`):
 * the family list and its sets come from the op declarations (build/gen/mt_ew_gen.h); a family
 * whose dtypes need different expressions gives one line per dtype class (EW_FLOATS, EW_INTS,
 * EW_BOOLS). A family declared without loops here fails to compile (its table names them). */
#define ALL EW_ALL
#define NUMS EW_NUMS
#define INTB EW_INTB

/* one family per line, its expression as written */
/* clang-format off */
/* arithmetic */
/* alpha = 1 is a plain add (vectorized); another alpha fuses the multiply-add in floating
 * types, as PyTorch's vectorized kernel does */
#define EW_FMA(x, y, z) _Generic((x), float: fmaf, default: fma)(x, y, z)
ALL(EW_DEF2, ADD, a + b)
EW_FLOATS(EW_DEF2, ADD_ALPHA, EW_FMA(b, p0, a))
INTB(EW_DEF2, ADD_ALPHA, a + p0 * b)
NUMS(EW_DEF2, SUB, a - b)
EW_FLOATS(EW_DEF2, SUB_ALPHA, EW_FMA(b, -p0, a))
EW_INTS(EW_DEF2, SUB_ALPHA, a - p0 * b)
NUMS(EW_DEF2, RSUB, b - a)
EW_FLOATS(EW_DEF2, RSUB_ALPHA, EW_FMA(a, -p0, b))
EW_INTS(EW_DEF2, RSUB_ALPHA, b - p0 * a)
ALL(EW_DEF2, MUL, a *b)
EW_FLOATS(EW_DEF2, DIV, a / b)
EW_FLOATS(EW_DEF2, DIV_TRUNC,
          EW_M(trunc, a / b)) /* div(rounding_mode='trunc'): a CPU variant of DIV */
EW_INTS(EW_DEF2, DIV_TRUNC, EW_IDIV(a, b))
EW_FLOATS(EW_DEF2, DIV_FLOOR, EW_FFLOORDIV(a, b))
EW_INTS(EW_DEF2, DIV_FLOOR, (ctype)ifloordiv(a, b, ctx))
EW_FLOATS(EW_DEF2, REMAINDER, EW_FREMAINDER(a, b))
EW_INTS(EW_DEF2, REMAINDER, (ctype)iremainder(a, b, ctx))
EW_FLOATS(EW_DEF2, FMOD, EW_M2(fmod, a, b))
EW_INTS(EW_DEF2, FMOD, EW_IMOD(a, b))
EW_FLOATS(EW_DEF2, POW, EW_M2(pow, a, b))
EW_INTS(EW_DEF2, POW, (ctype)ipow(a, b))
EW_FLOATS(EW_DEF2, ATAN2, EW_M2(atan2, a, b))
EW_FLOATS(EW_DEF2, MAXIMUM, EW_MAXF(a, b))
INTB(EW_DEF2, MAXIMUM, a > b ? a : b)
EW_FLOATS(EW_DEF2, MINIMUM, EW_MINF(a, b))
INTB(EW_DEF2, MINIMUM, a < b ? a : b)
EW_FLOATS(EW_DEF2, FMAX, EW_M2(fmax, a, b))
INTB(EW_DEF2, FMAX, a > b ? a : b)
EW_FLOATS(EW_DEF2, FMIN, EW_M2(fmin, a, b))
INTB(EW_DEF2, FMIN, a < b ? a : b)
EW_FLOATS(EW_DEF2, HYPOT, EW_M2(hypot, a, b))
EW_FLOATS(EW_DEF2, LOGADDEXP, EW_LOGADDEXP(a, b))
EW_FLOATS(EW_DEF2, LOGADDEXP2, EW_LOGADDEXP2(a, b))
EW_FLOATS(EW_DEF2, COPYSIGN, EW_M2(copysign, a, b))
EW_DEF2(NEXTAFTER, EW_M2(nextafter, a, b), f32, float, float, EW_ID, EW_ID)
EW_DEF2(NEXTAFTER, EW_M2(nextafter, a, b), f64, double, double, EW_ID, EW_ID)
EW_DEF2(NEXTAFTER, ew_nextafter16(a, b, true), f16, uint16_t, float, mt_f16_to_f32, mt_f32_to_f16)
EW_DEF2(NEXTAFTER, ew_nextafter16(a, b, false), bf16, uint16_t, float, mt_bf16_to_f32, mt_f32_to_bf16)
ALL(EW_DEF2, HEAVISIDE, EW_HEAVISIDE(a, b))
EW_FLOATS(EW_DEF2, XLOGY, EW_XLOGY(a, b))
EW_INTS(EW_DEF2, GCD, (ctype)ew_gcd(a, b))
EW_INTS(EW_DEF2, LCM, (ctype)ew_lcm(a, b))
EW_FLOATS(EW_DEF_SCALED, DEG2RAD, 3.14159265358979323846 / 180.0)
EW_FLOATS(EW_DEF_SCALED, RAD2DEG, 180.0 / 3.14159265358979323846)
EW_FLOATS(EW_DEF1, SINC, EW_SINC(a))
INTB(EW_DEF2, BAND, a &b)
INTB(EW_DEF2, BOR, a | b)
INTB(EW_DEF2, BXOR, a ^ b)
EW_INTS(EW_DEF2, SHL, EW_SHL(a, b))
EW_INTS(EW_DEF2, SHR, EW_SHR(a, b))

/* comparisons and logic (bool results) */
ALL(EW_DEF2B, EQ, a == b)
ALL(EW_DEF2B, NE, a != b)
ALL(EW_DEF2B, LT, a < b)
ALL(EW_DEF2B, LE, a <= b)
ALL(EW_DEF2B, GT, a > b)
ALL(EW_DEF2B, GE, a >= b)
ALL(EW_DEF2B, LAND, (a != 0) && (b != 0))
ALL(EW_DEF2B, LOR, (a != 0) || (b != 0))
ALL(EW_DEF2B, LXOR, (a != 0) != (b != 0))
ALL(EW_DEF1B, LNOT, a == 0)
EW_FLOATS(EW_DEF1B, ISNAN, a != a)
INTB(EW_DEF1B, ISNAN, 0)
EW_FLOATS(EW_DEF1B, ISINF, isinf(a))
INTB(EW_DEF1B, ISINF, 0)
EW_FLOATS(EW_DEF1B, ISFINITE, isfinite(a))
INTB(EW_DEF1B, ISFINITE, 1)
EW_FLOATS(EW_DEF1B, ISPOSINF, isinf(a) && a > 0)
EW_INTB(EW_DEF1B, ISPOSINF, 0)
EW_FLOATS(EW_DEF1B, ISNEGINF, isinf(a) && a < 0)
EW_INTB(EW_DEF1B, ISNEGINF, 0)
EW_FLOATS(EW_DEF1B, SIGNBIT, signbit(a))
EW_INTS(EW_DEF1B, SIGNBIT, a < 0)
EW_BOOLS(EW_DEF1B, SIGNBIT, 0)

/* unary math */
EW_INTS(EW_DEF1, BNOT, ~a)
EW_BOOLS(EW_DEF1, BNOT, !a)
NUMS(EW_DEF1, NEG, -a)
EW_FLOATS(EW_DEF1, ABS, EW_M(fabs, a))
EW_INTS(EW_DEF1, ABS, a < 0 ? -a : a)
EW_FLOATS(EW_DEF1, SIGN, (ctype)((0 < a) - (a < 0)))
EW_INTS(EW_DEF1, SIGN, (ctype)((0 < a) - (a < 0)))
EW_BOOLS(EW_DEF1, SIGN, a)
EW_FLOATS(EW_DEF1, RECIPROCAL, 1 / a)
EW_FLOATS(EW_DEF1, SQRT, EW_M(sqrt, a))
EW_FLOATS(EW_DEF1, RSQRT, 1 / EW_M(sqrt, a))
EW_FLOATS(EW_DEF1, EXP, EW_M(exp, a))
EW_FLOATS(EW_DEF1, EXP2, EW_M(exp2, a))
EW_FLOATS(EW_DEF1, EXPM1, EW_M(expm1, a))
EW_FLOATS(EW_DEF1, LOG, EW_M(log, a))
EW_FLOATS(EW_DEF1, LOG2, EW_M(log2, a))
EW_FLOATS(EW_DEF1, LOG10, EW_M(log10, a))
EW_FLOATS(EW_DEF1, LOG1P, EW_M(log1p, a))
EW_FLOATS(EW_DEF1, SIN, EW_M(sin, a))
EW_FLOATS(EW_DEF1, COS, EW_M(cos, a))
EW_FLOATS(EW_DEF1, TAN, EW_M(tan, a))
EW_FLOATS(EW_DEF1, ASIN, EW_M(asin, a))
EW_FLOATS(EW_DEF1, ACOS, EW_M(acos, a))
EW_FLOATS(EW_DEF1, ATAN, EW_M(atan, a))
EW_FLOATS(EW_DEF1, SINH, EW_M(sinh, a))
EW_FLOATS(EW_DEF1, COSH, EW_M(cosh, a))
EW_FLOATS(EW_DEF1, TANH, EW_M(tanh, a))
EW_FLOATS(EW_DEF1, ASINH, EW_M(asinh, a))
EW_FLOATS(EW_DEF1, ACOSH, EW_M(acosh, a))
EW_FLOATS(EW_DEF1, ATANH, EW_M(atanh, a))
EW_FLOATS(EW_DEF1, ERF, EW_M(erf, a))
EW_FLOATS(EW_DEF1, ERFC, EW_M(erfc, a))
EW_FLOATS(EW_DEF1, ERFINV, _Generic((a), float: mt_sp_erfinvf, default: mt_sp_erfinv)(a))
EW_FLOATS(EW_DEF1, SIGMOID, 1 / (1 + EW_M(exp, -a)))
EW_FLOATS(EW_DEF1, RELU, (a != a || a > 0) ? a : 0)
EW_INTS(EW_DEF1, RELU, a > 0 ? a : 0)
NUMS(EW_DEF2, THRESHOLD_GRAD, a <= p0 ? 0 : b)
EW_FLOATS(EW_DEF1, FLOOR, EW_M(floor, a))
EW_INTS(EW_DEF1, FLOOR, a)
EW_FLOATS(EW_DEF1, CEIL, EW_M(ceil, a))
EW_INTS(EW_DEF1, CEIL, a)
EW_FLOATS(EW_DEF1, ROUND, EW_M(nearbyint, a))
EW_INTS(EW_DEF1, ROUND, a)
EW_FLOATS(EW_DEF1, ROUND_DEC, _Generic((a), float: round_decimalsf, default: round_decimals)(a, ctx->i[0]))
EW_FLOATS(EW_DEF1, TRUNC, EW_M(trunc, a))
EW_INTS(EW_DEF1, TRUNC, a)
EW_FLOATS(EW_DEF1, FRAC, a - EW_M(trunc, a))
EW_FLOATS(EW_DEF1, GELU, EW_GELU(a))
EW_FLOATS(EW_DEF1, SILU, a / (1 + EW_M(exp, -a)))
EW_FLOATS(EW_DEF1, SOFTPLUS, (a * p0) > p1 ? a : EW_M(log1p, EW_M(exp, a * p0)) / p0)
EW_FLOATS(EW_DEF1, ELU, a <= 0 ? (EW_M(exp, a * p2) - 1) * (p0 * p1) : a * p1)
EW_FLOATS(EW_DEF1, LEAKY_RELU, a > 0 ? a : a * p0)
NUMS(EW_DEF1, HARDTANH, a < p0 ? p0 : a > p1 ? p1 : a)
NUMS(EW_DEF1, CLAMP, EW_CLAMP(a))
/* pow with a scalar exponent: PyTorch's special cases (exactly as it computes them) */
EW_FLOATS(EW_DEF1, POW_SQUARE, a *a)
EW_FLOATS(EW_DEF1, POW_CUBE, a *a *a)
EW_FLOATS(EW_DEF1, POW_INV_SQUARE, 1 / (a * a))

/* ternary */
EW_FLOATS(EW_DEF3, LERP, c < 0.5 ? a + c * (b - a) : b - (b - a) * (1 - c))
EW_FLOATS(EW_DEF2, LERP_S, p0 < 0.5 ? a + p0 * (b - a) : b - (b - a) * (1 - p0))
NUMS(EW_DEF3, ADDCMUL, a + p0 * b * c)
EW_FLOATS(EW_DEF3, ADDCDIV, a + p0 * b / c)
ALL(EW_DEFW, WHERE, 0)
/* clang-format on */

/* torch.special */
#include "cpu_ew_special.h"
/* the gamma family (src/ops/gamma.lua) */
#include "cpu_ew_gamma.h"

/* ---- tables: family x dtype -> loop ---------------------------------------------------------- */

#define TABLE(kind, name, ...)                                                                     \
    static const mt_loop_fn tbl_##kind##_##name[MT_NUM_DTYPES] = {__VA_ARGS__};
#define E(kind, fam, SET) SET(EW_ENTRY, kind, fam, 0)
/* one table per declared family */
#define FAMILY_TABLE(F, kind, SET) TABLE(kind, F, E(kind, F, SET))
MT_EW_FAMILIES(FAMILY_TABLE)
/* the CPU's own variants of declared families (picked by cpu_ew.c) */
TABLE(b, DIV_TRUNC, E(b, DIV_TRUNC, NUMS))
TABLE(b, ADD_ALPHA, E(b, ADD_ALPHA, ALL))
TABLE(b, SUB_ALPHA, E(b, SUB_ALPHA, NUMS))
TABLE(b, RSUB_ALPHA, E(b, RSUB_ALPHA, NUMS))
TABLE(b, LERP_S, E(b, LERP_S, EW_FLOATS))
TABLE(u, POW_SQUARE, E(u, POW_SQUARE, EW_FLOATS))
TABLE(u, POW_CUBE, E(u, POW_CUBE, EW_FLOATS))
TABLE(u, POW_INV_SQUARE, E(u, POW_INV_SQUARE, EW_FLOATS))

static const mt_loop_fn *family_table(int fam) {
    switch (fam) {
#define CASE(F, kind, SET)                                                                         \
    case MT_F_##F:                                                                                 \
        return tbl_##kind##_##F;
        MT_EW_FAMILIES(CASE)
#undef CASE
    default:
        return NULL;
    }
}

const mt_loop_fn *MT_EW_VARIANT(int fam) {
    switch (fam) {
    case MT_CPU_EW_DIV_TRUNC:
        return tbl_b_DIV_TRUNC;
    case MT_CPU_EW_ADD_ALPHA:
        return tbl_b_ADD_ALPHA;
    case MT_CPU_EW_SUB_ALPHA:
        return tbl_b_SUB_ALPHA;
    case MT_CPU_EW_RSUB_ALPHA:
        return tbl_b_RSUB_ALPHA;
    case MT_CPU_EW_LERP_SCALAR:
        return tbl_b_LERP_S;
    case MT_CPU_EW_POW_SQUARE:
        return tbl_u_POW_SQUARE;
    case MT_CPU_EW_POW_CUBE:
        return tbl_u_POW_CUBE;
    case MT_CPU_EW_POW_INV_SQUARE:
        return tbl_u_POW_INV_SQUARE;
    default:
        return family_table(fam);
    }
}
