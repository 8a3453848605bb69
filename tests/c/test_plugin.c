/* test_plugin.c: a backend in a separately loaded shared object registers with the core. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "mt_dispatch.h"
#include "mt_ops_gen.h"

static void *handle;

static void loaded_backend_serves_its_device(void **state) {
    (void)state;
    int64_t s[1] = {3};
    mt_device npu = {MT_DEV_NPU, 0};
    assert_null(mto_zeros((mt_ilist){s, 1}, -1, npu, false, false)); /* before loading */
    char path[512];
    snprintf(path, sizeof path, "%s/tests/libplugin_host_npu.so", getenv("BUILD") ? getenv("BUILD") : "build");
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(handle);
    int (*init)(void) = (int (*)(void))dlsym(handle, "plugin_init");
    int (*live)(void) = (int (*)(void))dlsym(handle, "plugin_live_blocks");
    assert_int_equal(init(), 0);

    mt_tensor *z = mto_zeros((mt_ilist){s, 1}, -1, npu, false, false);
    assert_non_null(z);
    assert_int_equal(z->device.type, MT_DEV_NPU);
    assert_int_equal(live(), 1);
    mt_tensor *v = mto_view(z, MT_ILIST(1, 3)); /* views work on any device */
    assert_non_null(v);
    mt_tensor *h = mto__to_copy(v, -1, MT_CPU, false);
    assert_non_null(h);
    assert_int_equal(h->device.type, MT_DEV_CPU);
    assert_float_equal(((float *)mt_tensor_data(h))[2], 0.0f, 0);
    /* an op the module did not register says so, naming the backend */
    assert_null(mto_ones((mt_ilist){s, 1}, -1, npu, false, false));
    assert_non_null(strstr(mt_error_msg(), "Could not run 'aten::ones' with arguments from the 'NPU' backend"));
    mt_tensor_decref(h);
    mt_tensor_decref(v);
    mt_tensor_decref(z);
    assert_int_equal(live(), 0); /* device memory went back through the module's allocator */
}

int main(void) {
    /* this test double stands for the NPU module: the real one must not load first */
    setenv("MINDTORCH_NPU_MODULE", "/nonexistent/npu_backend.so", 1);
    mt_init();
    const struct CMUnitTest tests[] = {cmocka_unit_test(loaded_backend_serves_its_device)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
