/* Unit tests for what a result shows (analysis/shown.c), decided before render formats
 * it: the params that differ from the defaults, read as sizes and durations; the unit
 * style the benchmark declares; the members' word; each host's deviation from the
 * others; a comparison row's label and whether it is a headline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "analysis/shown.h"
#include "core/json.h"

static void params_that_differ_read_as_written(void **state)
{
    (void)state;
    json_t *result = json_pack("{s:s,s:{s:I,s:I,s:s}}", "bench", "mem.write", "params", "size",
                               (json_int_t)1 << 30, "passes", (json_int_t)2, "mode", "wide");
    json_t *shown = vp_result_shown(result);
    assert_string_equal(vp_json_text(shown, "params"), "size=1 GiB mode=wide");
    assert_string_equal(vp_json_text(shown, "units"), "field"); /* mem.write declares none */
    assert_null(json_object_get(shown, "members")); /* one host: no ranks */
    json_decref(shown);
    json_decref(result);
    json_t *network = json_pack("{s:s,s:{}}", "bench", "net.stream", "params");
    shown = vp_result_shown(network);
    assert_string_equal(vp_json_text(shown, "units"), "bits");
    assert_string_equal(vp_json_text(shown, "params"), "");
    json_decref(shown);
    json_decref(network);
}

/* A result of three hosts whose means of "score" are means[0..2] (NAN: none). */
static json_t *three_hosts(const double means[3])
{
    json_t *hosts = json_array();
    for (int h = 0; h < 3; h++) {
        json_t *metrics = json_object();
        if (isfinite(means[h]))
            json_object_set_new(metrics, "score", json_pack("{s:f}", "mean", means[h]));
        json_array_append_new(hosts, json_pack("{s:i,s:o}", "rank", h, "metrics", metrics));
    }
    return json_pack("{s:s,s:{},s:{s:{s:s}},s:{s:i,s:o},s:{s:s,s:s}}", "bench", "cpu",
                     "params", "metrics", "score", "unit", "ops/s", "ranks", "count", 3, "hosts",
                     hosts, "guests", "engine", "libvirt", "members", "guests");
}

static void each_host_against_the_others(void **state)
{
    (void)state;
    json_t *result = three_hosts((double[]){ 70, 100, 100 });
    json_t *shown = vp_result_shown(result);
    assert_string_equal(vp_json_text(shown, "members"), "guests");
    const json_t *versus = json_object_get(shown, "versus_others");
    assert_int_equal(json_array_size(versus), 3);
    assert_float_equal(json_number_value(json_array_get(versus, 0)), -0.30, 1e-6);
    /* the others of host 1 are 70 and 100: their median 85 */
    assert_float_equal(json_number_value(json_array_get(versus, 1)), 100.0 / 85 - 1, 1e-6);
    json_decref(shown);
    json_decref(result);
    result = three_hosts((double[]){ 70, NAN, 100 });
    shown = vp_result_shown(result);
    assert_true(json_is_null(json_array_get(json_object_get(shown, "versus_others"), 1)));
    json_decref(shown);
    json_decref(result);
}

static void comparison_rows_say_their_label_and_headline(void **state)
{
    (void)state;
    json_t *row = json_pack("{s:s,s:s,s:s,s:{s:s,s:s}}", "bench", "disk.read", "variant", "bs=64 KiB",
                            "metric", "throughput", "varied", "param", "path", "base", "/gpfs");
    vp_shown_comparison_row(row);
    assert_string_equal(vp_json_text(row, "label"), "disk.read bs=64 KiB path=/gpfs");
    assert_string_equal(vp_json_text(row, "units"), "si");
    assert_true(json_is_true(json_object_get(row, "headline")));
    json_object_set_new(row, "metric", json_string("cpu_per_byte"));
    vp_shown_comparison_row(row);
    assert_true(json_is_false(json_object_get(row, "headline")));
    json_decref(row);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(params_that_differ_read_as_written),
        cmocka_unit_test(each_host_against_the_others),
        cmocka_unit_test(comparison_rows_say_their_label_and_headline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
