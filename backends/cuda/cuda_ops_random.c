/* cuda_ops_random.c: uniform_, normal_ and bernoulli_ on CUDA (rand, randn, dropout and the other
 * samplers compose them). The draws come from the device type's generator (or the one given):
 * its seed keys Philox4x32-10 and its offset counts the draws taken, advanced under its lock
 * before the launch, so each launch draws fresh numbers and a seed replays them. */
#include <string.h>

#include "cuda_launch.h"
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_generator.h"
#include "mt_tensor.h"
#include "random_ops.h"

/* self <- draws (op: CK_*), written through a contiguous copy when self is a view */
static int draw(mt_tensor *self, int op, double a, double b, mt_tensor *p, mt_value gen) {
    if (self->numel == 0) return 0;
    mt_generator *g = mt_random_generator(gen, self->device);
    if (!g) return -1;
    ck_random_args k;
    memset(&k, 0, sizeof k);
    k.n = self->numel;
    k.op = op;
    k.a = a;
    k.b = b;
    pthread_mutex_lock(&g->lock);
    k.seed = g->seed;
    k.offset = g->offset;
    g->offset += (uint64_t)k.n;
    pthread_mutex_unlock(&g->lock);
    mt_tensor *out = cuda_dense(self), *pd = NULL;
    int rc = out ? 0 : -1;
    if (!rc && p) { /* the probabilities broadcast to self (the copy kernel's), one per element */
        pd = mt_tensor_empty(self->ndim, self->sizes, MT_FLOAT64, self->device);
        mt_tensor *in[1] = {p};
        rc = pd ? cuda_ew(pd, CK_COPY, 1, in, NULL, NULL, MT_FLOAT64) : -1;
    }
    if (!rc) {
        k.out = (ck_operand){.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(out), .dtype = out->dtype};
        if (pd)
            k.p = (ck_operand){.ptr = (uint64_t)(uintptr_t)mt_tensor_raw(pd), .dtype = MT_FLOAT64};
        bool narrow =
            out->dtype == MT_FLOAT32 || out->dtype == MT_FLOAT16 || out->dtype == MT_BFLOAT16;
        rc = cuda_launch(cuda_device_of(out), narrow ? CUDA_FN_RANDOM_F32 : CUDA_FN_RANDOM_F64, k.n,
                         &k);
    }
    if (!rc && out != self) {
        mt_tensor *in[1] = {out};
        rc = cuda_ew(self, CK_COPY, 1, in, NULL, NULL, (mt_dtype)out->dtype);
    }
    if (out) mt_tensor_decref(out);
    if (pd) mt_tensor_decref(pd);
    return rc;
}

/* uniform_(self, from, to, generator) */
static int k_uniform(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, CK_UNIFORM, a[1].d, a[2].d - a[1].d, NULL, a[3]);
}

/* normal_(self, mean, std, generator) */
static int k_normal(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, CK_NORMAL, a[1].d, a[2].d, NULL, a[3]);
}

/* bernoulli_(self, float p, generator), bernoulli_(self, Tensor p, generator) */
static int k_bernoulli_float(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, CK_BERNOULLI, a[1].d, 0, NULL, a[2]);
}

static int k_bernoulli_tensor(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return draw(r[0].t, CK_BERNOULLI_TENSOR, 0, 0, a[1].t, a[2]);
}

const mt_kernel_entry cuda_random_kernels[] = {
    {"uniform_", k_uniform},
    {"normal_", k_normal},
    {"bernoulli_.float", k_bernoulli_float},
    {"bernoulli_.Tensor", k_bernoulli_tensor},
};
const size_t cuda_random_kernels_count = MT_ARRAY_LEN(cuda_random_kernels);
