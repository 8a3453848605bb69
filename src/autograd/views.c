/* views.c: autograd for views written in place, as PyTorch does it.
 *
 * A view's history follows its base's. When an op writes a view in place, the base's history
 * becomes CopySlices: the gradient of the base flows into the untouched part as it is, and
 * through the op's formulas into the written slice. The view (and every other view of the
 * same base written since) gets a new history on its next use: as_strided of the base
 * (AsStridedBackward0), regenerated whenever the shared version counter has moved since its
 * history was set. */
#include "formula.h"

#include <stdlib.h>
#include <string.h>

/* ---- regenerated view histories -------------------------------------------------------------- */

mt_node *mt_current_grad_fn(mt_tensor *t) {
    if (MT_UNLIKELY(mt_is_diff_view(t)) && t->attr_version != mt_tensor_version(t)) {
        mt_tensor *base = t->base;
        t->attr_version = mt_tensor_version(t);
        if (mt_tensor_requires_grad(base)) {
            mt_value args[4] = {mt_vtensor(base), mt_vilist(t->sizes, t->ndim),
                                mt_vilist(t->strides, t->ndim), mt_vint(t->offset)};
            mt_node *n = mt_formula_node(MT_OP_as_strided, args);
            if (n) { /* out of memory otherwise: the old history stays */
                mt_meta_of(&n->in_meta[0], t);
                mt_set_history(t, n, 0);
                mt_node_decref(n);
            }
        }
    }
    mt_ag_meta *m = t->autograd;
    return m ? m->grad_fn : NULL;
}

/* ---- checks before an in-place op (PyTorch's check_inplace) ---------------------------------- */

static const char *no_grad_view =
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled.";
static const char *multi_view = "This view is the output of a function that returns multiple "
                                "views. Such functions do not allow the output "
                                "views to be modified inplace. You should replace the inplace "
                                "operation by an out-of-place one.";

int mt_check_inplace(mt_tensor *self) {
    if (!mt_grad_enabled()) return 0;
    if (mt_is_diff_view(self)) {
        if (self->flags & MT_T_VIEW_MULTI) {
            mt_node *fn = mt_current_grad_fn(self);
            if (fn)
                return mt_error(MT_ERR_RUNTIME,
                                "Output %d of %s is a view and is being modified inplace. %s",
                                mt_output_nr(self), fn->name, multi_view);
            return mt_error(MT_ERR_RUNTIME, "%s %s", no_grad_view, multi_view);
        }
        if (self->flags & MT_T_VIEW_NO_GRAD)
            return mt_error(
                MT_ERR_RUNTIME,
                "%s Given that this use case is ambiguous and error-prone, it is forbidden. You "
                "can "
                "clarify your code by moving both the view and the inplace either both inside the "
                "no_grad block (if you don't want the inplace to be tracked) or both outside (if "
                "you "
                "want the inplace to be tracked).",
                no_grad_view);
        if (mt_tensor_requires_grad(self) && mt_is_leaf(self->base))
            return mt_error(MT_ERR_RUNTIME, "a view of a leaf Variable that requires grad is being "
                                            "used in an in-place operation.");
    }
    if (mt_tensor_requires_grad(self) && mt_is_leaf(self))
        return mt_error(
            MT_ERR_RUNTIME,
            "a leaf Variable that requires grad is being used in an in-place operation.");
    return 0;
}

/* ---- CopySlices ------------------------------------------------------------------------------ */

typedef struct copy_slices {
    mt_node *fn; /* the in-place op's node (owned) */
    int ndim, view_ndim;
    int64_t sizes[MT_MAX_DIM], strides[MT_MAX_DIM], offset; /* the base's geometry */
    int64_t view_sizes[MT_MAX_DIM], view_strides[MT_MAX_DIM], view_offset;
} copy_slices;

