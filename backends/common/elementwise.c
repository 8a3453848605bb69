/* elementwise.c: type promotion, result layout, and the generic meta function of the
 * element-wise ops, driven by one description per op. */
#include "common_ops.h"
#include "elementwise.h"
#include "mt_ops_gen.h"
#include "shape.h"

#include <string.h>

/* ---- type promotion ------------------------------------------------------------------------ */

void mt_rt_init(mt_result_type *r) {
    r->dim = r->zero = r->wrapped = -1;
}

static int promote_skip(int a, int b) {
    return a < 0 ? b : b < 0 ? a : (int)mt_promote_types(a, b);
}

void mt_rt_tensor(mt_result_type *r, const mt_tensor *t) {
    int cur = t->dtype;
    if (t->flags & MT_T_WRAPPED_NUMBER) {
        if (mt_dtype_is_floating((mt_dtype)cur)) cur = mt_default_dtype();
        r->wrapped = promote_skip(r->wrapped, cur);
    } else if (t->ndim > 0) {
        r->dim = promote_skip(r->dim, cur);
    } else {
        r->zero = promote_skip(r->zero, cur);
    }
}

void mt_rt_scalar(mt_result_type *r, mt_value v) {
    if (v.tag == MT_V_NONE) return;
    r->wrapped = promote_skip(r->wrapped, mt_scalar_dtype(v));
}

/* the lower class only matters when it is of a higher category */
static int combine(int higher, int lower) {
    if (higher >= 0 && mt_dtype_is_floating((mt_dtype)higher)) return higher;
    if (higher == MT_BOOL || (lower >= 0 && mt_dtype_is_floating((mt_dtype)lower)))
        return promote_skip(higher, lower);
    return higher >= 0 ? higher : lower;
}

mt_dtype mt_rt_result(const mt_result_type *r) {
    int t = combine(r->dim, combine(r->zero, r->wrapped));
    return t < 0 ? mt_default_dtype() : (mt_dtype)t;
}

/* ---- result layout --------------------------------------------------------------------------- */

