// ck_elementwise.cuh: the element-wise kernels of the CUDA module: one grid-stride loop over the
// result's elements, each operand read through its own strides (broadcast dimensions have stride
// 0) and converted to the compute type, the operation applied, the value converted to the
// result's dtype. Three kernels, one per compute type (float for float32, float16 and bfloat16,
// as PyTorch's opmath; double; int64 for integers and bool); the operation and dtypes are
// arguments (ck_args.h), uniform across a launch.
template <typename T> __device__ static inline T apply(int op, T x, T y, T z, T alpha, T s1, T s2) {
    switch (op) {
    case CK_COPY:
        return x;
    case CK_FILL:
        return s1;
    case CK_ADD:
        return x + alpha * y;
    case CK_SUB:
        return x - alpha * y;
    case CK_RSUB:
        return y - alpha * x;
    case CK_MUL:
        return x * y;
    case CK_DIV:
        return x / y;
    case CK_MAXIMUM:
        return is_nan(x) ? x : is_nan(y) ? y : x > y ? x : y;
    case CK_MINIMUM:
        return is_nan(x) ? x : is_nan(y) ? y : x < y ? x : y;
    case CK_EQ:
        return (T)(x == y);
    case CK_NE:
        return (T)(x != y);
    case CK_LT:
        return (T)(x < y);
    case CK_LE:
        return (T)(x <= y);
    case CK_GT:
        return (T)(x > y);
    case CK_GE:
        return (T)(x >= y);
    case CK_NEG:
        return -x;
    case CK_ABS:
        return x < (T)0 ? -x : x;
    case CK_EXP:
        return m_exp(x);
    case CK_LOG:
        return m_log(x);
    case CK_SQRT:
        return m_sqrt(x);
    case CK_RELU:
        return is_nan(x) || x > (T)0 ? x : (T)0;
    case CK_SIGMOID:
        return (T)1 / ((T)1 + m_exp(-x));
    case CK_TANH:
        return m_tanh(x);
    case CK_LOGICAL_NOT:
        return (T)(x == (T)0);
    case CK_WHERE:
        return x != (T)0 ? y : z;
    case CK_ADDCMUL:
        return x + alpha * y * z;
    case CK_ADDCDIV:
        return x + alpha * y / z;
    case CK_MASKED_FILL:
        return y != (T)0 ? s1 : x;
    case CK_POW:
        return m_pow(x, y);
    case CK_GELU:
        if (s1 == (T)0) return x * (T)0.5 * ((T)1 + m_erf(x * (T)0.70710678118654752440));
        return (T)0.5 * x *
               ((T)1 + m_tanh((T)0.79788456080286535588 * (x + (T)0.044715 * x * x * x)));
    case CK_ERF:
        return m_erf(x);
    case CK_SILU:
        return x / ((T)1 + m_exp(-x));
    case CK_SIN:
        return m_sin(x);
    case CK_COS:
        return m_cos(x);
    case CK_RSQRT:
        return (T)1 / m_sqrt(x);
    case CK_RECIPROCAL:
        return (T)1 / x;
    case CK_LOG1P:
        return m_log1p(x);
    case CK_EXPM1:
        return m_expm1(x);
#define CK_UNARY_CASE(OP, fn)                                                                      \
    case OP:                                                                                       \
        return fn(x);
        CK_UNARY_CASE(CK_EXP2, m_exp2)
        CK_UNARY_CASE(CK_LOG2, m_log2)
        CK_UNARY_CASE(CK_LOG10, m_log10)
        CK_UNARY_CASE(CK_TAN, m_tan)
        CK_UNARY_CASE(CK_ASIN, m_asin)
        CK_UNARY_CASE(CK_ACOS, m_acos)
        CK_UNARY_CASE(CK_ATAN, m_atan)
        CK_UNARY_CASE(CK_SINH, m_sinh)
        CK_UNARY_CASE(CK_COSH, m_cosh)
        CK_UNARY_CASE(CK_ASINH, m_asinh)
        CK_UNARY_CASE(CK_ACOSH, m_acosh)
        CK_UNARY_CASE(CK_ATANH, m_atanh)
        CK_UNARY_CASE(CK_ERFC, m_erfc)
        CK_UNARY_CASE(CK_TRUNC, m_trunc)
        CK_UNARY_CASE(CK_FLOOR, m_floor)
        CK_UNARY_CASE(CK_CEIL, m_ceil)
        CK_UNARY_CASE(CK_ROUND, m_round)
#undef CK_UNARY_CASE
    case CK_FRAC:
        return x - m_trunc(x);
    case CK_ATAN2:
        return m_atan2(x, y);
    case CK_FMOD:
        return m_fmod(x, y);
    case CK_REMAINDER: {
        T r = m_fmod(x, y);
        return r != (T)0 && ((r < (T)0) != (y < (T)0)) ? r + y : r;
    }
    case CK_FLOOR_DIVIDE:
        return m_floordiv(x, y);
    case CK_TRUNC_DIVIDE:
        return m_truncdiv(x, y);
    case CK_LERP: // PyTorch's two forms, exact at both ends
        return z < (T)0.5 ? x + z * (y - x) : y - (y - x) * ((T)1 - z);
    case CK_CLAMP: // min(max(x, lo), hi): hi wins when lo > hi
        if (is_nan(x)) return x;
        x = x < alpha ? alpha : x;
        return x > s1 ? s1 : x;
    case CK_LEAKY_RELU:
        return x > (T)0 ? x : x * s1;
    case CK_SOFTPLUS:
        return x * alpha > s1 ? x : m_log1p(m_exp(x * alpha)) / alpha;
    case CK_ISNAN:
        return (T)is_nan(x);
    case CK_ISINF: // inf - inf is NaN; an integer minus itself is 0
        return (T)(!is_nan(x) && is_nan(x - x));
    case CK_ISFINITE:
        return (T)(x - x == (T)0);
    case CK_LAND:
        return (T)(x != (T)0 && y != (T)0);
    case CK_LOR:
        return (T)(x != (T)0 || y != (T)0);
    case CK_LXOR:
        return (T)((x != (T)0) != (y != (T)0));
    case CK_ELU:
        return x <= (T)0 ? (m_exp(x * s2) - (T)1) * alpha : x * s1;
    case CK_HARDSHRINK:
        return x >= -s1 && x <= s1 ? (T)0 : x;
    case CK_LOGIT:
        if (alpha != (T)0) x = x < s1 ? s1 : x > (T)1 - s1 ? (T)1 - s1 : x;
        return x == (T)1 ? extremes<T>::highest() : m_log(x / ((T)1 - x));
    case CK_FMAX:
        return m_fmax(x, y);
    case CK_FMIN:
        return m_fmin(x, y);
    case CK_HYPOT:
        return m_hypot(x, y);
    case CK_LOGADDEXP: // from the larger one; equal infinities give themselves
    case CK_LOGADDEXP2: {
        if (!is_nan(x) && is_nan(x - x) && x == y) return x;
        T big = x > y ? x : y, d = x > y ? x - y : y - x;
        if (op == CK_LOGADDEXP) return big + m_log1p(m_exp(-d));
        return big + m_log1p(m_exp2(-d)) * (T)1.4426950408889634;
    }
    case CK_COPYSIGN:
        return m_copysign(x, y);
    case CK_NEXTAFTER:
        return s2 != 0 ? (T)m_nextafter_bf16((float)x, (float)y) : m_nextafter(x, y);
    case CK_GCD:
        return m_gcd(x, y);
    case CK_LCM:
        return m_lcm(x, y);
    case CK_XLOGY:
        return is_nan(y) ? y : x == (T)0 ? (T)0 : x * m_log(y);
    case CK_HEAVISIDE:
        return x == (T)0 ? y : (T)(x > (T)0);
    case CK_ISPOSINF:
        return (T)(!is_nan(x) && is_nan(x - x) && x > (T)0);
    case CK_ISNEGINF:
        return (T)(!is_nan(x) && is_nan(x - x) && x < (T)0);
    case CK_SIGNBIT:
        return (T)m_signbit(x);
    case CK_SINC: {
        if (x == (T)0) return (T)1;
        T px = (T)CK_PI * x;
        return m_sin(px) / px;
    }
    case CK_BAND:
    case CK_BOR:
    case CK_BXOR:
    case CK_BNOT:
    case CK_SHL:
    case CK_SHR:
        return m_bitwise<T>(op, x, y, s2);
    case CK_SIGN: // NaN gives 0, as PyTorch's (0 < x) - (x < 0)
        return (T)((x > (T)0) - (x < (T)0));
    default:
        return x;
    }
}

