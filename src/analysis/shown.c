/* What a figure is shown as, decided where it is put together (see shown.h). */
#include "analysis/shown.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sides.h"
#include "bench/bench.h"
#include "core/json.h"
#include "core/json_arena.h"
#include "core/options.h"
#include "core/stats.h"
#include "core/units.h"

void vp_shown_units(json_t *object)
{
    json_object_set_new(object, "units",
                        json_string(vp_units_name(vp_bench_units(vp_json_text(object, "bench")))));
}

/* The option of a known bench stored under key (a sweep option under its point name). */
static const struct vp_option *option_for(const struct vp_bench *bench, const char *key)
{
    for (size_t i = 0; bench && i < bench->option_count; i++) {
        const struct vp_option *option = &bench->options[i];
        const char *stored = option->type == VP_OPT_SIZE_LIST || option->type == VP_OPT_CHOICE_LIST
                                 ? bench->sweep_param : option->name;
        if (strcmp(stored, key) == 0)
            return option;
    }
    return NULL;
}

/* Whether value is the option's default (sweep points are always shown). */
static bool is_default(const struct vp_option *option, const json_t *value)
{
    struct vp_param_value parsed;
    char err[VP_ERROR_LEN];
    if (!option || option->type == VP_OPT_SIZE_LIST || option->type == VP_OPT_CHOICE_LIST ||
        vp_option_parse(option, option->default_text, &parsed, err, sizeof err) != 0)
        return false;
    if (json_is_string(value))
        return strcmp(parsed.text, json_string_value(value)) == 0;
    if (option->type == VP_OPT_DURATION)
        return json_is_real(value) && json_real_value(value) == (double)parsed.number / 1e9;
    return json_is_integer(value) && (uint64_t)json_integer_value(value) == parsed.number;
}

/* "size=256 MiB passes=200": the params that differ from the defaults, sizes in binary
 * units where the bench says so. */
static void describe_params(const json_t *result, char *buf, size_t len)
{
    const struct vp_bench *bench = vp_bench_find(vp_json_text(result, "bench"));
    size_t used = 0;
    const char *key;
    const json_t *value;
    buf[0] = '\0';
    json_object_foreach((json_t *)json_object_get(result, "params"), key, value) {
        const struct vp_option *option = option_for(bench, key);
        if (is_default(option, value))
            continue;
        char text[VP_TEXT_LEN];
        if (json_is_string(value))
            snprintf(text, sizeof text, "%s", json_string_value(value));
        else if (option && (option->type == VP_OPT_SIZE || option->type == VP_OPT_SIZE_LIST))
            vp_format_bytes(json_number_value(value), text, sizeof text);
        else if (option && option->type == VP_OPT_DURATION)
            vp_format_seconds(json_number_value(value), text, sizeof text);
        else
            snprintf(text, sizeof text, "%.10g", json_number_value(value));
        int written = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", key, text);
        if (written < 0 || (size_t)written >= len - used)
            return;
        used += (size_t)written;
    }
}

static double host_mean(const json_t *hosts, size_t index, const char *metric)
{
    const json_t *metrics = json_object_get(json_array_get(hosts, index), "metrics");
    return vp_json_number(json_object_get(metrics, metric), "mean");
}

/* Host index's mean of metric over the median of the other hosts' means, minus 1. */
static double host_versus_others(const json_t *hosts, size_t index, const char *metric)
{
    size_t count = json_array_size(hosts), n = 0;
    double own = host_mean(hosts, index, metric);
    double *others = calloc(count ? count : 1, sizeof *others);
    if (!others)
        abort();
    for (size_t i = 0; i < count; i++) {
        double value = host_mean(hosts, i, metric);
        if (i != index && isfinite(value))
            others[n++] = value;
    }
    double median = n ? vp_percentile(others, n, 50) : NAN;
    free(others);
    return isfinite(own) && isfinite(median) && median != 0 ? own / median - 1 : NAN;
}

json_t *vp_result_shown(const json_t *result)
{
    char params[512];
    describe_params(result, params, sizeof params);
    json_t *shown = json_pack("{s:s,s:s}", "units",
                              vp_units_name(vp_bench_units(vp_json_text(result, "bench"))),
                              "params", params);
    const json_t *ranks = json_object_get(result, "ranks");
    if (!ranks)
        return shown;
    json_object_set_new(shown, "members", json_string(vp_members_word(result)));
    const char *first_metric = NULL;
    const json_t *definition;
    json_object_foreach((json_t *)json_object_get(result, "metrics"), first_metric, definition)
        break;
    const json_t *hosts = json_object_get(ranks, "hosts");
    if (!first_metric || !hosts)
        return shown;
    json_t *versus = json_array();
    for (size_t i = 0; i < json_array_size(hosts); i++) {
        double value = host_versus_others(hosts, i, first_metric);
        json_array_append_new(versus, isfinite(value) ? json_real(value) : json_null());
    }
    json_object_set_new(shown, "versus_others", versus);
    return shown;
}

void vp_documents_shown(json_t *const *documents, size_t count)
{
    for (size_t d = 0; d < count; d++) {
        size_t i;
        json_t *result;
        json_array_foreach(json_object_get(documents[d], "results"), i, result)
            json_object_set_new(result, "shown", vp_result_shown(result));
    }
}

void vp_shown_comparison_row(json_t *row)
{
    vp_shown_units(row);
    const char *variant = vp_json_text(row, "variant");
    const json_t *varied = json_object_get(row, "varied");
    char base_value[320] = "", label[640];
    if (varied)
        snprintf(base_value, sizeof base_value, " %s=%s", vp_json_text(varied, "param"),
                 vp_json_text(varied, "base"));
    snprintf(label, sizeof label, "%s%s%s%s", vp_json_text(row, "bench"), *variant ? " " : "",
             variant, base_value);
    json_object_set_new(row, "label", json_string(label));
    const struct vp_bench *bench = vp_bench_find(vp_json_text(row, "bench"));
    const char *metric = vp_json_text(row, "metric");
    bool headline = !bench || bench->metric_count == 0 ||
                    strcmp(bench->metrics[0].name, metric) == 0 ||
                    (bench->distribution_metric && strcmp(bench->distribution_metric, metric) == 0);
    json_object_set_new(row, "headline", json_boolean(headline));
}

void vp_distinguishing_params(const json_t *siblings, const json_t *bench, const json_t *params,
                              char *out, size_t len)
{
    size_t used = 0, i;
    out[0] = '\0';
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)params, key, value) {
        bool differs = false;
        const json_t *other;
        json_array_foreach(siblings, i, other) {
            differs = differs ||
                      (json_equal(json_object_get(other, "bench"), bench) &&
                       !json_equal(json_object_get(json_object_get(other, "params"), key), value));
        }
        if (!differs || used + 1 >= len)
            continue;
        char *text = json_is_string(value) ? strdup(json_string_value(value))
                                           : vp_json_arena_dumps(value, JSON_ENCODE_ANY);
        used += (size_t)snprintf(out + used, len - used, "%s%s=%s", used ? " " : "", key,
                                 text ? text : "?");
        free(text);
        used = used < len ? used : len - 1;
    }
}
