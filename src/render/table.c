/* Aligned terminal blocks for results: metrics, spread, timing, per-job, monitor. */
#include "render/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h" /* VP_PATH_ERROR_LEN */
#include "core/printable.h"
#include "core/units.h"
#include "core/json.h"
#include "engine/parts.h"

static void print_distribution(FILE *out, const char *name, const json_t *distribution)
{
    static const char *const keys[] = { "p50", "p90", "p99", "p99.9", "p99.99", "max" };
    fprintf(out, "  %-20s", name);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char value[32];
        vp_format_seconds(vp_json_number(distribution, keys[i]), value, sizeof value);
        fprintf(out, " %s %s", keys[i], value);
    }
    fprintf(out, "  (%lld ops)\n", (long long)json_integer_value(json_object_get(distribution, "count")));
    /* the SPring-8 study's table: each request, not each repetition's mean */
    char low[32], high[32], mean[32], spread[32];
    vp_format_seconds(vp_json_number(distribution, "min"), low, sizeof low);
    vp_format_seconds(vp_json_number(distribution, "max"), high, sizeof high);
    vp_format_seconds(vp_json_number(distribution, "mean"), mean, sizeof mean);
    vp_format_seconds(vp_json_number(distribution, "stddev"), spread, sizeof spread);
    fprintf(out, "  %-20s min %s max %s mean %s sd %s (over every operation)\n", "", low, high,
            mean, spread);
}

/* The result's optional parts, each as what declared it prints it, then its warnings. */
static void print_annotations(FILE *out, const json_t *result, enum vp_unit_style style)
{
    const struct vp_result_part *parts[VP_MAX_RESULT_PARTS];
    size_t count = vp_result_parts(parts, VP_MAX_RESULT_PARTS);
    for (size_t p = 0; p < count; p++) {
        const json_t *value = json_object_get(result, parts[p]->key);
        if (value && parts[p]->print)
            parts[p]->print(out, value, style);
    }
    size_t i;
    const json_t *line;
    char shown[VP_PATH_ERROR_LEN];
    json_array_foreach(json_object_get(result, "warnings"), i, line) /* a member's, an import's */
        fprintf(out, "  warning: %s\n", vp_printable(json_string_value(line), shown, sizeof shown));
}

static void print_metrics(FILE *out, const json_t *metrics, enum vp_unit_style style)
{
    fprintf(out, "  %-20s %14s %8s %14s %14s  %s\n", "metric", "mean", "cv", "min", "max",
                 "n, better");
    const char *name;
    const json_t *metric;
    json_object_foreach((json_t *)metrics, name, metric) {
        const char *unit = vp_json_text(metric, "unit");
        char mean[32], low[32], high[32], cv[16];
        vp_format_value(vp_json_number(metric, "mean"), unit, style, mean, sizeof mean);
        vp_format_value(vp_json_number(metric, "min"), unit, style, low, sizeof low);
        vp_format_value(vp_json_number(metric, "max"), unit, style, high, sizeof high);
        double mean_value = vp_json_number(metric, "mean");
        snprintf(cv, sizeof cv, "%.1f%%",
                 mean_value != 0 ? 100 * vp_json_number(metric, "stddev") / fabs(mean_value) : 0.0);
        fprintf(out, "  %-20s %14s %8s %14s %14s  %lld, %s\n", name, mean, cv, low, high,
                (long long)json_integer_value(json_object_get(metric, "n")),
                vp_json_text(metric, "better"));
    }
    json_object_foreach((json_t *)metrics, name, metric) {
        const json_t *distribution = json_object_get(metric, "distribution");
        if (distribution) {
            char label[64];
            snprintf(label, sizeof label, "%s per op", name);
            print_distribution(out, label, distribution);
        }
    }
}

/* "  NAME VALUE" for each metric of figures, in the units of metrics. */
static void print_means(FILE *out, const json_t *figures, const json_t *metrics,
                        enum vp_unit_style style)
{
    const char *name;
    const json_t *metric;
    json_object_foreach((json_t *)figures, name, metric) {
        char value[32];
        const char *unit = vp_json_text(json_object_get(metrics, name), "unit");
        vp_format_value(vp_json_number(metric, "mean"), unit, style, value, sizeof value);
        fprintf(out, "  %s %s", name, value);
    }
}

