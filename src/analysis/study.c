/* The study-shaped tables of a plan's runs (study.h). The steps' references come from
 * the plan text the run kept, read with inih as the plan file was. */
#include "analysis/study.h"

#include <ini.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/scaling.h"
#include "bench/bench.h"
#include "core/json.h"
#include "core/stats.h"

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
                                           : json_dumps(value, JSON_ENCODE_ANY);
        used += (size_t)snprintf(out + used, len - used, "%s%s=%s", used ? " " : "", key,
                                 text ? text : "?");
        free(text);
        used = used < len ? used : len - 1;
    }
}

static int collect_reference(void *user, const char *section, const char *key, const char *value)
{
    if (strcmp(key, "reference") == 0)
        json_object_set_new(user, section, json_string(value));
    return 1;
}

/* The headline metric of a result: the first of its benchmark's table that it has. */
static const char *headline_metric(const json_t *result)
{
    const struct vp_bench *bench = vp_bench_find(vp_json_text(result, "bench"));
    const json_t *metrics = json_object_get(result, "metrics");
    for (size_t m = 0; bench && m < bench->metric_count; m++)
        if (json_object_get(metrics, bench->metrics[m].name))
            return bench->metrics[m].name;
    return NULL;
}

/* The monitor's figures while the result ran: CPU busy, network input, watched CPUs. */
static void add_monitor(json_t *row, const json_t *result)
{
    const json_t *summary = json_object_get(json_object_get(result, "monitor"), "summary");
    if (!summary)
        return;
    json_object_set_new(row, "cpu_busy",
                        json_real(vp_json_number(json_object_get(summary, "cpu.busy"), "mean")));
    double received = 0;
    json_t *watch = json_object();
    const char *column;
    const json_t *figures;
    json_object_foreach((json_t *)summary, column, figures) {
        size_t len = strlen(column);
        if (strncmp(column, "net.", 4) == 0 && len > 3 && strcmp(column + len - 3, ".rx") == 0)
            received += vp_json_number(figures, "mean");
        if (strncmp(column, "watch.", 6) == 0 && len > 10 && strcmp(column + len - 4, ".cpu") == 0) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(len - 10), column + 6);
            json_object_set_new(watch, name, json_real(vp_json_number(figures, "mean")));
        }
    }
    json_object_set_new(row, "network_rx_rate", json_real(received));
    if (json_object_size(watch))
        json_object_set_new(row, "watch", watch);
    else
        json_decref(watch);
}

static json_t *spread_across_jobs(const json_t *result, const char *metric)
{
    double values[1024];
    size_t count = 0, i;
    const json_t *job;
    json_array_foreach(json_object_get(result, "per_job"), i, job) {
        const json_t *figure = json_object_get(json_object_get(job, "metrics"), metric);
        if (figure && count < 1024)
            values[count++] = vp_json_number(figure, "mean");
    }
    struct vp_summary summary;
    vp_summarize(values, count, &summary);
    return json_pack("{s:f,s:f,s:f,s:f}", "min", summary.min, "mean", summary.mean, "max",
                     summary.max, "stddev", summary.stddev);
}

/* Each candidate's figures for the row, from the comparison (NULL: no candidates). */
static void add_candidates(json_t *row, const json_t *result, const json_t *comparison,
                           const json_t *const *candidates, size_t candidate_count)
{
    json_t *list = json_array();
    for (size_t c = 0; c < candidate_count; c++) {
        const json_t *run = json_object_get(candidates[c], "run");
        json_t *entry = json_pack("{s:O}", "run", json_object_get(run, "label")
                                                       ? json_object_get(run, "label")
                                                       : json_object_get(run, "id"));
        size_t r;
        const json_t *compared;
        json_array_foreach(json_object_get(comparison, "rows"), r, compared) {
            if (!json_equal(json_object_get(compared, "bench"), json_object_get(result, "bench")) ||
                !json_equal(json_object_get(compared, "params"), json_object_get(result, "params")) ||
                !json_equal(json_object_get(compared, "jobs"), json_object_get(result, "jobs")) ||
                strcmp(vp_json_text(compared, "metric"), vp_json_text(row, "metric")) != 0)
                continue;
            const json_t *figures = json_array_get(json_object_get(compared, "candidates"), c);
            const json_t *ci = json_object_get(figures, "ci");
            if (!ci)
                break;
            bool higher = strcmp(vp_json_text(compared, "better"), "higher") == 0;
            double a = json_number_value(json_array_get(ci, 0));
            double b = json_number_value(json_array_get(ci, 1));
            json_object_set_new(entry, "value", json_real(vp_json_number(figures, "value")));
            json_object_set_new(entry, "penalty_pct",
                                json_real(vp_json_number(figures, "penalty_pct")));
            json_object_set_new(entry, "ci_low", json_real(higher ? (1 - b) * 100 : (a - 1) * 100));
            json_object_set_new(entry, "ci_high", json_real(higher ? (1 - a) * 100 : (b - 1) * 100));
            json_object_set_new(entry, "verdict", json_string(vp_json_text(figures, "verdict")));
            break;
        }
        json_array_append_new(list, entry);
    }
    json_object_set_new(row, "candidates", list);
}

