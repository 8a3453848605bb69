/* engine.c: the backward pass. From the roots, every node that gradients reach runs once, when
 * all the edges into it have delivered (a diamond runs its top once), highest sequence number
 * first among the ready ones (PyTorch's order); gradients that meet at a node are summed, the
 * ones reaching AccumulateGrad nodes accumulate into leaves' .grad. */
#include "autograd_impl.h"
#include "mt_pool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a map node -> its state in this pass ---------------------------------------------------- */

typedef struct task_node {
    mt_node *node; /* borrowed: the graph holds it */
    int deps;      /* edges into it not yet delivered */
    bool needed;   /* on a path to a requested input (autograd.grad) */
    bool visited;
    bool queued;
    mt_tensor **buf; /* summed gradients per input */
    int nbuf;
} task_node;

/* Small graphs (most backward calls) fit the slots inline, with no allocation. */
#define MAP_INLINE_SLOTS 16

typedef struct node_map {
    task_node *slots;
    size_t cap, count;
    task_node inline_slots[MAP_INLINE_SLOTS];
} node_map;

static void map_init(node_map *m) {
    memset(m->inline_slots, 0, sizeof m->inline_slots);
    m->slots = m->inline_slots;
    m->cap = MAP_INLINE_SLOTS;
    m->count = 0;
}

static size_t hash_ptr(const void *p) {
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static task_node *map_find(node_map *m, mt_node *n, bool insert) {
    if (insert && (m->count + 1) * 2 > m->cap) { /* grow */
        size_t cap = m->cap * 2;
        task_node *s = calloc(cap, sizeof *s);
        if (!s) {
            mt_error(MT_ERR_MEMORY, "out of memory in backward");
            return NULL;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].node) {
                size_t j = hash_ptr(m->slots[i].node) & (cap - 1);
                while (s[j].node) j = (j + 1) & (cap - 1);
                s[j] = m->slots[i];
            }
        if (m->slots != m->inline_slots) free(m->slots);
        m->slots = s;
        m->cap = cap;
    }
    if (!m->cap) return NULL;
    size_t j = hash_ptr(n) & (m->cap - 1);
    while (m->slots[j].node) {
        if (m->slots[j].node == n) return &m->slots[j];
        j = (j + 1) & (m->cap - 1);
    }
    if (!insert) return NULL;
    m->slots[j].node = n;
    m->count++;
    return &m->slots[j];
}

/* a node's gradient buffer (pooled: one per node each backward) */
static size_t buf_bytes(int ninputs) {
    return sizeof(mt_tensor *) * (size_t)(ninputs ? ninputs : 1);
}

static void map_free(node_map *m) {
    for (size_t i = 0; i < m->cap; i++) {
        task_node *t = &m->slots[i];
        if (!t->node || !t->buf) continue;
        for (int k = 0; k < t->nbuf; k++) mt_tensor_decref(t->buf[k]);
        mt_pool_free_aligned(t->buf, buf_bytes(t->nbuf));
    }
    if (m->slots != m->inline_slots) free(m->slots);
}

/* ---- the ready queue: a max-heap on sequence numbers ----------------------------------------- */

typedef struct heap {
    task_node **v;
    size_t n, cap;
} heap;

static bool before(const task_node *a, const task_node *b) {
    return a->node->sequence_nr > b->node->sequence_nr;
}

static int heap_push(heap *h, task_node *t) {
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        task_node **v = realloc(h->v, cap * sizeof *v);
        if (!v) return mt_error(MT_ERR_MEMORY, "out of memory in backward");
        h->v = v;
        h->cap = cap;
    }
    size_t i = h->n++;
    h->v[i] = t;
    while (i > 0 && before(h->v[i], h->v[(i - 1) / 2])) {
        task_node *x = h->v[i];
        h->v[i] = h->v[(i - 1) / 2];
        h->v[(i - 1) / 2] = x;
        i = (i - 1) / 2;
    }
    return 0;
}

