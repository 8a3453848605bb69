/* test_embed.c: the embedding API (src/mindtorch.h) as a host program uses it: opening
 * mindtorch in its own lua_State, handing Lua a buffer without a copy, reading results back,
 * errors as return codes (overflowing geometry included), and four threads each training in
 * a lua_State of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mindtorch.h"

static lua_State *new_state(void) {
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    return L;
}

static int run(lua_State *L, const char *code, int nres) {
    if (luaL_loadstring(L, code) || lua_pcall(L, 0, nres, 0)) {
        print_error("Lua: %s\n", lua_tostring(L, -1));
        return -1;
    }
    return 0;
}

static int releases;
static void count_release(void *data, void *ctx) {
    (void)data;
    releases += *(int *)ctx;
}

static void buffer_shared_without_copy(void **state) {
    (void)state;
    lua_State *L = new_state();
    assert_int_equal(mt_open(L), 0);
    float pixels[6] = {1, 2, 3, 4, 5, 6};
    int64_t sizes[2] = {2, 3};
    int one = 1;
    releases = 0;
    assert_int_equal(
        mt_push_tensor_from_buffer(L, pixels, MT_FLOAT32, 2, sizes, NULL, count_release, &one), 0);
    lua_setglobal(L, "image");
    /* Lua writes through to the host's memory and computes a result the host reads */
    assert_int_equal(run(L, "image:mul_(2); result = image:t():contiguous():sum(1)", 0), 0);
    assert_true(pixels[0] == 2 && pixels[5] == 12);
    lua_getglobal(L, "result");
    mt_tensor_info info;
    assert_int_equal(mt_get_tensor_info(L, -1, &info), 0);
    assert_int_equal(info.dtype, MT_FLOAT32);
    assert_int_equal(info.ndim, 1);
    assert_int_equal(info.sizes[0], 2);
    assert_int_equal(info.strides[0], 1);
    assert_true(info.contiguous);
    assert_string_equal(info.device, "cpu");
    const float *r = info.data;
    assert_true(r[0] == 12 && r[1] == 30);
    lua_pop(L, 1);
    /* a strided view of the host buffer: every other element */
    int64_t half[1] = {3}, step[1] = {2};
    assert_int_equal(
        mt_push_tensor_from_buffer(L, pixels, MT_FLOAT32, 1, half, step, count_release, &one), 0);
    lua_setglobal(L, "odd");
    assert_int_equal(run(L, "return odd:sum():item()", 1), 0);
    assert_true(lua_tonumber(L, -1) == 2 + 6 + 10);
    lua_pop(L, 1);
    assert_int_equal(releases, 0);
    lua_close(L);
    assert_int_equal(releases, 2); /* each buffer released once, when its last tensor went */
}

static void errors_are_return_codes(void **state) {
    (void)state;
    lua_State *L = new_state();
    float x[4] = {0};
    int64_t sizes[1] = {4}, bad[1] = {-1}, neg_stride[1] = {-1};
    int top = lua_gettop(L);
    assert_int_equal(mt_push_tensor_from_buffer(L, x, MT_FLOAT32, 1, sizes, NULL, NULL, NULL), -1);
    assert_non_null(strstr(mt_error_msg(), "not open in this lua_State"));
    assert_int_equal(mt_open(L), 0);
    assert_int_equal(mt_push_tensor_from_buffer(L, x, MT_FLOAT32, 1, bad, NULL, NULL, NULL), -1);
    assert_non_null(strstr(mt_error_msg(), "negative dimension"));
    assert_int_equal(mt_push_tensor_from_buffer(L, x, MT_FLOAT32, 1, sizes, neg_stride, NULL, NULL),
                     -1);
    assert_int_equal(mt_push_tensor_from_buffer(L, x, (mt_dtype)99, 1, sizes, NULL, NULL, NULL),
                     -1);
    assert_non_null(strstr(mt_error_msg(), "invalid dtype"));
    assert_int_equal(mt_push_tensor_from_buffer(L, x, MT_FLOAT32, 17, sizes, NULL, NULL, NULL), -1);
    assert_int_equal(mt_push_tensor_from_buffer(L, NULL, MT_FLOAT32, 1, sizes, NULL, NULL, NULL),
                     -1);
    /* geometry whose element count, strides or extent overflow int64 (they used to wrap into a
     * small tensor over a buffer it then read past) */
    int64_t wrap[2] = {(1LL << 62) + 3, 4}, wide[3] = {0, 1LL << 40, 1LL << 40}, one_by[2] = {2, 2};
    int64_t far[2] = {INT64_MAX / 2, 1};
    assert_int_equal(mt_push_tensor_from_buffer(L, x, MT_FLOAT32, 2, wrap, NULL, NULL, NULL), -1);
    assert_non_null(strstr(mt_error_msg(), "overflow"));
    assert_int_equal(mt_push_tensor_from_buffer(L, x, MT_FLOAT32, 3, wide, NULL, NULL, NULL), -1);
    assert_non_null(strstr(mt_error_msg(), "Storage size calculation overflowed"));
    assert_int_equal(mt_push_tensor_from_buffer(L, x, MT_FLOAT32, 2, one_by, far, NULL, NULL), -1);
    assert_non_null(strstr(mt_error_msg(), "Storage size calculation overflowed"));
    lua_pushinteger(L, 3);
    mt_tensor_info info;
    assert_int_equal(mt_get_tensor_info(L, -1, &info), -1);
    assert_non_null(strstr(mt_error_msg(), "expected a tensor"));
    lua_pop(L, 1);
    assert_int_equal(lua_gettop(L), top); /* failures push nothing */
    lua_close(L);
    /* a state without the standard libraries: an error, not a crash */
    lua_State *bare = luaL_newstate();
    assert_int_equal(mt_open(bare), -1);
    assert_non_null(strstr(mt_error_msg(), "cannot open mindtorch"));
    lua_close(bare);
}

