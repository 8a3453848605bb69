/* cpu_pool.c: max, average and adaptive average 2-D pooling on the CPU and their gradients,
 * plane by plane over contiguous copies, in float32/float64 (bfloat16 computes in float32,
 * integer average pooling in int64 with truncating division, as PyTorch). Every kernel runs its
 * planes on the pool's threads, forward and backward (average pooling of 32 x 64 x 56 x 56,
 * 2 x 2: 7.4 -> 3.7 ms on 2 threads); float32 max pooling with 2 x 2 windows at stride 2 takes
 * cpu_pool_avx512.c's loop (LeNet's MaxPool2d(2) on 64 x 6 x 28 x 28: 406 -> 26 us forward,
 * 60 -> 33 us backward, 2 threads). */
#include "cpu_kernels.h"
#include "mt_ops_gen.h"
#include "mt_parallel.h"
#include "nn_shapes.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

/* the average window of output (oh, ow) clipped to the input, and its divisor */
typedef struct avg_win {
    int64_t h0, h1, w0, w1, div;
} avg_win;

static avg_win avg_window(const mt_pool_geom *g, int64_t oh, int64_t ow, bool include_pad,
                          int64_t divisor) {
    int64_t h0 = oh * g->sh - g->ph, w0 = ow * g->sw - g->pw;
    int64_t h1 = h0 + g->kh < g->H + g->ph ? h0 + g->kh : g->H + g->ph;
    int64_t w1 = w0 + g->kw < g->W + g->pw ? w0 + g->kw : g->W + g->pw;
    int64_t padded = (h1 - h0) * (w1 - w0);
    avg_win a = {h0 < 0 ? 0 : h0, h1 > g->H ? g->H : h1, w0 < 0 ? 0 : w0, w1 > g->W ? g->W : w1, 0};
    a.div = divisor ? divisor : include_pad ? padded : (a.h1 - a.h0) * (a.w1 - a.w0);
    return a;
}

/* a if mask is all ones, else b, without a branch (the compiler turns ?: on floats into jumps) */
#define PICK(T, U, SFX)                                                                            \
    static inline T pick_##SFX(int64_t mask, T a, T b) {                                           \
        U ua, ub, m = (U)mask;                                                                     \
        memcpy(&ua, &a, sizeof a);                                                                 \
        memcpy(&ub, &b, sizeof b);                                                                 \
        ua = (ua & m) | (ub & ~m);                                                                 \
        memcpy(&a, &ua, sizeof a);                                                                 \
        return a;                                                                                  \
    }
PICK(float, uint32_t, f32)
PICK(double, uint64_t, f64)
#undef PICK

