/* Reading the store back out: a run as the whole JSON document (export), and the
 * newest result of each configuration on a host (for sysinfo's advisories). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/limits.h"
#include "store/document.h"
#include "store/store.h"
#include "store/store_db.h"

static void set_if_present(json_t *object, const char *key, json_t *value)
{
    if (value)
        json_object_set_new(object, key, value);
}


static json_t *column_json(struct vp_db_statement *statement, int index)
{
    switch (vp_db_column_type(statement, index)) {
    case VP_DB_INTEGER: return json_integer(vp_db_column_int64(statement, index));
    case VP_DB_FLOAT: return json_real(vp_db_column_double(statement, index));
    case VP_DB_TEXT: return json_string(vp_db_column_text(statement, index));
    default: return NULL;
    }
}

/* The entry of per_job for job (they come in order, so usually at its index); NULL:
 * none. */
static json_t *job_of(json_t *per_job, int64_t job)
{
    json_t *entry = job >= 0 ? json_array_get(per_job, (size_t)job) : NULL;
    if (entry && json_integer_value(json_object_get(entry, "job")) == job)
        return entry;
    size_t i;
    json_array_foreach(per_job, i, entry)
        if (json_integer_value(json_object_get(entry, "job")) == job)
            return entry;
    return NULL;
}

/* The values of every metric of a result (of every job when by_job), in one query: rows
 * come by (job,) metric and repetition, and each run of one metric's rows becomes that
 * metric's values and statistics in into (into[job] when by_job), where the metric is
 * named; a metric with no rows keeps what it had. One query a result, not one a metric
 * and job: a store of 20,000 results exports in seconds. */
static void load_values(struct vp_store *store, int64_t result_id, bool by_job, json_t *into)
{
    struct vp_db_statement *statement;
    const char *sql = by_job
        ? "SELECT metric, value, job FROM job_values WHERE result_id = ?1 ORDER BY job, metric, rep"
        : "SELECT metric, value FROM metric_values WHERE result_id = ?1 ORDER BY metric, rep";
    if (vp_store_prepare(store, sql, &statement) != 0)
        return;
    vp_db_bind_int64(statement, 1, result_id);
    double values[VP_MAX_REPS];
    size_t n = 0;
    json_t *metric = NULL; /* the one whose rows these are, NULL: none named so */
    char *name = NULL;
    int64_t job = -1;
    bool more = true;
    while (more) {
        more = vp_store_step(store, statement) == VP_DB_ROW;
        const char *row_name = more ? vp_db_column_text(statement, 0) : NULL;
        int64_t row_job = more && by_job ? vp_db_column_int64(statement, 2) : -1;
        if (!more || !row_name || !name || row_job != job || strcmp(row_name, name) != 0) {
            if (metric)
                vp_metric_set_stats(metric, values, n);
            n = 0;
            free(name);
            name = row_name ? strdup(row_name) : NULL;
            job = row_job;
            json_t *holder = by_job ? json_object_get(job_of(into, job), "metrics") : into;
            metric = name ? json_object_get(holder, name) : NULL;
        }
        if (more && n < VP_MAX_REPS)
            values[n++] = vp_db_column_double(statement, 1);
    }
    free(name);
    vp_db_finalize(statement);
}

/* Each metric's distribution, where it has one, into metrics: one query a result. */
static void load_distributions(struct vp_store *store, int64_t result_id, json_t *metrics)
{
    struct vp_db_statement *statement;
    if (vp_store_prepare(store, "SELECT metric, histogram_json FROM metric_distributions"
                           " WHERE result_id = ?", &statement) != 0)
        return;
    vp_db_bind_int64(statement, 1, result_id);
    while (vp_store_step(store, statement) == VP_DB_ROW) {
        json_t *metric = json_object_get(metrics, vp_db_column_text(statement, 0));
        if (metric)
            set_if_present(metric, "distribution",
                           vp_store_column_json(store, statement, 1, 0, "a metric's distribution"));
    }
    vp_db_finalize(statement);
}

