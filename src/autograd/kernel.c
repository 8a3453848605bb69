/* kernel.c: the Autograd key's kernel. It runs the op below itself (the Autograd key excluded,
 * so ops inside kernels record nothing), then gives differentiable outputs a node holding the
 * op's derivative formulas, the tensors they read and edges to the inputs' nodes. Ops written
 * as compositions record their constituent ops, unless they have formulas of their own (then
 * they run as one op here, with the names PyTorch gives their nodes). */
#include "formula.h"
#include "mt_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS MT_DERIV_MAX_ARGS
#define MAX_RETS 8

static bool is_tensor_type(int type) {
    return type == MT_A_TENSOR || type == MT_A_INDEXTENSOR || type == MT_A_TENSORLIST ||
           type == MT_A_INDEXTENSORLIST;
}

static bool is_list_type(int type) {
    return type == MT_A_TENSORLIST || type == MT_A_INDEXTENSORLIST;
}

/* ---- `uses` strings: which saved tensors each gradient reads --------------------------------- */

static int name_index(const mt_schema *s, const char *name, size_t len, bool *is_result) {
    *is_result = false;
    if (len >= 6 && strncmp(name, "result", 6) == 0) {
        *is_result = true;
        if (len == 6) return 0;
        if (len == 7 && name[6] >= '0' && name[6] < '0' + MAX_RETS) return name[6] - '0';
        return -1;
    }
    for (int i = 0; i < s->nargs; i++)
        if (strlen(s->args[i].name) == len && strncmp(s->args[i].name, name, len) == 0) return i;
    return -1;
}

static void bad_uses(const mt_schema *s, const char *uses, const char *why) {
    fprintf(stderr, "mindtorch: derivative of %s.%s: %s in \"%s\"\n", s->name, s->overload, why,
            uses);
    abort(); /* a table entry is wrong: caught by every test run, never by a user */
}

static void parse_uses(mt_derivative *d) {
    const mt_schema *s = mt_op_get(d->op)->schema;
    if (s->nargs > MAX_ARGS) bad_uses(s, d->uses, "too many arguments");
    const char *p = d->uses;
    while (*p) {
        while (*p == ' ' || *p == ';') p++;
        if (!*p) break;
        bool refused = *p == '!';
        const char *key = p + refused;
        while (*p && *p != ':') p++;
        if (*p != ':') bad_uses(s, d->uses, "missing ':'");
        size_t klen = (size_t)(p - key);
        while (klen && key[klen - 1] == ' ') klen--;
        bool res;
        int k = name_index(s, key, klen, &res);
        if (k < 0 || res || !is_tensor_type(s->args[k].type))
            bad_uses(s, d->uses, "not a tensor argument");
        if (refused) {
            d->refused |= 1u << k;
            p++;
            continue;
        }
        d->diff |= 1u << k;
        p++;
        while (*p && *p != ';') {
            while (*p == ' ' || *p == ',') p++;
            const char *dep = p;
            while (*p && *p != ' ' && *p != ',' && *p != ';') p++;
            if (p == dep) continue;
            int j = name_index(s, dep, (size_t)(p - dep), &res);
            if (j < 0 || (res && j >= s->nrets) || (!res && !is_tensor_type(s->args[j].type)))
                bad_uses(s, d->uses, "unknown name");
            if (res)
                d->result_deps[k] |= (uint8_t)(1u << j);
            else
                d->arg_deps[k] |= 1u << j;
        }
    }
}

void mt_derivatives_register(mt_derivative *table, int n) {
    for (int i = 0; i < n; i++) {
        parse_uses(&table[i]);
        mt_op_mut(table[i].op)->autograd_info = &table[i];
    }
}

/* ---- saved-slot layout: saved arguments' tensors in order (a list's entries each), then results
 */

typedef struct layout {
    int start[MAX_ARGS], count[MAX_ARGS];
    int results_start, total;
} layout;

static void layout_of(const mt_node *n, const mt_value *args, layout *l) {
    const mt_schema *s = n->op->schema;
    int at = 0;
    for (int i = 0; i < s->nargs; i++) {
        l->start[i] = at;
        l->count[i] = 0;
        if (!(n->save_mask & (1u << i))) continue;
        l->count[i] = is_list_type(s->args[i].type) ? args[i].n : 1;
        at += l->count[i];
    }
    l->results_start = at;
    l->total = at + s->nrets;
}

/* ---- helpers formulas use -------------------------------------------------------------------- */

