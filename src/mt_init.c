/* mt_init.c: start-up of the core: the operator registry, the built-in backends (listed by
 * backends/builtin.c), the pipeline and autograd layers. */
#include "mt_autograd.h"
#include "mt_builtin.h"
#include "mt_dispatch.h"
#include "mt_pipeline.h"

#include <pthread.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_status;

static void init_once(void) {
    if (mt_disp_build()) {
        init_status = -1;
        return;
    }
    for (int i = 0; i < mt_num_builtins; i++) mt_builtins[i].register_ops();
    mt_pipeline_register();
    mt_autograd_register(); /* formulas attach to the ops registered above */
}

int mt_init(void) {
    pthread_once(&once, init_once);
    return init_status;
}

const char *mt_builtin_config(const char *name) {
    for (int i = 0; i < mt_num_builtins; i++)
        if (strcmp(mt_builtins[i].name, name) == 0)
            return mt_builtins[i].config ? mt_builtins[i].config() : NULL;
    return NULL;
}
