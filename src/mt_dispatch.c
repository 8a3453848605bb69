/* mt_dispatch.c: operator registry, keyset computation and kernel selection. */
#include "mt_dispatch.h"
#include "mt_ops_gen.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The generated schema table (build/gen/mt_ops_gen.c). */
extern const mt_schema mt_schemas[];
extern const int mt_num_schemas;

static mt_op *ops;
static int nops;
static mt_kernel fallbacks[MT_NUM_KEYS];

/* Pseudo-key: some tensor argument waits on deferred (pipeline) work. */
#define KS_PENDING (1u << 31)

static _Thread_local mt_tls tls = {.grad_enabled = true};

mt_tls *mt_tls_get(void) {
    return &tls;
}

const char *mt_devtype_key_name(int key); /* mt_device.c: an accelerator key's name */

const char *mt_key_name(int key) {
    switch (key) {
    case MT_KEY_CPU:
        return "CPU";
    case MT_KEY_META:
        return "Meta";
    case MT_KEY_PIPELINE:
        return "Pipeline";
    case MT_KEY_AUTOGRAD:
        return "Autograd";
    default: {
        const char *n = key > MT_KEY_CPU && key < MT_KEY_META ? mt_devtype_key_name(key) : NULL;
        return n ? n : "?";
    }
    }
}

/* ---- registry ------------------------------------------------------------------------------ */

int mt_disp_build(void) {
    ops = calloc((size_t)mt_num_schemas, sizeof *ops);
    if (!ops) return mt_error(MT_ERR_MEMORY, "out of memory building the operator registry");
    nops = mt_num_schemas;
    for (int i = 0; i < nops; i++) {
        mt_op *op = &ops[i];
        const mt_schema *s = &mt_schemas[i];
        op->schema = s;
        op->id = i;
        op->device_arg = -1;
        for (int a = 0; a < s->nargs; a++) {
            int t = s->args[a].type;
            if ((t == MT_A_TENSOR || t == MT_A_TENSORLIST || t == MT_A_INDEXTENSOR ||
                 t == MT_A_INDEXTENSORLIST) &&
                op->ntensor_args < MT_ARRAY_LEN(op->tensor_args))
                op->tensor_args[op->ntensor_args++] = (uint8_t)a;
            if (t == MT_A_DEVICE && strcmp(s->args[a].name, "device") == 0)
                op->device_arg = (int8_t)a;
        }
    }
    return 0;
}

int mt_ops_count(void) {
    return nops;
}
const mt_op *mt_op_get(int id) {
    return &ops[id];
}
mt_op *mt_op_mut(int id) {
    return &ops[id];
}

const mt_op *mt_op_lookup(const char *qname) {
    const char *dot = strchr(qname, '.');
    size_t nlen = dot ? (size_t)(dot - qname) : strlen(qname);
    const char *overload = dot ? dot + 1 : "";
    if (dot && !*overload) return NULL; /* "add." names nothing */
    for (int i = 0; i < nops; i++) {
        const mt_schema *s = ops[i].schema;
        if (strncmp(s->name, qname, nlen) == 0 && !s->name[nlen] &&
            strcmp(s->overload, overload) == 0)
            return &ops[i];
    }
    return NULL;
}

