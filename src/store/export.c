/* Reading the store back out: a run as the whole JSON document (export), and the
 * newest result of each configuration on a host (for sysinfo's advisories). */
#include <sqlite3.h>
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


static json_t *column_json(sqlite3_stmt *statement, int index)
{
    switch (sqlite3_column_type(statement, index)) {
    case SQLITE_INTEGER: return json_integer(sqlite3_column_int64(statement, index));
    case SQLITE_FLOAT: return json_real(sqlite3_column_double(statement, index));
    case SQLITE_TEXT: return json_string((const char *)sqlite3_column_text(statement, index));
    default: return NULL;
    }
}

/* Values of one metric (of one job when job >= 0), in repetition order. */
static void load_values(struct vp_store *store, int64_t result_id, int64_t job,
                        const char *metric, json_t *into)
{
    sqlite3_stmt *statement;
    const char *sql = job < 0
        ? "SELECT value FROM metric_values WHERE result_id = ?1 AND metric = ?2 ORDER BY rep"
        : "SELECT value FROM job_values WHERE result_id = ?1 AND metric = ?2 AND job = ?3"
          " ORDER BY rep";
    if (vp_store_prepare(store, sql, &statement) != SQLITE_OK)
        return;
    sqlite3_bind_int64(statement, 1, result_id);
    sqlite3_bind_text(statement, 2, metric, -1, SQLITE_TRANSIENT);
    if (job >= 0)
        sqlite3_bind_int64(statement, 3, job);
    double values[VP_MAX_REPS];
    size_t n = 0;
    while (vp_store_step(store, statement) == SQLITE_ROW && n < VP_MAX_REPS)
        values[n++] = sqlite3_column_double(statement, 0);
    sqlite3_finalize(statement);
    vp_metric_set_stats(into, values, n);
}

static json_t *load_distribution(struct vp_store *store, int64_t result_id, const char *metric)
{
    sqlite3_stmt *statement;
    json_t *distribution = NULL;
    if (vp_store_prepare(store, "SELECT histogram_json FROM metric_distributions"
                           " WHERE result_id = ? AND metric = ?", &statement) != SQLITE_OK)
        return NULL;
    sqlite3_bind_int64(statement, 1, result_id);
    sqlite3_bind_text(statement, 2, metric, -1, SQLITE_TRANSIENT);
    if (vp_store_step(store, statement) == SQLITE_ROW)
        distribution = vp_store_column_json(store, statement, 0, 0, "a metric's distribution");
    sqlite3_finalize(statement);
    return distribution;
}

static json_t *load_metrics(struct vp_store *store, int64_t result_id, json_t **names)
{
    json_t *metrics = json_object();
    *names = json_array();
    sqlite3_stmt *statement;
    if (vp_store_prepare(store, "SELECT name, unit, better, aggregate FROM metrics"
                           " WHERE result_id = ? ORDER BY rowid", &statement) != SQLITE_OK)
        return metrics;
    sqlite3_bind_int64(statement, 1, result_id);
    while (vp_store_step(store, statement) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(statement, 0);
        json_t *metric = json_pack("{s:s,s:s,s:s}", "unit", sqlite3_column_text(statement, 1),
                                   "better", sqlite3_column_text(statement, 2), "aggregate",
                                   sqlite3_column_text(statement, 3));
        load_values(store, result_id, -1, name, metric);
        set_if_present(metric, "distribution", load_distribution(store, result_id, name));
        json_object_set_new(metrics, name, metric);
        json_array_append_new(*names, json_string(name));
    }
    sqlite3_finalize(statement);
    return metrics;
}

static json_t *load_jobs(struct vp_store *store, int64_t result_id, const json_t *names)
{
    json_t *per_job = json_array();
    sqlite3_stmt *statement;
    if (vp_store_prepare(store, "SELECT job, cpu_planned, cpu_binding, cpu_seen,"
                           " start_offset_s, done_offset_s FROM jobs WHERE result_id = ?"
                           " ORDER BY job", &statement) != SQLITE_OK)
        return per_job;
    sqlite3_bind_int64(statement, 1, result_id);
    while (vp_store_step(store, statement) == SQLITE_ROW) {
        int64_t job = sqlite3_column_int64(statement, 0);
        json_t *planned = column_json(statement, 1);
        json_t *job_metrics = json_object();
        size_t i;
        const json_t *name;
        json_array_foreach(names, i, name) {
            json_t *metric = json_object();
            load_values(store, result_id, job, json_string_value(name), metric);
            json_object_set_new(job_metrics, json_string_value(name), metric);
        }
        json_array_append_new(per_job, json_pack(
            "{s:I,s:o,s:s,s:I,s:f,s:f,s:o}", "job", (json_int_t)job, "cpu_planned",
            planned ? planned : json_null(), "cpu_binding", sqlite3_column_text(statement, 2),
            "cpu_seen", (json_int_t)sqlite3_column_int64(statement, 3), "start_offset_s",
            sqlite3_column_double(statement, 4), "done_offset_s",
            sqlite3_column_double(statement, 5), "metrics", job_metrics));
    }
    sqlite3_finalize(statement);
    return per_job;
}