void mt_ew_out_strides(int nin, mt_tensor *const *inputs, int ndim, const int64_t *shape,
                       int64_t *strides) {
    if (ndim == 0) return;
    /* the fast set-up: every operand has the result's shape and one common dense layout */
    bool same_shape = true, all_contig = true, all_dense_same = true;
    const mt_tensor *first = NULL;
    for (int i = 0; i < nin; i++) {
        const mt_tensor *t = inputs[i];
        if (!t) {
            same_shape = false; /* a scalar operand: TensorIterator takes the general path */
            continue;
        }
        if (t->ndim != ndim || memcmp(t->sizes, shape, sizeof(int64_t) * (size_t)ndim) != 0) {
            same_shape = false;
            continue;
        }
        all_contig &= mt_tensor_is_contiguous(t);
        if (!first)
            first = t;
        else
            all_dense_same &=
                memcmp(t->strides, first->strides, sizeof(int64_t) * (size_t)ndim) == 0;
    }
    if (same_shape && first) {
        if (all_contig) {
            mt_contiguous_strides(ndim, shape, strides);
            return;
        }
        if (all_dense_same && mt_is_non_overlapping_and_dense(first)) {
            memcpy(strides, first->strides, sizeof(int64_t) * (size_t)ndim);
            return;
        }
    }
    /* the general path: order the dims by the inputs' strides (TensorIterator's
     * reorder_dimensions), then lay the result out contiguously in that order */
    int64_t st[MT_EW_MAX_IN][MT_MAX_DIM];
    int nops = 0;
    for (int i = 0; i < nin; i++) {
        const mt_tensor *t = inputs[i];
        if (!t) continue;
        for (int d = 0; d < ndim; d++) {
            int td = d - (ndim - t->ndim);
            st[nops][d] = (td >= 0 && t->sizes[td] == shape[d]) ? t->strides[td] : 0;
        }
        nops++;
    }
    int perm[MT_MAX_DIM];
    for (int i = 0; i < ndim; i++) perm[i] = ndim - 1 - i; /* perm[0] is the innermost */
    for (int i = 1; i < ndim; i++) {
        int dim1 = i;
        for (int dim0 = i - 1; dim0 >= 0; dim0--) {
            int a = perm[dim0], b = perm[dim1], cmp = 0;
            for (int op = 0; op < nops && cmp == 0; op++) {
                int64_t s0 = st[op][a], s1 = st[op][b];
                if (s0 == 0 || s1 == 0) continue;
                if (s0 < s1)
                    cmp = -1;
                else if (s0 > s1)
                    cmp = 1;
                else if (shape[a] > shape[b])
                    cmp = 1;
            }
            if (cmp > 0) {
                perm[dim0] = b;
                perm[dim1] = a;
                dim1 = dim0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
    bool natural = true; /* TensorIterator then allocates a plain contiguous result */
    for (int i = 0; i < ndim; i++) natural &= perm[i] == ndim - 1 - i;
    if (natural) {
        mt_contiguous_strides(ndim, shape, strides);
        return;
    }
    int64_t acc = 1;
    for (int i = 0; i < ndim; i++) {
        strides[perm[i]] = acc;
        acc *= shape[perm[i]];
    }
}

/* ---- op descriptions ------------------------------------------------------------------------- */

static const mt_ew_desc *descs[MT_NUM_OPS];

const mt_ew_desc *mt_ew_desc_of(int opid) {
    return opid >= 0 && opid < MT_NUM_OPS ? descs[opid] : NULL;
}

void mt_ew_register(void) {
    for (int i = 0; i < mt_ew_ndecls; i++) descs[mt_ew_decls[i].op] = &mt_ew_decls[i].d;
    mt_disp_meta_group(MT_GROUP_ELEMENTWISE, mt_meta_elementwise);
}

static bool is_bool_value(mt_value v) {
    return (v.tag == MT_V_TENSOR && v.t->dtype == MT_BOOL) || v.tag == MT_V_BOOL;
}

static bool integral(mt_dtype t) {
    return !mt_dtype_is_floating(t);
}

int mt_ew_types_of(const mt_call *c, const mt_ew_desc *d, mt_value *args, mt_ew_types *ty) {
    mt_result_type rt;
    mt_rt_init(&rt);
    int first_in = d->check == MT_EWC_WHERE ? 1 : 0; /* where's condition does not promote */
    for (int i = first_in; i < d->nin; i++) {
        if (args[i].tag == MT_V_TENSOR)
            mt_rt_tensor(&rt, args[i].t);
        else
            mt_rt_scalar(&rt, args[i]);
    }
    int rule = d->rule;
    ty->div_true = false;
    switch (d->check) {
    case MT_EWC_CLAMP: /* the bounds take part in promotion */
        if (args[1].tag == MT_V_NONE && args[2].tag == MT_V_NONE)
            return mt_error(MT_ERR_RUNTIME,
                            "torch.clamp: At least one of 'min' or 'max' must not be None");
        mt_rt_scalar(&rt, args[1]);
        mt_rt_scalar(&rt, args[2]);
        break;
    case MT_EWC_WHERE:
        if (args[0].t->dtype != MT_BOOL && args[0].t->dtype != MT_UINT8)
            return mt_error(
                MT_ERR_RUNTIME,
                "where expected condition to be a boolean tensor, but got a tensor with "
                "dtype %s",
                mt_dtype_scalar_name((mt_dtype)args[0].t->dtype));
        break;
    default:
        break;
    }
    mt_dtype common = mt_rt_result(&rt);
    switch (d->check) {
    case MT_EWC_SUB:
        if (is_bool_value(args[0]) && is_bool_value(args[1]))
            return mt_error(MT_ERR_RUNTIME,
                            "Subtraction, the `-` operator, with two bool tensors is not "
                            "supported. Use the `^` or `logical_xor()` operator instead.");
        if (is_bool_value(args[0]) || is_bool_value(args[1]))
            return mt_error(
                MT_ERR_RUNTIME,
                "Subtraction, the `-` operator, with a bool tensor is not supported. If "
                "you are trying to invert a mask, use the `~` or `logical_not()` operator "
                "instead.");
        __attribute__((fallthrough)); /* sub has alpha too */
    case MT_EWC_ALPHA: {
        mt_value alpha = args[d->params[0]];
        if (integral(common) && alpha.tag == MT_V_DOUBLE)
            return mt_error(MT_ERR_RUNTIME,
                            "For integral input tensors, argument alpha must not be a "
                            "floating point number.");
        if (common != MT_BOOL && alpha.tag == MT_V_BOOL)
            return mt_error(MT_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
        break;
    }
    case MT_EWC_NEG:
        if (args[0].t->dtype == MT_BOOL)
            return mt_error(
                MT_ERR_RUNTIME,
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        break;
    case MT_EWC_RELU:
        if (args[0].t->dtype == MT_BOOL)
            return mt_error(MT_ERR_RUNTIME, "Boolean inputs not supported for relu");
        break;
    case MT_EWC_DIVMODE: {
        mt_value m = args[d->params[0]];
        if (m.tag == MT_V_NONE) {
            rule = MT_EW_FLOAT;
            ty->div_true = true;
        } else if (strcmp(m.s, "trunc") != 0 && strcmp(m.s, "floor") != 0) {
            return mt_error(MT_ERR_RUNTIME,
                            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                            "found '%s'",
                            m.s);
        }
        break;
    }
    case MT_EWC_POW:
        if (integral(common) && args[1].tag == MT_V_INT && args[1].i < 0)
            return mt_error(MT_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
        break;
    case MT_EWC_LERP: {
        mt_dtype st = (mt_dtype)args[0].t->dtype;
        if (args[1].tag == MT_V_TENSOR && args[1].t->dtype != st)
            return mt_error(MT_ERR_RUNTIME, "expected dtype %s for `end` but got dtype %s",
                            mt_dtype_cxx_name(st), mt_dtype_cxx_name((mt_dtype)args[1].t->dtype));
        if (args[2].tag == MT_V_TENSOR && args[2].t->dtype != st)
            return mt_error(MT_ERR_RUNTIME, "expected dtype %s for `weight` but got dtype %s",
                            mt_dtype_cxx_name(st), mt_dtype_cxx_name((mt_dtype)args[2].t->dtype));
        common = st;
        break;
    }
    case MT_EWC_SAMEDTYPE:
        if (args[0].tag == MT_V_TENSOR && args[1].tag == MT_V_TENSOR &&
            args[0].t->dtype != args[1].t->dtype)
            return mt_error(MT_ERR_RUNTIME,
                            "%s is not yet implemented for tensors with different dtypes.",
                            c->op->schema->name);
        break;
    case MT_EWC_ADDCDIV:
        if (integral(common))
            return mt_error(
                MT_ERR_RUNTIME,
                "Integer division with addcdiv is no longer supported, and in a future  "
                "release addcdiv will perform a true division of tensor1 and tensor2. The "
                "historic addcdiv behavior can be implemented as (input + value * "
                "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                "behavior is just the latter implementation: (input + value * tensor1 / "
                "tensor2), for all dtypes.");
        break;
    default:
        break;
    }
    ty->compute = common;
    if (rule == MT_EW_FLOAT && integral(common)) ty->compute = mt_default_dtype();
    ty->out = rule == MT_EW_BOOL ? MT_BOOL : ty->compute;
    if (c->op->schema->flags & MT_S_INPLACE) {
        mt_dtype self = (mt_dtype)args[0].t->dtype;
        if (!mt_can_cast(ty->out, self)) /* clamp_'s check words the output as a C++ type */
            return mt_error(
                MT_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                mt_dtype_scalar_name(ty->out),
                d->check == MT_EWC_CLAMP ? mt_dtype_cxx_name(self) : mt_dtype_scalar_name(self));
        ty->out = self;
    }
    if (!(d->dtypes & MT_DT_BIT(ty->compute)) &&
        (ty->compute != MT_FLOAT16 || mt_lacks_float16_kernel(c->device, ty->compute))) {
        const char *k = d->kname;
        if (d->check == MT_EWC_CLAMP) /* PyTorch names clamp's kernel by its bounds */
            k = args[2].tag == MT_V_NONE   ? "clamp_min_cpu"
                : args[1].tag == MT_V_NONE ? "clamp_max_scalar_cpu"
                                           : k;
        /* another device's kernel of the same dtypes bears its own name (erfcx_cuda) */
        size_t n = strlen(k);
        if (c->device.type != MT_DEV_CPU && c->device.type != MT_DEV_META && n > 4 &&
            strcmp(k + n - 4, "_cpu") == 0)
            return mt_error(MT_ERR_RUNTIME, "\"%.*s_%s\" not implemented for '%s'", (int)(n - 4), k,
                            mt_devtype_name(c->device.type), mt_dtype_scalar_name(ty->compute));
        return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", k,
                        mt_dtype_scalar_name(ty->compute));
    }
    return 0;
}

/* ---- the generic meta function --------------------------------------------------------------- */

int mt_meta_elementwise(mt_call *c, mt_value *args, mt_outspec *o) {
    const mt_ew_desc *d = mt_ew_desc_of(c->op->id);
    mt_ew_types ty;
    int64_t shape[MT_MAX_DIM];
    int ndim = 0;
    mt_tensor *ins[MT_EW_MAX_IN] = {0};
    for (int i = 0; i < d->nin; i++) {
        if (args[i].tag != MT_V_TENSOR) continue;
        mt_tensor *t = args[i].t;
        ins[i] = t;
        if (mt_broadcast_shapes(ndim, shape, t->ndim, t->sizes, &ndim, shape)) return -1;
    }
    if (mt_ew_types_of(c, d, args, &ty)) return -1;
    /* TensorIterator decides the layout after converting inputs to the compute dtype with to(),
     * which keeps a dense layout but makes anything else (an expanded view) contiguous */
    mt_tensor conv[MT_EW_MAX_IN];
    for (int i = 0; i < d->nin; i++) {
        if (!ins[i] || ins[i]->dtype == ty.compute || (d->check == MT_EWC_WHERE && i == 0))
            continue;
        conv[i] = *ins[i];
        mt_preserve_strides(ins[i], conv[i].strides);
        ins[i] = &conv[i];
    }
    if (c->op->schema->flags & MT_S_INPLACE) {
        mt_tensor *self = args[0].t;
        if (self->ndim != ndim || memcmp(self->sizes, shape, sizeof(int64_t) * (size_t)ndim) != 0) {
            char a[256], b[256];
            mt_fmt_ilist(a, sizeof a, self->sizes, self->ndim);
            mt_fmt_ilist(b, sizeof b, shape, ndim);
            return mt_error(MT_ERR_RUNTIME,
                            "output with shape %s doesn't match the broadcast shape %s", a, b);
        }
        if (mt_check_writable(self)) return -1;
        for (int i = 1; i < d->nin; i++)
            if (ins[i] && mt_check_no_overlap(self, ins[i])) return -1;
        o->inplace_arg = 0;
        return 0;
    }
    o->ndim = (int8_t)ndim;
    o->dtype = (uint8_t)ty.out;
    memcpy(o->sizes, shape, sizeof(int64_t) * (size_t)ndim);
    mt_ew_out_strides(d->nin, ins, ndim, shape, o->strides);
    o->has_strides = 1;
    return 0;
}
