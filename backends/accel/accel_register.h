/* accel_register.h: what loading an accelerator module does, written once: pin the module in
 * memory (the core keeps pointers into it), initialise the core, register the backend and its
 * kernel tables, by op name, on the dispatch key the core gives its device. */
#ifndef MT_ACCEL_REGISTER_H
#define MT_ACCEL_REGISTER_H

#include <stddef.h>

#include "mt_dispatch.h"

typedef struct accel_kernel_table {
    const mt_kernel_entry *entries;
    const size_t *n;
} accel_kernel_table;

/* Pins the module that holds `self` (any of its functions), runs mt_init, finds the ops named in
 * `ops` (NULL-terminated) into `found`, registers b and the tables. Returns the device type, or
 * -1 with the error set. */
int accel_register(void (*self)(void), const char *const *ops, const mt_op **found, mt_backend *b,
                   const accel_kernel_table *tables, size_t ntables);

#endif
