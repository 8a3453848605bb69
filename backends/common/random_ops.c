/* random_ops.c: random sampling shared by every device: the in-place samplers' meta functions
 * (PyTorch's argument checks), and the factories and tensor functions composed from them
 * (rand = empty + uniform_, randn = empty + normal_, ...; doc/rng.md). */
#include "common_ops.h"
#include "elementwise.h"
#include "mt_generator.h"
#include "mt_ops_gen.h"
#include "random_ops.h"
#include "mt_half.h"
#include "shape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the generator argument as the typed wrappers take it */
static void *gen_of(mt_value v) {
    return v.tag == MT_V_GENERATOR ? v.gen : NULL;
}

mt_generator *mt_random_generator(mt_value v, mt_device dev) {
    /* the default is the tensor's own device's, as each device has its own in PyTorch */
    mt_generator *g = v.tag == MT_V_GENERATOR ? v.gen : mt_device_generator(dev);
    if (!g) return NULL;
    if (g->device.type != dev.type) {
        mt_error(MT_ERR_RUNTIME, "Expected a '%s' device type for generator but found '%s'",
                 mt_devtype_name(dev.type), mt_devtype_name(g->device.type));
        return NULL;
    }
    return g;
}

/* C++'s name of a dtype's element type, as PyTorch's range messages print it */
const char *mt_random_ctype_name(mt_dtype dt) {
    switch (dt) {
    case MT_BOOL:
        return "bool";
    case MT_UINT8:
        return "unsigned char";
    case MT_INT8:
        return "signed char";
    case MT_INT16:
        return "short";
    case MT_INT32:
        return "int";
    case MT_INT64:
        return "long";
    case MT_FLOAT16:
        return "c10::Half";
    case MT_BFLOAT16:
        return "c10::BFloat16";
    case MT_FLOAT32:
        return "float";
    case MT_FLOAT64:
        return "double";
    default:
        return "?";
    }
}

static int not_implemented(const char *kernel, const mt_tensor *t) {
    return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                    mt_dtype_scalar_name((mt_dtype)t->dtype));
}

static int inplace(mt_tensor *self, mt_outspec *o) {
    if (mt_check_writable(self)) return -1;
    o->inplace_arg = 0;
    return 0;
}

/* ---- meta functions of the in-place samplers ------------------------------------------------- */

static double dtype_max(mt_dtype dt) {
    switch (dt) {
    case MT_FLOAT16:
        return 65504.0;
    case MT_BFLOAT16:
        return 3.3895313892515355e38;
    case MT_FLOAT32:
        return 3.4028234663852886e38;
    default:
        return INFINITY;
    }
}

