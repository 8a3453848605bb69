/* reduce.c: decoding reductions and along-a-dim ops (dims, dtypes, PyTorch's checks) and
 * their meta functions. */
#include "common_ops.h"
#include "reduce.h"
#include "mt_ops_gen.h"

#include <math.h>
#include <string.h>

static bool integral(mt_dtype t) {
    return !mt_dtype_is_floating(t);
}

/* the accumulation dtype of a result dtype */
static mt_dtype acc_of(mt_dtype t) {
    return t == MT_FLOAT64 ? MT_FLOAT64 : mt_dtype_is_floating(t) ? MT_FLOAT32 : MT_INT64;
}

/* dims from an int, a list, or None (= all); an empty list also means all */
static int set_dims(const mt_tensor *self, mt_value v, mt_red *r) {
    int n = self->ndim;
    memset(r->reduce, 0, sizeof r->reduce);
    if (v.tag == MT_V_NONE || (v.tag == MT_V_INTLIST && v.n == 0)) {
        for (int i = 0; i < n; i++) r->reduce[i] = true;
        return 0;
    }
    int cnt = v.tag == MT_V_INTLIST ? v.n : 1;
    for (int i = 0; i < cnt; i++) {
        int64_t d = v.tag == MT_V_INTLIST ? v.il[i] : v.i;
        int w;
        if (mt_wrap_dim(d, n, &w)) return -1;
        if (n == 0) continue; /* a 0-d tensor reduces over its single element */
        if (r->reduce[w])
            return mt_error(MT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims",
                            w + 1);
        r->reduce[w] = true;
    }
    return 0;
}

/* max/min/amax/amin/argmax/argmin refuse to reduce over nothing */
static int check_nonempty(const mt_tensor *self, const mt_red *r, bool dim_given) {
    if (self->numel != 0) return 0;
    if (!dim_given || self->ndim == 0) {
        if (r->kind == MT_R_ARGMAX || r->kind == MT_R_ARGMIN)
            return mt_error(MT_ERR_INDEX,
                            "%s(): Expected reduction dim to be specified for input.numel() == 0.",
                            r->name);
        return mt_error(
            MT_ERR_RUNTIME,
            "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
            "reduction dim with the 'dim' argument.",
            r->name);
    }
    for (int i = 0; i < self->ndim; i++)
        if (r->reduce[i] && self->sizes[i] == 0)
            return mt_error(MT_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size.",
                            r->name, i + 1);
    return 0;
}

/* the declared description of each reduction and along-a-dim overload, by op id */
static const mt_red_desc *red_descs[MT_NUM_OPS];
static int dimop_kinds[MT_NUM_OPS];

static mt_value arg_or_none(mt_value *args, const mt_red_desc *d, int which) {
    return d->arg[which] >= 0 ? args[d->arg[which]] : MT_NONE;
}

/* the result dtype by the declared rule, with PyTorch's checks */
static int red_dtypes(const mt_red_desc *d, mt_value *args, mt_dtype in, mt_red *r) {
    mt_value dtype = arg_or_none(args, d, MT_RA_DTYPE);
    bool given = dtype.tag == MT_V_DTYPE;
    switch (d->rule) {
    case MT_RR_SUM:
        r->out = given ? (mt_dtype)dtype.dtype : integral(in) ? MT_INT64 : in;
        break;
    case MT_RR_MEAN:
        if (given && integral((mt_dtype)dtype.dtype))
            return mt_error(MT_ERR_RUNTIME,
                            "%s(): could not infer output dtype. Optional dtype must be either a "
                            "floating point or complex dtype. Got: %s",
                            d->name, mt_dtype_scalar_name((mt_dtype)dtype.dtype));
        if (!given && integral(in))
            return mt_error(MT_ERR_RUNTIME,
                            "%s(): could not infer output dtype. Input dtype must be either a "
                            "floating point or complex dtype. Got: %s",
                            d->name, mt_dtype_scalar_name(in));
        r->out = given ? (mt_dtype)dtype.dtype : in;
        break;
    /* these compare or test the input's values: they accumulate in the input's kind */
    case MT_RR_SAME:
        r->out = in;
        r->compute = acc_of(in);
        return 0;
    case MT_RR_INDEX:
        r->out = MT_INT64;
        r->compute = acc_of(in);
        return 0;
    case MT_RR_BOOL:
        r->out = in == MT_UINT8 ? MT_UINT8 : MT_BOOL;
        r->compute = acc_of(in);
        return 0;
    case MT_RR_MOMENT: {
        if (integral(in))
            return mt_error(MT_ERR_RUNTIME,
                            "std and var only support floating point and complex dtypes");
        mt_value corr = arg_or_none(args, d, MT_RA_CORRECTION),
                 unb = arg_or_none(args, d, MT_RA_UNBIASED);
        r->correction = d->arg[MT_RA_CORRECTION] >= 0 ? (corr.tag == MT_V_INT ? corr.i : 1)
                        : unb.b                       ? 1
                                                      : 0;
        r->out = in;
        r->compute = MT_FLOAT64;
        return 0;
    }
    case MT_RR_NORM: {
        mt_value p = arg_or_none(args, d, MT_RA_P);
        r->p = p.tag == MT_V_NONE ? 2.0 : mt_scalar_double(p);
        if (integral(in))
            return mt_error(
                MT_ERR_RUNTIME,
                "norm(): input dtype should be either floating point or complex. Got %s instead.",
                mt_dtype_scalar_name(in));
        r->out = in;
        r->compute = MT_FLOAT64;
        return 0;
    }
    default:
        return mt_error(MT_ERR_RUNTIME, "not a reduction");
    }
    r->compute = acc_of(r->out);
    return 0;
}

