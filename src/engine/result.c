/* Assembly of one result document (the JSON contract): its params, the per-metric
 * statistics over repetitions combined across jobs, each job's own figures, start skew
 * and first/last done, stonewalled and span rates, per-second series and the merged
 * latency distribution, all read from the engine's shared region. */
#include "engine/result.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/json.h"
#include "core/stats.h"

json_t *vp_params_json(const struct vp_bench *bench, const struct vp_params *params)
{
    json_t *object = json_object();
    for (size_t i = 0; i < params->count; i++) {
        const struct vp_option *option = &params->options[i];
        const struct vp_param_value *value = &params->values[i];
        const char *key = option->name;
        if (option->type == VP_OPT_CHOICE_LIST && value->list_len == 0)
            continue; /* an optional sweep not asked for */
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

static double seconds_between(int64_t from_ns, int64_t to_ns)
{
    return (double)(to_ns - from_ns) / 1e9;
}

/* Per-repetition start skew and first/last done, relative to the agreed instant. */
static void add_timing(json_t *result, const struct vp_shared *shared, unsigned warmup)
{
    unsigned measured = shared->ran - warmup;
    double *skew = calloc(measured, sizeof *skew);
    double *first = calloc(measured, sizeof *first);
    double *last = calloc(measured, sizeof *last);
    if (!skew || !first || !last)
        abort();
    json_t *timing = json_array();
    for (unsigned r = 0; r < measured; r++) {
        unsigned rep = warmup + r;
        int64_t min_start = INT64_MAX, max_start = INT64_MIN;
        int64_t min_end = INT64_MAX, max_end = INT64_MIN;
        for (unsigned job = 0; job < shared->jobs; job++) {
            const struct vp_rep_record *record = vp_shared_record(shared, job, rep);
            if (record->start_ns < min_start) min_start = record->start_ns;
            if (record->start_ns > max_start) max_start = record->start_ns;
            if (record->end_ns < min_end) min_end = record->end_ns;
            if (record->end_ns > max_end) max_end = record->end_ns;
        }
        skew[r] = seconds_between(min_start, max_start);
        first[r] = seconds_between(shared->start_at[rep], min_end);
        last[r] = seconds_between(shared->start_at[rep], max_end);
        json_array_append_new(timing, json_pack("{s:f,s:f,s:f}", "start_skew_s", skew[r],
                                                "first_done_s", first[r], "last_done_s",
                                                last[r]));
    }
    struct vp_summary skew_summary;
    vp_summarize(skew, measured, &skew_summary);
    json_object_set_new(result, "start_skew_s", json_real(skew_summary.p50));
    json_object_set_new(result, "start_skew_max_s", json_real(skew_summary.max));
    json_object_set_new(result, "first_done_s", json_real(vp_percentile(first, measured, 50)));
    json_object_set_new(result, "last_done_s", json_real(vp_percentile(last, measured, 50)));
    json_object_set_new(result, "timing", timing);
    free(skew);
    free(first);
    free(last);
}

static json_t *metric_json(const struct vp_metric *metric, const double *values, size_t n)
{
    json_t *object = json_pack("{s:s,s:s,s:s}", "unit", metric->unit, "better",
                               vp_better_name(metric->better), "aggregate",
                               vp_aggregate_name(metric->across_jobs));
    vp_metric_set_stats(object, values, n);
    return object;
}

/* A benchmark writes NAN for a metric a run cannot measure (loss over TCP, say): the
 * metric is then left out of the result rather than given an invented value. */
static bool metric_measured(const struct vp_shared *shared, size_t metric, unsigned warmup)
{
    for (unsigned job = 0; job < shared->jobs; job++)
        for (unsigned rep = warmup; rep < shared->ran; rep++)
            if (isnan(vp_shared_record(shared, job, rep)->values[metric]))
                return false;
    return true;
}

double vp_rep_value(const struct vp_bench *bench, const struct vp_shared *shared,
                    size_t metric, unsigned rep)
{
    double combined = 0, largest = -INFINITY;
    for (unsigned job = 0; job < shared->jobs; job++) {
        double value = vp_shared_record(shared, job, rep)->values[metric];
        combined += value;
        largest = value > largest ? value : largest;
    }
    enum vp_aggregate across = bench->metrics[metric].across_jobs;
    return across == VP_AGG_SUM ? combined : across == VP_AGG_MAX ? largest : combined / shared->jobs;
}

static void add_metrics(json_t *result, const struct vp_bench *bench,
                        const struct vp_shared *shared, unsigned warmup)
{
    unsigned measured = shared->ran - warmup;
    double *values = calloc(measured, sizeof *values);
    if (!values)
        abort();
    json_t *metrics = json_object();
    for (size_t m = 0; m < bench->metric_count; m++) {
        const struct vp_metric *metric = &bench->metrics[m];
        if (!metric_measured(shared, m, warmup))
            continue;
        for (unsigned r = 0; r < measured; r++)
            values[r] = vp_rep_value(bench, shared, m, warmup + r);
        json_object_set_new(metrics, metric->name, metric_json(metric, values, measured));
    }
    json_object_set_new(result, "metrics", metrics);

    json_t *per_job = json_array();
    double *offsets = calloc(measured, sizeof *offsets);
    double *done = calloc(measured, sizeof *done);
    if (!offsets || !done)
        abort();
    for (unsigned job = 0; job < shared->jobs; job++) {
        const struct vp_job_slot *slot = vp_shared_slot(shared, job);
        json_t *job_metrics = json_object();
        for (size_t m = 0; m < bench->metric_count; m++) {
            if (!metric_measured(shared, m, warmup))
                continue;
            for (unsigned r = 0; r < measured; r++)
                values[r] = vp_shared_record(shared, job, warmup + r)->values[m];
            json_t *object = json_object();
            vp_metric_set_stats(object, values, measured);
            json_object_set_new(job_metrics, bench->metrics[m].name, object);
        }
        for (unsigned r = 0; r < measured; r++) {
            const struct vp_rep_record *record = vp_shared_record(shared, job, warmup + r);
            offsets[r] = seconds_between(shared->start_at[warmup + r], record->start_ns);
            done[r] = seconds_between(shared->start_at[warmup + r], record->end_ns);
        }
        json_t *entry = json_pack("{s:i,s:s,s:i,s:f,s:f,s:o}", "job", (int)job, "cpu_binding",
                                  slot->affinity, "cpu_seen", slot->cpu_seen, "start_offset_s",
                                  vp_percentile(offsets, measured, 50), "done_offset_s",
                                  vp_percentile(done, measured, 50), "metrics", job_metrics);
        json_object_set_new(entry, "cpu_planned",
                            slot->cpu_planned >= 0 ? json_integer(slot->cpu_planned) : json_null());
        json_array_append_new(per_job, entry);
    }
    json_object_set_new(result, "per_job", per_job);
    free(values);
    free(offsets);
    free(done);
}

json_t *vp_result_start(const struct vp_bench *bench, const struct vp_params *params,
                        unsigned jobs, const struct vp_run_settings *settings)
{
    char started[32];
    vp_utc_timestamp(started, sizeof started);
    json_t *result = json_pack("{s:s,s:o,s:i,s:s,s:i,s:i,s:s}", "bench", bench->name, "params",
                               vp_params_json(bench, params), "jobs", (int)jobs, "pin",
                               settings->pin_spec, "reps", (int)settings->reps, "warmup",
                               (int)settings->warmup, "started_at", started);
    double duration = settings->duration > 0 ? settings->duration : bench->default_duration;
    if (bench->uses_duration && duration > 0)
        json_object_set_new(result, "duration_s", json_real(duration));
    return result;
}

json_t *vp_result_finish(json_t *result, const char *status, const char *error)
{
    json_object_set_new(result, "status", json_string(status));
    if (error)
        json_object_set_new(result, "error", json_string(error));
    return result;
}

/* Aggregate rates of one repetition from the jobs' op logs: the bytes completed inside
 * the window in which every job was running (latest start .. earliest done), over that
 * window (stonewalled); and all bytes over earliest start .. latest done (span). Whole
 * operations only: one counts when its completion falls inside the window. */
void vp_op_log_rates(const struct vp_shared *shared, unsigned rep, double *stonewall,
                     double *span)
{
    int64_t latest_start = INT64_MIN, earliest_end = INT64_MAX;
    int64_t earliest_start = INT64_MAX, latest_end = INT64_MIN;
    for (unsigned job = 0; job < shared->jobs; job++) {
        const struct vp_rep_record *record = vp_shared_record(shared, job, rep);
        if (record->start_ns > latest_start) latest_start = record->start_ns;
        if (record->start_ns < earliest_start) earliest_start = record->start_ns;
        if (record->end_ns < earliest_end) earliest_end = record->end_ns;
        if (record->end_ns > latest_end) latest_end = record->end_ns;
    }
    double inside = 0, total = 0;
    for (unsigned job = 0; job < shared->jobs; job++) {
        const struct vp_job_slot *slot = vp_shared_slot(shared, job);
        const int64_t *log = vp_shared_op_log(shared, job);
        uint64_t logged = slot->op_log_len;
        if (logged > shared->op_log_cap) { /* completions were lost: no honest figure */
            *stonewall = *span = NAN;
            return;
        }
        for (uint64_t i = 0; i < logged; i++)
            if (log[i] > latest_start && log[i] <= earliest_end)
                inside += (double)slot->op_bytes;
        total += (double)logged * (double)slot->op_bytes;
    }
    *stonewall = earliest_end > latest_start ? inside / seconds_between(latest_start, earliest_end)
                                             : 0;
    *span = total / seconds_between(earliest_start, latest_end);
}

static void add_aggregate_rates(json_t *result, const double *stonewall, const double *span,
                                size_t measured, size_t op_log_cap)
{
    static const struct vp_metric stonewall_metric = {
        "stonewall_throughput", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
        "bytes done while every job ran, over that window",
    };
    static const struct vp_metric span_metric = {
        "span_throughput", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
        "all bytes over first start .. last done",
    };
    for (size_t r = 0; r < measured; r++) {
        if (isnan(span[r])) {
            vp_result_warn(result, "stonewall_throughput and span_throughput left out: a job "
                           "did more operations than its op log holds (%zu)", op_log_cap);
            return;
        }
    }
    json_t *metrics = json_object_get(result, "metrics");
    json_object_set_new(metrics, stonewall_metric.name,
                        metric_json(&stonewall_metric, stonewall, measured));
    json_object_set_new(metrics, span_metric.name, metric_json(&span_metric, span, measured));
}

/* Sums the jobs' per-second counts of each measured repetition, trailing empty seconds
 * dropped: {"interval_s": 1, "unit": "B/s", "what", "reps": [[...], ...]}. */
static void add_intervals(json_t *result, const struct vp_bench *bench,
                          const struct vp_shared *shared, unsigned warmup)
{
    json_t *reps = json_array();
    for (unsigned rep = warmup; rep < shared->ran; rep++) {
        size_t used = 0;
        json_t *series = json_array();
        for (size_t i = 0; i < shared->interval_count; i++) {
            uint64_t total = 0;
            for (unsigned job = 0; job < shared->jobs; job++)
                total += vp_shared_intervals(shared, job, rep)[i];
            if (total)
                used = i + 1;
            json_array_append_new(series, json_real((double)total));
        }
        while (json_array_size(series) > used)
            json_array_remove(series, json_array_size(series) - 1);
        json_array_append_new(reps, series);
    }
    json_object_set_new(result, "intervals",
                        json_pack("{s:f,s:s,s:s,s:o}", "interval_s", 1.0, "unit", "B/s", "what",
                                  bench->interval_series, "reps", reps));
}

/* Merges every job's histogram into the distribution of the bench's metric. */
static void add_distribution(json_t *result, const struct vp_bench *bench,
                             const struct vp_shared *shared)
{
    struct vp_histogram *merged = malloc(sizeof *merged);
    if (!merged)
        abort();
    vp_histogram_reset(merged);
    for (unsigned job = 0; job < shared->jobs; job++)
        vp_histogram_merge(merged, vp_shared_histogram(shared, job));
    json_t *metric = json_object_get(json_object_get(result, "metrics"), bench->distribution_metric);
    json_object_set_new(metric, "distribution", vp_histogram_json(merged));
    free(merged);
}

/* What the jobs wrote of their last repetition (net.probe's gaps and round trips over
 * time), one object per job that wrote one, as the result's "timeline". */
static void add_timeline(json_t *result, const struct vp_shared *shared)
{
    json_t *timeline = json_array();
    for (unsigned job = 0; job < shared->jobs; job++) {
        const struct vp_job_slot *slot = vp_shared_slot(shared, job);
        if (!memchr(slot->detail, '\0', sizeof slot->detail) || !slot->detail[0])
            continue;
        json_t *detail = json_loads(slot->detail, 0, NULL);
        if (json_is_object(detail)) {
            json_object_set_new(detail, "job", json_integer(job));
            json_array_append(timeline, detail);
        }
        json_decref(detail);
    }
    if (json_array_size(timeline))
        json_object_set(result, "timeline", timeline);
    json_decref(timeline);
}

void vp_result_add_measurements(json_t *result, const struct vp_bench *bench,
                                const struct vp_shared *shared, unsigned warmup,
                                const double *stonewall, const double *span)
{
    add_metrics(result, bench, shared, warmup);
    if (shared->op_log_cap)
        add_aggregate_rates(result, stonewall, span, shared->ran - warmup, shared->op_log_cap);
    if (bench->distribution_metric)
        add_distribution(result, bench, shared);
    if (shared->interval_count)
        add_intervals(result, bench, shared, warmup);
    add_timing(result, shared, warmup);
    add_timeline(result, shared);
}
