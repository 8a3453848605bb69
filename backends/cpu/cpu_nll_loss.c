/* cpu_nll_loss.c: the negative log-likelihood loss and its gradient (nll_loss_forward,
 * nll_loss2d_forward and their backwards; argument checks and shapes in
 * backends/common/nll_loss.c). One kernel serves both: the input seen as (N, C, S) with S the
 * positions of a (N, C, H, W) map (1 for (N, C); a (C) input is N = 1).
 *
 * The sums are PyTorch's, step for step, so a mean or a sum equals its bit for bit: each term
 * -x * w is rounded in the input's dtype and added into the first of 8 partial sums, which move
 * up a level every 16 terms (a cascade: a long batch loses less to rounding than one running
 * sum), and the partials are added in order at the end; bfloat16 rounds after every operation
 * as c10::BFloat16's operators do. Targets arrive 0-based; a bad one is quoted as the user wrote
 * it. Serial: a loss reads one value per sample (a batch of 64 is 64 loads), and the order of a
 * sum is part of its value. */
#include "cpu_kernels.h"
#include "mt_half.h"
#include "mt_ops_gen.h"

#include <math.h>
#include <string.h>

enum { REDUCTION_NONE = 0, REDUCTION_MEAN = 1 };
enum { CASCADE_LEVELS = 8 };

typedef struct {
    int64_t N, C, S;   /* the input as (N, C, S), contiguous */
    const char *x, *w; /* log-probabilities; the class weights or NULL */
    const int64_t *t;  /* N * S targets, 0-based */
    int64_t ignore;    /* the target value that counts for nothing */
    int64_t reduction; /* REDUCTION_NONE: one loss per target */
    bool per_target;   /* reduction none over (N, C) or a map: a loss (gradient) each */
} nll_args;

static int bad_target(int64_t t, int64_t C) {
    return mt_error(MT_ERR_INDEX,
                    "Target %lld is out of bounds. (Class indices are 1-based: 1 to %lld.)",
                    mt_user_dim(t), (long long)C);
}

/* utils::CeilLog2 of PyTorch's CPU kernels: ceil(log2(x)), 1 for x <= 2 */
static int64_t ceil_log2(int64_t x) {
    return x <= 2 ? 1 : 64 - __builtin_clzll((unsigned long long)(x - 1));
}

static inline float round_bf16(float v) {
    return mt_bf16_to_f32(mt_f32_to_bf16(v));
}

/* T: the arithmetic type; R: rounding to the dtype after each operation; LD/ST: element i of a
 * raw buffer */
