/* meta_creation.c: meta functions (result sizes, strides, dtype) of the creation ops. */
#include "factory.h"
#include "meta_fns.h"
#include "mt_ops_gen.h"

#include <string.h>

static int set_sizes(mt_outspec *o, mt_value size, mt_dtype dtype) {
    if (size.n > MT_MAX_DIM)
        return mt_error(MT_ERR_RUNTIME,
                        "mindtorch supports tensors of at most %d dimensions, got %d", MT_MAX_DIM,
                        size.n);
    if (mt_check_sizes(size.n, size.il) < 0) return -1;
    o->ndim = (int8_t)size.n;
    if (size.n > 0)
        memcpy(o->sizes, size.il, sizeof(int64_t) * (size_t)size.n); /* {} may be NULL */
    o->dtype = (uint8_t)dtype;
    return 0;
}

/* empty, zeros, ones: (size, *, dtype, device, ...) */
int mt_meta_sized_factory(mt_call *c, mt_value *args, mt_outspec *o) {
    MT_UNUSED(c);
    return set_sizes(o, args[0], mt_factory_dtype(args[1], mt_default_dtype()));
}

/* empty(size, *, dtype, device, requires_grad, pin_memory, memory_format) */
int mt_meta_empty(mt_call *c, mt_value *args, mt_outspec *o) {
    if (mt_meta_sized_factory(c, args, o)) return -1;
    if (args[5].tag != MT_V_STR || strcmp(args[5].s, "contiguous_format") == 0) return 0;
    if (strcmp(args[5].s, "preserve_format") == 0) /* no tensor to preserve: PyTorch's text */
        return mt_error(MT_ERR_RUNTIME, "unsupported memory format Preserve");
    if (mt_memory_format_strides(args[5].s, o->ndim, o->sizes, o->strides)) return -1;
    o->has_strides = 1;
    return 0;
}

int mt_meta_full(mt_call *c, mt_value *args, mt_outspec *o) {
    MT_UNUSED(c);
    return set_sizes(o, args[0], mt_factory_dtype(args[2], mt_scalar_dtype(args[1])));
}

int mt_meta_empty_strided(mt_call *c, mt_value *args, mt_outspec *o) {
    MT_UNUSED(c);
    if (args[0].n != args[1].n)
        return mt_error(MT_ERR_RUNTIME, "mismatch in length of strides and shape");
    if (set_sizes(o, args[0], mt_factory_dtype(args[2], mt_default_dtype()))) return -1;
    for (int i = 0; i < args[1].n; i++)
        if (args[1].il[i] < 0) {
            char buf[256];
            mt_fmt_ilist(buf, sizeof buf, args[1].il, args[1].n);
            return mt_error(MT_ERR_RUNTIME,
                            "as_strided: Negative strides are not supported at the moment, got "
                            "strides: %s",
                            buf);
        }
    if (args[1].n > 0) memcpy(o->strides, args[1].il, sizeof(int64_t) * (size_t)args[1].n);
    o->has_strides = 1;
    return 0;
}

int mt_meta_scalar_tensor(mt_call *c, mt_value *args, mt_outspec *o) {
    MT_UNUSED(c);
    o->ndim = 0;
    o->dtype = (uint8_t)mt_factory_dtype(args[1], mt_default_dtype());
    return 0;
}

int mt_meta_arange(mt_call *c, mt_value *args, mt_outspec *o) {
    mt_range r;
    if (mt_arange_args(c, args, &r)) return -1;
    o->ndim = 1;
    o->sizes[0] = r.size;
    o->dtype = (uint8_t)r.dtype;
    return 0;
}

int mt_meta_linspace(mt_call *c, mt_value *args, mt_outspec *o) {
    MT_UNUSED(c);
    if (args[2].i < 0) return mt_error(MT_ERR_RUNTIME, "number of steps must be non-negative");
    o->ndim = 1;
    o->sizes[0] = args[2].i;
    o->dtype = (uint8_t)mt_factory_dtype(args[3], mt_default_dtype());
    return 0;
}

int mt_meta_logspace(mt_call *c, mt_value *args, mt_outspec *o) {
    if (mt_meta_linspace(c, args, o)) return -1; /* the same checks and size */
    o->dtype = (uint8_t)mt_factory_dtype(args[4], mt_default_dtype());
    if (o->dtype == MT_FLOAT16 || o->dtype == MT_BOOL)
        return mt_error(MT_ERR_RUNTIME, "\"logspace_cpu\" not implemented for '%s'",
                        mt_dtype_scalar_name((mt_dtype)o->dtype));
    return 0;
}

int mt_meta_range(mt_call *c, mt_value *args, mt_outspec *o) {
    MT_UNUSED(c);
    mt_range r;
    if (mt_range_args(args, &r)) return -1;
    o->ndim = 1;
    o->sizes[0] = r.size;
    o->dtype = (uint8_t)r.dtype;
    return 0;
}

int mt_meta_eye(mt_call *c, mt_value *args, mt_outspec *o) {
    bool has_m = c->op->id == MT_OP_eye_m;
    int64_t n = args[0].i, m = has_m ? args[1].i : n;
    if (n < 0)
        return mt_error(MT_ERR_RUNTIME, "n must be greater or equal to 0, got %lld", (long long)n);
    if (m < 0)
        return mt_error(MT_ERR_RUNTIME, "m must be greater or equal to 0, got %lld", (long long)m);
    o->ndim = 2;
    o->sizes[0] = n;
    o->sizes[1] = m;
    o->dtype = (uint8_t)mt_factory_dtype(args[has_m ? 2 : 1], mt_default_dtype());
    return 0;
}
