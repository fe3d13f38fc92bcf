/* Unit tests for stats.c against hand-computed values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "core/stats.h"

#define EPSILON 1e-12

static void mean_and_sample_stddev(void **state)
{
    (void)state;
    /* 2 4 4 4 5 5 7 9: mean 5, squares sum 32, sample variance 32/7. */
    double values[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
    assert_float_equal(vp_mean(values, 8), 5.0, EPSILON);
    assert_float_equal(vp_stddev(values, 8), sqrt(32.0 / 7.0), EPSILON);
    assert_float_equal(vp_stddev(values, 1), 0.0, EPSILON);
    assert_true(isnan(vp_mean(values, 0)));
}

static void percentiles_interpolate_between_ranks(void **state)
{
    (void)state;
    double values[] = { 40, 10, 30, 20 }; /* sorted 10 20 30 40 */
    assert_float_equal(vp_percentile(values, 4, 50), 25.0, EPSILON);
    assert_float_equal(vp_percentile(values, 4, 0), 10.0, EPSILON);
    assert_float_equal(vp_percentile(values, 4, 100), 40.0, EPSILON);
    /* rank 0.9 * 3 = 2.7: 30 + 0.7 * 10 */
    assert_float_equal(vp_percentile(values, 4, 90), 37.0, EPSILON);
    assert_float_equal(values[0], 40.0, EPSILON); /* input untouched */
    double one = 3.5;
    assert_float_equal(vp_percentile(&one, 1, 99), 3.5, EPSILON);
}

static void summary_collects_everything(void **state)
{
    (void)state;
    double values[] = { 3, 1, 2 };
    struct vp_summary summary;
    vp_summarize(values, 3, &summary);
    assert_int_equal(summary.n, 3);
    assert_float_equal(summary.mean, 2.0, EPSILON);
    assert_float_equal(summary.stddev, 1.0, EPSILON);
    assert_float_equal(summary.min, 1.0, EPSILON);
    assert_float_equal(summary.max, 3.0, EPSILON);
    assert_float_equal(summary.p50, 2.0, EPSILON);
    assert_float_equal(summary.p99, 2.98, EPSILON);
    vp_summarize(values, 0, &summary);
    assert_true(isnan(summary.mean) && summary.n == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mean_and_sample_stddev),
        cmocka_unit_test(percentiles_interpolate_between_ranks),
        cmocka_unit_test(summary_collects_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
