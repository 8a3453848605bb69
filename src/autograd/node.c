/* node.c: graph nodes, saved variables, and the autograd data tensors carry. */
#include "autograd_impl.h"
#include "mt_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- grad modes ------------------------------------------------------------------------------ */

static _Thread_local bool anomaly;

bool mt_grad_enabled(void) {
    return mt_tls_get()->grad_enabled;
}
void mt_set_grad_enabled(bool on) {
    mt_tls_get()->grad_enabled = on;
}
bool mt_inference_mode(void) {
    return mt_tls_get()->inference_mode;
}
void mt_set_inference_mode(bool on) {
    mt_tls *s = mt_tls_get();
    s->inference_mode = on;
    mt_tensor_set_inference_tls(on);
}
bool mt_anomaly_enabled(void) {
    return anomaly;
}
void mt_set_anomaly_enabled(bool on) {
    anomaly = on;
}
static _Thread_local bool anomaly_check_nan = true;
bool mt_anomaly_check_nan(void) {
    return anomaly_check_nan;
}
void mt_set_anomaly_check_nan(bool on) {
    anomaly_check_nan = on;
}

static char *(*trace_hook)(void);
void mt_set_trace_hook(char *(*hook)(void)) {
    trace_hook = hook;
}

static atomic_ullong sequence;
uint64_t mt_next_sequence_nr(void) {
    return atomic_fetch_add(&sequence, 1);
}

/* ---- tensors' autograd data ------------------------------------------------------------------ */

static void remove_hook(mt_hook_entry *hooks, int *n, int64_t handle);

static void release_hooks(mt_hook_entry *h, int n) {
    for (int i = 0; i < n; i++)
        if (h[i].cb.release) h[i].cb.release(h[i].cb.ctx);
    free(h);
}

static void free_meta(mt_tensor *t) {
    mt_ag_meta *m = t->autograd;
    t->autograd = NULL;
    if (!m) return;
    if (m->retains_grad && m->grad_fn)
        remove_hook(m->grad_fn->hooks, &m->grad_fn->nhooks, m->retain_handle);
    mt_tensor_decref(m->grad);
    mt_node_decref(m->grad_fn);
    release_hooks(m->hooks, m->nhooks);
    mt_pool_free_aligned(m, sizeof *m);
}

mt_ag_meta *mt_ag_meta_of(mt_tensor *t, bool create) {
    if (t->autograd || !create) return t->autograd;
    mt_ag_meta *m = mt_pool_alloc_aligned(sizeof *m);
    if (m) memset(m, 0, sizeof *m);
    if (!m) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    m->next_handle = 1;
    t->autograd = m;
    return m;
}

static int retain_fn(void *ctx, mt_tensor *grad, mt_tensor **replacement);
static int add_hook(mt_hook_entry **hooks, int *n, int64_t *next, mt_callback cb, int slot,
                    bool pre, bool retain, int64_t *handle);

int mt_set_history(mt_tensor *t, mt_node *fn, int output_nr) {
    mt_ag_meta *m = mt_ag_meta_of(t, true);
    if (!m) return -1;
    bool move_retain = m->retains_grad && m->grad_fn && m->grad_fn != fn;
    if (move_retain) remove_hook(m->grad_fn->hooks, &m->grad_fn->nhooks, m->retain_handle);
    mt_node_incref(fn);
    mt_node_decref(m->grad_fn);
    m->grad_fn = fn;
    m->output_nr = output_nr;
    t->attr_version = mt_tensor_version(t);
    t->flags |= MT_T_REQUIRES_GRAD;
    if (move_retain) { /* retain_grad follows the tensor to its new history */
        mt_callback cb = {(void *)retain_fn, t, NULL};
        return add_hook(&fn->hooks, &fn->nhooks, &fn->next_handle, cb, output_nr, true, true,
                        &m->retain_handle);
    }
    return 0;
}

int mt_detach_(mt_tensor *t) {
    if (t->flags & MT_T_VIEW)
        return mt_error(
            MT_ERR_RUNTIME,
            "Can't detach views in-place. Use detach() instead. If you are using "
            "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
            "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
            "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
            "function in torch/optim/optimizer.py as the solution.");
    mt_ag_meta *m = t->autograd;
    if (m) {
        if (m->retains_grad && m->grad_fn)
            remove_hook(m->grad_fn->hooks, &m->grad_fn->nhooks, m->retain_handle);
        m->retains_grad = false;
        mt_node_decref(m->grad_fn);
        m->grad_fn = NULL;
        m->output_nr = 0;
    }
    t->flags &= (uint16_t)~MT_T_REQUIRES_GRAD;
    return 0;
}

