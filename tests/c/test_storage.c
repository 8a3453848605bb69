/* test_storage.c: storage lifetime, resizing rules, file mappings and shared memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt_dispatch.h"
#include "mt_storage.h"

static int deleter_calls;
static void count_deleter(void *data, size_t nbytes, void *ctx) {
    (void)data;
    (void)nbytes;
    (void)ctx;
    deleter_calls++;
}

static void new_storage_is_aligned_and_counted(void **state) {
    (void)state;
    int64_t before = mt_cpu_allocated_bytes();
    mt_storage *s = mt_storage_new(100, MT_CPU, true);
    assert_non_null(s);
    assert_int_equal((uintptr_t)s->data % 64, 0);
    assert_int_equal(mt_cpu_allocated_bytes() - before, 100);
    mt_storage_decref(s);
    assert_int_equal(mt_cpu_allocated_bytes(), before);
}

static void resize_keeps_prefix(void **state) {
    (void)state;
    mt_storage *s = mt_storage_new(4, MT_CPU, true);
    memcpy(s->data, "abcd", 4);
    assert_int_equal(mt_storage_resize(s, 8), 0);
    assert_memory_equal(s->data, "abcd", 4);
    assert_int_equal(mt_storage_resize(s, 2), 0);
    assert_int_equal(s->nbytes, 2);
    assert_memory_equal(s->data, "ab", 2);
    mt_storage_decref(s);
}

static void fixed_storage_refuses_resize(void **state) {
    (void)state;
    mt_storage *s = mt_storage_new(4, MT_CPU, false);
    assert_int_equal(mt_storage_resize(s, 8), -1);
    assert_string_equal(mt_error_msg(), "Trying to resize storage that is not resizable");
    mt_storage_decref(s);
}

static void wrapped_memory_runs_deleter_once(void **state) {
    (void)state;
    static char buf[16];
    deleter_calls = 0;
    mt_storage *s = mt_storage_wrap(buf, sizeof buf, MT_CPU, count_deleter, NULL);
    mt_storage_incref(s);
    mt_storage_decref(s);
    assert_int_equal(deleter_calls, 0);
    mt_storage_decref(s);
    assert_int_equal(deleter_calls, 1);
}

static void file_mapping_private_and_shared(void **state) {
    (void)state;
    char path[] = "/tmp/mt-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "0123456789", 10), 10);
    close(fd);
    mt_storage *p = mt_storage_from_file(path, false, 10);
    assert_non_null(p);
    assert_memory_equal(p->data, "0123456789", 10);
    ((char *)p->data)[0] = 'X'; /* private: the file does not change */
    mt_storage_decref(p);
    mt_storage *sh = mt_storage_from_file(path, true, 12); /* grows the file */
    assert_non_null(sh);
    assert_memory_equal(sh->data, "0123456789", 10);
    ((char *)sh->data)[1] = 'Y';
    assert_int_equal(mt_storage_resize(sh, 20), -1);
    mt_storage_decref(sh);
    FILE *f = fopen(path, "rb");
    char back[12];
    assert_int_equal(fread(back, 1, 12, f), 12);
    fclose(f);
    assert_memory_equal(back, "0Y23456789", 10);
    assert_null(mt_storage_from_file(path, false, 100));
    assert_non_null(strstr(mt_error_msg(), "size is smaller than the required mapping size <100>"));
    unlink(path);
}

static void share_memory_keeps_contents(void **state) {
    (void)state;
    mt_storage *s = mt_storage_new(5, MT_CPU, true);
    memcpy(s->data, "hello", 5);
    assert_int_equal(mt_storage_share_memory(s), 0);
    assert_true(s->flags & MT_STORAGE_SHARED);
    assert_memory_equal(s->data, "hello", 5);
    assert_int_equal(mt_storage_resize(s, 10), -1);
    assert_int_equal(mt_storage_share_memory(s), 0); /* idempotent */
    mt_storage_decref(s);
}

static void pin_memory_needs_an_accelerator(void **state) {
    (void)state;
    mt_storage *s = mt_storage_new(4, MT_CPU, true);
    assert_null(mt_storage_pin_memory(s));
    assert_string_equal(mt_error_msg(), "Cannot access accelerator device when none is available.");
    mt_storage_decref(s);
}

static void copy_checks_sizes(void **state) {
    (void)state;
    mt_storage *a = mt_storage_new(4, MT_CPU, true), *b = mt_storage_new(3, MT_CPU, true);
    assert_int_equal(mt_storage_copy(a, b), -1);
    assert_string_equal(mt_error_msg(), "size does not match");
    mt_storage_decref(a);
    mt_storage_decref(b);
}

static void meta_storage_has_no_data(void **state) {
    (void)state;
    mt_storage *s = mt_storage_new(1 << 30, MT_META, true);
    assert_non_null(s);
    assert_null(s->data);
    assert_int_equal(s->nbytes, 1 << 30);
    mt_storage_decref(s);
}

int main(void) {
    mt_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(new_storage_is_aligned_and_counted),
        cmocka_unit_test(resize_keeps_prefix),
        cmocka_unit_test(fixed_storage_refuses_resize),
        cmocka_unit_test(wrapped_memory_runs_deleter_once),
        cmocka_unit_test(file_mapping_private_and_shared),
        cmocka_unit_test(share_memory_keeps_contents),
        cmocka_unit_test(pin_memory_needs_an_accelerator),
        cmocka_unit_test(copy_checks_sizes),
        cmocka_unit_test(meta_storage_has_no_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
