/* Drawing the report page from what cmd/report.c computed (html.h): it analyses nothing. */
#include "render/html.h"
#include "render/study.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/histogram.h"
#include "bench/bench.h"
#include "core/units.h"
#include "analysis/compare.h" /* vp_compare_row_label */
#include "analysis/sides.h"   /* vp_members_word, vp_members_counted */
#include "analysis/hosts.h"
#include "core/json.h"
#include "render/timeline.h"

#define MAX_CHARTS 12

static const char css[] =
    "body{font:14px/1.4 'DejaVu Sans',sans-serif;margin:24px;color:#222;max-width:1100px}"
    "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;margin-top:28px}"
    "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;"
    "text-align:left;vertical-align:top}th{background:#f2f2f2}.num{text-align:right}"
    ".slower{color:#a61b1b;font-weight:bold}.faster{color:#1b6e2d;font-weight:bold}"
    ".flag{color:#8a5a00;font-size:12px}.chart{display:block;margin:10px 0}"
    ".title{font-size:15px;font-weight:bold}.tick{font-size:11px;fill:#444}"
    ".label{font-size:12px}.legend{font-size:12px}.grid{stroke:#e3e3e3}.axis{stroke:#888}"
    ".zero{stroke:#555}.frame{fill:none;stroke:#888}.line{fill:none;stroke-width:2}"
    ".marker{stroke:#a61b1b;stroke-dasharray:5 4;stroke-width:1.5}"
    ".marker-label{font-size:12px;fill:#a61b1b}.whisker{stroke:#222;stroke-width:1.5;fill:none}"
    "@media print{body{margin:0}.chart{page-break-inside:avoid}}";


static const char *run_name(const json_t *document)
{
    const json_t *run = json_object_get(document, "run");
    const char *label = json_string_value(json_object_get(run, "label"));
    return label ? label : vp_json_text(run, "id");
}

static void environments(struct vp_markup *out, const struct vp_report *report)
{
    json_t *const *documents = report->documents;
    size_t count = report->count;
    static const struct { const char *group, *key, *label; } fields[] = {
        { NULL, "hostname", "host" }, { NULL, "kernel", "kernel" },
        { NULL, "distribution", "distribution" }, { "cpu", "model", "CPU" },
        { "hypervisor", "name", "hypervisor" }, { "container", "kind", "container" },
        { "clock", "clocksource", "clocksource" }, { "cpu", "governor", "governor" },
    };
    vp_markup_printf(out, "<h2>Environments</h2><table><tr><th></th>");
    for (size_t d = 0; d < count; d++) {
        vp_markup_printf(out, "<th>");
        vp_markup_text(out, run_name(documents[d]));
        vp_markup_printf(out, "</th>");
    }
    vp_markup_printf(out, "</tr>");
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        vp_markup_printf(out, "<tr><th>%s</th>", fields[f].label);
        for (size_t d = 0; d < count; d++) {
            const json_t *host = json_object_get(json_object_get(documents[d], "run"), "host");
            const json_t *where = fields[f].group ? json_object_get(host, fields[f].group) : host;
            vp_markup_cell(out, vp_json_text(where, fields[f].key));
        }
        vp_markup_printf(out, "</tr>");
    }
    vp_markup_printf(out, "<tr><th>threads, memory</th>");
    for (size_t d = 0; d < count; d++) {
        const json_t *host = json_object_get(json_object_get(documents[d], "run"), "host");
        char memory[32], line[96];
        vp_format_bytes(vp_json_number(json_object_get(host, "memory"), "total_bytes"), memory, sizeof memory);
        snprintf(line, sizeof line, "%lld threads, %s",
                 (long long)json_integer_value(json_object_get(json_object_get(host, "cpu"), "threads")),
                 memory);
        vp_markup_cell(out, line);
    }
    vp_markup_printf(out, "</tr><tr><th>advisories</th>");
    for (size_t d = 0; d < count; d++) {
        const json_t *advisories = report->advisories[d];
        vp_markup_printf(out, "<td>");
        size_t i;
        const json_t *line;
        json_array_foreach(advisories, i, line) {
            vp_markup_text(out, json_string_value(line));
            vp_markup_printf(out, "<br>");
        }
        if (json_array_size(advisories) == 0)
            vp_markup_printf(out, "none");
        vp_markup_printf(out, "</td>");
    }
    vp_markup_printf(out, "</tr></table>");
}

