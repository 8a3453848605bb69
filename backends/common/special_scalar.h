/* special_scalar.h: scalar special functions that the CPU's element-wise loops
 * (backends/cpu/cpu_ew_special.h, cpu_ew_gamma.h) and the CUDA kernels (backends/cuda/kernels/
 * ck_common.cuh) both compute: plain C that nvcc also compiles for the device, so the two
 * devices agree to rounding. */
#ifndef MT_SPECIAL_SCALAR_H
#define MT_SPECIAL_SCALAR_H

#include <math.h>

#ifdef __CUDACC__
#define MT_SCALAR_FN __host__ __device__ static inline
#else
#define MT_SCALAR_FN static inline
#endif

#define MT_SP_PI 3.14159265358979323846

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

#endif
