/* cpu_register.c: the CPU backend's entry point (listed in backends/builtin.c): attaches the
 * creation and copy kernels and the generic kernels of the declared op groups (reductions, ops
 * along a dim, products), and calls each CPU file's own registration for the rest (element-wise,
 * indexing, random, BLAS, convolution, pooling, losses). */
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
        {MT_OP_logspace, mt_cpu_logspace_impl},
        {MT_OP_range_step, mt_cpu_range_impl},
        {MT_OP_eye, mt_cpu_eye_impl},
        {MT_OP_eye_m, mt_cpu_eye_impl},
        {MT_OP_copy_, mt_cpu_copy_impl},
        {MT_OP_clone, mt_cpu_clone_impl},
        {MT_OP_fill__Scalar, mt_cpu_fill_scalar_impl},
        {MT_OP_fill__Tensor, mt_cpu_fill_tensor_impl},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(impls); i++)
        mt_disp_impl(impls[i].op, MT_KEY_CPU, impls[i].fn);
    mt_cpu_ew_register(); /* every op with an element-wise description */
    mt_cpu_index_register();
    mt_cpu_adv_index_register();
    mt_cpu_random_register();
    mt_cpu_blas_register();
    mt_cpu_conv_register();
    mt_cpu_batch_norm_register();
    mt_cpu_pool_register();
    mt_cpu_nll_loss_register();
    mt_cpu_lapack_register();
    mt_cpu_lapack_spectral_register();
    mt_cpu_scatter_reduce_register();
    mt_cpu_stats_register();
    mt_cpu_reduce_select();
    /* the generic kernels of the declared groups (src/ops: reduce =, dimop =, group = "product") */
    mt_disp_impl_group(MT_GROUP_REDUCTION, MT_KEY_CPU, mt_cpu_reduce_impl);
    mt_disp_impl_group(MT_GROUP_PRODUCT, MT_KEY_CPU, mt_cpu_linalg_impl);
    mt_disp_impl_group(MT_GROUP_DIMOP, MT_KEY_CPU, mt_cpu_dimop_impl);
}
