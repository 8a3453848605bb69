/* special_scalar.h: the scalar special functions, one copy of each formula, computed by the CPU's
 * element-wise loops (backends/cpu/cpu_ew_families.c, cpu_ew_special.h, cpu_ew_gamma.h) and by
 * the CUDA kernels (backends/cuda/kernels/ck_common.cuh): plain C that nvcc also compiles for the
 * device, so the two devices agree to rounding. Most are computed in double and rounded once for
 * float (PyTorch computes float32 in float: its results lie within a few ulp of these); those
 * whose results PyTorch defines by its own arithmetic (erfinv, entr, xlog1py, ndtr, the
 * polynomial recurrences) come in a float and a double form. The methods are the textbook ones,
 * cited where they are used. */
#ifndef MT_SPECIAL_SCALAR_H
#define MT_SPECIAL_SCALAR_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define MT_SCALAR_FN __host__ __device__ static inline
#else
#define MT_SCALAR_FN static inline
#endif

/* Airy's series needs more than double's precision; a GPU has no wider type (doc/cuda.md) */
#ifdef __CUDA_ARCH__
typedef double mt_sp_wide;
#define MT_SP_WIDE(c) (c)
#define MT_SP_WABS(x) fabs(x)
#else
typedef long double mt_sp_wide;
#define MT_SP_WIDE(c) (c##L)
#define MT_SP_WABS(x) fabsl(x)
#endif

#define MT_SP_PI 3.14159265358979323846
#define MT_SP_SQRT_PI 1.77245385090551602730
#define MT_SP_SQRT_2PI 2.50662827463100050242
#define MT_SP_SQRT2 1.41421356237309504880
#define MT_SP_SQRT1_2 0.70710678118654752440
#define MT_SP_EULER 0.57721566490153286061

/* log|Gamma(x)|: the host's reentrant form (lgamma writes the global signgam) */
MT_SCALAR_FN double mt_sp_lgamma(double x) {
#ifdef __CUDA_ARCH__
    return lgamma(x);
#else
    int sign;
    return lgamma_r(x, &sign);
#endif
}

/* gcd of integers by Euclid's algorithm on magnitudes; lcm from it (0 when both are 0) */
MT_SCALAR_FN long long mt_sp_gcd(long long a, long long b) {
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (a != 0) {
        long long c = a;
        a = b % a;
        b = c;
    }
    return b;
}
MT_SCALAR_FN long long mt_sp_lcm(long long a, long long b) {
    long long g = mt_sp_gcd(a, b), l = g == 0 ? 0 : a / g * b;
    return l < 0 ? -l : l;
}

/* The inverse error function as PyTorch computes it (so values agree to the last bits): a
 * rational first guess (Pavlis's, central part |y| <= 0.7 and tails), then two Newton steps on
 * erf(x) = y, all in the type itself. */
#define MT_SP_ERFINV(T, NAME, M)                                                                   \
    MT_SCALAR_FN T NAME(T y) {                                                                     \
        T ya = M(fabs)(y);                                                                         \
        if (ya > 1) return (T)NAN;                                                                 \
        if (ya == 1) return M(copysign)((T)INFINITY, y);                                           \
        T x;                                                                                       \
        if (ya <= (T)0.7) {                                                                        \
            T z = y * y;                                                                           \
            T num = (((T)-0.140543331 * z + (T)0.914624893) * z + (T)-1.645349621) * z +           \
                    (T)0.886226899;                                                                \
            T den = ((((T)0.012229801 * z + (T)-0.329097515) * z + (T)1.442710462) * z +           \
                     (T)-2.118377725) *                                                            \
                        z +                                                                        \
                    1;                                                                             \
            x = y * num / den;                                                                     \
        } else {                                                                                   \
            T z = M(sqrt)(-M(log)((1 - ya) / 2));                                                  \
            T num = (((T)1.641345311 * z + (T)3.429567803) * z + (T)-1.624906493) * z +            \
                    (T)-1.970840454;                                                               \
            T den = ((T)1.637067800 * z + (T)3.543889200) * z + 1;                                 \
            x = M(copysign)(num, y) / den;                                                         \
        }                                                                                          \
        const T two_over_sqrt_pi = (T)2 / (T)MT_SP_SQRT_PI;                                        \
        x = x - (M(erf)(x) - y) / (two_over_sqrt_pi * M(exp)(-x * x));                             \
        x = x - (M(erf)(x) - y) / (two_over_sqrt_pi * M(exp)(-x * x));                             \
        return x;                                                                                  \
    }