#define NLL_TYPED(T, SFX, R, LD, ST)                                                               \
    static int forward_##SFX(const nll_args *a, char *out, char *total) {                          \
        int64_t N = a->N, C = a->C, S = a->S, n = N * S;                                           \
        if (a->per_target) {                                                                       \
            for (int64_t i = 0; i < n; i++) {                                                      \
                int64_t t = a->t[i], b = i / S, s = i % S;                                         \
                if (t == a->ignore) {                                                              \
                    ST(out, i, (T)0);                                                              \
                    continue;                                                                      \
                }                                                                                  \
                if (t < 0 || t >= C) return bad_target(t, C);                                      \
                T w = a->w ? LD(a->w, t) : (T)1;                                                   \
                ST(out, i, R(-LD(a->x, (b * C + t) * S + s) * w));                                 \
            }                                                                                      \
            ST(total, 0, (T)0);                                                                    \
            return 0;                                                                              \
        }                                                                                          \
        if (n == 0) { /* a mean of nothing is NaN, a sum 0 */                                      \
            ST(out, 0, (T)(a->reduction == REDUCTION_MEAN ? NAN : 0));                             \
            ST(total, 0, (T)0);                                                                    \
            return 0;                                                                              \
        }                                                                                          \
        int64_t power = ceil_log2(n) / CASCADE_LEVELS;                                             \
        if (power < 4) power = 4;                                                                  \
        int64_t mask = ((int64_t)1 << power) - 1, ignored = 0;                                     \
        T loss[CASCADE_LEVELS] = {0}, weight[CASCADE_LEVELS] = {0};                                \
        for (int64_t i = 0; i < n; i++) {                                                          \
            int64_t t = a->t[i], b = i / S, s = i % S;                                             \
            if (t == a->ignore) {                                                                  \
                ignored++;                                                                         \
                continue;                                                                          \
            }                                                                                      \
            if (t < 0 || t >= C) return bad_target(t, C);                                          \
            T v = LD(a->x, (b * C + t) * S + s);                                                   \
            if (a->w) {                                                                            \
                T w = LD(a->w, t);                                                                 \
                loss[0] = R(loss[0] - R(v * w));                                                   \
                weight[0] = R(weight[0] + w);                                                      \
            } else {                                                                               \
                loss[0] = R(loss[0] - v);                                                          \
            }                                                                                      \
            for (int j = 0; j + 1 < CASCADE_LEVELS; j++) {                                         \
                if ((i & (mask << (j * power))) != 0) break;                                       \
                loss[j + 1] = R(loss[j + 1] + loss[j]);                                            \
                weight[j + 1] = R(weight[j + 1] + weight[j]);                                      \
                loss[j] = weight[j] = 0;                                                           \
            }                                                                                      \
        }                                                                                          \
        T tw = 0, sum = 0;                                                                         \
        if (!a->w)                                                                                 \
            tw = R((T)(n - ignored));                                                              \
        else                                                                                       \
            for (int j = 0; j < CASCADE_LEVELS; j++) tw = R(tw + weight[j]);                       \
        for (int j = 0; j < CASCADE_LEVELS; j++) sum = R(sum + loss[j]);                           \
        if (a->reduction == REDUCTION_MEAN) sum = R(sum / tw);                                     \
        ST(out, 0, sum);                                                                           \
        ST(total, 0, tw);                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* gi holds zeros; go: one gradient per target (per_target) or one for the loss */             \
    static int backward_##SFX(const nll_args *a, const char *go, const char *total, char *gi) {    \
        int64_t N = a->N, C = a->C, S = a->S, n = N * S;                                           \
        T g = 0;                                                                                   \
        if (!a->per_target) {                                                                      \
            T g0 = LD(go, 0);                                                                      \
            g = -(a->reduction == REDUCTION_MEAN ? R(g0 / LD(total, 0)) : g0);                     \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            int64_t t = a->t[i], b = i / S, s = i % S;                                             \
            if (t == a->ignore) continue;                                                          \
            if (t < 0 || t >= C) return bad_target(t, C);                                          \
            int64_t at = (b * C + t) * S + s;                                                      \
            if (a->per_target)                                                                     \
                ST(gi, at, R(-(a->w ? LD(a->w, t) : (T)1) * LD(go, i)));                           \
            else                                                                                   \
                ST(gi, at, a->w ? R(LD(a->w, t) * g) : g);                                         \
        }                                                                                          \
        return 0;                                                                                  \
    }

#define SAME(v) (v)
#define LD_F32(p, i) (((const float *)(p))[i])
#define ST_F32(p, i, v) (((float *)(p))[i] = (v))
#define LD_F64(p, i) (((const double *)(p))[i])
#define ST_F64(p, i, v) (((double *)(p))[i] = (v))
#define LD_BF16(p, i) mt_bf16_to_f32(((const uint16_t *)(p))[i])
#define ST_BF16(p, i, v) (((uint16_t *)(p))[i] = mt_f32_to_bf16(v))

NLL_TYPED(float, f32, SAME, LD_F32, ST_F32)
NLL_TYPED(double, f64, SAME, LD_F64, ST_F64)
NLL_TYPED(float, bf16, round_bf16, LD_BF16, ST_BF16)

/* the input as (N, C, S), and contiguous copies where the arguments are not */
typedef struct {
    nll_args a;
    mt_tensor *x, *t, *w;
} nll_view;

/* the targets as contiguous int64: uint8 ones (nll_loss_forward takes them) widened, with the
 * binding's mark of a user's 0 turned into the int64 one, so the kernels quote a 0 as the user
 * wrote it */
static mt_tensor *targets_int64(mt_tensor *target) {
    mt_tensor *t = mto_contiguous(target, NULL);
    if (!t || t->dtype != MT_UINT8) return t;
    mt_tensor *wide = mt_tensor_empty(t->ndim, t->sizes, MT_INT64, MT_CPU);
    if (wide) {
        const uint8_t *src = (const uint8_t *)mt_tensor_raw(t);
        int64_t *dst = (int64_t *)mt_tensor_raw(wide);
        for (int64_t i = 0; i < t->numel; i++)
            dst[i] = src[i] == MT_ZERO_SENTINEL_U8 ? MT_ZERO_SENTINEL : src[i];
    }
    mt_tensor_decref(t);
    return wide;
}