int mt_red_decode(const mt_call *c, mt_value *args, mt_red *r) {
    const mt_red_desc *d = red_descs[c->op->id];
    if (!d) return mt_error(MT_ERR_RUNTIME, "%s is not a reduction", c->op->schema->name);
    mt_tensor *self = args[0].t;
    mt_dtype in = (mt_dtype)self->dtype;
    memset(r, 0, sizeof *r);
    r->kind = d->kind;
    r->name = d->name;
    r->nres = d->nres;
    r->identity = d->identity;
    r->with_indices = d->nres == 2 && (d->kind == MT_R_MAX || d->kind == MT_R_MIN);
    r->with_mean = d->nres == 2 && (d->kind == MT_R_VAR || d->kind == MT_R_STD);
    mt_value dims = arg_or_none(args, d, MT_RA_DIM);
    /* an empty dim list, like None, means every dim */
    bool dim_given = dims.tag != MT_V_NONE && !(dims.tag == MT_V_INTLIST && dims.n == 0);
    r->keepdim = d->arg[MT_RA_KEEPDIM] >= 0 && args[d->arg[MT_RA_KEEPDIM]].b;
    if (red_dtypes(d, args, in, r)) return -1;
    mt_dtype checked = d->rule == MT_RR_INDEX ? in : r->out;
    if (d->refused & (1u << checked))
        return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", d->kname,
                        mt_dtype_scalar_name(checked));
    if (set_dims(self, dims, r)) return -1;
    if ((r->kind == MT_R_MAX || r->kind == MT_R_MIN || r->kind == MT_R_ARGMAX ||
         r->kind == MT_R_ARGMIN) &&
        check_nonempty(self, r, dim_given))
        return -1;
    return 0;
}

int mt_red_out_shape(const mt_tensor *self, const mt_red *r, int64_t *shape) {
    int n = 0;
    for (int i = 0; i < self->ndim; i++) {
        if (!r->reduce[i])
            shape[n++] = self->sizes[i];
        else if (r->keepdim)
            shape[n++] = 1;
    }
    return n;
}

int mt_meta_reduce(mt_call *c, mt_value *args, mt_outspec *o) {
    mt_red r;
    if (mt_red_decode(c, args, &r)) return -1;
    int64_t shape[MT_MAX_DIM];
    int n = mt_red_out_shape(args[0].t, &r, shape);
    for (int k = 0; k < r.nres; k++) {
        o[k].ndim = (int8_t)n;
        memcpy(o[k].sizes, shape, sizeof(int64_t) * (size_t)n);
        o[k].dtype = (uint8_t)r.out;
    }
    if (r.with_indices) o[1].dtype = MT_INT64;
    return 0;
}

/* ---- ops along one dim ----------------------------------------------------------------------- */

int mt_dimop_decode(const mt_call *c, mt_value *args, mt_dimop *d) {
    mt_tensor *self = args[0].t;
    mt_dtype in = (mt_dtype)self->dtype;
    d->kind = dimop_kinds[c->op->id];
    if (mt_wrap_dim(args[1].i, self->ndim, &d->dim)) return -1;
    mt_value dtype = args[2];
    if (d->kind == MT_D_CUMSUM || d->kind == MT_D_CUMPROD) {
        d->out = dtype.tag == MT_V_DTYPE ? (mt_dtype)dtype.dtype : integral(in) ? MT_INT64 : in;
        if (d->out == MT_FLOAT16)
            return mt_error(MT_ERR_RUNTIME, "\"%s_out_cpu\" not implemented for 'Half'",
                            d->kind == MT_D_CUMSUM ? "cumsum" : "cumprod");
    } else {
        d->out = dtype.tag == MT_V_DTYPE ? (mt_dtype)dtype.dtype : in;
        if (integral(d->out) || mt_lacks_float16_kernel(self->device, d->out)) {
            bool last = self->ndim == 0 || d->dim == self->ndim - 1;
            return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'",
                            last ? (d->kind == MT_D_SOFTMAX ? "softmax_lastdim_kernel_impl"
                                                            : "log_softmax_lastdim_kernel_impl")
                                 : (d->kind == MT_D_SOFTMAX ? "softmax_kernel_impl"
                                                            : "log_softmax_kernel_impl"),
                            mt_dtype_scalar_name(d->out));
        }
    }
    d->compute = acc_of(d->out);
    return 0;
}

int mt_meta_dimop(mt_call *c, mt_value *args, mt_outspec *o) {
    mt_dimop d;
    if (mt_dimop_decode(c, args, &d)) return -1;
    mt_tensor *self = args[0].t;
    o->ndim = self->ndim;
    memcpy(o->sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    o->dtype = (uint8_t)d.out;
    return 0;
}

void mt_reduce_register(void) {
    for (int i = 0; i < mt_red_ndecls; i++) red_descs[mt_red_decls[i].op] = &mt_red_decls[i].d;
    for (int i = 0; i < mt_dimop_ndecls; i++)
        dimop_kinds[mt_dimop_decls[i].op] = mt_dimop_decls[i].kind;
    mt_disp_meta_group(MT_GROUP_REDUCTION, mt_meta_reduce);
    mt_disp_meta_group(MT_GROUP_DIMOP, mt_meta_dimop);
}