static task_node *heap_pop(heap *h) {
    if (!h->n) return NULL;
    task_node *top = h->v[0];
    h->v[0] = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && before(h->v[l], h->v[m])) m = l;
        if (r < h->n && before(h->v[r], h->v[m])) m = r;
        if (m == i) break;
        task_node *x = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = x;
        i = m;
    }
    return top;
}

/* ---- gradients checked against what the edge expects ----------------------------------------- */

static bool same_sizes(const mt_input_meta *m, const mt_tensor *g) {
    return m->ndim == g->ndim && memcmp(m->sizes, g->sizes, sizeof(int64_t) * (size_t)g->ndim) == 0;
}

static bool expandable(const mt_input_meta *m, const mt_tensor *g) {
    if (m->ndim > g->ndim) return false;
    for (int i = 0; i < m->ndim; i++) {
        int64_t a = m->sizes[i], b = g->sizes[i + g->ndim - m->ndim];
        if (a != b && a != 1) return false;
    }
    return true;
}

/* PyTorch's validate_outputs: broadcast gradients summed back, dtypes converted */
static mt_tensor *fit(mt_node *n, int i, mt_tensor *g) {
    const mt_input_meta *m = &n->next_meta[i];
    if (!same_sizes(m, g)) {
        if (!expandable(m, g)) {
            char a[256], b[256];
            mt_fmt_ilist(a, sizeof a, g->sizes, g->ndim);
            mt_fmt_ilist(b, sizeof b, m->sizes, m->ndim);
            mt_tensor_decref(g);
            mt_error(MT_ERR_RUNTIME,
                     "Function %s returned an invalid gradient at index %d - got %s but expected "
                     "shape compatible "
                     "with %s",
                     n->name, i, a, b);
            return NULL;
        }
        mt_tensor *s = mt_sum_to(g, m->sizes, m->ndim);
        mt_tensor_decref(g);
        if (!(g = s)) return NULL;
    }
    if (g->dtype != m->dtype || !mt_device_eq(g->device, m->device)) {
        mt_tensor *c = mto__to_copy(g, m->dtype, m->device, false, NULL);
        mt_tensor_decref(g);
        g = c;
    }
    return g;
}

static bool has_nan(mt_tensor *g) {
    /* meta tensors have no data to look at */
    if (!mt_dtype_is_floating((mt_dtype)g->dtype) || g->device.type == MT_DEV_META) return false;
    mt_tensor *nan = mto_isnan(g), *any = nan ? mto_any(nan) : NULL;
    mt_tensor_decref(nan);
    if (any && any->device.type != MT_DEV_CPU) { /* read the flag on the host */
        mt_tensor *host = mto__to_copy(any, any->dtype, MT_CPU, false, NULL);
        mt_tensor_decref(any);
        any = host;
    }
    if (!any) return false;
    const uint8_t *flag = mt_tensor_data(any);
    bool r = flag && *flag != 0;
    mt_tensor_decref(any);
    return r;
}

/* ---- running a node: its hooks around its formula -------------------------------------------- */

/* tensor hooks of the tensors whose gradient this is (slot = the node input) */
static int run_tensor_hooks(mt_hook_entry *hooks, int nhooks, int slot, mt_tensor **g,
                            bool retains) {
    for (int h = 0; h < nhooks; h++) {
        if (hooks[h].slot != slot || hooks[h].retain != retains || !*g) continue;
        mt_tensor *repl = NULL;
        if (((mt_tensor_hook_fn)hooks[h].cb.fn)(hooks[h].cb.ctx, *g, &repl)) return -1;
        if (repl) {
            mt_tensor_decref(*g);
            *g = repl;
        }
    }
    return 0;
}

