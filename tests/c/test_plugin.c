/* test_plugin.c: the device registry. A device module in a separately loaded shared object
 * (plugin_testdev.c) is found by its type's name and registers its backend and its kernels by
 * op name; mismatched ABI versions and unknown op names are refused. The tests run in order:
 * the type is registered by the first, its module loaded by the second. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt_dispatch.h"
#include "mt_ops_gen.h"

static char module_path[512];
static int testdev = -1;

static int plugin_counter(const char *name) {
    void *h = dlopen(module_path, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h);
    int (*f)(void) = (int (*)(void))dlsym(h, name);
    assert_non_null(f);
    int n = f();
    dlclose(h);
    return n;
}

#define TORCH_TYPES                                                                                \
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, ort, xla, lazy, vulkan, "  \
    "mps, meta, hpu, privateuseone, npu"

static void a_type_parses_once_registered(void **state) {
    (void)state;
    mt_device d;
    assert_int_equal(mt_device_parse("testdev:0", &d), -1);
    assert_string_equal(mt_error_msg(), "Expected one of " TORCH_TYPES
                                        " device type at start of device string: testdev");
    testdev = mt_devtype_register("testdev");
    assert_true(testdev > MT_DEV_META);
    assert_int_equal(mt_devtype_register("testdev"), testdev);
    assert_int_equal(mt_devtype_find("testdev"), testdev);
    assert_string_equal(mt_devtype_name(testdev), "testdev");
    assert_int_equal(mt_device_parse("testdev:1", &d), 0);
    assert_int_equal(d.type, testdev);
    assert_int_equal(d.index, 1);
    /* the error lists the registered names after PyTorch's */
    assert_int_equal(mt_device_parse("xyz", &d), -1);
    assert_string_equal(mt_error_msg(), "Expected one of " TORCH_TYPES
                                        ", testdev device type at start of device string: xyz");
    assert_int_equal(mt_devtype_register("Bad-Name"), -1);
    assert_non_null(strstr(mt_error_msg(), "invalid device type name 'Bad-Name'"));
}

static void *key_of_testdev(void *arg) {
    *(int *)arg = mt_key_for_device(testdev);
    return NULL;
}

/* threads racing to use the type load its module once and all get its key */
static void first_use_loads_the_module_once(void **state) {
    (void)state;
    pthread_t th[8];
    int keys[8];
    for (int i = 0; i < 8; i++)
        assert_int_equal(pthread_create(&th[i], NULL, key_of_testdev, &keys[i]), 0);
    for (int i = 0; i < 8; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 8; i++) {
        assert_true(keys[i] >= MT_KEY_ACCEL_FIRST && keys[i] < MT_KEY_META);
        assert_int_equal(keys[i], keys[0]);
    }
    assert_int_equal(plugin_counter("plugin_init_calls"), 1);
    assert_string_equal(mt_key_name(keys[0]), "TESTDEV");
    const mt_backend *b = mt_backend_get(testdev);
    assert_non_null(b);
    assert_string_equal(b->name, "testdev");
}

static void loaded_backend_serves_its_device(void **state) {
    (void)state;
    int64_t s[1] = {3};
    mt_device dev = {(int8_t)testdev, 0};
    mt_tensor *z = mto_zeros((mt_ilist){s, 1}, -1, dev, false, false);
    assert_non_null(z);
    assert_int_equal(z->device.type, testdev);
    assert_int_equal(plugin_counter("plugin_live_blocks"), 1);
    mt_tensor *v = mto_view(z, MT_ILIST(1, 3)); /* views work on any device */
    assert_non_null(v);
    mt_tensor *h = mto__to_copy(v, -1, MT_CPU, false, NULL);
    assert_non_null(h);
    assert_int_equal(h->device.type, MT_DEV_CPU);
    assert_float_equal(((float *)mt_tensor_data(h))[2], 0.0f, 0);
    /* an op the module did not register says so, naming the backend's key */
    assert_null(mto_arange(mt_vint(3), -1, dev, false, false));
    assert_non_null(strstr(
        mt_error_msg(), "Could not run 'aten::arange' with arguments from the 'TESTDEV' backend"));
    mt_tensor_decref(h);
    mt_tensor_decref(v);
    mt_tensor_decref(z);
    assert_int_equal(plugin_counter("plugin_live_blocks"),
                     0); /* back through the module's allocator */
}

