/* cpu_random.c: CPU samplers, drawing from the MT19937 generator exactly as PyTorch 1.13's
 * CPU kernels do (doc/rng.md is the specification this file implements, section by section).
 *
 * Every kernel holds the generator's lock while it draws and visits elements serially in
 * memory order, so a stream never depends on the thread count. The build compiles without
 * floating-point contraction; where PyTorch's build fuses a multiply-add, the code calls
 * fma/fmaf explicitly. */
#include "cpu_kernels.h"
#include "mt_generator.h"
#include "mt_half.h"
#include "mt_ops_gen.h"
#include "random_ops.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- uniform primitives (section 2) ---------------------------------------------------------- */

static inline float u32(mt_generator *g) {
    return (float)(mt_gen_random(g) & 0xffffffu) * 0x1p-24f;
}
static inline double u64(mt_generator *g) {
    return (double)(mt_gen_random64(g) & ((1ULL << 53) - 1)) * 0x1p-53;
}
static inline float u_half(mt_generator *g) {
    return (float)(mt_gen_random(g) & 0x7ffu) * 0x1p-11f;
}
static inline float u_bf16(mt_generator *g) {
    return (float)(mt_gen_random(g) & 0xffu) * 0x1p-8f;
}

static inline float half_round(float v) {
    return mt_f16_to_f32(mt_f32_to_f16(v));
}
static inline float bf16_round(float v) {
    return mt_bf16_to_f32(mt_f32_to_bf16(v));
}

/* ---- serial element visits ------------------------------------------------------------------- */

typedef void (*elem_fn)(char *p, const char *q, void *ctx); /* q: a second operand or NULL */

typedef struct {
    elem_fn fn;
    void *ctx;
    int nops;
} visit_ctx;

static void visit_loop(char **data, const int64_t *strides, int64_t n, void *vctx) {
    visit_ctx *v = vctx;
    char *p = data[0];
    const char *q = v->nops > 1 ? data[1] : NULL;
    for (int64_t i = 0; i < n; i++) {
        v->fn(p, q, v->ctx);
        p += strides[0];
        if (q) q += strides[1];
    }
}

/* fn on every element of t in memory order (with other broadcast alongside when given) */
static void visit(mt_tensor *t, mt_tensor *other, elem_fn fn, void *ctx) {
    mt_iter it;
    mt_tensor *ops[2] = {t, other};
    int nops = other ? 2 : 1;
    mt_iter_init(&it, nops, ops, t->ndim, t->sizes);
    visit_ctx v = {fn, ctx, nops};
    mt_iter_run_range(&it, 0, it.numel, visit_loop, &v);
}

typedef struct {
    mt_generator *g;
    mt_dtype dt;
    double a, b; /* the op's parameters */
    float fa, fb;
    mt_dtype pdt; /* a second operand's dtype */
    int64_t from;
    uint64_t range;
    bool wide;
    bool bad; /* a value out of range was seen */
} draw_ctx;

/* Lock the generator for t's device; NULL (error set) on a generator mismatch. */
static mt_generator *lock_generator(mt_value gen, mt_tensor *t) {
    mt_generator *g = mt_random_generator(gen, t->device);
    if (g) pthread_mutex_lock(&g->lock);
    return g;
}

static int unlock(mt_generator *g) {
    pthread_mutex_unlock(&g->lock);
    return 0;
}

/* ---- uniform_ (section 3) -------------------------------------------------------------------- */

static void uniform_elem(char *p, const char *q, void *vctx) {
    MT_UNUSED(q);
    draw_ctx *c = vctx;
    switch (c->dt) {
    case MT_FLOAT32:
        *(float *)p = fmaf(u32(c->g), c->fb, c->fa);
        break;
    case MT_FLOAT64:
        *(double *)p = fma(u64(c->g), c->b, c->a);
        break;
    case MT_FLOAT16:
        *(uint16_t *)p = mt_f32_to_f16(fmaf(u_half(c->g), c->fb, c->fa));
        break;
    default:
        *(uint16_t *)p = mt_f32_to_bf16(fmaf(u_bf16(c->g), c->fb, c->fa));
        break;
    }
}

static int k_uniform_(mt_call *call, mt_value *a, mt_value *r) {
    MT_UNUSED(call);
    MT_UNUSED(r);
    mt_tensor *self = a[0].t;
    draw_ctx c = {.dt = (mt_dtype)self->dtype};
    /* from and to in the dtype, range = to - from in the dtype (b holds the range) */
    if (c.dt == MT_FLOAT64) {
        c.a = a[1].d;
        c.b = a[2].d - a[1].d;
    } else if (c.dt == MT_FLOAT32) {
        c.fa = (float)a[1].d;
        c.fb = (float)a[2].d - c.fa;
    } else {
        float (*rnd)(float) = c.dt == MT_FLOAT16 ? half_round : bf16_round;
        c.fa = rnd((float)a[1].d);
        c.fb = rnd(rnd((float)a[2].d) - c.fa);
    }
    if (self->numel == 0) return 0;
    if (!(c.g = lock_generator(a[3], self))) return -1;
    visit(self, NULL, uniform_elem, &c);
    return unlock(c.g);
}