#define MT_SP_MF(fn) fn##f
#define MT_SP_MD(fn) fn
MT_SP_ERFINV(float, mt_sp_erfinvf, MT_SP_MF)
MT_SP_ERFINV(double, mt_sp_erfinv, MT_SP_MD)
#undef MT_SP_ERFINV

/* ---- the gamma function's relatives ---- */

/* psi(x): reflection below 0 (psi(1 - x) - pi cot(pi x), on the fractional part so that the
 * cotangent keeps its accuracy), the recurrence psi(x) = psi(x + 1) - 1/x up to 10, then the
 * asymptotic series ln x - 1/(2x) - sum B_2k / (2k x^2k) (A&S 6.3.18). As PyTorch: NaN at the
 * negative integers and at -inf, -inf at +0 and +inf at -0. */
MT_SCALAR_FN double mt_sp_digamma(double x) {
    if (x != x) return x;
    if (x == 0) return copysign(INFINITY, -x);
    double reflection = 0;
    if (x < 0) {
        if (x == trunc(x)) return NAN;
        reflection = MT_SP_PI / tan(MT_SP_PI * (x - trunc(x)));
        x = 1 - x;
    }
    if (isinf(x)) return x;
    double r = 0;
    while (x < 10) {
        r -= 1 / x;
        x += 1;
    }
    double z = 1 / (x * x);
    double s =
        z *
        (1.0 / 12 -
         z * (1.0 / 120 -
              z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
    return r + log(x) - 0.5 / x - s - reflection;
}
/* psi'(x): below 1/2 the reflection psi'(1 - x) + psi'(x) = pi^2 / sin^2(pi x) (sin of pi x
 * itself, as PyTorch: near the poles its results stay large and finite), the recurrence
 * psi'(x) = psi'(x + 1) + 1/x^2 up to 10, then the asymptotic series
 * 1/x + 1/(2x^2) + sum B_2k / x^(2k+1) (A&S 6.4.12) */
MT_SCALAR_FN double mt_sp_trigamma(double x) {
    if (x != x) return x;
    double r = 0, sign = 1;
    if (x < 0.5) {
        double s = sin(MT_SP_PI * x);
        r = -(MT_SP_PI * MT_SP_PI) / (s * s);
        sign = -1;
        x = 1 - x;
    }
    while (x < 10) {
        r += 1 / (x * x);
        x += 1;
    }
    double z = 1 / (x * x);
    r += 1 / x + z / 2 +
         z / x *
             (1.0 / 6 - z * (1.0 / 30 -
                             z * (1.0 / 42 - z * (1.0 / 30 - z * (5.0 / 66 - z * (691.0 / 2730 -
                                                                                  z * 7.0 / 6))))));
    return sign * r;
}

/* The Hurwitz zeta function sum_k (k + q)^-x by Euler-Maclaurin summation (DLMF 25.11.5's
 * form; the Bernoulli numbers' B_2j / (2j)! below): the first terms directly until the
 * argument passes 9, the rest as the integral, half the last term and the Bernoulli
 * corrections; PyTorch's domain (x = 1 a pole, x < 1 NaN, q a non-positive integer a pole,
 * q <= 0 with x not an integer NaN; NaN at q = inf, as its summation gives) */
MT_SCALAR_FN double mt_sp_zeta(double x, double q) {
    const double bern[12] = {
        1.0 / 12.0,
        -1.0 / 720.0,
        1.0 / 30240.0,
        -1.0 / 1209600.0,
        1.0 / 47900160.0,
        (-691.0 / 2730.0) / 479001600.0,
        (7.0 / 6.0) / 87178291200.0,
        (-3617.0 / 510.0) / 20922789888000.0,
        (43867.0 / 798.0) / 6402373705728000.0,
        (-174611.0 / 330.0) / 2432902008176640000.0,
        (854513.0 / 138.0) / 1124000727777607680000.0,
        (-236364091.0 / 2730.0) / 620448401733239439360000.0,
    };
    if (x == 1) return INFINITY;
    if (x < 1) return NAN;
    if (q <= 0) {
        if (q == floor(q)) return INFINITY;
        if (x != floor(x)) return NAN;
    }
    double s = pow(q, -x), a = q, b = 0;
    for (int i = 0; i < 9 || a <= 9; i++) {
        a += 1;
        b = pow(a, -x);
        s += b;
        if (fabs(b / s) < 1.11e-16) return s;
    }
    s += b * a / (x - 1) - 0.5 * b;
    double rising = x, pw = b / a, inv2 = 1 / (a * a);
    for (int j = 0; j < 12; j++) {
        double t = bern[j] * rising * pw;
        s += t;
        if (fabs(t / s) < 1.11e-16) break;
        rising *= (x + 2 * j + 1) * (x + 2 * j + 2);
        pw *= inv2;
    }
    return s;
}

/* psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 2 (A&S 6.4.10); a negative n is refused
 * before any loop or launch */
MT_SCALAR_FN double mt_sp_polygamma(int64_t n, double x) {
    if (n == 0) return mt_sp_digamma(x);
    if (n == 1) return mt_sp_trigamma(x);
    if (n < 0) return NAN;
    double nd = (double)n;
    return ((n % 2) ? 1.0 : -1.0) * exp(mt_sp_lgamma(nd + 1)) * mt_sp_zeta(nd + 1, x);
}

/* ---- the error function's relatives ---- */

/* exp(x * x) without the rounding error of x * x (its low part by fma) */
MT_SCALAR_FN double mt_sp_exp_sq(double x) {
    double hi = x * x, lo = fma(x, x, -hi), e = exp(hi);
    return e + e * lo;
}

/* exp(x^2) erfc(x), x >= 0: the product directly while erfc(x) is a normal number, the
 * asymptotic series 1/(x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k above (A&S 7.1.23) */
MT_SCALAR_FN double mt_sp_erfcx_pos(double x) {
    if (x < 26) return mt_sp_exp_sq(x) * erfc(x);
    if (x > 1e8) return (1 / MT_SP_SQRT_PI) / x;
    double z = 1 / (2 * x * x), term = 1, sum = 1;
    for (int k = 1; k <= 12; k++) {
        term *= -(2 * k - 1) * z;
        sum += term;
    }
    return sum / (x * MT_SP_SQRT_PI);
}
/* erfcx(x) = 2 exp(x^2) - erfcx(-x) for negative x */
MT_SCALAR_FN double mt_sp_erfcx(double x) {
    if (isnan(x)) return x;
    if (x >= 0) return mt_sp_erfcx_pos(x);
    if (x * x > 709.7) return INFINITY;
    return 2 * mt_sp_exp_sq(x) - mt_sp_erfcx_pos(-x);
}

/* log(ndtr(x)) as PyTorch splits it: through erfcx below -1 (no underflow), log1p above */
MT_SCALAR_FN double mt_sp_log_ndtr(double x) {
    double t = x * MT_SP_SQRT1_2;
    if (x < -1) return log(mt_sp_erfcx(-t) / 2) - t * t;
    return log1p(-erfc(t) / 2);
}

/* The normal quantile: sqrt(2) erfinv(2p - 1) in the centre; in the tails the rational guess of
 * A&S 26.2.23 refined by Halley steps on ndtr(x) = q, with q the smaller tail (exact: 1 - p) */
MT_SCALAR_FN double mt_sp_ndtri(double p) {
    if (isnan(p)) return p;
    if (p <= 0) return p == 0 ? -INFINITY : NAN;
    if (p >= 1) return p == 1 ? INFINITY : NAN;
    if (p > 0.25 && p < 0.75) return MT_SP_SQRT2 * mt_sp_erfinv(2 * p - 1);
    double q = p > 0.5 ? 1 - p : p, t = sqrt(-2 * log(q));
    double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                         (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
    for (int i = 0; i < 8; i++) {
        double e = 0.5 * erfc(-x * MT_SP_SQRT1_2) - q;
        double u = e * MT_SP_SQRT_2PI * exp(x * x / 2);
        double dx = u / (1 + x * u / 2);
        x -= dx;
        if (fabs(dx) <= 1e-17 * fabs(x)) break;
    }
    return p > 0.5 ? -x : x;
}

/* ---- modified Bessel functions of order 0 and 1 (x >= 0) ---- */

/* I_nu(x) by its power series sum (x/2)^(2k+nu) / (k! (k+nu)!) (A&S 9.6.10): positive terms */
MT_SCALAR_FN double mt_sp_bessel_i_series(double x, int nu) {
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
MT_SCALAR_FN double mt_sp_bessel_asym(double x, int nu, double sign) {
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
MT_SCALAR_FN double mt_sp_bessel_i_scaled(double x, int nu) {
    if (isinf(x)) return 0;
    if (x <= 25) return mt_sp_bessel_i_series(x, nu) * exp(-x);
    return mt_sp_bessel_asym(x, nu, -1) / sqrt(2 * MT_SP_PI * x);
}
/* I_nu(x), x >= 0: exp(x) split in two so that I_nu stays finite as long as it can */
MT_SCALAR_FN double mt_sp_bessel_i(double x, int nu) {
    if (x <= 25) return mt_sp_bessel_i_series(x, nu);
    if (isinf(x)) return x;
    double h = exp(x / 2);
    return h * (h * mt_sp_bessel_i_scaled(x, nu));
}

MT_SCALAR_FN double mt_sp_i0e(double x) {
    return isnan(x) ? x : mt_sp_bessel_i_scaled(fabs(x), 0);
}
MT_SCALAR_FN double mt_sp_i1e(double x) {
    return isnan(x) ? x : copysign(mt_sp_bessel_i_scaled(fabs(x), 1), x);
}
/* (PyTorch's I0 and I1 give NaN at the infinities) */
MT_SCALAR_FN double mt_sp_i0(double x) {
    return isnan(x) || isinf(x) ? NAN : mt_sp_bessel_i(fabs(x), 0);
}
MT_SCALAR_FN double mt_sp_i1(double x) {
    return isnan(x) || isinf(x) ? NAN : copysign(mt_sp_bessel_i(fabs(x), 1), x);
}

/* the C library's Bessel functions of the first and second kinds; NaN at the infinities, as
 * PyTorch's */
MT_SCALAR_FN double mt_sp_j0(double x) {
    return isinf(x) ? NAN : j0(x);
}
MT_SCALAR_FN double mt_sp_j1(double x) {
    return isinf(x) ? NAN : j1(x);
}
MT_SCALAR_FN double mt_sp_y0(double x) {
    return isinf(x) ? NAN : y0(x);
}
MT_SCALAR_FN double mt_sp_y1(double x) {
    return isinf(x) ? NAN : y1(x);
}

/* exp(x) K_0(x) and exp(x) K_1(x), x > 0: for x <= 2 the series of A&S 9.6.13 and 9.6.11
 * (digamma values psi(k+1) = -gamma + H_k); up to 25 Steed's continued fraction for
 * K_1/K_0 with Temme's normalisation (the "CF2" of Thompson and Barnett); beyond, the
 * large-argument expansion */
MT_SCALAR_FN void mt_sp_bessel_k_scaled(double x, double *k0, double *k1) {
    if (x <= 2) {
        double q = x * x / 4, l = log(x / 2), e = exp(x);
        double psi1 = -MT_SP_EULER, psi2 = 1 - MT_SP_EULER; /* psi(k+1), psi(k+2) */
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
        *k0 = (-l * mt_sp_bessel_i_series(x, 0) + s0) * e;
        *k1 = (1 / x + l * mt_sp_bessel_i_series(x, 1) - x / 4 * s1) * e;
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
        *k0 = sqrt(MT_SP_PI / (2 * x)) / s;
        *k1 = *k0 * (x + 0.5 - h) / x;
        return;
    }
    double f = sqrt(MT_SP_PI / (2 * x));
    *k0 = f * mt_sp_bessel_asym(x, 0, 1);
    *k1 = f * mt_sp_bessel_asym(x, 1, 1);
}

/* which: 0 K0, 1 K1, 2 exp(x) K0, 3 exp(x) K1 */
MT_SCALAR_FN double mt_sp_bessel_k(double x, int which) {
    if (isnan(x)) return x;
    if (x < 0) return NAN;
    if (x == 0) return INFINITY;
    if (isinf(x)) return 0;
    double k0, k1;
    mt_sp_bessel_k_scaled(x, &k0, &k1);
    double r = (which & 1) ? k1 : k0;
    if (which >= 2) return r;
    double h = exp(-x / 2);
    return h * (h * r);
}
MT_SCALAR_FN double mt_sp_k0(double x) {
    return mt_sp_bessel_k(x, 0);
}
MT_SCALAR_FN double mt_sp_k1(double x) {
    return mt_sp_bessel_k(x, 1);
}
MT_SCALAR_FN double mt_sp_k0e(double x) {
    return mt_sp_bessel_k(x, 2);
}
MT_SCALAR_FN double mt_sp_k1e(double x) {
    return mt_sp_bessel_k(x, 3);
}

/* sin(x) / x, by its Taylor series near 0 */
MT_SCALAR_FN double mt_sp_sph_j0(double x) {
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
MT_SCALAR_FN int64_t mt_sp_degree(double n) {
    return (n != n || n >= 9.2233720368547758e18 || n < -9.2233720368547758e18) ? INT64_MIN
                                                                                : (int64_t)n;
}

/* the three-term recurrence from (p, q) = (P_0, P_1) up to P_n; NaN stays NaN (stop there) */
#define MT_SP_RECUR(T, x, n, q0, STEP)                                                             \
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

#define MT_SP_POLYS(T, S, M)                                                                       \
    MT_SCALAR_FN T mt_sp_cheb_t##S(T x, T nn) {                                                    \
        int64_t n = mt_sp_degree(nn);                                                              \
        if (n < 0) return 0;                                                                       \
        if (M(fabs)(x) == 1) return (x > 0 || n % 2 == 0) ? 1 : -1;                                \
        if (n > 6 && M(fabs)(x) < 1) return M(cos)(n * M(acos)(x));                                \
        if (n == 0) return 1;                                                                      \
        MT_SP_RECUR(T, x, n, x, (x + x) * q - p);                                                  \
    }                                                                                              \
    MT_SCALAR_FN T mt_sp_cheb_u##S(T x, T nn) {                                                    \
        int64_t n = mt_sp_degree(nn);                                                              \
        if (n < 0) return 0;                                                                       \
        if (M(fabs)(x) == 1) return (x > 0 || n % 2 == 0) ? (T)(n + 1) : -(T)(n + 1);              \
        if (n > 8 && M(fabs)(x) < 1) {                                                             \
            T t = M(acos)(x);                                                                      \
            if (M(sin)(t) != 0) return M(sin)((n + 1) * t) / M(sin)(t);                            \
            return (n + 1) * M(cos)((n + 1) * t) / x;                                              \
        }                                                                                          \
        if (n == 0) return 1;                                                                      \
        MT_SP_RECUR(T, x, n, x + x, (x + x) * q - p);                                              \
    }                                                                                              \
    MT_SCALAR_FN T mt_sp_cheb_v##S(T x, T nn) {                                                    \
        int64_t n = mt_sp_degree(nn);                                                              \
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
        MT_SP_RECUR(T, x, n, x + x - 1, (x + x) * q - p);                                          \
    }                                                                                              \
    MT_SCALAR_FN T mt_sp_cheb_w##S(T x, T nn) {                                                    \
        int64_t n = mt_sp_degree(nn);                                                              \
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
        MT_SP_RECUR(T, x, n, x + x + 1, (x + x) * q - p);                                          \
    }                                                                                              \
    MT_SCALAR_FN T mt_sp_scheb_t##S(T x, T nn) {                                                   \
        int64_t n = mt_sp_degree(nn);                                                              \
        T y = x + x - 1;                                                                           \
        if (n < 0) return 0;                                                                       \
        if (x == 1) return 1;                                                                      \
        if (x == 0) return n % 2 == 0 ? 1 : -1;                                                    \
        if (n > 6 && M(fabs)(y) < 1) return M(cos)(n * M(acos)(y));                                \
        if (n == 0) return 1;                                                                      \
        MT_SP_RECUR(T, x, n, y, (y + y) * q - p);                                                  \
    }                                                                                              \
    MT_SCALAR_FN T mt_sp_scheb_u##S(T x, T nn) {                                                   \
        int64_t n = mt_sp_degree(nn);                                                              \
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
        MT_SP_RECUR(T, x, n, y + y, (y + y) * q - p);                                              \
    }                                                                                              \
    MT_SCALAR_FN T mt_sp_scheb_v##S(T x, T nn) {                                                   \
        int64_t n = mt_sp_degree(nn);                                                              \
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
        MT_SP_RECUR(T, x, n, y + y - 1, (y + y) * q - p);                                          \
    }                                                                                              \
    MT_SCALAR_FN T mt_sp_scheb_w##S(T x, T nn) {                                                   \
        int64_t n = mt_sp_degree(nn);                                                              \
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
        MT_SP_RECUR(T, x, n, y + y + 1, (y + y) * q - p);                                          \
    }                                                                                              \
    MT_SCALAR_FN T mt_sp_herm_h##S(T x, T nn) {                                                    \
        int64_t n = mt_sp_degree(nn);                                                              \
        if (n < 0) return 0;                                                                       \
        if (n == 0) return 1;                                                                      \
        MT_SP_RECUR(T, x, n, x + x, (x + x) * q - (T)(2 * (k - 1)) * p);                           \
    }                                                                                              \
    MT_SCALAR_FN T mt_sp_herm_he##S(T x, T nn) {                                                   \
        int64_t n = mt_sp_degree(nn);                                                              \
        if (n < 0) return 0;                                                                       \
        if (n == 0) return 1;                                                                      \
        MT_SP_RECUR(T, x, n, x, x *q - (T)(k - 1) * p);                                            \
    }                                                                                              \
    MT_SCALAR_FN T mt_sp_lag_l##S(T x, T nn) {                                                     \
        int64_t n = mt_sp_degree(nn);                                                              \
        if (n < 0) return 0;                                                                       \
        if (M(fabs)(x) == 0 || n == 0) return 1;                                                   \
        MT_SP_RECUR(T, x, n, 1 - x, (((T)(k - 1) * 2 + (1 - x)) * q - (T)(k - 1) * p) / (T)k);     \
    }                                                                                              \
    MT_SCALAR_FN T mt_sp_leg_p##S(T x, T nn) {                                                     \
        int64_t n = mt_sp_degree(nn);                                                              \
        if (n < 0) return 0;                                                                       \
        if (M(fabs)(x) == 1) return (x > 0 || n % 2 == 0) ? 1 : -1;                                \
        if (n == 0) return 1;                                                                      \
        MT_SP_RECUR(T, x, n, x, ((T)(2 * (k - 1) + 1) * x * q - (T)(k - 1) * p) / (T)k);           \
    }
