/* Validation of imported virtperf/1 documents: types, sizes, ranges, consistency. */
#define _GNU_SOURCE /* strptime */
#include "store/document.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/limits.h"
#include "core/histogram.h"
#include "core/stats.h"
#include "bench/bench.h"
#include "core/json_check.h"
#include "engine/layout.h"
#include "engine/parts.h"

#define MAX_PARAMS 64
#define MAX_METRICS_IN_RESULT 64
#define MAX_SERIES_LENGTH 1000000
#define MAX_RESULTS 100000

/* A time as virtperf writes it: UTC, ISO 8601 to the second ("2026-12-01T19:24:52Z"). */
static int check_timestamp(struct vp_check *checker, const json_t *parent, const char *path,
                           const char *key)
{
    if (vp_check_string(checker, parent, path, key, 64, 1) != 0)
        return -1;
    const char *text = json_string_value(json_object_get(parent, key));
    struct tm parsed = { 0 }, again;
    const char *end = strptime(text, "%Y-%m-%dT%H:%M:%SZ", &parsed);
    /* a day the month has (2026-02-30 is none): the same fields back from the instant */
    struct tm normalized = parsed; /* timegm moves its argument's fields into range */
    time_t instant = end ? timegm(&normalized) : (time_t)-1;
    bool real_day = end && gmtime_r(&instant, &again) && again.tm_mday == parsed.tm_mday &&
                    again.tm_mon == parsed.tm_mon && again.tm_year == parsed.tm_year &&
                    again.tm_sec == parsed.tm_sec;
    if (!end || *end || strlen(text) != 20 || !real_day)
        return vp_check_fail(checker, "%s.%s: '%.40s' is not a time; accepted: UTC as "
                    "YYYY-MM-DDTHH:MM:SSZ", path, key, text);
    return 0;
}

/* values, n and the statistics derived from values must agree. */
static int check_metric_values(struct vp_check *checker, const json_t *metric, const char *path)
{
    char at[256];
    snprintf(at, sizeof at, "%s.values", path);
    size_t n;
    if (vp_check_number_array(checker, json_object_get(metric, "values"), at, VP_MAX_REPS, &n) != 0)
        return -1;
    if (vp_check_integer(checker, metric, path, "n", (json_int_t)n, (json_int_t)n, 1) != 0)
        return vp_check_fail(checker, "%s.n: must equal the number of values (%zu)", path, n);
    if (n == 0)
        return 0;
    double values[VP_MAX_REPS];
    for (size_t i = 0; i < n; i++)
        values[i] = json_number_value(json_array_get(json_object_get(metric, "values"), i));
    struct vp_summary summary;
    vp_summarize(values, n, &summary);
    const struct { const char *key; double want; } derived[] = {
        { "mean", summary.mean }, { "stddev", summary.stddev }, { "min", summary.min },
        { "max", summary.max }, { "p50", summary.p50 },
    };
    for (size_t i = 0; i < sizeof derived / sizeof derived[0]; i++) {
        const json_t *given = json_object_get(metric, derived[i].key);
        if (!given)
            continue;
        double got = json_number_value(given);
        double tolerance = 1e-9 * fmax(fabs(derived[i].want), 1e-300);
        if (!json_is_number(given) || !(fabs(got - derived[i].want) <= tolerance))
            return vp_check_fail(checker, "%s.%s: does not match its values (want %.17g)", path,
                        derived[i].key, derived[i].want);
    }
    return 0;
}

/* A latency histogram: sorted, in-range buckets whose counts add up to count, and
 * statistics that agree with them. */
