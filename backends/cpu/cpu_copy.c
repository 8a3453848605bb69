/* cpu_copy.c: CPU copy (with dtype conversion) and fill kernels. */
#include "cpu_kernels.h"
#include "cpu_stream.h"
#include "cpu_types.h"
#include "mt_parallel.h"
#include "shape.h"

#include <string.h>

/* ---- conversion loops: one per (destination, source) dtype pair --------------------------- */

/* Floating -> integer dtypes no wider than int32 convert through int64 (mt_d2i), which does not
 * vectorise; where a block's values all lie in int32's range the int32 conversion gives the same
 * bits, and does. F2I_<dst> / FSRC_<src> pick the pairs (a constant condition per loop). */
enum { F2I_b8 = 0, F2I_u8 = 1, F2I_i8 = 1, F2I_i16 = 1, F2I_i32 = 1, F2I_i64 = 0, F2I_f16 = 0 };
enum { F2I_bf16 = 0, F2I_f32 = 0, F2I_f64 = 0 };
enum { FSRC_b8 = 0, FSRC_u8 = 0, FSRC_i8 = 0, FSRC_i16 = 0, FSRC_i32 = 0, FSRC_i64 = 0 };
enum { FSRC_f16 = 0, FSRC_bf16 = 0, FSRC_f32 = 1, FSRC_f64 = 1 };
#define F2I_BLOCK 512

#define CONV_FN(DT, DN, ST, SN, SK)                                                                \
    static void conv_##DN##_##SN(char **data, const int64_t *st, int64_t n, void *ctx) {           \
        (void)ctx;                                                                                 \
        char *d = data[0];                                                                         \
        const char *s = data[1];                                                                   \
        if (st[0] == (int64_t)sizeof(DT) && st[1] == (int64_t)sizeof(ST)) {                        \
            DT *dp = (DT *)d;                                                                      \
            const ST *sp = (const ST *)s;                                                          \
            if (F2I_##DN && FSRC_##SN) {                                                           \
                for (int64_t i0 = 0; i0 < n; i0 += F2I_BLOCK) {                                    \
                    int64_t m = n - i0 < F2I_BLOCK ? n - i0 : F2I_BLOCK;                           \
                    int ok = 1;                                                                    \
                    for (int64_t i = 0; i < m; i++)                                                \
                        ok &= (sp[i0 + i] >= (ST)-2147483648.0) & (sp[i0 + i] < (ST)2147483648.0); \
                    if (ok)                                                                        \
                        for (int64_t i = 0; i < m; i++) dp[i0 + i] = (DT)(int32_t)sp[i0 + i];      \
                    else                                                                           \
                        for (int64_t i = 0; i < m; i++)                                            \
                            dp[i0 + i] = MT_STORE_##SK##_##DN(MT_LOAD_##SN(sp[i0 + i]));           \
                }                                                                                  \
                return;                                                                            \
            }                                                                                      \
            for (int64_t i = 0; i < n; i++) dp[i] = MT_STORE_##SK##_##DN(MT_LOAD_##SN(sp[i]));     \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                *(DT *)(d + i * st[0]) =                                                           \
                    MT_STORE_##SK##_##DN(MT_LOAD_##SN(*(const ST *)(s + i * st[1])));              \
        }                                                                                          \
    }

#define CONV_FOR_DST(DE, DT, DN, DK)                                                               \
    CONV_FN(DT, DN, uint8_t, b8, I)                                                                \
    CONV_FN(DT, DN, uint8_t, u8, I)                                                                \
    CONV_FN(DT, DN, int8_t, i8, I)                                                                 \
    CONV_FN(DT, DN, int16_t, i16, I)                                                               \
    CONV_FN(DT, DN, int32_t, i32, I)                                                               \
    CONV_FN(DT, DN, int64_t, i64, I)                                                               \
    CONV_FN(DT, DN, uint16_t, f16, F)                                                              \
    CONV_FN(DT, DN, uint16_t, bf16, F)                                                             \
    CONV_FN(DT, DN, float, f32, F)                                                                 \
    CONV_FN(DT, DN, double, f64, F)
