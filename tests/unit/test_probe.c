/* net/probe.c: the gap tracker turns arrival instants into gaps (longest, count, total,
 * the listed ones with their wall-clock start) and outages (gaps joined across brief
 * answers), and the probe datagram and PROBE_REPORT
 * survive a round trip while malformed ones are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "net/probe.h"

#define MS 1000000LL

static void gaps_above_the_threshold_are_counted_and_listed(void **state)
{
    (void)state;
    struct vp_gaps gaps;
    vp_gaps_start(&gaps, 3 * MS, 1000 * MS, 5000 * MS); /* realtime = monotonic + 5 s */
    for (int64_t t = 1001; t <= 1100; t++) /* every ms for 100 ms */
        vp_gaps_arrival(&gaps, t * MS);
    vp_gaps_arrival(&gaps, 1400 * MS); /* silent for 300 ms */
    vp_gaps_arrival(&gaps, 1402 * MS); /* 2 ms: under the threshold */
    vp_gaps_arrival(&gaps, 1399 * MS); /* earlier than the latest: no silence ends */
    vp_gaps_end(&gaps, 1500 * MS);     /* silent to the end: 98 ms */
    assert_int_equal(gaps.arrivals, 102);
    assert_int_equal(gaps.count, 2);
    assert_int_equal(gaps.longest_ns, 300 * MS);
    assert_int_equal(gaps.total_ns, 398 * MS);
    /* the 2 ms of answers between the two gaps do not end the outage: 1100 to 1500 ms */
    assert_int_equal(gaps.longest_outage_ns, 400 * MS);
    assert_int_equal(gaps.listed_count, 2);
    assert_int_equal(gaps.listed[0].start_real_ns, 6100 * MS);
    assert_int_equal(gaps.listed[0].length_ns, 300 * MS);
    assert_int_equal(gaps.listed[1].length_ns, 98 * MS);
}

static void a_full_list_keeps_the_longest_gaps_in_order(void **state)
{
    (void)state;
    struct vp_gaps gaps;
    vp_gaps_start(&gaps, 3 * MS, 0, 0);
    int64_t t = 0;
    for (int i = 0; i < VP_PROBE_GAPS_LISTED + 10; i++) {
        t += i == 5 || i == VP_PROBE_GAPS_LISTED + 5 ? 500 * MS : 10 * MS;
        vp_gaps_arrival(&gaps, t);
    }
    assert_int_equal(gaps.count, VP_PROBE_GAPS_LISTED + 10);
    assert_int_equal(gaps.listed_count, VP_PROBE_GAPS_LISTED);
    size_t long_ones = 0;
    for (size_t i = 0; i < gaps.listed_count; i++) {
        long_ones += gaps.listed[i].length_ns == 500 * MS;
        if (i > 0)
            assert_true(gaps.listed[i].start_real_ns > gaps.listed[i - 1].start_real_ns);
    }
    assert_int_equal(long_ones, 2); /* the late long one displaced a short one */
}

static void the_longest_silence_counts_even_below_the_threshold(void **state)
{
    (void)state;
    struct vp_gaps gaps;
    vp_gaps_start(&gaps, 3 * MS, 0, 0);
    vp_gaps_arrival(&gaps, 1 * MS);
    vp_gaps_arrival(&gaps, 3 * MS);
    assert_int_equal(gaps.count, 0);
    assert_int_equal(gaps.longest_ns, 2 * MS);
    assert_int_equal(gaps.longest_outage_ns, 2 * MS);
}

