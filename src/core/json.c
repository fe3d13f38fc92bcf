/* JSON helpers for result documents (see json.h). */
#include "core/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/stats.h"

const char *vp_json_text(const json_t *object, const char *key)
{
    const char *value = json_string_value(json_object_get(object, key));
    return value ? value : "";
}

enum vp_unit_style vp_json_unit_style(const json_t *object, enum vp_unit_style chosen)
{
    enum vp_unit_style declared = VP_UNITS_FIELD;
    const char *name = json_string_value(json_object_get(object, "units"));
    if (name && vp_units_parse(name, &declared) != 0)
        declared = VP_UNITS_FIELD;
    return vp_units_pick(chosen, declared);
}

double vp_json_number(const json_t *object, const char *key)
{
    const json_t *value = json_object_get(object, key);
    return json_is_number(value) ? json_number_value(value) : NAN;
}

/* Appends the formatted line to array. */
static void append_line(json_t *array, const char *format, va_list args)
{
    char line[512];
    vsnprintf(line, sizeof line, format, args);
    json_array_append_new(array, json_string(line));
}

void vp_result_warn(json_t *result, const char *format, ...)
{
    json_t *warnings = json_object_get(result, "warnings");
    if (!warnings) {
        warnings = json_array();
        json_object_set_new(result, "warnings", warnings);
    }
    va_list args;
    va_start(args, format);
    append_line(warnings, format, args);
    va_end(args);
}

double vp_metric_mean(const json_t *result, const char *metric)
{
    const json_t *entry = json_object_get(json_object_get(result, "metrics"), metric);
    return entry ? vp_json_number(entry, "mean") : NAN;
}

void vp_advise(json_t *advisories, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    append_line(advisories, format, args);
    va_end(args);
}

void vp_metric_set_stats(json_t *metric, const double *values, size_t n)
{
    json_t *array = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(array, json_real(values[i]));
    json_object_set_new(metric, "values", array);
    json_object_set_new(metric, "n", json_integer((json_int_t)n));
    if (n == 0)
        return;
    struct vp_summary summary;
    vp_summarize(values, n, &summary);
    json_object_set_new(metric, "mean", json_real(summary.mean));
    json_object_set_new(metric, "stddev", json_real(summary.stddev));
    json_object_set_new(metric, "min", json_real(summary.min));
    json_object_set_new(metric, "max", json_real(summary.max));
    json_object_set_new(metric, "p50", json_real(summary.p50));
}

const char *vp_printable(const char *text, char *out, size_t len)
{
    size_t used = 0;
    for (; text && *text && used + 1 < len; text++)
        out[used++] = (unsigned char)*text < 0x20 || *text == 0x7f ? '?' : *text;
    out[used] = '\0';
    return out;
}
