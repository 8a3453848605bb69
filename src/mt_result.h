/* mt_result.h: what a call does with its results as the caller asked, beyond computing them:
 * writing them into given tensors (out=) and pinning them (pin_memory=). */
#ifndef MT_RESULT_H
#define MT_RESULT_H

#include "mt_dispatch.h"

/* Call op writing its results into outs[0 .. nrets) with PyTorch 1.13's out= rules: each result's
 * dtype must cast to its out's, an out of another shape is resized (silently, where PyTorch
 * warns), out= refuses inputs or outs that require grad while grad mode is on (differentiable
 * ops), and a factory op takes its dtype and device from out unless given. When an out already
 * has the result's geometry and shares no memory with the inputs, a structured op computes
 * straight into it; otherwise the result is computed, then copied. 0, or -1 with the error set. */
MT_API int mt_call_op_out(int opid, mt_value *args, mt_tensor *const *outs);

/* t in pinned (page-locked) host memory: a new reference, t itself when it already is. */
MT_API mt_tensor *mt_tensor_pin_memory(mt_tensor *t);

#endif