int mt_backend_register_kernels(int abi_version, int key, const mt_kernel_entry *entries,
                                size_t n) {
    if (abi_version != MT_BACKEND_ABI_VERSION)
        return mt_error(MT_ERR_RUNTIME,
                        "kernels built for backend ABI version %d cannot register with this "
                        "mindtorch (version %d): "
                        "rebuild the module against this mindtorch",
                        abi_version, MT_BACKEND_ABI_VERSION);
    if (key < MT_KEY_ACCEL_FIRST || key >= MT_KEY_META || !mt_devtype_key_name(key))
        return mt_error(MT_ERR_RUNTIME, "dispatch key %d belongs to no registered accelerator",
                        key);
    /* every entry is checked before any is attached: a refused module leaves no kernel behind */
    for (size_t i = 0; i < n; i++) {
        const mt_kernel_entry *e = &entries[i];
        const mt_op *op = e->op ? mt_op_lookup(e->op) : NULL;
        if (!op)
            return mt_error(MT_ERR_RUNTIME, "%s kernels: unknown operator '%s'", mt_key_name(key),
                            e->op ? e->op : "(null)");
        if (!e->impl == !e->kernel)
            return mt_error(MT_ERR_RUNTIME, "%s kernels: '%s' needs exactly one of impl and kernel",
                            mt_key_name(key), e->op);
        if (e->impl && !op->meta)
            return mt_error(
                MT_ERR_RUNTIME,
                "%s kernels: '%s' has no meta function, so it takes a full kernel, not an impl",
                mt_key_name(key), e->op);
    }
    for (size_t i = 0; i < n; i++) {
        mt_op *op = &ops[mt_op_lookup(entries[i].op)->id];
        if (entries[i].impl)
            op->impls[key] = entries[i].impl;
        else
            op->kernels[key] = entries[i].kernel;
    }
    return 0;
}

const mt_op *mt_op_find(const char *qname) {
    const char *dot = strchr(qname, '.');
    size_t nlen = dot ? (size_t)(dot - qname) : strlen(qname);
    for (int i = 0; i < nops; i++) {
        const mt_schema *s = ops[i].schema;
        if (strncmp(s->name, qname, nlen) != 0 || s->name[nlen]) continue;
        if (!dot || strcmp(s->overload, dot + 1) == 0) return &ops[i];
    }
    return NULL;
}

int mt_op_overloads(const char *name, const mt_op **out, int cap) {
    int n = 0;
    for (int i = 0; i < nops; i++)
        if (strcmp(ops[i].schema->name, name) == 0) {
            if (n < cap) out[n] = &ops[i];
            n++;
        }
    return n;
}

void mt_disp_kernel(int opid, mt_key key, mt_kernel k) {
    ops[opid].kernels[key] = k;
}
void mt_disp_impl(int opid, mt_key key, mt_impl_fn f) {
    ops[opid].impls[key] = f;
    ops[opid].any_layout_out &= ~((mt_keyset)1 << key);
}
void mt_disp_impl_any_layout_out(int opid, mt_key key, mt_impl_fn f) {
    ops[opid].impls[key] = f;
    ops[opid].any_layout_out |= (mt_keyset)1 << key;
}
void mt_disp_meta(int opid, mt_meta_fn f) {
    ops[opid].meta = f;
}
void mt_disp_impl_group(int group, mt_key key, mt_impl_fn f) {
    for (int i = 0; i < mt_num_schemas; i++)
        if (ops[i].schema->group == group) mt_disp_impl(i, key, f);
}
void mt_disp_meta_group(int group, mt_meta_fn f) {
    for (int i = 0; i < mt_num_schemas; i++)
        if (ops[i].schema->group == group) ops[i].meta = f;
}
void mt_disp_composite(int opid, mt_kernel k) {
    ops[opid].composite = k;
}
void mt_disp_fallback(mt_key key, mt_kernel k) {
    fallbacks[key] = k;
}

/* ---- keysets --------------------------------------------------------------------------------- */

/* the built-in devices without a look into the registry: this runs for every tensor argument */
static inline int device_key(int devtype) {
    if (MT_LIKELY(devtype == MT_DEV_CPU)) return MT_KEY_CPU;
    return devtype == MT_DEV_META ? MT_KEY_META : mt_key_for_device(devtype);
}

typedef struct {
    mt_keyset ks;
    bool have_dev, dev_is_cpu_scalar, requires_grad;
    mt_device dev;
} keyscan;

