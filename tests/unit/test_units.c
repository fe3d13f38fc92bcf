/* Unit tests for units.c: sizes, durations, counts, job specs, CPU lists, formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "bench/bench.h"
#include "core/clock.h"
#include "core/units.h"

static void sizes_use_powers_of_1024(void **state)
{
    (void)state;
    uint64_t bytes;
    assert_int_equal(vp_parse_size("4096", &bytes), 0);
    assert_int_equal(bytes, 4096);
    assert_int_equal(vp_parse_size("64k", &bytes), 0);
    assert_int_equal(bytes, 65536);
    assert_int_equal(vp_parse_size("256M", &bytes), 0);
    assert_int_equal(bytes, 268435456);
    assert_int_equal(vp_parse_size("1g", &bytes), 0);
    assert_int_equal(bytes, 1073741824);
    assert_int_equal(vp_parse_size("2KiB", &bytes), 0);
    assert_int_equal(bytes, 2048);
    assert_int_equal(vp_parse_size("1t", &bytes), 0);
    assert_int_equal(bytes, 1099511627776ULL);
}

static void bad_sizes_are_refused(void **state)
{
    (void)state;
    uint64_t bytes = 7;
    const char *bad[] = { "", "k", "-1", "12x", "1.5g", " 4k", "4k ", "99999999999999999999",
                          "17179869184g", "4kk" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(vp_parse_size(bad[i], &bytes), -1);
    assert_int_equal(bytes, 7);
}

static void durations_take_suffixes(void **state)
{
    (void)state;
    double seconds;
    assert_int_equal(vp_parse_duration("10", &seconds), 0);
    assert_true(seconds == 10.0);
    assert_int_equal(vp_parse_duration("2.5s", &seconds), 0);
    assert_true(seconds == 2.5);
    assert_int_equal(vp_parse_duration("500ms", &seconds), 0);
    assert_true(seconds == 0.5);
    assert_int_equal(vp_parse_duration("100us", &seconds), 0);
    assert_true(seconds > 0.99e-4 && seconds < 1.01e-4);
    assert_int_equal(vp_parse_duration("2min", &seconds), 0);
    assert_true(seconds == 120.0);
    assert_int_equal(vp_parse_duration("-1s", &seconds), -1);
    assert_int_equal(vp_parse_duration("5h", &seconds), -1);
    assert_int_equal(vp_parse_duration("s", &seconds), -1);
    assert_int_equal(vp_parse_duration("nan", &seconds), -1);
    assert_int_equal(vp_parse_duration("inf", &seconds), -1);
}

static void counts_use_powers_of_1000(void **state)
{
    (void)state;
    uint64_t value;
    assert_int_equal(vp_parse_count("4m", &value), 0);
    assert_int_equal(value, 4000000);
    assert_int_equal(vp_parse_count("50", &value), 0);
    assert_int_equal(value, 50);
    assert_int_equal(vp_parse_count("3x", &value), -1);
}

static void jobs_specs_expand(void **state)
{
    (void)state;
    unsigned counts[16];
    size_t n;
    assert_int_equal(vp_parse_jobs_spec("4", 64, counts, 16, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(counts[0], 4);
    assert_int_equal(vp_parse_jobs_spec("1,2,4", 64, counts, 16, &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(counts[2], 4);
    assert_int_equal(vp_parse_jobs_spec("1..8", 64, counts, 16, &n), 0);
    assert_int_equal(n, 8);
    assert_int_equal(counts[7], 8);
    assert_int_equal(vp_parse_jobs_spec("1..3,8", 64, counts, 16, &n), 0);
    assert_int_equal(n, 4);
    assert_int_equal(counts[3], 8);
}

static void bad_jobs_specs_are_refused(void **state)
{
    (void)state;
    unsigned counts[16];
    size_t n;
    const char *bad[] = { "", "0", "2,1", "1..", "..3", "3..1", "1,,2", "1,", "65", "x",
                          "1..20", "2,2" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(vp_parse_jobs_spec(bad[i], 64, counts, 16, &n), -1);
}

static void cpu_lists_expand_ranges(void **state)
{
    (void)state;
    int cpus[16];
    size_t n;
    assert_int_equal(vp_parse_cpu_list("0,2,4-6", 15, cpus, 16, &n), 0);
    assert_int_equal(n, 5);
    int want[] = { 0, 2, 4, 5, 6 };
    assert_memory_equal(cpus, want, sizeof want);
    assert_int_equal(vp_parse_cpu_list("3,1", 15, cpus, 16, &n), 0);
    assert_int_equal(cpus[0], 3);
    assert_int_equal(vp_parse_cpu_list("1,1", 15, cpus, 16, &n), -1);
    assert_int_equal(vp_parse_cpu_list("16", 15, cpus, 16, &n), -1);
    assert_int_equal(vp_parse_cpu_list("6-4", 15, cpus, 16, &n), -1);
    assert_int_equal(vp_parse_cpu_list("a", 15, cpus, 16, &n), -1);
}

static void values_format_in_human_units(void **state)
{
    (void)state;
    char buf[64];
    vp_format_value(2.5 * 1024 * 1024 * 1024, "B/s", VP_UNITS_FIELD, buf, sizeof buf);
    assert_string_equal(buf, "2.5 GiB/s");
    vp_format_value(85.2e-9, "s", VP_UNITS_FIELD, buf, sizeof buf);
    assert_string_equal(buf, "85.2 ns");
    vp_format_value(0.0123, "s", VP_UNITS_FIELD, buf, sizeof buf);
    assert_string_equal(buf, "12.3 ms");
    vp_format_value(1.5e9, "ops/s", VP_UNITS_FIELD, buf, sizeof buf);
    assert_string_equal(buf, "1.5 G/s");
    vp_format_value(268435456, "B", VP_UNITS_FIELD, buf, sizeof buf);
    assert_string_equal(buf, "256 MiB");
    vp_format_value(9.4e8, "bit/s", VP_UNITS_FIELD, buf, sizeof buf);
    assert_string_equal(buf, "940 Mbit/s");
}

/* --units: network in bits and disk in SI bytes by default (as each benchmark declares),
 * or one style for all. */