static int check_distribution(struct vp_check *checker, const json_t *distribution,
                              const char *path)
{
    char at[300];
    snprintf(at, sizeof at, "%s.distribution", path);
    if (!json_is_object(distribution))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    if (vp_check_integer(checker, distribution, at, "sub_bucket_bits", VP_HISTOGRAM_SUB_BITS,
                      VP_HISTOGRAM_SUB_BITS, 1) != 0 ||
        vp_check_integer(checker, distribution, at, "count", 0, (json_int_t)1 << 62, 1) != 0)
        return -1;
    static const char *const stats[] = { "min", "max", "mean", "stddev", "p50", "p90", "p99",
                                          "p99.9", "p99.99" };
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++)
        if (vp_check_number(checker, distribution, at, stats[i], 0, 1e9, 1) != 0)
            return -1;
    const json_t *buckets = json_object_get(distribution, "buckets");
    if (!json_is_array(buckets) || json_array_size(buckets) > VP_HISTOGRAM_BUCKETS)
        return vp_check_fail(checker, "%s.buckets: accepted: an array of at most %d [index, count] pairs",
                    at, VP_HISTOGRAM_BUCKETS);
    json_int_t previous = -1, total = 0;
    size_t i;
    const json_t *pair;
    json_array_foreach(buckets, i, pair) {
        const json_t *index = json_array_get(pair, 0), *count = json_array_get(pair, 1);
        if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(index) ||
            !json_is_integer(count) || json_integer_value(index) <= previous ||
            json_integer_value(index) >= VP_HISTOGRAM_BUCKETS || json_integer_value(count) < 1 ||
            json_integer_value(count) > ((json_int_t)1 << 62) - total)
            return vp_check_fail(checker, "%s.buckets[%zu]: accepted: [index, count], indexes rising "
                        "below %d, counts of at least 1", at, i, VP_HISTOGRAM_BUCKETS);
        previous = json_integer_value(index);
        total += json_integer_value(count);
    }
    if (total != json_integer_value(json_object_get(distribution, "count")))
        return vp_check_fail(checker, "%s.count: does not match its buckets (%lld)", at, (long long)total);
    struct vp_histogram *histogram = malloc(sizeof *histogram);
    if (!histogram)
        abort();
    vp_histogram_from_json(distribution, histogram);
    json_t *derived = vp_histogram_json(histogram);
    free(histogram);
    static const char *const percentiles[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
    for (size_t p = 0; p < sizeof percentiles / sizeof percentiles[0]; p++) {
        double want = json_number_value(json_object_get(derived, percentiles[p]));
        double got = json_number_value(json_object_get(distribution, percentiles[p]));
        if (fabs(got - want) > 1e-9 * fmax(want, 1e-9)) {
            json_decref(derived);
            return vp_check_fail(checker, "%s.%s: does not match its buckets (want %.17g)", at,
                        percentiles[p], want);
        }
    }
    json_decref(derived);
    return 0;
}

static int check_metrics(struct vp_check *checker, const json_t *metrics, const char *path,
                         int with_definitions)
{
    static const char *const better[] = { "higher", "lower", "zero", NULL };
    static const char *const aggregate[] = { "sum", "mean", "max", NULL };
    if (!json_is_object(metrics) || json_object_size(metrics) > MAX_METRICS_IN_RESULT)
        return vp_check_fail(checker, "%s: accepted: an object of at most %d metrics", path,
                    MAX_METRICS_IN_RESULT);
    const char *name;
    const json_t *metric;
    json_object_foreach((json_t *)metrics, name, metric) {
        char at[256];
        snprintf(at, sizeof at, "%s.%.64s", path, name);
        if (!vp_check_is_name(name))
            return vp_check_fail(checker, "%s: metric name accepted: 1-64 of A-Z a-z 0-9 . _ -", at);
        if (!json_is_object(metric))
            return vp_check_fail(checker, "%s: accepted: an object", at);
        if (with_definitions &&
            (vp_check_string(checker, metric, at, "unit", 16, 1) != 0 ||
             vp_check_choice(checker, metric, at, "better", better, 1) != 0 ||
             vp_check_choice(checker, metric, at, "aggregate", aggregate, 1) != 0))
            return -1;
        if (check_metric_values(checker, metric, at) != 0)
            return -1;
        const json_t *distribution = json_object_get(metric, "distribution");
        if (distribution && check_distribution(checker, distribution, at) != 0)
            return -1;
    }
    return 0;
}

