/* Unit tests for histogram.c: bucket bounds, exact merging, percentiles on synthetic
 * data, and the JSON round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/histogram.h"

static void buckets_tile_the_value_range(void **state)
{
    (void)state;
    /* Every value lies inside its bucket, and consecutive buckets touch. */
    for (size_t bucket = 0; bucket + 1 < VP_HISTOGRAM_BUCKETS; bucket++) {
        assert_true(vp_histogram_bucket_low(bucket) <= vp_histogram_bucket_high(bucket));
        assert_int_equal(vp_histogram_bucket_high(bucket) + 1, vp_histogram_bucket_low(bucket + 1));
    }
    const uint64_t samples[] = { 0, 1, 63, 64, 65, 127, 128, 1000, 123456789, UINT64_MAX / 3,
                                 UINT64_MAX };
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        size_t bucket = vp_histogram_bucket_of(samples[i]);
        assert_true(bucket < VP_HISTOGRAM_BUCKETS);
        assert_true(vp_histogram_bucket_low(bucket) <= samples[i]);
        assert_true(samples[i] <= vp_histogram_bucket_high(bucket));
    }
    /* Relative width under 1/64 above the linear range. */
    size_t bucket = vp_histogram_bucket_of(1000000);
    double width = (double)(vp_histogram_bucket_high(bucket) - vp_histogram_bucket_low(bucket) + 1);
    assert_true(width / 1000000.0 <= 1.0 / 64);
}

static void merging_equals_recording_everything_once(void **state)
{
    (void)state;
    struct vp_histogram *a = malloc(sizeof *a), *b = malloc(sizeof *b), *all = malloc(sizeof *all);
    vp_histogram_reset(a);
    vp_histogram_reset(b);
    vp_histogram_reset(all);
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t value = x % 10000000;
        vp_histogram_record(i % 3 ? a : b, value);
        vp_histogram_record(all, value);
    }
    vp_histogram_merge(a, b);
    assert_int_equal(a->count, all->count);
    assert_int_equal(a->min_ns, all->min_ns);
    assert_int_equal(a->max_ns, all->max_ns);
    assert_memory_equal(a->buckets, all->buckets, sizeof a->buckets);
    assert_int_equal(vp_histogram_percentile(a, 99), vp_histogram_percentile(all, 99));
    free(a);
    free(b);
    free(all);
}

static void percentiles_are_within_a_bucket_of_the_truth(void **state)
{
    (void)state;
    struct vp_histogram *histogram = malloc(sizeof *histogram);
    vp_histogram_reset(histogram);
    for (uint64_t value = 1; value <= 10000; value++)
        vp_histogram_record(histogram, value * 1000); /* 1 us .. 10 ms, uniform */
    const struct { double pct; double truth; } cases[] = {
        { 50, 5000000 }, { 90, 9000000 }, { 99, 9900000 }, { 99.9, 9990000 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = (double)vp_histogram_percentile(histogram, cases[i].pct);
        assert_true(got > cases[i].truth * (1 - 1.0 / 64) && got < cases[i].truth * (1 + 1.0 / 64));
    }
    assert_int_equal(vp_histogram_percentile(histogram, 100), 10000000);
    assert_int_equal(vp_histogram_percentile(histogram, 0), 1000);
    struct vp_histogram *empty = malloc(sizeof *empty);
    vp_histogram_reset(empty);
    assert_int_equal(vp_histogram_percentile(empty, 50), 0);
    free(empty);
    free(histogram);
}

static void json_round_trip_keeps_buckets_and_statistics(void **state)
{
    (void)state;
    struct vp_histogram *histogram = malloc(sizeof *histogram), *back = malloc(sizeof *back);
    vp_histogram_reset(histogram);
    for (uint64_t value = 100; value < 50000; value += 37)
        vp_histogram_record(histogram, value);
    json_t *object = vp_histogram_json(histogram);
    assert_int_equal(json_integer_value(json_object_get(object, "count")), histogram->count);
    assert_float_equal(json_real_value(json_object_get(object, "min")), 100e-9, 1e-15);
    vp_histogram_from_json(object, back);
    assert_memory_equal(back->buckets, histogram->buckets, sizeof back->buckets);
    assert_int_equal(back->min_ns, histogram->min_ns);
    assert_int_equal(back->max_ns, histogram->max_ns);
    json_t *again = vp_histogram_json(back);
    assert_true(json_equal(json_object_get(again, "p99"), json_object_get(object, "p99")));
    json_decref(object);
    json_decref(again);
    free(histogram);
    free(back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buckets_tile_the_value_range),
        cmocka_unit_test(merging_equals_recording_everything_once),
        cmocka_unit_test(percentiles_are_within_a_bucket_of_the_truth),
        cmocka_unit_test(json_round_trip_keeps_buckets_and_statistics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
