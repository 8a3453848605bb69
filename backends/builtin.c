/* builtin.c: the backends built into the core library, in the order mt_init registers them.
 * The device-independent op families come first (their meta functions and descriptions), then
 * the devices' kernels; the composite ops last. A new built-in backend adds its row here. */
#include "cpu_kernels.h"
#include "mt_builtin.h"

void mt_ew_register(void);
void mt_reduce_register(void);
void mt_linalg_register(void);
void mt_nn_register(void);
void mt_index_register(void);
void mt_adv_index_register(void);
void mt_random_register(void);
void mt_compare_register(void);
void mt_meta_register(void);
void mt_common_register(void);
void mt_shape_more_register(void);
void mt_products_register(void);
void mt_index_more_register(void);
void mt_linalg_lapack_register(void);
void mt_linalg_comp_register(void);
void mt_linalg_spectral_register(void);
void mt_scatter_reduce_register(void);
void mt_statistics_register(void);

const mt_builtin mt_builtins[] = {
    {"ew", mt_ew_register, NULL}, /* element-wise descriptions and their meta function, first */
    {"reduce", mt_reduce_register, NULL},
    {"linalg", mt_linalg_register, NULL},
    {"linalg_lapack", mt_linalg_lapack_register, NULL}, /* the factorizations' meta functions */
    {"nn", mt_nn_register, NULL},
    {"index", mt_index_register, NULL},
    {"adv_index", mt_adv_index_register, NULL},
    {"random", mt_random_register, NULL},
    {"compare", mt_compare_register, NULL},
    {"meta", mt_meta_register, NULL},
    {"cpu", mt_cpu_register, mt_cpu_blas_config},
    {"composite", mt_common_register, NULL},
    {"shape_more", mt_shape_more_register, NULL},
    {"products", mt_products_register, NULL},
    {"index_more", mt_index_more_register, NULL},
    {"linalg_comp", mt_linalg_comp_register, NULL},
    {"linalg_spectral", mt_linalg_spectral_register, NULL},
    {"scatter_reduce", mt_scatter_reduce_register, NULL},
    {"statistics", mt_statistics_register, NULL},
};
const int mt_num_builtins = (int)MT_ARRAY_LEN(mt_builtins);
