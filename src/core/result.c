/* Result-document helpers: params objects and metric statistics. */
#include "core/result.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/stats.h"

json_t *vp_params_json(const struct vp_bench *bench, const struct vp_params *params)
{
    json_t *object = json_object();
    for (size_t i = 0; i < params->count; i++) {
        const struct vp_option *option = &params->options[i];
        const struct vp_param_value *value = &params->values[i];
        const char *key = option->name;
        if (bench->sweep_option && strcmp(option->name, bench->sweep_option) == 0)
            key = bench->sweep_param;
        if (option->type == VP_OPT_CHOICE || option->type == VP_OPT_CHOICE_LIST ||
            option->type == VP_OPT_TEXT)
            json_object_set_new(object, key, json_string(value->text));
        else if (option->type == VP_OPT_DURATION)
            json_object_set_new(object, key, json_real((double)value->number / 1e9));
        else
            json_object_set_new(object, key, json_integer((json_int_t)value->number));
    }
    return object;
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

const char *vp_json_text(const json_t *object, const char *key)
{
    const char *value = json_string_value(json_object_get(object, key));
    return value ? value : "";
}

double vp_json_number(const json_t *object, const char *key)
{
    const json_t *value = json_object_get(object, key);
    return json_is_number(value) ? json_number_value(value) : NAN;
}

const char *vp_better_name(enum vp_better better)
{
    return better == VP_HIGHER_IS_BETTER ? "higher" : "lower";
}

const char *vp_aggregate_name(enum vp_aggregate aggregate)
{
    return aggregate == VP_AGG_SUM ? "sum" : aggregate == VP_AGG_MAX ? "max" : "mean";
}

void vp_result_warn(json_t *result, const char *format, ...)
{
    char line[512];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    json_t *warnings = json_object_get(result, "warnings");
    if (!warnings) {
        warnings = json_array();
        json_object_set_new(result, "warnings", warnings);
    }
    json_array_append_new(warnings, json_string(line));
}