/* ---- normal_ (section 4) --------------------------------------------------------------------- */

/* 4B: one double normal sample, with the generator's cache */
static double normal_scalar(mt_generator *g) {
    if (g->has_normal) {
        g->has_normal = false;
        return g->normal;
    }
    double u1 = u64(g), u2 = u64(g);
    double radius = sqrt(-2 * log(1 - u2)), theta = 6.283185307179586 * u1;
    g->normal = radius * sin(theta);
    g->has_normal = true;
    return radius * cos(theta);
}

static void normal_elem(char *p, const char *q, void *vctx) {
    MT_UNUSED(q);
    draw_ctx *c = vctx;
    mt_store_double(p, c->dt, fma(normal_scalar(c->g), c->b, c->a));
}

static inline float fb(uint32_t bits) {
    return mt_bits_f32(bits);
}

/* PyTorch's AVX2 logf, lane by lane (4A) */
static float logf_avx2(float a) {
    bool invalid = a <= 0;
    if (!(a > fb(0x00800000))) a = fb(0x00800000);
    uint32_t bits = mt_f32_bits(a);
    float e = (float)((int32_t)(bits >> 23) - 127) + 1.0f;
    float x = fb((bits & ~0x7f800000u) | 0x3f000000u), tmp;
    if (x < fb(0x3f3504f3)) {
        tmp = x;
        e = e - 1.0f;
    } else {
        tmp = 0.0f;
    }
    x = (x - 1.0f) + tmp;
    static const uint32_t P[9] = {0x3d9021bb, 0xbdebd1b8, 0x3def251a, 0xbdfe5d4f, 0x3e11e9bf,
                                  0xbe2aae50, 0x3e4cceac, 0xbe7ffffc, 0x3eaaaaaa};
    float y = fb(P[0]);
    for (int k = 1; k < 9; k++) y = fmaf(y, x, fb(P[k]));
    float z = x * x;
    y = y * x;
    float eq1 = e * fb(0xb95e8083);
    y = fmaf(y, z, eq1);
    y = fmaf(-z, 0.5f, y);
    x = x + y;
    x = fmaf(e, fb(0x3f318000), x);
    return invalid ? NAN : x;
}

static inline float xor_sign(float v, uint32_t sign) {
    return mt_bits_f32(mt_f32_bits(v) ^ sign);
}

/* PyTorch's AVX2 sincosf, lane by lane (4A) */
static void sincosf_avx2(float t, float *s_out, float *c_out) {
    uint32_t ss = mt_f32_bits(t) & 0x80000000u;
    float xa = fabsf(t);
    int32_t j = (int32_t)(xa * fb(0x3fa2f983));
    j = (j + 1) & ~1;
    float y = (float)j;
    ss ^= (uint32_t)(j & 4) << 29;
    uint32_t sc = (uint32_t)(~(j - 2) & 4) << 29;
    bool poly = (j & 2) == 0;
    float x = fmaf(y, fb(0xbf490000), xa);
    x = fmaf(y, fb(0xb97da000), x);
    x = fmaf(y, fb(0xb3222169), x);
    float z = x * x;
    float yc = fmaf(fb(0x37ccf5ce), z, fb(0xbab6061a));
    yc = fmaf(yc, z, fb(0x3d2aaaa5));
    yc = yc * z;
    yc = fmaf(yc, z, -(z * 0.5f));
    yc = yc + 1.0f;
    float ys = fmaf(fb(0xb94ca1f9), z, fb(0x3c08839e));
    ys = fmaf(ys, z, fb(0xbe2aaaa3));
    ys = ys * z;
    ys = fmaf(ys, x, x);
    float S, C;
    if (poly) {
        S = 0.0f + ys;
        C = (ys - ys) + (yc - 0.0f);
    } else {
        S = yc + 0.0f;
        C = (ys - 0.0f) + (yc - yc);
    }
    *s_out = xor_sign(S, ss);
    *c_out = xor_sign(C, sc);
}

/* whether randn's float32 blocks take the AVX2 transform (cpu_random_avx2.c): read once, any
 * thread may ask first; MT_RANDN_VECTOR=0 keeps the lane-by-lane one (for comparisons) */
static bool vector_normals(void) {
    static atomic_int on = -1;
    int v = atomic_load_explicit(&on, memory_order_relaxed);
    if (v < 0) {
        const char *env = getenv("MT_RANDN_VECTOR");
        v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
            !(env && env[0] == '0');
        atomic_store_explicit(&on, v, memory_order_relaxed);
    }
    return v;
}