static int view_of(nll_view *v, mt_tensor *self, mt_tensor *target, mt_tensor *weight,
                   int64_t reduction, int64_t ignore, bool spatial) {
    memset(v, 0, sizeof *v);
    if (!(v->x = mto_contiguous(self, NULL)) || !(v->t = targets_int64(target)) ||
        (weight && !(v->w = mto_contiguous(weight, NULL))))
        return -1;
    int64_t N = self->ndim == 1 ? 1 : self->sizes[0], C = self->sizes[self->ndim == 1 ? 0 : 1];
    v->a = (nll_args){.N = N,
                      .C = C,
                      .S = spatial ? self->sizes[2] * self->sizes[3] : 1,
                      .x = mt_tensor_raw(v->x),
                      .w = v->w ? mt_tensor_raw(v->w) : NULL,
                      .t = (const int64_t *)mt_tensor_raw(v->t),
                      .ignore = ignore,
                      .reduction = reduction,
                      .per_target = reduction == REDUCTION_NONE && (spatial || self->ndim == 2)};
    if (self->ndim == 1) v->a.N = target->numel; /* (C) with a 0-d or one-entry target */
    return 0;
}

static void view_release(nll_view *v) {
    mt_tensor_decref(v->x);
    mt_tensor_decref(v->t);
    mt_tensor_decref(v->w);
}

/* (self, target, weight, reduction, ignore_index) -> (output, total_weight) */
static int forward_impl(mt_call *c, mt_value *a, mt_value *r) {
    bool spatial = c->op->id == MT_OP_nll_loss2d_forward;
    nll_view v;
    int st = view_of(&v, a[0].t, a[1].t, mt_vopt_tensor(a[2]), a[3].i, a[4].i, spatial);
    if (!st) {
        char *out = mt_tensor_raw(r[0].t), *total = mt_tensor_raw(r[1].t);
        switch (a[0].t->dtype) {
        case MT_FLOAT32:
            st = forward_f32(&v.a, out, total);
            break;
        case MT_FLOAT64:
            st = forward_f64(&v.a, out, total);
            break;
        default:
            st = forward_bf16(&v.a, out, total);
        }
    }
    view_release(&v);
    return st;
}

/* (grad_output, self, target, weight, reduction, ignore_index, total_weight) -> grad_input */
static int backward_impl(mt_call *c, mt_value *a, mt_value *r) {
    bool spatial = c->op->id == MT_OP_nll_loss2d_backward;
    mt_tensor *gi = r[0].t;
    memset(mt_tensor_raw(gi), 0, (size_t)gi->numel * mt_dtype_size((mt_dtype)gi->dtype));
    nll_view v;
    mt_tensor *go = NULL, *tw = NULL;
    int st = view_of(&v, a[1].t, a[2].t, mt_vopt_tensor(a[3]), a[4].i, a[5].i, spatial);
    if (!st && (!(go = mto_contiguous(a[0].t, NULL)) || !(tw = mto_contiguous(a[6].t, NULL))))
        st = -1;
    if (!st) {
        const char *g = mt_tensor_raw(go), *total = mt_tensor_raw(tw);
        switch (gi->dtype) {
        case MT_FLOAT32:
            st = backward_f32(&v.a, g, total, mt_tensor_raw(gi));
            break;
        case MT_FLOAT64:
            st = backward_f64(&v.a, g, total, mt_tensor_raw(gi));
            break;
        default:
            st = backward_bf16(&v.a, g, total, mt_tensor_raw(gi));
        }
    }
    mt_tensor_decref(go);
    mt_tensor_decref(tw);
    view_release(&v);
    return st;
}

void mt_cpu_nll_loss_register(void) {
    mt_disp_impl(MT_OP_nll_loss_forward, MT_KEY_CPU, forward_impl);
    mt_disp_impl(MT_OP_nll_loss2d_forward, MT_KEY_CPU, forward_impl);
    mt_disp_impl(MT_OP_nll_loss_backward, MT_KEY_CPU, backward_impl);
    mt_disp_impl(MT_OP_nll_loss2d_backward, MT_KEY_CPU, backward_impl);
}