/* The rank whose jobs include job (a result from many hosts), or -1. */
static long long rank_of_job(const json_t *hosts, json_int_t job)
{
    size_t i;
    const json_t *host;
    json_array_foreach(hosts, i, host) {
        json_int_t first = json_integer_value(json_object_get(host, "first_job"));
        if (job >= first && job < first + json_integer_value(json_object_get(host, "jobs")))
            return (long long)json_integer_value(json_object_get(host, "rank"));
    }
    return -1;
}

static void print_per_job(FILE *out, const json_t *per_job, const json_t *metrics,
                          const json_t *hosts, enum vp_unit_style style)
{
    size_t i;
    const json_t *job;
    json_array_foreach(per_job, i, job) {
        json_int_t index = json_integer_value(json_object_get(job, "job"));
        if (hosts)
            fprintf(out, "  rank %-3lld", rank_of_job(hosts, index));
        fprintf(out, "  job %-3lld cpu %-6s", (long long)index, vp_json_text(job, "cpu_binding"));
        print_means(out, json_object_get(job, "metrics"), metrics, style);
        fputc('\n', out);
    }
}

/* A result from many hosts: each host's first metric, against the median of the others'
 * ("vm3 30% slower than the others"), its clock's bound and its CPU (the JSON has all). */
/* A host's own block device counters, under its line (indented one step more). */
static void print_host_device(FILE *out, const json_t *host, enum vp_unit_style style)
{
    const json_t *device = json_object_get(host, "device");
    const struct vp_result_part *part = vp_result_part_find("device");
    if (!device || !part)
        return;
    char *text = NULL;
    size_t size = 0;
    FILE *line = open_memstream(&text, &size);
    if (!line)
        return;
    part->print(line, device, style);
    fclose(line);
    fprintf(out, "  %s", text);
    free(text);
}

/* Each host of ranks; with metrics, its mean of the first and versus (shown's
 * versus_others) beside it. */
static void print_hosts(FILE *out, const json_t *ranks, const json_t *metrics,
                        const json_t *versus, enum vp_unit_style style)
{
    const json_t *hosts = json_object_get(ranks, "hosts");
    const char *first_metric = NULL;
    const json_t *definition = NULL;
    json_object_foreach((json_t *)metrics, first_metric, definition)
        break;
    size_t i;
    const json_t *host;
    json_array_foreach(hosts, i, host) {
        char name[64], bound[32];
        vp_format_seconds(vp_json_number(host, "clock_bound_s"), bound, sizeof bound);
        const json_t *hypervisor = json_object_get(host, "hypervisor"); /* a member's rank */
        fprintf(out, "  %s %-3lld %-16s %-6s clock ±%-9s", hypervisor ? "member" : "rank",
                (long long)json_integer_value(json_object_get(host, "rank")),
                vp_printable(vp_json_text(host, "host"), name, sizeof name),
                vp_json_text(host, "status"), bound);
        if (hypervisor)
            fprintf(out, "  on rank %lld", (long long)json_integer_value(hypervisor));
        if (first_metric) {
            char value[32];
            vp_format_value(vp_json_number(json_object_get(json_object_get(host, "metrics"),
                                                           first_metric), "mean"),
                            vp_json_text(definition, "unit"), style, value, sizeof value);
            fprintf(out, "  %s %s", first_metric, value);
            const json_t *against = json_array_get(versus, i);
            if (json_is_number(against))
                fprintf(out, "  (%+.0f%% vs the others)", 100 * json_number_value(against));
        }
        const json_t *machine = json_object_get(host, "machine");
        if (machine && !json_equal(machine, json_object_get(host, "rank")))
            fprintf(out, "  (the machine of rank %lld)", (long long)json_integer_value(machine));
        const json_t *summary = json_object_get(json_object_get(host, "monitor"), "summary");
        if (summary)
            fprintf(out, "  cpu busy %.0f%% steal %.1f%%",
                    vp_json_number(json_object_get(summary, "cpu.busy"), "mean"),
                    vp_json_number(json_object_get(summary, "cpu.steal"), "mean"));
        fputc('\n', out);
        print_host_device(out, host, style);
    }
}