/* 4A: the Box-Muller transform of one block of 16 uniforms, in place */
static void normal_block_f32(float *d, float mean, float std) {
    if (vector_normals()) {
        mt_cpu_normal_block_f32_avx2(d, mean, std);
        return;
    }
    for (int j = 0; j < 8; j++) {
        float a = 1.0f - d[j], b = d[j + 8];
        float radius = sqrtf(logf_avx2(a) * -2.0f), theta = fb(0x40c90fdb) * b, S, C;
        sincosf_avx2(theta, &S, &C);
        d[j] = fmaf(radius * C, std, mean);
        d[j + 8] = fmaf(radius * S, std, mean);
    }
}

static void normal_block_f64(double *d, double mean, double std) {
    for (int j = 0; j < 8; j++) {
        double a = 1 - d[j], b = d[j + 8];
        double radius = sqrt(-2 * log(a)), theta = 6.283185307179586 * b;
        d[j] = fma(radius * cos(theta), std, mean);
        d[j + 8] = fma(radius * sin(theta), std, mean);
    }
}

static void normal_block_half(uint16_t *d, float mean, float std) {
    for (int j = 0; j < 8; j++) {
        float u1 = half_round(1.0f - mt_f16_to_f32(d[j])), u2 = mt_f16_to_f32(d[j + 8]);
        float radius = half_round(sqrtf(-2.0f * logf(u1)));
        float theta = half_round((float)(6.283185307179586 * (double)u2));
        d[j] = mt_f32_to_f16(fmaf(radius * cosf(theta), std, mean));
        d[j + 8] = mt_f32_to_f16(fmaf(radius * sinf(theta), std, mean));
    }
}

static void normal_block_bf16(uint16_t *d, float mean, float std) {
    for (int j = 0; j < 8; j++) {
        float u1 = bf16_round(1.0f - mt_bf16_to_f32(d[j])), u2 = mt_bf16_to_f32(d[j + 8]);
        float lg = bf16_round(logf(u1));
        float radius = bf16_round(sqrtf(bf16_round(-2.0f * lg)));
        float theta = bf16_round((float)(6.283185307179586 * (double)u2));
        float c = bf16_round(cosf(theta)), s = bf16_round(sinf(theta));
        d[j] = mt_f32_to_bf16(bf16_round(bf16_round(bf16_round(radius * c) * std) + mean));
        d[j + 8] = mt_f32_to_bf16(bf16_round(bf16_round(bf16_round(radius * s) * std) + mean));
    }
}

/* draw uniforms for the fill path into data[from, to) */
static void fill_uniforms(mt_generator *g, mt_dtype dt, char *data, int64_t from, int64_t to) {
    for (int64_t i = from; i < to; i++) switch (dt) {
        case MT_FLOAT32:
            ((float *)data)[i] = u32(g);
            break;
        case MT_FLOAT64:
            ((double *)data)[i] = u64(g);
            break;
        case MT_FLOAT16:
            ((uint16_t *)data)[i] = mt_f32_to_f16(u_half(g));
            break;
        default:
            ((uint16_t *)data)[i] = mt_f32_to_bf16(u_bf16(g));
            break;
        }
}

static void normal_block(mt_dtype dt, char *data, int64_t at, double mean, double std) {
    switch (dt) {
    case MT_FLOAT32:
        normal_block_f32((float *)data + at, (float)mean, (float)std);
        break;
    case MT_FLOAT64:
        normal_block_f64((double *)data + at, mean, std);
        break;
    case MT_FLOAT16:
        normal_block_half((uint16_t *)data + at, (float)mean, (float)std);
        break;
    default:
        normal_block_bf16((uint16_t *)data + at, (float)mean, (float)std);
        break;
    }
}

static int k_normal_(mt_call *call, mt_value *a, mt_value *r) {
    MT_UNUSED(call);
    MT_UNUSED(r);
    mt_tensor *self = a[0].t;
    draw_ctx c = {.dt = (mt_dtype)self->dtype, .a = a[1].d, .b = a[2].d};
    if (self->numel == 0) return 0;
    if (!(c.g = lock_generator(a[3], self))) return -1;
    int64_t n = self->numel;
    if (n >= 16 && mt_tensor_is_contiguous(self)) { /* 4A: the fill path */
        char *data = mt_tensor_data(self);
        fill_uniforms(c.g, c.dt, data, 0, n);
        for (int64_t i = 0; i + 16 <= n; i += 16) normal_block(c.dt, data, i, c.a, c.b);
        if (n % 16 != 0) {
            fill_uniforms(c.g, c.dt, data, n - 16, n);
            normal_block(c.dt, data, n - 16, c.a, c.b);
        }
    } else {
        visit(self, NULL, normal_elem, &c);
    }
    return unlock(c.g);
}

/* ---- exponential_ ---------------------------------------------------------------------------- */

static void exponential_elem(char *p, const char *q, void *vctx) {
    MT_UNUSED(q);
    draw_ctx *c = vctx;
    mt_store_double(p, c->dt, -1.0 / c->a * log(1.0 - u64(c->g)));
}

