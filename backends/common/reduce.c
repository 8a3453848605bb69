/* reduce.c: decoding reductions and along-a-dim ops (dims, dtypes, PyTorch's checks) and
 * their meta functions. */
#include "common_ops.h"
#include "reduce.h"
#include "mt_ops_gen.h"

#include <math.h>
#include <string.h>

static bool integral(mt_dtype t) { return !mt_dtype_is_floating(t); }

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
            return mt_error(MT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims", w + 1);
        r->reduce[w] = true;
    }
    return 0;
}

static int float_only(const char *msg_kind, mt_dtype t) {
    if (strcmp(msg_kind, "var") == 0)
        return mt_error(MT_ERR_RUNTIME, "std and var only support floating point and complex dtypes");
    return mt_error(MT_ERR_RUNTIME,
                    "norm(): input dtype should be either floating point or complex. Got %s instead.",
                    mt_dtype_scalar_name(t));
}

/* max/min/amax/amin/argmax/argmin refuse to reduce over nothing */
static int check_nonempty(const mt_tensor *self, const mt_red *r, bool dim_given) {
    if (self->numel != 0) return 0;
    if (!dim_given || self->ndim == 0) {
        if (r->kind == MT_R_ARGMAX || r->kind == MT_R_ARGMIN)
            return mt_error(MT_ERR_INDEX, "%s(): Expected reduction dim to be specified for input.numel() == 0.",
                            r->name);
        return mt_error(MT_ERR_RUNTIME,
                        "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                        "reduction dim with the 'dim' argument.",
                        r->name);
    }
    for (int i = 0; i < self->ndim; i++)
        if (r->reduce[i] && self->sizes[i] == 0)
            return mt_error(MT_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size.", r->name, i + 1);
    return 0;
}

int mt_red_decode(const mt_call *c, mt_value *args, mt_red *r) {
    mt_tensor *self = args[0].t;
    mt_dtype in = (mt_dtype)self->dtype;
    int id = c->op->id;
    memset(r, 0, sizeof *r);
    r->nres = 1;
    mt_value dtype = MT_NONE, dims = MT_NONE;
    bool dim_given = false;
    switch (id) {
    case MT_OP_sum: case MT_OP_sum_dim_IntList: case MT_OP_prod: case MT_OP_prod_dim_int:
    case MT_OP_mean: case MT_OP_mean_dim: {
        bool full = id == MT_OP_sum || id == MT_OP_prod || id == MT_OP_mean;
        r->kind = (id == MT_OP_sum || id == MT_OP_sum_dim_IntList) ? MT_R_SUM
                  : (id == MT_OP_prod || id == MT_OP_prod_dim_int) ? MT_R_PROD : MT_R_MEAN;
        r->name = r->kind == MT_R_SUM ? "sum" : r->kind == MT_R_PROD ? "prod" : "mean";
        if (!full) {
            dims = args[1];
            r->keepdim = args[2].b;
        }
        dtype = args[full ? 1 : 3];
        if (r->kind == MT_R_MEAN) {
            if (dtype.tag == MT_V_DTYPE && integral((mt_dtype)dtype.dtype))
                return mt_error(MT_ERR_RUNTIME,
                                "mean(): could not infer output dtype. Optional dtype must be either a "
                                "floating point or complex dtype. Got: %s",
                                mt_dtype_scalar_name((mt_dtype)dtype.dtype));
            if (dtype.tag != MT_V_DTYPE && integral(in))
                return mt_error(MT_ERR_RUNTIME,
                                "mean(): could not infer output dtype. Input dtype must be either a "
                                "floating point or complex dtype. Got: %s",
                                mt_dtype_scalar_name(in));
            r->out = dtype.tag == MT_V_DTYPE ? (mt_dtype)dtype.dtype : in;
        } else {
            r->out = dtype.tag == MT_V_DTYPE ? (mt_dtype)dtype.dtype : integral(in) ? MT_INT64 : in;
            if (r->kind == MT_R_PROD && (r->out == MT_FLOAT16 || r->out == MT_BFLOAT16))
                return mt_error(MT_ERR_RUNTIME, "\"prod_cpu\" not implemented for '%s'",
                                mt_dtype_scalar_name(r->out));
        }
        r->compute = acc_of(r->out);
        break;
    }
    case MT_OP_max: case MT_OP_min: case MT_OP_max_dim: case MT_OP_min_dim:
    case MT_OP_amax: case MT_OP_amin:
        r->kind = (id == MT_OP_max || id == MT_OP_max_dim || id == MT_OP_amax) ? MT_R_MAX : MT_R_MIN;
        r->name = id == MT_OP_amax ? "amax" : id == MT_OP_amin ? "amin" : r->kind == MT_R_MAX ? "max" : "min";
        if (id == MT_OP_max_dim || id == MT_OP_min_dim) {
            dims = args[1];
            r->keepdim = args[2].b;
            r->with_indices = true;
            r->nres = 2;
            dim_given = true;
        } else if (id == MT_OP_amax || id == MT_OP_amin) {
            dims = args[1];
            r->keepdim = args[2].b;
            dim_given = args[1].n > 0;
        }
        r->out = in;
        r->compute = acc_of(in);
        break;
    case MT_OP_argmax: case MT_OP_argmin:
        r->kind = id == MT_OP_argmax ? MT_R_ARGMAX : MT_R_ARGMIN;
        r->name = id == MT_OP_argmax ? "argmax" : "argmin";
        dims = args[1];
        dim_given = args[1].tag != MT_V_NONE;
        r->keepdim = args[2].b;
        r->out = MT_INT64;
        r->compute = acc_of(in);
        if (in == MT_BOOL)
            return mt_error(MT_ERR_RUNTIME, "\"%s_cpu\" not implemented for 'Bool'", r->name);
        break;
    case MT_OP_all: case MT_OP_any: case MT_OP_all_dim: case MT_OP_any_dim:
        r->kind = (id == MT_OP_all || id == MT_OP_all_dim) ? MT_R_ALL : MT_R_ANY;
        r->name = r->kind == MT_R_ALL ? "all" : "any";
        if (id == MT_OP_all_dim || id == MT_OP_any_dim) {
            dims = args[1];
            r->keepdim = args[2].b;
        }
        r->out = in == MT_UINT8 ? MT_UINT8 : MT_BOOL;
        r->compute = acc_of(in);
        break;
    case MT_OP_var: case MT_OP_var_dim: case MT_OP_var_correction: case MT_OP_std: case MT_OP_std_dim:
    case MT_OP_std_correction: case MT_OP_var_mean: case MT_OP_var_mean_dim: case MT_OP_var_mean_correction:
    case MT_OP_std_mean: case MT_OP_std_mean_dim: case MT_OP_std_mean_correction: {
        bool is_std = id == MT_OP_std || id == MT_OP_std_dim || id == MT_OP_std_correction ||
                      id == MT_OP_std_mean || id == MT_OP_std_mean_dim || id == MT_OP_std_mean_correction;
        r->kind = is_std ? MT_R_STD : MT_R_VAR;
        r->name = is_std ? "std" : "var";
        r->with_mean = id == MT_OP_var_mean || id == MT_OP_var_mean_dim || id == MT_OP_var_mean_correction ||
                       id == MT_OP_std_mean || id == MT_OP_std_mean_dim || id == MT_OP_std_mean_correction;
        r->nres = r->with_mean ? 2 : 1;
        bool corr = id == MT_OP_var_correction || id == MT_OP_std_correction ||
                    id == MT_OP_var_mean_correction || id == MT_OP_std_mean_correction;
        bool full = id == MT_OP_var || id == MT_OP_std || id == MT_OP_var_mean || id == MT_OP_std_mean;
        if (full) {
            r->correction = args[1].b ? 1 : 0;
        } else if (corr) {
            dims = args[1];
            r->correction = args[2].tag == MT_V_INT ? args[2].i : 1;
            r->keepdim = args[3].b;
        } else {
            dims = args[1];
            r->correction = args[2].b ? 1 : 0;
            r->keepdim = args[3].b;
        }
        if (integral(in)) return float_only("var", in);
        r->out = in;
        r->compute = MT_FLOAT64;
        break;
    }
    case MT_OP_norm_Scalar: case MT_OP_norm_ScalarOpt_dim: {
        r->kind = MT_R_NORM;
        r->name = "norm";
        mt_value p = args[1];
        r->p = p.tag == MT_V_NONE ? 2.0 : mt_scalar_double(p);
        if (id == MT_OP_norm_ScalarOpt_dim) {
            dims = args[2];
            r->keepdim = args[3].b;
        }
        if (integral(in)) return float_only("norm", in);
        r->out = in;
        r->compute = MT_FLOAT64;
        break;
    }
    default: return mt_error(MT_ERR_RUNTIME, "not a reduction");
    }
    if (set_dims(self, dims, r)) return -1;
    if ((r->kind == MT_R_MAX || r->kind == MT_R_MIN || r->kind == MT_R_ARGMAX || r->kind == MT_R_ARGMIN) &&
        check_nonempty(self, r, dim_given))
        return -1;
    return 0;
}

int mt_red_out_shape(const mt_tensor *self, const mt_red *r, int64_t *shape) {
    int n = 0;
    for (int i = 0; i < self->ndim; i++) {
        if (!r->reduce[i]) shape[n++] = self->sizes[i];
        else if (r->keepdim) shape[n++] = 1;
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
    int id = c->op->id;
    d->kind = id == MT_OP_cumsum ? MT_D_CUMSUM : id == MT_OP_cumprod ? MT_D_CUMPROD
              : id == MT_OP_softmax_int ? MT_D_SOFTMAX : MT_D_LOG_SOFTMAX;
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
                                 : (d->kind == MT_D_SOFTMAX ? "softmax_kernel_impl" : "log_softmax_kernel_impl"),
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
    static const int reductions[] = {
        MT_OP_sum, MT_OP_sum_dim_IntList, MT_OP_mean, MT_OP_mean_dim, MT_OP_prod, MT_OP_prod_dim_int,
        MT_OP_max, MT_OP_max_dim, MT_OP_min, MT_OP_min_dim, MT_OP_amax, MT_OP_amin, MT_OP_argmax,
        MT_OP_argmin, MT_OP_var, MT_OP_var_dim, MT_OP_var_correction, MT_OP_std, MT_OP_std_dim,
        MT_OP_std_correction, MT_OP_var_mean, MT_OP_var_mean_dim, MT_OP_var_mean_correction,
        MT_OP_std_mean, MT_OP_std_mean_dim, MT_OP_std_mean_correction, MT_OP_norm_Scalar,
        MT_OP_norm_ScalarOpt_dim, MT_OP_all, MT_OP_all_dim, MT_OP_any, MT_OP_any_dim,
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(reductions); i++) mt_disp_meta(reductions[i], mt_meta_reduce);
    static const int dimops[] = {MT_OP_cumsum, MT_OP_cumprod, MT_OP_softmax_int, MT_OP_log_softmax_int};
    for (size_t i = 0; i < MT_ARRAY_LEN(dimops); i++) mt_disp_meta(dimops[i], mt_meta_dimop);
}
