/* accel_register.c: registering an accelerator module with the core (accel_register.h). */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "accel_register.h"

int accel_register(void (*self)(void), const char *const *ops, const mt_op **found, mt_backend *b,
                   const accel_kernel_table *tables, size_t ntables) {
    /* the core keeps pointers into the module (its backend, kernels, allocator): it must never
     * be unloaded, even when the lua_State that required it closes and dlcloses it */
    Dl_info info;
    if (!dladdr((void *)self, &info) || !info.dli_fname ||
        !dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE))
        return mt_error(MT_ERR_RUNTIME, "the %s module cannot pin itself in memory: %s", b->name,
                        dlerror());
    if (mt_init()) return -1;
    for (size_t i = 0; ops[i]; i++)
        if (!(found[i] = mt_op_lookup(ops[i])))
            return mt_error(MT_ERR_RUNTIME, "the %s module needs the op %s", b->name, ops[i]);
    int type = mt_backend_register(MT_BACKEND_ABI_VERSION, b);
    if (type < 0) return -1;
    int key = mt_key_for_device(type);
    if (key < 0) return -1;
    for (size_t i = 0; i < ntables; i++)
        if (mt_backend_register_kernels(MT_BACKEND_ABI_VERSION, key, tables[i].entries,
                                        *tables[i].n))
            return -1;
    return type;
}
