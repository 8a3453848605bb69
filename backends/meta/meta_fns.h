/* meta_fns.h: meta functions: the sizes, strides and dtype of an op's results, computed from
 * its arguments without touching data. They serve the meta device, the pipeline, and every
 * device's structured kernels (which allocate what the meta function describes). */
#ifndef MT_META_FNS_H
#define MT_META_FNS_H

#include "mt_dispatch.h"

int mt_meta_sized_factory(mt_call *c, mt_value *args, mt_outspec *o);
int mt_meta_empty(mt_call *c, mt_value *args, mt_outspec *o);
int mt_meta_full(mt_call *c, mt_value *args, mt_outspec *o);
int mt_meta_empty_strided(mt_call *c, mt_value *args, mt_outspec *o);
int mt_meta_scalar_tensor(mt_call *c, mt_value *args, mt_outspec *o);
int mt_meta_arange(mt_call *c, mt_value *args, mt_outspec *o);
int mt_meta_linspace(mt_call *c, mt_value *args, mt_outspec *o);
int mt_meta_logspace(mt_call *c, mt_value *args, mt_outspec *o);
int mt_meta_range(mt_call *c, mt_value *args, mt_outspec *o);
int mt_meta_eye(mt_call *c, mt_value *args, mt_outspec *o);

int mt_meta_copy_(mt_call *c, mt_value *args, mt_outspec *o);
int mt_meta_fill_scalar(mt_call *c, mt_value *args, mt_outspec *o);
int mt_meta_fill_tensor(mt_call *c, mt_value *args, mt_outspec *o);
int mt_meta_clone(mt_call *c, mt_value *args, mt_outspec *o);

void mt_meta_register(void);

#endif