MT_SP_POLYS(float, f, MT_SP_MF)
MT_SP_POLYS(double, d, MT_SP_MD)

/* entr (-x log x; 0 at 0, -inf below) and xlog1py (x log1p(y), 0 where x is 0 unless y is NaN),
 * in the type, as PyTorch */
#define MT_SP_IN_TYPE(T, S, M)                                                                     \
    MT_SCALAR_FN T mt_sp_entr##S(T a) {                                                            \
        return a != a ? a : a > 0 ? -a * M(log)(a) : a == 0 ? (T)0 : (T)-INFINITY;                 \
    }                                                                                              \
    MT_SCALAR_FN T mt_sp_xlog1py##S(T a, T b) {                                                    \
        return b != b ? b : a == 0 ? (T)0 : a * M(log1p)(b);                                       \
    }
MT_SP_IN_TYPE(float, f, MT_SP_MF)
MT_SP_IN_TYPE(double, d, MT_SP_MD)
#undef MT_SP_IN_TYPE

/* ndtr as PyTorch composes it, (1 + erf(x / sqrt 2)) / 2, each step rounded by R to the result's
 * dtype (its half types' steps are operations of their own there); ERF is the type's erf */
#define MT_SP_NDTR(T, a, R, ERF) R((1 + R(ERF(R((a) * (T)MT_SP_SQRT1_2)))) * (T)0.5)

