/* mt_builtin.h: the backends linked into the core library.
 *
 * backends/builtin.c lists them in registration order; the core's start-up (mt_init.c) runs
 * each entry without naming any backend. A device module loaded at run time registers itself
 * when it loads instead (mt_device.h).
 */
#ifndef MT_BUILTIN_H
#define MT_BUILTIN_H

#include "mt_common.h"

typedef struct mt_builtin {
    const char *name;            /* "cpu", "meta", or the device-independent op family ("ew") */
    void (*register_ops)(void);  /* attaches its meta functions and kernels to the ops */
    const char *(*config)(void); /* how it was built (torch.__config__), or NULL */
} mt_builtin;

extern const mt_builtin mt_builtins[];
extern const int mt_num_builtins;

/* The build description of the built-in backend `name` (the CPU's: its BLAS), or NULL. */
const char *mt_builtin_config(const char *name);

#endif