static int fill_ones(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    (void)a;
    mt_tensor *t = r[0].t;
    for (int64_t i = 0; i < t->numel; i++) ((float *)mt_tensor_raw(t))[i] = 1.0f;
    return 0;
}

static int not_called(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    (void)a;
    (void)r;
    return mt_error(MT_ERR_RUNTIME, "not called");
}

static void kernels_register_by_name_with_an_abi_check(void **state) {
    (void)state;
    int key = mt_key_for_device(testdev);
    const mt_op *ones = mt_op_lookup("ones");
    assert_non_null(ones);
    mt_kernel_entry one = {"ones", fill_ones, NULL};
    /* a module built against another version is refused */
    assert_int_equal(mt_backend_register_kernels(MT_BACKEND_ABI_VERSION + 1, key, &one, 1), -1);
    assert_non_null(strstr(mt_error_msg(), "backend ABI version"));
    assert_null(ones->impls[key]);
    /* an unknown op name refuses the whole table: nothing of it is attached */
    mt_kernel_entry two[] = {{"ones", fill_ones, NULL}, {"no_such_op.Tensor", fill_ones, NULL}};
    assert_int_equal(mt_backend_register_kernels(MT_BACKEND_ABI_VERSION, key, two, 2), -1);
    assert_string_equal(mt_error_msg(), "TESTDEV kernels: unknown operator 'no_such_op.Tensor'");
    assert_null(ones->impls[key]);
    /* names are exact: "add" is no op (its overloads are add.Tensor, add.Scalar ...) */
    mt_kernel_entry bare = {"add", fill_ones, NULL};
    assert_int_equal(mt_backend_register_kernels(MT_BACKEND_ABI_VERSION, key, &bare, 1), -1);
    assert_string_equal(mt_error_msg(), "TESTDEV kernels: unknown operator 'add'");
    mt_kernel_entry both = {"ones", fill_ones, not_called};
    assert_int_equal(mt_backend_register_kernels(MT_BACKEND_ABI_VERSION, key, &both, 1), -1);
    assert_non_null(strstr(mt_error_msg(), "exactly one of impl and kernel"));
    /* only an accelerator's key takes a module's kernels */
    assert_int_equal(mt_backend_register_kernels(MT_BACKEND_ABI_VERSION, MT_KEY_CPU, &one, 1), -1);
    assert_non_null(strstr(mt_error_msg(), "belongs to no registered accelerator"));

    assert_int_equal(mt_backend_register_kernels(MT_BACKEND_ABI_VERSION, key, &one, 1), 0);
    assert_ptr_equal(ones->impls[key], fill_ones);
    int64_t s[1] = {4};
    mt_tensor *t = mto_ones((mt_ilist){s, 1}, -1, (mt_device){(int8_t)testdev, 0}, false, false);
    assert_non_null(t);
    assert_float_equal(((float *)mt_tensor_raw(t))[3], 1.0f, 0);
    mt_tensor_decref(t);
}

static mt_allocator no_allocator = {"none", NULL, NULL};
static int copy_nothing(void *d, mt_device dd, const void *s, mt_device sd, size_t n) {
    (void)d, (void)dd, (void)s, (void)sd, (void)n;
    return 0;
}
static int sync_nothing(mt_device d) {
    (void)d;
    return 0;
}
static int zero(void) {
    return 0;
}

static void backends_are_checked_when_they_register(void **state) {
    (void)state;
    mt_backend b = {.name = "otherdev",
                    .allocator = &no_allocator,
                    .copy_bytes = copy_nothing,
                    .synchronize = sync_nothing,
                    .device_count = zero,
                    .current_device = zero};
    assert_int_equal(mt_backend_register(MT_BACKEND_ABI_VERSION + 1, &b), -1);
    assert_non_null(
        strstr(mt_error_msg(), "the otherdev backend was built for backend ABI version"));
    assert_int_equal(mt_devtype_find("otherdev"), -1); /* a refused module registers no type */
    b.name = "testdev";                                /* a second backend for a type */
    assert_int_equal(mt_backend_register(MT_BACKEND_ABI_VERSION, &b), -1);
    assert_string_equal(mt_error_msg(), "a backend for the testdev device is already registered");
    b.name = "cpu";
    assert_int_equal(mt_backend_register(MT_BACKEND_ABI_VERSION, &b), -1);
    b.name = "otherdev";
    b.copy_bytes = NULL;
    assert_int_equal(mt_backend_register(MT_BACKEND_ABI_VERSION, &b), -1);
    assert_string_equal(mt_error_msg(), "the otherdev backend leaves a required field empty");
}

