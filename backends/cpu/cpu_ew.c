/* cpu_ew.c: the CPU element-wise kernel: it prepares the operands of any element-wise op and
 * runs the op's loop (cpu_ew_families.c) over them, with the AVX2 build of the loops when the
 * CPU has AVX2 and FMA. */
#include "cpu_ew_families.h"
#include "cpu_ew_loops.h"
#include "cpu_kernels.h"
#include "elementwise.h"
#include "mt_ops_gen.h"
#include "mt_parallel.h"
#include "shape.h"

#include <string.h>

static const mt_loop_fn *(*loop_table)(int fam) = mt_cpu_ew_loops_base;
static bool exp_avx512;    /* float32 exp on cpu_exp_avx512.c's loop */
static bool stream_avx512; /* large float32 results of cpu_ew_stream_avx512.c's families */

/* ---- the generic kernel ---------------------------------------------------------------------- */

/* An operand in the compute dtype: the tensor itself, a converted copy, or a 0-d tensor
 * holding a scalar. Returns a new reference (or NULL with the error set). */
static mt_tensor *operand(mt_value v, mt_dtype ct) {
    if (v.tag == MT_V_TENSOR) {
        mt_tensor *t = v.t;
        if (t->dtype == ct) {
            mt_tensor_incref(t);
            return t;
        }
        mt_tensor *c = mt_tensor_empty(t->ndim, t->sizes, ct, MT_CPU);
        if (!c) return NULL;
        mt_cpu_copy(c, t);
        return c;
    }
    mt_tensor *s = mt_tensor_empty(0, NULL, ct, MT_CPU);
    if (!s) return NULL;
    if (v.tag == MT_V_DOUBLE)
        mt_store_double(mt_tensor_raw(s), ct, v.d);
    else
        mt_store_int64(mt_tensor_raw(s), ct, mt_scalar_int(v));
    return s;
}

static void set_param(ew_ctx *ctx, int k, mt_value v) {
    ctx->has[k] = v.tag != MT_V_NONE;
    if (v.tag == MT_V_DOUBLE) {
        ctx->d[k] = v.d;
        ctx->i[k] = mt_d2i(v.d);
    } else if (v.tag == MT_V_NONE || v.tag == MT_V_STR) {
        ctx->d[k] = 0;
        ctx->i[k] = 0;
    } else {
        ctx->i[k] = mt_scalar_int(v);
        ctx->d[k] = (double)ctx->i[k];
    }
}

/* The common case without the iterator: the result and every tensor input contiguous, of the
 * same shape, already in the compute dtype; a scalar input is read with stride 0 from a local
 * copy in that dtype. One call of the loop over all elements when it is small enough to stay
 * on this thread. Returns whether it ran. */
static bool run_direct(const mt_ew_desc *d, mt_value *args, int nin, mt_dtype ct, mt_tensor *out,
                       mt_loop_fn fn, ew_ctx *ctx) {
    if (out->numel >= MT_GRAIN_SIZE || !mt_tensor_is_contiguous(out) || d->family == MT_F_WHERE)
        return false;
    char *dp[1 + MT_EW_MAX_IN];
    int64_t st[1 + MT_EW_MAX_IN];
    uint64_t scalars[MT_EW_MAX_IN];
    dp[0] = mt_tensor_raw(out);
    st[0] = (int64_t)mt_dtype_size((mt_dtype)out->dtype);
    for (int i = 0; i < nin; i++) {
        mt_value v = args[i];
        if (v.tag == MT_V_TENSOR) {
            mt_tensor *t = v.t;
            if (t->dtype != ct || t->numel != out->numel || !mt_tensor_is_contiguous(t))
                return false;
            if (t->ndim != out->ndim ||
                memcmp(t->sizes, out->sizes, sizeof(int64_t) * (size_t)out->ndim) != 0)
                return false;
            dp[1 + i] = mt_tensor_raw(t);
            st[1 + i] = (int64_t)mt_dtype_size(ct);
        } else {
            if (v.tag == MT_V_DOUBLE)
                mt_store_double(&scalars[i], ct, v.d);
            else
                mt_store_int64(&scalars[i], ct, mt_scalar_int(v));
            dp[1 + i] = (char *)&scalars[i];
            st[1 + i] = 0;
        }
    }
    fn(dp, st, out->numel, ctx);
    return true;
}

