/* mt_pipeline.c: the pipeline recorder, installed as the Pipeline key's fallback kernel. */
#include "mt_pipeline.h"
#include "mt_dispatch.h"
#include "mt_generator.h"
#include "mt_storage.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 16

typedef struct record {
    const mt_op *op;
    mt_call call; /* at the device key the op runs at */
    mt_value args[MAX_ARGS];
    mt_value rets[4];
    int nargs, nrets;
} record;

typedef struct mt_pipeline {
    pthread_mutex_t lock; /* recursive: a kernel run by flush may read pending data */
    record *recs;
    size_t n, cap;
    mt_storage **marked; /* storages marked pending (owned refs) */
    size_t nmarked, capmarked;
    int depth;
    bool flushing;
} mt_pipeline;

/* The mark a storage keeps when the op that writes it was never run (an earlier op failed). */
static char failed_mark;

/* ---- owned copies of a call's arguments --------------------------------------------------- */

/* A tensor as it is now: an alias with its own metadata, since an eager op (resize_) may
 * change the tensor's sizes before the recorded op runs. */
static mt_tensor *snapshot(mt_tensor *t) {
    return t ? mt_tensor_view_of(t, t->ndim, t->sizes, t->strides, t->offset) : NULL;
}

static int copy_value(mt_value *dst, const mt_value *src) {
    if (mt_value_copy_owned(dst, src, "recording an op")) return -1;
    switch (src->tag) {
    case MT_V_TENSOR:
        return (dst->t = snapshot(src->t)) ? 0 : -1;
    case MT_V_TENSORLIST: {
        mt_tensor **v = mt_calloc((size_t)(src->n ? src->n : 1), sizeof *v);
        if (!v) return -1;
        for (int i = 0; i < src->n; i++)
            if (src->tl[i] && !(v[i] = snapshot(src->tl[i]))) {
                for (int j = 0; j < i; j++) mt_tensor_decref(v[j]);
                free(v);
                return -1;
            }
        dst->tl = v;
        return 0;
    }
    case MT_V_GENERATOR:
        mt_generator_incref(src->gen);
        return 0;
    default:
        return 0;
    }
}

static void release_value(mt_value *v) {
    switch (v->tag) {
    case MT_V_TENSOR:
        mt_tensor_decref(v->t);
        break;
    case MT_V_TENSORLIST:
        for (int i = 0; i < v->n; i++) mt_tensor_decref(v->tl[i]);
        free(v->tl);
        break;
    case MT_V_INTLIST:
        free((void *)v->il);
        break;
    case MT_V_DOUBLELIST:
        free((void *)v->dl);
        break;
    case MT_V_STR:
        free((void *)v->s);
        break;
    case MT_V_GENERATOR:
        mt_generator_decref(v->gen);
        break;
    default:
        break;
    }
    v->tag = MT_V_NONE;
}

static void release_record(record *r) {
    for (int i = 0; i < r->nargs; i++) release_value(&r->args[i]);
    for (int i = 0; i < r->nrets; i++) mt_value_release(&r->rets[i]);
}

/* ---- the recorder -------------------------------------------------------------------------- */

static mt_pipeline *current(void) {
    return mt_tls_get()->pipeline;
}

static int mark(mt_pipeline *p, mt_storage *s) {
    if (atomic_load(&s->pending) == p) return 0;
    if (p->nmarked == p->capmarked) {
        size_t cap = p->capmarked ? 2 * p->capmarked : 16;
        mt_storage **m = realloc(p->marked, cap * sizeof *m);
        if (!m) return mt_error(MT_ERR_MEMORY, "out of memory recording an op");
        p->marked = m;
        p->capmarked = cap;
    }
    mt_storage_incref(s);
    p->marked[p->nmarked++] = s;
    atomic_store(&s->pending, p);
    return 0;
}

/* Run the records in order; on a failure, the later ones' results are marked failed. */
static int run_records(mt_pipeline *p) {
    int status = 0;
    for (size_t i = 0; i < p->n; i++) {
        record *r = &p->recs[i];
        if (status == 0 && r->call.key != MT_KEY_META)
            status = r->op->impls[r->call.key](&r->call, r->args, r->rets);
        if (status != 0)
            for (int k = 0; k < r->nrets; k++)
                if (r->rets[k].tag == MT_V_TENSOR)
                    atomic_store(&r->rets[k].t->storage->pending, (void *)&failed_mark);
        release_record(r);
    }
    p->n = 0;
    return status;
}

static int flush(mt_pipeline *p) {
    pthread_mutex_lock(&p->lock);
    if (p->flushing) { /* a kernel of this flush reads its inputs: they are already computed */
        pthread_mutex_unlock(&p->lock);
        return 0;
    }
    p->flushing = true;
    /* ops that kernels call while the pipeline runs run at once */
    mt_tls *tls = mt_tls_get();
    void *saved = tls->pipeline;
    tls->pipeline = NULL;
    int status = run_records(p);
    for (size_t i = 0; i < p->nmarked; i++) {
        void *expected = p;
        atomic_compare_exchange_strong(&p->marked[i]->pending, &expected, NULL);
        mt_storage_decref(p->marked[i]);
    }
    p->nmarked = 0;
    tls->pipeline = saved;
    p->flushing = false;
    pthread_mutex_unlock(&p->lock);
    return status;
}

