/* cuda_ops_random.c: uniform_, normal_, bernoulli_, exponential_, cauchy_, log_normal_,
 * geometric_, random_, poisson, binomial and multinomial on CUDA (rand, randn, randint, dropout and
 * the other samplers compose them). The draws come from the device type's generator (or the one
 * given): its seed keys Philox4x32-10 and its offset counts the draws taken, advanced under its
 * lock before the launch, so each launch draws fresh numbers and a seed replays them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_launch.h"
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_generator.h"
#include "mt_tensor.h"
#include "random_ops.h"

/* the generator's seed, and the offset of n new draws (advanced under its lock) */
static int take_draws(mt_value gen, mt_device dev, uint64_t n, uint64_t *seed, uint64_t *offset) {
    mt_generator *g = mt_random_generator(gen, dev);
    if (!g) return -1;
    pthread_mutex_lock(&g->lock);
    *seed = g->seed;
    *offset = g->offset;
    g->offset += n;
    pthread_mutex_unlock(&g->lock);
    return 0;
}

/* t broadcast to self's sizes, as a new contiguous float64 tensor (the copy kernel's broadcast) */
static mt_tensor *as_float64(mt_tensor *t, const mt_tensor *self) {
    mt_tensor *d = mt_tensor_empty(self->ndim, self->sizes, MT_FLOAT64, self->device);
    mt_tensor *in[1] = {t};
    if (d && cuda_ew(d, CK_COPY, 1, in, NULL, NULL, MT_FLOAT64)) {
        mt_tensor_decref(d);
        return NULL;
    }
    return d;
}

/* self <- the draws of k (its op and parameters set), written through a contiguous copy when self
 * is a view; p and count (bernoulli's probabilities, poisson's rates, binomial's counts and
 * probabilities) are read broadcast to self. Poisson's rates are checked by the kernel. */
static int draw(mt_tensor *self, ck_random_args k, mt_tensor *p, mt_tensor *count, mt_value gen) {
    if (self->numel == 0) return 0;
    k.n = self->numel;
    if (take_draws(gen, self->device, (uint64_t)k.n, &k.seed, &k.offset)) return -1;
    mt_tensor *out = cuda_dense(self), *pd = NULL, *cd = NULL, *status = NULL;
    int rc = out ? 0 : -1;
    if (!rc && p) rc = (pd = as_float64(p, self)) ? 0 : -1;
    if (!rc && count) rc = (cd = as_float64(count, self)) ? 0 : -1;
    if (!rc && k.op == CK_POISSON) {
        int64_t one = 1;
        status = mt_tensor_empty(1, &one, MT_INT64, self->device);
        rc = status ? cuda_zero(status) : -1;
        if (!rc) k.status = (uint64_t)(uintptr_t)mt_tensor_raw(status);
    }
    if (!rc) {
        k.out = (ck_operand){.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(out), .dtype = out->dtype};
        if (pd)
            k.p = (ck_operand){.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(pd), .dtype = MT_FLOAT64};
        if (cd)
            k.count =
                (ck_operand){.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(cd), .dtype = MT_FLOAT64};
        bool narrow =
            out->dtype == MT_FLOAT32 || out->dtype == MT_FLOAT16 || out->dtype == MT_BFLOAT16;
        rc = cuda_launch(cuda_device_of(out), narrow ? CUDA_FN_RANDOM_F32 : CUDA_FN_RANDOM_F64, k.n,
                         &k);
    }
    int64_t bad = 0;
    if (!rc && status)
        rc = cuda_copy_bytes(&bad, MT_CPU, mt_tensor_raw(status), status->device, sizeof bad);
    if (!rc && bad)
        rc = mt_error(MT_ERR_RUNTIME, "invalid Poisson rate, expected rate to be non-negative");
    if (!rc && out != self) {
        mt_tensor *in[1] = {out};
        rc = cuda_ew(self, CK_COPY, 1, in, NULL, NULL, (mt_dtype)out->dtype);
    }
    if (out) mt_tensor_decref(out);
    if (pd) mt_tensor_decref(pd);
    if (cd) mt_tensor_decref(cd);
    if (status) mt_tensor_decref(status);
    return rc;
}

static ck_random_args sampler(int op, double a, double b) {
    ck_random_args k;
    memset(&k, 0, sizeof k);
    k.op = op;
    k.a = a;
    k.b = b;
    return k;
}

/* uniform_(self, from, to, generator) */
static int k_uniform(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, sampler(CK_UNIFORM, a[1].d, a[2].d - a[1].d), NULL, NULL, a[3]);
}

