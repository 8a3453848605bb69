// ck_common.cuh: what every kernel family uses: reading an element of any dtype into a compute
// type and writing one back (through mt_half.h for float16 and bfloat16), the math functions of
// each compute type, NaN tests, atomic addition into an element, the extremes of each type.
#include "../../common/special_scalar.h" // the special functions, as the CPU computes them

template <typename T> __device__ static inline T load(const ck_operand &o, int64_t off) {
    const char *p = (const char *)(uintptr_t)o.ptr;
    switch (o.dtype) {
    case CK_BOOL:
        return (T)(((const uint8_t *)p)[off] != 0);
    case CK_UINT8:
        return (T)((const uint8_t *)p)[off];
    case CK_INT8:
        return (T)((const int8_t *)p)[off];
    case CK_INT16:
        return (T)((const int16_t *)p)[off];
    case CK_INT32:
        return (T)((const int32_t *)p)[off];
    case CK_INT64:
        return (T)((const int64_t *)p)[off];
    case CK_FLOAT16:
        return (T)mt_f16_to_f32(((const uint16_t *)p)[off]);
    case CK_BFLOAT16:
        return (T)mt_bf16_to_f32(((const uint16_t *)p)[off]);
    case CK_FLOAT32:
        return (T)((const float *)p)[off];
    default:
        return (T)((const double *)p)[off];
    }
}

template <typename T> __device__ static inline void store(const ck_operand &o, int64_t off, T v) {
    char *p = (char *)(uintptr_t)o.ptr;
    switch (o.dtype) {
    case CK_BOOL:
        ((uint8_t *)p)[off] = v != (T)0;
        break;
    case CK_UINT8:
        ((uint8_t *)p)[off] = (uint8_t)(int64_t)v;
        break;
    case CK_INT8:
        ((int8_t *)p)[off] = (int8_t)(int64_t)v;
        break;
    case CK_INT16:
        ((int16_t *)p)[off] = (int16_t)(int64_t)v;
        break;
    case CK_INT32:
        ((int32_t *)p)[off] = (int32_t)(int64_t)v;
        break;
    case CK_INT64:
        ((int64_t *)p)[off] = (int64_t)v;
        break;
    case CK_FLOAT16:
        ((uint16_t *)p)[off] = mt_f32_to_f16((float)v);
        break;
    case CK_BFLOAT16:
        ((uint16_t *)p)[off] = mt_f32_to_bf16((float)v);
        break;
    case CK_FLOAT32:
        ((float *)p)[off] = (float)v;
        break;
    default:
        ((double *)p)[off] = (double)v;
    }
}

// v rounded to float16 or bfloat16 (dt) and back: an operand converted to the common dtype
template <typename T> __device__ static inline T round_as(int32_t dt, T v) {
    float f = (float)v;
    return (T)(dt == CK_FLOAT16 ? mt_f16_to_f32(mt_f32_to_f16(f))
                                : mt_bf16_to_f32(mt_f32_to_bf16(f)));
}

// the math functions of each compute type: float, double, and int64 (whose floating functions
// are never reached: an integer input of one gives a float result, computed in float)
#define CK_MATH(name, ffn, dfn)                                                                    \
    __device__ static inline float m_##name(float x) {                                             \
        return ffn(x);                                                                             \
    }                                                                                              \
    __device__ static inline double m_##name(double x) {                                           \
        return dfn(x);                                                                             \
    }                                                                                              \
    __device__ static inline int64_t m_##name(int64_t x) {                                         \
        return x;                                                                                  \
    }
