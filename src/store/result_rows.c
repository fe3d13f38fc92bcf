/* Writing one result into the store's tables (store_db.h's vp_store_insert_result): its
 * row (with every optional part in parts_json), metrics and their values, jobs, timing
 * and the monitor's columns, in SQL both engines read (store/db.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/parts.h"
#include "store/store.h"
#include "store/store_db.h"

static double number_at(const json_t *object, const char *key)
{
    return json_number_value(json_object_get(object, key));
}

static int insert_values(struct vp_store *store, const char *sql, int64_t result_id,
                         int64_t job, const char *metric, const json_t *values)
{
    size_t rep;
    const json_t *value;
    json_array_foreach(values, rep, value) {
        int rc = job < 0
            ? vp_store_run_statement(store, sql, "itid", result_id, metric, (int64_t)rep,
                            json_number_value(value))
            : vp_store_run_statement(store, sql, "iitid", result_id, job, metric, (int64_t)rep,
                            json_number_value(value));
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int insert_metrics(struct vp_store *store, int64_t result_id, const json_t *metrics)
{
    const char *name;
    const json_t *metric;
    int64_t position = 0;
    json_object_foreach((json_t *)metrics, name, metric) {
        if (vp_store_run_statement(store,
                          "INSERT INTO metrics (result_id, name, unit, better, aggregate, position)"
                          " VALUES (?, ?, ?, ?, ?, ?)", "itttti", result_id, name,
                          json_string_value(json_object_get(metric, "unit")),
                          json_string_value(json_object_get(metric, "better")),
                          json_string_value(json_object_get(metric, "aggregate")),
                          position++) != 0 ||
            insert_values(store, "INSERT INTO metric_values (result_id, metric, rep, value)"
                          " VALUES (?, ?, ?, ?)", result_id, -1, name,
                          json_object_get(metric, "values")) != 0)
            return -1;
        const json_t *distribution = json_object_get(metric, "distribution");
        if (distribution) {
            char *text = json_dumps(distribution, JSON_COMPACT);
            int rc = vp_store_run_statement(store, "INSERT INTO metric_distributions VALUES (?, ?, ?)",
                                   "itt", result_id, name, text);
            free(text);
            if (rc != 0)
                return -1;
        }
    }
    return 0;
}

static int insert_jobs(struct vp_store *store, int64_t result_id, const json_t *per_job)
{
    size_t i;
    const json_t *entry;
    json_array_foreach(per_job, i, entry) {
        int64_t job = json_integer_value(json_object_get(entry, "job"));
        int rc = vp_store_run_statement(store, "INSERT INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?)", "iijtidd",
                               result_id, job, json_object_get(entry, "cpu_planned"),
                               json_string_value(json_object_get(entry, "cpu_binding")),
                               (int64_t)json_integer_value(json_object_get(entry, "cpu_seen")),
                               number_at(entry, "start_offset_s"),
                               number_at(entry, "done_offset_s"));
        if (rc != 0)
            return -1;
        const char *name;
        const json_t *metric;
        json_object_foreach(json_object_get(entry, "metrics"), name, metric) {
            if (insert_values(store, "INSERT INTO job_values (result_id, job, metric, rep, value)"
                              " VALUES (?, ?, ?, ?, ?)", result_id, job, name,
                              json_object_get(metric, "values")) != 0)
                return -1;
        }
    }
    return 0;
}

static int insert_timing(struct vp_store *store, int64_t result_id, const json_t *timing)
{
    size_t rep;
    const json_t *entry;
    json_array_foreach(timing, rep, entry) {
        if (vp_store_run_statement(store, "INSERT INTO rep_timing VALUES (?, ?, ?, ?, ?)", "iiddd",
                          result_id, (int64_t)rep, number_at(entry, "start_skew_s"),
                          number_at(entry, "first_done_s"), number_at(entry, "last_done_s")) != 0)
            return -1;
    }
    return 0;
}

static int insert_monitor(struct vp_store *store, int64_t result_id, const json_t *monitor)
{
    const json_t *summary = json_object_get(monitor, "summary");
    const char *name;
    const json_t *series;
    int64_t position = 0;
    json_object_foreach(json_object_get(monitor, "series"), name, series) {
        const json_t *column = json_object_get(summary, name);
        char *series_text = json_dumps(series, JSON_COMPACT);
        int rc = vp_store_run_statement(store, "INSERT INTO monitor_columns VALUES (?, ?, ?, ?, ?, ?)",
                               "iitjjt", result_id, position, name,
                               json_object_get(column, "mean"), json_object_get(column, "max"),
                               series_text);
        free(series_text);
        if (rc != 0)
            return -1;
        position++;
    }
    return 0;
}

/* The optional parts of result, in its order: the run's own (warnings, ranks, step,
 * --reps auto's reps_target) and every part something declared (engine/parts.h); a key
 * nothing declared is not kept. */
static json_t *parts_of(const json_t *result)
{
    json_t *parts = json_object();
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)result, key, value)
        if (strcmp(key, "warnings") == 0 || strcmp(key, "ranks") == 0 ||
            strcmp(key, "step") == 0 || strcmp(key, "reps_target") == 0 ||
            vp_result_part_find(key))
            json_object_set(parts, key, value);
    return parts;
}

