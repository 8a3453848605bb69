/* cpu_ew_special.h: the scalar bodies of torch.special's element-wise families
 * (src/ops/special.lua), included by cpu_ew_families.c inside its list of families.
 *
 * Most are computed in double and rounded once for float32 (PyTorch computes float32 in float:
 * its results lie within a few ulp of these); those whose results PyTorch defines by its own
 * arithmetic (ndtr's composition, xlog1py, entr, the polynomial recurrences) are computed in
 * the type as PyTorch does. The methods are the textbook ones, cited where they are used. */

#include "special_scalar.h" /* what the CUDA kernels compute too: trigamma, zeta */

#define SP_PI 3.14159265358979323846
#define SP_SQRT_PI 1.77245385090551602730
#define SP_SQRT_2PI 2.50662827463100050242
#define SP_EULER 0.57721566490153286061

/* exp(x * x) without the rounding error of x * x (its low part by fma) */
static inline double sp_exp_sq(double x) {
    double hi = x * x, lo = fma(x, x, -hi), e = exp(hi);
    return e + e * lo;
}

/* exp(x^2) erfc(x): the product directly while erfc(x) is a normal number, the asymptotic
 * series 1/(x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k above (A&S 7.1.23), and
 * erfcx(x) = 2 exp(x^2) - erfcx(-x) for negative x */
static double sp_erfcx(double x) {
    if (isnan(x)) return x;
    if (x < 0) {
        if (x * x > 709.7) return INFINITY;
        return 2 * sp_exp_sq(x) - sp_erfcx(-x);
    }
    if (x < 26) return sp_exp_sq(x) * erfc(x);
    if (x > 1e8) return (1 / SP_SQRT_PI) / x;
    double z = 1 / (2 * x * x), term = 1, sum = 1;
    for (int k = 1; k <= 12; k++) {
        term *= -(2 * k - 1) * z;
        sum += term;
    }
    return sum / (x * SP_SQRT_PI);
}

/* log(ndtr(x)) as PyTorch splits it: through erfcx below -1 (no underflow), log1p above */
static double sp_log_ndtr(double x) {
    double t = x * M_SQRT1_2;
    if (x < -1) return log(sp_erfcx(-t) / 2) - t * t;
    return log1p(-erfc(t) / 2);
}

/* The normal quantile: sqrt(2) erfinv(2p - 1) in the centre; in the tails the rational guess of
 * A&S 26.2.23 refined by Halley steps on ndtr(x) = q, with q the smaller tail (exact: 1 - p) */
