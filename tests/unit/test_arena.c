/* test_arena.c — the bump allocator: alignment, big requests, reset, reuse. */
#include "testing.h"

static void test_alignment_and_distinct(void **state) {
    (void)state;
    rig_arena *a = rig_arena_new(0);
    assert_non_null(a);
    void *prev = NULL;
    for (size_t n = 0; n < 100; n++) {
        void *p = rig_arena_alloc(a, n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        assert_ptr_not_equal(p, prev);
        memset(p, 0xAB, n); /* ASan: the whole block is ours */
        prev = p;
    }
    rig_arena_free(a);
}

static void test_big_allocations(void **state) {
    (void)state;
    rig_arena *a = rig_arena_new(256);
    char *small = rig_arena_alloc(a, 16);
    char *big = rig_arena_alloc(a, 100000);
    char *after = rig_arena_alloc(a, 16);
    assert_non_null(small);
    assert_non_null(big);
    assert_non_null(after);
    memset(big, 1, 100000);
    /* the small chunk was not abandoned for the big one */
    assert_true(after > small && after < small + 256);
    assert_int_equal(rig_arena_used(a), 16 + 100000 + 16);
    /* impossible sizes fail cleanly */
    assert_null(rig_arena_alloc(a, SIZE_MAX));
    assert_null(rig_arena_alloc(a, SIZE_MAX - 8));
    rig_arena_free(a);
}

static void test_strndup(void **state) {
    (void)state;
    rig_arena *a = rig_arena_new(0);
    char *s = rig_arena_strndup(a, "hello world", 5);
    assert_string_equal(s, "hello");
    s = rig_arena_strndup(a, "", 0);
    assert_string_equal(s, "");
    s = rig_arena_strndup(a, "a\0b", 3);
    assert_memory_equal(s, "a\0b\0", 4);
    assert_null(rig_arena_strndup(a, "x", SIZE_MAX));
    rig_arena_free(a);
}

static void test_reset_reuses_memory(void **state) {
    (void)state;
    rig_arena *a = rig_arena_new(1024);
    void *first = rig_arena_alloc(a, 32);
    for (int i = 0; i < 1000; i++)
        assert_non_null(rig_arena_alloc(a, 100));
    rig_arena_alloc(a, 50000);
    assert_true(rig_arena_used(a) > 100000);
    rig_arena_reset(a);
    assert_int_equal(rig_arena_used(a), 0);
    /* after a reset, allocation starts again at the first chunk */
    assert_ptr_equal(rig_arena_alloc(a, 32), first);
    rig_arena_reset(a);
    rig_arena_reset(a);
    assert_ptr_equal(rig_arena_alloc(a, 8), first);
    rig_arena_free(a);
    rig_arena_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment_and_distinct),
        cmocka_unit_test(test_big_allocations),
        cmocka_unit_test(test_strndup),
        cmocka_unit_test(test_reset_reuses_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