/* "monitor: network in X, out Y over IF IF": the host's edges the monitor counted
 * (core/nic_kind.h), where the document says which. */
static void print_network(FILE *out, const json_t *monitor, enum vp_unit_style style)
{
    const json_t *summary = json_object_get(monitor, "summary");
    if (!json_object_get(summary, "network.rx") || !json_object_get(monitor, "nics"))
        return;
    char received[48], sent[48], names[300] = "";
    vp_format_value(vp_json_number(json_object_get(summary, "network.rx"), "mean"), "B/s", style,
                    received, sizeof received);
    vp_format_value(vp_json_number(json_object_get(summary, "network.tx"), "mean"), "B/s", style,
                    sent, sizeof sent);
    size_t used = 0;
    const char *name;
    const json_t *nic;
    json_object_foreach((json_t *)json_object_get(monitor, "nics"), name, nic) {
        char shown[64];
        if (json_is_true(json_object_get(nic, "counted")) && used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, " %s",
                                     vp_printable(name, shown, sizeof shown));
    }
    fprintf(out, "  monitor: network in %s, out %s over%s\n", received, sent,
            used ? names : " no interface");
}

static void print_monitor(FILE *out, const json_t *monitor, enum vp_unit_style style)
{
    const json_t *summary = json_object_get(monitor, "summary");
    double busy = vp_json_number(json_object_get(summary, "cpu.busy"), "mean");
    double busy_max = vp_json_number(json_object_get(summary, "cpu.busy"), "max");
    double steal = vp_json_number(json_object_get(summary, "cpu.steal"), "mean");
    double minor = vp_json_number(json_object_get(summary, "faults.minor"), "mean");
    double switches = vp_json_number(json_object_get(summary, "ctxsw"), "mean");
    fprintf(out, "  monitor: cpu busy %.1f%% (max %.1f%%), steal %.2f%%, %.0f faults/s, "
                 "%.0f ctxsw/s, %lld samples\n", busy, busy_max, steal, minor, switches,
            (long long)json_integer_value(json_object_get(monitor, "samples")));
    print_network(out, monitor, style);
    const char *name;
    const json_t *column;
    json_object_foreach((json_t *)summary, name, column) {
        if (strncmp(name, "watch.", 6) == 0)
            fprintf(out, "  monitor: %s %.1f%% of a CPU (max %.1f%%)\n", name,
                    vp_json_number(column, "mean"), vp_json_number(column, "max"));
    }
}

/* How many ranks of a network round only served (a link's end that ran no jobs): a
 * 2-rank fan-in is one rank measured and one serving, 2 ranks in all. */
static int serving_ranks(const json_t *ranks)
{
    bool measured[4096] = { false }, counted[4096] = { false };
    size_t i;
    const json_t *entry;
    json_array_foreach(json_object_get(ranks, "hosts"), i, entry) {
        json_int_t rank = json_integer_value(json_object_get(entry, "rank"));
        if (rank >= 0 && rank < 4096)
            measured[rank] = true;
    }
    int serving = 0;
    json_array_foreach(json_object_get(ranks, "links"), i, entry) {
        const char *const ends[] = { "from", "to" };
        for (size_t e = 0; e < 2; e++) {
            json_int_t rank = json_integer_value(json_object_get(entry, ends[e]));
            if (rank >= 0 && rank < 4096 && !measured[rank] && !counted[rank]) {
                counted[rank] = true;
                serving++;
            }
        }
    }
    return serving;
}