/* ---- the incomplete gamma functions and Airy's ---- */

/* x^a e^-x / Gamma(a), from logarithms */
MT_SCALAR_FN double mt_sp_igam_prefactor(double a, double x) {
    return exp(a * log(x) - x - mt_sp_lgamma(a));
}

/* P(a, x) by its power series x^a e^-x / Gamma(a + 1) sum x^k / ((a+1)...(a+k)) (A&S 6.5.29) */
MT_SCALAR_FN double mt_sp_igam_series(double a, double x) {
    double term = 1, sum = 1, ap = a;
    for (int k = 0; k < 100000; k++) {
        ap += 1;
        term *= x / ap;
        sum += term;
        if (term <= sum * 1e-17) break;
    }
    return mt_sp_igam_prefactor(a, x) * sum / a;
}

/* Q(a, x) by Legendre's continued fraction (A&S 6.5.31), evaluated by the modified Lentz
 * method: x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)) */
MT_SCALAR_FN double mt_sp_igamc_fraction(double a, double x) {
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) <= 1e-16) break;
    }
    return mt_sp_igam_prefactor(a, x) * h;
}

/* the regularized lower (upper = 0) and upper (upper = 1) incomplete gamma functions, with
 * PyTorch's values at the edges of the domain */
MT_SCALAR_FN double mt_sp_igamma(double a, double x, int upper) {
    if (isnan(a) || isnan(x) || a < 0 || x < 0) return NAN;
    if (a == 0) return x > 0 ? (upper ? 0.0 : 1.0) : NAN;
    if (x == 0) return upper ? 1.0 : 0.0;
    if (isinf(a)) return isinf(x) ? NAN : (upper ? 1.0 : 0.0);
    if (isinf(x)) return upper ? 0.0 : 1.0;
    if (x < a + 1) {
        double p = mt_sp_igam_series(a, x);
        return upper ? 1 - p : p;
    }
    double q = mt_sp_igamc_fraction(a, x);
    return upper ? q : 1 - q;
}
MT_SCALAR_FN double mt_sp_igam(double a, double x) {
    return mt_sp_igamma(a, x, 0);
}
MT_SCALAR_FN double mt_sp_igamc(double a, double x) {
    return mt_sp_igamma(a, x, 1);
}