static int k_exponential_(mt_call *call, mt_value *a, mt_value *r) {
    MT_UNUSED(call);
    MT_UNUSED(r);
    mt_tensor *self = a[0].t;
    draw_ctx c = {.dt = (mt_dtype)self->dtype, .a = a[1].d};
    if (self->numel == 0) return 0;
    if (!(c.g = lock_generator(a[2], self))) return -1;
    visit(self, NULL, exponential_elem, &c);
    return unlock(c.g);
}

/* ---- cauchy_, log_normal_, geometric_ (sections 11-13) ----------------------------------------
 */

static void cauchy_elem(char *p, const char *q, void *vctx) {
    MT_UNUSED(q);
    draw_ctx *c = vctx;
    double t = tan(3.141592653589793 * (u64(c->g) - 0.5));
    mt_store_double(p, c->dt, fma(c->b, t, c->a));
}

static void log_normal_elem(char *p, const char *q, void *vctx) {
    MT_UNUSED(q);
    draw_ctx *c = vctx;
    mt_store_double(p, c->dt, exp(fma(normal_scalar(c->g), c->b, c->a)));
}

static void geometric_elem(char *p, const char *q, void *vctx) {
    MT_UNUSED(q);
    draw_ctx *c = vctx;
    mt_store_double(p, c->dt, ceil(log(u64(c->g)) / c->b));
}

/* cauchy_(median, sigma), log_normal_(mean, std), geometric_(p): a per-element sampler */
static int k_sampler_(mt_call *call, mt_value *a, mt_value *r) {
    MT_UNUSED(r);
    mt_tensor *self = a[0].t;
    int id = call->op->id;
    draw_ctx c = {.dt = (mt_dtype)self->dtype, .a = a[1].d};
    elem_fn fn;
    mt_value gen;
    if (id == MT_OP_geometric_) {
        c.b = log1p(-a[1].d);
        fn = geometric_elem;
        gen = a[2];
    } else {
        c.b = a[2].d;
        fn = id == MT_OP_cauchy_ ? cauchy_elem : log_normal_elem;
        gen = a[3];
    }
    if (self->numel == 0) return 0;
    if (!(c.g = lock_generator(gen, self))) return -1;
    visit(self, NULL, fn, &c);
    return unlock(c.g);
}

/* ---- poisson (section 14) -------------------------------------------------------------------- */

static int64_t poisson_sample(mt_generator *g, double lambda) {
    if (lambda >= 10) { /* transformed rejection (Hoermann 1993, PTRS) */
        double slam = sqrt(lambda), loglam = log(lambda);
        double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
        double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
        for (;;) {
            double u = u64(g) - 0.5, v = u64(g), us = 0.5 - fabs(u);
            int64_t k = (int64_t)floor((2 * a / us + b) * u + lambda + 0.43);
            if (us >= 0.07 && v <= vr) return k;
            if (k < 0 || (us < 0.013 && v > us)) continue;
            if (log(v) + log(invalpha) - log(a / (us * us) + b) <=
                -lambda + (double)k * loglam - lgamma((double)k + 1))
                return k;
        }
    }
    if (lambda == 0) return 0;
    double limit = exp(-lambda), prod = 1.0; /* multiply uniforms until below e^-lambda */
    int64_t n = 0;
    for (;;) {
        prod *= u64(g);
        if (!(prod > limit)) return n;
        n++;
    }
}

/* ---- binomial (section 15): T is the element type, the draws and sums double ----------------- */

static double stirling_tail(double k) { /* log k! - its Stirling approximation */
    static const double small[10] = {0.0810614667953272,  0.0413406959554092, 0.0276779256849983,
                                     0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                                     0.0118967099458917,  0.0104112652619720, 0.00925546218271273,
                                     0.00833056343336287};
    if (k <= 9) return small[(size_t)k];
    double kp1sq = (k + 1) * (k + 1);
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

#define BINOMIAL_FNS(T, SFX, SQRT, LOG1P)                                                          \
    static T inversion_##SFX(mt_generator *g, T count, T prob) { /* sum of geometric gaps */       \
        double sum = 0, logq = (double)LOG1P(-prob);                                               \
        T n = 0;                                                                                   \
        for (;;) {                                                                                 \
            sum += ceil(log(u64(g)) / logq);                                                       \
            if (sum > count) return n;                                                             \
            n = n + 1;                                                                             \
        }                                                                                          \
    }                                                                                              \
    static T btrs_##SFX(mt_generator *g, T count, T prob) { /* Hoermann's BTRS */                  \
        double sd = (double)SQRT(count * prob * (1 - prob));                                       \
        double b = 1.15 + 2.53 * sd, a = -0.0873 + 0.0248 * b + 0.01 * prob;                       \
        double c = count * prob + 0.5, vr = 0.92 - 4.2 / b, r = (T)(prob / (1 - prob));            \
        double alpha = (2.83 + 5.1 / b) * sd, m = floor((count + 1) * prob);                       \
        for (;;) {                                                                                 \
            double u = u64(g) - 0.5, v = u64(g), us = 0.5 - fabs(u);                               \
            T k = (T)floor((2 * a / us + b) * u + c);                                              \
            if (k < 0 || k > count) continue;                                                      \
            if (us >= 0.07 && v <= vr) return k;                                                   \
            v = log(v * alpha / (a / (us * us) + b));                                              \
            double bound = (m + 0.5) * log((m + 1) / (r * (count - m + 1))) +                      \
                           (count + 1) * log((count - m + 1) / (count - k + 1)) +                  \
                           (k + 0.5) * log(r * (count - k + 1) / (k + 1)) + stirling_tail(m) +     \
                           stirling_tail(count - m) - stirling_tail(k) -                           \
                           stirling_tail((double)(count - k));                                     \
            if (v <= bound) return k;                                                              \
        }                                                                                          \
    }                                                                                              \
    static T binomial_##SFX(mt_generator *g, T count, T prob) {                                    \
        if (count <= 0.0 || prob <= 0.0) return 0;                                                 \
        if (prob >= 1.0) return count;                                                             \
        if (count != count) return count; /* NaN: the samplers' loops would never end */           \
        if (prob <= 0.5)                                                                           \
            return count * prob >= 10.0 ? btrs_##SFX(g, count, prob)                               \
                                        : inversion_##SFX(g, count, prob);                         \
        if (prob > 0.5) {                                                                          \
            T q = (T)(1.0 - prob);                                                                 \
            return count -                                                                         \
                   (count * q >= 10.0 ? btrs_##SFX(g, count, q) : inversion_##SFX(g, count, q));   \
        }                                                                                          \
        return (T)NAN;                                                                             \
    }