static void pin_memory_uses_the_default_accelerator(void **state) {
    (void)state;
    assert_ptr_equal(mt_default_accelerator(), mt_backend_get(testdev));
    mt_storage *s = mt_storage_new(16, MT_CPU, true);
    assert_non_null(s);
    memset(s->data, 7, 16);
    mt_storage *p = mt_storage_pin_memory(s);
    assert_non_null(p);
    assert_true(p->flags & MT_STORAGE_PINNED);
    assert_int_equal(((unsigned char *)p->data)[15], 7);
    assert_int_equal(plugin_counter("plugin_pinned_blocks"), 1);
    mt_storage_decref(p);
    mt_storage_decref(s);
    assert_int_equal(plugin_counter("plugin_pinned_blocks"), 0);
}

static void capabilities_come_from_the_backend(void **state) {
    (void)state;
    assert_true(mt_devtype_float16_kernels(testdev));
    assert_false(mt_devtype_float16_kernels(MT_DEV_CPU));
    assert_false(mt_devtype_float16_kernels(MT_DEV_META));
}

static void types_without_a_module_say_why(void **state) {
    (void)state;
    int xpu = mt_devtype_find("xpu");
    assert_true(xpu > MT_DEV_META);
    assert_null(mt_backend_get(xpu));
    assert_string_equal(
        mt_error_msg(),
        "XPU is not available: the XPU backend module (mindtorch/xpu_backend.so) was not found");
    assert_int_equal(mt_key_for_device(xpu), -1);
    int64_t s[1] = {2};
    assert_null(mto_zeros((mt_ilist){s, 1}, -1, (mt_device){(int8_t)xpu, 0}, false, false));
    assert_non_null(strstr(mt_error_msg(), "XPU is not available: "));
    /* MINDTORCH_NPU_MODULE (set by main) names a missing file */
    assert_null(mt_backend_get(mt_devtype_find("npu")));
    assert_string_equal(
        mt_error_msg(),
        "NPU is not available: the NPU backend module (mindtorch/npu_backend.so) was not found");
}

static void cpu_and_meta_tensors_carry_no_index(void **state) {
    (void)state;
    mt_device d;
    assert_int_equal(mt_device_parse("cpu:1", &d), 0);
    assert_int_equal(d.type, MT_DEV_CPU);
    assert_int_equal(d.index, 1);
    int64_t s[1] = {2};
    mt_tensor *t = mto_zeros((mt_ilist){s, 1}, -1, d, false, false);
    assert_non_null(t);
    assert_int_equal(t->device.index,
                     -1); /* PyTorch: torch.zeros(2, device="cpu:1").device is cpu */
    mt_tensor_decref(t);
}

int main(void) {
    const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
    snprintf(module_path, sizeof module_path, "%s/tests/libplugin_testdev.so", build);
    setenv("MINDTORCH_TESTDEV_MODULE", module_path, 1);
    /* the real NPU module must not load: this test's accelerator is the test double */
    setenv("MINDTORCH_NPU_MODULE", "/nonexistent/npu_backend.so", 1);
    mt_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_type_parses_once_registered),
        cmocka_unit_test(first_use_loads_the_module_once),
        cmocka_unit_test(loaded_backend_serves_its_device),
        cmocka_unit_test(kernels_register_by_name_with_an_abi_check),
        cmocka_unit_test(backends_are_checked_when_they_register),
        cmocka_unit_test(pin_memory_uses_the_default_accelerator),
        cmocka_unit_test(capabilities_come_from_the_backend),
        cmocka_unit_test(types_without_a_module_say_why),
        cmocka_unit_test(cpu_and_meta_tensors_carry_no_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