int mt_node_call(mt_node *n, mt_tensor **grads, mt_tensor **out, const bool *wanted) {
    /* PyTorch's order: the outputs' tensor hooks, then retain_grad, then node pre-hooks */
    for (int k = 0; k < n->ninputs; k++) {
        if (run_tensor_hooks(n->hooks, n->nhooks, k, &grads[k], false)) return -1;
        if (run_tensor_hooks(n->hooks, n->nhooks, k, &grads[k], true)) return -1;
    }
    for (int h = 0; h < n->nhooks; h++) /* node pre-hooks (register_prehook) */
        if (n->hooks[h].pre && n->hooks[h].slot < 0 &&
            ((mt_node_hook_fn)n->hooks[h].cb.fn)(n->hooks[h].cb.ctx, n, n->ninputs, grads, 0, NULL))
            return -1;
    if (n->kind->apply(n, grads, out, wanted)) return -1;
    for (int h = 0; h < n->nhooks; h++) /* post-hooks see both */
        if (!n->hooks[h].pre && ((mt_node_hook_fn)n->hooks[h].cb.fn)(
                                    n->hooks[h].cb.ctx, n, n->ninputs, grads, n->nnext, out))
            return -1;
    return 0;
}

/* ---- the pass -------------------------------------------------------------------------------- */

typedef struct capture {
    mt_node *node;
    int input_nr;
    mt_tensor *grad;
} capture;

/* count the edges into every node reachable from the roots */
static int discover(node_map *map, mt_node **roots, int nroots) {
    int cap = 64, top = 0;
    mt_node **stack = malloc(sizeof *stack * (size_t)cap);
    if (!stack) return mt_error(MT_ERR_MEMORY, "out of memory in backward");
    for (int i = 0; i < nroots; i++) {
        if (!roots[i] || map_find(map, roots[i], false)) continue;
        if (!map_find(map, roots[i], true)) goto oom;
        stack[top++] = roots[i];
        while (top) {
            mt_node *n = stack[--top];
            for (int e = 0; e < n->nnext; e++) {
                mt_node *c = n->next[e].fn;
                if (!c) continue;
                task_node *t = map_find(map, c, false);
                if (!t) {
                    if (!(t = map_find(map, c, true))) goto oom;
                    if (top == cap) {
                        cap *= 2;
                        mt_node **s = realloc(stack, sizeof *s * (size_t)cap);
                        if (!s) goto oom;
                        stack = s;
                    }
                    stack[top++] = c;
                }
                t->deps++;
            }
        }
    }
    free(stack);
    return 0;
oom:
    free(stack);
    return -1;
}

/* mark the nodes that must run for autograd.grad: those with a requested input below them (a
 * requested input's own node only receives its gradient). Iterative, for deep graphs. */
static bool is_capture(mt_node *n, capture *caps, int ncaps) {
    for (int c = 0; c < ncaps; c++)
        if (caps[c].node == n) return true;
    return false;
}

static int mark_needed(node_map *map, mt_node **roots, int nroots, capture *caps, int ncaps,
                       bool run_captures) {
    /* post-order over the reachable nodes: a node is needed when a child is a capture or needed */
    size_t cap = 64, top = 0;
    typedef struct frame {
        mt_node *n;
        int e;
    } frame;
    frame *st = malloc(sizeof *st * cap);
    if (!st) return mt_error(MT_ERR_MEMORY, "out of memory in backward");
    for (int r = 0; r < nroots; r++) {
        if (!roots[r]) continue;
        task_node *t = map_find(map, roots[r], false);
        if (!t || t->visited) continue;
        t->visited = true;
        st[top++] = (frame){roots[r], 0};
        while (top) {
            frame *f = &st[top - 1];
            if (f->e < f->n->nnext) {
                mt_node *c = f->n->next[f->e++].fn;
                task_node *ct = c ? map_find(map, c, false) : NULL;
                if (!ct || ct->visited) continue;
                ct->visited = true;
                if (top == cap) {
                    cap *= 2;
                    frame *s2 = realloc(st, sizeof *st * cap);
                    if (!s2) {
                        free(st);
                        return mt_error(MT_ERR_MEMORY, "out of memory in backward");
                    }
                    st = s2;
                }
                st[top++] = (frame){c, 0};
                continue;
            }
            task_node *ft = map_find(map, f->n, false);
            for (int e = 0; e < f->n->nnext; e++) {
                mt_node *c = f->n->next[e].fn;
                task_node *ct = c ? map_find(map, c, false) : NULL;
                if (ct && (ct->needed || is_capture(c, caps, ncaps))) ft->needed = true;
            }
            top--;
        }
    }
    free(st);
    if (run_captures) /* backward(inputs=...): the inputs' own nodes run (and accumulate) */
        for (int c = 0; c < ncaps; c++) {
            task_node *t = caps[c].node ? map_find(map, caps[c].node, false) : NULL;
            if (t) t->needed = true;
        }
    return 0;
}

