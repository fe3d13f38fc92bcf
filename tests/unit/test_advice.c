/* Unit tests for advice.c: each advisory appears when its figure crosses the line and
 * not when it stays under it; failed results explain nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <jansson.h>

#include "analysis/advice.h"

static json_t *result_of(const char *text)
{
    json_error_t error;
    json_t *result = json_loads(text, 0, &error);
    assert_non_null(result);
    return result;
}

/* An array of the results in texts (NULL-terminated). */
static json_t *results_of(const char *const *texts)
{
    json_t *results = json_array();
    for (size_t i = 0; texts[i]; i++)
        json_array_append_new(results, result_of(texts[i]));
    return results;
}

/* The advisories of the given results, as one string joined by '|'. */
static char *advise(json_t *results, char *joined, size_t len)
{
    json_t *advisories = json_array();
    vp_result_advisories(results, advisories);
    joined[0] = '\0';
    size_t i;
    json_t *line;
    json_array_foreach(advisories, i, line) {
        strncat(joined, json_string_value(line), len - strlen(joined) - 2);
        strcat(joined, "|");
    }
    json_decref(advisories);
    json_decref(results);
    return joined;
}

static void late_timer_and_lost_ticks(void **state)
{
    (void)state;
    char text[2048];
    json_t *results = results_of((const char *const[]){
        "{\"bench\":\"time.timer\",\"status\":\"ok\",\"params\":{\"load\":\"cpu\"},"
        "\"metrics\":{\"latency\":{\"mean\":0.0004,\"distribution\":{\"p99\":0.0025}}}}",
        "{\"bench\":\"time.ticks\",\"status\":\"ok\",\"params\":{\"load\":\"io\"},"
        "\"metrics\":{\"lost_ticks\":{\"mean\":1.5}}}",
        NULL });
    advise(results, text, sizeof text);
    assert_non_null(strstr(text, "timer wake-ups are late: p99 2.5"));
    assert_non_null(strstr(text, "load=cpu"));
    assert_non_null(strstr(text, "timer ticks are lost: 1.5% of expiries"));

    results = results_of((const char *const[]){
        "{\"bench\":\"time.timer\",\"status\":\"ok\",\"params\":{},"
        "\"metrics\":{\"latency\":{\"mean\":0.0001,\"distribution\":{\"p99\":0.0009}}}}",
        "{\"bench\":\"time.ticks\",\"status\":\"ok\",\"params\":{\"load\":\"none\"},"
        "\"metrics\":{\"lost_ticks\":{\"mean\":0}}}",
        NULL });
    assert_string_equal(advise(results, text, sizeof text), "");
}

static void clock_steps_and_drift(void **state)
{
    (void)state;
    char text[2048];
    json_t *results = results_of((const char *const[]){
        "{\"bench\":\"time.drift\",\"status\":\"ok\",\"params\":{\"load\":\"none\"},"
        "\"metrics\":{\"steps\":{\"mean\":1},\"local_steps\":{\"mean\":0},"
        "\"backward_jumps\":{\"mean\":0},\"largest_step\":{\"mean\":-0.05},"
        "\"drift_ppm\":{\"mean\":-250}}}",
        NULL });
    advise(results, text, sizeof text);
    assert_non_null(strstr(text, "the clock steps: 1 against the reference (largest 50"));
    assert_non_null(strstr(text, "the clock drifts -250.0 ppm (-21.60 s a day)"));

    results = results_of((const char *const[]){
        "{\"bench\":\"time.drift\",\"status\":\"ok\",\"params\":{},"
        "\"metrics\":{\"steps\":{\"mean\":0},\"local_steps\":{\"mean\":0},"
        "\"backward_jumps\":{\"mean\":0},\"largest_step\":{\"mean\":0},"
        "\"drift_ppm\":{\"mean\":12}}}",
        NULL });
    assert_string_equal(advise(results, text, sizeof text), "");
}

static void slow_clock_reads_and_dear_wakeups(void **state)
{
    (void)state;
    char text[2048];
    json_t *results = results_of((const char *const[]){
        "{\"bench\":\"time.read\",\"status\":\"ok\",\"params\":{\"clock\":\"monotonic\"},"
        "\"metrics\":{\"cost\":{\"mean\":6e-7}}}",
        "{\"bench\":\"vcost.ctxswitch\",\"status\":\"ok\",\"params\":{\"placement\":\"same\"},"
        "\"metrics\":{\"cost\":{\"mean\":2e-6}}}",
        "{\"bench\":\"vcost.ctxswitch\",\"status\":\"ok\",\"params\":{\"placement\":\"cross\"},"
        "\"metrics\":{\"cost\":{\"mean\":2e-5}}}",
        NULL });
    advise(results, text, sizeof text);
    assert_non_null(strstr(text, "reading the monotonic clock takes 600"));
    assert_non_null(strstr(text, "cross-CPU wake-ups cost 10.0x a same-CPU switch"));

    /* Fast reads, a 2x wake-up, rdtsc never advised, a failed result ignored. */
    results = results_of((const char *const[]){
        "{\"bench\":\"time.read\",\"status\":\"ok\",\"params\":{\"clock\":\"realtime\"},"
        "\"metrics\":{\"cost\":{\"mean\":2.5e-8}}}",
        "{\"bench\":\"time.read\",\"status\":\"ok\",\"params\":{\"clock\":\"rdtsc\"},"
        "\"metrics\":{\"cost\":{\"mean\":3e-7}}}",
        "{\"bench\":\"vcost.ctxswitch\",\"status\":\"ok\",\"params\":{\"placement\":\"same\"},"
        "\"metrics\":{\"cost\":{\"mean\":2e-6}}}",
        "{\"bench\":\"vcost.ctxswitch\",\"status\":\"ok\",\"params\":{\"placement\":\"cross\"},"
        "\"metrics\":{\"cost\":{\"mean\":4e-6}}}",
        "{\"bench\":\"time.ticks\",\"status\":\"failed\",\"params\":{},"
        "\"metrics\":{\"lost_ticks\":{\"mean\":50}}}",
        NULL });
    assert_string_equal(advise(results, text, sizeof text), "");

    /* Only one placement: no ratio to speak of. */
    results = results_of((const char *const[]){
        "{\"bench\":\"vcost.ctxswitch\",\"status\":\"ok\",\"params\":{\"placement\":\"cross\"},"
        "\"metrics\":{\"cost\":{\"mean\":4e-5}}}",
        NULL });
    assert_string_equal(advise(results, text, sizeof text), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(late_timer_and_lost_ticks),
        cmocka_unit_test(clock_steps_and_drift),
        cmocka_unit_test(slow_clock_reads_and_dear_wakeups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