/* mt_storage_sync's hook: a read of a pending storage runs the pipeline that writes it */
static int sync_hook(mt_storage *s) {
    void *mark_of = atomic_load(&s->pending);
    if (mark_of == &failed_mark)
        return mt_error(MT_ERR_RUNTIME,
                        "this tensor was never computed: an op before it failed in pipeline mode");
    return mark_of ? flush(mark_of) : 0;
}

static bool view_like(const mt_op *op) {
    /* views compute metadata only; resize_ changes metadata and syncs what it moves */
    return (op->schema->flags & MT_S_VIEW) || strcmp(op->schema->name, "resize_") == 0;
}

static int device_key(mt_keyset ks) {
    for (int key = MT_KEY_META; key >= MT_KEY_CPU; key--)
        if (ks & (1u << key)) return key;
    return MT_KEY_CPU;
}

/* The Pipeline key's kernel: record the op, or run it now when it is a view. */
static int record_op(mt_pipeline *p, mt_call *c, mt_value *args, mt_value *rets);

static int pipeline_kernel(mt_call *c, mt_value *args, mt_value *rets) {
    mt_pipeline *p = current();
    if (!p || p->flushing || view_like(c->op)) return mt_redispatch(c, args, rets);
    pthread_mutex_lock(&p->lock); /* another thread may be running this pipeline */
    int st = record_op(p, c, args, rets);
    pthread_mutex_unlock(&p->lock);
    return st;
}

static int record_op(mt_pipeline *p, mt_call *c, mt_value *args, mt_value *rets) {
    const mt_op *op = c->op;
    int key = device_key(c->ks);
    if (!op->meta) {
        const mt_schema *s = op->schema;
        return mt_error(MT_ERR_RUNTIME, "pipeline requires meta kernel for op %s%s%s", s->name,
                        s->overload[0] ? "." : "", s->overload);
    }
    if (key != MT_KEY_META && !op->impls[key])
        return mt_redispatch(c, args, rets); /* says which kernel is missing */
    if (op->schema->nargs > MAX_ARGS)
        return mt_error(MT_ERR_RUNTIME, "pipeline: too many arguments for op %s", op->schema->name);
    /* the results, from the meta function, allocated now and computed later */
    mt_call at = {op, key, c->ks & ((1u << key) | ((1u << key) - 1)), c->device};
    mt_outspec specs[4];
    for (int i = 0; i < 4; i++) {
        specs[i].inplace_arg = -1;
        specs[i].has_strides = 0;
    }
    if (op->meta(&at, args, specs)) return -1;
    if (mt_disp_alloc_results(op, args, specs, key == MT_KEY_META ? MT_META : c->device, rets))
        return -1;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        record *rs = realloc(p->recs, cap * sizeof *rs);
        if (!rs) {
            for (int i = 0; i < op->schema->nrets; i++) mt_value_release(&rets[i]);
            return mt_error(MT_ERR_MEMORY, "out of memory recording an op");
        }
        p->recs = rs;
        p->cap = cap;
    }
    record *r = &p->recs[p->n];
    memset(r, 0, sizeof *r);
    r->op = op;
    r->call = at;
    int st = 0;
    for (int i = 0; i < op->schema->nargs && st == 0; i++, r->nargs++)
        st = copy_value(&r->args[i], &args[i]);
    for (int i = 0; i < op->schema->nrets && st == 0; i++, r->nrets++)
        st = copy_value(&r->rets[i], &rets[i]);
    for (int i = 0; i < op->schema->nrets && st == 0; i++)
        if (rets[i].tag == MT_V_TENSOR && key != MT_KEY_META) st = mark(p, rets[i].t->storage);
    if (st) {
        release_record(r);
        for (int i = 0; i < op->schema->nrets; i++) mt_value_release(&rets[i]);
        return -1;
    }
    p->n++;
    return 0;
}

/* ---- entering and leaving ------------------------------------------------------------------ */

int mt_pipeline_enter(void) {
    mt_tls *tls = mt_tls_get();
    mt_pipeline *p = tls->pipeline;
    if (p) {
        p->depth++;
        return 0;
    }
    p = calloc(1, sizeof *p);
    if (!p) return mt_error(MT_ERR_MEMORY, "out of memory entering pipeline mode");
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&p->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    p->depth = 1;
    tls->pipeline = p;
    return 0;
}

int mt_pipeline_exit(void) {
    mt_tls *tls = mt_tls_get();
    mt_pipeline *p = tls->pipeline;
    if (!p) return mt_error(MT_ERR_RUNTIME, "not in pipeline mode");
    if (--p->depth > 0) return 0;
    int status = flush(p);
    tls->pipeline = NULL;
    pthread_mutex_destroy(&p->lock);
    free(p->recs);
    free(p->marked);
    free(p);
    return status;
}

int mt_pipeline_flush(void) {
    mt_pipeline *p = current();
    return p ? flush(p) : 0;
}

bool mt_pipeline_active(void) {
    return current() != NULL;
}

int64_t mt_pipeline_pending_ops(void) {
    mt_pipeline *p = current();
    return p ? (int64_t)p->n : 0;
}

void mt_pipeline_register(void) {
    mt_disp_fallback(MT_KEY_PIPELINE, pipeline_kernel);
    mt_storage_set_sync_hook(sync_hook);
}
