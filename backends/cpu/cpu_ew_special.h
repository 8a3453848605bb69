/* cpu_ew_special.h: the scalar bodies of torch.special's element-wise families
 * (src/ops/special.lua), included by cpu_ew_families.c inside its list of families. The
 * formulas are special_scalar.h's, which the CUDA kernels compute too: here they are bound to the
 * loops' dtypes (double in, rounded once for float32; the in-type ones by the type). */

#define SP_POLY(name, a, b) _Generic((a), float : mt_sp_##name##f, default : mt_sp_##name##d)(a, b)

#define SP_D2(fn, a, b)                                                                            \
    _Generic((a), float                                                                            \
             : (float)fn((double)(a), (double)(b)), default                                        \
             : fn((double)(a), (double)(b)))

/* double in, double out; float32 rounded once */
#define SP_D(fn, a) _Generic((a), float : (float)fn((double)(a)), default : fn((double)(a)))

/* entr and xlog1py in the type, as PyTorch */
#define SP_ENTR(a) _Generic((a), float : mt_sp_entrf, default : mt_sp_entrd)(a)
#define SP_XLOG1PY(a, b) _Generic((a), float : mt_sp_xlog1pyf, default : mt_sp_xlog1pyd)(a, b)
/* ndtr as PyTorch composes it, each step rounded to the type (bfloat16 included) */
#define SP_NDTR(a, R, ERF) MT_SP_NDTR(ctype, a, R, ERF)
#define SP_NOROUND(x) (x)
#define SP_RBF16(x) mt_bf16_to_f32(mt_f32_to_bf16(x))

/* clang-format off */
EW_FLOATS(EW_DEF1, SP_ERFCX, SP_D(mt_sp_erfcx, a))
EW_FLOATS(EW_DEF1, SP_NDTRI, SP_D(mt_sp_ndtri, a))
EW_FLOATS(EW_DEF1, SP_LOG_NDTR, SP_D(mt_sp_log_ndtr, a))
EW_FLOATS(EW_DEF1, SP_ENTR, SP_ENTR(a))
EW_FLOATS(EW_DEF2, SP_XLOG1PY, SP_XLOG1PY(a, b))
EW_DEF1(SP_NDTR, SP_NDTR(a, SP_NOROUND, erff), f32, float, float, EW_ID, EW_ID)
EW_DEF1(SP_NDTR, SP_NDTR(a, SP_NOROUND, erf), f64, double, double, EW_ID, EW_ID)
EW_DEF1(SP_NDTR, SP_NDTR(a, SP_NOROUND, erff), f16, uint16_t, float, mt_f16_to_f32, mt_f32_to_f16)
EW_DEF1(SP_NDTR, SP_NDTR(a, SP_RBF16, erff), bf16, uint16_t, float, mt_bf16_to_f32, mt_f32_to_bf16)
EW_FLOATS(EW_DEF1, SP_I0E, SP_D(mt_sp_i0e, a))
EW_FLOATS(EW_DEF1, SP_I1, SP_D(mt_sp_i1, a))
EW_FLOATS(EW_DEF1, SP_I1E, SP_D(mt_sp_i1e, a))
EW_FLOATS(EW_DEF1, SP_I0, SP_D(mt_sp_i0, a))
EW_FLOATS(EW_DEF1, SP_MI1, SP_D(mt_sp_i1, a))
EW_FLOATS(EW_DEF1, SP_K0, SP_D(mt_sp_k0, a))
EW_FLOATS(EW_DEF1, SP_K1, SP_D(mt_sp_k1, a))
EW_FLOATS(EW_DEF1, SP_K0E, SP_D(mt_sp_k0e, a))
EW_FLOATS(EW_DEF1, SP_K1E, SP_D(mt_sp_k1e, a))
EW_FLOATS(EW_DEF1, SP_J0, SP_D(mt_sp_j0, a))
EW_FLOATS(EW_DEF1, SP_J1, SP_D(mt_sp_j1, a))
EW_FLOATS(EW_DEF1, SP_Y0, SP_D(mt_sp_y0, a))
EW_FLOATS(EW_DEF1, SP_Y1, SP_D(mt_sp_y1, a))
EW_FLOATS(EW_DEF1, SP_SJ0, SP_D(mt_sp_sph_j0, a))
EW_FLOATS(EW_DEF2, SP_POLY_T, SP_POLY(cheb_t, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_U, SP_POLY(cheb_u, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_V, SP_POLY(cheb_v, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_W, SP_POLY(cheb_w, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_ST, SP_POLY(scheb_t, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_SU, SP_POLY(scheb_u, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_SV, SP_POLY(scheb_v, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_SW, SP_POLY(scheb_w, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_H, SP_POLY(herm_h, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_HE, SP_POLY(herm_he, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_L, SP_POLY(lag_l, a, b))
EW_FLOATS(EW_DEF2, SP_POLY_P, SP_POLY(leg_p, a, b))
EW_FLOATS(EW_DEF2, SP_ZETA, SP_D2(mt_sp_zeta, a, b))
/* clang-format on */