BINOMIAL_FNS(float, f32, sqrtf, log1pf)
BINOMIAL_FNS(double, f64, sqrt, log1p)

/* poisson(rate) and binomial(count, prob): the result is new and contiguous; the inputs are
 * read broadcast to it, in its (row-major) order */
static mt_tensor *broadcast_contiguous(mt_tensor *t, const mt_tensor *out) {
    mt_tensor *e = mto_expand(t, (mt_ilist){out->sizes, out->ndim}, false);
    mt_tensor *c = e ? mto_contiguous(e, NULL) : NULL;
    mt_tensor_decref(e);
    return c;
}

static int k_poisson_binomial(mt_call *call, mt_value *a, mt_value *r) {
    mt_tensor *out = r[0].t;
    bool binomial = call->op->id == MT_OP_binomial;
    if (out->numel == 0) return 0;
    mt_tensor *x = broadcast_contiguous(a[0].t, out);
    mt_tensor *p = x && binomial ? broadcast_contiguous(a[1].t, out) : NULL;
    if (!x || (binomial && !p)) {
        mt_tensor_decref(x);
        return -1;
    }
    mt_generator *g = lock_generator(binomial ? a[2] : a[1], out);
    int st = -1;
    if (g) {
        bool f32 = out->dtype == MT_FLOAT32;
        const char *xd = mt_tensor_data(x), *pd = p ? mt_tensor_data(p) : NULL;
        char *od = mt_tensor_data(out);
        st = 0;
        for (int64_t i = 0; i < out->numel; i++) {
            if (!binomial) {
                double lambda = f32 ? ((const float *)xd)[i] : ((const double *)xd)[i];
                if (!(lambda >= 0)) {
                    st = mt_error(MT_ERR_RUNTIME,
                                  "invalid Poisson rate, expected rate to be non-negative");
                    break;
                }
                int64_t k = poisson_sample(g, lambda);
                if (f32)
                    ((float *)od)[i] = (float)k;
                else
                    ((double *)od)[i] = (double)k;
            } else if (f32) {
                ((float *)od)[i] = binomial_f32(g, ((const float *)xd)[i], ((const float *)pd)[i]);
            } else {
                ((double *)od)[i] =
                    binomial_f64(g, ((const double *)xd)[i], ((const double *)pd)[i]);
            }
        }
        unlock(g);
    }
    mt_tensor_decref(x);
    mt_tensor_decref(p);
    return st;
}

/* ---- random_ (section 5) --------------------------------------------------------------------- */

static void store_int(char *p, mt_dtype dt, int64_t v) {
    switch (dt) {
    case MT_FLOAT32:
        *(float *)p = (float)v;
        break; /* one rounding, as static_cast<float> */
    case MT_FLOAT64:
        *(double *)p = (double)v;
        break;
    case MT_FLOAT16:
        *(uint16_t *)p = mt_f32_to_f16((float)v);
        break;
    case MT_BFLOAT16:
        *(uint16_t *)p = mt_f32_to_bf16((float)v);
        break;
    default:
        mt_store_int64(p, dt, v);
        break;
    }
}

static void random_from_to_elem(char *p, const char *q, void *vctx) {
    MT_UNUSED(q);
    draw_ctx *c = vctx;
    uint64_t v = c->wide ? mt_gen_random64(c->g) : mt_gen_random(c->g);
    store_int(p, c->dt, (int64_t)((v % c->range) + (uint64_t)c->from));
}