static int scan_tensor(const mt_op *op, keyscan *k, const mt_tensor *t) {
    int key = device_key(t->device.type);
    if (MT_UNLIKELY(key < 0)) return -1;
    k->ks |= 1u << key;
    if (mt_tensor_requires_grad(t)) k->requires_grad = true;
    if (MT_UNLIKELY(atomic_load_explicit(&t->storage->pending, memory_order_relaxed)))
        k->ks |= KS_PENDING;
    /* the one place a kernel call checks that the storage covers its tensors */
    if (MT_UNLIKELY(t->storage->flags & MT_STORAGE_SHRUNK) && mt_tensor_check_storage(t)) return -1;
    bool cpu_scalar = t->device.type == MT_DEV_CPU && t->ndim == 0;
    if (!k->have_dev) {
        k->have_dev = true;
        k->dev = t->device;
        k->dev_is_cpu_scalar = cpu_scalar;
    } else if (!mt_device_eq(k->dev, t->device)) {
        if (cpu_scalar) return 0; /* CPU scalars mix with any device, as in PyTorch */
        if (k->dev_is_cpu_scalar) {
            k->dev = t->device;
            k->dev_is_cpu_scalar = false;
        } else if (!(op->schema->flags & MT_S_MIXED_DEVICE)) {
            char a[32], b[32];
            return mt_error(MT_ERR_RUNTIME,
                            "Expected all tensors to be on the same device, but found at least "
                            "two devices, %s and %s!",
                            mt_device_str(k->dev, a, sizeof a),
                            mt_device_str(t->device, b, sizeof b));
        }
    }
    return 0;
}

int mt_disp_keyset(const mt_op *op, mt_value *args, mt_keyset *ks, mt_device *dev) {
    keyscan k = {0};
    for (int i = 0; i < op->ntensor_args; i++) {
        mt_value *v = &args[op->tensor_args[i]];
        if (v->tag == MT_V_TENSOR) {
            if (scan_tensor(op, &k, v->t)) return -1;
        } else if (v->tag == MT_V_TENSORLIST) {
            for (int j = 0; j < v->n; j++) /* NULL entries: a Tensor?[] list's Nones */
                if (v->tl[j] && scan_tensor(op, &k, v->tl[j])) return -1;
        }
    }
    if (op->device_arg >= 0 && args[op->device_arg].tag == MT_V_DEVICE) {
        mt_device d = mt_device_resolve(args[op->device_arg].dev);
        int key = device_key(d.type); /* loads the device's module on first use */
        if (key < 0) return -1;
        k.ks |= 1u << key;
        k.dev = d;
        k.have_dev = true;
    }
    if (!k.have_dev) {
        k.dev = MT_CPU;
        k.ks |= 1u << MT_KEY_CPU;
    }
    mt_tls *s = &tls;
    if (k.requires_grad && s->grad_enabled) k.ks |= 1u << MT_KEY_AUTOGRAD;
    if (s->pipeline) k.ks |= 1u << MT_KEY_PIPELINE;
    *ks = k.ks & ~s->excluded;
    *dev = k.dev;
    return 0;
}

/* ---- running kernels ------------------------------------------------------------------------- */

static bool key_has_kernel(const mt_op *op, int k) {
    return op->kernels[k] || (op->meta && (op->impls[k] || k == MT_KEY_META));
}

bool mt_disp_has_kernel(int opid, int devtype) {
    int key = device_key(devtype);
    if (key < 0) {
        mt_error_clear();
        return false;
    }
    return key_has_kernel(&ops[opid], key);
}

static int no_kernel(const mt_op *op, int key) {
    char avail[256] = "";
    size_t at = 0;
    for (int k = 0; k < MT_NUM_KEYS; k++) {
        bool has = key_has_kernel(op, k);
        if (has)
            at += (size_t)snprintf(avail + at, sizeof avail - at, "%s%s", at ? ", " : "",
                                   mt_key_name(k));
    }
    const mt_schema *s = op->schema;
    char qn[128];
    snprintf(qn, sizeof qn, "aten::%s%s%s", s->name, s->overload[0] ? "." : "", s->overload);
    return mt_error(MT_ERR_NOT_IMPLEMENTED,
                    "Could not run '%s' with arguments from the '%s' backend. This could be "
                    "because the operator doesn't exist for this backend, or was omitted during "
                    "the selective/custom build process (if using custom build). '%s' is only "
                    "available for these backends: [%s].",
                    qn, mt_key_name(key), qn, avail);
}

