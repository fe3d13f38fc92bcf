/* The report's sections of single results (html_results.h): latency CDFs, network
 * matrices' heatmaps, results of many hosts host by host, and the monitor's charts; and
 * the names and flag lines every section of the page writes alike. */
#include "render/html_results.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "render/words.h"
#include "core/histogram.h"
#include "core/json.h"
#include "core/units.h"
#include "render/svg.h"


/* A run's name: its label, else its id. */
const char *vp_html_run_name(const json_t *document)
{
    const json_t *run = json_object_get(document, "run");
    const char *label = json_string_value(json_object_get(run, "label"));
    return label ? label : vp_json_text(run, "id");
}

/* Each of texts as a flag: under a verdict a line of its own (inline), else a paragraph;
 * the markup is this function's, the texts escaped. */
void vp_html_flag_lines(struct vp_markup *out, const json_t *texts, bool inline_lines)
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
/* "bench jobs=N", with where a result of many hosts ran. */
void vp_html_result_name(const json_t *result, char *out, size_t len)
{
    int used = snprintf(out, len, "%.40s jobs=%lld", vp_json_text(result, "bench"),
                        (long long)json_integer_value(json_object_get(result, "jobs")));
    const json_t *ranks = json_object_get(json_object_get(result, "ranks"), "count");
    char where[48];
    if (ranks && used > 0 && (size_t)used < len) {
        vp_members_counted(vp_json_text(json_object_get(result, "shown"), "members"),
                           (long long)json_integer_value(ranks), true,
                           where, sizeof where);
        snprintf(out + used, len - (size_t)used, " %s", where);
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
void vp_html_latency_cdfs(struct vp_markup *out, json_t *const *documents, size_t count)
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
                    charts == VP_HTML_MAX_CHARTS)
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
                        vp_html_result_name(other, other_name, sizeof other_name);
                        snprintf(names[used], sizeof names[used], "%.40s %s",
                                 vp_html_run_name(documents[e]), other_name + strcspn(other_name, " ") + 1);
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
void vp_html_matrix_charts(struct vp_markup *out, const json_t *matrices, enum vp_unit_style units)
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
        enum vp_unit_style style = vp_json_unit_style(matrix, units);
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
    vp_html_flag_lines(out, json_object_get(matrices, "notes"), false);
}

/* A host's row's last cells: its CPU busy and steal from its monitor's summary (- where
 * it has none) and its clock's bound, and the row's end. */
