/* Unit tests for run/fill.c: a fill doubles from its first count until a count breaks or
 * no more may start, then halves the gap to find the optimum to one member; its SPEC is
 * refused with what is accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "run/fill.h"

/* Runs a fill from first to most where every count up to limit holds and the others
 * break for why; room is what memory allows beyond the largest count that held. Returns
 * the counts measured, in order, as "1,2,4,3". */
static const char *filled(unsigned first, unsigned most, unsigned limit, enum vp_fill_stop why,
                          unsigned room, struct vp_fill *fill)
{
    static char order[256];
    order[0] = '\0';
    vp_fill_begin(fill, first, most);
    for (unsigned count = vp_fill_next(fill, room); count; count = vp_fill_next(fill, room)) {
        snprintf(order + strlen(order), sizeof order - strlen(order), "%s%u",
                 order[0] ? "," : "", count);
        vp_fill_judged(fill, count <= limit ? VP_FILL_GOING : why);
    }
    return order;
}

static void a_fill_doubles_then_halves_the_gap(void **state)
{
    (void)state;
    struct vp_fill fill;
    assert_string_equal(filled(1, 32, 5, VP_FILL_RULE, -1u, &fill), "1,2,4,8,6,5");
    assert_int_equal(fill.good, 5);
    assert_int_equal(fill.bad, 6);
    assert_int_equal(fill.why, VP_FILL_RULE);
    assert_string_equal(filled(1, 32, 4, VP_FILL_CPU, -1u, &fill), "1,2,4,8,6,5");
    assert_int_equal(fill.good, 4);
    assert_int_equal(fill.why, VP_FILL_CPU);
    /* a step of one: nothing between */
    assert_string_equal(filled(1, 32, 1, VP_FILL_RULE, -1u, &fill), "1,2");
    assert_int_equal(fill.good, 1);
    /* from 3 */
    assert_string_equal(filled(3, 32, 7, VP_FILL_RULE, -1u, &fill), "3,6,12,9,7,8");
    assert_int_equal(fill.good, 7);
    assert_int_equal(fill.bad, 8);
}

static void a_fill_stops_at_the_most_and_where_memory_ends(void **state)
{
    (void)state;
    struct vp_fill fill;
    assert_string_equal(filled(1, 6, 32, VP_FILL_RULE, -1u, &fill), "1,2,4,6");
    assert_int_equal(fill.good, 6);
    assert_int_equal(fill.bad, 0);
    assert_int_equal(fill.why, VP_FILL_MOST);
    /* memory for one more each time */
    assert_string_equal(filled(1, 32, 32, VP_FILL_RULE, 1, &fill), "1,2,3,4,5,6,7,8,9,10,11,12,"
                        "13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32");
    assert_int_equal(fill.why, VP_FILL_MOST);
    /* no memory for any */
    assert_string_equal(filled(1, 32, 32, VP_FILL_RULE, 0, &fill), "");
    assert_int_equal(fill.good, 0);
    assert_int_equal(fill.why, VP_FILL_MEMORY);
    /* the first count breaking: no optimum */
    assert_string_equal(filled(2, 32, 1, VP_FILL_MEMORY, -1u, &fill), "2");
    assert_int_equal(fill.good, 0);
    assert_int_equal(fill.why, VP_FILL_MEMORY);
}

static void room_for_some_caps_the_next_count(void **state)
{
    (void)state;
    struct vp_fill fill;
    vp_fill_begin(&fill, 1, 32);
    assert_int_equal(vp_fill_next(&fill, -1u), 1);
    vp_fill_judged(&fill, VP_FILL_GOING);
    assert_int_equal(vp_fill_next(&fill, -1u), 2);
    vp_fill_judged(&fill, VP_FILL_GOING);
    assert_int_equal(vp_fill_next(&fill, 1), 3); /* 4 wanted, memory for one more */
    vp_fill_judged(&fill, VP_FILL_GOING);
    assert_int_equal(vp_fill_next(&fill, 0), 0);
    assert_int_equal(fill.good, 3);
    assert_int_equal(fill.why, VP_FILL_MEMORY);
}

static void specs(void **state)
{
    (void)state;
    unsigned first = 0, most = 0;
    char err[256];
    assert_int_equal(vp_fill_parse("--guests", "1..8", 32, &first, &most, err, sizeof err), 0);
    assert_int_equal(vp_fill_parse("--guests", "4", 32, &first, &most, err, sizeof err), 0);
    assert_int_equal(vp_fill_parse("--guests", "1..auto", 32, &first, &most, err, sizeof err), 1);
    assert_int_equal(first, 1);
    assert_int_equal(most, 32);
    assert_int_equal(vp_fill_parse("--guests", "2..auto:6", 32, &first, &most, err, sizeof err), 1);
    assert_int_equal(first, 2);
    assert_int_equal(most, 6);
    const char *bad[] = { "0..auto", "..auto", "7..auto:6", "1..auto:33", "1..auto:", "1..autox",
                          "x..auto", "1..auto:6x", "99999999..auto" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(vp_fill_parse("--containers", bad[i], 32, &first, &most, err, sizeof err),
                         -1);
        assert_non_null(strstr(err, "--containers: '"));
        assert_non_null(strstr(err, "accepted: A..auto or A..auto:MOST"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_fill_doubles_then_halves_the_gap),
        cmocka_unit_test(a_fill_stops_at_the_most_and_where_memory_ends),
        cmocka_unit_test(room_for_some_caps_the_next_count),
        cmocka_unit_test(specs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
