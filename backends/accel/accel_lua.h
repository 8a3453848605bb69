/* accel_lua.h: the raw Lua functions of torch.<dev> over an accelerator's driver and shared
 * allocators (lua/mindtorch/_accelerator.lua shapes them into torch.cuda's API): devices,
 * properties, peer access, memory statistics and snapshots, pinned memory, streams (handed
 * out round-robin from per-device pools, as torch.cuda's) and events. */
#ifndef MT_ACCEL_LUA_H
#define MT_ACCEL_LUA_H

#include <lua.h>
#include <pthread.h>

#include "accel_storage.h"

enum { ACCEL_STREAMS_PER_POOL = 4 };

typedef struct accel_module {
    const accel_driver *drv;
    accel_storage *storage;  /* the module's caching allocators */
    pthread_mutex_t pool_mu; /* PTHREAD_MUTEX_INITIALIZER */
    void *stream_pool[ACCEL_MAX_DEVICES][2][ACCEL_STREAMS_PER_POOL];
    unsigned stream_next[ACCEL_MAX_DEVICES][2];
} accel_module;

/* Set the functions into the table on top of the stack (m lives for the process). */
void accel_lua_register(lua_State *L, accel_module *m);

#endif