/* Penalty with its interval in percent, oriented so positive is worse. */
static void penalty_interval(const json_t *candidate, int higher_better, double *low, double *high)
{
    const json_t *ci = json_object_get(candidate, "ci");
    double a = json_number_value(json_array_get(ci, 0)), b = json_number_value(json_array_get(ci, 1));
    *low = higher_better ? (1 - b) * 100 : (a - 1) * 100;
    *high = higher_better ? (1 - a) * 100 : (b - 1) * 100;
}

/* Each of texts as a flag: under a verdict a line of its own (inline), else a paragraph;
 * the markup is this function's, the texts escaped. */
static void flag_lines(struct vp_markup *out, const json_t *texts, bool inline_lines)
{
    size_t i;
    const json_t *text;
    json_array_foreach(texts, i, text) {
        if (inline_lines)
            vp_markup_printf(out, "<br><span class=\"flag\">%s</span>", json_string_value(text));
        else
            vp_markup_printf(out, "<p class=\"flag\">%s</p>", json_string_value(text));
    }
}

/* "BENCH jobs=J", and where the result ran on many ranks " in N guests" (containers,
 * hosts): each count of a sweep over members named apart. */
static void result_name(const json_t *result, char *out, size_t len)
{
    int used = snprintf(out, len, "%.40s jobs=%lld", vp_json_text(result, "bench"),
                        (long long)json_integer_value(json_object_get(result, "jobs")));
    const json_t *ranks = json_object_get(json_object_get(result, "ranks"), "count");
    char where[48];
    if (ranks && used > 0 && (size_t)used < len) {
        vp_members_counted(vp_members_word(result), (long long)json_integer_value(ranks), true,
                           where, sizeof where);
        snprintf(out + used, len - (size_t)used, " %s", where);
    }
}

/* Whether a comparison row is of a headline metric: its benchmark's first, or one with a
 * latency distribution (as scaling picks them). The others are folded away. */
static bool headline_row(const json_t *row)
{
    const struct vp_bench *bench = vp_bench_find(vp_json_text(row, "bench"));
    const char *metric = vp_json_text(row, "metric");
    if (!bench || bench->metric_count == 0)
        return true;
    return strcmp(bench->metrics[0].name, metric) == 0 ||
           (bench->distribution_metric && strcmp(bench->distribution_metric, metric) == 0);
}

/* The bars of the penalty chart: the first candidate's penalty of each headline row. */
struct penalty_bars {
    const char *labels[MAX_CHARTS];
    char label_text[MAX_CHARTS][112];
    double values[MAX_CHARTS], lows[MAX_CHARTS], highs[MAX_CHARTS];
    size_t count;
};

static void verdict_header(struct vp_markup *out, const struct vp_report *report)
{
    vp_markup_printf(out, "<table><tr><th>benchmark</th><th>jobs</th><th>metric</th><th>base</th>");
    for (size_t d = 1; d < report->count; d++) {
        vp_markup_printf(out, "<th>");
        vp_markup_text(out, run_name(report->documents[d]));
        vp_markup_printf(out, "</th>");
    }
    vp_markup_printf(out, "</tr>");
}

/* One row of the verdict table: the base's value, each candidate's penalty, interval,
 * p, verdict and flags; its first candidate's penalty into bars (NULL: none kept). */
