/* cpu_ew_gamma.h: the scalar bodies of the gamma-function family and its neighbours
 * (src/ops/gamma.lua): digamma, lgamma, polygamma, i0, the regularized incomplete gamma
 * functions, Airy's Ai, logit and hardshrink. Included by cpu_ew_families.c after
 * cpu_ew_special.h. The transcendental ones are special_scalar.h's (which the CUDA kernels
 * compute too), in double and rounded once for the narrower types; logit and hardshrink are
 * computed in the type itself, as PyTorch computes them. */

/* logit in the type, as PyTorch: x clamped to [eps, 1 - eps] when eps is given and not
 * negative, +inf at 1 */
#define GM_LOGIT_X(a)                                                                              \
    ((ctx->has[0] && p0 >= 0) ? ((a) < p0 ? p0 : (a) > 1 - p0 ? 1 - p0 : (a)) : (a))
#define GM_LOGIT(a)                                                                                \
    (GM_LOGIT_X(a) == 1 ? (ctype)INFINITY : EW_M(log, GM_LOGIT_X(a) / (1 - GM_LOGIT_X(a))))

/* clang-format off */
EW_FLOATS(EW_DEF1, GM_DIGAMMA, SP_D(mt_sp_digamma, a))
EW_FLOATS(EW_DEF1, GM_LGAMMA, SP_D(mt_sp_lgamma, a))
EW_FLOATS(EW_DEF1, GM_POLYGAMMA, _Generic((a), float: (float)mt_sp_polygamma(ctx->i[0], (double)(a)), default: mt_sp_polygamma(ctx->i[0], (double)(a))))
EW_FLOATS(EW_DEF1, GM_I0, SP_D(mt_sp_i0, a))
EW_FLOATS(EW_DEF2, GM_IGAMMA, SP_D2(mt_sp_igam, a, b))
EW_FLOATS(EW_DEF2, GM_IGAMMAC, SP_D2(mt_sp_igamc, a, b))
EW_FLOATS(EW_DEF1, GM_LOGIT, GM_LOGIT(a))
EW_FLOATS(EW_DEF1, GM_AIRY_AI, SP_D(mt_sp_airy_ai, a))
EW_FLOATS(EW_DEF1, GM_HARDSHRINK, ((a) >= -p0 && (a) <= p0) ? (ctype)0 : (a))
/* clang-format on */
