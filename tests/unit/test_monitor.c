/* Unit tests for the monitor (monitor.c): which columns make a result's network input (the
 * interface its traffic took where it says and the monitor has it, else the headline
 * network.rx, each packet once, else, in a document recorded before there was one, every
 * interface's), and that bytes crossing a link just before it stops are counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/cache_evidence.h"
#include "core/clock.h"
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

/* Sends bytes from one end of a loopback TCP connection to the other and reads them all. */
static void loopback_bytes(size_t bytes)
{
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = { .sin_family = AF_INET,
                                   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t length = sizeof address;
    assert_int_equal(bind(listener, (struct sockaddr *)&address, sizeof address), 0);
    assert_int_equal(listen(listener, 1), 0);
    assert_int_equal(getsockname(listener, (struct sockaddr *)&address, &length), 0);
    int sender = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(connect(sender, (struct sockaddr *)&address, sizeof address), 0);
    int receiver = accept(listener, NULL, NULL);
    assert_true(receiver >= 0);
    static char chunk[64 * 1024];
    size_t sent = 0, received = 0;
    while (received < bytes) { /* chunks below the socket buffers: no deadlock */
        if (sent < bytes) {
            ssize_t n = write(sender, chunk, sizeof chunk);
            assert_true(n > 0);
            sent += (size_t)n;
        }
        ssize_t n = read(receiver, chunk, sizeof chunk);
        assert_true(n > 0);
        received += (size_t)n;
    }
    close(receiver);
    close(sender);
    close(listener);
}

/* Bytes that cross a link after the last sample and too soon before the stop for a row of
 * their own still count: the last row is widened to the stop (they were dropped, and a
 * short transfer's network input read a third low). */
static void the_last_bytes_before_stop_count(void **state)
{
    (void)state;
    char err[256];
    struct vp_monitor *monitor = vp_monitor_start(2, NULL, 0, NULL, err, sizeof err);
    assert_non_null(monitor);
    vp_sleep_until_ns(vp_now_ns() + 520 * 1000 * 1000); /* just past the sample at 500 ms */
    size_t bytes = 8 << 20;
    loopback_bytes(bytes);
    json_t *document = vp_monitor_stop(monitor); /* within 100 ms, 0.2 of a period */
    assert_non_null(json_object_get(json_object_get(document, "series"), "net.lo.rx"));
    double counted = vp_monitor_integral(document, "net.lo.rx");
    assert_true(counted >= (double)bytes);
    json_decref(document);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_route_then_the_headline_then_every_interface),
        cmocka_unit_test(a_result_names_its_route),
        cmocka_unit_test(a_mean_reads_both_forms),
        cmocka_unit_test(the_last_bytes_before_stop_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