// The special functions (special_scalar.h's), apart from apply(): their code is large, and in
// the common kernels it would cost every element-wise op registers and stack (ck_ew_special_*)
template <typename T>
__device__ static inline T apply_special(int op, T x, T y, T alpha, T s1, T s2) {
    switch (op) {
    case CK_LGAMMA:
        return m_lgamma(x);
    case CK_DIGAMMA:
        return m_digamma(x);
    case CK_ERFINV:
        return m_erfinv(x);
    case CK_POLYGAMMA:
        return m_polygamma(s1, x);
    case CK_SPECIAL:
        return m_special<T>((int)s2, x);
    case CK_SPECIAL2:
        return m_special2<T>((int)s2, x, y);
    case CK_POLY:
        return m_poly((int)s2, x, y);
    case CK_ENTR:
        return m_entr(x);
    case CK_XLOG1PY:
        return m_xlog1py(x, y);
    case CK_NDTR: { // PyTorch's composition: each step of a half type is an op of its own there
        int dt = (int)s2;
#define CK_NDTR_STEP(v) (dt ? round_as<T>(dt, v) : (v))
        return MT_SP_NDTR(T, x, CK_NDTR_STEP, m_erf);
#undef CK_NDTR_STEP
    }
    default:
        return x;
    }
}