#define POOL_TYPED(T, SFX)                                                                         \
    /* planes [p0, p1) */                                                                          \
    static void max_fwd_##SFX(const mt_pool_geom *g, const T *in, T *out, int64_t *idx,            \
                              int64_t p0, int64_t p1) {                                            \
        for (int64_t p = p0; p < p1; p++) {                                                        \
            const T *x = in + p * g->H * g->W;                                                     \
            T *o = out + p * g->Ho * g->Wo;                                                        \
            int64_t *oi = idx + p * g->Ho * g->Wo;                                                 \
            for (int64_t oh = 0; oh < g->Ho; oh++) {                                               \
                int64_t h0 = oh * g->sh - g->ph, h1 = h0 + (g->kh - 1) * g->dh + 1;                \
                if (h1 > g->H) h1 = g->H;                                                          \
                while (h0 < 0) h0 += g->dh;                                                        \
                for (int64_t ow = 0; ow < g->Wo; ow++) {                                           \
                    int64_t w0 = ow * g->sw - g->pw, w1 = w0 + (g->kw - 1) * g->dw + 1;            \
                    if (w1 > g->W) w1 = g->W;                                                      \
                    while (w0 < 0) w0 += g->dw;                                                    \
                    int64_t best = h0 * g->W + w0;                                                 \
                    T bv = -INFINITY;                                                              \
                    /* branch-free (random data mispredicts every other compare); NaN wins, as     \
                     * PyTorch */                                                                  \
                    for (int64_t ih = h0; ih < h1; ih += g->dh)                                    \
                        for (int64_t iw = w0; iw < w1; iw += g->dw) {                              \
                            T v = x[ih * g->W + iw];                                               \
                            int64_t take = -(int64_t)(__builtin_isgreater(v, bv) |                 \
                                                      __builtin_isunordered(v, v));                \
                            bv = pick_##SFX(take, v, bv);                                          \
                            best = (best & ~take) | ((ih * g->W + iw) & take);                     \
                        }                                                                          \
                    o[oh * g->Wo + ow] = bv;                                                       \
                    oi[oh * g->Wo + ow] = best;                                                    \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    /* planes [p0, p1); an index outside its plane is noted in *bad and ends the part */           \
    static void max_bwd_##SFX(const mt_pool_geom *g, const T *go, const int64_t *idx, T *gin,      \
                              int64_t p0, int64_t p1, _Atomic int64_t *bad) {                      \
        int64_t HW = g->H * g->W, L = g->Ho * g->Wo;                                               \
        memset(gin + p0 * HW, 0, sizeof(T) * (size_t)((p1 - p0) * HW));                            \
        for (int64_t p = p0; p < p1; p++)                                                          \
            for (int64_t l = 0; l < L; l++) {                                                      \
                int64_t i = idx[p * L + l];                                                        \
                if (i < 0 || i >= HW) {                                                            \
                    atomic_store(bad, i);                                                          \
                    return;                                                                        \
                }                                                                                  \
                gin[p * HW + i] += go[p * L + l];                                                  \
            }                                                                                      \
    }                                                                                              \
    static void avg_bwd_##SFX(const mt_pool_geom *g, const T *go, T *gin, bool include_pad,        \
                              int64_t divisor, int64_t p0, int64_t p1) {                           \
        int64_t HW = g->H * g->W;                                                                  \
        memset(gin + p0 * HW, 0, sizeof(T) * (size_t)((p1 - p0) * HW));                            \
        for (int64_t p = p0; p < p1; p++)                                                          \
            for (int64_t oh = 0; oh < g->Ho; oh++)                                                 \
                for (int64_t ow = 0; ow < g->Wo; ow++) {                                           \
                    avg_win a = avg_window(g, oh, ow, include_pad, divisor);                       \
                    if (a.h0 >= a.h1 || a.w0 >= a.w1) continue;                                    \
                    T v = go[(p * g->Ho + oh) * g->Wo + ow] / (T)a.div;                            \
                    for (int64_t ih = a.h0; ih < a.h1; ih++)                                       \
                        for (int64_t iw = a.w0; iw < a.w1; iw++)                                   \
                            gin[p * HW + ih * g->W + iw] += v;                                     \
                }                                                                                  \
    }                                                                                              \
    static void adaptive_fwd_##SFX(const mt_pool_geom *g, const T *in, T *out, int64_t p0,         \
                                   int64_t p1) {                                                   \
        for (int64_t p = p0; p < p1; p++) {                                                        \
            const T *x = in + p * g->H * g->W;                                                     \
            for (int64_t oh = 0; oh < g->Ho; oh++) {                                               \
                int64_t h0 = mt_adaptive_start(oh, g->Ho, g->H),                                   \
                        h1 = mt_adaptive_end(oh, g->Ho, g->H);                                     \
                for (int64_t ow = 0; ow < g->Wo; ow++) {                                           \
                    int64_t w0 = mt_adaptive_start(ow, g->Wo, g->W),                               \
                            w1 = mt_adaptive_end(ow, g->Wo, g->W);                                 \
                    T s = 0;                                                                       \
                    for (int64_t ih = h0; ih < h1; ih++)                                           \
                        for (int64_t iw = w0; iw < w1; iw++) s += x[ih * g->W + iw];               \
                    out[(p * g->Ho + oh) * g->Wo + ow] = s / (T)((h1 - h0) * (w1 - w0));           \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void adaptive_bwd_##SFX(const mt_pool_geom *g, const T *go, T *gin, int64_t p0,         \
                                   int64_t p1) {                                                   \
        int64_t HW = g->H * g->W;                                                                  \
        memset(gin + p0 * HW, 0, sizeof(T) * (size_t)((p1 - p0) * HW));                            \
        for (int64_t p = p0; p < p1; p++)                                                          \
            for (int64_t oh = 0; oh < g->Ho; oh++) {                                               \
                int64_t h0 = mt_adaptive_start(oh, g->Ho, g->H),                                   \
                        h1 = mt_adaptive_end(oh, g->Ho, g->H);                                     \
                for (int64_t ow = 0; ow < g->Wo; ow++) {                                           \
                    int64_t w0 = mt_adaptive_start(ow, g->Wo, g->W),                               \
                            w1 = mt_adaptive_end(ow, g->Wo, g->W);                                 \
                    T v = go[(p * g->Ho + oh) * g->Wo + ow] / (T)((h1 - h0) * (w1 - w0));          \
                    for (int64_t ih = h0; ih < h1; ih++)                                           \
                        for (int64_t iw = w0; iw < w1; iw++) gin[p * HW + ih * g->W + iw] += v;    \
                }                                                                                  \
            }                                                                                      \
    }

POOL_TYPED(float, f32)
POOL_TYPED(double, f64)

/* max pooling forward, planes split across threads */
typedef void (*max_fwd_fn)(const mt_pool_geom *g, const void *in, void *out, int64_t *idx,
                           int64_t p0, int64_t p1);
typedef struct {
    const mt_pool_geom *g;
    const void *in;
    void *out;
    int64_t *idx;
    max_fwd_fn fn;
} max_job;
#define MAX_PLANES(SFX, T)                                                                         \
    static void max_fwd_##SFX##_planes(const mt_pool_geom *g, const void *in, void *out,           \
                                       int64_t *idx, int64_t p0, int64_t p1) {                     \
        max_fwd_##SFX(g, (const T *)in, (T *)out, idx, p0, p1);                                    \
    }
MAX_PLANES(f32, float)
MAX_PLANES(f64, double)
#undef MAX_PLANES
/* 2 x 2 windows at stride 2, 16 at a time (cpu_pool_avx512.c) */
static void max_fwd_f32_2x2_planes(const mt_pool_geom *g, const void *in, void *out, int64_t *idx,
                                   int64_t p0, int64_t p1) {
    mt_cpu_max_pool_2x2_f32(g, in, out, idx, p0, p1);
}
static void max_fwd_part(void *ctx, int64_t p0, int64_t p1) {
    max_job *j = ctx;
    j->fn(j->g, j->in, j->out, j->idx, p0, p1);
}

/* max pooling backward, planes split across threads (each writes its planes only) */
typedef struct {
    const mt_pool_geom *g;
    const void *go;
    const int64_t *idx;
    void *gin;
    bool f64;
    _Atomic int64_t bad; /* an index outside its plane, or -1 */
} max_bwd_job;

static void max_bwd_part(void *ctx, int64_t p0, int64_t p1) {
    max_bwd_job *j = ctx;
    if (j->f64)
        max_bwd_f64(j->g, j->go, j->idx, j->gin, p0, p1, &j->bad);
    else
        max_bwd_f32(j->g, j->go, j->idx, j->gin, p0, p1, &j->bad);
}

static int max_bwd(const mt_pool_geom *g, const void *go, const int64_t *idx, void *gin, bool f64) {
    max_bwd_job j = {g, go, idx, gin, f64, -1};
    /* a scattered add per output and a zeroed input plane */
    mt_parallel_range(g->planes, mt_threads_for(g->planes * (g->Ho * g->Wo + g->H * g->W)),
                      max_bwd_part, &j);
    int64_t bad = atomic_load(&j.bad);
    if (bad == -1) return 0;
    return mt_error(MT_ERR_INDEX,
                    "max_pool2d_with_indices_backward: index %lld is out of bounds for a plane of "
                    "%lld elements",
                    mt_user_dim(bad), (long long)(g->H * g->W));
}

/* average pooling forward; ACC accumulates (int64 for integer inputs, truncating on division) */
#define AVG_FWD(T, SFX)                                                                            \
    static void avg_fwd_##SFX(const mt_pool_geom *g, const T *in, T *out, bool include_pad,        \
                              int64_t divisor, int64_t p0, int64_t p1) {                           \
        for (int64_t p = p0; p < p1; p++) {                                                        \
            const T *x = in + p * g->H * g->W;                                                     \
            for (int64_t oh = 0; oh < g->Ho; oh++)                                                 \
                for (int64_t ow = 0; ow < g->Wo; ow++) {                                           \
                    avg_win a = avg_window(g, oh, ow, include_pad, divisor);                       \
                    T s = 0;                                                                       \
                    for (int64_t ih = a.h0; ih < a.h1; ih++)                                       \
                        for (int64_t iw = a.w0; iw < a.w1; iw++) s += x[ih * g->W + iw];           \
                    out[(p * g->Ho + oh) * g->Wo + ow] =                                           \
                        a.h0 >= a.h1 || a.w0 >= a.w1 ? 0 : s / (T)a.div;                           \
                }                                                                                  \
        }                                                                                          \
    }
AVG_FWD(float, f32)
AVG_FWD(double, f64)
AVG_FWD(int64_t, i64)

static mt_dtype compute_dtype(mt_dtype dt) {
    if (dt == MT_FLOAT32 || dt == MT_BFLOAT16) return MT_FLOAT32;
    return dt == MT_FLOAT64 ? MT_FLOAT64 : MT_INT64;
}

enum { MAX_FWD, MAX_BWD, AVG_FWD_K, AVG_BWD, ADAPTIVE_FWD, ADAPTIVE_BWD };

/* the average and adaptive average kernels, planes split across threads (each part writes its
 * own planes of the result) */
typedef struct {
    int kind;
    mt_dtype dt; /* the compute dtype: int64 reaches only the average forward */
    const mt_pool_geom *g;
    const void *in;
    void *out;
    bool include_pad;
    int64_t divisor;
} planes_job;

static void planes_part(void *ctx, int64_t p0, int64_t p1) {
    const planes_job *j = ctx;
#define PLANES(SFX, T)                                                                             \
    switch (j->kind) {                                                                             \
    case AVG_FWD_K:                                                                                \
        avg_fwd_##SFX(j->g, j->in, j->out, j->include_pad, j->divisor, p0, p1);                    \
        break;                                                                                     \
    case AVG_BWD:                                                                                  \
        avg_bwd_##SFX(j->g, j->in, j->out, j->include_pad, j->divisor, p0, p1);                    \
        break;                                                                                     \
    case ADAPTIVE_FWD:                                                                             \
        adaptive_fwd_##SFX(j->g, j->in, j->out, p0, p1);                                           \
        break;                                                                                     \
    default:                                                                                       \
        adaptive_bwd_##SFX(j->g, j->in, j->out, p0, p1);                                           \
        break;                                                                                     \
    }
    if (j->dt == MT_FLOAT32)
        PLANES(f32, float)
    else if (j->dt == MT_FLOAT64)
        PLANES(f64, double)
    else
        avg_fwd_i64(j->g, j->in, j->out, j->include_pad, j->divisor, p0, p1);
#undef PLANES
}

/* run a kernel over dense compute-dtype copies: x is the input (or grad_output), out the result;
 * idx the indices (max pooling) */
static int run(int kind, const mt_pool_geom *g, mt_tensor *x, mt_tensor *out, mt_tensor *idx,
               bool include_pad, int64_t divisor) {
    mt_dtype dt = compute_dtype((mt_dtype)out->dtype);
    mt_tensor *cx = mt_cpu_as_dense(x, dt), *ci = NULL;
    mt_tensor *res = (out->dtype == dt && mt_tensor_is_contiguous(out))
                         ? out
                         : mt_tensor_empty(out->ndim, out->sizes, dt, MT_CPU);
    int st = -1;
    if (kind == MAX_BWD) ci = mt_cpu_as_dense(idx, MT_INT64);
    /* the forward's indices go through a contiguous tensor where theirs is not (a channels-last
     * input's) */
    bool idx_copy = kind == MAX_FWD && !mt_tensor_is_contiguous(idx);
    if (idx_copy) ci = mt_tensor_empty(idx->ndim, idx->sizes, MT_INT64, MT_CPU);
    if (cx && res && (ci || (kind != MAX_BWD && !idx_copy))) {
        void *xi = mt_tensor_data(cx), *o = mt_tensor_data(res);
        int64_t *ix = ci ? mt_tensor_data(ci) : kind == MAX_FWD ? mt_tensor_data(idx) : NULL;
        st = 0;
        switch (kind) {
        case MAX_FWD: {
            max_job j = {g, xi, o, ix, dt == MT_FLOAT64 ? max_fwd_f64_planes : max_fwd_f32_planes};
            if (dt == MT_FLOAT32 && mt_cpu_max_pool_2x2_fits(g) &&
                __builtin_cpu_supports("avx512f"))
                j.fn = max_fwd_f32_2x2_planes;
            mt_parallel_range(g->planes, mt_threads_for(g->planes * g->Ho * g->Wo * g->kh * g->kw),
                              max_fwd_part, &j);
            break;
        }
        case MAX_BWD:
            st = max_bwd(g, xi, ix, o, dt == MT_FLOAT64);
            break;
        default: { /* the averages, every compute dtype (integers reach only the forward) */
            planes_job j = {kind, dt, g, xi, o, include_pad, divisor};
            mt_parallel_range(g->planes, mt_threads_for(g->planes * (g->H * g->W + g->Ho * g->Wo)),
                              planes_part, &j);
        }
        }
        if (!st && res != out) st = mt_cpu_copy(out, res);
        if (!st && idx_copy) st = mt_cpu_copy(idx, ci);
    }
    mt_tensor_decref(cx);
    mt_tensor_decref(ci);
    if (res && res != out) mt_tensor_decref(res);
    return st;
}

static int max_pool_impl(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_pool_geom g;
    if (mt_max_pool_geom(a, &g)) return -1;
    return r[0].t->numel ? run(MAX_FWD, &g, a[0].t, r[0].t, r[1].t, false, 0) : 0;
}

static int max_pool_bw_impl(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_pool_geom g;
    if (mt_max_pool_geom(a + 1, &g)) return -1;
    return r[0].t->numel ? run(MAX_BWD, &g, a[0].t, r[0].t, a[7].t, false, 0) : 0;
}

static int64_t divisor_of(mt_value v) {
    return v.tag == MT_V_NONE ? 0 : v.i;
}

static int avg_pool_impl(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_pool_geom g;
    if (mt_avg_pool_geom(a, &g)) return -1;
    return r[0].t->numel ? run(AVG_FWD_K, &g, a[0].t, r[0].t, NULL, a[5].b, divisor_of(a[6])) : 0;
}

static int avg_pool_bw_impl(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_pool_geom g;
    if (mt_avg_pool_geom(a + 1, &g)) return -1;
    if (!mt_dtype_is_floating((mt_dtype)a[0].t->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "\"avg_pool2d_backward_out_frame\" not implemented for '%s'",
                        mt_dtype_scalar_name((mt_dtype)a[0].t->dtype));
    return r[0].t->numel ? run(AVG_BWD, &g, a[0].t, r[0].t, NULL, a[6].b, divisor_of(a[7])) : 0;
}

static int adaptive_impl(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_pool_geom g;
    if (mt_adaptive_pool_geom(a[0].t, &a[1], &g)) return -1;
    return r[0].t->numel ? run(ADAPTIVE_FWD, &g, a[0].t, r[0].t, NULL, false, 0) : 0;
}

static int adaptive_bw_impl(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_pool_geom g;
    mt_value os = mt_vilist(a[0].t->sizes + a[0].t->ndim - 2, 2);
    if (mt_adaptive_pool_geom(a[1].t, &os, &g)) return -1;
    return r[0].t->numel ? run(ADAPTIVE_BWD, &g, a[0].t, r[0].t, NULL, false, 0) : 0;
}

void mt_cpu_pool_register(void) {
    mt_disp_impl(MT_OP_max_pool2d_with_indices, MT_KEY_CPU, max_pool_impl);
    mt_disp_impl(MT_OP_max_pool2d_with_indices_backward, MT_KEY_CPU, max_pool_bw_impl);
    mt_disp_impl(MT_OP_avg_pool2d, MT_KEY_CPU, avg_pool_impl);
    mt_disp_impl(MT_OP_avg_pool2d_backward, MT_KEY_CPU, avg_pool_bw_impl);
    mt_disp_impl(MT_OP__adaptive_avg_pool2d, MT_KEY_CPU, adaptive_impl);
    mt_disp_impl(MT_OP__adaptive_avg_pool2d_backward, MT_KEY_CPU, adaptive_bw_impl);
}
