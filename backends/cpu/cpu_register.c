/* cpu_register.c: the CPU backend's entry point (listed in backends/builtin.c): attaches the
 * creation, copy, reduction and product kernels here, and calls each CPU file's own
 * registration for the rest (element-wise, indexing, random, BLAS, convolution, pooling). */
#include "cpu_kernels.h"
#include "mt_ops_gen.h"

void mt_cpu_register(void) {
    static const struct {
        int op;
        mt_impl_fn fn;
    } impls[] = {
        {MT_OP_empty, mt_cpu_empty_impl},
        {MT_OP_empty_strided, mt_cpu_empty_impl},
        {MT_OP_zeros, mt_cpu_zeros_impl},
        {MT_OP_ones, mt_cpu_ones_impl},
        {MT_OP_full, mt_cpu_full_impl},
        {MT_OP_scalar_tensor, mt_cpu_full_impl},
        {MT_OP_arange, mt_cpu_arange_impl},
        {MT_OP_arange_start, mt_cpu_arange_impl},
        {MT_OP_arange_start_step, mt_cpu_arange_impl},
        {MT_OP_linspace, mt_cpu_linspace_impl},
        {MT_OP_eye, mt_cpu_eye_impl},
        {MT_OP_eye_m, mt_cpu_eye_impl},
        {MT_OP_copy_, mt_cpu_copy_impl},
        {MT_OP_clone, mt_cpu_clone_impl},
        {MT_OP_fill__Scalar, mt_cpu_fill_scalar_impl},
        {MT_OP_fill__Tensor, mt_cpu_fill_tensor_impl},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(impls); i++) mt_disp_impl(impls[i].op, MT_KEY_CPU, impls[i].fn);
    mt_cpu_ew_register(); /* every op with an element-wise description */
    mt_cpu_index_register();
    mt_cpu_adv_index_register();
    mt_cpu_random_register();
    mt_cpu_blas_register();
    mt_cpu_conv_register();
    mt_cpu_pool_register();
    mt_cpu_reduce_select();
    static const int reductions[] = {
        MT_OP_sum, MT_OP_sum_dim_IntList, MT_OP_mean, MT_OP_mean_dim, MT_OP_prod, MT_OP_prod_dim_int,
        MT_OP_max, MT_OP_max_dim, MT_OP_min, MT_OP_min_dim, MT_OP_amax, MT_OP_amin, MT_OP_argmax,
        MT_OP_argmin, MT_OP_var, MT_OP_var_dim, MT_OP_var_correction, MT_OP_std, MT_OP_std_dim,
        MT_OP_std_correction, MT_OP_var_mean, MT_OP_var_mean_dim, MT_OP_var_mean_correction,
        MT_OP_std_mean, MT_OP_std_mean_dim, MT_OP_std_mean_correction, MT_OP_norm_Scalar,
        MT_OP_norm_ScalarOpt_dim, MT_OP_all, MT_OP_all_dim, MT_OP_any, MT_OP_any_dim,
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(reductions); i++) mt_disp_impl(reductions[i], MT_KEY_CPU, mt_cpu_reduce_impl);
    static const int products[] = {MT_OP_mm, MT_OP_bmm, MT_OP_mv, MT_OP_dot, MT_OP_addmm, MT_OP_addmv, MT_OP_baddbmm};
    for (size_t i = 0; i < MT_ARRAY_LEN(products); i++) mt_disp_impl(products[i], MT_KEY_CPU, mt_cpu_linalg_impl);
    static const int dimops[] = {MT_OP_cumsum, MT_OP_cumprod, MT_OP_softmax_int, MT_OP_log_softmax_int};
    for (size_t i = 0; i < MT_ARRAY_LEN(dimops); i++) mt_disp_impl(dimops[i], MT_KEY_CPU, mt_cpu_dimop_impl);
}