MT_FOR_ALL_DTYPES(CONV_FOR_DST)

#define CONV_ROW(DE, DT, DN, DK)                                                                   \
    {conv_##DN##_b8,  conv_##DN##_u8,  conv_##DN##_i8,   conv_##DN##_i16, conv_##DN##_i32,         \
     conv_##DN##_i64, conv_##DN##_f16, conv_##DN##_bf16, conv_##DN##_f32, conv_##DN##_f64},
static const mt_loop_fn conv_table[MT_NUM_DTYPES][MT_NUM_DTYPES] = {MT_FOR_ALL_DTYPES(CONV_ROW)};

/* ---- same-dtype copies move bytes ------------------------------------------------------------ */

#define MOVE_FN(T, NAME)                                                                           \
    static void NAME(char **data, const int64_t *st, int64_t n, void *ctx) {                       \
        (void)ctx;                                                                                 \
        if (st[0] == (int64_t)sizeof(T) && st[1] == (int64_t)sizeof(T)) {                          \
            memmove(data[0], data[1], (size_t)n * sizeof(T));                                      \
            return;                                                                                \
        }                                                                                          \
        char *d = data[0];                                                                         \
        const char *s = data[1];                                                                   \
        for (int64_t i = 0; i < n; i++) *(T *)(d + i * st[0]) = *(const T *)(s + i * st[1]);       \
    }
MOVE_FN(uint8_t, move1)
MOVE_FN(uint16_t, move2)
MOVE_FN(uint32_t, move4)
MOVE_FN(uint64_t, move8)

static mt_loop_fn move_fn(size_t itemsize) {
    switch (itemsize) {
    case 1:
        return move1;
    case 2:
        return move2;
    case 4:
        return move4;
    default:
        return move8;
    }
}

/* a contiguous block copy, in slices on the pool's threads */
typedef struct {
    char *d;
    const char *s;
    bool stream; /* large: streaming stores (cpu_stream.h) */
} block_copy;

#define COPY_SLICE ((int64_t)64 << 10) /* bytes per unit of work */

static void copy_part(void *ctx, int64_t b, int64_t e) {
    block_copy *c = ctx;
    char *d = c->d + b * COPY_SLICE;
    const char *s = c->s + b * COPY_SLICE;
    size_t n = (size_t)((e - b) * COPY_SLICE);
    if (c->stream) {
        mt_stream_store(d, s, n);
        mt_stream_fence();
    } else {
        memcpy(d, s, n);
    }
}

/* n bytes from s to d: one memmove when they overlap or are few, else slices in parallel (one
 * thread alone does not reach the memory's bandwidth) */
static void copy_bytes(char *d, const char *s, size_t n) {
    int64_t slices = (int64_t)(n / COPY_SLICE);
    int nt = mt_threads_for((int64_t)n / 4);
    if (nt <= 1 || slices < 2 || (d < s + n && s < d + n)) {
        memmove(d, s, n);
        return;
    }
    block_copy c = {d, s, mt_stream_wanted(n)};
    mt_parallel_range(slices, nt, copy_part, &c);
    size_t done = (size_t)slices * COPY_SLICE;
    memcpy(d + done, s + done, n - done);
}

int mt_cpu_copy(mt_tensor *dst, mt_tensor *src) {
    if (dst->numel == 0) return 0;
    mt_dtype dt = (mt_dtype)dst->dtype, st = (mt_dtype)src->dtype;
    if (dt == st && dst->numel == src->numel && mt_tensor_is_contiguous(dst) &&
        mt_tensor_is_contiguous(src) && dst->ndim == src->ndim) {
        copy_bytes(mt_tensor_raw(dst), mt_tensor_raw(src), (size_t)dst->numel * mt_dtype_size(dt));
        return 0;
    }
    mt_iter it;
    mt_tensor *ops[2] = {dst, src};
    mt_iter_init(&it, 2, ops, dst->ndim, dst->sizes);
    if (dt == st) {
        /* a large transposed source of 4-byte elements, apart from its destination: its tiles
         * transposed in registers and streamed (cpu_ew_tile_avx512.c) */
        mt_tile_fn tile = mt_iter_tiles_streamable(&it) && !mt_tensors_overlap(dst, src)
                              ? mt_cpu_copy_stream_tile4(&it)
                              : NULL;
        if (tile)
            mt_iter_run_tiles(&it, tile, NULL);
        else
            mt_iter_run(&it, move_fn(mt_dtype_size(dt)), NULL);
        return 0;
    }
    /* a large conversion into memory its source does not share: streaming stores */
    mt_cpu_cast_ctx cast = {conv_table[dt][st]};
    mt_loop_fn streaming = mt_iter_output_streamable(&it) && !mt_tensors_overlap(dst, src)
                               ? mt_cpu_cast_stream(dt, st)
                               : NULL;
    mt_iter_run(&it, streaming ? streaming : cast.plain, &cast);
    return 0;
}

/* ---- fill ------------------------------------------------------------------------------------ */

#define FILL_FN(T, NAME)                                                                           \
    static void NAME(char **data, const int64_t *st, int64_t n, void *ctx) {                       \
        T v;                                                                                       \
        memcpy(&v, ctx, sizeof v);                                                                 \
        if (st[0] == (int64_t)sizeof(T)) {                                                         \
            T *d = (T *)data[0];                                                                   \
            for (int64_t i = 0; i < n; i++) d[i] = v;                                              \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) *(T *)(data[0] + i * st[0]) = v;                       \
        }                                                                                          \
    }