static void verdict_row(struct vp_markup *out, const struct vp_report *report, const json_t *row,
                        struct penalty_bars *bars)
{
    int higher_better = strcmp(vp_json_text(row, "better"), "higher") == 0;
    char base[32], jobs[16];
    enum vp_unit_style style = vp_units_pick(report->units, vp_bench_units(vp_json_text(row, "bench")));
    vp_format_value(vp_json_number(json_object_get(row, "base"), "value"),
                    vp_json_text(row, "unit"), style, base, sizeof base);
    snprintf(jobs, sizeof jobs, "%lld", (long long)json_integer_value(json_object_get(row, "jobs")));
    char what[256];
    vp_compare_row_label(row, what, sizeof what);
    vp_markup_printf(out, "<tr>");
    vp_markup_cell(out, what);
    vp_markup_cell(out, jobs);
    vp_markup_cell(out, vp_json_text(row, "metric"));
    vp_markup_cell(out, base);
    size_t c;
    const json_t *candidate;
    json_array_foreach(json_object_get(row, "candidates"), c, candidate) {
        const char *verdict = vp_json_text(candidate, "verdict");
        vp_markup_printf(out, "<td class=\"%s\">", strcmp(verdict, "slower") == 0 ? "slower"
                                                 : strcmp(verdict, "faster") == 0 ? "faster" : "");
        const json_t *param_value = json_object_get(candidate, "param_value");
        if (param_value) {
            vp_markup_text(out, vp_json_text(json_object_get(row, "varied"), "param"));
            vp_markup_printf(out, "=");
            vp_markup_text(out, json_string_value(param_value));
            vp_markup_printf(out, ": ");
        }
        if (json_object_get(candidate, "ci")) {
            double low, high;
            penalty_interval(candidate, higher_better, &low, &high);
            vp_markup_printf(out, "%+.1f%% [%+.1f, %+.1f] ",
                             vp_json_number(candidate, "penalty_pct"), low, high);
            if (json_object_get(candidate, "p_adjusted")) /* combined rows have none */
                vp_markup_printf(out, "p=%.3g ", vp_json_number(candidate, "p_adjusted"));
            if (c == 0 && bars && bars->count < MAX_CHARTS) {
                size_t b = bars->count++;
                snprintf(bars->label_text[b], sizeof bars->label_text[b], "%.60s %.20s j%s",
                         what, vp_json_text(row, "metric"), jobs);
                bars->labels[b] = bars->label_text[b];
                bars->values[b] = vp_json_number(candidate, "penalty_pct");
                bars->lows[b] = low;
                bars->highs[b] = high;
            }
        }
        vp_markup_text(out, verdict);
        json_t *notes = json_array(); /* a pairing of J jobs on one host with J hosts first */
        if (json_object_get(candidate, "paired"))
            json_array_append(notes, json_object_get(candidate, "paired"));
        json_array_extend(notes, json_object_get(candidate, "flags"));
        flag_lines(out, notes, true);
        json_decref(notes);
        vp_markup_printf(out, "</td>");
    }
    vp_markup_printf(out, "</tr>");
}

/* The verdicts of the headline metrics, with their penalty chart; every other metric's
 * folded beneath. */
static void verdicts(struct vp_markup *out, const struct vp_report *report)
{
    const json_t *comparison = report->comparison;
    const char *err = report->comparison_error ? report->comparison_error : "";
    vp_markup_printf(out, "<h2>Verdicts against %s</h2>", run_name(report->documents[0]));
    if (!comparison) {
        vp_markup_printf(out, "<p>");
        vp_markup_text(out, err);
        vp_markup_printf(out, "</p>");
        return;
    }
    vp_markup_printf(out, "<p>Each benchmark's headline metrics (its first, and its latency "
                        "distribution); every other metric is folded below. Penalty: positive "
                        "means the candidate is worse. Interval: 95%% of the ratio CAND/BASE. "
                        "p: Mann-Whitney, Benjamini-Hochberg adjusted.</p>");
    static struct penalty_bars bars;
    bars.count = 0;
    size_t r, others = 0;
    const json_t *row;
    verdict_header(out, report);
    json_array_foreach(json_object_get(comparison, "rows"), r, row) {
        if (headline_row(row))
            verdict_row(out, report, row, &bars);
        else
            others++;
    }
    vp_markup_printf(out, "</table>");
    if (bars.count > 0) {
        char title[160];
        snprintf(title, sizeof title, "Penalty of %s against %s (95%% interval)",
                 run_name(report->documents[1]), run_name(report->documents[0]));
        struct vp_chart chart = { title, "", "", "penalty (positive: worse)", "%" };
        vp_svg_bars(out, &chart, bars.labels, bars.values, bars.lows, bars.highs, bars.count);
    }
    if (others == 0)
        return;
    vp_markup_printf(out, "<details><summary>Every other metric: %zu row%s</summary>", others,
                     others == 1 ? "" : "s");
    verdict_header(out, report);
    json_array_foreach(json_object_get(comparison, "rows"), r, row)
        if (!headline_row(row))
            verdict_row(out, report, row, NULL);
    vp_markup_printf(out, "</table></details>");
}

/* What a sweep's charts run along: the hosts of a virtperf-mpi --ranks sweep (the
 * studies' number of VMs), else the jobs. */
static bool by_hosts(const json_t *group)
{
    return json_object_get(group, "knee_hosts") != NULL;
}