static double sp_ndtri(double p) {
    if (isnan(p)) return p;
    if (p <= 0) return p == 0 ? -INFINITY : NAN;
    if (p >= 1) return p == 1 ? INFINITY : NAN;
    if (p > 0.25 && p < 0.75) return M_SQRT2 * erfinv_d(2 * p - 1);
    double q = p > 0.5 ? 1 - p : p, t = sqrt(-2 * log(q));
    double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                         (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
    for (int i = 0; i < 8; i++) {
        double e = 0.5 * erfc(-x * M_SQRT1_2) - q;
        double u = e * SP_SQRT_2PI * exp(x * x / 2);
        double dx = u / (1 + x * u / 2);
        x -= dx;
        if (fabs(dx) <= 1e-17 * fabs(x)) break;
    }
    return p > 0.5 ? -x : x;
}

/* ---- modified Bessel functions of order 0 and 1 (x >= 0) ---- */

/* I_nu(x) by its power series sum (x/2)^(2k+nu) / (k! (k+nu)!) (A&S 9.6.10): positive terms */
static double sp_bessel_i_series(double x, int nu) {
    double q = x * x / 4, term = nu ? x / 2 : 1, sum = term;
    for (int k = 1; k < 500; k++) {
        term *= q / ((double)k * (k + nu));
        sum += term;
        if (term <= sum * 1e-17) break;
    }
    return sum;
}

/* exp(-x) I_nu(x) (sign = -1) or exp(x) K_nu(x) sqrt(2x/pi)... by the large-argument expansions
 * (A&S 9.7.1, 9.7.2): sum of prod (4nu^2 - (2j-1)^2) / (k! (8x)^k), alternating for I */
static double sp_bessel_asym(double x, int nu, double sign) {
    double mu = 4.0 * nu * nu, term = 1, sum = 1;
    for (int k = 1; k < 60; k++) {
        double next = term * sign * (mu - (double)(2 * k - 1) * (2 * k - 1)) / (8.0 * k * x);
        if (fabs(next) >= fabs(term)) break; /* the series started diverging */
        term = next;
        sum += term;
        if (fabs(term) <= 1e-17 * fabs(sum)) break;
    }
    return sum;
}

/* exp(-x) I_nu(x), x >= 0 */
static double sp_bessel_i_scaled(double x, int nu) {
    if (isinf(x)) return 0;
    if (x <= 25) return sp_bessel_i_series(x, nu) * exp(-x);
    return sp_bessel_asym(x, nu, -1) / sqrt(2 * SP_PI * x);
}
/* I_nu(x), x >= 0: exp(x) split in two so that I_nu stays finite as long as it can */
static double sp_bessel_i(double x, int nu) {
    if (x <= 25) return sp_bessel_i_series(x, nu);
    if (isinf(x)) return x;
    double h = exp(x / 2);
    return h * (h * sp_bessel_i_scaled(x, nu));
}

static double sp_i0e(double x) {
    return isnan(x) ? x : sp_bessel_i_scaled(fabs(x), 0);
}
static double sp_i1e(double x) {
    return isnan(x) ? x : copysign(sp_bessel_i_scaled(fabs(x), 1), x);
}
/* (PyTorch's I0 and I1 give NaN at the infinities) */
static double sp_i0(double x) {
    return isnan(x) || isinf(x) ? NAN : sp_bessel_i(fabs(x), 0);
}
static double sp_i1(double x) {
    return isnan(x) || isinf(x) ? NAN : copysign(sp_bessel_i(fabs(x), 1), x);
}

/* the C library's Bessel functions of the first and second kinds; NaN at the infinities, as
 * PyTorch's */
static double sp_j0(double x) {
    return isinf(x) ? NAN : j0(x);
}
static double sp_j1(double x) {
    return isinf(x) ? NAN : j1(x);
}
static double sp_y0(double x) {
    return isinf(x) ? NAN : y0(x);
}
static double sp_y1(double x) {
    return isinf(x) ? NAN : y1(x);
}

/* exp(x) K_0(x) and exp(x) K_1(x), x > 0: for x <= 2 the series of A&S 9.6.13 and 9.6.11
 * (digamma values psi(k+1) = -gamma + H_k); up to 25 Steed's continued fraction for
 * K_1/K_0 with Temme's normalisation (the "CF2" of Thompson and Barnett); beyond, the
 * large-argument expansion */
static void sp_bessel_k_scaled(double x, double *k0, double *k1) {
    if (x <= 2) {
        double q = x * x / 4, l = log(x / 2), e = exp(x);
        double psi1 = -SP_EULER, psi2 = 1 - SP_EULER; /* psi(k+1), psi(k+2) */
        double t0 = 1, t1 = 1, s0 = psi1, s1 = psi1 + psi2;
        for (int k = 1; k < 60; k++) {
            t0 *= q / ((double)k * k);       /* q^k / (k!)^2 */
            t1 *= q / ((double)k * (k + 1)); /* q^k / (k! (k+1)!) */
            psi1 += 1.0 / k;
            psi2 += 1.0 / (k + 1);
            s0 += t0 * psi1;
            s1 += t1 * (psi1 + psi2);
            if (t0 < 1e-18 && t1 < 1e-18) break;
        }
        *k0 = (-l * sp_bessel_i_series(x, 0) + s0) * e;
        *k1 = (1 / x + l * sp_bessel_i_series(x, 1) - x / 4 * s1) * e;
        return;
    }
    if (x <= 25) {
        double b = 2 * (1 + x), d = 1 / b, h = d, delh = d;
        double q1 = 0, q2 = 1, a1 = 0.25, q = a1, c = a1, a = -a1;
        double s = 1 + q * delh;
        for (int i = 2; i < 1000; i++) {
            a -= 2 * (i - 1);
            c = -a * c / i;
            double qnew = (q1 - b * q2) / a;
            q1 = q2;
            q2 = qnew;
            q += c * qnew;
            b += 2;
            d = 1 / (b + a * d);
            delh = (b * d - 1) * delh;
            h += delh;
            double dels = q * delh;
            s += dels;
            if (fabs(dels) < 1e-17 * fabs(s)) break;
        }
        h = a1 * h;
        *k0 = sqrt(SP_PI / (2 * x)) / s;
        *k1 = *k0 * (x + 0.5 - h) / x;
        return;
    }
    double f = sqrt(SP_PI / (2 * x));
    *k0 = f * sp_bessel_asym(x, 0, 1);
    *k1 = f * sp_bessel_asym(x, 1, 1);
}

/* which: 0 K0, 1 K1, 2 exp(x) K0, 3 exp(x) K1 */
static double sp_bessel_k(double x, int which) {
    if (isnan(x)) return x;
    if (x < 0) return NAN;
    if (x == 0) return INFINITY;
    if (isinf(x)) return 0;
    double k0, k1;
    sp_bessel_k_scaled(x, &k0, &k1);
    double r = (which & 1) ? k1 : k0;
    if (which >= 2) return r;
    double h = exp(-x / 2);
    return h * (h * r);
}
static double sp_k0(double x) {
    return sp_bessel_k(x, 0);
}
static double sp_k1(double x) {
    return sp_bessel_k(x, 1);
}
static double sp_k0e(double x) {
    return sp_bessel_k(x, 2);
}
static double sp_k1e(double x) {
    return sp_bessel_k(x, 3);
}

/* sin(x) / x, by its Taylor series near 0 */
static double sp_sph_j0(double x) {
    if (isinf(x)) return 0;
    if (fabs(x) >= 0.5) return sin(x) / x;
    double q = x * x, term = 1, sum = 1;
    for (int k = 1; k <= 9; k++) {
        term *= -q / ((2.0 * k) * (2 * k + 1));
        sum += term;
    }
    return sum;
}

/* ---- orthogonal polynomials P_n(x): PyTorch's recurrences, in the type; n is truncated to an
 * integer (NaN and out-of-range n give x86's INT64_MIN: a negative degree, 0) ---- */
static inline int64_t sp_degree(double n) {
    return (n != n || n >= 9.2233720368547758e18 || n < -9.2233720368547758e18) ? INT64_MIN
                                                                                : (int64_t)n;
}

/* the three-term recurrence from (p, q) = (P_0, P_1) up to P_n; NaN stays NaN (stop there) */
#define SP_RECUR(T, x, n, q0, STEP)                                                                \
    do {                                                                                           \
        T p = 1, q = (q0), r = q;                                                                  \
        for (int64_t k = 2; k <= (n); k++) {                                                       \
            r = STEP;                                                                              \
            p = q;                                                                                 \
            q = r;                                                                                 \
            if (r != r) break;                                                                     \
        }                                                                                          \
        return r;                                                                                  \
    } while (0)

#define SP_POLYS(T, S, M)                                                                          \
    static T sp_cheb_t##S(T x, T nn) {                                                             \
        int64_t n = sp_degree(nn);                                                                 \
        if (n < 0) return 0;                                                                       \
        if (M(fabs)(x) == 1) return (x > 0 || n % 2 == 0) ? 1 : -1;                                \
        if (n > 6 && M(fabs)(x) < 1) return M(cos)(n * M(acos)(x));                                \
        if (n == 0) return 1;                                                                      \
        SP_RECUR(T, x, n, x, (x + x) * q - p);                                                     \
    }                                                                                              \
    static T sp_cheb_u##S(T x, T nn) {                                                             \
        int64_t n = sp_degree(nn);                                                                 \
        if (n < 0) return 0;                                                                       \
        if (M(fabs)(x) == 1) return (x > 0 || n % 2 == 0) ? (T)(n + 1) : -(T)(n + 1);              \
        if (n > 8 && M(fabs)(x) < 1) {                                                             \
            T t = M(acos)(x);                                                                      \
            if (M(sin)(t) != 0) return M(sin)((n + 1) * t) / M(sin)(t);                            \
            return (n + 1) * M(cos)((n + 1) * t) / x;                                              \
        }                                                                                          \
        if (n == 0) return 1;                                                                      \
        SP_RECUR(T, x, n, x + x, (x + x) * q - p);                                                 \
    }                                                                                              \
    static T sp_cheb_v##S(T x, T nn) {                                                             \
        int64_t n = sp_degree(nn);                                                                 \
        if (n < 0) return 0;                                                                       \
        if (M(fabs)(x) == 1) {                                                                     \
            if (x > 0) return 1;                                                                   \
            return n % 2 == 0 ? (T)(n + n + 1) : -(T)(n + n + 1);                                  \
        }                                                                                          \
        if (n > 8 && M(fabs)(x) < 1) {                                                             \
            T t = M(acos)(x);                                                                      \
            if (M(sin)(t / 2) != 1) return M(cos)((n + (T)0.5) * t) / M(cos)(t / 2);               \
            return n % 2 == 0 ? (T)(n + n + 1) : -(T)(n + n + 1);                                  \
        }                                                                                          \
        if (n == 0) return 1;                                                                      \
        SP_RECUR(T, x, n, x + x - 1, (x + x) * q - p);                                             \
    }                                                                                              \
    static T sp_cheb_w##S(T x, T nn) {                                                             \
        int64_t n = sp_degree(nn);                                                                 \
        if (n < 0) return 0;                                                                       \
        if (M(fabs)(x) == 1) {                                                                     \
            if (x > 0) return (T)(n + n + 1);                                                      \
            return n % 2 == 0 ? 1 : -1;                                                            \
        }                                                                                          \
        if (n > 8 && M(fabs)(x) < 1) {                                                             \
            T t = M(acos)(x);                                                                      \
            if (M(cos)(t / 2) != 1) return M(sin)((n + (T)0.5) * t) / M(sin)(t / 2);               \
            if (x > 0) return (T)(n + n + 1);                                                      \
            return n % 2 == 0 ? 1 : -1;                                                            \
        }                                                                                          \
        if (n == 0) return 1;                                                                      \
        SP_RECUR(T, x, n, x + x + 1, (x + x) * q - p);                                             \
    }                                                                                              \
    static T sp_scheb_t##S(T x, T nn) {                                                            \
        int64_t n = sp_degree(nn);                                                                 \
        T y = x + x - 1;                                                                           \
        if (n < 0) return 0;                                                                       \
        if (x == 1) return 1;                                                                      \
        if (x == 0) return n % 2 == 0 ? 1 : -1;                                                    \
        if (n > 6 && M(fabs)(y) < 1) return M(cos)(n * M(acos)(y));                                \
        if (n == 0) return 1;                                                                      \
        SP_RECUR(T, x, n, y, (y + y) * q - p);                                                     \
    }                                                                                              \
    static T sp_scheb_u##S(T x, T nn) {                                                            \
        int64_t n = sp_degree(nn);                                                                 \
        T y = x + x - 1;                                                                           \
        if (n < 0) return 0;                                                                       \
        if (x == 1) return (T)(n + 1);                                                             \
        if (x == 0) return n % 2 == 0 ? (T)(n + 1) : -(T)(n + 1);                                  \
        if (n > 6 && M(fabs)(y) < 1) {                                                             \
            T t = M(acos)(y);                                                                      \
            if (M(sin)(t) != 0) return M(sin)((n + 1) * t) / M(sin)(t);                            \
            return (n + 1) * M(cos)((n + 1) * t) / y;                                              \
        }                                                                                          \
        if (n == 0) return 1;                                                                      \
        SP_RECUR(T, x, n, y + y, (y + y) * q - p);                                                 \
    }                                                                                              \
    static T sp_scheb_v##S(T x, T nn) {                                                            \
        int64_t n = sp_degree(nn);                                                                 \
        T y = x + x - 1;                                                                           \
        if (n < 0) return 0;                                                                       \
        if (x == 1) return 1;                                                                      \
        if (x == 0) return n % 2 == 0 ? (T)(n + n + 1) : -(T)(n + n + 1);                          \
        if (n > 6 && M(fabs)(y) < 1) {                                                             \
            T t = M(acos)(y);                                                                      \
            if (M(sin)(t / 2) != 1) return M(cos)((n + (T)0.5) * t) / M(cos)(t / 2);               \
            return n % 2 == 0 ? (T)(n + n + 1) : -(T)(n + n + 1);                                  \
        }                                                                                          \
        if (n == 0) return 1;                                                                      \
        SP_RECUR(T, x, n, y + y - 1, (y + y) * q - p);                                             \
    }                                                                                              \
    static T sp_scheb_w##S(T x, T nn) {                                                            \
        int64_t n = sp_degree(nn);                                                                 \
        T y = x + x - 1;                                                                           \
        if (n < 0) return 0;                                                                       \
        if (x == 1) return (T)(n + n + 1);                                                         \
        if (x == 0) return n % 2 == 0 ? 1 : -1;                                                    \
        if (n > 4 && M(fabs)(y) < 1) {                                                             \
            T t = M(acos)(y);                                                                      \
            if (M(cos)(t / 2) != 1) return M(sin)((n + (T)0.5) * t) / M(sin)(t / 2);               \
            return n % 2 == 0 ? 1 : -1;                                                            \
        }                                                                                          \
        if (n == 0) return 1;                                                                      \
        SP_RECUR(T, x, n, y + y + 1, (y + y) * q - p);                                             \
    }                                                                                              \
    static T sp_herm_h##S(T x, T nn) {                                                             \
        int64_t n = sp_degree(nn);                                                                 \
        if (n < 0) return 0;                                                                       \
        if (n == 0) return 1;                                                                      \
        SP_RECUR(T, x, n, x + x, (x + x) * q - (T)(2 * (k - 1)) * p);                              \
    }                                                                                              \
    static T sp_herm_he##S(T x, T nn) {                                                            \
        int64_t n = sp_degree(nn);                                                                 \
        if (n < 0) return 0;                                                                       \
        if (n == 0) return 1;                                                                      \
        SP_RECUR(T, x, n, x, x *q - (T)(k - 1) * p);                                               \
    }                                                                                              \
    static T sp_lag_l##S(T x, T nn) {                                                              \
        int64_t n = sp_degree(nn);                                                                 \
        if (n < 0) return 0;                                                                       \
        if (M(fabs)(x) == 0 || n == 0) return 1;                                                   \
        SP_RECUR(T, x, n, 1 - x, (((T)(k - 1) * 2 + (1 - x)) * q - (T)(k - 1) * p) / (T)k);        \
    }                                                                                              \
    static T sp_leg_p##S(T x, T nn) {                                                              \
        int64_t n = sp_degree(nn);                                                                 \
        if (n < 0) return 0;                                                                       \
        if (M(fabs)(x) == 1) return (x > 0 || n % 2 == 0) ? 1 : -1;                                \
        if (n == 0) return 1;                                                                      \
        SP_RECUR(T, x, n, x, ((T)(2 * (k - 1) + 1) * x * q - (T)(k - 1) * p) / (T)k);              \
    }