FILL_FN(uint8_t, fill1)
FILL_FN(uint16_t, fill2)
FILL_FN(uint32_t, fill4)
FILL_FN(uint64_t, fill8)

int mt_cpu_fill(mt_tensor *t, mt_value value) {
    if (t->numel == 0) return 0;
    mt_dtype dt = (mt_dtype)t->dtype;
    size_t isz = mt_dtype_size(dt);
    uint64_t bits = 0;
    if (mt_scalar_store_checked(value, dt, &bits, false)) return -1;
    if (bits == 0 && mt_tensor_is_contiguous(t)) {
        memset(mt_tensor_raw(t), 0, (size_t)t->numel * isz);
        return 0;
    }
    mt_iter it;
    mt_iter_init(&it, 1, &t, t->ndim, t->sizes);
    mt_loop_fn fn = isz == 1 ? fill1 : isz == 2 ? fill2 : isz == 4 ? fill4 : fill8;
    mt_iter_run(&it, fn, &bits);
    return 0;
}

/* ---- structured impls ------------------------------------------------------------------------ */

int mt_cpu_copy_impl(mt_call *c, mt_value *args, mt_value *rets) {
    MT_UNUSED(c);
    MT_UNUSED(rets);
    return mt_cpu_copy(args[0].t, args[1].t);
}

int mt_cpu_clone_impl(mt_call *c, mt_value *args, mt_value *rets) {
    MT_UNUSED(c);
    return mt_cpu_copy(rets[0].t, args[0].t);
}

int mt_cpu_fill_scalar_impl(mt_call *c, mt_value *args, mt_value *rets) {
    MT_UNUSED(c);
    MT_UNUSED(rets);
    return mt_cpu_fill(args[0].t, args[1]);
}

int mt_cpu_fill_tensor_impl(mt_call *c, mt_value *args, mt_value *rets) {
    MT_UNUSED(c);
    MT_UNUSED(rets);
    mt_tensor *v = args[1].t;
    const void *p = mt_tensor_raw(v);
    mt_dtype vt = (mt_dtype)v->dtype;
    mt_value s = mt_dtype_is_floating(vt) ? mt_vdouble(mt_load_double(p, vt))
                                          : mt_vint(mt_load_int64(p, vt));
    return mt_cpu_fill(args[0].t, s);
}
