/* mt_autograd.h: reverse-mode automatic differentiation, PyTorch's way.
 *
 * Autograd is the dispatcher's Autograd key. Its kernel runs an op below itself, then records
 * a graph node (its derivative formulas, the tensors they need, edges to the nodes of the
 * inputs) on the outputs. backward() runs the nodes reachable from the roots once each, in
 * dependency order, summing the gradients that meet at a node and accumulating the ones that
 * reach leaves into their .grad. Formulas are written with dispatcher ops, so with
 * create_graph the backward pass is itself recorded (higher-order gradients).
 *
 * Lua (or any host) plugs in through callbacks: tensor hooks, saved-tensor hooks, custom
 * functions' backward and anomaly tracebacks; the core never calls Lua directly. */
#ifndef MT_AUTOGRAD_H
#define MT_AUTOGRAD_H

#include "mt_dispatch.h"

typedef struct mt_node mt_node;

/* A callback the host provides: fn(ctx, ...), and release(ctx) when it is no longer needed. */
typedef struct mt_callback {
    void *fn;
    void *ctx;
    void (*release)(void *ctx);
} mt_callback;

/* ---- grad modes (thread-local) ------------------------------------------------------------ */
MT_API bool mt_grad_enabled(void);
MT_API void mt_set_grad_enabled(bool on);
MT_API bool mt_inference_mode(void);
MT_API void mt_set_inference_mode(bool on);
MT_API bool mt_anomaly_enabled(void);
/* anomaly mode's NaN check on every gradient (PyTorch's check_nan, on by default) */
MT_API bool mt_anomaly_check_nan(void);
MT_API void mt_set_anomaly_check_nan(bool on);
MT_API void mt_set_anomaly_enabled(bool on);

/* ---- tensors ------------------------------------------------------------------------------ */
/* requires_grad for a leaf (errors for non-floating dtypes and non-leaves as PyTorch does). */
MT_API int mt_set_requires_grad(mt_tensor *t, bool on);
MT_API bool mt_is_leaf(mt_tensor *t);
/* x.detach_(): t leaves its graph (a leaf that does not require grad); views are refused. */
MT_API int mt_detach_(mt_tensor *t);
/* Borrowed references (NULL when none). A view whose base was written in place since its
 * history was set gets a new one first (PyTorch regenerates views' grad_fn the same way). */
MT_API mt_node *mt_grad_fn(mt_tensor *t);
MT_API int mt_output_nr(const mt_tensor *t);
MT_API mt_tensor *mt_grad(const mt_tensor *t);
/* Set .grad (a new reference is taken; NULL clears). Checks shape, dtype and device. */
MT_API int mt_set_grad(mt_tensor *t, mt_tensor *grad);
MT_API int mt_retain_grad(mt_tensor *t);
MT_API bool mt_retains_grad(const mt_tensor *t);
/* The gradient accumulator of a leaf that requires grad (a new reference). */
MT_API mt_node *mt_grad_accumulator(mt_tensor *t);

/* A tensor hook: fn(ctx, grad, &replacement) returns -1 on error; a non-NULL replacement (new
 * reference) becomes the gradient. Returns a handle for removal. */
typedef int (*mt_tensor_hook_fn)(void *ctx, mt_tensor *grad, mt_tensor **replacement);
MT_API int mt_register_hook(mt_tensor *t, mt_callback hook, int64_t *handle);
MT_API void mt_remove_hook(mt_tensor *t, int64_t handle);

/* ---- nodes --------------------------------------------------------------------------------- */
MT_API void mt_node_incref(mt_node *n);
MT_API void mt_node_decref(mt_node *n);
MT_API const char *mt_node_name(const mt_node *n);
MT_API int mt_node_num_next(const mt_node *n);
/* Edge i: the node gradients flow to (borrowed, may be NULL) and its input number. */
MT_API mt_node *mt_node_next(const mt_node *n, int i, int *input_nr);
/* The leaf of an AccumulateGrad node (borrowed), else NULL. */
MT_API mt_tensor *mt_node_variable(const mt_node *n);
MT_API uint64_t mt_node_sequence_nr(const mt_node *n);
/* Node hooks: pre-hooks see the gradients flowing in, post-hooks those flowing out too. */
typedef int (*mt_node_hook_fn)(void *ctx, mt_node *n, int ngrad_in, mt_tensor **grad_in,
                               int ngrad_out, mt_tensor **grad_out);