/* a small regression trained with its own generator: the same loss in any thread */
static const char *TRAIN =
    "local g = torch.Generator():manual_seed(7)\n"
    "local x, y = torch.randn(32, 8, {generator = g}), torch.randn(32, 1, {generator = g})\n"
    "local w1 = torch.randn(8, 16, {generator = g}):mul_(0.3):requires_grad_()\n"
    "local w2 = torch.randn(16, 1, {generator = g}):mul_(0.3):requires_grad_()\n"
    "local opt = torch.optim.SGD({w1, w2}, {lr = 0.05})\n"
    "local loss\n"
    "for _ = 1, 300 do\n"
    "  opt:zero_grad()\n"
    "  loss = ((x:matmul(w1):tanh():matmul(w2) - y) ^ 2):mean()\n"
    "  loss:backward()\n"
    "  opt:step()\n"
    "end\n"
    "return loss:item()\n";

static void *train_in_own_state(void *out) {
    lua_State *L = new_state();
    double *loss = out;
    *loss = NAN;
    if (mt_open(L) == 0 && run(L, TRAIN, 1) == 0) *loss = lua_tonumber(L, -1);
    lua_close(L);
    return NULL;
}

/* sizes and strides whose element or byte counts leave int64 are refused, never wrapped into
 * a small buffer that ops would then run past */
static void overflowing_geometry_is_refused(void **state) {
    (void)state;
    lua_State *L = new_state();
    assert_int_equal(mt_open(L), 0);
    float buf[4] = {0};
    int one = 1;
    releases = 0;
    int64_t square[2] = {(int64_t)1 << 32, (int64_t)1 << 32};
    assert_int_equal(
        mt_push_tensor_from_buffer(L, buf, MT_FLOAT32, 2, square, NULL, count_release, &one), -1);
    assert_non_null(strstr(mt_error_msg(), "numel: integer multiplication overflow"));
    int64_t sizes[2] = {4, 1}, strides[2] = {(int64_t)1 << 62, 1};
    assert_int_equal(
        mt_push_tensor_from_buffer(L, buf, MT_FLOAT32, 2, sizes, strides, count_release, &one), -1);
    assert_non_null(strstr(mt_error_msg(), "Storage size calculation overflowed"));
    /* an empty tensor needs no bytes, whatever its other sizes and strides (found by fuzz_embed) */
    int64_t empty[3] = {1, (int64_t)1 << 62, 0}, far[3] = {8, 3, 4};
    assert_int_equal(mt_push_tensor_from_buffer(L, NULL, MT_FLOAT32, 3, empty, far, NULL, NULL), 0);
    lua_pop(L, 1);
    int64_t big[1] = {(int64_t)1 << 61}; /* numel fits, bytes (x 8) do not */
    assert_int_equal(
        mt_push_tensor_from_buffer(L, buf, MT_FLOAT64, 1, big, NULL, count_release, &one), -1);
    assert_int_equal(releases, 0);
    assert_int_equal(lua_gettop(L), 0);
    lua_close(L);
}

/* a lua_State whose allocator can be told to fail: the API returns -1, it never panics */
static bool alloc_fails;
static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (alloc_fails && nsize > osize) return NULL;
    return realloc(ptr, nsize);
}

static void lua_out_of_memory_is_a_return_code(void **state) {
    (void)state;
    lua_State *L = lua_newstate(failing_alloc, NULL);
    luaL_openlibs(L);
    alloc_fails = true;
    assert_int_equal(mt_open(L), -1);
    alloc_fails = false;
    assert_int_equal(mt_open(L), 0);
    float buf[2] = {1, 2};
    int64_t sizes[1] = {2};
    int one = 1;
    releases = 0;
    /* mt_open put a cache of freed blocks in front of the allocator (lmt_alloc.c): fail below
     * it too, by swapping the whole allocator for the call */
    void *cache_ud;
    lua_Alloc cache = lua_getallocf(L, &cache_ud);
    alloc_fails = true;
    lua_setallocf(L, failing_alloc, NULL);
    assert_int_equal(
        mt_push_tensor_from_buffer(L, buf, MT_FLOAT32, 1, sizes, NULL, count_release, &one), -1);
    lua_setallocf(L, cache, cache_ud);
    alloc_fails = false;
    assert_non_null(strstr(mt_error_msg(), "not enough memory"));
    assert_int_equal(releases, 0); /* the buffer stays the host's */
    assert_int_equal(lua_gettop(L), 0);
    assert_int_equal(
        mt_push_tensor_from_buffer(L, buf, MT_FLOAT32, 1, sizes, NULL, count_release, &one), 0);
    lua_setglobal(L, "v");
    assert_int_equal(run(L, "s = v:sum():item()", 0), 0);
    lua_getglobal(L, "s");
    assert_true(lua_tonumber(L, -1) == 3.0);
    lua_close(L);
    assert_int_equal(releases, 1);
}

static void four_threads_train_concurrently(void **state) {
    (void)state;
    double alone;
    train_in_own_state(&alone);
    assert_false(isnan(alone));
    pthread_t t[4];
    double loss[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, train_in_own_state, &loss[i]), 0);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < 4; i++) assert_true(fabs(loss[i] - alone) <= 1e-6 * fabs(alone));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buffer_shared_without_copy),
        cmocka_unit_test(errors_are_return_codes),
        cmocka_unit_test(overflowing_geometry_is_refused),
        cmocka_unit_test(lua_out_of_memory_is_a_return_code),
        cmocka_unit_test(four_threads_train_concurrently),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
