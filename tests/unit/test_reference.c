/* Unit tests for reference.c: a study's figures in a plan file, their keys, units and
 * job counts, and the errors that name what was wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "analysis/reference.h"

static void figures_are_converted_to_the_metric_unit(void **state)
{
    (void)state;
    struct vp_reference figure;
    char err[1024];
    assert_int_equal(vp_reference_parse("then.disk.write.throughput", "0.32 Gb/s", &figure, err,
                                        sizeof err), 0);
    assert_string_equal(figure.bench, "disk.write");
    assert_string_equal(figure.metric, "throughput");
    assert_string_equal(figure.unit, "B/s");
    assert_false(figure.penalty);
    assert_int_equal(figure.jobs, 0);
    assert_float_equal(figure.value, 0.32e9 / 8, 1e-3);
    assert_int_equal(vp_reference_parse("then.data.copy.job_time@70", "45min", &figure, err,
                                        sizeof err), 0);
    assert_string_equal(figure.bench, "data.copy");
    assert_int_equal(figure.jobs, 70);
    assert_float_equal(figure.value, 2700, 1e-9);
    assert_int_equal(vp_reference_parse("then.mem.write.time@4", " 112 s ", &figure, err,
                                        sizeof err), 0);
    assert_float_equal(figure.value, 112, 1e-9);
    assert_int_equal(vp_reference_parse("then.mem.write.time", "36", &figure, err, sizeof err), 0);
    assert_float_equal(figure.value, 36, 1e-9);
    assert_int_equal(vp_reference_parse("then.net.rr.latency", "350us", &figure, err,
                                        sizeof err), 0);
    assert_float_equal(figure.value, 350e-6, 1e-12);
    assert_int_equal(vp_reference_parse("then.mem.write.bandwidth", "2 MiB/s", &figure, err,
                                        sizeof err), 0);
    assert_float_equal(figure.value, 2097152, 1e-6);
}

static void penalties_are_percentages(void **state)
{
    (void)state;
    struct vp_reference figure;
    char err[1024];
    assert_int_equal(vp_reference_parse("then-penalty.disk.read.throughput@8", "40%", &figure,
                                        err, sizeof err), 0);
    assert_true(figure.penalty);
    assert_int_equal(figure.jobs, 8);
    assert_float_equal(figure.value, 40, 1e-9);
    assert_int_equal(vp_reference_parse("then-penalty.net.stream.throughput", "-3 %", &figure,
                                        err, sizeof err), 0);
    assert_float_equal(figure.value, -3, 1e-9);
    assert_int_equal(vp_reference_parse("then-penalty.net.stream.throughput", "3", &figure, err,
                                        sizeof err), -1);
    assert_non_null(strstr(err, "'3' is not a penalty"));
}

static void bad_figures_say_what_is_accepted(void **state)
{
    (void)state;
    struct vp_reference figure;
    char err[1024];
    assert_false(vp_reference_key("reference"));
    assert_true(vp_reference_key("then.disk.write.throughput"));
    assert_true(vp_reference_key("then-penalty.disk.write.throughput"));
    assert_int_equal(vp_reference_parse("then.nosuch.bench.x", "1", &figure, err, sizeof err), -1);
    assert_non_null(strstr(err, "no benchmark 'nosuch.bench'"));
    assert_int_equal(vp_reference_parse("then.disk.write.speed", "1", &figure, err, sizeof err), -1);
    assert_non_null(strstr(err, "disk.write has no metric 'speed'; accepted: throughput"));
    assert_int_equal(vp_reference_parse("then.disk.write.throughput", "1 s", &figure, err, sizeof err), -1);
    assert_non_null(strstr(err, "accepted: a number >= 0 and one of: B/s, kB/s"));
    assert_int_equal(vp_reference_parse("then.disk.write.throughput", "-1 MB/s", &figure, err,
                                        sizeof err), -1);
    assert_int_equal(vp_reference_parse("then.disk.write.throughput", "fast", &figure, err, sizeof err), -1);
    assert_int_equal(vp_reference_parse("then.disk.write.throughput@0", "1", &figure, err, sizeof err), -1);
    assert_non_null(strstr(err, "'@0' is not a job count"));
    assert_int_equal(vp_reference_parse("then.disk.write.throughput@", "1", &figure, err, sizeof err), -1);
    assert_int_equal(vp_reference_parse("then.throughput", "1", &figure, err, sizeof err), -1);
    assert_non_null(strstr(err, "no BENCH.METRIC"));
    assert_int_equal(vp_reference_parse("then.disk.write.", "1", &figure, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(figures_are_converted_to_the_metric_unit),
        cmocka_unit_test(penalties_are_percentages),
        cmocka_unit_test(bad_figures_say_what_is_accepted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
