/* Unit tests for svg.c and the report's writer (markup.c): round tick steps, escaping,
 * and what a chart must contain
 * (title, axis labels with units, one polyline per series, the marker, whiskers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/svg.h"

static size_t count(const char *haystack, const char *needle)
{
    size_t n = 0;
    for (const char *at = strstr(haystack, needle); at; at = strstr(at + 1, needle))
        n++;
    return n;
}

static void ticks_are_round(void **state)
{
    (void)state;
    assert_float_equal(vp_svg_tick_step(100), 20, 1e-12);
    assert_float_equal(vp_svg_tick_step(7), 1, 1e-12);
    assert_float_equal(vp_svg_tick_step(0.003), 5e-4, 1e-15);
    assert_float_equal(vp_svg_tick_step(35), 5, 1e-12);
    assert_float_equal(vp_svg_tick_step(0), 1, 1e-12);
}

static void text_is_escaped(void **state)
{
    (void)state;
    struct vp_markup text = { 0 };
    vp_markup_text(&text, "a<b & \"c\">");
    assert_string_equal(text.data, "a&lt;b &amp; &quot;c&quot;&gt;");
    free(text.data);
}

/* The writer's format is markup, its %s and %c arguments text: escaped, whatever they
 * hold; numbers keep printf's formatting. */
static void printf_escapes_every_text_argument(void **state)
{
    (void)state;
    struct vp_markup out = { 0 };
    vp_markup_printf(&out, "<h2 class=\"%s\">%s %c</h2>", "x\"onclick=\"y", "<script>", '<');
    assert_string_equal(out.data, "<h2 class=\"x&quot;onclick=&quot;y\">&lt;script&gt; &lt;</h2>");
    out.len = 0;
    vp_markup_printf(&out, "%d|%5.1f|%+.1f%%|%lld|%zu|%.3g|%x|%-3d|", -7, 2.25, 3.0, 1LL << 40,
                     (size_t)12, 0.00012345, 255, 4);
    assert_string_equal(out.data, "-7|  2.2|+3.0%|1099511627776|12|0.000123|ff|4  |");
    free(out.data);
}

static void line_charts_carry_labels_series_and_marker(void **state)
{
    (void)state;
    const double x[] = { 1, 2, 3, 4 }, a[] = { 10, 20, 28, 30 }, b[] = { 10, 10, 9.3, 7.5 };
    struct vp_series series[] = { { "aggregate", x, a, 4 }, { "per <job>", x, b, 4 } };
    struct vp_chart chart = { "rate & jobs", "jobs", "", "rate", "ops/s" };
    struct vp_markup out = { 0 };
    vp_svg_lines(&out, &chart, series, 2, 3, "knee: 3 jobs");
    assert_int_equal(count(out.data, "<svg "), 1);
    assert_int_equal(count(out.data, "<polyline"), 2);
    assert_non_null(strstr(out.data, "<title>rate &amp; jobs</title>"));
    assert_non_null(strstr(out.data, ">per &lt;job&gt;<"));
    assert_non_null(strstr(out.data, "class=\"marker\""));
    assert_non_null(strstr(out.data, ">knee: 3 jobs<"));
    assert_non_null(strstr(out.data, ">jobs<"));
    assert_non_null(strstr(out.data, "30 /s<")); /* y ticks in the metric's unit */
    assert_null(strstr(out.data, ">1.5<"));      /* whole ticks for job counts */
    free(out.data);
}

static void bars_have_whiskers_where_intervals_exist(void **state)
{
    (void)state;
    const char *labels[] = { "cpu", "mem" };
    const double values[] = { 12.5, -3 }, low[] = { 10, NAN }, high[] = { 15, NAN };
    struct vp_chart chart = { "penalty", "", "", "penalty", "%" };
    struct vp_markup out = { 0 };
    vp_svg_bars(&out, &chart, labels, values, low, high, 2);
    assert_int_equal(count(out.data, "class=\"whisker\""), 1);
    assert_int_equal(count(out.data, "class=\"zero\""), 1);
    assert_null(strstr(out.data, "-0 %"));
    free(out.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ticks_are_round),
        cmocka_unit_test(text_is_escaped),
        cmocka_unit_test(printf_escapes_every_text_argument),
        cmocka_unit_test(line_charts_carry_labels_series_and_marker),
        cmocka_unit_test(bars_have_whiskers_where_intervals_exist),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