mt_tensor *mt_bw_keep(mt_bw *b, mt_tensor *t) {
    if (!t) longjmp(b->jump, 1);
    if (b->ntmp == b->captmp) {
        int cap = b->captmp ? 2 * b->captmp : 16;
        mt_tensor **v = NULL;
        if (!b->captmp) {
            v = b->tmp_inline;
            cap = (int)(sizeof b->tmp_inline / sizeof *v);
        } else if (b->tmp == b->tmp_inline) {
            if ((v = malloc(sizeof *v * (size_t)cap)))
                memcpy(v, b->tmp, sizeof *v * (size_t)b->ntmp);
        } else {
            v = realloc(b->tmp, sizeof *v * (size_t)cap);
        }
        if (!v) {
            mt_tensor_decref(t);
            mt_error(MT_ERR_MEMORY, "out of memory in backward");
            longjmp(b->jump, 1);
        }
        b->tmp = v;
        b->captmp = cap;
    }
    b->tmp[b->ntmp++] = t;
    return t;
}

void mt_bw_check(mt_bw *b, int status) {
    if (status) longjmp(b->jump, 1);
}

_Noreturn void mt_bw_fail(mt_bw *b) {
    longjmp(b->jump, 1);
}

void mt_bw_set_entry(mt_bw *b, int arg, int k, mt_tensor *grad) {
    int e = b->edge_of[arg];
    if (e < 0) return;
    mt_tensor **slot = &b->out[e + k];
    mt_tensor_incref(grad);
    mt_tensor_decref(*slot);
    *slot = grad;
}

bool mt_bw_needs(const mt_bw *b, int i) {
    int e = b->edge_of[i];
    if (e < 0) return false;
    int count = b->args[i].tag == MT_V_TENSORLIST ? b->args[i].n : 1;
    for (int k = 0; k < count; k++)
        if (b->node->next[e + k].fn && (!b->wanted || b->wanted[e + k])) return true;
    return false;
}

void mt_bw_set(mt_bw *b, int arg, mt_tensor *grad) {
    mt_bw_set_entry(b, arg, 0, grad);
}

const mt_input_meta *mt_bw_meta(const mt_bw *b, int arg) {
    int e = b->edge_of[arg];
    return e >= 0 ? &b->node->next_meta[e] : NULL;
}

mt_tensor *mt_zeros_meta(const mt_input_meta *m) {
    return mto_zeros((mt_ilist){m->sizes, m->ndim}, m->dtype, m->device, false, false);
}

mt_tensor *mt_bw_zeros(mt_bw *b, int arg) {
    return K(mt_zeros_meta(META(arg)));
}

mt_tensor *mt_bw_grad_zeros(mt_bw *b, int arg) {
    mt_tensor *z = mt_bw_zeros(b, arg);
    return z->dtype == G(0)->dtype ? z
                                   : K(mto_to_dtype(z, (mt_dtype)G(0)->dtype, false, false, NULL));
}

void mt_bw_zero_grads(mt_bw *b) {
    for (int i = 0; i < b->node->nargs; i++)
        if (NEEDS(i)) SET(i, mt_bw_zeros(b, i));
}

void mt_bw_pass(mt_bw *b) {
    SET(0, G(0));
}

mt_tensor *mt_sum_to(mt_tensor *grad, const int64_t *sizes, int ndim) {
    int lead = grad->ndim - ndim;
    int64_t dims[MT_MAX_DIM];
    int nd = 0;
    for (int i = 0; i < lead; i++) dims[nd++] = i;
    for (int i = 0; i < ndim; i++)
        if (sizes[i] == 1 && grad->sizes[lead + i] != 1) dims[nd++] = lead + i;
    mt_tensor *s;
    if (nd) {
        s = mto_sum_dim_IntList(grad, (mt_ilist){dims, nd}, true, -1);
    } else {
        mt_tensor_incref(grad);
        s = grad;
    }
    if (!s || (s->ndim == ndim && !lead)) return s;
    mt_tensor *v = mto_view(s, (mt_ilist){sizes, ndim});
    mt_tensor_decref(s);
    return v;
}

/* ---- formula nodes --------------------------------------------------------------------------- */

