/* lmt.h: the Lua binding's shared declarations (userdata types, push/check helpers).
 *
 * The binding only converts: Lua values to boxed op arguments and results back, with the
 * 1-based numbering of LUA_API.md applied at this boundary. What an op computes, and what
 * out=, pin_memory= and the like do with its results, the core does.
 */
#ifndef LMT_H
#define LMT_H

#include <lauxlib.h>
#include <lua.h>

#include "mt_dispatch.h"

#define LMT_TENSOR "mindtorch.Tensor"
#define LMT_DTYPE "mindtorch.dtype"
#define LMT_DEVICE "mindtorch.device"
#define LMT_STORAGE "mindtorch.UntypedStorage"
#define LMT_TSTORAGE "mindtorch.TypedStorage"
#define LMT_SIZE "mindtorch.Size"

/* A tensor's userdata. The magic word identifies it in one read (no metatable lookup): Lua
 * code cannot write a full userdata's bytes, and other C modules' userdata of this size would
 * have to hold this exact 64-bit value. */
#define LMT_BOX_MAGIC 0x6d74746e73722131ULL /* "mttnsr!1" */
/* the magic of a box whose __gc ran (a finalizer may still reach it): the box stays 16 bytes,
 * the size every tensor's userdata costs */
#define LMT_BOX_FREED 0x6d74746e73722130ULL /* "mttnsr!0" */
typedef struct lmt_box {
    uint64_t magic;
    mt_tensor *t; /* owned reference; NULL once released by <close> or __gc */
} lmt_box;

static inline mt_tensor *lmt_box_tensor(lua_State *L, int idx) {
    lmt_box *b = lua_touserdata(L, idx);
    if (!b || lua_rawlen(L, idx) != sizeof(lmt_box) || b->magic != LMT_BOX_MAGIC) return NULL;
    return b->t;
}

/* ---- errors ---------------------------------------------------------------------------------- */
/* Raise the core's pending error as a Lua error (never returns). */
int lmt_error(lua_State *L);
/* Raise a formatted error without position information (PyTorch words, no file:line). */
int lmt_errorf(lua_State *L, const char *fmt, ...);

/* ---- tensors --------------------------------------------------------------------------------- */
/* Push t, taking over one reference. The same tensor always comes back as the same userdata. */
void lmt_push_tensor(lua_State *L, mt_tensor *t);
mt_tensor *lmt_check_tensor(lua_State *L, int idx);
mt_tensor *lmt_to_tensor(lua_State *L, int idx);         /* NULL if not a (live) tensor */
bool lmt_is_released_tensor(lua_State *L, int idx);      /* a tensor userdata freed by <close> */
const char *lmt_released_message(lua_State *L, int idx); /* why it was: <close> or __gc */
/* Tell Lua's collector about tensor memory allocated since the last call. */
void lmt_gc_hint(lua_State *L);
int lmt_gc_mode(lua_State *L);
int lmt_gc_collections(lua_State *L);
/* ---- autograd (lmt_autograd.c) --------------------------------------------------------------- */
int lmt_set_requires_grad(lua_State *L, mt_tensor *t, bool on);
int lmt_set_grad(lua_State *L, mt_tensor *t, int idx);
/* tensor fields: x.grad, x.grad_fn, x.is_leaf, x.retains_grad, x._version, x.output_nr, x._base */
int lmt_g_grad(lua_State *L, mt_tensor *t);
int lmt_g_grad_fn(lua_State *L, mt_tensor *t);
int lmt_g_is_leaf(lua_State *L, mt_tensor *t);
int lmt_g_retains_grad(lua_State *L, mt_tensor *t);
int lmt_g_version(lua_State *L, mt_tensor *t);
int lmt_g_output_nr(lua_State *L, mt_tensor *t);
int lmt_g_base(lua_State *L, mt_tensor *t);

/* ---- dtypes, devices, sizes ------------------------------------------------------------------ */
void lmt_push_dtype(lua_State *L, mt_dtype dt);
int lmt_to_dtype(lua_State *L, int idx); /* -1 if not a dtype */
mt_dtype lmt_check_dtype(lua_State *L, int idx);
void lmt_push_device(lua_State *L, mt_device d);
/* A device userdata or a string like "cuda:0"; 0 on success, -1 (error set) otherwise. */
int lmt_to_device(lua_State *L, int idx, mt_device *out);
void lmt_push_size(lua_State *L, const int64_t *sizes, int n);
void lmt_push_int_tuple(lua_State *L, const int64_t *v, int n);
/* Read an integer, accepting floats with an integral value (Lua's 6/2 is 3.0). */
int lmt_to_int(lua_State *L, int idx, int64_t *out);

/* ---- ops (lmt_ops.c; the call path's parts: lmt_call.h) -------------------------------------- */
/* A Lua function (closure) that calls every overload of `name` (method or function form). */
void lmt_push_op_function(lua_State *L, const char *name, bool method);

/* ---- module parts (each file registers its own) ---------------------------------------------- */
void lmt_open_dtype(lua_State *L);     /* dtype and device metatables, torch.float32 ... */
void lmt_open_tensor(lua_State *L);    /* the Tensor metatable and torch.Tensor methods */
void lmt_open_storage(lua_State *L);   /* UntypedStorage, TypedStorage */
void lmt_open_ops(lua_State *L);       /* every op declared with a function variant */
void lmt_open_creation(lua_State *L);  /* torch.tensor, torch._wrap_number */
void lmt_open_misc(lua_State *L);      /* default dtype, promotion, threads, pipeline mode */
void lmt_open_generator(lua_State *L); /* torch.Generator, manual_seed, ... */
void lmt_open_index(lua_State *L);     /* torch._index_view (x[{...}] without tensors) */
/* torch._autograd: backward, grad, hooks, modes; graph nodes */
void lmt_open_autograd(lua_State *L);
void lmt_open_io(lua_State *L);     /* torch.frombuffer; the file helpers (_gunzip, _crc32 ...) */
void lmt_open_worker(lua_State *L); /* torch._proc: fork, pipes, waitpid for DataLoader workers */
/* Keep freed small blocks of the state's allocator for reuse (lmt_alloc.c). */
void lmt_install_alloc_cache(lua_State *L);

/* The registry table of the mindtorch module (holds metatables, caches). */
void lmt_push_registry(lua_State *L, const char *field);

#endif