/* Which loop computes a call: the op's family, refined by its arguments. */
static int pick_family(const mt_ew_desc *d, mt_value *args, const mt_ew_types *ty, int *nin) {
    int fam = d->family;
    if (d->check == MT_EWC_DIVMODE) {
        mt_value m = args[d->params[0]];
        fam = m.tag == MT_V_NONE          ? MT_F_DIV
              : strcmp(m.s, "trunc") == 0 ? MT_CPU_EW_DIV_TRUNC
                                          : MT_F_DIV_FLOOR;
    }
    if (fam == MT_F_LERP && args[2].tag != MT_V_TENSOR) fam = MT_CPU_EW_LERP_SCALAR;
    if (fam == MT_F_ADD || fam == MT_F_SUB || fam == MT_F_RSUB) {
        mt_value alpha = args[d->params[0]];
        if (mt_scalar_double(alpha) != 1.0)
            fam = fam == MT_F_ADD   ? MT_CPU_EW_ADD_ALPHA
                  : fam == MT_F_SUB ? MT_CPU_EW_SUB_ALPHA
                                    : MT_CPU_EW_RSUB_ALPHA;
    }
    if (fam == MT_F_POW && mt_dtype_is_floating(ty->compute) && args[1].tag != MT_V_TENSOR &&
        args[0].tag == MT_V_TENSOR) {
        double e = mt_scalar_double(args[1]);
        *nin = 1;
        if (e == 2.0) return MT_CPU_EW_POW_SQUARE;
        if (e == 3.0) return MT_CPU_EW_POW_CUBE;
        if (e == -2.0) return MT_CPU_EW_POW_INV_SQUARE;
        if (e == 0.5) return MT_F_SQRT;
        if (e == -0.5) return MT_F_RSQRT;
        if (e == -1.0) return MT_F_RECIPROCAL;
        *nin = 2;
    }
    return fam;
}

int mt_cpu_ew_impl(mt_call *c, mt_value *args, mt_value *rets) {
    const mt_ew_desc *d = mt_ew_desc_of(c->op->id);
    mt_ew_types ty;
    if (mt_ew_types_of(c, d, args, &ty)) return -1;
    mt_tensor *out = rets[0].t;
    if (out->numel == 0) return 0;
    int nin = d->nin;
    int fam = pick_family(d, args, &ty, &nin);
    const mt_loop_fn *tbl = loop_table(fam);
    mt_loop_fn fn = tbl ? tbl[ty.compute] : NULL;
    if (fam == MT_F_EXP && ty.compute == MT_FLOAT32 && exp_avx512) fn = mt_cpu_exp_f32_avx512;
    if (!fn)
        return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", d->kname,
                        mt_dtype_scalar_name(ty.compute));
    ew_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    for (int k = 0; k < MT_EW_MAX_PARAMS; k++)
        if (d->params[k] >= 0) set_param(&ctx, k, args[d->params[k]]);
    if (fam == MT_F_GELU) ctx.mode = strcmp(args[1].s, "tanh") == 0;
    /* operands: the result (in the dtype the loop writes), then the inputs in the compute dtype */
    bool bool_out = d->rule == MT_EW_BOOL;
    mt_dtype loop_out = bool_out ? MT_BOOL : ty.compute;
    if (out->dtype == loop_out && run_direct(d, args, nin, ty.compute, out, fn, &ctx)) {
        if (atomic_load(&ctx.zerodiv)) return mt_error(MT_ERR_RUNTIME, "ZeroDivisionError");
        return 0;
    }
    mt_tensor *ops[1 + MT_EW_MAX_IN] = {0};
    int nops = 1, status = -1;
    ops[0] = out;
    if (out->dtype != loop_out) { /* in place into another dtype: compute, then convert */
        ops[0] = mt_tensor_empty(out->ndim, out->sizes, loop_out, MT_CPU);
        if (!ops[0]) return -1;
    }
    for (int i = 0; i < nin; i++) {
        mt_dtype want =
            (d->family == MT_F_WHERE && i == 0) ? (mt_dtype)args[0].t->dtype : ty.compute;
        if (!(ops[nops] = operand(args[i], want))) goto done;
        nops++;
    }
    mt_iter it;
    mt_iter_init(&it, nops, ops, out->ndim, out->sizes);
    mt_tile_fn tile = NULL;
    if (ops[0] == out && ty.compute == MT_FLOAT32 && stream_avx512) {
        mt_loop_fn streaming = mt_cpu_ew_stream_f32(fam);
        /* not in place, nor into a view of an input: a streaming loop must not find its inputs
         * changed under it */
        bool apart = true;
        for (int i = 1; i < nops; i++) apart = apart && !mt_tensors_overlap(out, ops[i]);
        if (streaming && apart && mt_iter_output_streamable(&it)) fn = streaming;
        if (apart && mt_iter_tiles_streamable(&it)) tile = mt_cpu_ew_stream_tile_f32(fam, &it);
    }
    if (tile)
        mt_iter_run_tiles(&it, tile, &ctx);
    else
        mt_iter_run(&it, fn, &ctx);
    if (atomic_load(&ctx.zerodiv)) {
        mt_error(MT_ERR_RUNTIME, "ZeroDivisionError");
        goto done;
    }
    if (ops[0] != out) mt_cpu_copy(out, ops[0]);
    status = 0;
done:
    for (int i = 1; i < nops; i++) mt_tensor_decref(ops[i]);
    if (ops[0] != out) mt_tensor_decref(ops[0]);
    return status;
}

void mt_cpu_ew_register(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        loop_table = mt_cpu_ew_loops_avx2;
    exp_avx512 = __builtin_cpu_supports("avx512f");
    stream_avx512 = exp_avx512;
    for (int op = 0; op < MT_NUM_OPS; op++)
        if (mt_ew_desc_of(op)) mt_disp_impl_any_layout_out(op, MT_KEY_CPU, mt_cpu_ew_impl);
}