/* The sweep's axis in words: "jobs", or what the counted ranks are ("guests",
 * "containers", "hosts"). */
static const char *sweep_axis(const json_t *group)
{
    const char *members = json_string_value(json_object_get(group, "members"));
    return !by_hosts(group) ? "jobs" : members ? members : "hosts";
}

static double sweep_x(const json_t *group, const json_t *point)
{
    return vp_json_number(point, by_hosts(group) ? "hosts" : "jobs");
}

/* The machine's use against the sweep's job or host count, once per benchmark: CPU busy
 * and steal, then page faults and NIC bytes per second (where the monitor saw any); of
 * many hosts, over the machines they ran on. */
static void resource_charts(struct vp_markup *out, const char *run, const json_t *group,
                            enum vp_unit_style style)
{
    const json_t *points = json_object_get(group, "points");
    size_t n = json_array_size(points);
    if (n == 0 || !json_object_get(json_array_get(points, 0), "cpu_busy"))
        return; /* no monitor */
    const char *axis = sweep_axis(group);
    static const char *const keys[] = { "cpu_busy", "cpu_steal", "faults", "nic_rate" };
    double *columns[4];
    double *x = calloc(n, sizeof *x);
    for (size_t k = 0; k < 4; k++)
        columns[k] = calloc(n, sizeof *columns[k]);
    if (!x || !columns[0] || !columns[1] || !columns[2] || !columns[3])
        abort();
    double nic_total = 0;
    size_t i;
    const json_t *point;
    json_array_foreach(points, i, point) {
        x[i] = sweep_x(group, point);
        for (size_t k = 0; k < 4; k++)
            columns[k][i] = vp_json_number(point, keys[k]);
        nic_total += columns[3][i];
    }
    char title[200];
    snprintf(title, sizeof title, "%s: %s, the machine's CPU against %s", run,
             vp_json_text(group, "bench"), axis);
    struct vp_series cpu[2] = { { "busy", x, columns[0], n }, { "steal", x, columns[1], n } };
    struct vp_chart cpu_chart = { title, axis, "", "CPU", "%" };
    vp_svg_lines(out, &cpu_chart, cpu, 2, NAN, NULL);
    snprintf(title, sizeof title, "%s: %s, page faults against %s", run,
             vp_json_text(group, "bench"), axis);
    struct vp_series faults = { "faults", x, columns[2], n };
    struct vp_chart fault_chart = { title, axis, "", "faults", "/s" };
    vp_svg_lines(out, &fault_chart, &faults, 1, NAN, NULL);
    if (nic_total > 0) {
        snprintf(title, sizeof title, "%s: %s, NIC bytes against %s", run,
                 vp_json_text(group, "bench"), axis);
        struct vp_series nic = { "rx + tx", x, columns[3], n };
        struct vp_chart nic_chart = { title, axis, "", "NIC", "B/s", style };
        vp_svg_lines(out, &nic_chart, &nic, 1, NAN, NULL);
    }
    free(x);
    for (size_t k = 0; k < 4; k++)
        free(columns[k]);
}

