/* elementwise_ops.c: the description of every element-wise op (what it computes, its result
 * dtype rule, its argument checks, the dtypes it supports), attached to the op with the
 * generic meta function. Adding an element-wise op is: its schema, one line here, and its
 * loop family in each backend. */
#include "elementwise.h"
#include "mt_ops_gen.h"

#define N -1
/* kernel name, family, inputs, result rule, check, dtypes, parameter args */
#define D(k, fam, nin, rule, check, dts, p0, p1, p2, p3) \
    {k, MT_F_##fam, nin, MT_EW_##rule, MT_EWC_##check, dts, {p0, p1, p2, p3}}

static const mt_ew_desc d_add = D("add_cpu/sub_cpu", ADD, 2, SAME, ALPHA, MT_DT_ALL, 2, N, N, N);
static const mt_ew_desc d_sub = D("add_cpu/sub_cpu", SUB, 2, SAME, SUB, MT_DT_NUMS, 2, N, N, N);
static const mt_ew_desc d_rsub = D("add_cpu/sub_cpu", RSUB, 2, SAME, SUB, MT_DT_NUMS, 2, N, N, N);
static const mt_ew_desc d_mul = D("mul_cpu", MUL, 2, SAME, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_div = D("div_true_cpu", DIV, 2, FLOAT, NONE, MT_DT_FLOATS, N, N, N, N);
static const mt_ew_desc d_div_mode = D("div_cpu", DIV, 2, SAME, DIVMODE, MT_DT_NUMS, 2, N, N, N);
static const mt_ew_desc d_floor_divide = D("div_floor_cpu", DIV_FLOOR, 2, SAME, NONE, MT_DT_NUMS, N, N, N, N);
static const mt_ew_desc d_remainder = D("remainder_cpu", REMAINDER, 2, SAME, NONE, MT_DT_NUMS, N, N, N, N);
static const mt_ew_desc d_fmod = D("fmod_cpu", FMOD, 2, SAME, NONE, MT_DT_NUMS, N, N, N, N);
static const mt_ew_desc d_pow = D("pow", POW, 2, SAME, POW, MT_DT_NUMS, N, N, N, N);
static const mt_ew_desc d_atan2 = D("atan2_cpu", ATAN2, 2, FLOAT, NONE, MT_DT_FLOATS_NOHALF, N, N, N, N);
static const mt_ew_desc d_maximum = D("maximum_cpu", MAXIMUM, 2, SAME, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_minimum = D("minimum_cpu", MINIMUM, 2, SAME, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_eq = D("eq_cpu", EQ, 2, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_ne = D("ne_cpu", NE, 2, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_lt = D("lt_cpu", LT, 2, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_le = D("le_cpu", LE, 2, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_gt = D("gt_cpu", GT, 2, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_ge = D("ge_cpu", GE, 2, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_land = D("logical_and_cpu", LAND, 2, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_lor = D("logical_or_cpu", LOR, 2, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_lxor = D("logical_xor_cpu", LXOR, 2, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_lnot = D("logical_not_cpu", LNOT, 1, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_band = D("bitwise_and_cpu", BAND, 2, SAME, NONE, MT_DT_INTB, N, N, N, N);
static const mt_ew_desc d_bor = D("bitwise_or_cpu", BOR, 2, SAME, NONE, MT_DT_INTB, N, N, N, N);
static const mt_ew_desc d_bxor = D("bitwise_xor_cpu", BXOR, 2, SAME, NONE, MT_DT_INTB, N, N, N, N);
static const mt_ew_desc d_shl = D("lshift_cpu", SHL, 2, SAME, NONE, MT_DT_INTS, N, N, N, N);
static const mt_ew_desc d_shr = D("rshift_cpu", SHR, 2, SAME, NONE, MT_DT_INTS, N, N, N, N);
static const mt_ew_desc d_bnot = D("bitwise_not_cpu", BNOT, 1, SAME, NONE, MT_DT_INTB, N, N, N, N);
static const mt_ew_desc d_neg = D("neg_cpu", NEG, 1, SAME, NEG, MT_DT_NUMS, N, N, N, N);
static const mt_ew_desc d_abs = D("abs_cpu", ABS, 1, SAME, NONE, MT_DT_NUMS, N, N, N, N);
static const mt_ew_desc d_sign = D("sign_cpu", SIGN, 1, SAME, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_reciprocal = D("reciprocal_cpu", RECIPROCAL, 1, FLOAT, NONE, MT_DT_FLOATS, N, N, N, N);
#define FLOAT_UNARY(name, fam, k) static const mt_ew_desc d_##name = D(k, fam, 1, FLOAT, NONE, MT_DT_FLOATS_NOHALF, N, N, N, N);
FLOAT_UNARY(sqrt, SQRT, "sqrt_vml_cpu")
FLOAT_UNARY(rsqrt, RSQRT, "rsqrt_cpu")
FLOAT_UNARY(exp, EXP, "exp_vml_cpu")
static const mt_ew_desc d_exp2 = D("exp2_vml_cpu", EXP2, 1, FLOAT, NONE, MT_DT_FLOATS, N, N, N, N);
FLOAT_UNARY(expm1, EXPM1, "expm1_vml_cpu")
FLOAT_UNARY(log, LOG, "log_vml_cpu")
FLOAT_UNARY(log2, LOG2, "log2_vml_cpu")
FLOAT_UNARY(log10, LOG10, "log10_vml_cpu")
FLOAT_UNARY(log1p, LOG1P, "log1p_vml_cpu")
FLOAT_UNARY(sin, SIN, "sin_vml_cpu")
FLOAT_UNARY(cos, COS, "cos_vml_cpu")
FLOAT_UNARY(tan, TAN, "tan_vml_cpu")
FLOAT_UNARY(asin, ASIN, "asin_vml_cpu")
FLOAT_UNARY(acos, ACOS, "acos_vml_cpu")
FLOAT_UNARY(atan, ATAN, "atan_vml_cpu")
FLOAT_UNARY(sinh, SINH, "sinh_cpu")
FLOAT_UNARY(cosh, COSH, "cosh_cpu")
FLOAT_UNARY(tanh, TANH, "tanh_vml_cpu")
FLOAT_UNARY(erf, ERF, "erf_vml_cpu")
FLOAT_UNARY(erfc, ERFC, "erfc_vml_cpu")
FLOAT_UNARY(erfinv, ERFINV, "erfinv_vml_cpu")
FLOAT_UNARY(sigmoid, SIGMOID, "sigmoid_cpu")
static const mt_ew_desc d_relu = D("clamp_min_cpu", RELU, 1, SAME, RELU, MT_DT_NUMS_NOHALF, N, N, N, N);
static const mt_ew_desc d_floor = D("floor_vml_cpu", FLOOR, 1, SAME, NONE, MT_DT_NUMS_NOHALF, N, N, N, N);
static const mt_ew_desc d_ceil = D("ceil_vml_cpu", CEIL, 1, SAME, NONE, MT_DT_NUMS_NOHALF, N, N, N, N);
static const mt_ew_desc d_round = D("round_vml_cpu", ROUND, 1, SAME, NONE, MT_DT_NUMS_NOHALF, N, N, N, N);
static const mt_ew_desc d_round_dec = D("round_cpu", ROUND_DEC, 1, SAME, NONE, MT_DT_FLOATS_NOHALF, 1, N, N, N);
static const mt_ew_desc d_trunc = D("trunc_vml_cpu", TRUNC, 1, SAME, NONE, MT_DT_NUMS_NOHALF, N, N, N, N);
static const mt_ew_desc d_frac = D("frac_cpu", FRAC, 1, SAME, NONE, MT_DT_FLOATS, N, N, N, N);
static const mt_ew_desc d_isnan = D("isnan", ISNAN, 1, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_isinf = D("isinf", ISINF, 1, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_isfinite = D("isfinite", ISFINITE, 1, BOOL, NONE, MT_DT_ALL, N, N, N, N);
static const mt_ew_desc d_gelu = D("GeluKernelImpl", GELU, 1, SAME, NONE, MT_DT_FLOATS_NOHALF, 1, N, N, N);
static const mt_ew_desc d_silu = D("silu_cpu", SILU, 1, SAME, NONE, MT_DT_FLOATS_NOHALF, N, N, N, N);
static const mt_ew_desc d_softplus = D("softplus_cpu", SOFTPLUS, 1, SAME, NONE, MT_DT_FLOATS_NOHALF, 1, 2, N, N);
static const mt_ew_desc d_elu = D("elu_cpu", ELU, 1, SAME, NONE, MT_DT_FLOATS_NOHALF, 1, 2, 3, N);
static const mt_ew_desc d_leaky_relu = D("leaky_relu_cpu", LEAKY_RELU, 1, SAME, NONE, MT_DT_FLOATS_NOHALF, 1, N, N, N);
static const mt_ew_desc d_hardtanh = D("clamp_scalar_cpu", HARDTANH, 1, SAME, NONE, MT_DT_NUMS_NOHALF, 1, 2, N, N);
static const mt_ew_desc d_clamp = D("clamp_scalar_cpu", CLAMP, 1, SAME, CLAMP, MT_DT_NUMS_NOHALF, 1, 2, N, N);
static const mt_ew_desc d_lerp_s = D("lerp_kernel_scalar", LERP, 2, SAME, LERP, MT_DT_FLOATS_NOHALF, 2, N, N, N);
static const mt_ew_desc d_lerp_t = D("lerp_kernel_tensor", LERP, 3, SAME, LERP, MT_DT_FLOATS_NOHALF, N, N, N, N);
static const mt_ew_desc d_addcmul = D("addcmul_cpu_out", ADDCMUL, 3, SAME, NONE, MT_DT_NUMS_NOHALF, 3, N, N, N);
static const mt_ew_desc d_addcdiv = D("addcdiv_cpu_out", ADDCDIV, 3, SAME, ADDCDIV, MT_DT_FLOATS_NOHALF, 3, N, N, N);
static const mt_ew_desc d_where = D("where_cpu", WHERE, 3, SAME, WHERE, MT_DT_ALL, N, N, N, N);

static const struct {
    int op;
    const mt_ew_desc *d;
} table[] = {
    {MT_OP_add_Tensor, &d_add}, {MT_OP_add_Scalar, &d_add}, {MT_OP_add__Tensor, &d_add}, {MT_OP_add__Scalar, &d_add},
    {MT_OP_sub_Tensor, &d_sub}, {MT_OP_sub_Scalar, &d_sub}, {MT_OP_sub__Tensor, &d_sub}, {MT_OP_sub__Scalar, &d_sub},
    {MT_OP_rsub_Tensor, &d_rsub}, {MT_OP_rsub_Scalar, &d_rsub},
    {MT_OP_mul_Tensor, &d_mul}, {MT_OP_mul_Scalar, &d_mul}, {MT_OP_mul__Tensor, &d_mul}, {MT_OP_mul__Scalar, &d_mul},
    {MT_OP_div_Tensor, &d_div}, {MT_OP_div_Scalar, &d_div}, {MT_OP_div__Tensor, &d_div}, {MT_OP_div__Scalar, &d_div},
    {MT_OP_true_divide_Tensor, &d_div}, {MT_OP_true_divide_Scalar, &d_div},
    {MT_OP_true_divide__Tensor, &d_div}, {MT_OP_true_divide__Scalar, &d_div},
    {MT_OP_div_Tensor_mode, &d_div_mode}, {MT_OP_div_Scalar_mode, &d_div_mode},
    {MT_OP_div__Tensor_mode, &d_div_mode}, {MT_OP_div__Scalar_mode, &d_div_mode},
    {MT_OP_floor_divide, &d_floor_divide}, {MT_OP_floor_divide_Scalar, &d_floor_divide},
    {MT_OP_floor_divide__Tensor, &d_floor_divide}, {MT_OP_floor_divide__Scalar, &d_floor_divide},
    {MT_OP_remainder_Tensor, &d_remainder}, {MT_OP_remainder_Scalar, &d_remainder},
    {MT_OP_remainder__Tensor, &d_remainder}, {MT_OP_remainder__Scalar, &d_remainder},
    {MT_OP_remainder_Scalar_Tensor, &d_remainder},
    {MT_OP_fmod_Tensor, &d_fmod}, {MT_OP_fmod_Scalar, &d_fmod}, {MT_OP_fmod__Tensor, &d_fmod}, {MT_OP_fmod__Scalar, &d_fmod},
    {MT_OP_pow_Tensor_Tensor, &d_pow}, {MT_OP_pow_Tensor_Scalar, &d_pow}, {MT_OP_pow_Scalar, &d_pow},
    {MT_OP_pow__Scalar, &d_pow}, {MT_OP_pow__Tensor, &d_pow},
    {MT_OP_atan2, &d_atan2}, {MT_OP_atan2_, &d_atan2},
    {MT_OP_maximum, &d_maximum}, {MT_OP_minimum, &d_minimum},
    {MT_OP_eq_Tensor, &d_eq}, {MT_OP_eq_Scalar, &d_eq}, {MT_OP_eq__Tensor, &d_eq}, {MT_OP_eq__Scalar, &d_eq},
    {MT_OP_ne_Tensor, &d_ne}, {MT_OP_ne_Scalar, &d_ne}, {MT_OP_ne__Tensor, &d_ne}, {MT_OP_ne__Scalar, &d_ne},
    {MT_OP_lt_Tensor, &d_lt}, {MT_OP_lt_Scalar, &d_lt}, {MT_OP_lt__Tensor, &d_lt}, {MT_OP_lt__Scalar, &d_lt},
    {MT_OP_le_Tensor, &d_le}, {MT_OP_le_Scalar, &d_le}, {MT_OP_le__Tensor, &d_le}, {MT_OP_le__Scalar, &d_le},
    {MT_OP_gt_Tensor, &d_gt}, {MT_OP_gt_Scalar, &d_gt}, {MT_OP_gt__Tensor, &d_gt}, {MT_OP_gt__Scalar, &d_gt},
    {MT_OP_ge_Tensor, &d_ge}, {MT_OP_ge_Scalar, &d_ge}, {MT_OP_ge__Tensor, &d_ge}, {MT_OP_ge__Scalar, &d_ge},
    {MT_OP_logical_and, &d_land}, {MT_OP_logical_and_, &d_land},
    {MT_OP_logical_or, &d_lor}, {MT_OP_logical_or_, &d_lor},
    {MT_OP_logical_xor, &d_lxor}, {MT_OP_logical_xor_, &d_lxor},
    {MT_OP_logical_not, &d_lnot}, {MT_OP_logical_not_, &d_lnot},
    {MT_OP_bitwise_and_Tensor, &d_band}, {MT_OP_bitwise_and_Scalar, &d_band},
    {MT_OP_bitwise_and__Tensor, &d_band}, {MT_OP_bitwise_and__Scalar, &d_band},
    {MT_OP_bitwise_or_Tensor, &d_bor}, {MT_OP_bitwise_or_Scalar, &d_bor},
    {MT_OP_bitwise_or__Tensor, &d_bor}, {MT_OP_bitwise_or__Scalar, &d_bor},
    {MT_OP_bitwise_xor_Tensor, &d_bxor}, {MT_OP_bitwise_xor_Scalar, &d_bxor},
    {MT_OP_bitwise_xor__Tensor, &d_bxor}, {MT_OP_bitwise_xor__Scalar, &d_bxor},
    {MT_OP_bitwise_left_shift_Tensor, &d_shl}, {MT_OP_bitwise_left_shift_Scalar, &d_shl},
    {MT_OP_bitwise_left_shift__Tensor, &d_shl}, {MT_OP_bitwise_left_shift__Scalar, &d_shl},
    {MT_OP_bitwise_right_shift_Tensor, &d_shr}, {MT_OP_bitwise_right_shift_Scalar, &d_shr},
    {MT_OP_bitwise_right_shift__Tensor, &d_shr}, {MT_OP_bitwise_right_shift__Scalar, &d_shr},
    {MT_OP_bitwise_not, &d_bnot}, {MT_OP_bitwise_not_, &d_bnot},
    {MT_OP_neg, &d_neg}, {MT_OP_neg_, &d_neg}, {MT_OP_abs, &d_abs}, {MT_OP_abs_, &d_abs},
    {MT_OP_sign, &d_sign}, {MT_OP_sign_, &d_sign},
    {MT_OP_reciprocal, &d_reciprocal}, {MT_OP_reciprocal_, &d_reciprocal},
    {MT_OP_sqrt, &d_sqrt}, {MT_OP_sqrt_, &d_sqrt}, {MT_OP_rsqrt, &d_rsqrt}, {MT_OP_rsqrt_, &d_rsqrt},
    {MT_OP_exp, &d_exp}, {MT_OP_exp_, &d_exp}, {MT_OP_exp2, &d_exp2}, {MT_OP_exp2_, &d_exp2},
    {MT_OP_expm1, &d_expm1}, {MT_OP_expm1_, &d_expm1}, {MT_OP_log, &d_log}, {MT_OP_log_, &d_log},
    {MT_OP_log2, &d_log2}, {MT_OP_log2_, &d_log2}, {MT_OP_log10, &d_log10}, {MT_OP_log10_, &d_log10},
    {MT_OP_log1p, &d_log1p}, {MT_OP_log1p_, &d_log1p}, {MT_OP_sin, &d_sin}, {MT_OP_sin_, &d_sin},
    {MT_OP_cos, &d_cos}, {MT_OP_cos_, &d_cos}, {MT_OP_tan, &d_tan}, {MT_OP_tan_, &d_tan},
    {MT_OP_asin, &d_asin}, {MT_OP_asin_, &d_asin}, {MT_OP_acos, &d_acos}, {MT_OP_acos_, &d_acos},
    {MT_OP_atan, &d_atan}, {MT_OP_atan_, &d_atan}, {MT_OP_sinh, &d_sinh}, {MT_OP_sinh_, &d_sinh},
    {MT_OP_cosh, &d_cosh}, {MT_OP_cosh_, &d_cosh}, {MT_OP_tanh, &d_tanh}, {MT_OP_tanh_, &d_tanh},
    {MT_OP_erf, &d_erf}, {MT_OP_erf_, &d_erf}, {MT_OP_erfc, &d_erfc}, {MT_OP_erfc_, &d_erfc},
    {MT_OP_erfinv, &d_erfinv}, {MT_OP_erfinv_, &d_erfinv},
    {MT_OP_sigmoid, &d_sigmoid}, {MT_OP_sigmoid_, &d_sigmoid}, {MT_OP_relu, &d_relu}, {MT_OP_relu_, &d_relu},
    {MT_OP_floor, &d_floor}, {MT_OP_floor_, &d_floor}, {MT_OP_ceil, &d_ceil}, {MT_OP_ceil_, &d_ceil},
    {MT_OP_round, &d_round}, {MT_OP_round_, &d_round},
    {MT_OP_round_decimals, &d_round_dec}, {MT_OP_round__decimals, &d_round_dec},
    {MT_OP_trunc, &d_trunc}, {MT_OP_trunc_, &d_trunc}, {MT_OP_frac, &d_frac}, {MT_OP_frac_, &d_frac},
    {MT_OP_isnan, &d_isnan}, {MT_OP_isinf, &d_isinf}, {MT_OP_isfinite, &d_isfinite},
    {MT_OP_gelu, &d_gelu}, {MT_OP_gelu_, &d_gelu}, {MT_OP_silu, &d_silu}, {MT_OP_silu_, &d_silu},
    {MT_OP_softplus, &d_softplus}, {MT_OP_elu, &d_elu}, {MT_OP_elu_, &d_elu},
    {MT_OP_leaky_relu, &d_leaky_relu}, {MT_OP_leaky_relu_, &d_leaky_relu},
    {MT_OP_hardtanh, &d_hardtanh}, {MT_OP_hardtanh_, &d_hardtanh},
    {MT_OP_clamp, &d_clamp}, {MT_OP_clamp_, &d_clamp}, {MT_OP_clip, &d_clamp}, {MT_OP_clip_, &d_clamp},
    {MT_OP_lerp_Scalar, &d_lerp_s}, {MT_OP_lerp__Scalar, &d_lerp_s},
    {MT_OP_lerp_Tensor, &d_lerp_t}, {MT_OP_lerp__Tensor, &d_lerp_t},
    {MT_OP_addcmul, &d_addcmul}, {MT_OP_addcmul_, &d_addcmul},
    {MT_OP_addcdiv, &d_addcdiv}, {MT_OP_addcdiv_, &d_addcdiv},
    {MT_OP_where_self, &d_where}, {MT_OP_where_ScalarSelf, &d_where},
    {MT_OP_where_ScalarOther, &d_where}, {MT_OP_where_Scalar, &d_where},
};

void mt_ew_register(void) {
    for (size_t i = 0; i < MT_ARRAY_LEN(table); i++) {
        mt_ew_set_desc(table[i].op, table[i].d);
        mt_disp_meta(table[i].op, mt_meta_elementwise);
    }
}