static int check_warnings(struct vp_check *checker, const json_t *warnings, const char *path)
{
    if (!json_is_array(warnings) || json_array_size(warnings) > 64)
        return vp_check_fail(checker, "%s.warnings: accepted: an array of at most 64 strings", path);
    size_t i;
    const json_t *line;
    json_array_foreach(warnings, i, line) {
        if (!json_is_string(line) || json_string_length(line) > VP_CHECK_TEXT_LEN ||
            strlen(json_string_value(line)) != json_string_length(line))
            return vp_check_fail(checker, "%s.warnings[%zu]: accepted: a string of at most %d bytes", path,
                        i, VP_CHECK_TEXT_LEN);
    }
    return 0;
}

static int check_monitor(struct vp_check *checker, const json_t *monitor, const char *path);
static int check_ranks(struct vp_check *checker, const json_t *ranks, const char *path);

/* The optional parts of a result: the run's own (warnings, ranks, step) here, and each
 * part a benchmark or the engine declares (engine/parts.h) by its own check. */
static int check_annotations(struct vp_check *checker, const json_t *result, const char *path)
{
    const json_t *part;
    if ((part = json_object_get(result, "ranks")) && check_ranks(checker, part, path) != 0)
        return -1;
    if ((part = json_object_get(result, "warnings")) && check_warnings(checker, part, path) != 0)
        return -1;
    if (json_object_get(result, "step") && vp_check_string(checker, result, path, "step", 128, 0) != 0)
        return -1;
    const char *key;
    json_object_foreach((json_t *)result, key, part) {
        const struct vp_result_part *declared = vp_result_part_find(key);
        if (declared && declared->check(checker, part, path) != 0)
            return -1;
    }
    return 0;
}

/* One host's part of a result from many hosts: its place, clock and own figures. */
static int check_host(struct vp_check *checker, const json_t *host, const char *at,
                      json_int_t count)
{
    (void)count;
    static const char *const statuses[] = { "ok", "failed", "interrupted", NULL };
    if (!json_is_object(host))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    if (vp_check_integer(checker, host, at, "rank", 0, 4095, 1) != 0 ||
        vp_check_string(checker, host, at, "host", 255, 1) != 0 ||
        vp_check_choice(checker, host, at, "status", statuses, 1) != 0 ||
        vp_check_string(checker, host, at, "error", VP_CHECK_TEXT_LEN, 0) != 0 ||
        vp_check_integer(checker, host, at, "first_job", 0, VP_MAX_JOBS * count, 1) != 0 ||
        vp_check_integer(checker, host, at, "jobs", 1, VP_MAX_JOBS, 1) != 0 ||
        vp_check_number(checker, host, at, "clock_offset_s", -1e12, 1e12, 1) != 0 ||
        vp_check_number(checker, host, at, "clock_bound_s", 0, 1e9, 1) != 0 ||
        vp_check_integer(checker, host, at, "machine", 0, 4095, 0) != 0 ||
        vp_check_integer(checker, host, at, "hypervisor", 0, VP_MAX_RANKS - 1, 0) != 0)
        return -1;
    if (json_object_get(host, "ranks"))
        return vp_check_fail(checker, "%s.ranks: not accepted inside a host", at);
    const json_t *fingerprint = json_object_get(host, "fingerprint");
    if (fingerprint && !json_is_object(fingerprint))
        return vp_check_fail(checker, "%s.fingerprint: accepted: an object", at);
    char metrics_at[320];
    snprintf(metrics_at, sizeof metrics_at, "%.300s.metrics", at);
    const json_t *metrics = json_object_get(host, "metrics");
    if (metrics && check_metrics(checker, metrics, metrics_at, 1) != 0)
        return -1;
    const json_t *monitor = json_object_get(host, "monitor");
    if (monitor && check_monitor(checker, monitor, at) != 0)
        return -1;
    return check_annotations(checker, host, at);
}