static void scaling_charts(struct vp_markup *out, const struct vp_report *report)
{
    json_t *const *documents = report->documents;
    size_t charts = 0;
    for (size_t d = 0; d < report->count && charts < MAX_CHARTS; d++) {
        const json_t *scaling = report->scalings[d];
        if (!scaling)
            continue;
        if (charts == 0)
            vp_markup_printf(out, "<h2>Scaling</h2>");
        size_t g;
        const json_t *group;
        json_array_foreach(json_object_get(scaling, "groups"), g, group) {
            if (charts == MAX_CHARTS)
                break;
            size_t n = json_array_size(json_object_get(group, "points"));
            double *x = calloc(n, sizeof *x), *aggregate = calloc(n, sizeof *aggregate);
            double *per_job = calloc(n, sizeof *per_job), *judged = calloc(n, sizeof *judged);
            if (!x || !aggregate || !per_job || !judged)
                abort();
            size_t i;
            const json_t *point;
            json_array_foreach(json_object_get(group, "points"), i, point) {
                x[i] = sweep_x(group, point);
                aggregate[i] = vp_json_number(point, "aggregate");
                per_job[i] = vp_json_number(point, "per_job");
                judged[i] = vp_json_number(point, "judged");
            }
            /* what the knee was judged on is drawn: p99 beside the per-job mean */
            bool by_p99 = strcmp(vp_json_text(group, "judged"), "p99") == 0;
            char title[200], marker[96];
            enum vp_unit_style style = vp_units_pick(report->units, vp_bench_units(vp_json_text(group, "bench")));
            const char *axis = sweep_axis(group);
            const char *side = json_string_value(json_object_get(group, "side"));
            snprintf(title, sizeof title, "%s: %s %s against %s%s%s", run_name(documents[d]),
                     vp_json_text(group, "bench"), vp_json_text(group, "metric"), axis,
                     side ? ", side " : "", side ? side : "");
            long long knee = (long long)json_integer_value(
                json_object_get(group, by_hosts(group) ? "knee_hosts" : "knee_jobs"));
            snprintf(marker, sizeof marker, "knee: %lld %.*s%s (%s)", knee,
                     (int)strlen(axis) - 1, axis, knee == 1 ? "" : "s",
                     vp_json_text(group, "rule"));
            struct vp_series series[2] = { { by_p99 ? "p99 (judged)" : "aggregate", x,
                                             by_p99 ? judged : aggregate, n },
                                           { "per job", x, per_job, n } };
            struct vp_chart chart = { title, axis, "", vp_json_text(group, "metric"),
                                      vp_json_text(group, "unit"), style };
            vp_svg_lines(out, &chart, series, 2, (double)knee, marker);
            free(x);
            free(judged);
            free(aggregate);
            free(per_job);
            charts++;
            if (g == 0 || !json_equal(json_object_get(json_array_get(json_object_get(scaling, "groups"), g - 1), "params"),
                                      json_object_get(group, "params")) ||
                strcmp(vp_json_text(json_array_get(json_object_get(scaling, "groups"), g - 1), "bench"),
                       vp_json_text(group, "bench")) != 0)
                resource_charts(out, run_name(documents[d]), group, style);
        }
    }
}

/* Cumulative share of operations against latency, up to p99.9 so the tail stays legible. */
/* One result's distribution as a CDF series up to its p99.9 (x and y allocated). */
static struct vp_series cdf_series(const json_t *distribution, const char *name)
{
    const json_t *buckets = json_object_get(distribution, "buckets");
    size_t n = json_array_size(buckets), used = 0;
    double *x = calloc(n ? n : 1, sizeof *x), *y = calloc(n ? n : 1, sizeof *y);
    if (!x || !y)
        abort();
    double total = vp_json_number(distribution, "count"), seen = 0;
    double limit = vp_json_number(distribution, "p99.9");
    for (size_t i = 0; i < n; i++) {
        const json_t *pair = json_array_get(buckets, i);
        double high = (double)vp_histogram_bucket_high(
                          (size_t)json_integer_value(json_array_get(pair, 0))) / 1e9;
        seen += (double)json_integer_value(json_array_get(pair, 1));
        if (high > limit * 1.01 && used > 0)
            break;
        x[used] = high;
        y[used++] = 100 * seen / total;
    }
    return (struct vp_series){ name, x, y, used };
}

/* One chart per benchmark and latency metric, every result's CDF overlaid (at most 8:
 * the palette's colours), so runs and job counts are read against each other. */
static void latency_cdfs(struct vp_markup *out, json_t *const *documents, size_t count)
{
    json_t *drawn = json_object(); /* "bench metric" already charted */
    size_t charts = 0;
    for (size_t d = 0; d < count; d++) {
        size_t r;
        const json_t *result;
        json_array_foreach(json_object_get(documents[d], "results"), r, result) {
            const char *name;
            const json_t *metric;
            json_object_foreach(json_object_get(result, "metrics"), name, metric) {
                char key[200];
                snprintf(key, sizeof key, "%s %s", vp_json_text(result, "bench"), name);
                if (!json_object_get(metric, "distribution") || json_object_get(drawn, key) ||
                    charts == MAX_CHARTS)
                    continue;
                json_object_set_new(drawn, key, json_true());
                if (charts++ == 0)
                    vp_markup_printf(out, "<h2>Latency distributions</h2>");
                struct vp_series series[8];
                char names[8][96];
                size_t used = 0;
                for (size_t e = d; e < count && used < 8; e++) {
                    size_t q;
                    const json_t *other;
                    json_array_foreach(json_object_get(documents[e], "results"), q, other) {
                        const json_t *distribution = json_object_get(
                            json_object_get(json_object_get(other, "metrics"), name), "distribution");
                        if (!distribution || used == 8 ||
                            strcmp(vp_json_text(other, "bench"), vp_json_text(result, "bench")) != 0)
                            continue;
                        char other_name[80];
                        result_name(other, other_name, sizeof other_name);
                        snprintf(names[used], sizeof names[used], "%.40s %s",
                                 run_name(documents[e]), other_name + strcspn(other_name, " ") + 1);
                        series[used] = cdf_series(distribution, names[used]);
                        used++;
                    }
                }
                char title[200];
                snprintf(title, sizeof title, "%s %s per operation (CDF to p99.9)",
                         vp_json_text(result, "bench"), name);
                struct vp_chart chart = { title, "latency", "s", "operations at or below", "%" };
                vp_svg_lines(out, &chart, series, used, NAN, NULL);
                for (size_t i = 0; i < used; i++) {
                    free((void *)series[i].x);
                    free((void *)series[i].y);
                }
            }
        }
    }
    json_decref(drawn);
}