static int deliver(node_map *map, heap *ready, mt_node *to, int input_nr, mt_tensor *g,
                   capture *caps, int ncaps) {
    for (int c = 0; c < ncaps; c++) /* autograd.grad: the gradient of a requested input */
        if (caps[c].node == to && caps[c].input_nr == input_nr) {
            if (!caps[c].grad) {
                mt_tensor_incref(g);
                caps[c].grad = g;
            } else {
                mt_tensor *s = mto_add_Tensor(caps[c].grad, g, mt_vint(1));
                if (!s) return -1;
                mt_tensor_decref(caps[c].grad);
                caps[c].grad = s;
            }
        }
    task_node *t = map_find(map, to, false);
    if (!t) return 0;
    if (!t->buf) {
        t->buf = mt_pool_alloc_aligned(buf_bytes(to->ninputs));
        if (t->buf) memset(t->buf, 0, buf_bytes(to->ninputs));
        t->nbuf = t->buf ? to->ninputs : 0;
        if (!t->buf) return mt_error(MT_ERR_MEMORY, "out of memory in backward");
    }
    if (input_nr < to->ninputs) {
        if (!t->buf[input_nr]) {
            mt_tensor_incref(g);
            t->buf[input_nr] = g;
        } else {
            mt_tensor *s = mto_add_Tensor(t->buf[input_nr], g, mt_vint(1));
            if (!s) return -1;
            mt_tensor_decref(t->buf[input_nr]);
            t->buf[input_nr] = s;
        }
    }
    return 0;
}

static int arrive(heap *ready, task_node *t) {
    if (--t->deps == 0 && !t->queued) {
        t->queued = true;
        return heap_push(ready, t);
    }
    return 0;
}