static int meta_uniform_(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    mt_dtype dt = (mt_dtype)self->dtype;
    double from = a[1].d, to = a[2].d, max = dtype_max(dt);
    if (!mt_dtype_is_floating(dt)) return not_implemented("check_uniform_bounds", self);
    if (!(from >= -max && from <= max) && dt != MT_FLOAT64)
        return mt_error(MT_ERR_RUNTIME, "from is out of bounds for %s", mt_random_ctype_name(dt));
    if (!(to >= -max && to <= max) && dt != MT_FLOAT64)
        return mt_error(MT_ERR_RUNTIME, "to is out of bounds for %s", mt_random_ctype_name(dt));
    if (isinf(from) || isinf(to) || isnan(from) || isnan(to))
        return mt_error(MT_ERR_RUNTIME, "%s is out of bounds for double",
                        isinf(from) || isnan(from) ? "from" : "to");
    if (from > to)
        return mt_error(MT_ERR_RUNTIME,
                        "uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                        from, to);
    if (to - from > max)
        return mt_error(MT_ERR_RUNTIME,
                        "uniform_ expects to-from <= std::numeric_limits<%s>::max(), but found "
                        "to=%g and from=%g "
                        "which result in to-from to exceed the limit",
                        mt_dtype_scalar_name(dt), to, from);
    return inplace(self, o);
}

static int meta_normal_(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    if (!mt_dtype_is_floating((mt_dtype)self->dtype))
        return not_implemented("normal_kernel_cpu", self);
    char num[32];
    if (!(a[2].d >= 0.0))
        return mt_error(MT_ERR_RUNTIME, "normal expects std >= 0.0, but found std %s",
                        mt_fmt_double(num, sizeof num, a[2].d));
    return inplace(self, o);
}

static int meta_exponential_(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    if (!mt_dtype_is_floating((mt_dtype)self->dtype))
        return not_implemented("exponential_cpu", self);
    char num[32];
    if (!(a[1].d >= 0.0))
        return mt_error(MT_ERR_RUNTIME, "exponential_ expects lambda >= 0.0, but found lambda=%s",
                        mt_fmt_double(num, sizeof num, a[1].d));
    return inplace(self, o);
}

static int meta_cauchy_(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    if (!mt_dtype_is_floating((mt_dtype)self->dtype)) return not_implemented("cauchy_cpu", self);
    return inplace(self, o);
}

static int meta_log_normal_(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    if (!mt_dtype_is_floating((mt_dtype)self->dtype))
        return not_implemented("log_normal_cpu", self);
    char num[32];
    if (!(a[2].d > 0.0))
        return mt_error(MT_ERR_RUNTIME, "log_normal_ expects std > 0.0, but found std=%s",
                        mt_fmt_double(num, sizeof num, a[2].d));
    return inplace(self, o);
}

static int meta_geometric_(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    char num[32];
    if (!(a[1].d > 0.0 && a[1].d < 1.0))
        return mt_error(MT_ERR_RUNTIME, "geometric_ expects p to be in (0, 1), but got p=%s",
                        mt_fmt_double(num, sizeof num, a[1].d));
    if (self->dtype == MT_BOOL) return not_implemented("geometric_cpu", self);
    return inplace(self, o);
}

/* poisson and binomial write a new contiguous tensor in float32 or float64 */
static int meta_poisson(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    if (self->dtype != MT_FLOAT32 && self->dtype != MT_FLOAT64)
        return not_implemented("poisson_cpu", self);
    o->ndim = (int8_t)self->ndim;
    memcpy(o->sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    o->dtype = self->dtype;
    return 0;
}

static int meta_binomial(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *count = a[0].t, *prob = a[1].t;
    int nd;
    if (mt_broadcast_shapes(count->ndim, count->sizes, prob->ndim, prob->sizes, &nd, o->sizes))
        return -1;
    if (prob->dtype != count->dtype) /* the result takes count's dtype; prob must have it too */
        return mt_error(MT_ERR_RUNTIME, "Found dtype %s but expected %s",
                        mt_dtype_scalar_name((mt_dtype)prob->dtype),
                        mt_dtype_scalar_name((mt_dtype)count->dtype));
    if (count->dtype != MT_FLOAT32 && count->dtype != MT_FLOAT64)
        return not_implemented("binomial_cpu", count);
    o->ndim = (int8_t)nd;
    o->dtype = count->dtype;
    return 0;
}

/* The [from, to] an integer draw may take for a dtype: integers take their range, floats
 * their exactly representable integers, bool {0, 1}. */
void mt_random_dtype_range(mt_dtype dt, int64_t *lo, int64_t *hi) {
    switch (dt) {
    case MT_BOOL:
        *lo = 0, *hi = 1;
        return;
    case MT_UINT8:
        *lo = 0, *hi = 255;
        return;
    case MT_INT8:
        *lo = -128, *hi = 127;
        return;
    case MT_INT16:
        *lo = -32768, *hi = 32767;
        return;
    case MT_INT32:
        *lo = INT32_MIN, *hi = INT32_MAX;
        return;
    case MT_INT64:
        *lo = INT64_MIN, *hi = INT64_MAX;
        return;
    case MT_FLOAT16:
        *lo = -(1LL << 11), *hi = 1LL << 11;
        return;
    case MT_BFLOAT16:
        *lo = -(1LL << 8), *hi = 1LL << 8;
        return;
    case MT_FLOAT32:
        *lo = -(1LL << 24), *hi = 1LL << 24;
        return;
    default:
        *lo = -(1LL << 53), *hi = 1LL << 53;
        return;
    }
}

/* PyTorch's update_from/update_to: bounds of a float dtype moved inside the integers it holds
 * exactly, so that from + 1 and to - 1 survive the cast */
static int64_t digits_of(mt_dtype dt) {
    return dt == MT_FLOAT16 ? 11 : dt == MT_BFLOAT16 ? 8 : dt == MT_FLOAT32 ? 24 : 53;
}

/* v rounded to the dtype and back; a value rounded past int64's range saturates (the cast
 * back would be undefined) */
static int64_t float_round(int64_t v, mt_dtype dt) {
    double r;
    switch (dt) {
    case MT_FLOAT16:
        r = mt_f16_to_f32(mt_f32_to_f16((float)v));
        break;
    case MT_BFLOAT16:
        r = mt_bf16_to_f32(mt_f32_to_bf16((float)v));
        break;
    case MT_FLOAT32:
        r = (float)v;
        break;
    default:
        r = (double)v;
    }
    if (r >= 0x1p63) return INT64_MAX;
    if (r < -0x1p63) return INT64_MIN;
    return (int64_t)r;
}

static int highest_bit(uint64_t v) {
    int n = 0;
    while (v >>= 1) ++n;
    return n;
}

static uint64_t magnitude(int64_t v) {
    return v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
}

/* PyTorch's update_from/update_to: move a bound that rounds past itself in the dtype back
 * inside the range (from + 1 and to - 1 cannot overflow: from < to) */
static int64_t update_from(int64_t from, mt_dtype dt) {
    if (from == INT64_MAX) return from;
    int64_t from_plus_1 = float_round(from + 1, dt);
    if (from_plus_1 < from)
        from = from_plus_1 + (1LL << (highest_bit(magnitude(from + 1)) - digits_of(dt) + 1));
    return from;
}

static int64_t update_to(int64_t to, mt_dtype dt) {
    if (to == INT64_MIN) return to;
    int64_t to_minus_1 = float_round(to - 1, dt);
    if (to_minus_1 >= to)
        to = to_minus_1 - (1LL << (highest_bit(magnitude(to - 1)) - digits_of(dt) + 1));
    return to;
}

/* float16 is the one floating dtype whose finite range is narrower than int64's */
static int check_half_bound(int64_t v, mt_dtype dt, const char *which) {
    if (dt == MT_FLOAT16 && (v < -65504 || v > 65504))
        return mt_error(MT_ERR_RUNTIME, "%s is out of bounds for c10::Half", which);
    return 0;
}

int mt_random_plan(int opid, mt_value *a, mt_dtype dt, mt_random_range *out) {
    out->full = false;
    if (opid == MT_OP_random_) return 0;
    int64_t from = opid == MT_OP_random__from ? a[1].i : 0;
    mt_value to = opid == MT_OP_random__from ? a[2] : a[1];
    int64_t lo, hi;
    mt_random_dtype_range(dt, &lo, &hi);
    bool floating = mt_dtype_is_floating(dt);
    if (to.tag == MT_V_INT) {
        int64_t t = to.i;
        if (from >= t)
            return mt_error(
                MT_ERR_RUNTIME,
                "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                (long long)from, (long long)t);
        if (floating) {
            if (check_half_bound(from, dt, "from") || check_half_bound(t - 1, dt, "to - 1"))
                return -1;
            from = update_from(from, dt);
            t = update_to(t, dt);
            if (from >= t)
                return mt_error(MT_ERR_RUNTIME,
                                "random_ expects 'from' casted to dtype to be less than 'to' "
                                "casted to dtype, but got "
                                "from=%lld >= to=%lld",
                                (long long)from, (long long)t);
        } else { /* floats only warn (PyTorch 1.13); integers refuse */
            if (from < lo || from > hi)
                return mt_error(MT_ERR_RUNTIME, "from is out of bounds for %s",
                                mt_random_ctype_name(dt));
            if (t - 1 < lo || t - 1 > hi)
                return mt_error(MT_ERR_RUNTIME, "to - 1 is out of bounds for %s",
                                mt_random_ctype_name(dt));
        }
        out->from = from;
        out->range = (uint64_t)t - (uint64_t)from;
    } else if (from != INT64_MIN) { /* [from, the dtype's largest] */
        if (floating && check_half_bound(from, dt, "from")) return -1;
        if (floating) from = update_from(from, dt);
        if (from > hi)
            return mt_error(MT_ERR_RUNTIME,
                            "random_ expects 'from' casted to dtype to be less than or equal to "
                            "'to_inc' casted to "
                            "dtype, but got from=%lld > to_inc=%lld",
                            (long long)from, (long long)hi);
        if (!floating && from < lo)
            return mt_error(MT_ERR_RUNTIME, "from is out of bounds for %s",
                            mt_random_ctype_name(dt));
        out->from = from;
        out->range = (uint64_t)hi - (uint64_t)from + 1;
    } else if (dt == MT_INT64 || dt == MT_FLOAT64 || dt == MT_FLOAT32 || dt == MT_BFLOAT16) {
        out->full = true; /* every 64-bit value */
    } else {
        return mt_error(MT_ERR_RUNTIME,
                        "random_from_to_impl handles only int64, double, float and bfloat16");
    }
    return 0;
}

static int meta_random_(mt_call *c, mt_value *a, mt_outspec *o) {
    mt_random_range r;
    if (mt_random_plan(c->op->id, a, (mt_dtype)a[0].t->dtype, &r)) return -1;
    return inplace(a[0].t, o);
}

static int meta_bernoulli_(mt_call *c, mt_value *a, mt_outspec *o) {
    mt_tensor *self = a[0].t;
    if (c->op->id == MT_OP_bernoulli__float) {
        char num[32];
        if (!(a[1].d >= 0 && a[1].d <= 1))
            return mt_error(MT_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=%s",
                            mt_fmt_double(num, sizeof num, a[1].d));
        if (self->dtype == MT_FLOAT16) return not_implemented("bernoulli_scalar_cpu_", self);
    } else {
        mt_tensor *p = a[1].t;
        if (self->dtype == MT_FLOAT16) return not_implemented("bernoulli_tensor_cpu_self_", self);
        if (p->dtype != MT_FLOAT32 && p->dtype != MT_FLOAT64 && p->dtype != MT_BFLOAT16)
            return not_implemented("bernoulli_tensor_cpu_p_", p);
        if (mt_check_broadcastable_to(p, self->ndim, self->sizes)) return -1;
    }
    return inplace(self, o);
}

/* ---- randperm, multinomial ------------------------------------------------------------------- */

static int meta_randperm(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    int64_t n = a[0].i;
    mt_dtype dt = a[2].tag == MT_V_DTYPE ? (mt_dtype)a[2].dtype : MT_INT64;
    if (n < 0)
        return mt_error(MT_ERR_RUNTIME,
                        "Trying to create tensor with negative dimension %lld: [%lld]",
                        (long long)n, (long long)n);
    if (dt == MT_BOOL) return mt_error(MT_ERR_RUNTIME, "\"randperm\" not implemented for 'Bool'");
    static const char *const int_names[] = {[MT_UINT8] = "uint8_t",
                                            [MT_INT8] = "int8_t",
                                            [MT_INT16] = "int16_t",
                                            [MT_INT32] = "int32_t"};
    int64_t lo, hi;
    mt_random_dtype_range(dt, &lo, &hi);
    if (mt_dtype_is_floating(dt)) {
        if (n > hi + 1) {
            if (dt == MT_FLOAT16 || dt == MT_BFLOAT16)
                return mt_error(MT_ERR_RUNTIME, "n cannot be greater than %lld for %s type.",
                                (long long)hi + 1, mt_dtype_scalar_name(dt));
            return mt_error(MT_ERR_RUNTIME, "n cannot be greater than 2^%d+1 for %s type.",
                            dt == MT_FLOAT32 ? 24 : 53, mt_dtype_scalar_name(dt));
        }
    } else if (dt != MT_INT64 && n > 0 && n - 1 > hi) {
        return mt_error(MT_ERR_RUNTIME, "value cannot be converted to type %s without overflow",
                        int_names[dt]);
    }
    o->ndim = 1;
    o->sizes[0] = n;
    o->dtype = (uint8_t)dt;
    return 0;
}

static int meta_multinomial(mt_call *c, mt_value *a, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = a[0].t;
    int64_t k = a[1].i;
    bool replacement = a[2].b;
    mt_dtype dt = (mt_dtype)self->dtype;
    if (!mt_dtype_is_floating(dt))
        return mt_error(MT_ERR_RUNTIME,
                        "multinomial only supports floating-point dtypes for input, got: %s",
                        mt_dtype_scalar_name(dt));
    if (dt == MT_FLOAT16)
        return mt_error(MT_ERR_RUNTIME, "multinomial is not implemented for half on CPU");
    if (self->ndim != 1 && self->ndim != 2)
        return mt_error(MT_ERR_RUNTIME, "prob_dist must be 1 or 2 dim");
    if (k <= 0) return mt_error(MT_ERR_RUNTIME, "cannot sample n_sample <= 0 samples");
    int64_t ncat = self->sizes[self->ndim - 1];
    if (!replacement && k > ncat)
        return mt_error(MT_ERR_RUNTIME,
                        "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    if (ncat > (1 << 24))
        return mt_error(MT_ERR_RUNTIME, "number of categories cannot exceed 2^24");
    o->ndim = self->ndim;
    if (self->ndim == 2) o->sizes[0] = self->sizes[0];
    o->sizes[self->ndim - 1] = k;
    o->dtype = MT_INT64;
    return 0;
}

/* ---- compositions ---------------------------------------------------------------------------- */

/* empty(size, dtype, device) for a factory's boxed arguments */
static mt_tensor *new_empty(mt_value size, mt_value dtype, mt_value device) {
    mt_value args[6] = {size, dtype, device, mt_vbool(false), mt_vbool(false), MT_NONE}, r[1];
    return mt_call_op(MT_OP_empty, args, r) ? NULL : r[0].t;
}

static mt_tensor *new_empty_like(mt_tensor *self, mt_value dtype, mt_value device,
                                 mt_value format) {
    mt_value args[5] = {mt_vtensor(self), dtype, device, mt_vbool(false), format}, r[1];
    return mt_call_op(MT_OP_empty_like, args, r) ? NULL : r[0].t;
}

/* t filled by an in-place sampler that returns its own reference: keep one */
static int filled(mt_value *r, mt_tensor *t, mt_tensor *same) {
    mt_tensor_decref(t);
    return mt_ret_tensor(r, same);
}

static int c_rand(mt_call *c, mt_value *a, mt_value *r) {
    /* (size, generator, dtype, device, ...) */
    mt_tensor *t = new_empty(a[0], a[2], a[3]);
    if (!t) return -1;
    if (c->op->id == MT_OP_rand) return filled(r, t, mto_uniform_(t, 0, 1, gen_of(a[1])));
    return filled(r, t, mto_normal_(t, 0, 1, gen_of(a[1])));
}

static int c_randint(mt_call *c, mt_value *a, mt_value *r) {
    bool low = c->op->id == MT_OP_randint_low;
    int64_t lo = low ? a[0].i : 0, hi = low ? a[1].i : a[0].i;
    mt_value *rest = low ? a + 2 : a + 1; /* size, generator, dtype, device */
    mt_value dtype = rest[2].tag == MT_V_DTYPE ? rest[2] : mt_vdtype(MT_INT64);
    mt_tensor *t = new_empty(rest[0], dtype, rest[3]);
    if (!t) return -1;
    return filled(r, t, mto_random__from(t, lo, mt_vint(hi), gen_of(rest[1])));
}

static int c_normal_float_float(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    /* (mean, std, size, generator, dtype, device, ...) */
    mt_tensor *t = new_empty(a[2], a[4], a[5]);
    if (!t) return -1;
    return filled(r, t, mto_normal_(t, a[0].d, a[1].d, gen_of(a[3])));
}

static int c_rand_like(mt_call *c, mt_value *a, mt_value *r) {
    int id = c->op->id;
    int at = id == MT_OP_randint_like ? 2 : id == MT_OP_randint_like_low_dtype ? 3 : 1;
    mt_tensor *t = new_empty_like(a[0].t, a[at], a[at + 1], a[at + 3]);
    if (!t) return -1;
    if (id == MT_OP_rand_like) return filled(r, t, mto_uniform_(t, 0, 1, NULL));
    if (id == MT_OP_randn_like) return filled(r, t, mto_normal_(t, 0, 1, NULL));
    int64_t lo = id == MT_OP_randint_like ? 0 : a[1].i,
            hi = id == MT_OP_randint_like ? a[1].i : a[2].i;
    return filled(r, t, mto_random__from(t, lo, mt_vint(hi), NULL));
}

/* normal(mean, std) with tensors: standard normals, then * std + mean (separate ops, as
 * PyTorch computes them) */
static int c_normal_tensors(mt_call *c, mt_value *a, mt_value *r) {
    int id = c->op->id;
    mt_tensor *mean = id == MT_OP_normal_float_Tensor ? NULL : a[0].t;
    mt_tensor *std = id == MT_OP_normal_Tensor_float ? NULL : a[1].t;
    if (std) { /* all of std >= 0 */
        mt_tensor *neg = mto_lt_Scalar(std, mt_vint(0)), *any = neg ? mto_any(neg) : NULL;
        mt_tensor_decref(neg);
        if (!any) return -1;
        bool bad = any->device.type == MT_DEV_CPU && *(uint8_t *)mt_tensor_data(any);
        mt_tensor_decref(any);
        if (bad) return mt_error(MT_ERR_RUNTIME, "normal expects all elements of std >= 0.0");
    } else if (!(a[1].d >= 0.0)) {
        char num[32];
        return mt_error(MT_ERR_RUNTIME, "normal expects std >= 0.0, but found std %s",
                        mt_fmt_double(num, sizeof num, a[1].d));
    }
    mt_tensor *shape_of = mean ? mean : std, *t;
    if (mean && std) {
        int nd;
        int64_t shape[MT_MAX_DIM];
        if (mt_broadcast_shapes(mean->ndim, mean->sizes, std->ndim, std->sizes, &nd, shape))
            return -1;
        t = mto_empty((mt_ilist){shape, nd}, mean->dtype, mean->device, false, false, NULL);
    } else {
        t = new_empty_like(shape_of, MT_NONE, MT_NONE, MT_NONE);
    }
    mt_tensor *z = t ? mto_normal_(t, 0, std ? 1 : a[1].d, gen_of(a[2])) : NULL;
    mt_tensor_decref(t);
    mt_tensor *scaled = z && std ? mto_mul_Tensor(z, std) : z, *out = NULL;
    if (scaled)
        out = mean ? mto_add_Tensor(scaled, mean, mt_vint(1))
                   : mto_add_Scalar(scaled, a[0], mt_vint(1));
    if (scaled != z) mt_tensor_decref(scaled);
    mt_tensor_decref(z);
    return mt_ret_tensor(r, out);
}

static int c_bernoulli(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *self = a[0].t;
    if (c->op->id == MT_OP_bernoulli && !mt_dtype_is_floating((mt_dtype)self->dtype))
        return not_implemented("bernoulli_tensor_cpu_p_", self);
    /* contiguous, as PyTorch's, whatever self's layout */
    mt_tensor *t = new_empty_like(self, MT_NONE, MT_NONE, mt_vstr("contiguous_format"));
    if (!t) return -1;
    if (c->op->id == MT_OP_bernoulli)
        return filled(r, t, mto_bernoulli__Tensor(t, self, gen_of(a[1])));
    return filled(r, t, mto_bernoulli__float(t, a[1].d, gen_of(a[2])));
}

/* dropout (doc/rng.md 8): input * (bernoulli(1 - p) mask / (1 - p)) */
static mt_tensor *dropout_noise(mt_tensor *input, double p) {
    double q = 1 - p;
    mt_tensor *mask = new_empty_like(input, MT_NONE, MT_NONE, MT_NONE);
    mt_tensor *m = mask ? mto_bernoulli__float(mask, q, NULL) : NULL;
    mt_tensor_decref(mask);
    if (!m) return NULL;
    mt_tensor *noise =
        mto_div__Scalar(m, mt_vdouble(q)); /* in the mask's dtype: float32 divides by (float)q */
    mt_tensor_decref(m);
    return noise;
}

static int c_dropout(mt_call *c, mt_value *a, mt_value *r) {
    mt_tensor *input = a[0].t;
    double p = a[1].d;
    bool in_place = c->op->id == MT_OP_dropout_;
    char num[32];
    if (!(p >= 0 && p <= 1))
        return mt_error(MT_ERR_RUNTIME, "dropout probability has to be between 0 and 1, but got %s",
                        mt_fmt_double(num, sizeof num, p));
    if (p == 0 || !a[2].b || input->numel == 0) {
        mt_tensor_incref(input);
        return mt_ret_tensor(r, input);
    }
    if (p == 1)
        return mt_ret_tensor(r, in_place ? mto_mul__Scalar(input, mt_vint(0))
                                         : mto_mul_Scalar(input, mt_vint(0)));
    mt_tensor *noise = dropout_noise(input, p);
    if (!noise) return -1;
    mt_tensor *out = in_place ? mto_mul__Tensor(input, noise) : mto_mul_Tensor(input, noise);
    mt_tensor_decref(noise);
    return mt_ret_tensor(r, out);
}

void mt_random_register(void) {
    mt_disp_meta(MT_OP_uniform_, meta_uniform_);
    mt_disp_meta(MT_OP_normal_, meta_normal_);
    mt_disp_meta(MT_OP_exponential_, meta_exponential_);
    mt_disp_meta(MT_OP_cauchy_, meta_cauchy_);
    mt_disp_meta(MT_OP_log_normal_, meta_log_normal_);
    mt_disp_meta(MT_OP_geometric_, meta_geometric_);
    mt_disp_meta(MT_OP_poisson, meta_poisson);
    mt_disp_meta(MT_OP_binomial, meta_binomial);
    mt_disp_meta(MT_OP_random__from, meta_random_);
    mt_disp_meta(MT_OP_random__to, meta_random_);
    mt_disp_meta(MT_OP_random_, meta_random_);
    mt_disp_meta(MT_OP_bernoulli__Tensor, meta_bernoulli_);
    mt_disp_meta(MT_OP_bernoulli__float, meta_bernoulli_);
    mt_disp_meta(MT_OP_randperm, meta_randperm);
    mt_disp_meta(MT_OP_multinomial, meta_multinomial);
    static const struct {
        int op;
        mt_kernel k;
    } composites[] = {
        {MT_OP_rand, c_rand},
        {MT_OP_randn, c_rand},
        {MT_OP_randint, c_randint},
        {MT_OP_randint_low, c_randint},
        {MT_OP_normal_float_float, c_normal_float_float},
        {MT_OP_rand_like, c_rand_like},
        {MT_OP_randn_like, c_rand_like},
        {MT_OP_randint_like, c_rand_like},
        {MT_OP_randint_like_low_dtype, c_rand_like},
        {MT_OP_normal_Tensor_float, c_normal_tensors},
        {MT_OP_normal_float_Tensor, c_normal_tensors},
        {MT_OP_normal_Tensor_Tensor, c_normal_tensors},
        {MT_OP_bernoulli, c_bernoulli},
        {MT_OP_bernoulli_p, c_bernoulli},
        {MT_OP_dropout, c_dropout},
        {MT_OP_dropout_, c_dropout},
    };
    for (size_t i = 0; i < MT_ARRAY_LEN(composites); i++)
        mt_disp_composite(composites[i].op, composites[i].k);
}