/* Source x destination heatmaps of network results gathered from several hosts. */
static void matrix_charts(struct vp_markup *out, const json_t *matrices, enum vp_unit_style units)
{
    const json_t *all = json_object_get(matrices, "matrices");
    size_t charts = 0, m;
    const json_t *matrix;
    json_array_foreach(all, m, matrix) {
        const char *metric = vp_json_text(matrix, "metric");
        if (strcmp(metric, "throughput") != 0 && strcmp(metric, "latency") != 0)
            continue;
        if (charts++ == 0)
            vp_markup_printf(out, "<h2>Matrices</h2>");
        size_t rows = json_array_size(json_object_get(matrix, "sources"));
        size_t columns = json_array_size(json_object_get(matrix, "destinations"));
        const char **row_names = calloc(rows, sizeof *row_names);
        const char **column_names = calloc(columns, sizeof *column_names);
        double *values = calloc(rows * columns, sizeof *values);
        if (!row_names || !column_names || !values)
            abort();
        for (size_t r = 0; r < rows; r++) {
            row_names[r] = json_string_value(json_array_get(json_object_get(matrix, "sources"), r));
            for (size_t c = 0; c < columns; c++) {
                const json_t *value = json_array_get(json_array_get(json_object_get(matrix, "values"), r), c);
                values[r * columns + c] = json_is_number(value) ? json_number_value(value) : NAN;
            }
        }
        for (size_t c = 0; c < columns; c++)
            column_names[c] = json_string_value(json_array_get(json_object_get(matrix, "destinations"), c));
        char title[200];
        enum vp_unit_style style = vp_units_pick(units, vp_bench_units(vp_json_text(matrix, "bench")));
        /* the params only where another matrix of this benchmark, metric and job count
         * needs telling apart */
        bool twin = false;
        size_t other_index;
        const json_t *other;
        json_array_foreach(all, other_index, other)
            twin = twin || (other_index != m &&
                            strcmp(vp_json_text(other, "bench"), vp_json_text(matrix, "bench")) == 0 &&
                            strcmp(vp_json_text(other, "metric"), metric) == 0 &&
                            json_equal(json_object_get(other, "jobs"), json_object_get(matrix, "jobs")));
        char *params = json_dumps(json_object_get(matrix, "params"), JSON_COMPACT | JSON_SORT_KEYS);
        long long jobs = (long long)json_integer_value(json_object_get(matrix, "jobs"));
        snprintf(title, sizeof title, "%s %s, %lld job%s%s%.100s", vp_json_text(matrix, "bench"),
                 metric, jobs, jobs == 1 ? "" : "s", twin ? ", " : "", twin ? params : "");
        free(params);
        vp_svg_heatmap(out, title, vp_json_text(matrix, "unit"), style, row_names, rows, column_names,
                       columns, values, strcmp(vp_json_text(matrix, "better"), "higher") == 0);
        free(row_names);
        free(column_names);
        free(values);
    }
    flag_lines(out, json_object_get(matrices, "notes"), false);
}