/* A result from many hosts at once: {"count", "start_skew_bound_s", "hosts": [...]},
 * with a topology's "topology" and "links", virtperf-mpi's "start_with". */
static int check_ranks(struct vp_check *checker, const json_t *ranks, const char *path)
{
    char at[256];
    snprintf(at, sizeof at, "%s.ranks", path);
    if (!json_is_object(ranks))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    if (vp_check_integer(checker, ranks, at, "count", 1, VP_MAX_RANKS, 1) != 0 ||
        vp_check_number(checker, ranks, at, "start_skew_bound_s", 0, 1e9, 0) != 0)
        return -1;
    json_int_t count = json_integer_value(json_object_get(ranks, "count"));
    const json_t *hosts = json_object_get(ranks, "hosts");
    if (!json_is_array(hosts) || (json_int_t)json_array_size(hosts) != count)
        return vp_check_fail(checker, "%s.hosts: accepted: an array of count (%lld) hosts", at,
                    (long long)count);
    size_t i;
    const json_t *host;
    json_array_foreach(hosts, i, host) {
        char host_at[300];
        snprintf(host_at, sizeof host_at, "%s.hosts[%zu]", at, i);
        if (check_host(checker, host, host_at, 4096) != 0)
            return -1;
    }
    static const char *const start_with[] = { "instant", "barrier", NULL };
    if (vp_check_choice(checker, ranks, at, "topology", vp_topology_choices(), 0) != 0 ||
        vp_check_choice(checker, ranks, at, "start_with", start_with, 0) != 0)
        return -1;
    const json_t *links = json_object_get(ranks, "links");
    if (links && (!json_is_array(links) || json_array_size(links) > 4096))
        return vp_check_fail(checker, "%s.links: accepted: an array of at most 4096 links", at);
    const json_t *link;
    json_array_foreach(links, i, link) {
        char link_at[300];
        snprintf(link_at, sizeof link_at, "%s.links[%zu]", at, i);
        if (!json_is_object(link))
            return vp_check_fail(checker, "%s: accepted: an object", link_at);
        if (vp_check_integer(checker, link, link_at, "from", 0, 4095, 1) != 0 ||
            vp_check_integer(checker, link, link_at, "to", 0, 4095, 1) != 0 ||
            vp_check_string(checker, link, link_at, "from_label", 400, 1) != 0 ||
            vp_check_string(checker, link, link_at, "to_label", 400, 1) != 0)
            return -1;
    }
    return 0;
}

static int check_params(struct vp_check *checker, const json_t *params, const char *path)
{
    if (!json_is_object(params) || json_object_size(params) > MAX_PARAMS)
        return vp_check_fail(checker, "%s.params: accepted: an object of at most %d entries", path,
                    MAX_PARAMS);
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)params, key, value) {
        if (!vp_check_is_name(key))
            return vp_check_fail(checker, "%s.params: key accepted: 1-64 of A-Z a-z 0-9 . _ -", path);
        int scalar = json_is_integer(value) ||
                     (json_is_real(value) && isfinite(json_real_value(value))) ||
                     (json_is_string(value) && json_string_length(value) <= 256 &&
                      strlen(json_string_value(value)) == json_string_length(value));
        if (!scalar)
            return vp_check_fail(checker, "%s.params.%s: accepted: a number or a string of at most 256 "
                        "bytes", path, key);
    }
    return 0;
}