static json_t *load_timing(struct vp_store *store, int64_t result_id)
{
    json_t *timing = json_array();
    sqlite3_stmt *statement;
    if (vp_store_prepare(store, "SELECT start_skew_s, first_done_s, last_done_s"
                           " FROM rep_timing WHERE result_id = ? ORDER BY rep", &statement) != SQLITE_OK)
        return timing;
    sqlite3_bind_int64(statement, 1, result_id);
    while (vp_store_step(store, statement) == SQLITE_ROW)
        json_array_append_new(timing, json_pack("{s:f,s:f,s:f}", "start_skew_s",
                                                sqlite3_column_double(statement, 0),
                                                "first_done_s", sqlite3_column_double(statement, 1),
                                                "last_done_s", sqlite3_column_double(statement, 2)));
    sqlite3_finalize(statement);
    return timing;
}

static json_t *load_monitor(struct vp_store *store, int64_t result_id, double hz,
                            int64_t samples)
{
    json_t *series = json_object(), *summary = json_object();
    sqlite3_stmt *statement;
    if (vp_store_prepare(store, "SELECT name, mean, max, series_json FROM monitor_columns"
                           " WHERE result_id = ? ORDER BY position", &statement) == SQLITE_OK) {
        sqlite3_bind_int64(statement, 1, result_id);
        while (vp_store_step(store, statement) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(statement, 0);
            json_t *values = vp_store_column_json(store, statement, 3, 0, "a monitor series");
            json_object_set_new(series, name, values ? values : json_array());
            if (sqlite3_column_type(statement, 1) != SQLITE_NULL)
                json_object_set_new(summary, name, json_pack(
                    "{s:f,s:f}", "mean", sqlite3_column_double(statement, 1), "max",
                    sqlite3_column_double(statement, 2)));
        }
        sqlite3_finalize(statement);
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
static int column(sqlite3_stmt *row, const char *name)
{
    for (int i = 0; i < sqlite3_column_count(row); i++)
        if (strcmp(sqlite3_column_name(row, i), name) == 0)
            return i;
    return -1;
}

static const char *column_text(sqlite3_stmt *row, const char *name)
{
    return (const char *)sqlite3_column_text(row, column(row, name));
}

static json_int_t column_integer(sqlite3_stmt *row, const char *name)
{
    return (json_int_t)sqlite3_column_int64(row, column(row, name));
}

static json_t *load_result(struct vp_store *store, sqlite3_stmt *row)
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
    if (sqlite3_column_type(row, hz) != SQLITE_NULL) {
        json_t *monitor = load_monitor(store, result_id, sqlite3_column_double(row, hz),
                                       column_integer(row, "monitor_samples"));
        int nics = column(row, "monitor_nics_json");
        if (sqlite3_column_type(row, nics) != SQLITE_NULL)
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
    sqlite3_stmt *statement;
    if (vp_store_prepare(store, "SELECT uuid, label, started_at, status, command,"
                           " host_json, plan_text FROM runs WHERE id = ?", &statement) != SQLITE_OK)
        return vp_store_error(err, err_len, "database", store->db);
    sqlite3_bind_int64(statement, 1, run_id);
    if (vp_store_step(store, statement) != SQLITE_ROW) {
        sqlite3_finalize(statement);
        if (vp_store_check_reads(store, err, err_len) == 0)
            snprintf(err, err_len, "run %lld: no such run", (long long)run_id);
        return -1;
    }
    json_t *host = vp_store_column_json(store, statement, 5, 0, "a run's host fingerprint");
    json_t *label = column_json(statement, 1);
    json_t *run = json_pack("{s:s,s:o,s:s,s:s,s:o}", "id", sqlite3_column_text(statement, 0),
                            "label", label ? label : json_null(),
                            "started_at", sqlite3_column_text(statement, 2),
                            "status", sqlite3_column_text(statement, 3),
                            "host", host ? host : json_object());
    if (!run) { /* a NOT NULL column read as NULL */
        vp_store_note_damage(store, "the run row lacks its uuid, start or status");
        run = json_object();
    }
    set_if_present(run, "command", column_json(statement, 4));
    set_if_present(run, "plan", column_json(statement, 6));
    sqlite3_finalize(statement);

    json_t *results = json_array();
    if (vp_store_prepare(store, "SELECT " RESULT_COLUMNS " FROM results"
                           " WHERE run_id = ? ORDER BY seq", &statement) == SQLITE_OK) {
        sqlite3_bind_int64(statement, 1, run_id);
        while (vp_store_step(store, statement) == SQLITE_ROW)
            json_array_append_new(results, load_result(store, statement));
        sqlite3_finalize(statement);
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
    sqlite3_stmt *statement;
    if (vp_store_prepare(store,
                           "SELECT " RESULT_COLUMNS " FROM (SELECT *, ROW_NUMBER() OVER"
                           " (PARTITION BY bench, params_json ORDER BY run_id DESC, seq DESC)"
                           " AS newness FROM results WHERE run_id IN (SELECT id FROM runs"
                           " WHERE IFNULL(json_extract(host_json, '$.hostname'), '') = ?"
                           " ORDER BY id DESC LIMIT ?)) WHERE newness = 1"
                           " ORDER BY run_id DESC, seq", &statement) != SQLITE_OK)
        return vp_store_error(err, err_len, "database", store->db);
    sqlite3_bind_text(statement, 1, hostname, -1, SQLITE_STATIC);
    sqlite3_bind_int(statement, 2, recent_runs);
    *results = json_array();
    while (vp_store_step(store, statement) == SQLITE_ROW)
        json_array_append_new(*results, load_result(store, statement));
    sqlite3_finalize(statement);
    if (vp_store_check_reads(store, err, err_len) != 0) {
        json_decref(*results);
        *results = NULL;
        return -1;
    }
    return 0;
}
