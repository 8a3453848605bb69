/* test_tensor.c: tensor geometry: contiguity, view strides, size inference, dim wrapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "mt_dispatch.h"
#include "mt_ops_gen.h"
#include "mt_tensor.h"

static void contiguous_strides_skip_size_one(void **state) {
    (void)state;
    int64_t sizes[3] = {2, 1, 3}, strides[3];
    assert_int_equal(mt_contiguous_strides(3, sizes, strides), 6);
    assert_int_equal(strides[0], 3);
    assert_int_equal(strides[1], 3);
    assert_int_equal(strides[2], 1);
}

/* Brute force: is `new` a view of `old`, element by element in row-major order? */
static bool is_view(int on, const int64_t *os, const int64_t *ost, int nn, const int64_t *ns,
                    const int64_t *nst) {
    int64_t numel = 1;
    for (int i = 0; i < on; i++) numel *= os[i];
    for (int64_t k = 0; k < numel; k++) {
        int64_t r = k, oa = 0, na = 0;
        for (int i = on - 1; i >= 0; i--) {
            oa += (r % os[i]) * ost[i];
            r /= os[i];
        }
        r = k;
        for (int i = nn - 1; i >= 0; i--) {
            na += (r % ns[i]) * nst[i];
            r /= ns[i];
        }
        if (oa != na) return false;
    }
    return true;
}

static void view_strides_agree_with_brute_force(void **state) {
    (void)state;
    /* a 2x3x4 tensor seen through every permutation, against a few target shapes */
    int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int64_t base[3] = {2, 3, 4}, bst[3] = {12, 4, 1};
    int64_t targets[5][4] = {{24}, {6, 4}, {2, 12}, {4, 6}, {2, 3, 2, 2}};
    int tn[5] = {1, 2, 2, 2, 4};
    for (int p = 0; p < 6; p++) {
        int64_t os[3], ost[3];
        for (int i = 0; i < 3; i++) {
            os[i] = base[perms[p][i]];
            ost[i] = bst[perms[p][i]];
        }
        for (int t = 0; t < 5; t++) {
            int64_t nst[4];
            bool ok = mt_view_strides(3, os, ost, tn[t], targets[t], nst);
            if (ok) assert_true(is_view(3, os, ost, tn[t], targets[t], nst));
            if (p == 0) assert_true(ok); /* a contiguous tensor views as anything */
        }
    }
}

static void infer_size_errors(void **state) {
    (void)state;
    int64_t out[2];
    assert_int_equal(mt_infer_size((int64_t[]){-1, 3}, 2, 6, out), 0);
    assert_int_equal(out[0], 2);
    assert_int_equal(mt_infer_size((int64_t[]){-1, -1}, 2, 6, out), -1);
    assert_string_equal(mt_error_msg(), "only one dimension can be inferred");
    assert_int_equal(mt_infer_size((int64_t[]){4}, 1, 6, out), -1);
    assert_string_equal(mt_error_msg(), "shape '[4]' is invalid for input of size 6");
}

static void wrap_dim_speaks_one_based(void **state) {
    (void)state;
    int d;
    assert_int_equal(mt_wrap_dim(-1, 3, &d), 0);
    assert_int_equal(d, 2);
    assert_int_equal(mt_wrap_dim(3, 3, &d), -1); /* internal 3 is the user's 4 */
    assert_string_equal(mt_error_msg(),
                        "Dimension out of range (expected to be in range of [-3, 3], but got 4)");
    assert_int_equal(mt_wrap_dim(MT_ZERO_SENTINEL, 3, &d), -1);
    assert_string_equal(mt_error_msg(),
                        "Dimension out of range (expected to be in range of [-3, 3], but got 0)");
    assert_int_equal(mt_wrap_dim(0, 0, &d), 0); /* a 0-d tensor accepts dim 1 */
}

static void views_share_storage_and_version(void **state) {
    (void)state;
    mt_tensor *t = mto_arange(mt_vint(6), -1, MT_NO_DEVICE, false, false);
    mt_tensor *v = mto_view(t, MT_ILIST(2, 3));
    mt_tensor *tr = mto_transpose_int(v, 0, 1);
    assert_ptr_equal(tr->storage, t->storage);
    assert_ptr_equal(tr->version, t->version);
    assert_ptr_equal(tr->base, t);
    assert_false(mt_tensor_is_contiguous(tr));
    mt_tensor *z = mto_zero_(tr);
    assert_ptr_equal(z, tr);
    assert_int_equal(mt_tensor_version(t), 1); /* the in-place op bumped the shared counter once */
    mt_tensor_decref(z);
    mt_tensor_decref(tr);
    mt_tensor_decref(v);
    mt_tensor_decref(t);
}

static void too_many_dims_is_an_error(void **state) {
    (void)state;
    int64_t sizes[MT_MAX_DIM + 1];
    for (int i = 0; i <= MT_MAX_DIM; i++) sizes[i] = 1;
    assert_null(mt_tensor_empty(MT_MAX_DIM + 1, sizes, MT_FLOAT32, MT_CPU));
    assert_non_null(strstr(mt_error_msg(), "at most 16 dimensions"));
}

int main(void) {
    mt_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(contiguous_strides_skip_size_one),
        cmocka_unit_test(view_strides_agree_with_brute_force),
        cmocka_unit_test(infer_size_errors),
        cmocka_unit_test(wrap_dim_speaks_one_based),
        cmocka_unit_test(views_share_storage_and_version),
        cmocka_unit_test(too_many_dims_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
