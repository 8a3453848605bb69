/* test_dtype.c: half/bfloat16 conversions, dtype names and promotion rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "mt_dtype.h"
#include "mt_half.h"

/* GCC's _Float16 (correctly rounded in libgcc) is an independent reference for binary16. */
static void f16_matches_reference_for_many_floats(void **state) {
    (void)state;
    uint32_t x = 0x12345678u;
    for (int i = 0; i < 2000000; i++) {
        x = x * 1664525u + 1013904223u; /* every float bit pattern region, incl. subnormals */
        float f = mt_bits_f32(x);
        _Float16 ref = (_Float16)f;
        uint16_t rb;
        memcpy(&rb, &ref, 2);
        uint16_t got = mt_f32_to_f16(f);
        if (f != f) { /* NaN: both must be NaN */
            assert_true((got & 0x7c00) == 0x7c00 && (got & 0x3ff));
            continue;
        }
        if (got != rb) fail_msg("f32 %08x: got %04x, expected %04x", x, got, rb);
    }
}

static void f16_roundtrips_every_half(void **state) {
    (void)state;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = mt_f16_to_f32((uint16_t)h);
        _Float16 ref;
        uint16_t hh = (uint16_t)h;
        memcpy(&ref, &hh, 2);
        if (f != f) {
            assert_true((float)ref != (float)ref);
            continue;
        }
        assert_true(f == (float)ref);
        assert_int_equal(mt_f32_to_f16(f), h);
    }
}

static void bf16_rounds_to_nearest_even(void **state) {
    (void)state;
    assert_int_equal(mt_f32_to_bf16(1.0f), 0x3f80);
    /* 1 + 2^-8 is exactly halfway between two bfloat16 values: ties go to even (1.0) */
    assert_int_equal(mt_f32_to_bf16(1.00390625f), 0x3f80);
    /* 1 + 3*2^-8 is halfway and rounds up to the even neighbour */
    assert_int_equal(mt_f32_to_bf16(1.01171875f), 0x3f82);
    assert_int_equal(mt_f32_to_bf16(NAN), 0x7fc0);
    assert_int_equal(mt_f32_to_bf16(INFINITY), 0x7f80);
    for (uint32_t b = 0; b < 65536; b++) {
        float f = mt_bf16_to_f32((uint16_t)b);
        if (f == f) assert_int_equal(mt_f32_to_bf16(f), b);
    }
}

static void names_and_aliases(void **state) {
    (void)state;
    assert_int_equal(mt_dtype_from_name("float"), MT_FLOAT32);
    assert_int_equal(mt_dtype_from_name("half"), MT_FLOAT16);
    assert_int_equal(mt_dtype_from_name("long"), MT_INT64);
    assert_int_equal(mt_dtype_from_name("bfloat16"), MT_BFLOAT16);
    assert_int_equal(mt_dtype_from_name("complex64"), MT_DTYPE_NONE);
    assert_string_equal(mt_dtype_scalar_name(MT_INT64), "Long");
    assert_int_equal(mt_dtype_size(MT_BFLOAT16), 2);
}

static void promotion_follows_categories(void **state) {
    (void)state;
    assert_int_equal(mt_promote_types(MT_UINT8, MT_INT8), MT_INT16);
    assert_int_equal(mt_promote_types(MT_FLOAT16, MT_BFLOAT16), MT_FLOAT32);
    assert_int_equal(mt_promote_types(MT_INT64, MT_FLOAT16), MT_FLOAT16);
    assert_int_equal(mt_promote_types(MT_BOOL, MT_UINT8), MT_UINT8);
    assert_false(mt_can_cast(MT_FLOAT32, MT_INT64));
    assert_false(mt_can_cast(MT_INT8, MT_BOOL));
    assert_true(mt_can_cast(MT_INT64, MT_FLOAT16));
}

static void default_dtype_rejects_integers(void **state) {
    (void)state;
    assert_int_equal(mt_default_dtype(), MT_FLOAT32);
    assert_int_equal(mt_set_default_dtype(MT_INT64), -1);
    assert_string_equal(mt_error_msg(),
                        "only floating-point types are supported as the default type");
    assert_int_equal(mt_set_default_dtype(MT_FLOAT64), 0);
    assert_int_equal(mt_default_dtype(), MT_FLOAT64);
    mt_set_default_dtype(MT_FLOAT32);
}

static void d2i_never_traps(void **state) {
    (void)state;
    assert_true(mt_d2i(NAN) == INT64_MIN);
    assert_true(mt_d2i(1e300) == INT64_MIN);
    assert_true(mt_d2i(-3.9) == -3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f16_matches_reference_for_many_floats),
        cmocka_unit_test(f16_roundtrips_every_half),
        cmocka_unit_test(bf16_rounds_to_nearest_even),
        cmocka_unit_test(names_and_aliases),
        cmocka_unit_test(promotion_follows_categories),
        cmocka_unit_test(default_dtype_rejects_integers),
        cmocka_unit_test(d2i_never_traps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
