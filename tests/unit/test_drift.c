/* Unit tests for drift.c: synthetic exchange series with a known offset, drift, jitter,
 * asymmetric delay and steps, built the way a real exchange happens (the local clock
 * stamps t1 and t4, the reference t2 and t3), must be recovered within stated bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "core/drift.h"
#include "core/random.h"

#define WINDOWS 120
#define PER_WINDOW 8

struct scenario {
    double offset, drift_ppm;     /* local minus reference at t = 0, and its rate */
    double forward, back;         /* fixed one-way delays, s */
    double queueing;              /* up to this much extra per direction, uniform, s */
    double step_at, step;         /* the local clock jumps by step at step_at (s) */
};

static double uniform(uint64_t *state)
{
    return (double)(vp_xorshift64(state) >> 11) / 9007199254740992.0;
}

static double local_clock(const struct scenario *s, double t)
{
    return t + s->offset + s->drift_ppm * 1e-6 * t + (s->step != 0 && t >= s->step_at ? s->step : 0);
}

static int64_t ns(double seconds)
{
    return (int64_t)llround(seconds * 1e9);
}

/* One kept sample per window, as time.drift keeps them; true local-minus-reference
 * offsets at each sample's send instant go to truth. */
static void simulate(const struct scenario *s, struct vp_time_sample *samples, double *truth)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int w = 0; w < WINDOWS; w++) {
        struct vp_time_exchange exchanges[PER_WINDOW];
        for (int k = 0; k < PER_WINDOW; k++) {
            double sent = w * 1.0 + k * 0.005;
            double arrive = sent + s->forward + s->queueing * uniform(&seed);
            double reply = arrive + 20e-6;
            double back = reply + s->back + s->queueing * uniform(&seed);
            exchanges[k] = (struct vp_time_exchange){ .t1 = ns(local_clock(s, sent)),
                                                      .t2 = ns(arrive), .t3 = ns(reply),
                                                      .t4 = ns(local_clock(s, back)),
                                                      .at = sent };
        }
        samples[w] = vp_time_best_of(exchanges, PER_WINDOW);
        truth[w] = local_clock(s, samples[w].at) - samples[w].at;
    }
}

/* Simulates s and estimates with a 1 ms step threshold. */
static void simulate_and_estimate(const struct scenario *s, struct vp_time_sample *samples,
                                  double *truth, struct vp_drift_estimate *e)
{
    simulate(s, samples, truth);
    vp_drift_estimate(samples, WINDOWS, 1e-3, e);
}

static void check_offsets_within_error_bound(const struct vp_time_sample *samples,
                                             const double *truth, const struct vp_drift_estimate *e)
{
    for (int w = 0; w < WINDOWS; w++)
        assert_true(fabs(samples[w].offset - truth[w]) <= samples[w].delay / 2 + 1e-9);
    assert_true(fabs(e->offset_start - truth[0]) <= e->error_bound + 1e-9);
    assert_true(fabs(e->offset_end - truth[WINDOWS - 1]) <= e->error_bound + 1e-9);
}

static void known_offset_and_drift_with_jitter(void **state)
{
    (void)state;
    struct scenario s = { .offset = 3e-3, .drift_ppm = 40, .forward = 100e-6, .back = 100e-6,
                          .queueing = 400e-6 };
    struct vp_time_sample samples[WINDOWS];
    double truth[WINDOWS];
    struct vp_drift_estimate e;
    simulate_and_estimate(&s, samples, truth, &e);
    assert_int_equal(e.samples, WINDOWS);
    assert_int_equal(e.steps, 0);
    assert_true(fabs(e.drift_ppm - 40) < 0.5);
    /* the standard error is small and the truth within a few of it */
    assert_true(e.drift_error_ppm > 0 && e.drift_error_ppm < 0.5);
    assert_true(fabs(e.drift_ppm - 40) < 4 * e.drift_error_ppm);
    assert_true(fabs(e.offset_start - 3e-3) < 300e-6);
    /* 119 s at 40 ppm: 4.76 ms more. */
    assert_true(fabs(e.offset_end - (3e-3 + 119 * 40e-6)) < 300e-6);
    assert_true(e.jitter > 0 && e.jitter < 200e-6);
    assert_true(e.error_bound >= 100e-6 && e.error_bound < 600e-6);
    assert_true(fabs(e.max_offset - fabs(e.offset_end)) < 300e-6);
    check_offsets_within_error_bound(samples, truth, &e);
}

/* 2 ms one way, 0.1 ms back: every offset is biased by about -0.95 ms, and the error
 * bound (half the delay) still covers the truth; a constant bias leaves the drift. */
static void asymmetric_delay_stays_within_error_bound(void **state)
{
    (void)state;
    struct scenario s = { .offset = -1e-3, .drift_ppm = -25, .forward = 2e-3, .back = 100e-6,
                          .queueing = 50e-6 };
    struct vp_time_sample samples[WINDOWS];
    double truth[WINDOWS];
    struct vp_drift_estimate e;
    simulate_and_estimate(&s, samples, truth, &e);
    assert_int_equal(e.steps, 0);
    assert_true(fabs(e.drift_ppm + 25) < 0.5);
    assert_true(e.offset_start < -1e-3 - 0.8e-3); /* the bias is there ... */
    assert_true(e.error_bound >= 1.05e-3);       /* ... and the bound covers it */
    check_offsets_within_error_bound(samples, truth, &e);
}

