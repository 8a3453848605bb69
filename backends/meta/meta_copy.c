/* meta_copy.c: meta functions of copy_, fill_ and clone. */
#include "meta_fns.h"
#include "shape.h"

#include <string.h>

int mt_meta_copy_(mt_call *c, mt_value *args, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = args[0].t, *src = args[1].t;
    if (mt_check_broadcastable_to(src, self->ndim, self->sizes)) return -1;
    if (mt_check_writable(self) || mt_check_no_overlap(self, src)) return -1;
    o->inplace_arg = 0;
    return 0;
}

int mt_meta_fill_scalar(mt_call *c, mt_value *args, mt_outspec *o) {
    MT_UNUSED(c);
    if (mt_check_writable(args[0].t)) return -1;
    o->inplace_arg = 0;
    return 0;
}

int mt_meta_fill_tensor(mt_call *c, mt_value *args, mt_outspec *o) {
    MT_UNUSED(c);
    if (args[1].t->ndim != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "fill_ only supports 0-dimension value tensor but got tensor with %d "
                        "dimensions.",
                        args[1].t->ndim);
    if (mt_check_writable(args[0].t)) return -1;
    o->inplace_arg = 0;
    return 0;
}

int mt_meta_clone(mt_call *c, mt_value *args, mt_outspec *o) {
    MT_UNUSED(c);
    mt_tensor *self = args[0].t;
    o->ndim = self->ndim;
    o->dtype = self->dtype;
    memcpy(o->sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    if (mt_strides_like(self, args[1].tag == MT_V_STR ? args[1].s : NULL, o->strides)) return -1;
    o->has_strides = 1;
    return 0;
}