/* the base's gradient, with the slice the view covers replaced by what flows through fn */
/* wanted is not passed on: the view's node has edges of its own */
static int copy_slices_apply(mt_node *n, mt_tensor **grads, mt_tensor **out, const bool *wanted) {
    MT_UNUSED(wanted);
    copy_slices *cs = n->extra;
    mt_tensor *grad = grads[0];
    if (!grad) return 0;
    mt_node *fn = cs->fn;
    mt_tensor *stack_res[16] = {0},
              **res = fn->nnext <= 16 ? stack_res : calloc((size_t)fn->nnext, sizeof *res);
    mt_tensor *result = NULL, *slice = NULL, *slice_grad = NULL, *w = NULL;
    int st = -1;
    if (!res) return mt_error(MT_ERR_MEMORY, "out of memory in backward");
    result = mto_empty_strided((mt_ilist){cs->sizes, cs->ndim}, (mt_ilist){cs->strides, cs->ndim},
                               grad->dtype, grad->device, false, false);
    if (!result || !(w = mto_copy_(result, grad, false))) goto done;
    mt_tensor_decref(w);
    slice = mto_as_strided(result, (mt_ilist){cs->view_sizes, cs->view_ndim},
                           (mt_ilist){cs->view_strides, cs->view_ndim},
                           mt_vint(cs->view_offset - cs->offset));
    if (!slice || !(slice_grad = mto_clone(slice, NULL))) goto done;
    if (fn->kind->apply(fn, &slice_grad, res, NULL)) goto done;
    w = res[0] ? mto_copy_(slice, res[0], false) : mto_zero_(slice);
    if (!w) goto done;
    mt_tensor_decref(w);
    out[0] = result;
    result = NULL;
    for (int i = 1; i < fn->nnext; i++) {
        out[i] = res[i];
        res[i] = NULL;
    }
    st = 0;
done:
    for (int i = 0; i < fn->nnext; i++) mt_tensor_decref(res[i]);
    if (res != stack_res) free(res);
    mt_tensor_decref(result);
    mt_tensor_decref(slice);
    mt_tensor_decref(slice_grad);
    return st;
}

static void copy_slices_release(mt_node *n) {
    copy_slices *cs = n->extra;
    if (cs->fn->kind->release_saved) cs->fn->kind->release_saved(cs->fn);
}

static void copy_slices_destroy(mt_node *n) {
    copy_slices *cs = n->extra;
    if (!cs) return;
    mt_node_decref(cs->fn);
    free(cs);
}

static const mt_node_kind copy_slices_kind = {copy_slices_apply, copy_slices_release,
                                              copy_slices_destroy};

int mt_rebase_view(mt_tensor *view, mt_node *fn) {
    mt_tensor *base = view->base;
    /* a custom function's node has no edge_of: its edge i is its input i */
    if (fn->nnext < 1 || (fn->edge_of && fn->edge_of[0] != 0))
        return mt_error(MT_ERR_RUNTIME, "in-place %s on a view: its first argument has no gradient",
                        fn->name);
    mt_node *n = mt_node_new(&copy_slices_kind, "CopySlices", fn->nnext, 1);
    if (!n) return -1;
    copy_slices *cs = calloc(1, sizeof *cs);
    if (!cs) {
        mt_node_decref(n);
        return mt_error(MT_ERR_MEMORY, "out of memory");
    }
    n->extra = cs;
    mt_node_incref(fn);
    cs->fn = fn;
    cs->ndim = base->ndim;
    memcpy(cs->sizes, base->sizes, sizeof(int64_t) * (size_t)base->ndim);
    memcpy(cs->strides, base->strides, sizeof(int64_t) * (size_t)base->ndim);
    cs->offset = base->offset;
    cs->view_ndim = view->ndim;
    memcpy(cs->view_sizes, view->sizes, sizeof(int64_t) * (size_t)view->ndim);
    memcpy(cs->view_strides, view->strides, sizeof(int64_t) * (size_t)view->ndim);
    cs->view_offset = view->offset;
    /* edge 0: the base's history before the write; the others: fn's other inputs */
    if (mt_node_set_edge(n, 0, base)) {
        mt_node_decref(n);
        return -1;
    }
    for (int i = 1; i < fn->nnext; i++) {
        n->next[i] = fn->next[i];
        mt_node_incref(n->next[i].fn);
        n->next_meta[i] = fn->next_meta[i];
    }
    mt_meta_of(&n->in_meta[0], base);
    int st = mt_set_history(base, n, 0);
    mt_node_decref(n);
    view->attr_version = -1; /* its history is now a piece of the base's: regenerated when used */
    return st;
}