static int formula_apply(mt_node *n, mt_tensor **grads, mt_tensor **out, const bool *wanted) {
    const mt_schema *s = n->op->schema;
    const mt_derivative *d = n->d;
    bool any = false;
    for (int r = 0; r < n->ninputs; r++) any |= grads[r] != NULL;
    if (!any) return 0; /* no gradient flows through: none flows out */
    if (d->flags & MT_D_NOT_IMPLEMENTED) {
        const char *what = d->message ? d->message : s->name;
        if (strcmp(n->name, "torch::autograd::NotImplemented") == 0) /* PyTorch's two wordings */
            mt_error(MT_ERR_RUNTIME, "derivative for aten::%s is not implemented", what);
        else
            mt_error(MT_ERR_RUNTIME, "the derivative for '%s' is not implemented.", what);
        return -1;
    }
    layout l;
    layout_of(n, n->args, &l);
    mt_value args[MAX_ARGS];
    mt_tensor *results[MAX_RETS] = {0};
    mt_tensor *zero_grads[MAX_RETS] = {0};
    mt_tensor *stack_grads[MAX_RETS],
        **g = n->ninputs <= MAX_RETS ? stack_grads : calloc((size_t)n->ninputs, sizeof *g);
    bool unpacked[MAX_ARGS] = {0};
    int st = -1;
    mt_bw b = {.node = n,
               .args = args,
               .results = results,
               .out = out,
               .edge_of = n->edge_of,
               .wanted = wanted};
    memcpy(args, n->args, sizeof(mt_value) * (size_t)s->nargs);
    if (!g) return mt_error(MT_ERR_MEMORY, "out of memory in backward");
    /* undefined gradients of a node with several outputs arrive as zeros */
    for (int r = 0; r < n->ninputs; r++) {
        g[r] = grads[r];
        if (!g[r] && mt_dtype_is_floating((mt_dtype)n->in_meta[r].dtype)) {
            mt_tensor *z = mt_zeros_meta(&n->in_meta[r]);
            if (!z) goto done;
            if (r < MAX_RETS)
                zero_grads[r] = z;
            else
                mt_tensor_decref(z); /* only lists are this long: their grads are all defined */
            g[r] = z;
        }
    }
    b.grads = g;
    for (int i = 0; i < s->nargs; i++) {
        if (!l.count[i]) continue; /* not saved: formulas use the edge's meta */
        unpacked[i] = true;
        if (!is_list_type(s->args[i].type)) {
            mt_tensor *t = mt_saved_unpack(&n->saved[l.start[i]], n);
            args[i] = mt_vtensor(t);
            if (!t && n->saved[l.start[i]].defined) goto done;
        } else { /* a list: its entries unpacked into one array */
            mt_tensor **arr = calloc((size_t)l.count[i], sizeof *arr);
            args[i] = mt_vtlist(arr, l.count[i]);
            if (!arr) goto done;
            for (int k = 0; k < l.count[i]; k++) {
                arr[k] = mt_saved_unpack(&n->saved[l.start[i] + k], n);
                if (!arr[k] && n->saved[l.start[i] + k].defined) goto done;
            }
        }
    }
    for (int r = 0; r < s->nrets && r < MAX_RETS; r++) {
        if (!(n->save_results & (1u << r))) continue;
        results[r] = mt_saved_unpack(&n->saved[l.results_start + r], n);
        if (!results[r] && n->saved[l.results_start + r].defined) goto done;
    }
    if (setjmp(b.jump) == 0) {
        d->fn(&b);
        st = 0;
    } else {
        for (int e = 0; e < n->nnext; e++) {
            mt_tensor_decref(out[e]);
            out[e] = NULL;
        }
    }
    for (int i = 0; i < b.ntmp; i++) mt_tensor_decref(b.tmp[i]);
    if (b.tmp != b.tmp_inline) free(b.tmp);
done:
    for (int i = 0; i < s->nargs; i++) {
        if (!unpacked[i]) continue;
        if (args[i].tag == MT_V_TENSOR) {
            mt_tensor_decref(args[i].t);
        } else if (args[i].tag == MT_V_TENSORLIST) {
            for (int k = 0; k < args[i].n; k++) mt_tensor_decref(args[i].tl[k]);
            free(args[i].tl);
        }
    }
    for (int r = 0; r < MAX_RETS; r++) {
        mt_tensor_decref(results[r]);
        mt_tensor_decref(zero_grads[r]);
    }
    if (g != stack_grads) {
        for (int r = MAX_RETS; r < n->ninputs; r++)
            if (!grads[r]) mt_tensor_decref(g[r]);
        free(g);
    }
    return st;
}

static size_t args_block_bytes(const mt_schema *s) {
    size_t k = (size_t)(s->nargs ? s->nargs : 1);
    return k * (sizeof(mt_value) + sizeof(int));
}

