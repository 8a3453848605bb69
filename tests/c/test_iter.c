/* test_iter.c: the strided loop machinery, checked against naive element access. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "mt_dispatch.h"
#include "mt_ops_gen.h"

static uint32_t rng = 12345;
static uint32_t rnd(uint32_t n) {
    rng = rng * 1103515245u + 12345u;
    return (rng >> 8) % n;
}

static double at(const mt_tensor *t, const int64_t *idx) {
    int64_t off = 0;
    for (int i = 0; i < t->ndim; i++) off += idx[i] * t->strides[i];
    return mt_load_double(mt_tensor_raw(t) + off * (int64_t)mt_dtype_size((mt_dtype)t->dtype),
                          (mt_dtype)t->dtype);
}

/* copy_ between random layouts (permuted, sliced, broadcast) and dtypes equals a naive copy */
static void copy_matches_naive_for_random_layouts(void **state) {
    (void)state;
    const mt_dtype types[] = {MT_FLOAT32, MT_FLOAT64, MT_INT32, MT_INT16, MT_FLOAT16, MT_UINT8};
    for (int trial = 0; trial < 300; trial++) {
        int nd = 1 + (int)rnd(4);
        int64_t shape[4];
        for (int i = 0; i < nd; i++) shape[i] = 1 + rnd(5);
        /* the source: a random permutation of a bigger tensor, narrowed, maybe broadcast */
        int64_t big[4], perm[4];
        for (int i = 0; i < nd; i++) big[i] = shape[i] + rnd(3);
        mt_dtype st = types[rnd(6)], dt = types[rnd(6)];
        mt_tensor *b = mto_arange(mt_vint(1), -1, MT_NO_DEVICE, false, false);
        mt_tensor_decref(b);
        int64_t n = 1;
        for (int i = 0; i < nd; i++) n *= big[i];
        mt_tensor *flat = mto_arange(mt_vint(n), (int)st, MT_NO_DEVICE, false, false);
        mt_tensor *src = mto_view(flat, (mt_ilist){big, nd});
        for (int i = 0; i < nd; i++) perm[i] = i;
        for (int i = nd - 1; i > 0; i--) {
            int j = (int)rnd((uint32_t)i + 1);
            int64_t x = perm[i];
            perm[i] = perm[j];
            perm[j] = x;
        }
        mt_tensor *p = mto_permute(src, (mt_ilist){perm, nd});
        int64_t want[4];
        for (int i = 0; i < nd; i++) want[i] = shape[i] < p->sizes[i] ? shape[i] : p->sizes[i];
        mt_tensor *cur = p;
        mt_tensor_incref(cur);
        for (int i = 0; i < nd; i++) {
            mt_tensor *nx =
                mto_narrow(cur, i, (int64_t)rnd((uint32_t)(p->sizes[i] - want[i] + 1)), want[i]);
            mt_tensor_decref(cur);
            cur = nx;
        }
        if (rnd(3) == 0) { /* broadcast one dim */
            int d = (int)rnd((uint32_t)nd);
            mt_tensor *one = mto_narrow(cur, d, 0, 1);
            mt_tensor *ex = mto_expand(one, (mt_ilist){want, nd}, false);
            mt_tensor_decref(one);
            mt_tensor_decref(cur);
            cur = ex;
        }
        /* the destination: a transposed fresh tensor when 2+ dims */
        mt_tensor *dst0 = mt_tensor_empty(nd, want, dt, MT_CPU), *dst = dst0;
        mt_tensor_incref(dst);
        if (nd >= 2) {
            int64_t rev[4];
            for (int i = 0; i < nd; i++) rev[i] = want[nd - 1 - i];
            mt_tensor *d2 = mt_tensor_empty(nd, rev, dt, MT_CPU);
            int64_t pr[4];
            for (int i = 0; i < nd; i++) pr[i] = nd - 1 - i;
            mt_tensor_decref(dst);
            dst = mto_permute(d2, (mt_ilist){pr, nd});
            mt_tensor_decref(d2);
        }
        mt_tensor *r = mto_copy_(dst, cur, false);
        assert_non_null(r);
        mt_tensor_decref(r);
        int64_t idx[4] = {0}, total = 1;
        for (int i = 0; i < nd; i++) total *= want[i];
        for (int64_t k = 0; k < total; k++) {
            int64_t rem = k;
            for (int i = nd - 1; i >= 0; i--) {
                idx[i] = rem % want[i];
                rem /= want[i];
            }
            double s = at(cur, idx), d = at(dst, idx);
            /* reference conversion through the same C semantics */
            char one[8];
            mt_store_double(one, dt, s);
            double expect = mt_load_double(one, dt);
            if (d != expect)
                fail_msg("trial %d element %lld: %g != %g", trial, (long long)k, d, expect);
        }
        mt_tensor_decref(dst);
        mt_tensor_decref(dst0);
        mt_tensor_decref(cur);
        mt_tensor_decref(p);
        mt_tensor_decref(src);
        mt_tensor_decref(flat);
    }
}

static void overlapping_copy_is_refused(void **state) {
    (void)state;
    mt_tensor *t = mto_arange(mt_vint(4), -1, MT_NO_DEVICE, false, false);
    mt_tensor *a = mto_narrow(t, 0, 1, 3), *b = mto_narrow(t, 0, 0, 3);
    assert_null(mto_copy_(a, b, false));
    assert_non_null(
        strstr(mt_error_msg(), "some elements of the input tensor and the written-to tensor"));
    mt_tensor *one = mto_narrow(t, 0, 0, 1);
    int64_t s[1] = {3};
    mt_tensor *ex = mto_expand(one, (mt_ilist){s, 1}, false);
    assert_null(mto_fill__Scalar(ex, mt_vint(1)));
    assert_non_null(strstr(mt_error_msg(), "more than one element of the written-to tensor"));
    mt_tensor_decref(ex);
    mt_tensor_decref(one);
    mt_tensor_decref(a);
    mt_tensor_decref(b);
    mt_tensor_decref(t);
}

int main(void) {
    mt_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_matches_naive_for_random_layouts),
        cmocka_unit_test(overlapping_copy_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
