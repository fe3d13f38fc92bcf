/* The study-shaped tables of a plan's runs (study.h). The steps' references (free text
 * and the study's figures, reference.h) come from the plan text the run kept, read with
 * inih as the plan file was. */
#include "analysis/study.h"

#include <ini.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/matrix.h"
#include "analysis/reference.h"
#include "analysis/scaling.h"
#include "analysis/shown.h"
#include "analysis/sides.h"
#include "bench/bench.h"
#include "core/json.h"
#include "core/monitor.h"
#include "core/stats.h"

/* Per section: {"text"?: its reference, "figures": [{"bench", "metric", "unit", "jobs"?,
 * "penalty", "value", "as_written": the plan's text}]}. A figure that does not parse (an imported plan text) is left out. */
static int collect_reference(void *user, const char *section, const char *key, const char *value)
{
    json_t *references = json_object_get(user, section);
    if (!references) {
        references = json_pack("{s:[]}", "figures");
        json_object_set_new(user, section, references);
    }
    struct vp_reference figure;
    char err[1024];
    if (strcmp(key, "reference") == 0) {
        json_object_set_new(references, "text", json_string(value));
    } else if (vp_reference_key(key) &&
               vp_reference_parse(key, value, &figure, err, sizeof err) == 0) {
        json_t *entry = json_pack("{s:s,s:s,s:s,s:b,s:f,s:s}", "bench", figure.bench, "metric",
                                  figure.metric, "unit", figure.penalty ? "%" : figure.unit,
                                  "penalty", figure.penalty, "value", figure.value,
                                  "as_written", value);
        if (figure.jobs)
            json_object_set_new(entry, "jobs", json_integer(figure.jobs));
        vp_shown_units(entry);
        json_array_append_new(json_object_get(references, "figures"), entry);
    }
    return 1;
}

/* The study's figure for bench's metric at jobs (penalty or not): one given for that job
 * count, else one given for every job count, else NULL. */
static const json_t *figure_for(const json_t *figures, const char *bench, const char *metric,
                                json_int_t jobs, bool penalty)
{
    const json_t *any = NULL, *figure;
    size_t i;
    json_array_foreach(figures, i, figure) {
        if (strcmp(vp_json_text(figure, "bench"), bench) != 0 ||
            strcmp(vp_json_text(figure, "metric"), metric) != 0 ||
            json_is_true(json_object_get(figure, "penalty")) != penalty)
            continue;
        const json_t *at = json_object_get(figure, "jobs");
        if (at && json_integer_value(at) == jobs)
            return figure;
        if (!at && !any)
            any = figure;
    }
    return any;
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

/* Adds one monitor summary's figures to the sums: CPU busy, network input (of the route
 * the result's traffic took, where it says), watched CPUs. */
static void add_summary(const json_t *summary, const char *route, double *busy,
                        double *received, json_t *watch)
{
    *busy += vp_monitor_mean(summary, "cpu.busy");
    const char *column;
    const json_t *figures;
    json_object_foreach((json_t *)summary, column, figures) {
        size_t len = strlen(column);
        if (vp_monitor_network_column(summary, column, "rx", route))
            *received += vp_monitor_figures_mean(figures);
        if (strncmp(column, "watch.", 6) == 0 && len > 10 && strcmp(column + len - 4, ".cpu") == 0) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(len - 10), column + 6);
            json_object_set_new(watch, name, json_real(vp_json_number(watch, name) +
                                                       vp_monitor_figures_mean(figures)));
        }
    }
}

/* The monitor's figures while the result ran: CPU busy, network input, watched CPUs; of
 * a virtperf-mpi result, each host's: CPU as the mean over the hosts, input summed. */
static void add_monitor(json_t *row, const json_t *result)
{
    double busy = 0, received = 0;
    size_t hosts = 0, i;
    json_t *watch = json_object();
    const json_t *summary = json_object_get(json_object_get(result, "monitor"), "summary");
    const json_t *host;
    if (summary) {
        add_summary(summary, vp_result_route(result), &busy, &received, watch);
        hosts = 1;
    }
    json_array_foreach(json_object_get(json_object_get(result, "ranks"), "hosts"), i, host) {
        summary = json_object_get(json_object_get(host, "monitor"), "summary");
        if (!summary || json_object_get(json_object_get(result, "monitor"), "summary"))
            continue;
        add_summary(summary, vp_result_route(host), &busy, &received, watch);
        hosts++;
    }
    if (hosts == 0) {
        json_decref(watch);
        return;
    }
    json_object_set_new(row, "cpu_busy", json_real(busy / (double)hosts));
    json_object_set_new(row, "network_rx_rate", json_real(received));
    const char *name;
    json_t *share;
    json_object_foreach(watch, name, share)
        json_real_set(share, json_real_value(share) / (double)hosts);
    if (json_object_size(watch))
        json_object_set_new(row, "watch", watch);
    else
        json_decref(watch);
}

/* The jobs a result ran at once: over every rank of a virtperf-mpi result (the study's
 * VMs or hosts), else its own. */