/* One result of many hosts: a row per host, its first metric against the others. */
static void hosts_table(struct vp_markup *out, const char *run, const json_t *result,
                        enum vp_unit_style units)
{
    const json_t *ranks = json_object_get(result, "ranks");
    const char *metric = NULL;
    const json_t *definition = NULL;
    json_object_foreach(json_object_get(result, "metrics"), metric, definition)
        break;
    enum vp_unit_style style = vp_units_pick(units, vp_bench_units(vp_json_text(result, "bench")));
    vp_markup_printf(out, "<h3>");
    vp_markup_text(out, run);
    char what[120];
    result_name(result, what, sizeof what);
    vp_markup_printf(out, ": %s", what);
    if (json_object_get(ranks, "topology")) {
        vp_markup_printf(out, " (");
        vp_markup_text(out, vp_json_text(ranks, "topology"));
        vp_markup_printf(out, ")");
    }
    vp_markup_printf(out, "</h3><table><tr><th>rank</th><th>host</th><th>status</th><th>");
    vp_markup_text(out, metric ? metric : "");
    vp_markup_printf(out, "</th><th>vs the others</th><th>CPU busy</th><th>steal</th>"
                        "<th>clock bound</th></tr>");
    const json_t *hosts = json_object_get(ranks, "hosts");
    size_t i;
    const json_t *host;
    json_array_foreach(hosts, i, host) {
        char text[64];
        vp_markup_printf(out, "<tr><td>%lld</td>",
                         (long long)json_integer_value(json_object_get(host, "rank")));
        vp_markup_cell(out, vp_json_text(host, "host"));
        vp_markup_cell(out, vp_json_text(host, "status"));
        vp_format_value(vp_json_number(json_object_get(json_object_get(host, "metrics"),
                                                       metric ? metric : ""), "mean"),
                        vp_json_text(definition, "unit"), style, text, sizeof text);
        vp_markup_cell(out, text);
        double versus = metric ? vp_host_versus_others(hosts, i, metric) : NAN;
        snprintf(text, sizeof text, isfinite(versus) ? "%+.0f%%" : "-", 100 * versus);
        vp_markup_cell(out, text);
        const json_t *summary = json_object_get(json_object_get(host, "monitor"), "summary");
        snprintf(text, sizeof text, "%.1f%%",
                 vp_json_number(json_object_get(summary, "cpu.busy"), "mean"));
        vp_markup_cell(out, summary ? text : "-");
        snprintf(text, sizeof text, "%.2f%%",
                 vp_json_number(json_object_get(summary, "cpu.steal"), "mean"));
        vp_markup_cell(out, summary ? text : "-");
        vp_format_seconds(vp_json_number(host, "clock_bound_s"), text, sizeof text);
        vp_markup_cell(out, text);
        vp_markup_printf(out, "</tr>");
    }
    vp_markup_printf(out, "</table>");
}

/* Results of many hosts at once (virtperf-mpi), host by host. */
static void hosts_tables(struct vp_markup *out, json_t *const *documents, size_t count,
                         enum vp_unit_style units)
{
    size_t tables = 0;
    for (size_t d = 0; d < count; d++) {
        size_t r;
        const json_t *result;
        json_array_foreach(json_object_get(documents[d], "results"), r, result) {
            if (!json_object_get(result, "ranks") || tables == MAX_CHARTS * 4)
                continue;
            if (tables++ == 0)
                vp_markup_printf(out, "<h2>Hosts</h2><p>Results measured on many hosts at "
                                    "once: each host's own figure against the median of the "
                                    "others, its CPU while it ran, and the bound of its clock "
                                    "offset to rank 0.</p>");
            hosts_table(out, run_name(documents[d]), result, units);
        }
    }
}

/* One chart of the monitor columns picked by wanted (at most 6, all-zero ones left out). */
static int monitor_chart(struct vp_markup *out, const json_t *series, const char *title,
                         int (*wanted)(const char *column), const char *y_label, const char *unit,
                         enum vp_unit_style style)
{
    const json_t *t = json_object_get(series, "t");
    size_t n = json_array_size(t), count = 0;
    double *x = calloc(n ? n : 1, sizeof *x), *y[6];
    struct vp_series lines[6];
    if (!x)
        abort();
    for (size_t i = 0; i < n; i++)
        x[i] = json_number_value(json_array_get(t, i));
    const char *column;
    const json_t *values;
    json_object_foreach((json_t *)series, column, values) {
        if (count == 6 || !wanted(column))
            continue;
        double peak = 0;
        y[count] = calloc(n ? n : 1, sizeof *y[count]);
        if (!y[count])
            abort();
        for (size_t i = 0; i < n; i++) {
            y[count][i] = json_number_value(json_array_get(values, i));
            peak = fmax(peak, y[count][i]);
        }
        if (peak <= 0 && strncmp(column, "cpu.", 4) != 0) {
            free(y[count]);
            continue;
        }
        lines[count] = (struct vp_series){ column, x, y[count], n };
        count++;
    }
    if (count > 0) {
        struct vp_chart chart = { title, "time since the first measured repetition", "s",
                                  y_label, unit, style };
        vp_svg_lines(out, &chart, lines, count, NAN, NULL);
    }
    for (size_t i = 0; i < count; i++)
        free(y[i]);
    free(x);
    return count > 0;
}