/* normal_(self, mean, std, generator) */
static int k_normal(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, sampler(CK_NORMAL, a[1].d, a[2].d), NULL, NULL, a[3]);
}

/* bernoulli_(self, float p, generator), bernoulli_(self, Tensor p, generator) */
static int k_bernoulli_float(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, sampler(CK_BERNOULLI, a[1].d, 0), NULL, NULL, a[2]);
}

static int k_bernoulli_tensor(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, sampler(CK_BERNOULLI_TENSOR, 0, 0), a[1].t, NULL, a[2]);
}

/* exponential_(self, lambd), cauchy_(self, median, sigma), log_normal_(self, mean, std),
 * geometric_(self, p): the meta functions checked the parameters and dtypes */
static int k_exponential(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, sampler(CK_EXPONENTIAL, a[1].d, 0), NULL, NULL, a[2]);
}

static int k_cauchy(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, sampler(CK_CAUCHY, a[1].d, a[2].d), NULL, NULL, a[3]);
}

static int k_log_normal(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, sampler(CK_LOG_NORMAL, a[1].d, a[2].d), NULL, NULL, a[3]);
}

static int k_geometric(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, sampler(CK_GEOMETRIC, a[1].d, log1p(-a[1].d)), NULL, NULL, a[2]);
}

/* random_(self), random_.to(self, to), random_.from(self, from, to?): the CPU's plan (checks and
 * bounds, random_ops.c); 64-bit draws where the CPU takes them, so the ranges are the same. gen:
 * the generator's argument */
static int random_int(mt_call *c, mt_value *a, mt_value *r, int gen) {
    mt_tensor *self = r[0].t;
    mt_dtype dt = (mt_dtype)self->dtype;
    mt_random_range rr;
    if (mt_random_plan(c->op->id, a, dt, &rr)) return -1;
    ck_random_args k = sampler(CK_RANDOM_INT, 0, 0);
    if (gen == 1) { /* random_(self): the dtype's non-negative integers */
        int64_t lo, hi;
        mt_random_dtype_range(dt, &lo, &hi);
        k.range = (uint64_t)hi + 1;
        k.wide = dt == MT_INT64 || dt == MT_FLOAT64;
    } else {
        k.from = rr.from;
        k.range = rr.full ? 0 : rr.range;
        bool wide_type =
            dt == MT_INT64 || dt == MT_FLOAT64 || dt == MT_FLOAT32 || dt == MT_BFLOAT16;
        k.wide = wide_type && rr.range >= (1ULL << 32);
    }
    return draw(self, k, NULL, NULL, a[gen]);
}

static int k_random(mt_call *c, mt_value *a, mt_value *r) {
    return random_int(c, a, r, 1);
}

static int k_random_to(mt_call *c, mt_value *a, mt_value *r) {
    return random_int(c, a, r, 2);
}

static int k_random_from(mt_call *c, mt_value *a, mt_value *r) {
    return random_int(c, a, r, 3);
}

/* poisson(rates) and binomial(count, prob): new tensors of the inputs' broadcast shape */
static int k_poisson(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, sampler(CK_POISSON, 0, 0), a[0].t, NULL, a[1]);
}

static int k_binomial(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, sampler(CK_BINOMIAL, 0, 0), a[1].t, a[0].t, a[2]);
}

/* multinomial's row pass over probs ([rows][ncat], contiguous) into cum, and the verdict of the
 * first faulty row in *why (CK_MULTI_OK if none; without replacement, a bad entry anywhere comes
 * before a row summing to 0, as the CPU checks the whole tensor first) */
static int multinomial_rows(ck_multinomial_args *m, int device, mt_device dev, bool replacement,
                            int *why) {
    int64_t rows = m->rows;
    mt_tensor *status = mt_tensor_empty(1, &rows, MT_INT64, dev);
    int64_t *host = malloc(sizeof(int64_t) * (size_t)rows);
    int rc = status && host ? 0 : -1;
    if (status && !host) mt_error(MT_ERR_MEMORY, "out of memory in multinomial");
    if (!rc) {
        m->op = CK_MULTI_ROWS;
        m->status = (uint64_t)(uintptr_t)mt_tensor_raw(status);
        rc = cuda_launch(device, CUDA_FN_MULTINOMIAL, rows, m);
    }
    if (!rc)
        rc = cuda_copy_bytes(host, MT_CPU, mt_tensor_raw(status), dev,
                             sizeof(int64_t) * (size_t)rows);
    *why = CK_MULTI_OK;
    for (int64_t i = 0; !rc && i < rows; i++) {
        int s = (int)host[i];
        if (s == CK_MULTI_OK) continue;
        if (replacement || s != CK_MULTI_ZERO_SUM) {
            *why = s;
            break;
        }
        if (*why == CK_MULTI_OK) *why = s;
    }
    free(host);
    if (status) mt_tensor_decref(status);
    return rc;
}