static json_t *load_metrics(struct vp_store *store, int64_t result_id, json_t **names)
{
    json_t *metrics = json_object();
    *names = json_array();
    struct vp_db_statement *statement;
    if (vp_store_prepare(store, "SELECT name, unit, better, aggregate FROM metrics"
                           " WHERE result_id = ? ORDER BY position, name", &statement) != 0)
        return metrics;
    vp_db_bind_int64(statement, 1, result_id);
    while (vp_store_step(store, statement) == VP_DB_ROW) {
        const char *name = vp_db_column_text(statement, 0);
        json_t *metric = json_pack("{s:s,s:s,s:s}", "unit", vp_db_column_text(statement, 1),
                                   "better", vp_db_column_text(statement, 2), "aggregate",
                                   vp_db_column_text(statement, 3));
        vp_metric_set_stats(metric, NULL, 0); /* until load_values finds its values */
        json_object_set_new(metrics, name, metric);
        json_array_append_new(*names, json_string(name));
    }
    vp_db_finalize(statement);
    load_values(store, result_id, false, metrics);
    load_distributions(store, result_id, metrics);
    return metrics;
}

static json_t *load_jobs(struct vp_store *store, int64_t result_id, const json_t *names)
{
    json_t *per_job = json_array();
    struct vp_db_statement *statement;
    if (vp_store_prepare(store, "SELECT job, cpu_planned, cpu_binding, cpu_seen,"
                           " start_offset_s, done_offset_s FROM jobs WHERE result_id = ?"
                           " ORDER BY job", &statement) != 0)
        return per_job;
    vp_db_bind_int64(statement, 1, result_id);
    while (vp_store_step(store, statement) == VP_DB_ROW) {
        int64_t job = vp_db_column_int64(statement, 0);
        json_t *planned = column_json(statement, 1);
        json_t *job_metrics = json_object();
        size_t i;
        const json_t *name;
        json_array_foreach(names, i, name) {
            json_t *metric = json_object();
            vp_metric_set_stats(metric, NULL, 0); /* until load_values finds its values */
            json_object_set_new(job_metrics, json_string_value(name), metric);
        }
        json_array_append_new(per_job, json_pack(
            "{s:I,s:o,s:s,s:I,s:f,s:f,s:o}", "job", (json_int_t)job, "cpu_planned",
            planned ? planned : json_null(), "cpu_binding", vp_db_column_text(statement, 2),
            "cpu_seen", (json_int_t)vp_db_column_int64(statement, 3), "start_offset_s",
            vp_db_column_double(statement, 4), "done_offset_s",
            vp_db_column_double(statement, 5), "metrics", job_metrics));
    }
    vp_db_finalize(statement);
    load_values(store, result_id, true, per_job);
    return per_job;
}

static json_t *load_timing(struct vp_store *store, int64_t result_id)
{
    json_t *timing = json_array();
    struct vp_db_statement *statement;
    if (vp_store_prepare(store, "SELECT start_skew_s, first_done_s, last_done_s"
                           " FROM rep_timing WHERE result_id = ? ORDER BY rep", &statement) != 0)
        return timing;
    vp_db_bind_int64(statement, 1, result_id);
    while (vp_store_step(store, statement) == VP_DB_ROW)
        json_array_append_new(timing, json_pack("{s:f,s:f,s:f}", "start_skew_s",
                                                vp_db_column_double(statement, 0),
                                                "first_done_s", vp_db_column_double(statement, 1),
                                                "last_done_s", vp_db_column_double(statement, 2)));
    vp_db_finalize(statement);
    return timing;
}

