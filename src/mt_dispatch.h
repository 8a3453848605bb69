/* mt_dispatch.h: the operator registry and the dispatcher.
 *
 * Every call of an operator goes through mt_call(). The dispatcher computes a keyset from
 * the tensor arguments (their devices, whether they require grad) and this thread's modes
 * (grad mode, pipeline mode), and runs the kernel registered for the highest key:
 *
 *     Autograd > Pipeline > Meta > (an accelerator's key) > CPU
 *
 * Each accelerator's backend gets a key of its own when it registers (mt_device.h); a device
 * module attaches its kernels by op name (mt_backend_register_kernels).
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
    MT_KEY_ACCEL_FIRST, /* MT_MAX_ACCEL_KEYS keys, one per registered accelerator type */
    MT_KEY_META = MT_KEY_ACCEL_FIRST + 4,
    MT_KEY_PIPELINE,
    MT_KEY_AUTOGRAD,
    MT_NUM_KEYS
} mt_key;

#define MT_MAX_ACCEL_KEYS (MT_KEY_META - MT_KEY_ACCEL_FIRST)

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
    void *autograd_info;      /* the op's derivative entry (the autograd layer's) */
    mt_keyset any_layout_out; /* keys whose impl writes an out of any dense layout (out=) */
    void *pipeline_info;
    int8_t device_arg; /* index of the `device` argument of a factory op, or -1 */
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
/* The same, for an impl that writes its results through their strides whatever they are (the
 * element-wise ones): out= then writes straight into a dense out of another layout (a
 * transposed one), where others compute a result of their own layout and copy it over. */
MT_API void mt_disp_impl_any_layout_out(int opid, mt_key key, mt_impl_fn f);
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
/* "CPU", "Meta", an accelerator's (its type in capitals: "CUDA"), "Autograd". */
MT_API const char *mt_key_name(int key);
/* Whether op `opid` can run on devices of type `devtype` (a derivative formula that has a fused
 * op for some devices composes it elsewhere). */
MT_API bool mt_disp_has_kernel(int opid, int devtype);
/* The dispatch key of a device type, loading its module on first use; -1 (error set, as
 * mt_backend_get) when the type has no backend. */
MT_API int mt_key_for_device(int devtype);

/* ---- device modules: kernels by op name --------------------------------------------------- */
/* One kernel of a device module: the op's qualified name as its schema gives it ("add.Tensor",
 * "zeros", "sum.dim_IntList") and either a structured implementation (the dispatcher allocates
 * the results from the op's meta function) or a full kernel. */
typedef struct mt_kernel_entry {
    const char *op;
    mt_impl_fn impl;
    mt_kernel kernel;
} mt_kernel_entry;

/* Attach a module's kernels to its dispatch key (mt_key_for_device of its type). Refuses, and
 * registers nothing, when abi_version is not MT_BACKEND_ABI_VERSION, the key is not an
 * accelerator's, an op name is unknown, or an entry is malformed. */
MT_API int mt_backend_register_kernels(int abi_version, int key, const mt_kernel_entry *entries,
                                       size_t n);
/* An op by its exact qualified name ("add.Tensor"; "zeros" for the overload without a name),
 * for modules calling ops without the generated ids; NULL when unknown. */
MT_API const mt_op *mt_op_lookup(const char *qualified_name);

/* Structured path helpers: allocate results from specs (on `dev`), used by the pipeline. */
MT_API int mt_disp_alloc_results(const mt_op *op, mt_value *args, mt_outspec *specs, mt_device dev,
                                 mt_value *rets);

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
