/* custom.c: nodes of functions the host defines (torch.autograd.Function): the forward ran
 * without grad, the node records edges to its inputs, the tensors the function saved (with
 * version checks, as formula nodes' saved variables) and the host's backward callback. */
#include "autograd_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct custom_data {
    mt_saved *saved;
    int nsaved;
} custom_data;

/* wanted is not used: a Function's ctx.needs_input_grad is fixed at its forward, as PyTorch's */
static int custom_apply(mt_node *n, mt_tensor **grads, mt_tensor **out, const bool *wanted) {
    MT_UNUSED(wanted);
    mt_custom_backward_fn fn = (mt_custom_backward_fn)n->custom.fn;
    return fn(n->custom.ctx, n, n->ninputs, grads, n->nnext, out);
}

static void custom_release_saved(mt_node *n) {
    custom_data *d = n->extra;
    if (!d) return;
    for (int i = 0; i < d->nsaved; i++) mt_saved_release(&d->saved[i]);
    n->released = true;
}

static void custom_destroy(mt_node *n) {
    custom_release_saved(n);
    custom_data *d = n->extra;
    if (d) free(d->saved);
    free(d);
    n->extra = NULL;
    if (n->custom.release) n->custom.release(n->custom.ctx);
}

static const mt_node_kind custom_kind = {custom_apply, custom_release_saved, custom_destroy};

static int output_index(mt_tensor **outputs, int noutputs, mt_tensor *t) {
    for (int i = 0; i < noutputs; i++)
        if (outputs[i] == t) return i;
    return -1;
}

mt_node *mt_custom_node(const char *name, mt_callback backward, mt_tensor **inputs, int ninputs,
                        mt_tensor **outputs, int noutputs, const bool *non_differentiable,
                        const bool *dirty, mt_tensor **save, int nsave) {
    mt_node *n = mt_node_new(&custom_kind, NULL, ninputs, noutputs);
    if (!n) {
        if (backward.release) backward.release(backward.ctx);
        return NULL;
    }
    n->custom = backward;
    n->owned_name = strdup(name);
    n->name = n->owned_name ? n->owned_name : "CustomBackward";
    custom_data *d = calloc(1, sizeof *d);
    n->extra = d;
    if (!d || (nsave && !(d->saved = calloc((size_t)nsave, sizeof *d->saved)))) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        goto fail;
    }
    for (int i = 0; i < ninputs; i++)
        if (mt_node_set_edge(n, i, inputs[i])) goto fail;
    for (int i = 0; i < noutputs; i++) {
        mt_tensor *t = outputs[i];
        if (!t) continue;
        mt_meta_of(&n->in_meta[i], t);
        if (dirty && dirty[i]) { /* an input modified in place: PyTorch's in-place rules */
            if (mt_check_inplace(t)) goto fail;
            if (non_differentiable && non_differentiable[i]) continue;
            /* CopySlices replays this node with the view's gradient as its only one and takes
             * result 0 for the view: that fits a one-output function whose first input is the view
             */
            if (mt_is_diff_view(t) && (noutputs != 1 || ninputs < 1 || inputs[0] != t)) {
                mt_error(MT_ERR_RUNTIME,
                         "%s: a view marked dirty must be the function's first input and its only "
                         "output",
                         n->name);
                goto fail;
            }
            if (mt_is_diff_view(t) ? mt_rebase_view(t, n) : mt_set_history(t, n, i)) goto fail;
            continue;
        }
        if ((non_differentiable && non_differentiable[i]) ||
            !mt_dtype_is_floating((mt_dtype)t->dtype))
            continue;
        if (mt_set_history(t, n, i)) goto fail;
    }
    /* saved after the outputs have their history: saved outputs are stored without it */
    for (int k = 0; k < nsave; k++) {
        int o = save[k] ? output_index(outputs, noutputs, save[k]) : -1;
        if (mt_saved_init(&d->saved[k], save[k], o >= 0, o >= 0 ? o : 0)) goto fail;
        d->nsaved = k + 1;
    }
    d->nsaved = nsave;
    return n;
fail:
    mt_node_decref(n);
    return NULL;
}

int mt_custom_saved(mt_node *n, mt_tensor **out, int *count) {
    if (n->kind != &custom_kind) return mt_error(MT_ERR_RUNTIME, "not a custom function's node");
    custom_data *d = n->extra;
    *count = d ? d->nsaved : 0;
    if (!out) return 0;
    for (int k = 0; k < *count; k++) {
        out[k] = NULL;
        if (!d->saved[k].defined) continue; /* None was saved */
        out[k] = mt_saved_unpack(&d->saved[k], n);
        if (!out[k]) {
            for (int j = 0; j < k; j++) mt_tensor_decref(out[j]);
            return -1;
        }
    }
    return 0;
}
