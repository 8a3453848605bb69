// ck_common.cuh: what every kernel family uses: reading an element of any dtype into a compute
// type and writing one back (through mt_half.h for float16 and bfloat16), the math functions of
// each compute type, NaN tests, atomic addition into an element, the extremes of each type.
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

// dst element += v, atomically (float32, float64, int32; int64 as its two's complement)
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
    default: // int64: two's complement addition is the unsigned one
        atomicAdd((unsigned long long *)p + off, (unsigned long long)(int64_t)v);
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