static void step_is_counted_and_drift_kept(void **state)
{
    (void)state;
    struct scenario s = { .offset = 0, .drift_ppm = 10, .forward = 100e-6, .back = 100e-6,
                          .queueing = 100e-6, .step_at = 60.5, .step = -50e-3 };
    struct vp_time_sample samples[WINDOWS];
    double truth[WINDOWS];
    struct vp_drift_estimate e;
    simulate_and_estimate(&s, samples, truth, &e);
    assert_int_equal(e.steps, 1);
    assert_true(fabs(e.largest_step + 50e-3) < 300e-6);
    assert_true(fabs(e.drift_ppm - 10) < 0.5); /* one plain line through both would give
                                                  about -1250 ppm */
    assert_true(e.max_offset > 49e-3);
    check_offsets_within_error_bound(samples, truth, &e);
}

/* 2000 ppm moves the offset 2 ms a window, above the 1 ms threshold: drift, not steps. */
static void fast_drift_is_not_a_step(void **state)
{
    (void)state;
    struct scenario s = { .offset = 0, .drift_ppm = 2000, .forward = 100e-6, .back = 100e-6,
                          .queueing = 100e-6 };
    struct vp_time_sample samples[WINDOWS];
    double truth[WINDOWS];
    struct vp_drift_estimate e;
    simulate_and_estimate(&s, samples, truth, &e);
    assert_int_equal(e.steps, 0);
    assert_true(fabs(e.drift_ppm - 2000) < 0.5);
}

/* One burst met a busy path (4 ms round trip, 1.9 ms of it one way): its offset is off by
 * 1.9 ms but within its error bound, so it is no step, and its weight keeps it from
 * tilting the drift (an unweighted fit would move about 19 ppm). */
static void busy_burst_is_no_step_and_does_not_tilt_drift(void **state)
{
    (void)state;
    struct vp_time_sample samples[20];
    for (int i = 0; i < 20; i++)
        samples[i] = (struct vp_time_sample){ .at = i, .offset = 5e-6 * i, .delay = 50e-6 };
    samples[3].delay = 4e-3;
    samples[3].offset += 1.9e-3;
    struct vp_drift_estimate e;
    vp_drift_estimate(samples, 20, 1e-3, &e);
    assert_int_equal(e.steps, 0);
    assert_true(fabs(e.drift_ppm - 5) < 0.1);
    assert_true(e.drift_error_ppm > 0 && e.drift_error_ppm < 1);
}

static void too_few_samples_leave_drift_out(void **state)
{
    (void)state;
    struct vp_time_sample one = { .at = 0, .offset = 2e-3, .delay = 1e-4 };
    struct vp_drift_estimate e;
    vp_drift_estimate(&one, 1, 1e-3, &e);
    assert_int_equal(e.samples, 1);
    assert_true(isnan(e.drift_ppm));
    assert_float_equal(e.offset_start, 2e-3, 1e-12);
    assert_float_equal(e.error_bound, 5e-5, 1e-12);
    assert_true(isnan(e.drift_error_ppm));
    /* two samples: a slope, but nothing left over to tell its error */
    struct vp_time_sample two[2] = { one, { .at = 1, .offset = 2e-3, .delay = 1e-4 } };
    vp_drift_estimate(two, 2, 1e-3, &e);
    assert_float_equal(e.drift_ppm, 0, 1e-6);
    assert_true(isnan(e.drift_error_ppm));
    vp_drift_estimate(&one, 0, 1e-3, &e);
    assert_int_equal(e.samples, 0);
    assert_true(isnan(e.drift_ppm));
}

static void best_of_keeps_smallest_delay(void **state)
{
    (void)state;
    /* Offsets 0 with delays 300 us, 100 us, 200 us. */
    struct vp_time_exchange x[3] = {
        { .t1 = 0, .t2 = 150000, .t3 = 150000, .t4 = 300000, .at = 0 },
        { .t1 = 1000000, .t2 = 1050000, .t3 = 1060000, .t4 = 1110000, .at = 1 },
        { .t1 = 2000000, .t2 = 2100000, .t3 = 2100000, .t4 = 2200000, .at = 2 },
    };
    struct vp_time_sample best = vp_time_best_of(x, 3);
    assert_float_equal(best.at, 1, 1e-12);
    assert_float_equal(best.delay, 100e-6, 1e-12);
    assert_float_equal(best.offset, 0, 1e-12);
    /* Local 1 ms ahead: t1 and t4 read 1 ms more than the reference would. */
    struct vp_time_exchange ahead = { .t1 = 1000000, .t2 = 50000, .t3 = 50000, .t4 = 1100000 };
    assert_float_equal(vp_time_sample_of(&ahead).offset, 1e-3, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_offset_and_drift_with_jitter),
        cmocka_unit_test(asymmetric_delay_stays_within_error_bound),
        cmocka_unit_test(step_is_counted_and_drift_kept),
        cmocka_unit_test(fast_drift_is_not_a_step),
        cmocka_unit_test(busy_burst_is_no_step_and_does_not_tilt_drift),
        cmocka_unit_test(too_few_samples_leave_drift_out),
        cmocka_unit_test(best_of_keeps_smallest_delay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
