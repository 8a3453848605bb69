/* test_pool.c: the cache of freed large blocks (mt_pool.c): a block serves the next request of
 * its size, a collector cycle's worth of blocks is kept whole, sizes that share a bin are told
 * apart, and the count and byte bounds evict the longest-kept blocks first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>

#include "mt_pool.h"

static void kept(int *count, size_t *bytes) {
    mt_pool_large_kept(count, bytes);
}

static bool among(void *p, void **set, int n) {
    for (int i = 0; i < n; i++)
        if (set[i] == p) return true;
    return false;
}

static void a_freed_block_serves_its_size(void **state) {
    (void)state;
    mt_pool_release_large();
    void *p = mt_pool_alloc_aligned(100000);
    assert_non_null(p);
    mt_pool_free_aligned(p, 100000);
    void *q = mt_pool_alloc_aligned(100001); /* both round to 25 pages */
    assert_ptr_equal(p, q);
    int n;
    size_t bytes;
    kept(&n, &bytes);
    assert_int_equal(n, 0);
    assert_int_equal(bytes, 0);
    mt_pool_free_aligned(q, 100001);
    mt_pool_release_large();
}

/* Lua's collector frees a loop's results in batches: 140 of 64 KiB for a loop of small matrix
 * products; the cache held 64 before */
static void a_collector_cycle_of_blocks_is_kept(void **state) {
    (void)state;
    enum { N = 300 };
    mt_pool_release_large();
    void *b[N], *c[N];
    for (int i = 0; i < N; i++) assert_non_null(b[i] = mt_pool_alloc_aligned(65536));
    for (int i = 0; i < N; i++) mt_pool_free_aligned(b[i], 65536);
    int n;
    size_t bytes;
    kept(&n, &bytes);
    assert_int_equal(n, N);
    assert_int_equal(bytes, (size_t)N * 65536);
    for (int i = 0; i < N; i++) {
        c[i] = mt_pool_alloc_aligned(65536);
        assert_true(among(c[i], b, N));
        for (int k = 0; k < i; k++) assert_ptr_not_equal(c[i], c[k]);
    }
    kept(&n, &bytes);
    assert_int_equal(n, 0);
    for (int i = 0; i < N; i++) mt_pool_free_aligned(c[i], 65536);
    mt_pool_release_large();
}

/* 32 KiB and 36 KiB (8 and 9 pages) share a bin */
static void sizes_sharing_a_bin_are_told_apart(void **state) {
    (void)state;
    mt_pool_release_large();
    void *small = mt_pool_alloc_aligned(32768), *big = mt_pool_alloc_aligned(36864);
    mt_pool_free_aligned(small, 32768);
    mt_pool_free_aligned(big, 36864);
    void *p = mt_pool_alloc_aligned(32768);
    assert_ptr_equal(p, small);
    void *q = mt_pool_alloc_aligned(36864);
    assert_ptr_equal(q, big);
    mt_pool_free_aligned(p, 32768);
    mt_pool_free_aligned(q, 36864);
    mt_pool_release_large();
}

static void the_count_bound_evicts_the_oldest(void **state) {
    (void)state;
    enum { N = 1030, CAP = 1024 };
    mt_pool_release_large();
    void **b = malloc(N * sizeof *b), **c = malloc(CAP * sizeof *c);
    for (int i = 0; i < N; i++) assert_non_null(b[i] = mt_pool_alloc_aligned(16384));
    for (int i = 0; i < N; i++) mt_pool_free_aligned(b[i], 16384);
    int n;
    size_t bytes;
    kept(&n, &bytes);
    assert_int_equal(n, CAP);
    /* the cache's blocks are the last CAP freed: taking CAP gives exactly them */
    for (int i = 0; i < CAP; i++) {
        c[i] = mt_pool_alloc_aligned(16384);
        assert_true(among(c[i], b + (N - CAP), CAP));
    }
    kept(&n, &bytes);
    assert_int_equal(n, 0);
    for (int i = 0; i < CAP; i++) mt_pool_free_aligned(c[i], 16384);
    mt_pool_release_large();
    free(b);
    free(c);
}

/* three blocks of 400 MiB (address space; only their first page is written) against the 1 GiB
 * bound: the first one freed goes; one over the bound is not kept at all */
static void the_byte_bound_evicts_the_oldest(void **state) {
    (void)state;
    size_t big = (size_t)400 << 20;
    mt_pool_release_large();
    void *b[3];
    for (int i = 0; i < 3; i++) assert_non_null(b[i] = mt_pool_alloc_aligned(big));
    for (int i = 0; i < 3; i++) mt_pool_free_aligned(b[i], big);
    int n;
    size_t bytes;
    kept(&n, &bytes);
    assert_int_equal(n, 2);
    assert_int_equal(bytes, 2 * big);
    void *p = mt_pool_alloc_aligned(big), *q = mt_pool_alloc_aligned(big);
    assert_ptr_equal(p, b[2]); /* a bin gives its most recently kept block first */
    assert_ptr_equal(q, b[1]);
    mt_pool_free_aligned(p, big);
    mt_pool_free_aligned(q, big);
    void *huge = mt_pool_alloc_aligned((size_t)1100 << 20);
    assert_non_null(huge);
    mt_pool_free_aligned(huge, (size_t)1100 << 20);
    kept(&n, &bytes);
    assert_int_equal(n, 2);
    mt_pool_release_large();
    kept(&n, &bytes);
    assert_int_equal(n, 0);
    assert_int_equal(bytes, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_freed_block_serves_its_size),
        cmocka_unit_test(a_collector_cycle_of_blocks_is_kept),
        cmocka_unit_test(sizes_sharing_a_bin_are_told_apart),
        cmocka_unit_test(the_count_bound_evicts_the_oldest),
        cmocka_unit_test(the_byte_bound_evicts_the_oldest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