/* the full 64-bit range: random64() as it is */
static void random_full_elem(char *p, const char *q, void *vctx) {
    MT_UNUSED(q);
    draw_ctx *c = vctx;
    store_int(p, c->dt, (int64_t)mt_gen_random64(c->g));
}

/* random_() without bounds: the dtype's non-negative integers */
static void random_default_elem(char *p, const char *q, void *vctx) {
    MT_UNUSED(q);
    draw_ctx *c = vctx;
    mt_dtype dt = c->dt;
    if (dt == MT_BOOL) {
        *(uint8_t *)p = mt_gen_random(c->g) & 1;
        return;
    }
    bool wide = dt == MT_INT64 || dt == MT_FLOAT64;
    uint64_t v = wide ? mt_gen_random64(c->g) : mt_gen_random(c->g);
    int64_t lo, hi;
    mt_random_dtype_range(dt, &lo, &hi);
    store_int(p, dt,
              (int64_t)(v % ((uint64_t)hi + 1))); /* floats: [0, 2^digits]; integers: [0, max] */
}

static int k_random_(mt_call *call, mt_value *a, mt_value *r) {
    MT_UNUSED(r);
    mt_tensor *self = a[0].t;
    int id = call->op->id;
    draw_ctx c = {.dt = (mt_dtype)self->dtype};
    mt_value gen = id == MT_OP_random__from ? a[3] : id == MT_OP_random__to ? a[2] : a[1];
    mt_random_range rr;
    if (mt_random_plan(id, a, c.dt, &rr)) return -1;
    elem_fn fn = id == MT_OP_random_ ? random_default_elem
                 : rr.full           ? random_full_elem
                                     : random_from_to_elem;
    c.from = rr.from;
    c.range = rr.range;
    bool wide_type =
        c.dt == MT_INT64 || c.dt == MT_FLOAT64 || c.dt == MT_FLOAT32 || c.dt == MT_BFLOAT16;
    c.wide = wide_type && c.range >= (1ULL << 32);
    if (self->numel == 0) return 0;
    if (!(c.g = lock_generator(gen, self))) return -1;
    visit(self, NULL, fn, &c);
    return unlock(c.g);
}

/* ---- bernoulli_ (section 7) ------------------------------------------------------------------ */

static void bernoulli_scalar_elem(char *p, const char *q, void *vctx) {
    MT_UNUSED(q);
    draw_ctx *c = vctx;
    mt_store_int64(p, c->dt, u64(c->g) < c->a);
}

/* bernoulli_(p) over a dense float tensor (dropout's noise): the same draws as the element
 * visit (two 32-bit draws per element, a 53-bit uniform below p), taken in blocks and stored
 * without the per-element dtype switch (the visit was a fifth of a Transformer layer's step) */
static void bernoulli_scalar_dense(mt_tensor *self, mt_generator *g, double p) {
    enum { BLOCK = 512 };
    uint32_t r[2 * BLOCK];
    char *base = mt_tensor_data(self);
    for (int64_t i0 = 0; i0 < self->numel; i0 += BLOCK) {
        int64_t n = self->numel - i0 < BLOCK ? self->numel - i0 : BLOCK;
        mt_gen_random_n(g, r, 2 * n);
        for (int64_t i = 0; i < n; i++) {
            uint64_t bits = ((uint64_t)r[2 * i] << 32 | r[2 * i + 1]) & ((1ULL << 53) - 1);
            bool one = (double)bits * 0x1p-53 < p;
            if (self->dtype == MT_FLOAT32)
                ((float *)base)[i0 + i] = one;
            else
                ((double *)base)[i0 + i] = one;
        }
    }
}

static void bernoulli_tensor_elem(char *p, const char *q, void *vctx) {
    draw_ctx *c = vctx;
    double pv = mt_load_double(q, c->pdt);
    if (!(pv >= 0 && pv <= 1)) c->bad = true;
    bool one = c->pdt == MT_FLOAT64 ? u64(c->g) < pv : u32(c->g) < (float)pv;
    mt_store_int64(p, c->dt, one);
}

