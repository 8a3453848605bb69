/* fuzz_embed.c: libFuzzer target for the embedding API (src/mindtorch.h): a host buffer with
 * fuzzed dtype, sizes and strides is either refused with -1 (bad arguments, geometry that
 * overflows) or becomes a tensor that Lua reads and computes with inside the buffer, whose
 * release callback runs exactly once. The harness computes the geometry in 128-bit arithmetic
 * and hands over a buffer of exactly the extent it implies, so a read past it is reported. */
#include "fuzz_lua.h"

/* what Lua does with the tensor `t` (errors from the ops are fine: a dtype or shape an op
 * refuses); then the result's info is read from C */
static const char *const OPS[] = {
    "return t:sum()",
    "return t:clone()",
    "return t:contiguous()",
    "return t:t()",
    "return t + 1",
    "return t:reshape(-1)",
    "return t:to(torch.float64)",
    "return t:flip(1)",
    "return t:max()",
    "return tostring(t) and t",
    "return t:narrow(1, 2, 1)",
    "t:fill_(1) return t",
};

typedef struct {
    const uint8_t *p;
    size_t n;
} input;

static uint8_t take_byte(input *in) {
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}

/* a size or stride: mostly small, sometimes any int64 */
static int64_t take_int(input *in) {
    uint8_t tag = take_byte(in);
    if (tag < 224) return tag % 9;
    int64_t v = 0;
    for (int i = 0; i < 8; i++) v = (int64_t)((uint64_t)v << 8 | take_byte(in));
    return v;
}

static int releases;
static void count_release(void *data, void *ctx) {
    (void)data;
    (void)ctx;
    releases++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_lua_init("return nil", ".bin");
    lua_State *L = fuzz_L;
    input in = {data, size};
    uint8_t d = take_byte(&in);
    int dtype = d >= 250 ? d : d % MT_NUM_DTYPES; /* a few invalid dtypes */
    int ndim = take_byte(&in) % (MT_MAX_DIM + 2);
    uint8_t flags = take_byte(&in);
    int64_t sizes[MT_MAX_DIM + 2], strides[MT_MAX_DIM + 2];
    for (int i = 0; i < ndim; i++) sizes[i] = take_int(&in);
    int given = flags & 1;
    for (int i = 0; i < ndim && given; i++) strides[i] = take_int(&in);

    /* what the API must decide, in 128-bit arithmetic, each step checked against int64 */
    int valid = dtype < MT_NUM_DTYPES && ndim <= MT_MAX_DIM, zero = 0;
    __int128 st[MT_MAX_DIM + 2], numel = 1, extent = 1, nbytes = 0;
    for (int i = 0; valid && i < ndim; i++) {
        if (sizes[i] < 0) valid = 0;
        if (sizes[i] == 0) zero = 1;
    }
    for (int i = ndim - 1; valid && i >= 0; i--) {
        st[i] = given           ? strides[i]
                : i == ndim - 1 ? 1
                                : st[i + 1] * (sizes[i + 1] > 0 ? sizes[i + 1] : 1);
        if (st[i] < 0 || st[i] > INT64_MAX) valid = 0;
    }
    /* the element count is multiplied out in order, as PyTorch's numel does: a product that
     * leaves int64 before a later zero size is still an overflow */
    for (int i = 0; valid && i < ndim; i++) {
        numel *= sizes[i];
        if (numel > INT64_MAX) valid = 0;
    }
    for (int i = 0; valid && !zero && i < ndim; i++) {
        extent += (__int128)(sizes[i] - 1) * st[i];
        if (extent > INT64_MAX) valid = 0;
    }
    size_t isz = valid ? mt_dtype_size((mt_dtype)dtype) : 1;
    if (valid && !zero) nbytes = extent * (__int128)isz;
    if (nbytes > INT64_MAX) valid = 0;
    /* a real buffer that large, or that many elements to compute with (strides of 0 make a
     * small buffer hold many): valid, but not worth the time */
    if (valid && (nbytes > (1 << 20) || (!zero && numel > (1 << 16)))) return 0;
    size_t cap = valid ? (size_t)nbytes : 0;
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf) return 0;
    for (size_t i = 0; i < cap; i++) buf[i] = in.n ? data[size - in.n + i % in.n] : (uint8_t)i;
    int top = lua_gettop(L);
    releases = 0;
    int rc = mt_push_tensor_from_buffer(L, buf, (mt_dtype)dtype, ndim, sizes,
                                        given ? strides : NULL, count_release, NULL);
    if (rc != (valid ? 0 : -1)) {
        fprintf(
            stderr,
            "fuzz: mt_push_tensor_from_buffer returned %d for geometry the harness finds %s (%s)\n",
            rc, valid ? "valid" : "invalid", rc ? mt_error_msg() : "accepted");
        abort();
    }
    if (rc == 0) {
        lua_setglobal(L, "t");
        const char *op = OPS[flags / 2 % (sizeof OPS / sizeof *OPS)];
        if (luaL_loadstring(L, op) == LUA_OK && lua_pcall(L, 0, 1, 0) == LUA_OK) {
            mt_tensor_info info;
            if (lua_type(L, -1) == LUA_TUSERDATA && mt_get_tensor_info(L, -1, &info) == 0) {
                size_t ib = info.itemsize;
                if (info.data && info.numel > 0) /* the first and last elements are readable */
                    (void)((volatile uint8_t *)info.data)[0],
                        (void)((volatile uint8_t *)info.data)[ib - 1];
            }
        }
        lua_settop(L, top);
        lua_pushnil(L);
        lua_setglobal(L, "t");
        lua_gc(L, LUA_GCCOLLECT);
        if (releases != 1) {
            fprintf(stderr, "fuzz: the release callback ran %d times\n", releases);
            abort();
        }
    } else if (releases != 0 || lua_gettop(L) != top) {
        fprintf(stderr, "fuzz: a refused push released the buffer or left the stack changed\n");
        abort();
    }
    free(buf);
    return 0;
}
