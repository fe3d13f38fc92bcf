/* Unit tests for core/json_arena.c: values made in the region and values from malloc mix
 * in one document and are released in any order; another thread's values never come from
 * the region (they outlive its release); nothing is taken from the region outside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>

#include "core/json_arena.h"

/* A document of many small values, as a run's results are. */
static json_t *many_values(size_t count)
{
    json_t *results = json_array();
    for (size_t i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "metric-%zu", i);
        json_array_append_new(results, json_pack("{s:s,s:f,s:[i,i]}", "name", name, "mean",
                                                 (double)i, "values", (int)i, (int)(i + 1)));
    }
    return results;
}

/* In a build that has a region (not under AddressSanitizer), it served the values. */
static void assert_region_used(size_t before)
{
#if !defined(__SANITIZE_ADDRESS__)
    assert_true(vp_json_arena_used() > before);
#else
    (void)before;
    assert_int_equal(vp_json_arena_used(), 0);
#endif
}

static void mixed_values_release_in_any_order(void **state)
{
    (void)state;
    vp_json_arena_begin();
    json_t *read = many_values(10000);
    vp_json_arena_end();
    assert_region_used(0);
    size_t used = vp_json_arena_used();
    json_t *made_after = many_values(100); /* from malloc */
    assert_int_equal(vp_json_arena_used(), used);
    /* each kind holds the other, and values of the region are freed (a no-op) */
    json_object_set_new(json_array_get(read, 0), "added", made_after);
    json_t *holder = json_object();
    json_object_set(holder, "read", json_array_get(read, 5));
    json_array_remove(read, 1);
    json_decref(read);
    assert_float_equal(json_real_value(json_object_get(json_object_get(holder, "read"), "mean")),
                      5.0, 0);
    json_decref(holder);
    vp_json_arena_release();
    assert_int_equal(vp_json_arena_used(), 0);
}

static void *make_on_other_thread(void *unused)
{
    (void)unused;
    return many_values(1000);
}

static void other_threads_values_outlive_the_region(void **state)
{
    (void)state;
    vp_json_arena_begin();
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, make_on_other_thread, NULL), 0);
    json_t *kept;
    assert_int_equal(pthread_join(thread, (void **)&kept), 0);
    json_t *read = many_values(100);
    vp_json_arena_end();
    json_decref(read);
    vp_json_arena_release();
    /* made while the region was open, on another thread: still there, freed by malloc */
    assert_int_equal(json_array_size(kept), 1000);
    assert_string_equal(json_string_value(json_object_get(json_array_get(kept, 999), "name")),
                        "metric-999");
    json_decref(kept);
}

static void region_serves_again_after_release(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++) {
        vp_json_arena_begin();
        json_t *read = many_values(5000);
        vp_json_arena_end();
        assert_region_used(0);
        assert_int_equal(json_array_size(read), 5000);
        json_decref(read);
        vp_json_arena_release();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mixed_values_release_in_any_order),
        cmocka_unit_test(other_threads_values_outlive_the_region),
        cmocka_unit_test(region_serves_again_after_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
