/* test_out.c: the core's out= (mt_call_op_out) as a C host calls it: results written into the
 * given tensors, in place when they fit; cast, autograd and device errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "mt_ops_gen.h"
#include "mt_result.h"

static mt_tensor *filled(int n, double v, mt_dtype dt, mt_device dev) {
    int64_t s[1] = {n};
    return mto_full((mt_ilist){s, 1}, mt_vdouble(v), (int)dt, dev, false, false);
}

static float at(mt_tensor *t, int i) {
    return ((float *)mt_tensor_data(t))[i];
}

static void writes_into_out_in_place(void **state) {
    (void)state;
    mt_tensor *x = filled(4, 1.5, MT_FLOAT32, MT_CPU), *y = filled(4, 2, MT_FLOAT32, MT_CPU);
    mt_tensor *out = filled(4, 0, MT_FLOAT32, MT_CPU);
    void *data = mt_tensor_data(out);
    int64_t v0 = mt_tensor_version(out);
    mt_value a[3] = {mt_vtensor(x), mt_vtensor(y), mt_vint(1)};
    assert_int_equal(mt_call_op_out(MT_OP_add_Tensor, a, &out), 0);
    assert_ptr_equal(mt_tensor_data(out), data); /* the same memory, written */
    assert_true(at(out, 3) == 3.5f);
    assert_true(mt_tensor_version(out) > v0);
    mt_tensor_decref(x);
    mt_tensor_decref(y);
    mt_tensor_decref(out);
}

static void resizes_an_out_of_another_shape(void **state) {
    (void)state;
    mt_tensor *x = filled(5, 2, MT_FLOAT32, MT_CPU);
    int64_t none[1] = {0};
    mt_tensor *out = mt_tensor_empty(1, none, MT_FLOAT32, MT_CPU);
    mt_value a[3] = {mt_vtensor(x), mt_vtensor(x), mt_vint(1)};
    assert_int_equal(mt_call_op_out(MT_OP_mul_Tensor, a, &out), 0);
    assert_int_equal(out->ndim, 1);
    assert_int_equal(out->sizes[0], 5);
    assert_true(at(out, 4) == 4.0f);
    mt_tensor_decref(x);
    mt_tensor_decref(out);
}

static void refuses_a_lossy_cast_and_autograd(void **state) {
    (void)state;
    mt_tensor *x = filled(2, 1, MT_FLOAT32, MT_CPU);
    mt_tensor *out = filled(2, 0, MT_INT64, MT_CPU);
    mt_value a[3] = {mt_vtensor(x), mt_vtensor(x), mt_vint(1)};
    assert_int_equal(mt_call_op_out(MT_OP_add_Tensor, a, &out), -1);
    assert_string_equal(mt_error_msg(),
                        "result type Float can't be cast to the desired output type Long");
    mt_tensor *fout = filled(2, 0, MT_FLOAT32, MT_CPU);
    x->flags |= MT_T_REQUIRES_GRAD;
    assert_int_equal(mt_call_op_out(MT_OP_add_Tensor, a, &fout), -1);
    assert_string_equal(mt_error_msg(),
                        "add(): functions with out=... arguments don't support automatic "
                        "differentiation, but one of the arguments requires grad.");
    x->flags &= (uint16_t)~MT_T_REQUIRES_GRAD;
    mt_tensor_decref(x);
    mt_tensor_decref(out);
    mt_tensor_decref(fout);
}

static void wants_out_on_the_ops_device(void **state) {
    (void)state;
    mt_tensor *x = filled(2, 1, MT_FLOAT32, MT_CPU);
    mt_tensor *out = filled(2, 0, MT_FLOAT32, MT_META);
    mt_value a[3] = {mt_vtensor(x), mt_vtensor(x), mt_vint(1)};
    assert_int_equal(mt_call_op_out(MT_OP_add_Tensor, a, &out), -1);
    assert_string_equal(mt_error_msg(),
                        "Expected all tensors to be on the same device, but found at "
                        "least two devices, meta and cpu!");
    mt_tensor_decref(x);
    mt_tensor_decref(out);
}

int main(void) {
    mt_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_into_out_in_place),
        cmocka_unit_test(resizes_an_out_of_another_shape),
        cmocka_unit_test(refuses_a_lossy_cast_and_autograd),
        cmocka_unit_test(wants_out_on_the_ops_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