static size_t saved_block_bytes(int nsaved) {
    return (size_t)(nsaved ? nsaved : 1) * sizeof(mt_saved);
}

static void formula_release_saved(mt_node *n) {
    for (int i = 0; i < n->nsaved; i++) mt_saved_release(&n->saved[i]);
    n->released = true;
}

static void formula_destroy(mt_node *n) {
    formula_release_saved(n);
    if (n->saved) mt_pool_free_aligned(n->saved, saved_block_bytes(n->nsaved));
    if (n->args) {
        const mt_schema *s = n->op->schema;
        for (int i = 0; i < s->nargs; i++) {
            mt_value *v = &n->args[i];
            if (v->tag == MT_V_INTLIST || v->tag == MT_V_DOUBLELIST)
                free((void *)v->il);
            else if (v->tag == MT_V_STR)
                free((void *)v->s);
        }
    }
    if (n->args) mt_pool_free_aligned(n->args, args_block_bytes(n->op->schema));
    free(n->extra);
}

const mt_node_kind mt_formula_kind = {formula_apply, formula_release_saved, formula_destroy};

/* a copy of a forward argument the node keeps: numbers, lists and strings (tensors reach
 * formulas through saved variables; a list keeps only its length) */
static int copy_arg(mt_value *dst, const mt_value *src) {
    if (mt_value_copy_owned(dst, src, "saving an op's arguments")) return -1;
    switch (src->tag) {
    case MT_V_TENSOR:
        dst->t = NULL;
        return 0;
    case MT_V_TENSORLIST:
        dst->tl = NULL;
        return 0;
    case MT_V_GENERATOR:
        dst->tag = MT_V_NONE;
        return 0;
    default:
        return 0;
    }
}

static bool edge_needed(const mt_node *n, const mt_value *args, int i) {
    int e = n->edge_of[i];
    if (e < 0) return false;
    int count = args[i].tag == MT_V_TENSORLIST ? args[i].n : 1;
    for (int k = 0; k < count; k++)
        if (n->next[e + k].fn) return true;
    return false;
}

/* A node for a call about to run: its edges (from the inputs as they are now) and which
 * tensors it will save. */