CK_MATH(exp, expf, exp)
CK_MATH(exp2, exp2f, exp2)
CK_MATH(expm1, expm1f, expm1)
CK_MATH(log, logf, log)
CK_MATH(log2, log2f, log2)
CK_MATH(log10, log10f, log10)
CK_MATH(log1p, log1pf, log1p)
CK_MATH(sqrt, sqrtf, sqrt)
CK_MATH(sin, sinf, sin)
CK_MATH(cos, cosf, cos)
CK_MATH(tan, tanf, tan)
CK_MATH(asin, asinf, asin)
CK_MATH(acos, acosf, acos)
CK_MATH(atan, atanf, atan)
CK_MATH(sinh, sinhf, sinh)
CK_MATH(cosh, coshf, cosh)
CK_MATH(tanh, tanhf, tanh)
CK_MATH(asinh, asinhf, asinh)
CK_MATH(acosh, acoshf, acosh)
CK_MATH(atanh, atanhf, atanh)
CK_MATH(erf, erff, erf)
CK_MATH(erfc, erfcf, erfc)
CK_MATH(trunc, truncf, trunc)
CK_MATH(floor, floorf, floor)
CK_MATH(ceil, ceilf, ceil)
CK_MATH(round, rintf, rint) // halves to even, as torch.round
#undef CK_MATH

__device__ static inline float m_fma(float x, float y, float z) {
    return fmaf(x, y, z);
}
__device__ static inline double m_fma(double x, double y, double z) {
    return fma(x, y, z);
}
__device__ static inline int64_t m_fma(int64_t x, int64_t y, int64_t z) {
    return x * y + z;
}
__device__ static inline float m_pow(float x, float y) {
    return powf(x, y);
}
__device__ static inline double m_pow(double x, double y) {
    return pow(x, y);
}
// integer powers by squaring (negative exponents are refused before the launch, but 1 and -1)
__device__ static inline int64_t m_pow(int64_t x, int64_t y) {
    if (y < 0) return x == 1 ? 1 : x == -1 ? (y % 2 ? -1 : 1) : 0;
    int64_t r = 1;
    while (y) {
        if (y & 1) r *= x;
        x *= x;
        y >>= 1;
    }
    return r;
}
__device__ static inline float m_atan2(float y, float x) {
    return atan2f(y, x);
}
__device__ static inline double m_atan2(double y, double x) {
    return atan2(y, x);
}
__device__ static inline int64_t m_atan2(int64_t y, int64_t x) {
    return 0;
}
// C's fmod (the dividend's sign); an integer divisor of 0 gives 0 (PyTorch's CPU raises, its
// CUDA kernels give an unspecified value: here never a trap)
__device__ static inline float m_fmod(float x, float y) {
    return fmodf(x, y);
}
__device__ static inline double m_fmod(double x, double y) {
    return fmod(x, y);
}
__device__ static inline int64_t m_fmod(int64_t x, int64_t y) {
    return y == 0 || (y == -1 && x == INT64_MIN) ? 0 : x % y;
}
// two-argument functions of the float types; the int64 forms are those of PyTorch's integer
// kernels where there is one (fmax, fmin), else never reached (integers give float results)
#define CK_MATH2(name, ffn, dfn, iexpr)                                                            \
    __device__ static inline float m_##name(float x, float y) {                                    \
        return ffn(x, y);                                                                          \
    }                                                                                              \
    __device__ static inline double m_##name(double x, double y) {                                 \
        return dfn(x, y);                                                                          \
    }                                                                                              \
    __device__ static inline int64_t m_##name(int64_t x, int64_t y) {                              \
        return iexpr;                                                                              \
    }
CK_MATH2(fmax, fmaxf, fmax, x > y ? x : y)
CK_MATH2(fmin, fminf, fmin, x < y ? x : y)
CK_MATH2(hypot, hypotf, hypot, 0)
CK_MATH2(copysign, copysignf, copysign, 0)
CK_MATH2(nextafter, nextafterf, nextafter, 0)
#undef CK_MATH2
__device__ static inline bool m_signbit(float x) {
    return signbit(x);
}
__device__ static inline bool m_signbit(double x) {
    return signbit(x);
}
__device__ static inline bool m_signbit(int64_t x) {
    return x < 0;
}
// the bitwise operations of integers and bools; no float type reaches them
template <typename T> __device__ static inline T m_bitwise(int op, T x, T y, T width) {
    return x;
}
template <>
__device__ inline int64_t m_bitwise<int64_t>(int op, int64_t x, int64_t y, int64_t width) {
    switch (op) {
    case CK_BAND:
        return x & y;
    case CK_BOR:
        return x | y;
    case CK_BXOR:
        return x ^ y;
    case CK_BNOT: // bool's not is !x; the host gives bool width 1
        return width == 1 ? !x : ~x;
    case CK_SHL:
        return width == 64 ? (int64_t)((uint64_t)x << (y & 63))
                           : (int64_t)((uint32_t)x << (y & 31));
    default: // CK_SHR, arithmetic
        return width == 64 ? x >> (y & 63) : (int64_t)((int32_t)x >> (y & 31));
    }
}

