/* Drawing the report page from what cmd/report.c computed (html.h): it analyses nothing. */
#include "render/html.h"
#include "render/html_results.h"
#include "render/study.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/units.h"
#include "core/json.h"
#include "render/timeline.h"


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
        vp_markup_text(out, vp_html_run_name(documents[d]));
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

/* The bars of the penalty chart: the first candidate's penalty of each headline row. */
struct penalty_bars {
    const char *labels[VP_HTML_MAX_CHARTS];
    char label_text[VP_HTML_MAX_CHARTS][112];
    double values[VP_HTML_MAX_CHARTS], lows[VP_HTML_MAX_CHARTS], highs[VP_HTML_MAX_CHARTS];
    size_t count;
};

static void verdict_header(struct vp_markup *out, const struct vp_report *report)
{
    vp_markup_printf(out, "<table><tr><th>benchmark</th><th>jobs</th><th>metric</th><th>base</th>");
    for (size_t d = 1; d < report->count; d++) {
        vp_markup_printf(out, "<th>");
        vp_markup_text(out, vp_html_run_name(report->documents[d]));
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
    enum vp_unit_style style = vp_json_unit_style(row, report->units);
    vp_format_value(vp_json_number(json_object_get(row, "base"), "value"),
                    vp_json_text(row, "unit"), style, base, sizeof base);
    snprintf(jobs, sizeof jobs, "%lld", (long long)json_integer_value(json_object_get(row, "jobs")));
    vp_markup_printf(out, "<tr>");
    vp_markup_cell(out, vp_json_text(row, "label"));
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
            if (c == 0 && bars && bars->count < VP_HTML_MAX_CHARTS) {
                size_t b = bars->count++;
                snprintf(bars->label_text[b], sizeof bars->label_text[b], "%.60s %.20s j%s",
                         vp_json_text(row, "label"), vp_json_text(row, "metric"), jobs);
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
        vp_html_flag_lines(out, notes, true);
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
    vp_markup_printf(out, "<h2>Verdicts against %s</h2>", vp_html_run_name(report->documents[0]));
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
        if (json_is_true(json_object_get(row, "headline")))
            verdict_row(out, report, row, &bars);
        else
            others++;
    }
    vp_markup_printf(out, "</table>");
    if (bars.count > 0) {
        char title[160];
        snprintf(title, sizeof title, "Penalty of %s against %s (95%% interval)",
                 vp_html_run_name(report->documents[1]), vp_html_run_name(report->documents[0]));
        struct vp_chart chart = { title, "", "", "penalty (positive: worse)", "%" };
        vp_svg_bars(out, &chart, bars.labels, bars.values, bars.lows, bars.highs, bars.count);
    }
    if (others == 0)
        return;
    vp_markup_printf(out, "<details><summary>Every other metric: %zu row%s</summary>", others,
                     others == 1 ? "" : "s");
    verdict_header(out, report);
    json_array_foreach(json_object_get(comparison, "rows"), r, row)
        if (!json_is_true(json_object_get(row, "headline")))
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

/* One figure of the sweep's points against their count (x), drawn when some point has
 * it: what each guest or container held of the host's memory, their time to ready. */
static void member_chart(struct vp_markup *out, const char *run, const json_t *group,
                         const double *x, const char *key, const char *what,
                         const char *label, const char *unit, enum vp_unit_style style)
{
    const json_t *points = json_object_get(group, "points");
    size_t n = json_array_size(points), known = 0, i;
    double *y = calloc(n ? n : 1, sizeof *y);
    if (!y)
        abort();
    const json_t *point;
    json_array_foreach(points, i, point) {
        y[i] = vp_json_number(point, key);
        known += isfinite(y[i]);
    }
    if (known > 0) {
        char title[200];
        const char *axis = sweep_axis(group);
        snprintf(title, sizeof title, "%s: %s, %s against %s", run, vp_json_text(group, "bench"),
                 what, axis);
        struct vp_series series = { label, x, y, n };
        struct vp_chart chart = { title, axis, "", label, unit, style };
        vp_svg_lines(out, &chart, &series, 1, NAN, NULL);
    }
    free(y);
}

/* The machine's use against the sweep's job or host count, once per benchmark: CPU busy
 * and steal, then page faults and NIC bytes per second (where the monitor saw any); of
 * many hosts, over the machines they ran on; with guests or containers, what each held
 * of the host's memory and their time to ready (the SPring-8 study's charts, and what
 * another member would cost). */
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
    member_chart(out, run, group, x, "member_memory_bytes", "memory each member held",
                 "memory", "B", VP_UNITS_IEC);
    member_chart(out, run, group, x, "ready_p50_s", "the members' time to ready (p50)",
                 "ready", "s", style);
    free(x);
    for (size_t k = 0; k < 4; k++)
        free(columns[k]);
}

static void scaling_charts(struct vp_markup *out, const struct vp_report *report)
{
    json_t *const *documents = report->documents;
    size_t charts = 0;
    for (size_t d = 0; d < report->count && charts < VP_HTML_MAX_CHARTS; d++) {
        const json_t *scaling = report->scalings[d];
        if (!scaling)
            continue;
        if (charts == 0)
            vp_markup_printf(out, "<h2>Scaling</h2>");
        size_t g;
        const json_t *group;
        json_array_foreach(json_object_get(scaling, "groups"), g, group) {
            if (charts == VP_HTML_MAX_CHARTS)
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
            enum vp_unit_style style = vp_json_unit_style(group, report->units);
            const char *axis = sweep_axis(group);
            const char *side = json_string_value(json_object_get(group, "side"));
            snprintf(title, sizeof title, "%s: %s %s against %s%s%s", vp_html_run_name(documents[d]),
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
                resource_charts(out, vp_html_run_name(documents[d]), group, style);
        }
    }
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
        vp_markup_text(out, vp_html_run_name(documents[d]));
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
    vp_html_matrix_charts(out, report->matrices, report->units);
    vp_html_hosts_tables(out, documents, count, report->units);
    vp_html_latency_cdfs(out, documents, count);
    vp_report_timelines(out, documents, count, vp_html_run_name);
    vp_html_monitor_charts(out, documents, count, report->units);
    vp_markup_printf(out, "</body></html>\n");
}