static json_int_t jobs_at_once(const json_t *result)
{
    json_int_t jobs = 0;
    size_t i;
    const json_t *host;
    json_array_foreach(json_object_get(json_object_get(result, "ranks"), "hosts"), i, host)
        jobs += json_integer_value(json_object_get(host, "jobs"));
    return jobs ? jobs : json_integer_value(json_object_get(result, "jobs"));
}

/* " FROM -> TO, ..." of a virtperf-mpi result's links ("" when it has none). */
static void links_text(const json_t *result, char *out, size_t len)
{
    size_t used = 0, i;
    const json_t *link;
    out[0] = '\0';
    json_array_foreach(json_object_get(json_object_get(result, "ranks"), "links"), i, link)
        if (used < len)
            used += (size_t)snprintf(out + used, len - used, "%s%s -> %s", used ? ", " : " ",
                                     vp_json_text(link, "from_label"),
                                     vp_json_text(link, "to_label"));
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

/* Each candidate's figures for the row, from the comparison (NULL: no candidates), with
 * the penalty the study reported for it (then_penalty_pct). */
static void add_candidates(json_t *row, const json_t *result, const json_t *comparison,
                           const json_t *const *candidates, size_t candidate_count,
                           const json_t *study_figures)
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
        const json_t *then = figure_for(study_figures, vp_json_text(result, "bench"),
                                        vp_json_text(row, "metric"), jobs_at_once(result), true);
        if (then)
            json_object_set(entry, "then_penalty_pct", json_object_get(then, "value"));
        json_array_append_new(list, entry);
    }
    json_object_set_new(row, "candidates", list);
}

/* One row: the result's figure of metric, with its spread across jobs; jobs counts those
 * at once over every rank, ranks (virtperf-mpi) how many hosts ran them. */
static json_t *metric_row(const json_t *result, const char *metric, const char *variant)
{
    const json_t *figure = json_object_get(json_object_get(result, "metrics"), metric);
    json_t *row = json_pack("{s:O,s:s,s:I,s:s,s:O,s:O,s:f,s:o}", "bench",
                            json_object_get(result, "bench"), "variant", variant, "jobs",
                            jobs_at_once(result), "metric", metric, "unit",
                            json_object_get(figure, "unit"), "better",
                            json_object_get(figure, "better"), "value",
                            vp_json_number(figure, "mean"), "per_job",
                            spread_across_jobs(result, metric));
    vp_shown_units(row);
    const json_t *ranks = json_object_get(json_object_get(result, "ranks"), "count");
    if (ranks) {
        json_object_set_new(row, "ranks", json_integer(json_integer_value(ranks)));
        json_object_set_new(row, "members", json_string(vp_members_word(result)));
    }
    const char *side = json_string_value(json_object_get(json_object_get(result, "side"), "name"));
    if (side) /* a run of both sides: which this row is */
        json_object_set_new(row, "side", json_string(side));
    return row;
}

static json_t *step_of(json_t *steps, const char *name, const json_t *references)
{
    size_t i;
    json_t *step;
    json_array_foreach(steps, i, step)
        if (strcmp(vp_json_text(step, "step"), name) == 0)
            return step;
    step = json_pack("{s:s,s:[]}", "step", name, "rows");
    const json_t *reference = json_object_get(references, name);
    if (json_object_get(reference, "text"))
        json_object_set(step, "reference", json_object_get(reference, "text"));
    if (json_array_size(json_object_get(reference, "figures")))
        json_object_set(step, "figures", json_object_get(reference, "figures"));
    json_array_append_new(steps, step);
    return step;
}

/* A run document of base's run holding only the step's results. */
static json_t *step_document(const json_t *step, const json_t *base)
{
    size_t i;
    const json_t *result;
    json_t *results = json_array();
    json_array_foreach(json_object_get(base, "results"), i, result)
        if (json_equal(json_object_get(result, "step"), json_object_get(step, "step")))
            json_array_append(results, (json_t *)result);
    return json_pack("{s:O,s:o}", "run", json_object_get(base, "run"), "results", results);
}

/* A step's source x destination matrices (a virtperf-mpi matrix topology, or runs of
 * several hosts), of the metrics its rows show. */
static void add_matrices(json_t *step, const json_t *base)
{
    size_t i, m;
    const json_t *row, *matrix;
    json_t *document = step_document(step, base);
    json_t *found = vp_matrices(&document, 1);
    json_t *kept = json_array();
    json_array_foreach(json_object_get(found, "matrices"), m, matrix) {
        bool shown = false;
        json_array_foreach(json_object_get(step, "rows"), i, row)
            shown = shown || (json_equal(json_object_get(row, "bench"), json_object_get(matrix, "bench")) &&
                              json_equal(json_object_get(row, "metric"), json_object_get(matrix, "metric")));
        if (shown)
            json_array_append(kept, (json_t *)matrix);
    }
    if (json_array_size(kept))
        json_object_set_new(step, "matrices", kept);
    else
        json_decref(kept);
    json_decref(found);
    json_decref(document);
}

/* A step's job-count sweeps: where each headline metric stops scaling (the knee, as
 * `virtperf scaling` finds it: the SPring-8 study's "5~6 VMs are optimum") and from how
 * many jobs no CPU was idle. */