int mt_disp_alloc_results(const mt_op *op, mt_value *args, mt_outspec *specs, mt_device dev,
                          mt_value *rets) {
    int n = op->schema->nrets;
    for (int i = 0; i < n; i++) {
        mt_outspec *o = &specs[i];
        mt_tensor *t;
        if (o->inplace_arg >= 0) {
            t = args[o->inplace_arg].t;
            mt_tensor_incref(t);
        } else {
            t = mt_tensor_empty_strided(o->ndim, o->sizes, o->has_strides ? o->strides : NULL,
                                        (mt_dtype)o->dtype, dev);
        }
        if (!t) {
            for (int j = 0; j < i; j++) mt_value_release(&rets[j]);
            return -1;
        }
        rets[i] = mt_vtensor(t);
    }
    return 0;
}

static int run_structured(mt_call *c, mt_value *args, mt_value *rets) {
    const mt_op *op = c->op;
    mt_outspec specs[4];
    for (int i = 0; i < 4; i++) {
        specs[i].inplace_arg = -1;
        specs[i].has_strides = 0;
    }
    if (op->meta(c, args, specs)) return -1;
    bool meta_only = c->key == MT_KEY_META;
    if (mt_disp_alloc_results(op, args, specs, meta_only ? MT_META : c->device, rets)) return -1;
    if (meta_only) return 0;
    if (op->impls[c->key](c, args, rets)) {
        for (int i = 0; i < op->schema->nrets; i++) mt_value_release(&rets[i]);
        return -1;
    }
    return 0;
}

static int sync_pending_args(const mt_op *op, mt_value *args) {
    for (int i = 0; i < op->ntensor_args; i++) {
        mt_value *v = &args[op->tensor_args[i]];
        if (v->tag == MT_V_TENSOR && mt_storage_sync(v->t->storage)) return -1;
        if (v->tag == MT_V_TENSORLIST)
            for (int j = 0; j < v->n; j++)
                if (v->tl[j] && mt_storage_sync(v->tl[j]->storage)) return -1;
    }
    return 0;
}

static int dispatch(const mt_op *op, mt_keyset ks, mt_device dev, mt_value *args, mt_value *rets);

/* TensorIterator's rule (allow_cpu_scalars), for every accelerator alike: an element-wise op whose
 * tensors are on the device takes one CPU 0-d tensor among its inputs, as it would take a number;
 * it moves to the device before the kernels run. A CPU 0-d tensor the op writes, or a second
 * one, is refused in PyTorch's words. */
static int dispatch_cpu_scalars(const mt_op *op, mt_keyset ks, mt_device dev, mt_value *args,
                                mt_value *rets) {
    const mt_schema *s = op->schema;
    mt_value moved[256];
    mt_tensor *made = NULL;
    memcpy(moved, args, sizeof(mt_value) * s->nargs);
    for (int i = 0; i < op->ntensor_args; i++) {
        int a = op->tensor_args[i];
        mt_tensor *t = args[a].tag == MT_V_TENSOR ? args[a].t : NULL;
        if (!t || t->device.type != MT_DEV_CPU) continue;
        if (s->args[a].alias == MT_ALIAS_WRITE) {
            char d[32];
            if (made) mt_tensor_decref(made);
            return mt_error(MT_ERR_RUNTIME,
                            "Expected all tensors to be on the same device, but found at least "
                            "two devices, %s and cpu!",
                            mt_device_str(dev, d, sizeof d));
        }
        if (made) {
            mt_tensor_decref(made);
            return mt_error(MT_ERR_RUNTIME,
                            "Trying to pass too many CPU scalars to non-CPU kernel!");
        }
        if (!(made = mto_to_device(t, dev, -1, false, false, NULL))) return -1;
        moved[a] = mt_vtensor(made);
    }
    int rc = dispatch(op, ks & ~(1u << MT_KEY_CPU), dev, moved, rets);
    if (made) mt_tensor_decref(made);
    return rc;
}