static json_t *load_monitor(struct vp_store *store, int64_t result_id, double hz,
                            int64_t samples)
{
    json_t *series = json_object(), *summary = json_object();
    struct vp_db_statement *statement;
    if (vp_store_prepare(store, "SELECT name, mean, max, series_json FROM monitor_columns"
                           " WHERE result_id = ? ORDER BY position", &statement) == 0) {
        vp_db_bind_int64(statement, 1, result_id);
        while (vp_store_step(store, statement) == VP_DB_ROW) {
            const char *name = vp_db_column_text(statement, 0);
            json_t *values = vp_store_column_json(store, statement, 3, 0, "a monitor series");
            json_object_set_new(series, name, values ? values : json_array());
            if (vp_db_column_type(statement, 1) != VP_DB_NULL)
                json_object_set_new(summary, name, json_pack(
                    "{s:f,s:f}", "mean", vp_db_column_double(statement, 1), "max",
                    vp_db_column_double(statement, 2)));
        }
        vp_db_finalize(statement);
    }
    return json_pack("{s:f,s:I,s:o,s:o}", "hz", hz, "samples", (json_int_t)samples, "series",
                     series, "summary", summary);
}

/* The columns load_result reads (by name). */
#define RESULT_COLUMNS                                                                      \
    "id, bench, params_json, jobs, pin, reps, warmup, duration_s, status, error,"           \
    " started_at, start_skew_s, start_skew_max_s, first_done_s, last_done_s, monitor_hz,"  \
    " monitor_samples, monitor_nics_json, parts_json"

/* The index of the column called name in row's statement (-1: none). */
static int column(struct vp_db_statement *row, const char *name)
{
    for (int i = 0; i < vp_db_column_count(row); i++)
        if (strcmp(vp_db_column_name(row, i), name) == 0)
            return i;
    return -1;
}

static const char *column_text(struct vp_db_statement *row, const char *name)
{
    return vp_db_column_text(row, column(row, name));
}

static json_int_t column_integer(struct vp_db_statement *row, const char *name)
{
    return (json_int_t)vp_db_column_int64(row, column(row, name));
}

static json_t *load_result(struct vp_store *store, struct vp_db_statement *row)
{
    int64_t result_id = column_integer(row, "id");
    json_t *params = vp_store_column_json(store, row, column(row, "params_json"), 0,
                                          "a result's parameters");
    json_t *result = json_pack("{s:s,s:o,s:I,s:s,s:I,s:I,s:s,s:s}",
                               "bench", column_text(row, "bench"),
                               "params", params ? params : json_object(),
                               "jobs", column_integer(row, "jobs"),
                               "pin", column_text(row, "pin"),
                               "reps", column_integer(row, "reps"),
                               "warmup", column_integer(row, "warmup"),
                               "status", column_text(row, "status"),
                               "started_at", column_text(row, "started_at"));
    if (!result) { /* a NOT NULL column read as NULL */
        json_decref(params);
        vp_store_note_damage(store, "a result row lacks its benchmark, pin, status or start");
        return json_object();
    }
    static const char *const plain[] = { "duration_s", "error", "start_skew_s",
                                         "start_skew_max_s", "first_done_s", "last_done_s" };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        set_if_present(result, plain[i], column_json(row, column(row, plain[i])));
    json_t *names;
    json_t *metrics = load_metrics(store, result_id, &names);
    if (json_object_size(metrics) > 0) {
        json_object_set_new(result, "metrics", metrics);
        json_object_set_new(result, "per_job", load_jobs(store, result_id, names));
        json_object_set_new(result, "timing", load_timing(store, result_id));
    } else {
        json_decref(metrics);
    }
    json_decref(names);
    int hz = column(row, "monitor_hz");
    if (vp_db_column_type(row, hz) != VP_DB_NULL) {
        json_t *monitor = load_monitor(store, result_id, vp_db_column_double(row, hz),
                                       column_integer(row, "monitor_samples"));
        int nics = column(row, "monitor_nics_json");
        if (vp_db_column_type(row, nics) != VP_DB_NULL)
            json_object_set_new(monitor, "nics", vp_store_column_json(store, row, nics, 0,
                                                                      "a monitor's interfaces"));
        json_object_set_new(result, "monitor", monitor);
    }
    /* the optional parts, in the order the result had them */
    json_t *parts = vp_store_column_json(store, row, column(row, "parts_json"), 0,
                                         "a result's parts");
    const char *key;
    json_t *part;
    json_object_foreach(parts, key, part)
        json_object_set(result, key, part);
    json_decref(parts);
    return result;
}

