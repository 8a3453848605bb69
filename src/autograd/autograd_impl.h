/* autograd_impl.h: the autograd layer's internals, shared by its files (not a public API). */
#ifndef MT_AUTOGRAD_IMPL_H
#define MT_AUTOGRAD_IMPL_H

#include "mt_autograd.h"
#include "mt_ops_gen.h"

#include <setjmp.h>
#include <stdatomic.h>

/* ---- saved variables (PyTorch's SavedVariable) ------------------------------------------- */
typedef struct mt_saved {
    mt_tensor *t; /* the data (an alias without autograd history), or NULL when packed */
    void *packed; /* what a saved_tensors_hooks pack returned */
    mt_saved_hooks hooks;
    int64_t version; /* of the tensor when saved */
    mt_version *vc;  /* its version counter (held) */
    bool defined;
    bool is_output;   /* an output of the node that saves it: re-linked to it when unpacked */
    bool is_leaf_req; /* a leaf that requires grad: unpacked with requires_grad set */
    int output_nr;
    mt_node *grad_fn; /* the tensor's grad_fn when saved (held; NULL for outputs) */
    mt_tensor *leaf;  /* a leaf that requires grad (held), unpacked as itself */
    /* what the modified-in-place error names ("torch.FloatTensor [2, 2]"), formatted only then */
    uint8_t dtype;
    int8_t ndim;
    mt_device device;
    int64_t sizes[MT_MAX_DIM];
} mt_saved;

int mt_saved_init(mt_saved *s, mt_tensor *t, bool is_output, int output_nr);
/* The saved tensor (new reference), checked against in-place changes; `owner` is the node
 * that saved it (for outputs and messages). NULL with the error set. */
mt_tensor *mt_saved_unpack(mt_saved *s, mt_node *owner);
void mt_saved_release(mt_saved *s);

/* ---- nodes ------------------------------------------------------------------------------- */
typedef struct mt_edge {
    mt_node *fn; /* owned; NULL: the input does not need a gradient */
    int input_nr;
} mt_edge;

/* what the gradient for an edge / a node input must look like */
typedef struct mt_input_meta {
    int8_t ndim;
    uint8_t dtype;
    mt_device device;
    int64_t sizes[MT_MAX_DIM];
} mt_input_meta;

typedef struct mt_node_kind {
    /* compute grads for the edges (out[i], new references or NULL) from the node's input grads;
     * wanted (NULL: every edge that has a node) says which edges' grads the pass will use, so a
     * formula can skip the others (PyTorch's output_mask from the engine's exec_info) */
    int (*apply)(mt_node *n, mt_tensor **grads, mt_tensor **out, const bool *wanted);
    void (*release_saved)(mt_node *n); /* after a backward that does not retain the graph */
    void (*destroy)(mt_node *n);
} mt_node_kind;

typedef struct mt_hook_entry {
    int64_t handle;
    int slot; /* tensor hooks: the node input (the tensor's output_nr); -1 for node hooks */
    bool pre;
    bool retain; /* retain_grad's hook: runs after the other tensor hooks */
    mt_callback cb;
} mt_hook_entry;

struct mt_derivative;

struct mt_node {
    atomic_int refcount;
    const mt_node_kind *kind;
    const char *name;
    char *owned_name;
    uint64_t sequence_nr;
    int nnext;
    mt_edge *next;
    mt_input_meta *next_meta; /* per edge: the gradient's expected geometry */
    int ninputs;              /* gradients this node receives (its forward's outputs) */
    mt_input_meta *in_meta;   /* in the node's block unless in_meta_own (see link_outputs) */
    bool in_meta_own;
    size_t block_bytes; /* the node and its three arrays are one pooled block (mt_node_new) */
    /* formula nodes */
    const struct mt_derivative *d;
    const mt_op *op;
    mt_value *args;     /* copies of the forward's non-tensor arguments (lists and strings owned) */
    uint32_t save_mask; /* the arguments saved (those a needed gradient reads) */
    uint8_t save_results; /* the results saved */
    uint32_t transposed;  /* 2-d arguments laid out as a transposed contiguous matrix (t() of a
                             contiguous one): matrix-product formulas give their gradients the
                             same layout, so accumulation needs no copy (PyTorch does the same) */
    int nargs;
    mt_saved *saved; /* per tensor argument (by arg index, args then outputs) */
    int nsaved;
    int *edge_of; /* first edge of each argument (-1: none) */
    bool released;
    /* hooks */
    mt_hook_entry *hooks;
    int nhooks;
    int64_t next_handle;
    char *trace; /* anomaly mode: where the forward ran */
    /* AccumulateGrad */
    mt_tensor *variable;
    /* custom functions and CopySlices */
    mt_callback custom;
    void *extra;
};

mt_node *mt_node_new(const mt_node_kind *kind, const char *name, int nnext, int ninputs);
/* next edge i from tensor t (its grad_fn or grad accumulator), with t's geometry */
int mt_node_set_edge(mt_node *n, int i, mt_tensor *t);
void mt_meta_of(mt_input_meta *m, const mt_tensor *t);
uint64_t mt_next_sequence_nr(void);

/* ---- tensors' autograd data ----------------------------------------------------------------- */
typedef struct mt_ag_meta {
    mt_tensor *grad;
    mt_node *grad_fn; /* owned */
    int output_nr;
    mt_node *accumulator; /* weak: the AccumulateGrad node of a leaf, while it lives */
    bool retains_grad;
    int64_t retain_handle;
    /* tensor hooks (leaves: run before accumulation; others: registered on grad_fn) */
    mt_hook_entry *hooks;
    int nhooks;
    int64_t next_handle;
} mt_ag_meta;