static int k_bernoulli_(mt_call *call, mt_value *a, mt_value *r) {
    MT_UNUSED(r);
    mt_tensor *self = a[0].t;
    draw_ctx c = {.dt = (mt_dtype)self->dtype};
    bool tensor_p = call->op->id == MT_OP_bernoulli__Tensor;
    if (self->numel == 0) return 0;
    mt_tensor *p = NULL;
    if (tensor_p) { /* p's values are checked first, so a bad p leaves self as it was */
        p = a[1].t;
        c.pdt = (mt_dtype)p->dtype;
        mt_tensor *lo = mto_lt_Scalar(p, mt_vint(0)),
                  *hi = lo ? mto_gt_Scalar(p, mt_vint(1)) : NULL;
        mt_tensor *nan = hi ? mto_isnan(p) : NULL, *x = nan ? mto_logical_or(lo, hi) : NULL;
        mt_tensor *y = x ? mto_logical_or(x, nan) : NULL, *any = y ? mto_any(y) : NULL;
        bool bad = any && *(uint8_t *)mt_tensor_data(any);
        mt_tensor_decref(lo);
        mt_tensor_decref(hi);
        mt_tensor_decref(nan);
        mt_tensor_decref(x);
        mt_tensor_decref(y);
        if (!any) return -1;
        mt_tensor_decref(any);
        if (bad)
            return mt_error(
                MT_ERR_RUNTIME,
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this "
                "error message be improved?  If so, please report an enhancement request "
                "to PyTorch.)");
    } else {
        c.a = a[1].d;
    }
    if (!(c.g = lock_generator(a[2], self))) return -1;
    if (!tensor_p && mt_tensor_is_contiguous(self) &&
        (self->dtype == MT_FLOAT32 || self->dtype == MT_FLOAT64))
        bernoulli_scalar_dense(self, c.g, c.a);
    else
        visit(self, p, tensor_p ? bernoulli_tensor_elem : bernoulli_scalar_elem, &c);
    return unlock(c.g);
}

/* ---- randperm (section 6) -------------------------------------------------------------------- */

static int k_randperm(mt_call *call, mt_value *a, mt_value *r) {
    MT_UNUSED(call);
    mt_tensor *out = r[0].t;
    int64_t n = a[0].i;
    mt_dtype dt = (mt_dtype)out->dtype;
    size_t isz = mt_dtype_size(dt);
    if (n == 0) return 0;
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)n);
    if (!perm) return mt_error(MT_ERR_MEMORY, "out of memory in randperm");
    mt_generator *g = lock_generator(a[1], out);
    if (!g) {
        free(perm);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    for (int64_t i = 0; i < n - 1; i++) {
        int64_t z = (int64_t)(mt_gen_random(g) % (uint64_t)(n - i));
        int64_t t = perm[i];
        perm[i] = perm[i + z];
        perm[i + z] = t;
    }
    unlock(g);
    char *base = mt_tensor_data(out);
    for (int64_t i = 0; i < n; i++)
        store_int(base + i * out->strides[0] * (int64_t)isz, dt, perm[i]);
    free(perm);
    return 0;
}

/* ---- multinomial (section 9) ----------------------------------------------------------------- */

/* without replacement: p / q with q ~ Exp(1), then argmax or topk per row */
static mt_tensor *gumbel_scores(mt_tensor *probs, mt_generator *g) {
    mt_tensor *q = mto_empty_like(probs, -1, MT_NO_DEVICE, false,
                                  NULL); /* probs' layout, filled in memory order */
    if (!q) return NULL;
    draw_ctx c = {.g = g, .dt = (mt_dtype)q->dtype, .a = 1.0};
    visit(q, NULL, exponential_elem, &c);
    mt_tensor *w = mto_div_Tensor(probs, q);
    mt_tensor_decref(q);
    return w;
}

static int multinomial_checks(mt_tensor *self) {
    mt_tensor *bad = mto_isfinite(self), *fin = bad ? mto_all(bad) : NULL;
    mt_tensor *neg = fin ? mto_lt_Scalar(self, mt_vint(0)) : NULL,
              *anyneg = neg ? mto_any(neg) : NULL;
    int st = anyneg ? 0 : -1;
    if (!st && (!*(uint8_t *)mt_tensor_data(fin) || *(uint8_t *)mt_tensor_data(anyneg)))
        st = mt_error(MT_ERR_RUNTIME,
                      "probability tensor contains either `inf`, `nan` or element < 0");
    mt_tensor *sums =
        !st ? mto_sum_dim_IntList(self, (mt_ilist){(int64_t[]){-1}, 1}, false, -1) : NULL;
    mt_tensor *zero = sums ? mto_eq_Scalar(sums, mt_vint(0)) : NULL,
              *anyzero = zero ? mto_any(zero) : NULL;
    if (!st && !anyzero) st = -1;
    if (!st && *(uint8_t *)mt_tensor_data(anyzero))
        st = mt_error(MT_ERR_RUNTIME,
                      "invalid multinomial distribution (sum of probabilities <= 0)");
    mt_tensor_decref(bad);
    mt_tensor_decref(fin);
    mt_tensor_decref(neg);
    mt_tensor_decref(anyneg);
    mt_tensor_decref(sums);
    mt_tensor_decref(zero);
    mt_tensor_decref(anyzero);
    return st;
}