int vp_store_export_run(struct vp_store *store, int64_t run_id, json_t **document,
                        char *err, size_t err_len)
{
    struct vp_db_statement *statement;
    if (vp_store_prepare(store, "SELECT uuid, label, started_at, status, command,"
                           " host_json, plan_text FROM runs WHERE id = ?", &statement) != 0)
        return vp_store_error(err, err_len, "database", store);
    vp_db_bind_int64(statement, 1, run_id);
    if (vp_store_step(store, statement) != VP_DB_ROW) {
        vp_db_finalize(statement);
        if (vp_store_check_reads(store, err, err_len) == 0)
            snprintf(err, err_len, "run %lld: no such run", (long long)run_id);
        return -1;
    }
    json_t *host = vp_store_column_json(store, statement, 5, 0, "a run's host fingerprint");
    json_t *label = column_json(statement, 1);
    json_t *run = json_pack("{s:s,s:o,s:s,s:s,s:o}", "id", vp_db_column_text(statement, 0),
                            "label", label ? label : json_null(),
                            "started_at", vp_db_column_text(statement, 2),
                            "status", vp_db_column_text(statement, 3),
                            "host", host ? host : json_object());
    if (!run) { /* a NOT NULL column read as NULL */
        vp_store_note_damage(store, "the run row lacks its uuid, start or status");
        run = json_object();
    }
    set_if_present(run, "command", column_json(statement, 4));
    set_if_present(run, "plan", column_json(statement, 6));
    vp_db_finalize(statement);

    json_t *results = json_array();
    if (vp_store_prepare(store, "SELECT " RESULT_COLUMNS " FROM results"
                           " WHERE run_id = ? ORDER BY seq", &statement) == 0) {
        vp_db_bind_int64(statement, 1, run_id);
        while (vp_store_step(store, statement) == VP_DB_ROW)
            json_array_append_new(results, load_result(store, statement));
        vp_db_finalize(statement);
    }
    *document = json_pack("{s:s,s:o,s:o}", "schema", VP_SCHEMA_NAME, "run", run, "results",
                          results);
    if (vp_store_check_reads(store, err, err_len) != 0) {
        json_decref(*document);
        *document = NULL;
        return -1;
    }
    return 0;
}

int vp_store_newest_results(struct vp_store *store, const char *hostname, int recent_runs,
                            json_t **results, char *err, size_t err_len)
{
    struct vp_db_statement *statement;
    if (vp_store_prepare(store,
                           "SELECT " RESULT_COLUMNS " FROM (SELECT *, ROW_NUMBER() OVER"
                           " (PARTITION BY bench, params_json ORDER BY run_id DESC, seq DESC)"
                           " AS newness FROM results WHERE run_id IN (SELECT id FROM runs"
                           " WHERE COALESCE(hostname, '') = ?"
                           " ORDER BY id DESC LIMIT ?)) AS ranked WHERE newness = 1"
                           " ORDER BY run_id DESC, seq", &statement) != 0)
        return vp_store_error(err, err_len, "database", store);
    vp_db_bind_text(statement, 1, hostname);
    vp_db_bind_int64(statement, 2, recent_runs);
    *results = json_array();
    while (vp_store_step(store, statement) == VP_DB_ROW)
        json_array_append_new(*results, load_result(store, statement));
    vp_db_finalize(statement);
    if (vp_store_check_reads(store, err, err_len) != 0) {
        json_decref(*results);
        *results = NULL;
        return -1;
    }
    return 0;
}