// floor division (self // other)
__device__ static inline float m_floordiv(float x, float y) {
    return floorf(x / y);
}
__device__ static inline double m_floordiv(double x, double y) {
    return floor(x / y);
}
__device__ static inline int64_t m_floordiv(int64_t x, int64_t y) {
    if (y == 0 || (y == -1 && x == INT64_MIN)) return 0;
    int64_t q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}

// The special functions: backends/common/special_scalar.h's formulas, which the CPU computes too,
// so the two agree to rounding: those of double (lgamma, digamma, polygamma, the unary and binary
// families by number) rounded once for float; erfinv, entr, xlog1py and the polynomials in the
// type itself. Float and double only: their results are floating (ck_ew_special_*).
#define CK_PI MT_SP_PI
__device__ static inline float m_lgamma(float x) {
    return (float)lgamma((double)x);
}
__device__ static inline double m_lgamma(double x) {
    return lgamma(x);
}
__device__ static inline double m_digamma(double x) {
    return mt_sp_digamma(x);
}
__device__ static inline float m_digamma(float x) {
    return (float)mt_sp_digamma((double)x);
}
__device__ static inline double m_polygamma(double n, double x) {
    return mt_sp_polygamma((int64_t)n, x);
}
__device__ static inline float m_polygamma(float n, float x) {
    return (float)mt_sp_polygamma((int64_t)n, (double)x);
}
__device__ static inline float m_erfinv(float x) {
    return mt_sp_erfinvf(x);
}
__device__ static inline double m_erfinv(double x) {
    return mt_sp_erfinv(x);
}
// f(x) and f(a, b) of special_scalar.h's families by number, in double
template <typename T> __device__ static inline T m_special(int which, T x) {
    return (T)mt_sp_unary(which, (double)x);
}
template <typename T> __device__ static inline T m_special2(int which, T a, T b) {
    return (T)mt_sp_binary(which, (double)a, (double)b);
}
// the in-type ones: a float and a double form each
__device__ static inline float m_entr(float x) {
    return mt_sp_entrf(x);
}
__device__ static inline double m_entr(double x) {
    return mt_sp_entrd(x);
}
__device__ static inline float m_xlog1py(float x, float y) {
    return mt_sp_xlog1pyf(x, y);
}
__device__ static inline double m_xlog1py(double x, double y) {
    return mt_sp_xlog1pyd(x, y);
}
__device__ static inline float m_poly(int which, float x, float n) {
    return mt_sp_polyf(which, x, n);
}
__device__ static inline double m_poly(int which, double x, double n) {
    return mt_sp_polyd(which, x, n);
}

// division rounded toward zero; an integer divisor of 0 gives 0 as above, -1 negates with wrap
__device__ static inline float m_truncdiv(float x, float y) {
    return truncf(x / y);
}
__device__ static inline double m_truncdiv(double x, double y) {
    return trunc(x / y);
}
__device__ static inline int64_t m_truncdiv(int64_t x, int64_t y) {
    return y == 0 ? 0 : y == -1 ? (int64_t)(0 - (uint64_t)x) : x / y;
}