void vp_print_result(FILE *out, const json_t *result, const json_t *shown,
                     enum vp_unit_style units)
{
    enum vp_unit_style style = vp_json_unit_style(shown, units);
    const char *params = vp_json_text(shown, "params");
    const json_t *versus = json_object_get(shown, "versus_others");
    const char *status = vp_json_text(result, "status");
    const json_t *ranks = json_object_get(result, "ranks");
    char across[64] = "";
    const json_t *hypervisors = json_object_get(result, "hypervisors");
    if (ranks) {
        long long measured = (long long)json_integer_value(json_object_get(ranks, "count"));
        int serving = serving_ranks(ranks);
        if (hypervisors)
            snprintf(across, sizeof across, " members=%lld on %zu ranks", measured,
                     json_array_size(hypervisors));
        else if (serving > 0)
            snprintf(across, sizeof across, " ranks=%lld (%lld measured, %d serving)",
                     measured + serving, measured, serving);
        else
            snprintf(across, sizeof across, " ranks=%lld", measured);
    }
    fprintf(out, "%s  jobs=%lld%s pin=%s %s  [%s]\n", vp_json_text(result, "bench"),
            (long long)json_integer_value(json_object_get(result, "jobs")), across,
            vp_json_text(result, "pin"), params, status);
    if (strcmp(status, "ok") != 0) {
        char error[VP_PATH_ERROR_LEN];
        fprintf(out, "  %s\n", vp_printable(vp_json_text(result, "error"), error, sizeof error));
        if (ranks)
            print_hosts(out, ranks, NULL, NULL, style);
        fputc('\n', out);
        return;
    }
    const json_t *metrics = json_object_get(result, "metrics");
    print_metrics(out, metrics, style);
    char skew[32], skew_max[32], first[32], last[32];
    vp_format_seconds(vp_json_number(result, "start_skew_s"), skew, sizeof skew);
    vp_format_seconds(vp_json_number(result, "start_skew_max_s"), skew_max, sizeof skew_max);
    vp_format_seconds(vp_json_number(result, "first_done_s"), first, sizeof first);
    vp_format_seconds(vp_json_number(result, "last_done_s"), last, sizeof last);
    char bound[112] = "";
    if (ranks) {
        char bound_value[32];
        vp_format_seconds(vp_json_number(ranks, "start_skew_bound_s"), bound_value,
                          sizeof bound_value);
        snprintf(bound, sizeof bound, " ±%s across hosts%s", bound_value,
                 strcmp(vp_json_text(ranks, "start_with"), "barrier") == 0
                     ? ", started when MPI_Barrier returned" : "");
    }
    fprintf(out, "  start skew %s%s (max %s), first done %s, last done %s\n", skew, bound,
            skew_max, first, last);
    if (ranks)
        print_hosts(out, ranks, metrics, versus, style);
    size_t l;
    const json_t *link;
    json_array_foreach(json_object_get(ranks, "links"), l, link) {
        char from[420], to[420];
        fprintf(out, "  %s: rank %lld (%s) -> rank %lld (%s)\n",
                vp_json_text(ranks, "topology"),
                (long long)json_integer_value(json_object_get(link, "from")),
                vp_printable(vp_json_text(link, "from_label"), from, sizeof from),
                (long long)json_integer_value(json_object_get(link, "to")),
                vp_printable(vp_json_text(link, "to_label"), to, sizeof to));
    }
    print_per_job(out, json_object_get(result, "per_job"), metrics,
                  ranks ? json_object_get(ranks, "hosts") : NULL, style);
    if (json_object_get(result, "monitor"))
        print_monitor(out, json_object_get(result, "monitor"), style);
    print_annotations(out, result, style);
    fputc('\n', out);
}

void vp_print_workload_scores(FILE *table, const json_t *scores)
{
    size_t i;
    const json_t *score;
    json_array_foreach(scores, i, score) {
        fprintf(table, "score jobs=%lld: %.3f, the geometric mean of %lld workloads' speed "
                "against the reference machine (", (long long)json_integer_value(json_object_get(score, "jobs")),
                vp_json_number(score, "score"), (long long)json_integer_value(json_object_get(score, "workloads")));
        const char *name;
        const json_t *value;
        const char *separator = "";
        json_object_foreach((json_t *)json_object_get(score, "each"), name, value) {
            fprintf(table, "%s%s %.3f", separator, name, json_number_value(value));
            separator = ", ";
        }
        fprintf(table, ")\n");
    }
    if (json_array_size(scores))
        fputc('\n', table);
}
