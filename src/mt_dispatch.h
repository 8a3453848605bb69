/* mt_dispatch.h: the operator registry and the dispatcher.
 *
 * Every call of an operator goes through mt_call(). The dispatcher computes a keyset from
 * the tensor arguments (their devices, whether they require grad) and this thread's modes
 * (grad mode, pipeline mode), and runs the kernel registered for the highest key:
 *
 *     Autograd > Pipeline > Meta > NPU > CPU
 *
 * (Autograd above Pipeline: the graph is recorded when an op is called, only its
 * computation is deferred; doc/design.md, "Pipeline mode and autograd".)
 * A kernel may hand the call on to the next key below its own with mt_redispatch().
 * Ops come in three shapes of registration:
 *   - a full kernel per key (mt_disp_kernel): it allocates its own results;
 *   - "structured" (mt_disp_meta + mt_disp_impl): one meta function computes the results'
 *     sizes, strides and dtype from the arguments without touching data; the dispatcher
 *     allocates them on the device and the device's impl only computes. The meta function
 *     alone gives the op on the meta device and lets the pipeline defer it;
 *   - composite (mt_disp_composite): written with other ops, it runs above every key, so
 *     autograd, meta and the pipeline see its constituent ops.
 */
#ifndef MT_DISPATCH_H
#define MT_DISPATCH_H

#include "mt_schema.h"

typedef enum mt_key {
    MT_KEY_CPU,
    MT_KEY_NPU,
    MT_KEY_META,
    MT_KEY_PIPELINE,
    MT_KEY_AUTOGRAD,
    MT_NUM_KEYS
} mt_key;

typedef uint32_t mt_keyset;

typedef struct mt_op mt_op;

/* The state of one call as it travels down the keys. */
typedef struct mt_call {
    const mt_op *op;
    int key;          /* the key whose kernel is running */
    mt_keyset ks;     /* keys this call may still visit */
    mt_device device; /* the device results go to */
} mt_call;

typedef int (*mt_kernel)(mt_call *c, mt_value *args, mt_value *rets);

/* What a meta function says about one result. */
typedef struct mt_outspec {
    int8_t ndim;
    uint8_t dtype;
    int8_t inplace_arg; /* >= 0: the result is this (tensor) argument, written in place */
    uint8_t has_strides;
    int64_t sizes[MT_MAX_DIM];
    int64_t strides[MT_MAX_DIM];
} mt_outspec;

typedef int (*mt_meta_fn)(mt_call *c, mt_value *args, mt_outspec *outs);
/* A structured op's device implementation: rets hold the allocated results. */
typedef int (*mt_impl_fn)(mt_call *c, mt_value *args, mt_value *rets);

struct mt_op {
    const mt_schema *schema;
    int id;
    mt_kernel kernels[MT_NUM_KEYS];
    mt_impl_fn impls[MT_NUM_KEYS];
    mt_meta_fn meta;
    mt_kernel composite;
    void *autograd_info; /* the op's derivative entry (the autograd layer's) */
    void *pipeline_info;
    int8_t device_arg;   /* index of the `device` argument of a factory op, or -1 */
    uint8_t ntensor_args;
    uint8_t tensor_args[8]; /* indices of Tensor / Tensor[] arguments */
};

/* ---- the registry ---------------------------------------------------------------------- */
MT_API int mt_ops_count(void);
MT_API const mt_op *mt_op_get(int id);
MT_API mt_op *mt_op_mut(int id);
/* "add.Tensor" or "add" (the first overload); NULL when unknown. */
MT_API const mt_op *mt_op_find(const char *qualified_name);
/* All overloads of a name, in declaration order; returns their count. */
MT_API int mt_op_overloads(const char *name, const mt_op **out, int cap);

MT_API void mt_disp_kernel(int opid, mt_key key, mt_kernel k);
MT_API void mt_disp_impl(int opid, mt_key key, mt_impl_fn f);
MT_API void mt_disp_meta(int opid, mt_meta_fn f);
MT_API void mt_disp_composite(int opid, mt_kernel k);
/* The same impl (meta function) for every op of a group (mt_op_group, from the declarations). */
MT_API void mt_disp_impl_group(int group, mt_key key, mt_impl_fn f);
MT_API void mt_disp_meta_group(int group, mt_meta_fn f);
/* A kernel for every op at `key` that has none of its own (autograd, pipeline). */
MT_API void mt_disp_fallback(mt_key key, mt_kernel k);

/* ---- calling ------------------------------------------------------------------------------ */
MT_API int mt_call_op(int opid, mt_value *args, mt_value *rets);
MT_API int mt_redispatch(mt_call *c, mt_value *args, mt_value *rets);
/* The keyset and result device of a call, with the same-device check; -1 on error. */
MT_API int mt_disp_keyset(const mt_op *op, mt_value *args, mt_keyset *ks, mt_device *dev);
MT_API const char *mt_key_name(int key);

/* Structured path helpers: allocate results from specs (on `dev`), used by the pipeline. */
MT_API int mt_disp_alloc_results(const mt_op *op, mt_value *args, mt_outspec *specs,
                                 mt_device dev, mt_value *rets);

/* ---- thread-local modes ------------------------------------------------------------------- */
typedef struct mt_tls {
    bool grad_enabled;
    bool inference_mode;
    void *pipeline;     /* the active pipeline recorder, or NULL */
    mt_keyset excluded; /* keys skipped by every call on this thread */
} mt_tls;

MT_API mt_tls *mt_tls_get(void);

/* Builds the registry from the generated schema table (called once by mt_init). */
MT_API int mt_disp_build(void);

/* Module start-up: builds the registry and registers the built-in kernels (idempotent). */
MT_API int mt_init(void);

#endif