static void byte_rates_follow_the_units_style(void **state)
{
    (void)state;
    char buf[64];
    enum vp_unit_style field = VP_UNITS_FIELD;
    vp_format_value(1.25e9, "B/s", vp_units_pick(field, vp_bench_units("net.stream")), buf,
                    sizeof buf);
    assert_string_equal(buf, "10 Gb/s");
    enum vp_unit_style disk = vp_units_pick(field, vp_bench_units("disk.read"));
    vp_format_value(250e6, "B/s", disk, buf, sizeof buf);
    assert_string_equal(buf, "250 MB/s");
    vp_format_value(268435456, "B", disk, buf, sizeof buf);
    assert_string_equal(buf, "268.4 MB");
    vp_format_value(2.5 * 1024 * 1024 * 1024, "B/s",
                    vp_units_pick(field, vp_bench_units("mem.stream")), buf, sizeof buf);
    assert_string_equal(buf, "2.5 GiB/s");
    enum vp_unit_style chosen;
    assert_int_equal(vp_units_parse("iec", &chosen), 0);
    vp_format_value(1.25e9, "B/s", vp_units_pick(chosen, vp_bench_units("net.stream")), buf,
                    sizeof buf);
    assert_string_equal(buf, "1.164 GiB/s");
    assert_int_equal(vp_units_parse("bits", &chosen), 0);
    vp_format_value(250e6, "B/s", vp_units_pick(chosen, vp_bench_units("disk.read")), buf,
                    sizeof buf);
    assert_string_equal(buf, "2 Gb/s");
    assert_int_equal(vp_units_parse("decimal", &chosen), -1);
}

/* A UTC instant as vp_utc_instant writes it reads back to the millisecond; anything
 * else is -1. */
static void utc_instants_read_back(void **state)
{
    (void)state;
    char text[48];
    int64_t at = 1796639242807000000LL; /* 2026-12-07T10:27:22.807Z */
    vp_utc_instant(at, text, sizeof text);
    assert_string_equal(text, "2026-12-07T10:27:22.807Z");
    assert_true(vp_utc_seconds(text) == 1796639242.807);
    assert_true(vp_utc_seconds("2026-12-07T10:27:22Z") == -1);
    assert_true(vp_utc_seconds("") == -1);
    assert_true(vp_utc_seconds(NULL) == -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(utc_instants_read_back),
        cmocka_unit_test(sizes_use_powers_of_1024),
        cmocka_unit_test(bad_sizes_are_refused),
        cmocka_unit_test(durations_take_suffixes),
        cmocka_unit_test(counts_use_powers_of_1000),
        cmocka_unit_test(jobs_specs_expand),
        cmocka_unit_test(bad_jobs_specs_are_refused),
        cmocka_unit_test(cpu_lists_expand_ranges),
        cmocka_unit_test(values_format_in_human_units),
        cmocka_unit_test(byte_rates_follow_the_units_style),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
