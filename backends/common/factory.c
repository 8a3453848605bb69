/* factory.c: argument rules of the creation ops. */
#include "factory.h"
#include "mt_ops_gen.h"

#include <math.h>

int mt_arange_args(const mt_call *c, mt_value *args, mt_range *r) {
    int id = c->op->id, dt_at;
    if (id == MT_OP_arange) {
        r->start = mt_vint(0);
        r->end = args[0];
        r->step = mt_vint(1);
        dt_at = 1;
    } else if (id == MT_OP_arange_start) {
        r->start = args[0];
        r->end = args[1];
        r->step = mt_vint(1);
        dt_at = 2;
    } else {
        r->start = args[0];
        r->end = args[1];
        r->step = args[2];
        dt_at = 3;
    }
    bool any_float =
        r->start.tag == MT_V_DOUBLE || r->end.tag == MT_V_DOUBLE || r->step.tag == MT_V_DOUBLE;
    r->dtype = mt_factory_dtype(args[dt_at], any_float ? mt_default_dtype() : MT_INT64);
    double size_d;
    bool integral = !mt_dtype_is_floating(r->dtype);
    double xstart, xend, xstep;
    if (integral) { /* integer dtypes compute in int64, truncating float bounds */
        int64_t s = mt_scalar_int(r->start), e = mt_scalar_int(r->end), st = mt_scalar_int(r->step);
        xstart = (double)s;
        xend = (double)e;
        xstep = (double)st;
        if (st == 0) return mt_error(MT_ERR_RUNTIME, "step must be nonzero");
        size_d = ceil((double)(e - s) / (double)st);
    } else {
        xstart = mt_scalar_double(r->start);
        xend = mt_scalar_double(r->end);
        xstep = mt_scalar_double(r->step);
        size_d = ceil((xend - xstart) / xstep);
    }
    if (!(xstep > 0 || xstep < 0)) return mt_error(MT_ERR_RUNTIME, "step must be nonzero");
    if (!isfinite(xstart) || !isfinite(xend))
        return mt_error(MT_ERR_RUNTIME, "unsupported range: %g -> %g", xstart, xend);
    if (!((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart)))
        return mt_error(MT_ERR_RUNTIME, "upper bound and larger bound inconsistent with step sign");
    if (!(size_d >= 0 && size_d <= 9.2e18))
        return mt_error(MT_ERR_RUNTIME, "invalid size, possible overflow?");
    r->size = (int64_t)size_d;
    return 0;
}

int mt_range_args(mt_value *args, mt_range *r) {
    r->start = args[0];
    r->end = args[1];
    r->step = args[2];
    r->dtype = mt_factory_dtype(args[3], mt_default_dtype());
    if (r->dtype == MT_FLOAT16 || r->dtype == MT_BOOL)
        return mt_error(MT_ERR_RUNTIME, "\"range_cpu\" not implemented for '%s'",
                        mt_dtype_scalar_name(r->dtype));
    if (!mt_dtype_is_floating(r->dtype)) {
        int64_t s = mt_scalar_int(r->start), e = mt_scalar_int(r->end), st = mt_scalar_int(r->step);
        if (st == 0) return mt_error(MT_ERR_RUNTIME, "step must be nonzero");
        if (!((st > 0 && e >= s) || (st < 0 && e <= s)))
            return mt_error(MT_ERR_RUNTIME,
                            "upper bound and lower bound inconsistent with step sign");
        r->size = (e - s) / st + 1;
        return 0;
    }
    double xstart = mt_scalar_double(r->start), xend = mt_scalar_double(r->end),
           xstep = mt_scalar_double(r->step), size;
    if (r->dtype == MT_BFLOAT16) { /* float arithmetic */
        xstart = (float)xstart, xend = (float)xend, xstep = (float)xstep;
    }
    if (!(xstep > 0 || xstep < 0)) return mt_error(MT_ERR_RUNTIME, "step must be nonzero");
    if (!isfinite(xstart) || !isfinite(xend))
        return mt_error(MT_ERR_RUNTIME, "unsupported range: %g -> %g", xstart, xend);
    if (!((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart)))
        return mt_error(MT_ERR_RUNTIME, "upper bound and lower bound inconsistent with step sign");
    size = r->dtype == MT_BFLOAT16
               ? (double)((float)((float)xend - (float)xstart) / (float)xstep + 1.0f)
               : (xend - xstart) / xstep + 1;
    if (!(size <= 9.2e18)) return mt_error(MT_ERR_RUNTIME, "invalid size, possible overflow?");
    r->size = (int64_t)size;
    return 0;
}