static bool is_accelerator(int key) {
    return key >= MT_KEY_ACCEL_FIRST && key < MT_KEY_META;
}

static int dispatch(const mt_op *op, mt_keyset ks, mt_device dev, mt_value *args, mt_value *rets) {
    if (MT_UNLIKELY(ks & KS_PENDING) && !(ks & (1u << MT_KEY_PIPELINE))) {
        if (sync_pending_args(op, args)) return -1;
    }
    ks &= ~KS_PENDING;
    while (ks) {
        int key = 31 - __builtin_clz(ks);
        if (MT_UNLIKELY(is_accelerator(key) && (ks & (1u << MT_KEY_CPU))) &&
            op->schema->group == MT_GROUP_ELEMENTWISE)
            return dispatch_cpu_scalars(op, ks, dev, args, rets);
        mt_call c = {op, key, ks, dev};
        if (op->kernels[key]) return op->kernels[key](&c, args, rets);
        if (key == MT_KEY_AUTOGRAD || key == MT_KEY_PIPELINE) {
            if (fallbacks[key]) return fallbacks[key](&c, args, rets);
            ks &= ~(1u << key); /* fall through to the keys below */
            continue;
        }
        if (op->meta && (key == MT_KEY_META || op->impls[key]))
            return run_structured(&c, args, rets);
        return no_kernel(op, key);
    }
    return no_kernel(op, MT_KEY_CPU);
}

static void bump_written(const mt_op *op, mt_value *args) {
    const mt_schema *s = op->schema;
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].alias == MT_ALIAS_WRITE && args[i].tag == MT_V_TENSOR)
            mt_tensor_bump_version(args[i].t);
}

int mt_autograd_composite(mt_call *c, mt_value *args, mt_value *rets);

int mt_call_op(int opid, mt_value *args, mt_value *rets) {
    const mt_op *op = &ops[opid];
    if (op->composite) {
        mt_call c = {op, -1, 0, MT_CPU};
        /* a composition with formulas of its own is one op to autograd (its PyTorch node) */
        if (MT_UNLIKELY(op->autograd_info) && tls.grad_enabled &&
            !(tls.excluded & (1u << MT_KEY_AUTOGRAD))) {
            mt_keyset ks;
            mt_device dev;
            if (mt_disp_keyset(op, args, &ks, &dev)) return -1;
            if (ks & (1u << MT_KEY_AUTOGRAD)) {
                c.ks = ks;
                c.device = dev;
                return mt_autograd_composite(&c, args, rets);
            }
        }
        return op->composite(&c, args, rets);
    }
    if (MT_UNLIKELY((op->schema->flags & MT_S_INPLACE) && args[0].tag == MT_V_TENSOR &&
                    (args[0].t->flags & MT_T_INFERENCE) && !tls.inference_mode))
        return mt_error(MT_ERR_RUNTIME,
                        "Inplace update to inference tensor outside InferenceMode is not "
                        "allowed.You can make a "
                        "clone to get a normal tensor before doing inplace update.See "
                        "https://github.com/pytorch/rfcs/pull/17 for more details.");
    mt_keyset ks;
    mt_device dev;
    if (mt_disp_keyset(op, args, &ks, &dev)) return -1;
    if (dispatch(op, ks, dev, args, rets)) return -1;
    /* the autograd kernel bumps versions itself, before the graph saves them */
    if ((op->schema->flags & MT_S_INPLACE) && !(ks & (1u << MT_KEY_AUTOGRAD)))
        bump_written(op, args);
    return 0;
}

int mt_redispatch(mt_call *c, mt_value *args, mt_value *rets) {
    mt_keyset ks = c->ks & ((1u << c->key) - 1);
    return dispatch(c->op, ks, c->device, args, rets);
}