static int cpu_column(const char *column)
{
    return strcmp(column, "cpu.busy") == 0 || strcmp(column, "cpu.steal") == 0 ||
           strcmp(column, "cpu.iowait") == 0;
}

static int fault_column(const char *column)
{
    return strncmp(column, "faults.", 7) == 0;
}

static int io_column(const char *column)
{
    size_t len = strlen(column);
    return (strncmp(column, "net.", 4) == 0 || strncmp(column, "network.", 8) == 0 ||
            strncmp(column, "disk.", 5) == 0) &&
           !(len > 5 && strcmp(column + len - 5, ".util") == 0);
}

/* Per result: the machine's CPU time, page faults, and NIC and disk rates. */
static void monitor_charts(struct vp_markup *out, json_t *const *documents, size_t count,
                           enum vp_unit_style units)
{
    size_t results = 0;
    vp_markup_printf(out, "<h2>Monitor</h2><details><summary>The whole machine while each "
                        "result was measured, as time series (10 Hz unless --monitor-hz said "
                        "otherwise; series that stayed at zero are left out): open to see "
                        "them.</summary>");
    for (size_t d = 0; d < count; d++) {
        size_t r;
        const json_t *result;
        json_array_foreach(json_object_get(documents[d], "results"), r, result) {
            enum vp_unit_style style =
                vp_units_pick(units, vp_bench_units(vp_json_text(result, "bench")));
            const json_t *series = json_object_get(json_object_get(result, "monitor"), "series");
            if (json_array_size(json_object_get(series, "t")) == 0 || results == MAX_CHARTS)
                continue;
            results++;
            char title[200];
            const char *name = run_name(documents[d]);
            char what[120];
            result_name(result, what, sizeof what);
            snprintf(title, sizeof title, "%s: %s, CPU", name, what);
            monitor_chart(out, series, title, cpu_column, "CPU", "%", style);
            snprintf(title, sizeof title, "%s: %s, page faults", name, what);
            monitor_chart(out, series, title, fault_column, "faults", "/s", style);
            snprintf(title, sizeof title, "%s: %s, NIC and disk rates", name, what);
            monitor_chart(out, series, title, io_column, "rate", "B/s", style);
        }
    }
    vp_markup_printf(out, "</details>");
}

void vp_report_html(const struct vp_report *report, struct vp_markup *out)
{
    json_t *const *documents = report->documents;
    size_t count = report->count;
    char stamp[32];
    vp_utc_timestamp(stamp, sizeof stamp);
    vp_markup_printf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                        "<title>virtperf report</title><style>%s</style></head><body>"
                        "<h1>virtperf report</h1><p>Generated %s from %zu run%s:", css, stamp,
                   count, count == 1 ? "" : "s");
    for (size_t d = 0; d < count; d++) {
        vp_markup_printf(out, " <b>");
        vp_markup_text(out, run_name(documents[d]));
        vp_markup_printf(out, "</b> (%s)", vp_json_text(json_object_get(documents[d], "run"), "started_at"));
    }
    vp_markup_printf(out, ".</p>");
    /* what a reader came for first: the study's steps then and now, the verdicts of the
     * headline metrics; then the environments, the curves, and the monitor last */
    if (report->study)
        vp_study_html(out, report->study, report->units);
    if (count > 1)
        verdicts(out, report);
    environments(out, report);
    scaling_charts(out, report);
    matrix_charts(out, report->matrices, report->units);
    hosts_tables(out, documents, count, report->units);
    latency_cdfs(out, documents, count);
    vp_report_timelines(out, documents, count, run_name);
    monitor_charts(out, documents, count, report->units);
    vp_markup_printf(out, "</body></html>\n");
}