template <typename T> __device__ static inline bool is_nan(T x) {
    return x != x;
}
// the neighbouring bfloat16 of x toward y: the upper 16 bits of x's float stepped (sign and
// magnitude order like the integers), as the CPU's; float's own neighbour would not be one
__device__ static inline float m_nextafter_bf16(float x, float y) {
    if (is_nan(x) || is_nan(y)) return x + y;
    if (x == y) return y;
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    if (x == 0.0f)
        bits = y > 0.0f ? 0x00010000u : 0x80010000u;
    else
        bits = (x < y) == (x > 0.0f) ? bits + 0x10000u : bits - 0x10000u;
    float r;
    memcpy(&r, &bits, sizeof r);
    return r;
}
// gcd and lcm of integers (the float forms are never reached: the meta function refuses them)
__device__ static inline int64_t m_gcd(int64_t a, int64_t b) {
    return mt_sp_gcd(a, b); // special_scalar.h's, as the CPU computes it
}
__device__ static inline int64_t m_lcm(int64_t a, int64_t b) {
    return mt_sp_lcm(a, b);
}
template <typename T> __device__ static inline T m_gcd(T, T) {
    return (T)0;
}
template <typename T> __device__ static inline T m_lcm(T, T) {
    return (T)0;
}

// the narrow element `bits` (its dtype's raw bits) plus v, as raw bits: integers wrap as two's
// complement does, bool is an or, the half types add in float and round once, as the CPU's
// element-by-element addition
template <typename T>
__device__ static inline unsigned int narrow_sum(int dtype, unsigned int bits, T v) {
    switch (dtype) {
    case CK_BOOL:
        return bits != 0 || v != (T)0;
    case CK_FLOAT16:
        return mt_f32_to_f16(mt_f16_to_f32((uint16_t)bits) + (float)v);
    case CK_BFLOAT16:
        return mt_f32_to_bf16(mt_bf16_to_f32((uint16_t)bits) + (float)v);
    default:
        return bits + (unsigned int)(uint64_t)(int64_t)v;
    }
}

// a narrow element (1 or 2 bytes) += v: no atomic addition is that narrow, so the 32-bit word
// that holds it is swapped in whole, retried while another thread changed the word meanwhile
// (its other bytes included). The element never straddles two words (it is aligned to its size)
// and the word lies inside the allocation (allocations are rounded to 512 bytes).
template <typename T>
__device__ static inline void add_narrow(const ck_operand &o, int64_t off, T v) {
    int size = o.dtype == CK_INT16 || o.dtype == CK_FLOAT16 || o.dtype == CK_BFLOAT16 ? 2 : 1;
    uintptr_t at = (uintptr_t)o.ptr + (uintptr_t)(off * size);
    unsigned int *word = (unsigned int *)(at & ~(uintptr_t)3);
    unsigned int shift = (unsigned int)(at & 3) * 8, lane = size == 1 ? 0xffu : 0xffffu;
    unsigned int old = *word, seen;
    do {
        seen = old;
        unsigned int bits = narrow_sum<T>(o.dtype, (seen >> shift) & lane, v) & lane;
        old = atomicCAS(word, seen, (seen & ~(lane << shift)) | (bits << shift));
    } while (old != seen);
}

// dst element += v, atomically (float32, float64, int32; int64 as its two's complement; the
// 8- and 16-bit types through their word)
template <typename T> __device__ static inline void add_at(const ck_operand &o, int64_t off, T v) {
    char *p = (char *)(uintptr_t)o.ptr;
    switch (o.dtype) {
    case CK_FLOAT32:
        atomicAdd((float *)p + off, (float)v);
        break;
    case CK_FLOAT64:
        atomicAdd((double *)p + off, (double)v);
        break;
    case CK_INT32:
        atomicAdd((int *)p + off, (int)v);
        break;
    case CK_INT64: // two's complement addition is the unsigned one
        atomicAdd((unsigned long long *)p + off, (unsigned long long)(int64_t)v);
        break;
    default:
        add_narrow<T>(o, off, v);
    }
}

// the identity of max and min in each compute type
template <typename T> struct extremes;
template <> struct extremes<float> {
    __device__ static float lowest() { return -INFINITY; }
    __device__ static float highest() { return INFINITY; }
};
template <> struct extremes<double> {
    __device__ static double lowest() { return -INFINITY; }
    __device__ static double highest() { return INFINITY; }
};
template <> struct extremes<int64_t> {
    __device__ static int64_t lowest() { return INT64_MIN; }
    __device__ static int64_t highest() { return INT64_MAX; }
};
