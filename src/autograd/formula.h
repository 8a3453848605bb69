/* formula.h: what derivative formulas are written with (the deriv_*.c files).
 *
 * A formula is a function of `mt_bw *b` that sets the gradients of the forward's arguments
 * from the gradients of its outputs. Every op result goes through K(), which keeps it as a
 * temporary (released after the formula) and, when the op failed, jumps back to the node with
 * the op's error: formulas are straight-line code with no cleanup paths.
 *
 *   G(i)         the gradient of output i (never NULL: undefined ones arrive as zeros)
 *   A(i)         tensor argument i as saved (NULL unless the `uses` string names it)
 *   V(i)         argument i as a boxed value (numbers, lists, strings)
 *   R(i)         result i as saved
 *   NEEDS(i)     whether argument i's gradient is wanted
 *   SET(i, x)    argument i's gradient is x
 *   META(i)      the sizes, dtype and device argument i's gradient must have
 */
#ifndef MT_FORMULA_H
#define MT_FORMULA_H

#include "autograd_impl.h"

#include <math.h>

mt_tensor *mt_bw_keep(mt_bw *b, mt_tensor *t);
void mt_bw_check(mt_bw *b, int status);
void mt_bw_set(mt_bw *b, int arg, mt_tensor *grad);
/* whether argument i's gradient is wanted: it (an entry of it, for a list) has an edge to a node
 * that this pass runs */
bool mt_bw_needs(const mt_bw *b, int i);
void mt_bw_set_entry(mt_bw *b, int arg, int k, mt_tensor *grad);
_Noreturn void mt_bw_fail(mt_bw *b);
mt_tensor *mt_bw_zeros(mt_bw *b, int arg);
/* zeros shaped like argument `arg` in the gradient's dtype (where slices' gradients go) */
mt_tensor *mt_bw_grad_zeros(mt_bw *b, int arg);
/* formulas shared by many ops: zero gradients for every needed argument; the gradient as is */
void mt_bw_zero_grads(mt_bw *b);
void mt_bw_pass(mt_bw *b);

#define G(i) (b->grads[i])
#define A(i) (b->args[i].t)
#define V(i) (b->args[i])
#define R(i) (b->results[i])
#define NEEDS(i) mt_bw_needs(b, (i))
#define K(x) mt_bw_keep(b, (x))
#define CHECK(st) mt_bw_check(b, (st))
#define SET(i, x) mt_bw_set(b, (i), (x))
#define META(i) mt_bw_meta(b, (i))

/* Helpers the declared formulas call by name (src/ops/gen_derivatives.lua: HELPERS), as
 * PyTorch's derivatives.yaml calls FunctionsManual: */
/* the gradient of a sum over `dims` (None: all) brought back to the input's shape */
mt_tensor *mt_f_sum_backward(mt_bw *b, mt_tensor *g, const mt_input_meta *m, mt_value dims,
                             bool keepdim);
#define NUM(i) mt_scalar_double(b->args[i])

/* scalars for op arguments */
#define SD(x) mt_vdouble(x)
#define SI(x) mt_vint(x)
#define NODEV ((mt_device){-1, -1})

/* an int-list argument, and a meta's sizes, as the typed op wrappers take them */
static inline mt_ilist mt_vlist(mt_value v) {
    return (mt_ilist){v.il, v.n};
}
static inline mt_ilist mt_meta_sizes(const mt_input_meta *m) {
    return (mt_ilist){m->sizes, m->ndim};
}

/* a dim argument wrapped into [0, ndim) (formulas see dims as the op was called) */
static inline int64_t mt_wrap(int64_t d, int ndim) {
    return d < 0 ? d + (ndim > 0 ? ndim : 1) : d;
}

/* a table entry: the op, PyTorch's node name, the formula, what each gradient reads */
#define D(opname, nodename, fn, uses)                                                              \
    {                                                                                              \
        MT_OP_##opname, nodename, fn, uses, 0, NULL, NULL, 0, {0}, {                               \
            0                                                                                      \
        }                                                                                          \
    }
#define DF(opname, nodename, fn, uses, flags)                                                      \
    {                                                                                              \
        MT_OP_##opname, nodename, fn, uses, flags, NULL, NULL, 0, {0}, {                           \
            0                                                                                      \
        }                                                                                          \
    }
/* a node whose backward says "the derivative for '<fwd>' is not implemented." */
#define D_NOT_IMPLEMENTED(opname, nodename, uses, fwd)                                             \
    {                                                                                              \
        MT_OP_##opname, nodename, NULL, uses, MT_D_NOT_IMPLEMENTED, fwd, NULL, 0, {0}, {           \
            0                                                                                      \
        }                                                                                          \
    }
/* an op that refuses inputs that require grad, with PyTorch's message */
#define D_REFUSE(opname, uses, msg)                                                                \
    {                                                                                              \
        MT_OP_##opname, NULL, NULL, uses, 0, msg, NULL, 0, {0}, {                                  \
            0                                                                                      \
        }                                                                                          \
    }
/* a view-or-copy op: its node's name depends on which one the call made */
#define D_VIEW_OR_COPY(opname, viewname, copyname, fn, uses)                                       \
    {                                                                                              \
        MT_OP_##opname, viewname, fn, uses, 0, NULL, copyname, 0, {0}, {                           \
            0                                                                                      \
        }                                                                                          \
    }

#endif