#define SP_MF(fn) fn##f
#define SP_MD(fn) fn
SP_POLYS(float, f, SP_MF)
SP_POLYS(double, d, SP_MD)
#define SP_POLY(name, a, b) _Generic((a), float : name##f, default : name##d)(a, b)

#define SP_D2(fn, a, b)                                                                            \
    _Generic((a), float                                                                            \
             : (float)fn((double)(a), (double)(b)), default                                        \
             : fn((double)(a), (double)(b)))

/* double in, double out; float32 rounded once */
#define SP_D(fn, a) _Generic((a), float : (float)fn((double)(a)), default : fn((double)(a)))

/* entr and xlog1py in the type, as PyTorch */
#define SP_ENTR(a) ((a) != (a) ? (a) : (a) > 0 ? -(a)*EW_M(log, a) : (a) == 0 ? 0 : -INFINITY)
#define SP_XLOG1PY(a, b) ((b) != (b) ? (b) : (a) == 0 ? 0 : (a)*EW_M(log1p, b))
/* ndtr as PyTorch composes it, each step rounded to the type (bfloat16 included) */
#define SP_NDTR(a, R) R((1 + R(EW_M(erf, R((a) * (ctype)M_SQRT1_2)))) * (ctype)0.5)
#define SP_NOROUND(x) (x)
#define SP_RBF16(x) mt_bf16_to_f32(mt_f32_to_bf16(x))