static void machine_cells(struct vp_markup *out, const json_t *summary, const json_t *host)
{
    char text[64];
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

/* virtperf-mpi's hypervisors of one result: a row each, its members' aggregate. */
static void hypervisors_table(struct vp_markup *out, const json_t *hypervisors,
                              const char *metric, const json_t *definition,
                              enum vp_unit_style style)
{
    vp_markup_printf(out, "<table><tr><th>hypervisor rank</th><th>host</th><th>members</th>"
                          "<th>status</th><th>");
    vp_markup_text(out, metric ? metric : "");
    vp_markup_printf(out, "</th><th>CPU busy</th><th>steal</th><th>clock bound</th></tr>");
    size_t i;
    const json_t *host;
    json_array_foreach(hypervisors, i, host) { /* checked on import: numbers and texts */
        char text[64];
        json_int_t first = json_integer_value(json_object_get(host, "first_member"));
        vp_markup_printf(out, "<tr><td>%lld</td>",
                         (long long)json_integer_value(json_object_get(host, "rank")));
        vp_markup_cell(out, vp_json_text(host, "host"));
        snprintf(text, sizeof text, "%lld-%lld", (long long)first,
                 (long long)(first + json_integer_value(json_object_get(host, "members")) - 1));
        vp_markup_cell(out, text);
        vp_markup_cell(out, vp_json_text(host, "status"));
        vp_format_value(vp_json_number(json_object_get(json_object_get(host, "metrics"),
                                                       metric ? metric : ""), "mean"),
                        vp_json_text(definition, "unit"), style, text, sizeof text);
        vp_markup_cell(out, text);
        machine_cells(out, json_object_get(host, "monitor"), host);
    }
    vp_markup_printf(out, "</table>");
}

/* One result of many hosts: a row per host, its first metric against the others (with
 * virtperf-mpi's hypervisors: a row per member, the rank it ran on, then a row per
 * hypervisor). */
static void hosts_table(struct vp_markup *out, const char *run, const json_t *result,
                        enum vp_unit_style units)
{
    const json_t *ranks = json_object_get(result, "ranks");
    const char *metric = NULL;
    const json_t *definition = NULL;
    json_object_foreach(json_object_get(result, "metrics"), metric, definition)
        break;
    const json_t *shown = json_object_get(result, "shown");
    enum vp_unit_style style = vp_json_unit_style(shown, units);
    vp_markup_printf(out, "<h3>");
    vp_markup_text(out, run);
    char what[120];
    vp_html_result_name(result, what, sizeof what);
    vp_markup_printf(out, ": %s", what);
    if (json_object_get(ranks, "topology")) {
        vp_markup_printf(out, " (");
        vp_markup_text(out, vp_json_text(ranks, "topology"));
        vp_markup_printf(out, ")");
    }
    const json_t *hypervisors = json_object_get(result, "hypervisors");
    vp_markup_printf(out, hypervisors ? "</h3><table><tr><th>member</th><th>on rank</th>"
                                        : "</h3><table><tr><th>rank</th>");
    vp_markup_printf(out, "<th>host</th><th>status</th><th>");
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
        if (hypervisors)
            vp_markup_printf(out, "<td>%lld</td>", (long long)json_integer_value(
                                                       json_object_get(host, "hypervisor")));
        vp_markup_cell(out, vp_json_text(host, "host"));
        vp_markup_cell(out, vp_json_text(host, "status"));
        vp_format_value(vp_json_number(json_object_get(json_object_get(host, "metrics"),
                                                       metric ? metric : ""), "mean"),
                        vp_json_text(definition, "unit"), style, text, sizeof text);
        vp_markup_cell(out, text);
        const json_t *versus = json_array_get(json_object_get(shown, "versus_others"), i);
        snprintf(text, sizeof text, json_is_number(versus) ? "%+.0f%%" : "-",
                 100 * json_number_value(versus));
        vp_markup_cell(out, text);
        machine_cells(out, json_object_get(json_object_get(host, "monitor"), "summary"), host);
    }
    vp_markup_printf(out, "</table>");
    if (hypervisors)
        hypervisors_table(out, hypervisors, metric, definition, style);
}

/* Results of many hosts at once (virtperf-mpi), host by host. */
void vp_html_hosts_tables(struct vp_markup *out, json_t *const *documents, size_t count,
                         enum vp_unit_style units)
{
    size_t tables = 0;
    for (size_t d = 0; d < count; d++) {
        size_t r;
        const json_t *result;
        json_array_foreach(json_object_get(documents[d], "results"), r, result) {
            if (!json_object_get(result, "ranks") || tables == VP_HTML_MAX_CHARTS * 4)
                continue;
            if (tables++ == 0)
                vp_markup_printf(out, "<h2>Hosts</h2><p>Results measured on many hosts at "
                                    "once: each host's own figure against the median of the "
                                    "others, its CPU while it ran, and the bound of its clock "
                                    "offset to rank 0.</p>");
            hosts_table(out, vp_html_run_name(documents[d]), result, units);
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
void vp_html_monitor_charts(struct vp_markup *out, json_t *const *documents, size_t count,
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
                vp_json_unit_style(json_object_get(result, "shown"), units);
            const json_t *series = json_object_get(json_object_get(result, "monitor"), "series");
            if (json_array_size(json_object_get(series, "t")) == 0 || results == VP_HTML_MAX_CHARTS)
                continue;
            results++;
            char title[200];
            const char *name = vp_html_run_name(documents[d]);
            char what[120];
            vp_html_result_name(result, what, sizeof what);
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
