/* Unit tests for engine/window.c, the arithmetic of starting hosts together: the clock
 * estimate keeps the exchange with the shortest round trip; windows of two hosts merge
 * into the one every job ran in; the stonewalled and span rates from the bytes in it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "engine/window.h"

static void shortest_round_trip_wins(void **state)
{
    (void)state;
    struct vp_clock_estimate estimate;
    vp_clock_estimate_init(&estimate);
    vp_clock_estimate_add(&estimate, 1000, 5600, 2000);   /* rtt 1000: offset 4100 */
    vp_clock_estimate_add(&estimate, 3000, 7350, 3200);   /* rtt 200: offset 4250 */
    vp_clock_estimate_add(&estimate, 4000, 99999, 4900);  /* rtt 900: not better */
    vp_clock_estimate_add(&estimate, 6000, 0, 5000);      /* a clock going back: ignored */
    assert_int_equal(estimate.best_rtt_ns, 200);
    assert_int_equal(estimate.offset_ns, 4250);
    assert_int_equal(estimate.bound_ns, 100);
}

static void windows_merge_and_give_rates(void **state)
{
    (void)state;
    int64_t a[VP_WINDOW_WORDS], b[VP_WINDOW_WORDS];
    vp_window_empty(a);
    vp_window_empty(b);
    /* host a's jobs ran 0..1000 ns, host b's 200..1500 ns (as maxima: see window.h) */
    int64_t from_a[VP_WINDOW_WORDS] = { 0, -1000, 0, 1000 };
    int64_t from_b[VP_WINDOW_WORDS] = { 200, -1500, -200, 1500 };
    vp_window_merge(a, from_a);
    vp_window_merge(b, from_b);
    vp_window_merge(a, b);
    assert_int_equal(a[0], 200);    /* the latest start */
    assert_int_equal(-a[1], 1000);  /* the earliest done */
    assert_int_equal(-a[2], 0);     /* the earliest start */
    assert_int_equal(a[3], 1500);   /* the latest done */
    double bytes[VP_WINDOW_BYTES] = { 800, 3000, 0 }, stonewall, span;
    vp_window_rates(a, bytes, &stonewall, &span);
    assert_true(fabs(stonewall - 800 / 800e-9) < 1);
    assert_true(fabs(span - 3000 / 1500e-9) < 1);
    bytes[2] = 1; /* a job's log overflowed: no rate is known */
    vp_window_rates(a, bytes, &stonewall, &span);
    assert_true(isnan(stonewall) && isnan(span));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shortest_round_trip_wins),
        cmocka_unit_test(windows_merge_and_give_rates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