/* The Airy function Ai(x) (A&S 10.4): from -8 to 6.5 its Maclaurin series c1 f(x) - c2 g(x) in
 * long double (the terms grow to about exp(2/3 |x|^1.5) before they cancel; on the positive side
 * the result also decays as much, and 6.5 balances that loss against the asymptotic series' own
 * error, about 1e-10 relative there); beyond, the
 * asymptotic expansions in zeta = 2/3 |x|^1.5 with u_k = (2k+1)(2k+3)...(6k-1) / (216^k k!)
 * (A&S 10.4.59 and 10.4.60). As PyTorch: 0 above 103.892, NaN at the infinities. */
MT_SCALAR_FN double mt_sp_airy_ai(double x) {
    if (isnan(x) || isinf(x)) return NAN;
    if (x > 103.892) return 0;
    if (x >= -8 && x <= 6.5) {
        const mt_sp_wide c1 = MT_SP_WIDE(0.355028053887817239260),
                         c2 = MT_SP_WIDE(0.258819403792806798405), three = 3;
        mt_sp_wide z = (mt_sp_wide)x * x * x, tf = 1, tg = x, f = 1, g = x;
        for (int k = 1; k < 200; k++) {
            tf *= z / ((three * k - 1) * (three * k));
            tg *= z / ((three * k) * (three * k + 1));
            f += tf;
            g += tg;
            mt_sp_wide sizes = MT_SP_WABS(tf) + MT_SP_WABS(tg);
            if (sizes < MT_SP_WIDE(1e-21) * (MT_SP_WABS(f) + MT_SP_WABS(g))) break;
        }
        return (double)(c1 * f - c2 * g);
    }
    double t = fabs(x), zeta = 2.0 / 3.0 * t * sqrt(t), u = 1, even = 1, odd = 0, p = 1;
    for (int k = 1; k < 60; k++) {
        double next =
            u * (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / (216.0 * k * (2.0 * k - 1));
        double np = p / zeta;
        if (next * np >= u * p) break; /* the series started diverging */
        u = next;
        p = np;
        if (x > 0) {
            even += (k % 2 ? -1 : 1) * u * p; /* all terms, alternating */
        } else if (k % 2 == 0) {
            even += ((k / 2) % 2 ? -1 : 1) * u * p;
        } else {
            odd += ((k / 2) % 2 ? -1 : 1) * u * p;
        }
        if (u * p < 1e-17) break;
    }
    if (x > 0) return exp(-zeta) / (2 * MT_SP_SQRT_PI * sqrt(sqrt(t))) * even;
    double theta = zeta + MT_SP_PI / 4;
    return (sin(theta) * even - cos(theta) * odd) / (MT_SP_SQRT_PI * sqrt(sqrt(t)));
}

/* The functions of one argument computed in double, by number: what a CUDA launch names */
enum {
    MT_SP_ERFCX,
    MT_SP_NDTRI,
    MT_SP_LOG_NDTR,
    MT_SP_I0,
    MT_SP_I0E,
    MT_SP_I1,
    MT_SP_I1E,
    MT_SP_J0,
    MT_SP_J1,
    MT_SP_Y0,
    MT_SP_Y1,
    MT_SP_K0,
    MT_SP_K1,
    MT_SP_K0E,
    MT_SP_K1E,
    MT_SP_SPH_J0,
    MT_SP_AIRY_AI
};
MT_SCALAR_FN double mt_sp_unary(int which, double x) {
    switch (which) {
    case MT_SP_ERFCX:
        return mt_sp_erfcx(x);
    case MT_SP_NDTRI:
        return mt_sp_ndtri(x);
    case MT_SP_LOG_NDTR:
        return mt_sp_log_ndtr(x);
    case MT_SP_I0:
        return mt_sp_i0(x);
    case MT_SP_I0E:
        return mt_sp_i0e(x);
    case MT_SP_I1:
        return mt_sp_i1(x);
    case MT_SP_I1E:
        return mt_sp_i1e(x);
    case MT_SP_J0:
        return mt_sp_j0(x);
    case MT_SP_J1:
        return mt_sp_j1(x);
    case MT_SP_Y0:
        return mt_sp_y0(x);
    case MT_SP_Y1:
        return mt_sp_y1(x);
    case MT_SP_K0:
        return mt_sp_k0(x);
    case MT_SP_K1:
        return mt_sp_k1(x);
    case MT_SP_K0E:
        return mt_sp_k0e(x);
    case MT_SP_K1E:
        return mt_sp_k1e(x);
    case MT_SP_SPH_J0:
        return mt_sp_sph_j0(x);
    default:
        return mt_sp_airy_ai(x);
    }
}

/* The functions of two arguments computed in double, by number */
enum { MT_SP_ZETA, MT_SP_IGAMMA, MT_SP_IGAMMAC };
MT_SCALAR_FN double mt_sp_binary(int which, double a, double b) {
    return which == MT_SP_ZETA ? mt_sp_zeta(a, b) : mt_sp_igamma(a, b, which == MT_SP_IGAMMAC);
}

/* The polynomials P_n(x), by number, in the type */
enum {
    MT_SP_POLY_T,
    MT_SP_POLY_U,
    MT_SP_POLY_V,
    MT_SP_POLY_W,
    MT_SP_POLY_ST,
    MT_SP_POLY_SU,
    MT_SP_POLY_SV,
    MT_SP_POLY_SW,
    MT_SP_POLY_H,
    MT_SP_POLY_HE,
    MT_SP_POLY_L,
    MT_SP_POLY_P
};
#define MT_SP_POLY_BY_NUMBER(T, S)                                                                 \
    MT_SCALAR_FN T mt_sp_poly##S(int which, T x, T n) {                                            \
        switch (which) {                                                                           \
        case MT_SP_POLY_T:                                                                         \
            return mt_sp_cheb_t##S(x, n);                                                          \
        case MT_SP_POLY_U:                                                                         \
            return mt_sp_cheb_u##S(x, n);                                                          \
        case MT_SP_POLY_V:                                                                         \
            return mt_sp_cheb_v##S(x, n);                                                          \
        case MT_SP_POLY_W:                                                                         \
            return mt_sp_cheb_w##S(x, n);                                                          \
        case MT_SP_POLY_ST:                                                                        \
            return mt_sp_scheb_t##S(x, n);                                                         \
        case MT_SP_POLY_SU:                                                                        \
            return mt_sp_scheb_u##S(x, n);                                                         \
        case MT_SP_POLY_SV:                                                                        \
            return mt_sp_scheb_v##S(x, n);                                                         \
        case MT_SP_POLY_SW:                                                                        \
            return mt_sp_scheb_w##S(x, n);                                                         \
        case MT_SP_POLY_H:                                                                         \
            return mt_sp_herm_h##S(x, n);                                                          \
        case MT_SP_POLY_HE:                                                                        \
            return mt_sp_herm_he##S(x, n);                                                         \
        case MT_SP_POLY_L:                                                                         \
            return mt_sp_lag_l##S(x, n);                                                           \
        default:                                                                                   \
            return mt_sp_leg_p##S(x, n);                                                           \
        }                                                                                          \
    }
MT_SP_POLY_BY_NUMBER(float, f)
MT_SP_POLY_BY_NUMBER(double, d)
#undef MT_SP_POLY_BY_NUMBER

#endif
