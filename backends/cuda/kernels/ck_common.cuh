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

// the math functions of each compute type
__device__ static inline float m_exp(float x) {
    return expf(x);
}
__device__ static inline double m_exp(double x) {
    return exp(x);
}
__device__ static inline float m_log(float x) {
    return logf(x);
}
__device__ static inline double m_log(double x) {
    return log(x);
}
__device__ static inline float m_sqrt(float x) {
    return sqrtf(x);
}
__device__ static inline double m_sqrt(double x) {
    return sqrt(x);
}
__device__ static inline float m_tanh(float x) {
    return tanhf(x);
}
__device__ static inline double m_tanh(double x) {
    return tanh(x);
}
__device__ static inline float m_erf(float x) {
    return erff(x);
}
__device__ static inline double m_erf(double x) {
    return erf(x);
}
__device__ static inline float m_sin(float x) {
    return sinf(x);
}
__device__ static inline double m_sin(double x) {
    return sin(x);
}
__device__ static inline float m_cos(float x) {
    return cosf(x);
}
__device__ static inline double m_cos(double x) {
    return cos(x);
}
__device__ static inline float m_log1p(float x) {
    return log1pf(x);
}
__device__ static inline double m_log1p(double x) {
    return log1p(x);
}
__device__ static inline float m_expm1(float x) {
    return expm1f(x);
}
__device__ static inline double m_expm1(double x) {
    return expm1(x);
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
// integers take no transcendental operation (the result is floating): these are never reached
__device__ static inline int64_t m_exp(int64_t x) {
    return x;
}
__device__ static inline int64_t m_log(int64_t x) {
    return x;
}
__device__ static inline int64_t m_sqrt(int64_t x) {
    return x;
}
__device__ static inline int64_t m_tanh(int64_t x) {
    return x;
}
__device__ static inline int64_t m_erf(int64_t x) {
    return x;
}
__device__ static inline int64_t m_sin(int64_t x) {
    return x;
}
__device__ static inline int64_t m_cos(int64_t x) {
    return x;
}
__device__ static inline int64_t m_log1p(int64_t x) {
    return x;
}
__device__ static inline int64_t m_expm1(int64_t x) {
    return x;
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