// element i of arange, linspace or logspace (PyTorch's: linspace counts up from the start for
// the first half and down from the end for the second, fused, so both ends are exact)
template <typename T>
__device__ static inline T sequence(const ck_ew_args &a, int64_t i, T alpha, T s1) {
    if (a.op == CK_ARANGE) return s1 + alpha * (T)i;
    int64_t half = a.n / 2, back = a.n - 1 - i;
    if (a.op == CK_LINSPACE) {
        if (a.n == 1) return s1;
        return i < half ? m_fma(alpha, (T)i, s1) : m_fma(-alpha, (T)back, (T)a.s2);
    }
    double x = i < half ? a.s1 + a.alpha * (double)i : a.s2 - a.alpha * (double)back;
    return (T)pow(a.s3, a.n == 1 ? a.s1 : x);
}

// the condition of where() is read as bool whatever the compute type
template <typename T, bool SPECIAL>
__device__ static inline void ew_loop(const ck_ew_args &a, T alpha, T s1, T s2) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        int64_t off[CK_MAX_OPERANDS] = {i, i, i, i};
        if (!a.linear) {
            for (int k = 0; k <= a.nin; k++) off[k] = 0;
            int64_t r = i;
            for (int d = a.ndim - 1; d >= 0; d--) {
                int64_t idx = r % a.sizes[d];
                r /= a.sizes[d];
                for (int k = 0; k <= a.nin; k++) off[k] += idx * a.o[k].strides[d];
            }
        }
        if (a.op == CK_ARANGE || a.op == CK_LINSPACE || a.op == CK_LOGSPACE) {
            store<T>(a.o[0], off[0], sequence<T>(a, i, alpha, s1));
            continue;
        }
        T x = a.nin >= 1 ? load<T>(a.o[1], off[1]) : (T)0;
        T y = a.scalar_in2 ? s1 : a.nin >= 2 ? load<T>(a.o[2], off[2]) : (T)0;
        T z = a.nin >= 3 ? load<T>(a.o[3], off[3]) : (T)0;
        if (a.round_to) {
            x = round_as<T>(a.round_to, x);
            if (!a.scalar_in2) y = round_as<T>(a.round_to, y);
            z = round_as<T>(a.round_to, z);
        }
        if constexpr (SPECIAL)
            store<T>(a.o[0], off[0], apply_special<T>(a.op, x, y, alpha, s1, s2));
        else
            store<T>(a.o[0], off[0], apply<T>(a.op, x, y, z, alpha, s1, s2));
    }
}