static void outages_join_gaps_only_across_short_answered_stretches(void **state)
{
    (void)state;
    struct vp_gaps gaps;
    vp_gaps_start(&gaps, 3 * MS, 0, 0);
    int64_t t = 0;
    for (; t < 100 * MS; t += MS)
        vp_gaps_arrival(&gaps, t);
    vp_gaps_arrival(&gaps, 150 * MS); /* 51 ms silent ... */
    vp_gaps_arrival(&gaps, 151 * MS); /* ... two answers (1 ms, under the threshold) ... */
    vp_gaps_arrival(&gaps, 190 * MS); /* ... 39 ms silent again: one outage, 99..190 ms */
    for (t = 191 * MS; t < 300 * MS; t += MS)
        vp_gaps_arrival(&gaps, t);    /* answers for 100 ms: the outage is over */
    vp_gaps_arrival(&gaps, 360 * MS); /* a lone 61 ms gap: an outage of its own */
    for (t = 361 * MS; t < 400 * MS; t += MS)
        vp_gaps_arrival(&gaps, t);
    assert_int_equal(gaps.count, 3);
    assert_int_equal(gaps.longest_ns, 61 * MS);
    assert_int_equal(gaps.longest_outage_ns, 91 * MS);
    /* the end's silence joins the gap before it when the answers between were brief */
    vp_gaps_arrival(&gaps, 450 * MS);
    vp_gaps_end(&gaps, 550 * MS);
    assert_int_equal(gaps.longest_outage_ns, 151 * MS);
}

static void reports_round_trip_and_malformed_ones_are_refused(void **state)
{
    (void)state;
    struct vp_probe_report report = { .received = 900, .sent = 1000, .gap_count = 3,
                                      .longest_ns = 300 * MS, .total_ns = 310 * MS,
                                      .listed_count = 2 };
    report.listed[0] = (struct vp_gap){ 17 * MS, 300 * MS };
    report.listed[1] = (struct vp_gap){ 19 * MS, 5 * MS };
    uint8_t wire[VP_PROBE_REPORT_MAX_BYTES];
    size_t len = vp_probe_report_encode(&report, wire);
    assert_int_equal(len, VP_PROBE_REPORT_BYTES(2));
    struct vp_probe_report back;
    assert_int_equal(vp_probe_report_decode(wire, len, &back), 0);
    assert_int_equal(back.received, 900);
    assert_int_equal(back.listed[0].start_real_ns, 17 * MS);
    assert_int_equal(back.listed[1].length_ns, 5 * MS);
    assert_int_equal(vp_probe_report_decode(wire, len - 1, &back), -1); /* length vs count */
    wire[43] = 9;                                                        /* 9 listed, 3 gaps */
    assert_int_equal(vp_probe_report_decode(wire, VP_PROBE_REPORT_BYTES(9), &back), -1);
    report.listed[1].length_ns = 400 * MS; /* longer than the longest */
    len = vp_probe_report_encode(&report, wire);
    assert_int_equal(vp_probe_report_decode(wire, len, &back), -1);
}

static void probe_datagrams_round_trip(void **state)
{
    (void)state;
    uint8_t wire[VP_PROBE_MIN_BYTES + 8] = { 0 };
    vp_probe_encode(&(struct vp_probe){ 42, 123456789, VP_PROBE_ECHO }, wire);
    struct vp_probe back;
    assert_int_equal(vp_probe_decode(wire, sizeof wire, &back), 0);
    assert_int_equal(back.sequence, 42);
    assert_int_equal(back.sent_ns, 123456789);
    assert_int_equal(back.kind, VP_PROBE_ECHO);
    assert_int_equal(vp_probe_decode(wire, VP_PROBE_MIN_BYTES - 1, &back), -1);
    wire[16] = 9;
    assert_int_equal(vp_probe_decode(wire, sizeof wire, &back), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gaps_above_the_threshold_are_counted_and_listed),
        cmocka_unit_test(a_full_list_keeps_the_longest_gaps_in_order),
        cmocka_unit_test(outages_join_gaps_only_across_short_answered_stretches),
        cmocka_unit_test(the_longest_silence_counts_even_below_the_threshold),
        cmocka_unit_test(reports_round_trip_and_malformed_ones_are_refused),
        cmocka_unit_test(probe_datagrams_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