static int check_per_job(struct vp_check *checker, const json_t *per_job, const char *path,
                         json_int_t jobs)
{
    if (!json_is_array(per_job) || (json_int_t)json_array_size(per_job) > jobs)
        return vp_check_fail(checker, "%s.per_job: accepted: an array of at most %lld entries", path,
                    (long long)jobs);
    size_t i;
    const json_t *entry;
    json_array_foreach(per_job, i, entry) {
        char at[256];
        snprintf(at, sizeof at, "%s.per_job[%zu]", path, i);
        const json_t *planned = json_object_get(entry, "cpu_planned");
        if (!json_is_object(entry) ||
            vp_check_integer(checker, entry, at, "job", 0, jobs - 1, 1) != 0 ||
            vp_check_string(checker, entry, at, "cpu_binding", 64, 1) != 0 ||
            vp_check_integer(checker, entry, at, "cpu_seen", -1, 1 << 20, 1) != 0 ||
            vp_check_number(checker, entry, at, "start_offset_s", -1e6, 1e9, 1) != 0 ||
            vp_check_number(checker, entry, at, "done_offset_s", -1e6, 1e9, 1) != 0)
            return json_is_object(entry) ? -1 : vp_check_fail(checker, "%s: accepted: an object", at);
        if (planned && !json_is_null(planned) &&
            vp_check_integer(checker, entry, at, "cpu_planned", 0, 1 << 20, 1) != 0)
            return -1;
        char metrics_at[300];
        snprintf(metrics_at, sizeof metrics_at, "%s.metrics", at);
        if (check_metrics(checker, json_object_get(entry, "metrics"), metrics_at, 0) != 0)
            return -1;
    }
    return 0;
}

/* monitor.nics, where there is one: {IF: {"kind", "counted"}} (core/nic_kind.h). */
static int check_nics(struct vp_check *checker, const json_t *nics, const char *at)
{
    static const char *const kinds[] = { "loopback", "physical", "bridge", "port", "tap",
                                         "vlan",     "virtual",  NULL };
    if (!nics)
        return 0;
    if (!json_is_object(nics) || json_object_size(nics) > 256)
        return vp_check_fail(checker, "%s.nics: accepted: an object of at most 256 interfaces", at);
    const char *name;
    const json_t *nic;
    json_object_foreach((json_t *)nics, name, nic) {
        char nic_at[400];
        snprintf(nic_at, sizeof nic_at, "%s.nics.%.80s", at, name);
        if (!vp_check_is_name(name) || !json_is_object(nic) ||
            !json_is_boolean(json_object_get(nic, "counted")))
            return vp_check_fail(checker, "%s: accepted: an interface's name (1-64 of A-Z a-z "
                                 "0-9 . _ -) and {\"kind\", \"counted\": true|false}", nic_at);
        if (vp_check_choice(checker, nic, nic_at, "kind", kinds, 1) != 0)
            return -1;
    }
    return 0;
}

static int check_monitor(struct vp_check *checker, const json_t *monitor, const char *path)
{
    char at[256];
    snprintf(at, sizeof at, "%s.monitor", path);
    if (!json_is_object(monitor))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    if (vp_check_number(checker, monitor, at, "hz", 0.1, 1000, 1) != 0 ||
        vp_check_integer(checker, monitor, at, "samples", 0, MAX_SERIES_LENGTH, 1) != 0)
        return -1;
    size_t samples = (size_t)json_integer_value(json_object_get(monitor, "samples"));
    const json_t *series = json_object_get(monitor, "series");
    const json_t *summary = json_object_get(monitor, "summary");
    if (!json_is_object(series) || json_object_size(series) > 512)
        return vp_check_fail(checker, "%s.series: accepted: an object of at most 512 columns", at);
    if (!json_is_object(summary))
        return vp_check_fail(checker, "%s.summary: accepted: an object", at);
    const char *name;
    const json_t *column;
    json_object_foreach((json_t *)series, name, column) {
        char column_at[400];
        snprintf(column_at, sizeof column_at, "%s.series.%.80s", at, name);
        size_t count;
        if (!vp_check_is_name(name))
            return vp_check_fail(checker, "%s: column name accepted: 1-64 of A-Z a-z 0-9 . _ -", column_at);
        if (vp_check_number_array(checker, column, column_at, MAX_SERIES_LENGTH, &count) != 0)
            return -1;
        if (count != samples)
            return vp_check_fail(checker, "%s: has %zu values; accepted: as many as samples (%zu)",
                        column_at, count, samples);
    }
    json_object_foreach((json_t *)summary, name, column) {
        char column_at[400];
        snprintf(column_at, sizeof column_at, "%s.summary.%.80s", at, name);
        if (!json_object_get(series, name) || !json_is_object(column) ||
            vp_check_number(checker, column, column_at, "mean", -1e300, 1e300, 1) != 0 ||
            vp_check_number(checker, column, column_at, "max", -1e300, 1e300, 1) != 0)
            return vp_check_fail(checker, "%s: accepted: {\"mean\", \"max\"} of a column in series",
                        column_at);
    }
    return check_nics(checker, json_object_get(monitor, "nics"), at);
}