bool mt_is_leaf(mt_tensor *t) {
    return mt_current_grad_fn(t) == NULL;
}

mt_node *mt_grad_fn(mt_tensor *t) {
    return mt_current_grad_fn(t);
}

int mt_output_nr(const mt_tensor *t) {
    mt_ag_meta *m = t->autograd;
    return m ? m->output_nr : 0;
}

mt_tensor *mt_grad(const mt_tensor *t) {
    mt_ag_meta *m = t->autograd;
    return m ? m->grad : NULL;
}

int mt_set_requires_grad(mt_tensor *t, bool on) {
    if (!mt_is_leaf(t)) {
        if (on) return 0;
        return mt_error(MT_ERR_RUNTIME, "you can only change requires_grad flags of leaf "
                                        "variables. If you want to use a computed "
                                        "variable in a subgraph that doesn't require "
                                        "differentiation use var_no_grad = var.detach().");
    }
    if (on && !mt_dtype_is_floating((mt_dtype)t->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "only Tensors of floating point and complex dtype can require gradients");
    if (on && (t->flags & MT_T_INFERENCE) && !mt_inference_mode())
        return mt_error(
            MT_ERR_RUNTIME,
            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
    if (on)
        t->flags |= MT_T_REQUIRES_GRAD;
    else
        t->flags &= (uint16_t)~MT_T_REQUIRES_GRAD;
    return 0;
}

static bool same_geometry(const mt_tensor *a, const mt_tensor *b) {
    return a->ndim == b->ndim && memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim) == 0;
}

int mt_set_grad(mt_tensor *t, mt_tensor *grad) {
    if (grad) {
        if (grad->dtype != t->dtype)
            return mt_error(MT_ERR_RUNTIME, "assigned grad has data of a different type");
        if (!mt_device_eq(grad->device, t->device))
            return mt_error(MT_ERR_RUNTIME, "assigned grad has data located on a different device");
        if (!same_geometry(grad, t))
            return mt_error(MT_ERR_RUNTIME, "assigned grad has data of a different size");
    }
    mt_ag_meta *m = mt_ag_meta_of(t, grad != NULL);
    if (!m) return grad ? -1 : 0;
    if (grad) mt_tensor_incref(grad);
    mt_tensor_decref(m->grad);
    m->grad = grad;
    return 0;
}

bool mt_retains_grad(const mt_tensor *t) {
    mt_ag_meta *m = t->autograd;
    return m && m->retains_grad;
}

/* ---- nodes ----------------------------------------------------------------------------------- */

/* A node and its edge and metadata arrays come as one block from the per-thread pool: a small
 * op's node was four callocs, and Lua's collector frees nodes in batches (with the tensors that
 * hold them) that overflow the C library's small caches. */
mt_node *mt_node_new(const mt_node_kind *kind, const char *name, int nnext, int ninputs) {
    size_t ne = (size_t)(nnext ? nnext : 1), ni = (size_t)(ninputs ? ninputs : 1);
    size_t bytes = sizeof(mt_node) + ne * (sizeof(mt_edge) + sizeof(mt_input_meta)) +
                   ni * sizeof(mt_input_meta);
    mt_node *n = mt_pool_alloc_aligned(bytes);
    if (!n) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    memset(n, 0, bytes);
    n->block_bytes = bytes;
    atomic_init(&n->refcount, 1);
    n->kind = kind;
    n->name = name;
    n->nnext = nnext;
    n->ninputs = ninputs;
    n->next_handle = 1;
    n->sequence_nr = mt_next_sequence_nr();
    n->next = (mt_edge *)(n + 1);
    n->next_meta = (mt_input_meta *)(n->next + ne);
    n->in_meta = n->next_meta + ne;
    if (anomaly && trace_hook) n->trace = trace_hook();
    return n;
}

void mt_node_incref(mt_node *n) {
    if (n) atomic_fetch_add_explicit(&n->refcount, 1, memory_order_relaxed);
}

void mt_node_decref(mt_node *n) {
    if (!n || atomic_fetch_sub_explicit(&n->refcount, 1, memory_order_acq_rel) != 1) return;
    if (n->kind && n->kind->destroy) n->kind->destroy(n);
    for (int i = 0; i < n->nnext; i++) mt_node_decref(n->next[i].fn);
    if (n->in_meta_own) free(n->in_meta);
    release_hooks(n->hooks, n->nhooks);
    free(n->trace);
    free(n->owned_name);
    mt_pool_free_aligned(n, n->block_bytes);
}

const char *mt_node_name(const mt_node *n) {
    return n->name;
}
int mt_node_num_next(const mt_node *n) {
    return n->nnext;
}
uint64_t mt_node_sequence_nr(const mt_node *n) {
    return n->sequence_nr;
}
int mt_node_op(const mt_node *n) {
    return n->op ? n->op->id : -1;
}
mt_tensor *mt_node_variable(const mt_node *n) {
    return n->kind == &mt_accumulate_kind ? n->variable : NULL;
}

mt_node *mt_node_next(const mt_node *n, int i, int *input_nr) {
    if (i < 0 || i >= n->nnext) return NULL;
    if (input_nr) *input_nr = n->next[i].input_nr;
    return n->next[i].fn;
}

void mt_meta_of(mt_input_meta *m, const mt_tensor *t) {
    m->ndim = t->ndim;
    m->dtype = t->dtype;
    m->device = t->device;
    memcpy(m->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
}

/* ---- AccumulateGrad -------------------------------------------------------------------------- */

static void accumulate_destroy(mt_node *n) {
    mt_ag_meta *m = n->variable ? n->variable->autograd : NULL;
    if (m && m->accumulator == n) m->accumulator = NULL;
    mt_tensor_decref(n->variable);
}

static bool is_sole_owner(mt_tensor *g) {
    return atomic_load(&g->refcount) == 1 && !(g->flags & MT_T_VIEW) &&
           atomic_load(&g->storage->refcount) == 1;
}

/* dense and non-overlapping: its strides are a permutation of contiguous ones */
static bool dense_non_overlapping(const mt_tensor *t) {
    int order[MT_MAX_DIM];
    for (int i = 0; i < t->ndim; i++) order[i] = i;
    for (int i = 1; i < t->ndim; i++) /* dims by increasing stride */
        for (int j = i; j > 0 && t->strides[order[j]] < t->strides[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    int64_t expect = 1;
    for (int i = 0; i < t->ndim; i++) {
        int d = order[i];
        if (t->sizes[d] == 1) continue;
        if (t->strides[d] != expect) return false;
        expect *= t->sizes[d];
    }
    return true;
}

static bool same_strides(const mt_tensor *a, const mt_tensor *b) {
    for (int i = 0; i < a->ndim; i++)
        if (a->sizes[i] != 1 && a->strides[i] != b->strides[i]) return false;
    return true;
}

/* PyTorch's gradient layout contract: a leaf's .grad has the leaf's strides when the leaf is
 * dense, contiguous ones otherwise */
static mt_tensor *clone_for(mt_tensor *g, mt_tensor *v) {
    if (!dense_non_overlapping(v)) return mto_clone(g, "contiguous_format");
    mt_tensor *r = mto_empty_strided((mt_ilist){v->sizes, v->ndim}, (mt_ilist){v->strides, v->ndim},
                                     g->dtype, g->device, false, false);
    if (!r) return NULL;
    mt_tensor *w = mto_copy_(r, g, false);
    if (!w) {
        mt_tensor_decref(r);
        return NULL;
    }
    mt_tensor_decref(w);
    return r;
}

/* leaf.grad = grad, or leaf.grad + grad (PyTorch's AccumulateGrad) */
static int accumulate_apply(mt_node *n, mt_tensor **grads, mt_tensor **out, const bool *wanted) {
    MT_UNUSED(wanted);
    MT_UNUSED(out);
    mt_tensor *v = n->variable, *g = grads[0];
    if (!g) return 0;
    mt_ag_meta *m = mt_ag_meta_of(v, true);
    if (!m) return -1;
    bool graph = mt_grad_enabled(); /* create_graph: the gradient stays differentiable */
    if (!m->grad) {
        mt_tensor *stored;
        if (!graph && is_sole_owner(g) && mt_is_leaf(g) &&
            (!dense_non_overlapping(v) || same_strides(v, g))) {
            mt_tensor_incref(g); /* nothing else sees it: kept as it is */
            stored = g;
        } else {
            stored = clone_for(g, v);
            if (!stored) return -1;
        }
        m->grad = stored;
        return 0;
    }
    if (!graph) { /* accumulated in place */
        mt_tensor *w = mto_add__Tensor(m->grad, g, mt_vint(1));
        if (!w) return -1;
        mt_tensor_decref(w);
        return 0;
    }
    mt_tensor *sum = mto_add_Tensor(m->grad, g, mt_vint(1));
    if (!sum) return -1;
    mt_tensor_decref(m->grad);
    m->grad = sum;
    return 0;
}

const mt_node_kind mt_accumulate_kind = {accumulate_apply, NULL, accumulate_destroy};

mt_node *mt_grad_accumulator(mt_tensor *t) {
    mt_ag_meta *m = mt_ag_meta_of(t, true);
    if (!m) return NULL;
    if (m->accumulator) {
        mt_node_incref(m->accumulator);
        return m->accumulator;
    }
    mt_node *n = mt_node_new(&mt_accumulate_kind, "torch::autograd::AccumulateGrad", 0, 1);
    if (!n) return NULL;
    n->sequence_nr = UINT64_MAX; /* runs as soon as it is ready */
    mt_tensor_incref(t);
    n->variable = t;
    mt_meta_of(&n->in_meta[0], t);
    m->accumulator = n; /* weak: the node clears it when it goes */
    return n;
}

/* the node a gradient for t flows to: its grad_fn, or its accumulator when a leaf requires grad */
int mt_node_set_edge(mt_node *n, int i, mt_tensor *t) {
    if (!t) return 0;
    mt_meta_of(&n->next_meta[i], t);
    if (!mt_tensor_requires_grad(t)) return 0;
    mt_node *fn = mt_current_grad_fn(t);
    if (fn) {
        mt_node_incref(fn);
        n->next[i].fn = fn;
        n->next[i].input_nr = mt_output_nr(t);
        return 0;
    }
    mt_node *acc = mt_grad_accumulator(t);
    if (!acc) return -1;
    n->next[i].fn = acc;
    n->next[i].input_nr = 0;
    return 0;
}

/* ---- hooks ----------------------------------------------------------------------------------- */

static int add_hook(mt_hook_entry **hooks, int *n, int64_t *next, mt_callback cb, int slot,
                    bool pre, bool retain, int64_t *handle) {
    mt_hook_entry *h = realloc(*hooks, sizeof **hooks * (size_t)(*n + 1));
    if (!h) return mt_error(MT_ERR_MEMORY, "out of memory");
    *hooks = h;
    h[*n] = (mt_hook_entry){*next, slot, pre, retain, cb};
    if (handle) *handle = *next;
    (*next)++;
    (*n)++;
    return 0;
}

static void remove_hook(mt_hook_entry *hooks, int *n, int64_t handle) {
    for (int i = 0; i < *n; i++)
        if (hooks[i].handle == handle) {
            if (hooks[i].cb.release) hooks[i].cb.release(hooks[i].cb.ctx);
            memmove(hooks + i, hooks + i + 1, sizeof *hooks * (size_t)(*n - i - 1));
            (*n)--;
            return;
        }
}

/* Hooks of a leaf live on the tensor (its accumulator runs them); those of a tensor with
 * history are pre-hooks of its grad_fn for its output, as in PyTorch: they run even when the
 * tensor itself is gone. Handles of the second kind are negative. */
int mt_register_hook(mt_tensor *t, mt_callback hook, int64_t *handle) {
    if (!mt_tensor_requires_grad(t)) {
        if (hook.release) hook.release(hook.ctx);
        return mt_error(MT_ERR_RUNTIME,
                        "cannot register a hook on a tensor that doesn't require gradient");
    }
    mt_ag_meta *m = mt_ag_meta_of(t, true);
    if (!m) return -1;
    if (m->grad_fn) {
        mt_node *fn = m->grad_fn;
        if (add_hook(&fn->hooks, &fn->nhooks, &fn->next_handle, hook, m->output_nr, true, false,
                     handle))
            return -1;
        if (handle) *handle = -*handle;
        return 0;
    }
    return add_hook(&m->hooks, &m->nhooks, &m->next_handle, hook, 0, true, false, handle);
}

void mt_remove_hook(mt_tensor *t, int64_t handle) {
    mt_ag_meta *m = t->autograd;
    if (!m) return;
    if (handle < 0 && m->grad_fn)
        remove_hook(m->grad_fn->hooks, &m->grad_fn->nhooks, -handle);
    else
        remove_hook(m->hooks, &m->nhooks, handle);
}

int mt_node_register_hook(mt_node *n, mt_callback hook, bool pre, int64_t *handle) {
    return add_hook(&n->hooks, &n->nhooks, &n->next_handle, hook, -1, pre, false, handle);
}

void mt_node_remove_hook(mt_node *n, int64_t handle) {
    remove_hook(n->hooks, &n->nhooks, handle);
}

/* retain_grad: a last hook on grad_fn's output stores the gradient in .grad; it refers to the
 * tensor weakly (the tensor removes it when it goes) */
static int retain_fn(void *ctx, mt_tensor *grad, mt_tensor **replacement) {
    MT_UNUSED(replacement);
    mt_tensor *t = ctx;
    mt_ag_meta *m = t->autograd;
    mt_tensor *stored;
    if (!m->grad) {
        stored = mto_clone(grad, NULL);
        if (stored && !mt_is_leaf(stored) && !mt_grad_enabled()) {
            mt_tensor *d = mto_detach(stored);
            mt_tensor_decref(stored);
            stored = d;
        }
    } else {
        stored = mto_add_Tensor(m->grad, grad, mt_vint(1));
    }
    if (!stored) return -1;
    mt_tensor_decref(m->grad);
    m->grad = stored;
    return 0;
}

int mt_retain_grad(mt_tensor *t) {
    if (!mt_tensor_requires_grad(t))
        return mt_error(MT_ERR_RUNTIME, "can't retain_grad on Tensor that has requires_grad=False");
    mt_ag_meta *m = mt_ag_meta_of(t, true);
    if (!m) return -1;
    if (!m->grad_fn || m->retains_grad) return 0; /* leaves keep their .grad anyway */
    mt_node *fn = m->grad_fn;
    mt_callback cb = {(void *)retain_fn, t, NULL};
    if (add_hook(&fn->hooks, &fn->nhooks, &fn->next_handle, cb, m->output_nr, true, true,
                 &m->retain_handle))
        return -1;
    m->retains_grad = true;
    return 0;
}

/* ---- saved variables ------------------------------------------------------------------------- */

typedef struct hooks_stack {
    mt_saved_hooks h[16];
    int n;
} hooks_stack;
static _Thread_local hooks_stack saved_hooks;

int mt_push_saved_hooks(mt_saved_hooks hooks) {
    if (saved_hooks.n >= 16) return mt_error(MT_ERR_RUNTIME, "too many nested saved_tensors_hooks");
    saved_hooks.h[saved_hooks.n++] = hooks;
    return 0;
}

void mt_pop_saved_hooks(void) {
    if (saved_hooks.n > 0) saved_hooks.n--;
}

static void describe_saved(mt_saved *s, const mt_tensor *t) {
    s->dtype = t->dtype;
    s->device = t->device;
    s->ndim = t->ndim;
    memcpy(s->sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t));
}

/* "torch.FloatTensor [2, 2]" */
static void saved_type_name(const mt_saved *s, char *buf, size_t cap) {
    mt_tensor desc = {.dtype = s->dtype, .device = s->device};
    char tn[32], sz[256];
    mt_fmt_ilist(sz, sizeof sz, s->sizes, s->ndim);
    snprintf(buf, cap, "%.31s %.120s", mt_tensor_type_name(&desc, tn, sizeof tn), sz);
}

int mt_saved_init(mt_saved *s, mt_tensor *t, bool is_output, int output_nr) {
    memset(s, 0, sizeof *s);
    if (!t) return 0;
    if ((t->flags & MT_T_INFERENCE) && !mt_inference_mode())
        return mt_error(
            MT_ERR_RUNTIME,
            "Inference tensors cannot be saved for backward. To work around you can make "
            "a clone to get a normal tensor and use it in autograd.");
    s->defined = true;
    s->is_output = is_output;
    s->output_nr = output_nr;
    s->version = mt_tensor_version(t);
    s->vc = t->version;
    mt_version_incref(s->vc);
    describe_saved(s, t);
    mt_tensor *data;
    if (is_output) { /* its data only: the node it belongs to re-links it (no reference cycle) */
        data = mt_tensor_from_storage(t->storage, t->offset, t->ndim, t->sizes, t->strides,
                                      (mt_dtype)t->dtype);
        if (!data) return -1;
    } else {
        mt_tensor_incref(t);
        data = t;
        if (!mt_is_leaf(t)) {
            s->grad_fn = mt_current_grad_fn(t);
            mt_node_incref(s->grad_fn);
            s->output_nr = mt_output_nr(t);
        }
    }
    if (saved_hooks.n > 0) { /* autograd.graph.saved_tensors_hooks: the pack's result replaces it */
        s->hooks = saved_hooks.h[saved_hooks.n - 1];
        mt_tensor *given = t;
        s->packed = s->hooks.pack(s->hooks.ctx, given);
        mt_tensor_decref(data);
        if (!s->packed) return -1;
        return 0;
    }
    s->t = data;
    return 0;
}

void mt_saved_release(mt_saved *s) {
    mt_tensor_decref(s->t);
    s->t = NULL;
    if (s->packed && s->hooks.release_packed) s->hooks.release_packed(s->hooks.ctx, s->packed);
    s->packed = NULL;
    mt_node_decref(s->grad_fn);
    s->grad_fn = NULL;
    mt_version_decref(s->vc);
    s->vc = NULL;
}

static const char *freed_message = "Trying to backward through the graph a second time (or "
                                   "directly access saved tensors after they have already "
                                   "been freed). Saved intermediate values of the graph are freed "
                                   "when you call .backward() or autograd.grad(). "
                                   "Specify retain_graph=True if you need to backward through the "
                                   "graph a second time or if you need to access "
                                   "saved tensors after calling backward.";

mt_tensor *mt_saved_unpack(mt_saved *s, mt_node *owner) {
    if (!s->defined) return NULL;
    if (!s->t && !s->packed) {
        mt_error(MT_ERR_RUNTIME, "%s", freed_message);
        return NULL;
    }
    mt_tensor *data;
    if (s->packed) {
        data = s->hooks.unpack(s->hooks.ctx, s->packed);
        if (!data) return NULL;
    } else {
        int64_t now = atomic_load(&s->vc->value);
        if (now != s->version) {
            char which[160] = "", type_name[160];
            saved_type_name(s, type_name, sizeof type_name);
            const char *fn_name = s->is_output ? owner->name : s->grad_fn ? s->grad_fn->name : NULL;
            if (fn_name)
                snprintf(which, sizeof which, ", which is output %d of %s,", s->output_nr, fn_name);
            mt_error(
                MT_ERR_RUNTIME,
                "one of the variables needed for gradient computation has been modified by an "
                "inplace "
                "operation: [%s]%s is at version %lld; expected version %lld instead. Hint: %s",
                type_name, which, (long long)now, (long long)s->version,
                mt_anomaly_enabled()
                    ? "the backtrace further above shows the operation that failed to compute its "
                      "gradient. "
                      "The variable in question was changed in there or anywhere later. Good luck!"
                    : "enable anomaly detection to find the operation that failed to compute its "
                      "gradient, "
                      "with torch.autograd.set_detect_anomaly(True).");
            return NULL;
        }
        mt_tensor_incref(s->t);
        data = s->t;
    }
    if (s->is_output &&
        mt_grad_enabled()) { /* create_graph: the output, linked to its node again */
        mt_tensor *o = mt_tensor_from_storage(data->storage, data->offset, data->ndim, data->sizes,
                                              data->strides, (mt_dtype)data->dtype);
        mt_tensor_decref(data);
        if (!o) return NULL;
        if (mt_set_history(o, owner, s->output_nr)) {
            mt_tensor_decref(o);
            return NULL;
        }
        return o;
    }
    return data;
}

void mt_autograd_register_meta(void) {
    mt_tensor_set_autograd_free_hook(free_meta);
}