/* clang-format off */
EW_FLOATS(EW_DEF1, SP_ERFCX, SP_D(sp_erfcx, a))
EW_FLOATS(EW_DEF1, SP_NDTRI, SP_D(sp_ndtri, a))
EW_FLOATS(EW_DEF1, SP_LOG_NDTR, SP_D(sp_log_ndtr, a))
EW_FLOATS(EW_DEF1, SP_ENTR, SP_ENTR(a))
EW_FLOATS(EW_DEF2, SP_XLOG1PY, SP_XLOG1PY(a, b))
EW_DEF1(SP_NDTR, SP_NDTR(a, SP_NOROUND), f32, float, float, EW_ID, EW_ID)
EW_DEF1(SP_NDTR, SP_NDTR(a, SP_NOROUND), f64, double, double, EW_ID, EW_ID)
EW_DEF1(SP_NDTR, SP_NDTR(a, SP_NOROUND), f16, uint16_t, float, mt_f16_to_f32, mt_f32_to_f16)
EW_DEF1(SP_NDTR, SP_NDTR(a, SP_RBF16), bf16, uint16_t, float, mt_bf16_to_f32, mt_f32_to_bf16)
EW_FLOATS(EW_DEF1, SP_I0E, SP_D(sp_i0e, a))
EW_FLOATS(EW_DEF1, SP_I1, SP_D(sp_i1, a))
EW_FLOATS(EW_DEF1, SP_I1E, SP_D(sp_i1e, a))
EW_FLOATS(EW_DEF1, SP_I0, SP_D(sp_i0, a))
EW_FLOATS(EW_DEF1, SP_MI1, SP_D(sp_i1, a))
EW_FLOATS(EW_DEF1, SP_K0, SP_D(sp_k0, a))
EW_FLOATS(EW_DEF1, SP_K1, SP_D(sp_k1, a))
EW_FLOATS(EW_DEF1, SP_K0E, SP_D(sp_k0e, a))
EW_FLOATS(EW_DEF1, SP_K1E, SP_D(sp_k1e, a))
EW_FLOATS(EW_DEF1, SP_J0, SP_D(sp_j0, a))
EW_FLOATS(EW_DEF1, SP_J1, SP_D(sp_j1, a))
EW_FLOATS(EW_DEF1, SP_Y0, SP_D(sp_y0, a))
EW_FLOATS(EW_DEF1, SP_Y1, SP_D(sp_y1, a))
EW_FLOATS(EW_DEF1, SP_SJ0, SP_D(sp_sph_j0, a))
EW_FLOATS(EW_DEF2, SP_POLY_T, SP_POLY(sp_cheb_t, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_U, SP_POLY(sp_cheb_u, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_V, SP_POLY(sp_cheb_v, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_W, SP_POLY(sp_cheb_w, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_ST, SP_POLY(sp_scheb_t, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_SU, SP_POLY(sp_scheb_u, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_SV, SP_POLY(sp_scheb_v, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_SW, SP_POLY(sp_scheb_w, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_H, SP_POLY(sp_herm_h, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_HE, SP_POLY(sp_herm_he, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_L, SP_POLY(sp_lag_l, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_P, SP_POLY(sp_leg_p, a, b))
EW_FLOATS(EW_DEF2, SP_ZETA, SP_D2(mt_sp_zeta, a, b))
/* clang-format on */