static int run(node_map *map, heap *ready, const mt_backward_opts *o, capture *caps, int ncaps,
               bool restrict_to_needed) {
    task_node *t;
    while ((t = heap_pop(ready))) {
        mt_node *n = t->node;
        if (restrict_to_needed && !t->needed) continue;
        bool is_acc = n->kind == &mt_accumulate_kind;
        if (is_acc && ncaps) continue; /* autograd.grad leaves .grad alone */
        mt_tensor *none = NULL, **grads = t->buf ? t->buf : &none;
        if (is_acc) { /* a leaf's own hooks run before it accumulates */
            mt_ag_meta *m = n->variable->autograd;
            if (m && run_tensor_hooks(m->hooks, m->nhooks, 0, &grads[0], false)) return -1;
        }
        mt_tensor *stack_out[16],
            **out = n->nnext <= 16 ? stack_out : calloc((size_t)n->nnext, sizeof *out);
        if (!out) return mt_error(MT_ERR_MEMORY, "out of memory in backward");
        memset(out, 0, sizeof *out * (size_t)(n->nnext <= 16 ? 16 : n->nnext));
        /* a pass for some inputs only: the edges towards them, so the node computes no other
         * gradient (autograd.grad(y, {x}) through a convolution skips its weight's) */
        bool stack_wanted[16], *wanted = NULL;
        if (restrict_to_needed) {
            wanted = n->nnext <= 16 ? stack_wanted : malloc((size_t)n->nnext);
            if (!wanted) {
                if (out != stack_out) free(out);
                return mt_error(MT_ERR_MEMORY, "out of memory in backward");
            }
            for (int e = 0; e < n->nnext; e++) {
                mt_node *c = n->next[e].fn;
                task_node *ct = c ? map_find(map, c, false) : NULL;
                wanted[e] = ct && (ct->needed || is_capture(c, caps, ncaps));
            }
        }
        int st = mt_node_call(n, grads, out, wanted);
        if (wanted != stack_wanted) free(wanted);
        if (st == 0 && !o->retain_graph && n->kind->release_saved) n->kind->release_saved(n);
        if (st == 0 && mt_anomaly_enabled() && mt_anomaly_check_nan())
            for (int e = 0; e < n->nnext; e++)
                if (out[e] && has_nan(out[e])) {
                    st = mt_error(MT_ERR_RUNTIME,
                                  "Function '%s' returned nan values in its %dth output.", n->name,
                                  e);
                    break;
                }
        for (int e = 0; e < n->nnext && st == 0; e++) {
            mt_edge *edge = &n->next[e];
            if (!edge->fn) continue;
            task_node *c = map_find(map, edge->fn, false);
            if (out[e]) {
                mt_tensor *g = fit(n, e, out[e]);
                out[e] = NULL;
                if (!g) {
                    st = -1;
                    break;
                }
                st = deliver(map, ready, edge->fn, edge->input_nr, g, caps, ncaps);
                mt_tensor_decref(g);
            }
            if (st == 0 && c) st = arrive(ready, c);
        }
        if (st && n->trace) /* anomaly mode: where the failing node's forward ran (PyTorch warns the
                               same) */
            fprintf(stderr,
                    "UserWarning: Error detected in %s. Traceback of forward call that caused the "
                    "error:\n%s\n",
                    n->name, n->trace);
        for (int e = 0; e < n->nnext; e++) mt_tensor_decref(out[e]);
        if (out != stack_out) free(out);
        if (t->buf) { /* the gradients this node received are spent */
            for (int k = 0; k < n->ninputs; k++) {
                mt_tensor_decref(t->buf[k]);
                t->buf[k] = NULL;
            }
        }
        if (st) return -1;
    }
    return 0;
}

/* where a gradient for t enters the graph: its grad_fn's output, or its accumulator */
static mt_node *entry_of(mt_tensor *t, int *input_nr) {
    mt_node *fn = mt_current_grad_fn(t);
    if (fn) {
        *input_nr = mt_output_nr(t);
        mt_node_incref(fn);
        return fn;
    }
    *input_nr = 0;
    return mt_tensor_requires_grad(t) ? mt_grad_accumulator(t) : NULL;
}

