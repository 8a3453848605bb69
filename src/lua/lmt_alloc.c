/* lmt_alloc.c: a cache of small blocks in front of the lua_State's allocator.
 *
 * Every tensor a Lua program makes is a userdata, allocated and (after collection) freed by
 * Lua's allocator: with the C library's malloc that is a good part of a small op's cost. Lua
 * tells its allocator the size of every block it frees, so freed blocks of each small size
 * can be kept and handed out again for that same size. All blocks still come from and go
 * back to the state's original allocator, so blocks allocated before the cache was installed
 * mix in freely. When the state closes, the cache gives its blocks back and puts the original
 * allocator back in place. */
#include "lmt.h"

#include <stdlib.h>

#define MAX_SIZE 256      /* bytes: the sizes cached (userdata, tables, closures, short strings) */
#define MAX_PER_SIZE 8192 /* blocks kept per size */

typedef struct free_block {
    struct free_block *next;
} free_block;

typedef struct cache {
    lua_Alloc orig;
    void *orig_ud;
    free_block *lists[MAX_SIZE + 1];
    int counts[MAX_SIZE + 1];
} cache;

static void *cached_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    cache *c = ud;
    if (nsize == 0) { /* free */
        if (ptr && osize >= sizeof(free_block) && osize <= MAX_SIZE &&
            c->counts[osize] < MAX_PER_SIZE) {
            free_block *b = ptr;
            b->next = c->lists[osize];
            c->lists[osize] = b;
            c->counts[osize]++;
            return NULL;
        }
        return c->orig(c->orig_ud, ptr, osize, nsize);
    }
    if (!ptr && nsize >= sizeof(free_block) && nsize <= MAX_SIZE &&
        c->lists[nsize]) { /* new block */
        free_block *b = c->lists[nsize];
        c->lists[nsize] = b->next;
        c->counts[nsize]--;
        return b;
    }
    return c->orig(c->orig_ud, ptr, osize, nsize);
}

static void release(lua_State *L, cache *c) {
    for (size_t s = 0; s <= MAX_SIZE; s++)
        while (c->lists[s]) {
            free_block *b = c->lists[s];
            c->lists[s] = b->next;
            c->orig(c->orig_ud, b, s, 0);
        }
    lua_setallocf(L, c->orig, c->orig_ud);
    free(c);
}

/* the registry's sentinel: collected when the state closes */
static int sentinel_gc(lua_State *L) {
    cache **slot = lua_touserdata(L, 1);
    if (*slot) {
        release(L, *slot);
        *slot = NULL;
    }
    return 0;
}

void lmt_install_alloc_cache(lua_State *L) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, "mindtorch.alloc_cache") != LUA_TNIL) {
        lua_pop(L, 1);
        return; /* already in place for this state */
    }
    lua_pop(L, 1);
    cache *c = calloc(1, sizeof *c);
    if (!c) return; /* no cache: everything still works */
    c->orig = lua_getallocf(L, &c->orig_ud);
    cache **slot = lua_newuserdatauv(L, sizeof *slot, 0);
    *slot = c;
    lua_newtable(L);
    lua_pushcfunction(L, sentinel_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, "mindtorch.alloc_cache");
    lua_setallocf(L, cached_alloc, c);
}