static json_t *step_of(json_t *steps, const char *name, const json_t *references)
{
    size_t i;
    json_t *step;
    json_array_foreach(steps, i, step)
        if (strcmp(vp_json_text(step, "step"), name) == 0)
            return step;
    step = json_pack("{s:s,s:[]}", "step", name, "rows");
    if (json_object_get(references, name))
        json_object_set(step, "reference", json_object_get(references, name));
    json_array_append_new(steps, step);
    return step;
}

/* A step's job-count sweeps: where each headline metric stops scaling (the knee, as
 * `virtperf scaling` finds it: the SPring-8 study's "5~6 VMs are optimum") and from how
 * many jobs no CPU was idle. */
static void add_optima(json_t *step, const json_t *base)
{
    const char *names[64];
    size_t name_count = 0, i;
    const json_t *row;
    json_t *results = json_array();
    json_array_foreach(json_object_get(base, "results"), i, row)
        if (json_equal(json_object_get(row, "step"), json_object_get(step, "step")))
            json_array_append(results, (json_t *)row);
    json_array_foreach(json_object_get(step, "rows"), i, row) {
        bool seen = false;
        for (size_t n = 0; n < name_count; n++)
            seen = seen || strcmp(names[n], vp_json_text(row, "metric")) == 0;
        if (!seen && name_count < 64)
            names[name_count++] = vp_json_text(row, "metric");
    }
    json_t *document = json_pack("{s:O,s:o}", "run", json_object_get(base, "run"), "results",
                                 results);
    struct vp_qos qos = { 0 };
    struct vp_scaling_metrics metrics = { .names = names, .count = name_count };
    char err[256];
    json_t *scaling = vp_scaling(document, &qos, &metrics, err, sizeof err);
    json_t *optima = json_array();
    const json_t *group;
    json_array_foreach(json_object_get(scaling, "groups"), i, group) {
        char variant[400];
        vp_distinguishing_params(json_object_get(scaling, "groups"),
                                 json_object_get(group, "bench"),
                                 json_object_get(group, "params"), variant, sizeof variant);
        json_t *optimum = json_pack("{s:O,s:s,s:O,s:O,s:O}", "bench",
                                    json_object_get(group, "bench"), "variant", variant,
                                    "metric", json_object_get(group, "metric"), "knee_jobs",
                                    json_object_get(group, "knee_jobs"), "rule",
                                    json_object_get(group, "rule"));
        if (json_object_get(group, "saturated_from"))
            json_object_set(optimum, "saturated_from", json_object_get(group, "saturated_from"));
        json_array_append_new(optima, optimum);
    }
    if (json_array_size(optima))
        json_object_set_new(step, "optima", optima);
    else
        json_decref(optima);
    json_decref(scaling);
    json_decref(document);
}

json_t *vp_study(const json_t *base, const json_t *const *candidates, size_t candidate_count)
{
    const json_t *results = json_object_get(base, "results");
    json_t *references = json_object();
    const char *plan = json_string_value(json_object_get(json_object_get(base, "run"), "plan"));
    if (plan)
        ini_parse_string(plan, collect_reference, references);
    json_t *comparison = NULL;
    if (candidate_count) {
        char err[256];
        struct vp_compare_options options = { .margin = 0.02 };
        comparison = vp_compare(base, candidates, candidate_count, &options, err, sizeof err);
    }
    json_t *steps = json_array();
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result) {
        const char *name = json_string_value(json_object_get(result, "step"));
        const char *metric = headline_metric(result);
        if (!name || !metric || strcmp(vp_json_text(result, "status"), "ok") != 0)
            continue;
        json_t *step = step_of(steps, name, references);
        json_t *siblings = json_array();
        size_t s;
        const json_t *other;
        json_array_foreach(results, s, other)
            if (json_equal(json_object_get(other, "step"), json_object_get(result, "step")))
                json_array_append(siblings, (json_t *)other);
        char variant[400];
        vp_distinguishing_params(siblings, json_object_get(result, "bench"),
                                 json_object_get(result, "params"), variant, sizeof variant);
        json_decref(siblings);
        const json_t *figure = json_object_get(json_object_get(result, "metrics"), metric);
        json_t *row = json_pack("{s:O,s:s,s:O,s:s,s:O,s:O,s:f,s:o}", "bench",
                                json_object_get(result, "bench"), "variant", variant, "jobs",
                                json_object_get(result, "jobs"), "metric", metric, "unit",
                                json_object_get(figure, "unit"), "better",
                                json_object_get(figure, "better"), "value",
                                vp_json_number(figure, "mean"), "per_job",
                                spread_across_jobs(result, metric));
        add_monitor(row, result);
        add_candidates(row, result, comparison, candidates, candidate_count);
        json_array_append_new(json_object_get(step, "rows"), row);
    }
    json_decref(comparison);
    json_decref(references);
    json_t *step;
    json_array_foreach(steps, i, step)
        add_optima(step, base);
    if (json_array_size(steps) == 0) {
        json_decref(steps);
        return NULL;
    }
    return json_pack("{s:b,s:o}", "plan", 1, "steps", steps);
}
