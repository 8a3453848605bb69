/* mt_init.c: start-up of the core: the operator registry and the built-in backends. */
#include "mt_autograd.h"
#include "mt_dispatch.h"

#include <pthread.h>

/* The built-in backends' registration entry points (backends/{common,meta,cpu}). */
void mt_common_register(void);
void mt_ew_register(void);
void mt_reduce_register(void);
void mt_linalg_register(void);
void mt_nn_register(void);
void mt_index_register(void);
void mt_adv_index_register(void);
void mt_random_register(void);
void mt_compare_register(void);
void mt_pipeline_register(void);
void mt_meta_register(void);
void mt_cpu_register(void);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_status;

static void init_once(void) {
    if (mt_disp_build()) {
        init_status = -1;
        return;
    }
    mt_ew_register(); /* element-wise descriptions and their meta function, first */
    mt_reduce_register();
    mt_linalg_register();
    mt_nn_register();
    mt_index_register();
    mt_adv_index_register();
    mt_random_register();
    mt_compare_register();
    mt_pipeline_register();
    mt_meta_register();
    mt_cpu_register();
    mt_common_register();
    mt_autograd_register(); /* formulas attach to the ops registered above */
}

int mt_init(void) {
    pthread_once(&once, init_once);
    return init_status;
}