/* The columns of a result's row, in the order of the INSERT's parameters: bound by name. */
static const char *const result_columns[] = {
    "run_id", "seq", "bench", "params_json", "jobs", "pin", "reps", "warmup", "duration_s",
    "status", "error", "started_at", "start_skew_s", "start_skew_max_s", "first_done_s",
    "last_done_s", "monitor_hz", "monitor_samples", "monitor_nics_json", "parts_json",
};
#define RESULT_COLUMN_COUNT (sizeof result_columns / sizeof result_columns[0])

/* The parameter (from 1) of the column called name. */
static int parameter(const char *name)
{
    for (size_t i = 0; i < RESULT_COLUMN_COUNT; i++)
        if (strcmp(result_columns[i], name) == 0)
            return (int)i + 1;
    abort(); /* a column this file does not list */
}

/* "INSERT INTO results (run_id, ...) VALUES (?1, ...) RETURNING id", made once. */
static const char *insert_result_sql(void)
{
    static char sql[1024];
    if (sql[0])
        return sql;
    size_t used = (size_t)snprintf(sql, sizeof sql, "INSERT INTO results (");
    for (size_t i = 0; i < RESULT_COLUMN_COUNT; i++)
        used += (size_t)snprintf(sql + used, sizeof sql - used, "%s%s", i ? ", " : "",
                                 result_columns[i]);
    used += (size_t)snprintf(sql + used, sizeof sql - used, ") VALUES (");
    for (size_t i = 0; i < RESULT_COLUMN_COUNT; i++)
        used += (size_t)snprintf(sql + used, sizeof sql - used, "%s?%zu", i ? ", " : "", i + 1);
    snprintf(sql + used, sizeof sql - used, ") RETURNING id");
    return sql;
}

static void bind_text(struct vp_db_statement *statement, const char *name, const char *text)
{
    if (text)
        vp_db_bind_text(statement, parameter(name), text);
    else
        vp_db_bind_null(statement, parameter(name));
}

static void bind_integer(struct vp_db_statement *statement, const char *name, json_int_t value)
{
    vp_db_bind_int64(statement, parameter(name), value);
}

static int insert_result_row(struct vp_store *store, int64_t run_id, int64_t seq,
                             const json_t *result, int64_t *result_id)
{
    struct vp_db_statement *statement;
    if (vp_db_prepare(store->db, insert_result_sql(), &statement) != 0)
        return -1;
    char *params_text = json_dumps(json_object_get(result, "params"), JSON_COMPACT | JSON_SORT_KEYS);
    json_t *parts = parts_of(result);
    char *parts_text = json_dumps(parts, JSON_COMPACT);
    json_decref(parts);
    const json_t *monitor = json_object_get(result, "monitor");
    const json_t *nics = json_object_get(monitor, "nics");
    char *nics_text = nics ? json_dumps(nics, JSON_COMPACT) : NULL;
    bind_text(statement, "monitor_nics_json", nics_text);
    bind_integer(statement, "run_id", run_id);
    bind_integer(statement, "seq", seq);
    bind_text(statement, "params_json", params_text);
    bind_text(statement, "parts_json", parts_text);
    static const char *const texts[] = { "bench", "pin", "status", "error", "started_at" };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        bind_text(statement, texts[i], json_string_value(json_object_get(result, texts[i])));
    static const char *const integers[] = { "jobs", "reps", "warmup" };
    for (size_t i = 0; i < sizeof integers / sizeof integers[0]; i++)
        bind_integer(statement, integers[i], json_integer_value(json_object_get(result, integers[i])));
    static const char *const optional[] = { "duration_s", "start_skew_s", "start_skew_max_s",
                                            "first_done_s", "last_done_s" };
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        vp_store_bind_optional(statement, parameter(optional[i]),
                               json_object_get(result, optional[i]));
    vp_store_bind_optional(statement, parameter("monitor_hz"), json_object_get(monitor, "hz"));
    vp_store_bind_optional(statement, parameter("monitor_samples"),
                           json_object_get(monitor, "samples"));
    enum vp_db_step status = vp_db_step(statement);
    if (status == VP_DB_ROW)
        *result_id = vp_db_column_int64(statement, 0);
    vp_db_finalize(statement);
    free(parts_text);
    free(params_text);
    free(nics_text);
    return status == VP_DB_ROW ? 0 : -1;
}

int vp_store_insert_result(struct vp_store *store, int64_t run_id, const json_t *result)
{
    struct vp_db_statement *statement;
    int64_t seq = 0, result_id;
    if (vp_db_prepare(store->db, "SELECT COUNT(*) FROM results WHERE run_id = ?", &statement) != 0)
        return -1;
    vp_db_bind_int64(statement, 1, run_id);
    enum vp_db_step counted = vp_db_step(statement);
    if (counted == VP_DB_ROW)
        seq = vp_db_column_int64(statement, 0);
    vp_db_finalize(statement);
    if (counted != VP_DB_ROW)
        return -1;
    if (insert_result_row(store, run_id, seq, result, &result_id) != 0)
        return -1;
    const json_t *metrics = json_object_get(result, "metrics");
    const json_t *per_job = json_object_get(result, "per_job");
    const json_t *timing = json_object_get(result, "timing");
    const json_t *monitor = json_object_get(result, "monitor");
    if ((metrics && insert_metrics(store, result_id, metrics) != 0) ||
        (per_job && insert_jobs(store, result_id, per_job) != 0) ||
        (timing && insert_timing(store, result_id, timing) != 0) ||
        (monitor && insert_monitor(store, result_id, monitor) != 0))
        return -1;
    return 0;
}