static mt_node *make_node(const mt_op *op, const mt_derivative *d, mt_value *args) {
    const mt_schema *s = op->schema;
    int nedges = 0;
    for (int i = 0; i < s->nargs; i++) {
        if (!(d->diff & (1u << i))) continue;
        nedges += args[i].tag == MT_V_TENSORLIST ? args[i].n : args[i].tag == MT_V_TENSOR ? 1 : 0;
    }
    mt_node *n = mt_node_new(&mt_formula_kind, d->name, nedges, s->nrets);
    if (!n) return NULL;
    n->op = op;
    n->d = d;
    n->nargs = s->nargs;
    /* the argument copies and edge_of are one pooled block, as the node is (mt_node_new) */
    n->args = mt_pool_alloc_aligned(args_block_bytes(s));
    if (!n->args) goto oom;
    memset(n->args, 0, args_block_bytes(s));
    n->edge_of = (int *)(n->args + (s->nargs ? s->nargs : 1));
    int e = 0;
    for (int i = 0; i < s->nargs; i++) {
        n->edge_of[i] = -1;
        if (copy_arg(&n->args[i], &args[i])) goto fail;
        if (!(d->diff & (1u << i))) continue;
        if (args[i].tag == MT_V_TENSOR) {
            const mt_tensor *t = args[i].t;
            if (t->ndim == 2 && t->strides[0] == 1 && t->strides[1] == t->sizes[0] &&
                t->sizes[0] > 1 && t->sizes[1] > 1)
                n->transposed |= 1u << i;
            n->edge_of[i] = e;
            if (mt_node_set_edge(n, e++, args[i].t)) goto fail;
        } else if (args[i].tag == MT_V_TENSORLIST) {
            n->edge_of[i] = e;
            for (int k = 0; k < args[i].n; k++)
                if (mt_node_set_edge(n, e++, args[i].tl[k])) goto fail;
        }
    }
    for (int i = 0; i < s->nargs; i++)
        if ((d->diff & (1u << i)) && edge_needed(n, args, i)) {
            n->save_mask |= d->arg_deps[i];
            n->save_results |= d->result_deps[i];
        }
    for (int i = 0; i < s->nargs; i++) /* only tensors that are there */
        if ((n->save_mask & (1u << i)) && args[i].tag != MT_V_TENSOR &&
            args[i].tag != MT_V_TENSORLIST)
            n->save_mask &= ~(1u << i);
    layout l;
    layout_of(n, args, &l);
    n->saved = mt_pool_alloc_aligned(saved_block_bytes(l.total));
    if (!n->saved) goto oom;
    memset(n->saved, 0, saved_block_bytes(l.total));
    n->nsaved = l.total;
    if ((d->flags & MT_D_SELF_GEOMETRY) && args[0].tag == MT_V_TENSOR) {
        mt_geometry *g = malloc(sizeof *g);
        if (!g) goto oom;
        mt_tensor *t = args[0].t;
        g->ndim = t->ndim;
        memcpy(g->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
        memcpy(g->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
        g->offset = t->offset;
        n->extra = g;
    }
    return n;
oom:
    mt_error(MT_ERR_MEMORY, "out of memory");
fail:
    mt_node_decref(n);
    return NULL;
}

mt_node *mt_formula_node(int opid, mt_value *args) {
    const mt_op *op = mt_op_get(opid);
    return make_node(op, op->autograd_info, args);
}

/* the saved inputs, before the op runs (as PyTorch: an input that cannot be saved stops the
 * call); self_before: an in-place op's self as it was */
static int save_inputs(mt_node *n, mt_value *args, mt_tensor *self_before) {
    const mt_schema *s = n->op->schema;
    layout l;
    layout_of(n, args, &l);
    for (int i = 0; i < s->nargs; i++) {
        if (!l.count[i]) continue;
        if (args[i].tag == MT_V_TENSORLIST) {
            for (int k = 0; k < args[i].n; k++)
                if (mt_saved_init(&n->saved[l.start[i] + k], args[i].tl[k], false, 0)) return -1;
        } else {
            mt_tensor *t = i == 0 && self_before ? self_before : args[i].t;
            if (mt_saved_init(&n->saved[l.start[i]], t, false, 0)) return -1;
        }
    }
    return 0;
}

/* the saved results, once the op has run */
static int save_results(mt_node *n, mt_value *args, mt_value *rets) {
    const mt_schema *s = n->op->schema;
    layout l;
    layout_of(n, args, &l);
    for (int r = 0; r < s->nrets; r++)
        if ((n->save_results & (1u << r)) && rets[r].tag == MT_V_TENSOR &&
            mt_saved_init(&n->saved[l.results_start + r], rets[r].t, true, r))
            return -1;
    return 0;
}

/* the outputs' geometry and history; a list result (split) gives one node output per entry */
static int link_outputs(mt_node *n, mt_value *rets, int nrets) {
    int count = 0;
    for (int r = 0; r < nrets; r++) count += rets[r].tag == MT_V_TENSORLIST ? rets[r].n : 1;
    if (count != n->ninputs) {
        mt_input_meta *m = calloc((size_t)(count ? count : 1), sizeof *m);
        if (!m) return mt_error(MT_ERR_MEMORY, "out of memory");
        if (n->in_meta_own) free(n->in_meta);
        n->in_meta = m;
        n->in_meta_own = true;
        n->ninputs = count;
    }
    int at = 0;
    for (int r = 0; r < nrets; r++) {
        int k = rets[r].tag == MT_V_TENSORLIST ? rets[r].n : 1;
        for (int j = 0; j < k; j++, at++) {
            mt_tensor *t = rets[r].tag == MT_V_TENSORLIST ? rets[r].tl[j]
                           : rets[r].tag == MT_V_TENSOR   ? rets[r].t
                                                          : NULL;
            if (!t) continue;
            mt_meta_of(&n->in_meta[at], t);
            if (!mt_dtype_is_floating((mt_dtype)t->dtype)) continue; /* indices carry no gradient */
            if (mt_set_history(t, n, at)) return -1;
        }
    }
    return 0;
}

/* ---- the kernel ------------------------------------------------------------------------------ */

/* run the op below autograd: its kernels' inner ops record nothing */
static int below(mt_call *c, mt_value *args, mt_value *rets, bool composite) {
    mt_tls *tls = mt_tls_get();
    mt_keyset saved = tls->excluded;
    tls->excluded |= 1u << MT_KEY_AUTOGRAD;
    int st = composite ? c->op->composite(c, args, rets) : mt_redispatch(c, args, rets);
    tls->excluded = saved;
    return st;
}

/* in-place ops bump the version of what they wrote here, before the graph saves it (the
 * dispatcher leaves calls that reached this key to it) */
static void bump_written(const mt_schema *s, mt_value *args) {
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].alias == MT_ALIAS_WRITE && args[i].tag == MT_V_TENSOR)
            mt_tensor_bump_version(args[i].t);
}