mt_ag_meta *mt_ag_meta_of(mt_tensor *t, bool create);
/* set t's history: grad_fn (a new reference is taken) and output number */
int mt_set_history(mt_tensor *t, mt_node *fn, int output_nr);

/* ---- formulas ------------------------------------------------------------------------------- */
#define MT_DERIV_MAX_ARGS 16

/* What a formula sees: the gradients of the outputs (zeros where a gradient is undefined), the
 * forward's arguments (tensors unpacked from the saved variables, NULL when not saved), its
 * saved results, which edges need a gradient, and where to put them. Formulas run their ops
 * through mt_bw_keep (formula.h): a failing op jumps back to the caller, which releases the
 * temporaries, so formulas read as straight-line code. */
typedef struct mt_bw {
    mt_node *node;
    mt_tensor **grads; /* per output */
    mt_value *args;    /* per argument */
    mt_tensor **results;
    mt_tensor **out; /* per edge */
    const int *edge_of;
    const bool *wanted; /* per edge, as the kind's apply got it */
    jmp_buf jump;
    mt_tensor **tmp; /* temporaries released after the formula: tmp_inline, or malloc'd */
    int ntmp, captmp;
    mt_tensor *tmp_inline[16];
} mt_bw;

typedef void (*mt_bw_fn)(mt_bw *b);

enum {
    MT_D_SELF_GEOMETRY = 1 << 0,   /* keep self's strides and offset (as_strided's formula) */
    MT_D_NOT_IMPLEMENTED = 1 << 1, /* a node whose backward says the derivative is missing */
};

/* an argument's layout, kept by nodes whose formulas need more than its sizes (as_strided) */
typedef struct mt_geometry {
    int ndim;
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM], offset;
} mt_geometry;

typedef struct mt_derivative {
    int op;
    const char *name; /* the node's name, PyTorch's ("AddBackward0") */
    mt_bw_fn fn;
    /* Per differentiable argument, the saved tensors its gradient reads, by name:
     * "self: other; other: self" (mul), "self: result" (exp), "self:" (add). Arguments not
     * named before a colon get no gradient (no edge). A tensor is saved only when a gradient
     * that reads it is needed, as PyTorch does. A name with '!' ("!weight:") is an argument that
     * must not require grad (PyTorch's check_no_requires_grad: a call with one fails). */
    const char *uses;
    unsigned flags;
    /* MT_D_NOT_IMPLEMENTED: the op named in the error; otherwise, when set, the error any call
     * with an input that requires grad gets (resize_) */
    const char *message;
    /* the node's name when the result is a copy, not a view of self (reshape) */
    const char *copy_name;
    /* from `uses`, at registration */
    uint32_t diff;                          /* arguments with a gradient */
    uint32_t arg_deps[MT_DERIV_MAX_ARGS];   /* per argument: arguments its formula reads */
    uint8_t result_deps[MT_DERIV_MAX_ARGS]; /* per argument: results its formula reads */
    uint32_t refused;                       /* arguments that must not require grad */
} mt_derivative;

/* the geometry the gradient of argument `arg` must have (NULL: no edge) */
const mt_input_meta *mt_bw_meta(const mt_bw *b, int arg);
/* zeros shaped like the meta (for undefined gradients) */
mt_tensor *mt_zeros_meta(const mt_input_meta *m);
/* grad reduced to the sizes of meta m (sum over broadcast dims) */
mt_tensor *mt_sum_to(mt_tensor *grad, const int64_t *sizes, int ndim);

/* registration of a family's formulas (one table per file); aborts on a malformed `uses` */
void mt_derivatives_register(mt_derivative *table, int n);
void mt_deriv_declared_register(
    void); /* the `grad` fields of src/ops/ (build/gen/mt_derivatives_gen.c) */
void mt_deriv_linalg_register(void);
void mt_deriv_nn_register(void);
void mt_deriv_shape_register(void);
void mt_deriv_index_register(void);

/* a formula node for op `opid` built from boxed arguments (views.c regenerates view histories
 * with it); outputs are not linked */
mt_node *mt_formula_node(int opid, mt_value *args);

/* ---- views and in-place ops (views.c) -------------------------------------------------------- */
/* a view whose history follows its base's (PyTorch's differentiable view) */
static inline bool mt_is_diff_view(const mt_tensor *t) {
    return (t->flags & (MT_T_VIEW | MT_T_VIEW_NODIFF)) == MT_T_VIEW && t->base;
}
/* t's grad_fn, regenerated first when t is a view whose base was modified in place since */
mt_node *mt_current_grad_fn(mt_tensor *t);
/* PyTorch's check_inplace: the errors for writing to leaves and to views that forbid it */
int mt_check_inplace(mt_tensor *self);
/* an in-place op's node `fn` on a view: the base's history becomes CopySlices(fn) */
int mt_rebase_view(mt_tensor *view, mt_node *fn);

/* ---- the engine ----------------------------------------------------------------------------- */
/* run the node's hooks around its application (engine.c) */
int mt_node_call(mt_node *n, mt_tensor **grads, mt_tensor **out, const bool *wanted);
extern const mt_node_kind mt_accumulate_kind;
extern const mt_node_kind mt_formula_kind;

#endif