int mt_backward(mt_tensor **roots, mt_tensor **grads, int n, const mt_backward_opts *opts,
                mt_tensor **results) {
    mt_backward_opts o = opts ? *opts : (mt_backward_opts){0};
    if (o.create_graph) o.retain_graph = true;
    node_map map;
    map_init(&map);
    heap ready = {0};
    mt_node **root_nodes = calloc((size_t)(n ? n : 1), sizeof *root_nodes);
    int *root_nr = calloc((size_t)(n ? n : 1), sizeof *root_nr);
    mt_tensor **root_grads = calloc((size_t)(n ? n : 1), sizeof *root_grads);
    bool is_grad = o.inputs && !o.accumulate;
    capture *caps = o.ninputs ? calloc((size_t)o.ninputs, sizeof *caps) : NULL;
    int st = -1;
    bool saved_mode = mt_grad_enabled();
    if (!root_nodes || !root_nr || !root_grads || (o.ninputs && !caps)) {
        mt_error(MT_ERR_MEMORY, "out of memory in backward");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        mt_tensor *r = roots[i];
        if (!mt_tensor_requires_grad(r)) {
            mt_error(MT_ERR_RUNTIME,
                     "element %d of tensors does not require grad and does not have a grad_fn", i);
            goto done;
        }
        mt_tensor *g = grads ? grads[i] : NULL;
        if (!g) {
            if (r->numel != 1) {
                mt_error(MT_ERR_RUNTIME, "grad can be implicitly created only for scalar outputs");
                goto done;
            }
            g = mto_ones_like(r, -1, MT_NO_DEVICE, false, NULL);
            if (!g) goto done;
        } else {
            if (g->ndim != r->ndim ||
                memcmp(g->sizes, r->sizes, sizeof(int64_t) * (size_t)r->ndim) != 0) {
                char a[256], b[256];
                mt_fmt_ilist(a, sizeof a, g->sizes, g->ndim);
                mt_fmt_ilist(b, sizeof b, r->sizes, r->ndim);
                mt_error(MT_ERR_RUNTIME,
                         "Mismatch in shape: grad_output[%d] has a shape of torch.Size(%s) and "
                         "output[%d] has a shape "
                         "of torch.Size(%s).",
                         i, a, i, b);
                goto done;
            }
            mt_tensor_incref(g);
        }
        root_grads[i] = g;
        root_nodes[i] = entry_of(r, &root_nr[i]);
    }
    for (int i = 0; i < o.ninputs; i++) {
        mt_tensor *t = o.inputs[i];
        if (!mt_tensor_requires_grad(t)) {
            mt_error(MT_ERR_RUNTIME, "One of the differentiated Tensors does not require grad");
            goto done;
        }
        if (o.accumulate && !mt_is_leaf(t) && mt_retain_grad(t))
            goto done; /* its .grad is filled */
        caps[i].node = entry_of(t, &caps[i].input_nr);
    }
    int ncaps = is_grad ? o.ninputs : 0; /* gradients captured for autograd.grad */
    if (discover(&map, root_nodes, n)) goto done;
    bool restrict_needed = false;
    if (o.ninputs) {
        if (mark_needed(&map, root_nodes, n, caps, o.ninputs, o.accumulate)) goto done;
        restrict_needed = true;
    }
    /* backward runs without recording unless create_graph asks for it */
    mt_set_grad_enabled(o.create_graph);
    st = 0;
    /* the roots' gradients arrive first (a root can also be reached from another root) */
    for (int i = 0; i < n && st == 0; i++) {
        if (!root_nodes[i]) continue;
        st = deliver(&map, &ready, root_nodes[i], root_nr[i], root_grads[i], caps, ncaps);
    }
    for (int i = 0; i < n && st == 0; i++) {
        task_node *t = root_nodes[i] ? map_find(&map, root_nodes[i], false) : NULL;
        if (t && t->deps == 0 && !t->queued) {
            t->queued = true;
            st = heap_push(&ready, t);
        }
    }
    if (st == 0) st = run(&map, &ready, &o, caps, ncaps, restrict_needed);
    mt_set_grad_enabled(saved_mode);
    if (st == 0 && is_grad) {
        for (int i = 0; i < o.ninputs; i++) {
            if (!caps[i].grad && !o.allow_unused) {
                st = mt_error(MT_ERR_RUNTIME,
                              "One of the differentiated Tensors appears to not have been used in "
                              "the graph. Set allow_unused=True if this is the desired behavior.");
                break;
            }
            results[i] = caps[i].grad;
            caps[i].grad = NULL;
        }
    }
done:
    mt_set_grad_enabled(saved_mode);
    map_free(&map); /* before the roots go: they keep the graph's nodes alive */
    for (int i = 0; i < n; i++) {
        if (root_nodes) mt_node_decref(root_nodes[i]);
        if (root_grads) mt_tensor_decref(root_grads[i]);
    }
    for (int i = 0; i < o.ninputs && caps; i++) {
        mt_node_decref(caps[i].node);
        mt_tensor_decref(caps[i].grad);
    }
    free(root_nodes);
    free(root_nr);
    free(root_grads);
    free(caps);
    free(ready.v);
    return st;
}