// Every operand contiguous float32 and 16-byte aligned (the host checks): four elements a step
// through float4 loads and stores, the operation fixed for the loop (OP < 0: read from the
// arguments), the last n % 4 elements one at a time.
template <int OP> __device__ static inline void dense_f32(const ck_ew_args &a) {
    int op = OP < 0 ? a.op : OP;
    float alpha = (float)a.alpha, s1 = (float)a.s1, s2 = (float)a.s2;
    const float4 *x = (const float4 *)(uintptr_t)a.o[1].ptr,
                 *y = (const float4 *)(uintptr_t)a.o[2].ptr,
                 *z = (const float4 *)(uintptr_t)a.o[3].ptr;
    float4 *out = (float4 *)(uintptr_t)a.o[0].ptr;
    bool two = a.nin >= 2 && !a.scalar_in2;
    int64_t n4 = a.n / 4, step = (int64_t)gridDim.x * blockDim.x;
    int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t i = first; i < n4; i += step) {
        float4 u = a.nin >= 1 ? x[i] : make_float4(0, 0, 0, 0);
        float4 v = two ? y[i] : make_float4(s1, s1, s1, s1);
        float4 w = a.nin >= 3 ? z[i] : make_float4(0, 0, 0, 0), r;
        r.x = apply<float>(op, u.x, v.x, w.x, alpha, s1, s2);
        r.y = apply<float>(op, u.y, v.y, w.y, alpha, s1, s2);
        r.z = apply<float>(op, u.z, v.z, w.z, alpha, s1, s2);
        r.w = apply<float>(op, u.w, v.w, w.w, alpha, s1, s2);
        out[i] = r;
    }
    const float *xs = (const float *)x, *ys = (const float *)y, *zs = (const float *)z;
    for (int64_t i = n4 * 4 + first; i < a.n; i += step)
        ((float *)out)[i] = apply<float>(op, a.nin >= 1 ? xs[i] : 0.0f, two ? ys[i] : s1,
                                         a.nin >= 3 ? zs[i] : 0.0f, alpha, s1, s2);
}

CK_KERNEL(ck_ew_dense_f32, ck_ew_args) {
    switch (a.op) { // the common ones compiled for their operation alone
    case CK_COPY:
        dense_f32<CK_COPY>(a);
        break;
    case CK_ADD:
        dense_f32<CK_ADD>(a);
        break;
    case CK_SUB:
        dense_f32<CK_SUB>(a);
        break;
    case CK_MUL:
        dense_f32<CK_MUL>(a);
        break;
    case CK_DIV:
        dense_f32<CK_DIV>(a);
        break;
    case CK_RELU:
        dense_f32<CK_RELU>(a);
        break;
    case CK_ADDCMUL:
        dense_f32<CK_ADDCMUL>(a);
        break;
    default:
        dense_f32<-1>(a);
    }
}

CK_KERNEL(ck_ew_f32, ck_ew_args) {
    ew_loop<float, false>(a, (float)a.alpha, (float)a.s1, (float)a.s2);
}
CK_KERNEL(ck_ew_f64, ck_ew_args) {
    ew_loop<double, false>(a, a.alpha, a.s1, a.s2);
}
CK_KERNEL(ck_ew_i64, ck_ew_args) {
    ew_loop<int64_t, false>(a, a.ialpha, a.is1, (int64_t)a.s2);
}
// the special functions (their results are floating: no int64 form)
CK_KERNEL(ck_ew_special_f32, ck_ew_args) {
    ew_loop<float, true>(a, (float)a.alpha, (float)a.s1, (float)a.s2);
}
CK_KERNEL(ck_ew_special_f64, ck_ew_args) {
    ew_loop<double, true>(a, a.alpha, a.s1, a.s2);
}