static bool requires_grad_arg(const mt_value *v) {
    if (v->tag == MT_V_TENSOR) return mt_tensor_requires_grad(v->t);
    if (v->tag == MT_V_TENSORLIST)
        for (int k = 0; k < v->n; k++)
            if (v->tl[k] && mt_tensor_requires_grad(v->tl[k])) return true;
    return false;
}

static int autograd_run(mt_call *c, mt_value *args, mt_value *rets, bool composite) {
    const mt_op *op = c->op;
    const mt_schema *s = op->schema;
    const mt_derivative *d = op->autograd_info;
    bool inplace = s->flags & MT_S_INPLACE, any = false;
    for (int i = 0; d && d->refused && i < s->nargs; i++)
        if ((d->refused & (1u << i)) && requires_grad_arg(&args[i]))
            return mt_error(MT_ERR_RUNTIME,
                            "The function '%s' is not differentiable with respect to argument "
                            "'%s'. This input cannot have requires_grad True.",
                            s->name, s->args[i].name);
    if (!(s->flags & MT_S_NONDIFF))
        for (int i = 0; i < s->nargs && !any; i++)
            if (is_tensor_type(s->args[i].type) && (!d || (d->diff & (1u << i))) &&
                requires_grad_arg(&args[i]))
                any = true;
    if (!any) {
        int st = below(c, args, rets, composite);
        if (st == 0 && inplace && !composite) bump_written(s, args);
        return st;
    }
    if (!d) return mt_error(MT_ERR_RUNTIME, "the derivative for '%s' is not implemented.", s->name);
    if (!d->fn && !(d->flags & MT_D_NOT_IMPLEMENTED))
        return mt_error(MT_ERR_RUNTIME, "%s", d->message);
    if (inplace && mt_check_inplace(args[0].t)) return -1;
    mt_node *n = make_node(op, d, args);
    if (!n) return -1;
    /* an in-place op whose formulas read self reads it as it was */
    mt_tensor *self_before = NULL;
    if (inplace && (n->save_mask & 1u)) {
        mt_tls *tls = mt_tls_get();
        mt_keyset saved = tls->excluded;
        tls->excluded |= 1u << MT_KEY_AUTOGRAD;
        self_before = mto_clone(args[0].t, NULL);
        tls->excluded = saved;
        if (!self_before) goto fail_node;
    }
    if (save_inputs(n, args, self_before)) goto fail_node;
    if (below(c, args, rets, composite)) goto fail_node;
    if (inplace && !composite) bump_written(s, args);
    if (save_results(n, args, rets)) goto fail_all;
    if (inplace) {
        mt_tensor *self = args[0].t;
        mt_meta_of(&n->in_meta[0], self);
        if (mt_is_diff_view(self) ? mt_rebase_view(self, n) : mt_set_history(self, n, 0))
            goto fail_all;
    } else {
        if (d->copy_name && rets[0].tag == MT_V_TENSOR && rets[0].t->storage != args[0].t->storage)
            n->name = d->copy_name;
        if (link_outputs(n, rets, s->nrets)) goto fail_all;
    }
    mt_tensor_decref(self_before);
    mt_node_decref(n);
    return 0;
fail_all:
    for (int r = 0; r < s->nrets; r++) mt_value_release(&rets[r]);
fail_node:
    mt_tensor_decref(self_before);
    mt_node_decref(n);
    return -1;
}

static int autograd_kernel(mt_call *c, mt_value *args, mt_value *rets) {
    return autograd_run(c, args, rets, false);
}

/* mt_call_op's way into autograd for a composition with formulas of its own */
int mt_autograd_composite(mt_call *c, mt_value *args, mt_value *rets) {
    return autograd_run(c, args, rets, true);
}

bool mt_op_has_derivative(int opid) {
    if (opid < 0 || opid >= MT_NUM_OPS) return false;
    const mt_derivative *d = mt_op_get(opid)->autograd_info;
    return d && d->fn && !(d->flags & MT_D_NOT_IMPLEMENTED);
}

void mt_autograd_register_meta(void);

void mt_autograd_register(void) {
    mt_autograd_register_meta();
    mt_disp_fallback(MT_KEY_AUTOGRAD, autograd_kernel);
    mt_deriv_declared_register();
    mt_deriv_linalg_register();
    mt_deriv_nn_register();
    mt_deriv_shape_register();
    mt_deriv_index_register();
}