static void add_optima(json_t *step, const json_t *base)
{
    const char *names[64];
    size_t name_count = 0, i;
    const json_t *row;
    json_array_foreach(json_object_get(step, "rows"), i, row) {
        bool seen = false;
        for (size_t n = 0; n < name_count; n++)
            seen = seen || strcmp(names[n], vp_json_text(row, "metric")) == 0;
        if (!seen && name_count < 64)
            names[name_count++] = vp_json_text(row, "metric");
    }
    json_t *document = step_document(step, base);
    struct vp_qos qos = { 0 };
    struct vp_scaling_metrics metrics = { .names = names, .count = name_count };
    char err[256];
    json_t *scaling = vp_scaling(document, &qos, &metrics, err, sizeof err);
    json_t *optima = json_array();
    const json_t *group;
    json_array_foreach(json_object_get(scaling, "groups"), i, group) {
        json_t *optimum = json_pack("{s:O,s:O,s:O,s:O,s:O}", "bench",
                                    json_object_get(group, "bench"), "variant",
                                    json_object_get(group, "params_shown"),
                                    "metric", json_object_get(group, "metric"), "knee_jobs",
                                    json_object_get(group, "knee_jobs"), "rule",
                                    json_object_get(group, "rule"));
        if (json_object_get(group, "saturated_from"))
            json_object_set(optimum, "saturated_from", json_object_get(group, "saturated_from"));
        json_array_append_new(optima, optimum);
    }
    /* a fill's own finding (run --guests A..auto): its last result's */
    size_t r;
    const json_t *result, *filled = NULL;
    json_array_foreach(json_object_get(document, "results"), r, result)
        if (json_object_get(json_object_get(result, "fill"), "optimum"))
            filled = result;
    if (filled) {
        const json_t *fill = json_object_get(filled, "fill");
        json_object_set_new(step, "fill", json_pack("{s:O,s:O,s:O,s:s}", "optimum",
                                                    json_object_get(fill, "optimum"), "stopped",
                                                    json_object_get(fill, "stopped"), "reason",
                                                    json_object_get(fill, "reason"), "members",
                                                    vp_members_word(filled)));
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
    /* each step's results (the siblings a row's variant is told apart from), in one pass;
     * none: not a run of a plan, and nothing is compared */
    json_t *by_step = json_object();
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result) {
        const char *name = json_string_value(json_object_get(result, "step"));
        if (!name)
            continue;
        if (!json_object_get(by_step, name))
            json_object_set_new(by_step, name, json_array());
        json_array_append(json_object_get(by_step, name), (json_t *)result);
    }
    if (json_object_size(by_step) == 0) {
        json_decref(by_step);
        return NULL;
    }
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
    json_array_foreach(results, i, result) {
        const char *name = json_string_value(json_object_get(result, "step"));
        const char *metric = headline_metric(result);
        if (!name || !metric || strcmp(vp_json_text(result, "status"), "ok") != 0)
            continue;
        json_t *step = step_of(steps, name, references);
        char variant[400], links[400];
        vp_distinguishing_params(json_object_get(by_step, name), json_object_get(result, "bench"),
                                 json_object_get(result, "params"), variant, sizeof variant);
        links_text(result, links, sizeof links);
        size_t variant_len = strlen(variant);
        snprintf(variant + variant_len, sizeof variant - variant_len, "%s",
                 links + (variant_len == 0 && links[0]));
        /* the headline metric, then each other one the study gave a figure of */
        const json_t *figures = json_object_get(step, "figures");
        const char *shown[16] = { metric };
        size_t shown_count = 1, f;
        const json_t *figure;
        json_array_foreach(figures, f, figure) {
            const char *named = vp_json_text(figure, "metric");
            bool seen = strcmp(vp_json_text(figure, "bench"), vp_json_text(result, "bench")) != 0 ||
                        !json_object_get(json_object_get(result, "metrics"), named);
            for (size_t m = 0; m < shown_count; m++)
                seen = seen || strcmp(shown[m], named) == 0;
            if (!seen && shown_count < 16)
                shown[shown_count++] = named;
        }
        for (size_t m = 0; m < shown_count; m++) {
            json_t *row = metric_row(result, shown[m], variant);
            const json_t *then = figure_for(figures, vp_json_text(result, "bench"), shown[m],
                                            jobs_at_once(result), false);
            if (then) {
                json_object_set(row, "then", json_object_get(then, "value"));
                json_object_set(row, "then_as_written", json_object_get(then, "as_written"));
            }
            add_monitor(row, result);
            add_candidates(row, result, comparison, candidates, candidate_count, figures);
            json_array_append_new(json_object_get(step, "rows"), row);
        }
    }
    json_decref(comparison);
    json_decref(references);
    json_decref(by_step);
    json_t *step;
    json_array_foreach(steps, i, step) {
        add_optima(step, base);
        add_matrices(step, base);
    }
    if (json_array_size(steps) == 0) {
        json_decref(steps);
        return NULL;
    }
    return json_pack("{s:b,s:o}", "plan", 1, "steps", steps);
}