static int multinomial_error(int why, bool replacement) {
    if (!replacement && why != CK_MULTI_ZERO_SUM)
        return mt_error(MT_ERR_RUNTIME,
                        "probability tensor contains either `inf`, `nan` or element < 0");
    return mt_error(MT_ERR_RUNTIME, "%s",
                    why == CK_MULTI_NEGATIVE
                        ? "invalid multinomial distribution (encountering probability entry < 0)"
                    : why == CK_MULTI_INFINITE ? "invalid multinomial distribution (encountering "
                                                 "probability entry = infinity or NaN)"
                                               : "invalid multinomial distribution (sum of "
                                                 "probabilities <= 0)");
}

/* without replacement: probs / q with q ~ Exp(1) per entry, the k largest of each row (the
 * stable sort keeps the first of equal scores, as argmax) */
static int multinomial_scores(mt_tensor *probs, int64_t k, mt_value gen, mt_tensor *out) {
    mt_dtype dt = (mt_dtype)probs->dtype;
    mt_tensor *q = mt_tensor_empty(probs->ndim, probs->sizes, dt, probs->device);
    mt_tensor *vals = q ? mt_tensor_empty(out->ndim, out->sizes, dt, out->device) : NULL;
    int rc = vals ? draw(q, sampler(CK_EXPONENTIAL, 1, 0), NULL, NULL, gen) : -1;
    mt_tensor *in[2] = {probs, q};
    if (!rc) rc = cuda_ew(q, CK_DIV, 2, in, NULL, NULL, dt);
    if (!rc) rc = cuda_sort_rows(q, probs->ndim - 1, true, k, 0, vals, out, false);
    if (vals) mt_tensor_decref(vals);
    if (q) mt_tensor_decref(q);
    return rc;
}

/* multinomial(self, num_samples, replacement, generator) -> int64 positions (0-based here) */
static int k_multinomial(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_tensor *out = r[0].t, *probs = NULL, *cum = NULL;
    bool replacement = a[2].b;
    if (out->numel == 0) return 0;
    ck_multinomial_args m;
    memset(&m, 0, sizeof m);
    m.rows = a[0].t->ndim == 2 ? a[0].t->sizes[0] : 1;
    m.ncat = a[0].t->sizes[a[0].t->ndim - 1];
    m.k = a[1].i;
    m.as_float = a[0].t->dtype != MT_FLOAT64;
    int device = cuda_device_of(out), why = CK_MULTI_OK;
    int64_t cells = m.rows * m.ncat;
    int rc = (probs = cuda_dense(a[0].t)) ? 0 : -1;
    if (!rc) rc = (cum = mt_tensor_empty(1, &cells, MT_FLOAT64, out->device)) ? 0 : -1;
    if (!rc) {
        m.probs =
            (ck_operand){.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(probs), .dtype = probs->dtype};
        m.cum = (ck_operand){.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(cum), .dtype = MT_FLOAT64};
        m.out = (ck_operand){.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(out), .dtype = MT_INT64};
        rc = multinomial_rows(&m, device, out->device, replacement, &why);
    }
    if (!rc && why != CK_MULTI_OK) rc = multinomial_error(why, replacement);
    if (!rc && !replacement) rc = multinomial_scores(probs, m.k, a[3], out);
    if (!rc && replacement) {
        rc = take_draws(a[3], out->device, (uint64_t)(m.rows * m.k), &m.seed, &m.offset);
        m.op = CK_MULTI_DRAW;
        if (!rc) rc = cuda_launch(device, CUDA_FN_MULTINOMIAL, m.rows * m.k, &m);
    }
    if (probs) mt_tensor_decref(probs);
    if (cum) mt_tensor_decref(cum);
    return rc;
}

const mt_kernel_entry cuda_random_kernels[] = {
    {"uniform_", k_uniform},
    {"normal_", k_normal},
    {"bernoulli_.float", k_bernoulli_float},
    {"bernoulli_.Tensor", k_bernoulli_tensor},
    {"exponential_", k_exponential},
    {"cauchy_", k_cauchy},
    {"log_normal_", k_log_normal},
    {"geometric_", k_geometric},
    {"random_", k_random},
    {"random_.to", k_random_to},
    {"random_.from", k_random_from},
    {"poisson", k_poisson},
    {"binomial", k_binomial},
    {"multinomial", k_multinomial},
};
const size_t cuda_random_kernels_count = MT_ARRAY_LEN(cuda_random_kernels);
