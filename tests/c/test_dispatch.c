/* test_dispatch.c: keysets, fallbacks, redispatch, structured kernels and dispatch errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "mt_dispatch.h"
#include "mt_ops_gen.h"

static mt_tensor *ones(int n, mt_device dev) {
    int64_t s[1] = {n};
    return mto_ones((mt_ilist){s, 1}, -1, dev, false, false);
}

static void keyset_from_devices_and_modes(void **state) {
    (void)state;
    const mt_op *op = mt_op_find("clone");
    mt_tensor *c = ones(2, MT_CPU), *m = ones(2, MT_META);
    mt_value a[2] = {mt_vtensor(c), MT_NONE};
    mt_keyset ks;
    mt_device dev;
    assert_int_equal(mt_disp_keyset(op, a, &ks, &dev), 0);
    assert_int_equal(ks, 1u << MT_KEY_CPU);
    a[0] = mt_vtensor(m);
    mt_disp_keyset(op, a, &ks, &dev);
    assert_int_equal(ks, 1u << MT_KEY_META);
    assert_int_equal(dev.type, MT_DEV_META);
    m->flags |= MT_T_REQUIRES_GRAD;
    mt_disp_keyset(op, a, &ks, &dev);
    assert_int_equal(ks, (1u << MT_KEY_META) | (1u << MT_KEY_AUTOGRAD));
    mt_tls_get()->grad_enabled = false; /* no_grad: autograd is not visited */
    mt_disp_keyset(op, a, &ks, &dev);
    assert_int_equal(ks, 1u << MT_KEY_META);
    mt_tls_get()->grad_enabled = true;
    mt_tls_get()->pipeline = (void *)1;
    mt_disp_keyset(op, a, &ks, &dev);
    assert_true(ks & (1u << MT_KEY_PIPELINE));
    mt_tls_get()->pipeline = NULL;
    mt_tensor_decref(c);
    mt_tensor_decref(m);
}

static void mixed_devices_are_refused(void **state) {
    (void)state;
    mt_tensor *c = ones(2, MT_CPU), *m = ones(2, MT_META);
    mt_tensor *r = mto_copy_(m, c, false); /* copy_ may mix devices */
    assert_non_null(r);
    mt_tensor_decref(r);
    const mt_op *op = mt_op_find("expand_as");
    mt_value a[2] = {mt_vtensor(m), mt_vtensor(c)};
    mt_keyset ks;
    mt_device dev;
    assert_int_equal(mt_disp_keyset(op, a, &ks, &dev), -1);
    assert_string_equal(mt_error_msg(),
                        "Expected all tensors to be on the same device, but found at "
                        "least two devices, meta and cpu!");
    mt_tensor *s = mt_tensor_scalar_double(1.0, MT_FLOAT32); /* CPU scalars mix with anything */
    a[1] = mt_vtensor(s);
    assert_int_equal(mt_disp_keyset(op, a, &ks, &dev), 0);
    assert_int_equal(dev.type, MT_DEV_META);
    mt_tensor_decref(s);
    mt_tensor_decref(c);
    mt_tensor_decref(m);
}

static int fallback_calls, fallback_key;
static int counting_fallback(mt_call *c, mt_value *args, mt_value *rets) {
    fallback_calls++;
    fallback_key = c->key;
    return mt_redispatch(c, args, rets);
}

static void autograd_fallback_runs_then_redispatches(void **state) {
    (void)state;
    mt_disp_fallback(MT_KEY_AUTOGRAD, counting_fallback);
    mt_tensor *t = ones(3, MT_CPU);
    fallback_calls = 0;
    mt_tensor *c1 = mto_clone(t, NULL);
    assert_int_equal(fallback_calls, 0); /* nothing requires grad */
    t->flags |= MT_T_REQUIRES_GRAD;
    mt_tensor *c2 = mto_clone(t, NULL);
    assert_int_equal(fallback_calls, 1);
    assert_int_equal(fallback_key, MT_KEY_AUTOGRAD);
    assert_float_equal(((float *)mt_tensor_data(c2))[2], 1.0f, 0); /* the CPU kernel ran below it */
    mt_disp_fallback(MT_KEY_AUTOGRAD, NULL);
    mt_tensor_decref(c1);
    mt_tensor_decref(c2);
    mt_tensor_decref(t);
}

