/* meta_register.c: the meta functions of the creation and copy ops. The op families in
 * backends/common attach their own meta functions (mt_ew_register, mt_reduce_register ...). */
#include "meta_fns.h"
#include "mt_ops_gen.h"

void mt_meta_register(void) {
    mt_disp_meta(MT_OP_empty, mt_meta_empty);
    mt_disp_meta(MT_OP_zeros, mt_meta_sized_factory);
    mt_disp_meta(MT_OP_ones, mt_meta_sized_factory);
    mt_disp_meta(MT_OP_full, mt_meta_full);
    mt_disp_meta(MT_OP_empty_strided, mt_meta_empty_strided);
    mt_disp_meta(MT_OP_scalar_tensor, mt_meta_scalar_tensor);
    mt_disp_meta(MT_OP_arange, mt_meta_arange);
    mt_disp_meta(MT_OP_arange_start, mt_meta_arange);
    mt_disp_meta(MT_OP_arange_start_step, mt_meta_arange);
    mt_disp_meta(MT_OP_linspace, mt_meta_linspace);
    mt_disp_meta(MT_OP_logspace, mt_meta_logspace);
    mt_disp_meta(MT_OP_range_step, mt_meta_range);
    mt_disp_meta(MT_OP_eye, mt_meta_eye);
    mt_disp_meta(MT_OP_eye_m, mt_meta_eye);

    mt_disp_meta(MT_OP_copy_, mt_meta_copy_);
    mt_disp_meta(MT_OP_fill__Scalar, mt_meta_fill_scalar);
    mt_disp_meta(MT_OP_fill__Tensor, mt_meta_fill_tensor);
    mt_disp_meta(MT_OP_clone, mt_meta_clone);
}