/* with replacement: binary search in each row's normalised running sums */
static int with_replacement(mt_tensor *self, mt_tensor *out, mt_generator *g) {
    int64_t rows = self->ndim == 2 ? self->sizes[0] : 1, ncat = self->sizes[self->ndim - 1];
    int64_t k = out->sizes[out->ndim - 1];
    mt_dtype dt = (mt_dtype)self->dtype;
    bool as_float = dt != MT_FLOAT64; /* bf16 accumulates in float; float32 is float */
    double *cum = malloc(sizeof(double) * (size_t)(ncat ? ncat : 1));
    if (!cum) return mt_error(MT_ERR_MEMORY, "out of memory in multinomial");
    size_t isz = mt_dtype_size(dt);
    int64_t rs = self->ndim == 2 ? self->strides[0] : 0, cs = self->strides[self->ndim - 1];
    int64_t ors = out->ndim == 2 ? out->strides[0] : 0, ocs = out->strides[out->ndim - 1];
    const char *base = mt_tensor_data(self);
    int64_t *obase = mt_tensor_data(out);
    int st = 0;
    for (int64_t i = 0; i < rows && st == 0; i++) {
        double sum = 0;
        float fsum = 0;
        for (int64_t j = 0; j < ncat; j++) {
            double v = mt_load_double(base + (i * rs + j * cs) * (int64_t)isz, dt);
            if (!(v >= 0)) { /* NaN too, as PyTorch's first check */
                st = mt_error(
                    MT_ERR_RUNTIME,
                    "invalid multinomial distribution (encountering probability entry < 0)");
                break;
            }
            if (isinf(v)) {
                st = mt_error(MT_ERR_RUNTIME, "invalid multinomial distribution (encountering "
                                              "probability entry = infinity or NaN)");
                break;
            }
            if (as_float) {
                fsum += (float)v;
                cum[j] = fsum;
            } else {
                sum += v;
                cum[j] = sum;
            }
        }
        if (st) break;
        if (as_float) sum = fsum;
        if (!(sum > 0)) {
            st = mt_error(MT_ERR_RUNTIME,
                          "invalid multinomial distribution (sum of probabilities <= 0)");
            break;
        }
        for (int64_t j = 0; j < ncat; j++)
            cum[j] = as_float ? (double)((float)cum[j] / fsum) : cum[j] / sum;
        for (int64_t s = 0; s < k; s++) {
            double u = u64(g);
            cum[ncat - 1] = 1;
            int64_t lo = 0, hi = ncat;
            while (hi - lo > 0) {
                int64_t mid = lo + (hi - lo) / 2;
                if (cum[mid] < u)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            obase[i * ors + s * ocs] = lo;
        }
    }
    free(cum);
    return st;
}

static int k_multinomial(mt_call *call, mt_value *a, mt_value *r) {
    MT_UNUSED(call);
    mt_tensor *self = a[0].t, *out = r[0].t;
    int64_t k = a[1].i;
    bool replacement = a[2].b;
    if (out->numel == 0) return 0;
    if (replacement) {
        mt_generator *g = lock_generator(a[3], self);
        if (!g) return -1;
        mt_tensor *c = mto_contiguous(self, NULL);
        int st = c ? with_replacement(c, out, g) : -1;
        mt_tensor_decref(c);
        unlock(g);
        return st;
    }
    if (multinomial_checks(self)) return -1;
    mt_generator *g = lock_generator(a[3], self);
    if (!g) return -1;
    mt_tensor *w = gumbel_scores(self, g);
    unlock(g);
    if (!w) return -1;
    mt_tensor *idx = NULL;
    if (k == 1) {
        idx = mto_argmax(w, mt_vint(-1), true);
    } else {
        mt_tensor *vals;
        if (mto_topk(w, k, -1, true, true, &vals, &idx) == 0) mt_tensor_decref(vals);
    }
    mt_tensor_decref(w);
    if (!idx) return -1;
    int st = mt_cpu_copy(out, idx);
    mt_tensor_decref(idx);
    return st;
}

void mt_cpu_random_register(void) {
    mt_disp_impl(MT_OP_uniform_, MT_KEY_CPU, k_uniform_);
    mt_disp_impl(MT_OP_normal_, MT_KEY_CPU, k_normal_);
    mt_disp_impl(MT_OP_exponential_, MT_KEY_CPU, k_exponential_);
    mt_disp_impl(MT_OP_cauchy_, MT_KEY_CPU, k_sampler_);
    mt_disp_impl(MT_OP_log_normal_, MT_KEY_CPU, k_sampler_);
    mt_disp_impl(MT_OP_geometric_, MT_KEY_CPU, k_sampler_);
    mt_disp_impl(MT_OP_poisson, MT_KEY_CPU, k_poisson_binomial);
    mt_disp_impl(MT_OP_binomial, MT_KEY_CPU, k_poisson_binomial);
    mt_disp_impl(MT_OP_random__from, MT_KEY_CPU, k_random_);
    mt_disp_impl(MT_OP_random__to, MT_KEY_CPU, k_random_);
    mt_disp_impl(MT_OP_random_, MT_KEY_CPU, k_random_);
    mt_disp_impl(MT_OP_bernoulli__Tensor, MT_KEY_CPU, k_bernoulli_);
    mt_disp_impl(MT_OP_bernoulli__float, MT_KEY_CPU, k_bernoulli_);
    mt_disp_impl(MT_OP_randperm, MT_KEY_CPU, k_randperm);
    mt_disp_impl(MT_OP_multinomial, MT_KEY_CPU, k_multinomial);
}