static void structured_op_on_meta_has_shape_not_data(void **state) {
    (void)state;
    int64_t s[2] = {1000, 1000};
    mt_tensor *m = mto_full((mt_ilist){s, 2}, mt_vdouble(2.5), -1, MT_META, false, false);
    assert_non_null(m);
    assert_int_equal(m->device.type, MT_DEV_META);
    assert_int_equal(m->numel, 1000000);
    assert_null(m->storage->data);
    assert_int_equal(m->dtype, MT_FLOAT32);
    mt_tensor_decref(m);
}

static void missing_kernel_names_op_and_backend(void **state) {
    (void)state;
    mt_op *op = mt_op_mut(MT_OP_zeros);
    mt_impl_fn saved = op->impls[MT_KEY_CPU];
    op->impls[MT_KEY_CPU] = NULL;
    int64_t s[1] = {2};
    assert_null(mto_zeros((mt_ilist){s, 1}, -1, MT_CPU, false, false));
    assert_non_null(strstr(mt_error_msg(),
                           "Could not run 'aten::zeros' with arguments from the 'CPU' backend."));
    assert_non_null(strstr(mt_error_msg(), "only available for these backends: [Meta]"));
    op->impls[MT_KEY_CPU] = saved;
}

static void npu_without_backend_says_why(void **state) {
    (void)state;
    int64_t s[1] = {2};
    assert_null(mto_zeros((mt_ilist){s, 1}, -1, (mt_device){(int8_t)mt_devtype_find("npu"), 0},
                          false, false));
    /* whether the NPU module is missing or CANN is: the error says NPU and why */
    assert_non_null(strstr(mt_error_msg(), "NPU is not available: "));
}

static void inplace_bumps_version_once(void **state) {
    (void)state;
    mt_tensor *t = ones(4, MT_CPU);
    int64_t v0 = mt_tensor_version(t);
    mt_tensor *r = mto_fill__Scalar(t, mt_vint(3));
    mt_tensor_decref(r);
    r = mto_zero_(t); /* composite: zero_ -> fill_, still one bump */
    mt_tensor_decref(r);
    assert_int_equal(mt_tensor_version(t) - v0, 2);
    mt_tensor_decref(t);
}

/* Every op runs on the meta device (a meta function, a meta kernel, or a composition), except
 * those whose result shape depends on data: PyTorch has no meta kernel for them either. */
static void every_op_has_a_meta_path(void **state) {
    (void)state;
    static const char *const data_dependent[] = {"nonzero", "masked_select", "unique", "equal"};
    for (size_t k = 0; k < sizeof data_dependent / sizeof *data_dependent;
         k++) { /* the list stays true */
        const mt_op *op = mt_op_find(data_dependent[k]);
        assert_non_null(op);
        assert_true(!op->composite && !op->meta && !op->kernels[MT_KEY_META]);
    }
    char missing[2048] = "";
    for (int i = 0; i < mt_ops_count(); i++) {
        const mt_op *op = mt_op_get(i);
        if (op->composite || op->meta || op->kernels[MT_KEY_META]) continue;
        bool allowed = false;
        for (size_t k = 0; k < sizeof data_dependent / sizeof *data_dependent; k++)
            allowed |= strcmp(op->schema->name, data_dependent[k]) == 0;
        if (!allowed) {
            strncat(missing, op->schema->name, sizeof missing - strlen(missing) - 2);
            strncat(missing, " ", sizeof missing - strlen(missing) - 1);
        }
    }
    if (missing[0]) fail_msg("ops without a meta path: %s", missing);
}

int main(void) {
    mt_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keyset_from_devices_and_modes),
        cmocka_unit_test(mixed_devices_are_refused),
        cmocka_unit_test(autograd_fallback_runs_then_redispatches),
        cmocka_unit_test(structured_op_on_meta_has_shape_not_data),
        cmocka_unit_test(missing_kernel_names_op_and_backend),
        cmocka_unit_test(npu_without_backend_says_why),
        cmocka_unit_test(inplace_bumps_version_once),
        cmocka_unit_test(every_op_has_a_meta_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
