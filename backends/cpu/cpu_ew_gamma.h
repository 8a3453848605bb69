/* cpu_ew_gamma.h: the scalar bodies of the gamma-function family and its neighbours
 * (src/ops/gamma.lua): digamma, lgamma, polygamma, i0, the regularized incomplete gamma
 * functions, logit and hardshrink. Included by cpu_ew_families.c after cpu_ew_special.h, whose
 * helpers (sp_i0) it reuses; trigamma and zeta are special_scalar.h's.
 *
 * The transcendental ones are computed in double and rounded once for the narrower types; logit
 * and hardshrink in the type itself, as PyTorch computes them. The methods are the textbook
 * ones (recurrence, reflection and the asymptotic series for the psi functions; the power
 * series and Legendre's continued fraction for the incomplete gamma functions). */

/* psi(x): reflection below 0 (psi(1 - x) - pi cot(pi x), on the fractional part so that the
 * cotangent keeps its accuracy), the recurrence psi(x) = psi(x + 1) - 1/x up to 10, then the
 * asymptotic series ln x - 1/(2x) - sum B_2k / (2k x^2k) (A&S 6.3.18). As PyTorch: NaN at the
 * negative integers and at -inf, -inf at +0 and +inf at -0. */
static double gm_digamma(double x) {
    if (isnan(x)) return x;
    if (x == 0) return copysign(INFINITY, -x);
    if (x < 0) {
        if (x == trunc(x)) return NAN;
        return gm_digamma(1 - x) - SP_PI / tan(SP_PI * (x - trunc(x)));
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
    return r + log(x) - 0.5 / x - s;
}

static double gm_lgamma(double x) {
    int sign;
    return lgamma_r(x, &sign);
}

/* psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 2 (A&S 6.4.10) */
static double gm_polygamma(int64_t n, double x) {
    if (n == 0) return gm_digamma(x);
    if (n == 1) return mt_sp_trigamma(x);
    if (n < 0) return NAN; /* refused before the loop */
    double nd = (double)n;
    return ((n % 2) ? 1.0 : -1.0) * exp(gm_lgamma(nd + 1)) * mt_sp_zeta(nd + 1, x);
}

/* x^a e^-x / Gamma(a), from logarithms */
static double gm_igam_prefactor(double a, double x) {
    return exp(a * log(x) - x - gm_lgamma(a));
}

/* P(a, x) by its power series x^a e^-x / Gamma(a + 1) sum x^k / ((a+1)...(a+k)) (A&S 6.5.29) */
static double gm_igam_series(double a, double x) {
    double term = 1, sum = 1, ap = a;
    for (int k = 0; k < 100000; k++) {
        ap += 1;
        term *= x / ap;
        sum += term;
        if (term <= sum * 1e-17) break;
    }
    return gm_igam_prefactor(a, x) * sum / a;
}

/* Q(a, x) by Legendre's continued fraction (A&S 6.5.31), evaluated by the modified Lentz
 * method: x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)) */
static double gm_igamc_fraction(double a, double x) {
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
    return gm_igam_prefactor(a, x) * h;
}

/* the regularized lower (upper = 0) and upper (upper = 1) incomplete gamma functions, with
 * PyTorch's values at the edges of the domain */
static double gm_igamma(double a, double x, int upper) {
    if (isnan(a) || isnan(x) || a < 0 || x < 0) return NAN;
    if (a == 0) return x > 0 ? (upper ? 0.0 : 1.0) : NAN;
    if (x == 0) return upper ? 1.0 : 0.0;
    if (isinf(a)) return isinf(x) ? NAN : (upper ? 1.0 : 0.0);
    if (isinf(x)) return upper ? 0.0 : 1.0;
    if (x < a + 1) {
        double p = gm_igam_series(a, x);
        return upper ? 1 - p : p;
    }
    double q = gm_igamc_fraction(a, x);
    return upper ? q : 1 - q;
}
static double gm_igam(double a, double x) {
    return gm_igamma(a, x, 0);
}
static double gm_igamc(double a, double x) {
    return gm_igamma(a, x, 1);
}

/* The Airy function Ai(x) (A&S 10.4): from -8 to 6.5 its Maclaurin series c1 f(x) - c2 g(x) in
 * long double (the terms grow to about exp(2/3 |x|^1.5) before they cancel; on the positive side
 * the result also decays as much, and 6.5 balances that loss against the asymptotic series' own
 * error, about 1e-10 relative there); beyond, the
 * asymptotic expansions in zeta = 2/3 |x|^1.5 with u_k = (2k+1)(2k+3)...(6k-1) / (216^k k!)
 * (A&S 10.4.59 and 10.4.60). As PyTorch: 0 above 103.892, NaN at the infinities. */
static double gm_airy_ai(double x) {
    if (isnan(x) || isinf(x)) return NAN;
    if (x > 103.892) return 0;
    if (x >= -8 && x <= 6.5) {
        const long double c1 = 0.355028053887817239260L, c2 = 0.258819403792806798405L;
        long double z = (long double)x * x * x, tf = 1, tg = x, f = 1, g = x;
        for (int k = 1; k < 200; k++) {
            tf *= z / ((3.0L * k - 1) * (3.0L * k));
            tg *= z / ((3.0L * k) * (3.0L * k + 1));
            f += tf;
            g += tg;
            if (fabsl(tf) + fabsl(tg) < 1e-21L * (fabsl(f) + fabsl(g))) break;
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
    if (x > 0) return exp(-zeta) / (2 * SP_SQRT_PI * sqrt(sqrt(t))) * even;
    double theta = zeta + SP_PI / 4;
    return (sin(theta) * even - cos(theta) * odd) / (SP_SQRT_PI * sqrt(sqrt(t)));
}

/* logit in the type, as PyTorch: x clamped to [eps, 1 - eps] when eps is given and not
 * negative, +inf at 1 */
#define GM_LOGIT_X(a)                                                                              \
    ((ctx->has[0] && p0 >= 0) ? ((a) < p0 ? p0 : (a) > 1 - p0 ? 1 - p0 : (a)) : (a))
#define GM_LOGIT(a)                                                                                \
    (GM_LOGIT_X(a) == 1 ? (ctype)INFINITY : EW_M(log, GM_LOGIT_X(a) / (1 - GM_LOGIT_X(a))))

/* clang-format off */
EW_FLOATS(EW_DEF1, GM_DIGAMMA, SP_D(gm_digamma, a))
EW_FLOATS(EW_DEF1, GM_LGAMMA, SP_D(gm_lgamma, a))
EW_FLOATS(EW_DEF1, GM_POLYGAMMA, _Generic((a), float: (float)gm_polygamma(ctx->i[0], (double)(a)), default: gm_polygamma(ctx->i[0], (double)(a))))
EW_FLOATS(EW_DEF1, GM_I0, SP_D(sp_i0, a))
EW_FLOATS(EW_DEF2, GM_IGAMMA, SP_D2(gm_igam, a, b))
EW_FLOATS(EW_DEF2, GM_IGAMMAC, SP_D2(gm_igamc, a, b))
EW_FLOATS(EW_DEF1, GM_LOGIT, GM_LOGIT(a))
EW_FLOATS(EW_DEF1, GM_AIRY_AI, SP_D(gm_airy_ai, a))
EW_FLOATS(EW_DEF1, GM_HARDSHRINK, ((a) >= -p0 && (a) <= p0) ? (ctype)0 : (a))
/* clang-format on */