MT_API int mt_node_register_hook(mt_node *n, mt_callback hook, bool pre, int64_t *handle);
MT_API void mt_node_remove_hook(mt_node *n, int64_t handle);
/* The op a formula node records (its MT_OP_ id), or -1 for other nodes. */
MT_API int mt_node_op(const mt_node *n);

/* ---- running backward ---------------------------------------------------------------------- */
typedef struct mt_backward_opts {
    bool retain_graph, create_graph, allow_unused;
    /* torch.autograd.grad: gradients of these, returned instead of accumulated (NULL: backward) */
    mt_tensor **inputs;
    int ninputs;
    bool accumulate; /* backward(inputs=...): accumulate only into these */
} mt_backward_opts;

/* Roots and their gradients (NULL: ones for a scalar root). `results` (ninputs entries, new
 * references or NULL for unused) is filled for torch.autograd.grad. */
MT_API int mt_backward(mt_tensor **roots, mt_tensor **grads, int n, const mt_backward_opts *opts,
                       mt_tensor **results);

/* ---- saved tensors ------------------------------------------------------------------------- */
/* autograd.graph.saved_tensors_hooks: pack(ctx, tensor) -> an opaque handle, unpack(ctx,
 * handle) -> a tensor (new reference); release frees a handle. Thread-local stack. */
typedef struct mt_saved_hooks {
    void *(*pack)(void *ctx, mt_tensor *t);
    mt_tensor *(*unpack)(void *ctx, void *packed);
    void (*release_packed)(void *ctx, void *packed);
    void *ctx;
} mt_saved_hooks;
MT_API int mt_push_saved_hooks(mt_saved_hooks hooks);
MT_API void mt_pop_saved_hooks(void);

/* ---- custom functions (torch.autograd.Function) ---------------------------------------------- */
/* backward(ctx, node, ngrads, grads, ninputs, out): the gradients of the node's outputs in
 * (undefined ones as NULL), one gradient per forward input out (new references or NULL);
 * returns -1 with the error set. */
typedef int (*mt_custom_backward_fn)(void *ctx, mt_node *n, int ngrads, mt_tensor **grads,
                                     int ninputs, mt_tensor **out);
/* A node named `name` for a forward the host ran without grad. inputs[i] may be NULL (an
 * argument that is not a tensor). Outputs get the node as history unless non_differentiable;
 * an output marked dirty is an input the forward modified in place (checked as PyTorch's
 * in-place ops are). `save` are the tensors ctx.save_for_backward kept (NULL entries allowed).
 * Returns a new reference. */
MT_API mt_node *mt_custom_node(const char *name, mt_callback backward, mt_tensor **inputs,
                               int ninputs, mt_tensor **outputs, int noutputs,
                               const bool *non_differentiable, const bool *dirty, mt_tensor **save,
                               int nsave);
/* The saved tensors of a custom node (new references; NULL where None was saved), checked
 * against in-place changes since. *count gets their number; out may be NULL to ask it. */
MT_API int mt_custom_saved(mt_node *n, mt_tensor **out, int *count);

/* Anomaly mode: the host records the current traceback on new nodes through this hook. */
MT_API void mt_set_trace_hook(char *(*hook)(void));
/* Called before a host callback (a Lua hook) runs from inside backward, so the host can find
 * its state; NULL by default. */

/* Whether op `opid` has derivative formulas that compute gradients (coverage tests list them). */
MT_API bool mt_op_has_derivative(int opid);

void mt_autograd_register(void);

#endif