static int check_timing(struct vp_check *checker, const json_t *timing, const char *path)
{
    if (!json_is_array(timing) || json_array_size(timing) > VP_MAX_REPS)
        return vp_check_fail(checker, "%s.timing: accepted: an array of at most %d entries", path,
                    VP_MAX_REPS);
    size_t i;
    const json_t *entry;
    json_array_foreach(timing, i, entry) {
        char at[256];
        snprintf(at, sizeof at, "%s.timing[%zu]", path, i);
        if (!json_is_object(entry))
            return vp_check_fail(checker, "%s: accepted: an object", at);
        if (vp_check_number(checker, entry, at, "start_skew_s", 0, 1e9, 1) != 0 ||
            vp_check_number(checker, entry, at, "first_done_s", -1e6, 1e9, 1) != 0 ||
            vp_check_number(checker, entry, at, "last_done_s", -1e6, 1e9, 1) != 0)
            return -1;
    }
    return 0;
}

int vp_result_validate(const json_t *result, const char *path, char *err, size_t err_len)
{
    static const char *const statuses[] = { "ok", "failed", "interrupted", NULL };
    struct vp_check checker = { err, err_len };
    if (!json_is_object(result))
        return vp_check_fail(&checker, "%s: accepted: an object", path);
    const char *bench = json_string_value(json_object_get(result, "bench"));
    if (!bench || !vp_check_is_name(bench))
        return vp_check_fail(&checker, "%s.bench: accepted: a name of 1-64 of A-Z a-z 0-9 . _ -", path);
    if (!vp_bench_find(bench))
        return vp_check_fail(&checker, "%s.bench: '%s' is not a benchmark of this virtperf; accepted: "
                    "one 'virtperf list' names", path, bench);
    if (check_params(&checker, json_object_get(result, "params"), path) != 0 ||
        vp_check_integer(&checker, result, path, "jobs", 1, VP_MAX_JOBS, 1) != 0 ||
        vp_check_string(&checker, result, path, "pin", 64, 1) != 0 ||
        vp_check_integer(&checker, result, path, "reps", 1, VP_MAX_REPS, 1) != 0 ||
        vp_check_integer(&checker, result, path, "warmup", 0, VP_MAX_REPS, 1) != 0 ||
        vp_check_number(&checker, result, path, "reps_target", 0.001, 0.5, 0) != 0 ||
        vp_check_number(&checker, result, path, "duration_s", 0, 1e9, 0) != 0 ||
        vp_check_choice(&checker, result, path, "status", statuses, 1) != 0 ||
        vp_check_string(&checker, result, path, "error", VP_CHECK_TEXT_LEN, 0) != 0 ||
        check_timestamp(&checker, result, path, "started_at") != 0)
        return -1;
    int ok = strcmp(json_string_value(json_object_get(result, "status")), "ok") == 0;
    json_int_t jobs = json_integer_value(json_object_get(result, "jobs"));
    /* many hosts: jobs per host, per_job every host's jobs, the monitors per host */
    const json_t *ranks = json_object_get(result, "ranks");
    json_int_t hosts = json_integer_value(json_object_get(ranks, "count"));
    json_int_t all_jobs = ranks && hosts > 0 && hosts <= VP_MAX_RANKS ? jobs * hosts : jobs;
    const char *timing_keys[] = { "start_skew_s", "start_skew_max_s", "first_done_s",
                                  "last_done_s" };
    for (size_t i = 0; i < 4; i++)
        if (vp_check_number(&checker, result, path, timing_keys[i], -1e6, 1e9, ok) != 0)
            return -1;
    char at[256];
    snprintf(at, sizeof at, "%s.metrics", path);
    const json_t *metrics = json_object_get(result, "metrics");
    if ((ok || metrics) && check_metrics(&checker, metrics, at, 1) != 0)
        return -1;
    const json_t *per_job = json_object_get(result, "per_job");
    if ((ok || per_job) && check_per_job(&checker, per_job, path, all_jobs) != 0)
        return -1;
    const json_t *monitor = json_object_get(result, "monitor");
    if (((ok && !ranks) || monitor) && check_monitor(&checker, monitor, path) != 0)
        return -1;
    const json_t *timing = json_object_get(result, "timing");
    if ((ok || timing) && check_timing(&checker, timing, path) != 0)
        return -1;
    return check_annotations(&checker, result, path);
}

