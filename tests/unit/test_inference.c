/* Unit tests for inference.c: exact Mann-Whitney p-values and BH adjustments computed by
 * hand, Student t quantiles, and the coverage of the ratio intervals on synthetic data
 * with a known ratio. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "core/inference.h"
#include "core/random.h"

static void mann_whitney_exact_small_samples(void **state)
{
    (void)state;
    const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
    assert_float_equal(vp_mann_whitney_p(a3, 3, b3, 3), 2.0 / 20, 1e-12); /* U = 0 of C(6,3) */
    const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
    assert_float_equal(vp_mann_whitney_p(a5, 5, b5, 5), 2.0 / 252, 1e-12);
    const double odd[] = { 1, 3, 5 }, even[] = { 2, 4, 6 };
    /* U = 3; counts of U = 0..3 for 3 and 3 values: 1, 1, 2, 3 of 20. */
    assert_float_equal(vp_mann_whitney_p(odd, 3, even, 3), 2.0 * 7 / 20, 1e-12);
    assert_float_equal(vp_mann_whitney_p(b5, 5, a5, 5), 2.0 / 252, 1e-12); /* symmetric */
    const double tied_a[] = { 1, 1, 2, 2 }, tied_b[] = { 2, 3, 3, 4 };
    double p = vp_mann_whitney_p(tied_a, 4, tied_b, 4);
    assert_true(p > 0 && p < 0.2);
}

static void benjamini_hochberg_by_hand(void **state)
{
    (void)state;
    double p[] = { 0.01, 0.04, 0.03, 0.5 };
    vp_benjamini_hochberg(p, 4);
    assert_float_equal(p[0], 0.04, 1e-12);
    assert_float_equal(p[1], 0.04 * 4 / 3, 1e-12);
    assert_float_equal(p[2], 0.04 * 4 / 3, 1e-12);
    assert_float_equal(p[3], 0.5, 1e-12);
}

static void t_quantiles(void **state)
{
    (void)state;
    assert_float_equal(vp_t_quantile_975(10), 2.228, 1e-9);
    assert_float_equal(vp_t_quantile_975(5.5), (2.571 + 2.447) / 2, 1e-9);
    assert_float_equal(vp_t_quantile_975(1000), 1.962, 2e-3);
}

static double normal(uint64_t *state)
{
    double u1 = ((double)(vp_xorshift64(state) >> 11) + 0.5) / 9007199254740992.0;
    double u2 = ((double)(vp_xorshift64(state) >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* About 95% of intervals must cover the true ratio 0.9 of two scaled samples. */
/* --reps auto's rule: t(n-1) x SD / sqrt(n) / |mean|, worked by hand. */
static void relative_half_widths(void **state)
{
    (void)state;
    const double steady[] = { 7, 7, 7, 7, 7 }, ramp[] = { 1, 2, 3, 4, 5 }, negative[] = { -1, -2, -3, -4, -5 };
    assert_float_equal(vp_relative_half_width(steady, 5), 0, 1e-12);
    /* mean 3, SD sqrt(2.5), t(4) 2.776 */
    assert_float_equal(vp_relative_half_width(ramp, 5), 2.776 * sqrt(2.5) / sqrt(5) / 3, 1e-9);
    assert_float_equal(vp_relative_half_width(negative, 5), vp_relative_half_width(ramp, 5), 1e-12);
    assert_true(isnan(vp_relative_half_width(ramp, 1)));
    const double zero[] = { -1, 1 };
    assert_true(isnan(vp_relative_half_width(zero, 2)));
}

static void ratio_intervals_cover_the_truth(void **state)
{
    (void)state;
    const size_t sizes[] = { 5, 20 };
    for (size_t s = 0; s < 2; s++) {
        size_t n = sizes[s], covered = 0, trials = s == 0 ? 1000 : 120;
        uint64_t rng = 12345 + s;
        for (size_t trial = 0; trial < trials; trial++) {
            double base[20], candidate[20];
            for (size_t i = 0; i < n; i++) {
                base[i] = 100 * exp(0.05 * normal(&rng));
                candidate[i] = 90 * exp(0.05 * normal(&rng));
            }
            struct vp_ratio_interval interval;
            /* the median of a lognormal scales exactly with it: the truth is 0.9 */
            assert_int_equal(vp_ratio_interval(base, n, candidate, n, VP_CENTRE_MEDIAN, trial,
                                               &interval), 0);
            assert_string_equal(interval.method, n < VP_BOOTSTRAP_MIN_N ? "t-log" : "bootstrap");
            if (interval.low <= 0.9 && 0.9 <= interval.high)
                covered++;
        }
        double coverage = (double)covered / (double)trials;
        if (coverage < 0.90 || coverage > 0.99)
            fail_msg("n=%zu: coverage %.3f, want about 0.95", n, coverage);
    }
    const double bad[] = { 1, -1 };
    struct vp_ratio_interval interval;
    assert_int_equal(vp_ratio_interval(bad, 2, bad, 2, VP_CENTRE_MEAN, 1, &interval), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mann_whitney_exact_small_samples),
        cmocka_unit_test(benjamini_hochberg_by_hand),
        cmocka_unit_test(t_quantiles),
        cmocka_unit_test(relative_half_widths),
        cmocka_unit_test(ratio_intervals_cover_the_truth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
