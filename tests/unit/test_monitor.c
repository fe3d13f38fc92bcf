/* Unit tests for reading a monitor's document (monitor.c): which columns make a result's
 * network input: the interface its traffic took where it says and the monitor has it,
 * else the headline network.rx (each packet once), else, in a document recorded before
 * there was one, every interface's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>

#include "core/monitor.h"

static const char *const columns[] = { "network.rx", "net.lo.rx", "net.br0.rx", "net.eth0.rx",
                                       "net.eth0.tx", "cpu.busy" };
#define COLUMN_COUNT (sizeof columns / sizeof columns[0])

/* Which of columns count as input, as a bit per column. */
static unsigned counted(const json_t *present, const char *route)
{
    unsigned bits = 0;
    for (size_t i = 0; i < COLUMN_COUNT; i++)
        if (json_object_get(present, columns[i]) &&
            vp_monitor_network_column(present, columns[i], "rx", route))
            bits |= 1u << i;
    return bits;
}

static void the_route_then_the_headline_then_every_interface(void **state)
{
    (void)state;
    json_t *now = json_object();
    for (size_t i = 0; i < COLUMN_COUNT; i++)
        json_object_set_new(now, columns[i], json_array());
    assert_int_equal(counted(now, "lo"), 1u << 1);    /* a loopback peer: lo alone */
    assert_int_equal(counted(now, "br0"), 1u << 2);
    assert_int_equal(counted(now, NULL), 1u << 0);    /* no route said: the headline */
    assert_int_equal(counted(now, "gone0"), 1u << 0); /* a route not monitored: the same */
    json_object_del(now, "network.rx");               /* a document from before */
    assert_int_equal(counted(now, NULL), (1u << 1) | (1u << 2) | (1u << 3));
    json_decref(now);
}

static void a_result_names_its_route(void **state)
{
    (void)state;
    json_t *net = json_pack("{s:{s:s}}", "peer", "interface", "eth0");
    json_t *data = json_pack("{s:{s:s}}", "data", "network_interface", "br0");
    json_t *neither = json_pack("{s:{s:s}}", "peer", "interface", "");
    assert_string_equal(vp_result_route(net), "eth0");
    assert_string_equal(vp_result_route(data), "br0");
    assert_null(vp_result_route(neither));
    json_decref(net);
    json_decref(data);
    json_decref(neither);
}

/* A column's mean from a result's {"mean", "max"} and from a read of summaries' bare
 * number alike; none for a column not there or not a figure. */
static void a_mean_reads_both_forms(void **state)
{
    (void)state;
    json_t *summary = json_pack("{s:{s:f,s:f},s:f,s:s}", "cpu.busy", "mean", 42.5, "max", 99.0,
                                "runq", 2.25, "odd", "text");
    assert_float_equal(vp_monitor_mean(summary, "cpu.busy"), 42.5, 0);
    assert_float_equal(vp_monitor_mean(summary, "runq"), 2.25, 0);
    assert_true(isnan(vp_monitor_mean(summary, "cpu.steal")));
    assert_true(isnan(vp_monitor_mean(summary, "odd")));
    json_decref(summary);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_route_then_the_headline_then_every_interface),
        cmocka_unit_test(a_result_names_its_route),
        cmocka_unit_test(a_mean_reads_both_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