int vp_document_validate(const json_t *document, char *err, size_t err_len)
{
    static const char *const run_statuses[] = { "running", "ok", "failed", "interrupted",
                                                "abandoned", NULL };
    struct vp_check checker = { err, err_len };
    if (!json_is_object(document))
        return vp_check_fail(&checker, "document: accepted: a JSON object with \"schema\": \"%s\"",
                    VP_SCHEMA_NAME);
    const char *schema = json_string_value(json_object_get(document, "schema"));
    if (!schema || strcmp(schema, VP_SCHEMA_NAME) != 0)
        return vp_check_fail(&checker, "schema: '%.40s' not supported; accepted: %s",
                    schema ? schema : "(missing)", VP_SCHEMA_NAME);
    const json_t *run = json_object_get(document, "run");
    if (!json_is_object(run))
        return vp_check_fail(&checker, "run: accepted: an object");
    const char *id = json_string_value(json_object_get(run, "id"));
    if (!id || !vp_check_is_name(id))
        return vp_check_fail(&checker, "run.id: accepted: a run id of 1-64 of A-Z a-z 0-9 . _ -");
    const json_t *label = json_object_get(run, "label");
    if (label && !json_is_null(label) &&
        vp_check_string(&checker, run, "run", "label", 128, 1) != 0)
        return -1;
    if (check_timestamp(&checker, run, "run", "started_at") != 0 ||
        vp_check_choice(&checker, run, "run", "status", run_statuses, 0) != 0 ||
        vp_check_string(&checker, run, "run", "command", VP_CHECK_TEXT_LEN * 4, 0) != 0 ||
        vp_check_string(&checker, run, "run", "plan", 70 * 1024, 0) != 0)
        return -1;
    if (!json_is_object(json_object_get(run, "host")))
        return vp_check_fail(&checker, "run.host: accepted: an object (the fingerprint)");
    const json_t *results = json_object_get(document, "results");
    if (!json_is_array(results) || json_array_size(results) > MAX_RESULTS)
        return vp_check_fail(&checker, "results: accepted: an array of at most %d results", MAX_RESULTS);
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result) {
        char path[64];
        snprintf(path, sizeof path, "results[%zu]", i);
        if (vp_result_validate(result, path, err, err_len) != 0)
            return -1;
    }
    return 0;
}

json_t *vp_result_from(const char *name, const char *text)
{
    json_t *result = json_loads(text, 0, NULL);
    char why[VP_PATH_ERROR_LEN];
    if (result && vp_result_validate(result, "result", why, sizeof why) == 0)
        return result;
    bool parsed = result != NULL;
    json_decref(result);
    char error[VP_PATH_ERROR_LEN + 128];
    snprintf(error, sizeof error, "%s sent no valid result%s%s", name, parsed ? ": " : "",
             parsed ? why : "");
    return json_pack("{s:s,s:s}", "status", "failed", "error", error);
}
