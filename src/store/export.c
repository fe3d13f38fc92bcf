/* Reading the store back out: a run as its JSON document, whole (export) or in summaries
 * (compare, scaling), and the newest result of each configuration on a host (for
 * sysinfo's advisories). */
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

/* The results a read takes: SQL giving their ids, the order of their rows, and what its
 * parameters are bound to. Every table of a result's details is then read once for all
 * of them (WHERE result_id IN the ids), never once a result: a run of 20,000 results is
 * 7 queries, not 140,000 (each a round trip to a site's server). */
struct selection {
    const char *ids_sql;
    const char *order; /* of the results' rows */
    void (*bind)(struct vp_db_statement *statement, const struct selection *selection);
    enum vp_export_detail detail;
    int64_t run_id;              /* export */
    const char *hostname;        /* newest results */
    int64_t recent_runs;
};

/* A result being read: its row's fields first, the details gathered table by table, put
 * together in the document's key order at the end. */
struct loading {
    int64_t id;
    json_t *result;
    json_t *metrics, *names, *per_job, *timing, *monitor, *parts;
};

struct id_index {
    int64_t id;
    size_t index; /* into results */
};

struct loaded {
    struct loading *results;
    size_t count;
    struct id_index *by_id; /* by ascending id */
};

static int by_ascending_id(const void *a, const void *b)
{
    int64_t x = ((const struct id_index *)a)->id, y = ((const struct id_index *)b)->id;
    return (x > y) - (x < y);
}

/* The result with id (NULL: none read); looked up once per run of a table's rows. */
static struct loading *loading_of(const struct loaded *loaded, int64_t id)
{
    size_t low = 0, high = loaded->count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (loaded->by_id[mid].id == id)
            return &loaded->results[loaded->by_id[mid].index];
        if (loaded->by_id[mid].id < id)
            low = mid + 1;
        else
            high = mid;
    }
    return NULL;
}

/* One detail table's read: "SELECT result_id, columns FROM table WHERE [filter AND]
 * result_id IN (the ids) [GROUP BY result_id, group] ORDER BY result_id[, order]". */
struct detail_query {
    const char *columns, *table;
    const char *filter, *group, *order; /* NULL: none */
};

/* Prepares query with the selection's parameters bound; -1 when it did not prepare. */
static int prepare_details(struct vp_store *store, const struct selection *selection,
                           const struct detail_query *query, struct vp_db_statement **statement)
{
    char sql[2048];
    snprintf(sql, sizeof sql, "SELECT result_id, %s FROM %s WHERE %s%sresult_id IN (%s)%s%s"
             " ORDER BY result_id%s%s", query->columns, query->table,
             query->filter ? query->filter : "", query->filter ? " AND " : "", selection->ids_sql,
             query->group ? " GROUP BY result_id, " : "", query->group ? query->group : "",
             query->order ? ", " : "", query->order ? query->order : "");
    if (vp_store_prepare(store, sql, statement) != 0)
        return -1;
    selection->bind(*statement, selection);
    return 0;
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

/* The values of every metric (of every job when by_job) of every result, in one query:
 * rows come by result, (job,) metric and repetition, and each run of one metric's rows
 * becomes that metric's values and statistics, where the metric is named; a metric with
 * no rows keeps what it had. A read of summaries takes each job's mean alone, averaged
 * by the database (one row a job's metric). */
static void load_values(struct vp_store *store, const struct selection *selection,
                        const struct loaded *loaded, bool by_job)
{
    bool job_means = by_job && selection->detail != VP_EXPORT_WHOLE;
    const struct detail_query query =
        job_means ? (struct detail_query){ .columns = "metric, AVG(value), job",
                                           .table = "job_values", .group = "job, metric",
                                           .order = "job, metric" }
        : by_job  ? (struct detail_query){ .columns = "metric, value, job",
                                           .table = "job_values", .order = "job, metric, rep" }
                  : (struct detail_query){ .columns = "metric, value", .table = "metric_values",
                                           .order = "metric, rep" };
    struct vp_db_statement *statement;
    if (prepare_details(store, selection, &query, &statement) != 0)
        return;
    double values[VP_MAX_REPS];
    size_t n = 0;
    json_t *metric = NULL; /* the one whose rows these are, NULL: none named so */
    char *name = NULL;
    int64_t result_id = -1, job = -1;
    struct loading *entry = NULL;
    bool more = true;
    while (more) {
        more = vp_store_step(store, statement) == VP_DB_ROW;
        int64_t row_result = more ? vp_db_column_int64(statement, 0) : -1;
        const char *row_name = more ? vp_db_column_text(statement, 1) : NULL;
        int64_t row_job = more && by_job ? vp_db_column_int64(statement, 3) : -1;
        if (!more || !row_name || !name || row_result != result_id || row_job != job ||
            strcmp(row_name, name) != 0) {
            if (metric && job_means && n > 0) /* the database's average, its one row */
                json_object_set_new(metric, "mean", json_real(values[0]));
            else if (metric && !job_means)
                vp_metric_set_stats(metric, values, n);
            n = 0;
            free(name);
            name = row_name ? strdup(row_name) : NULL;
            if (row_result != result_id)
                entry = loading_of(loaded, row_result);
            result_id = row_result;
            job = row_job;
            json_t *holder = !entry ? NULL
                             : by_job ? json_object_get(job_of(entry->per_job, job), "metrics")
                                      : entry->metrics;
            metric = name ? json_object_get(holder, name) : NULL;
        }
        if (more && n < VP_MAX_REPS)
            values[n++] = vp_db_column_double(statement, 2);
    }
    free(name);
    vp_db_finalize(statement);
}

/* Each metric's distribution, where it has one. */
static void load_distributions(struct vp_store *store, const struct selection *selection,
                               const struct loaded *loaded)
{
    struct vp_db_statement *statement;
    const struct detail_query query = { .columns = "metric, histogram_json",
                                        .table = "metric_distributions" };
    if (prepare_details(store, selection, &query, &statement) != 0)
        return;
    while (vp_store_step(store, statement) == VP_DB_ROW) {
        struct loading *entry = loading_of(loaded, vp_db_column_int64(statement, 0));
        json_t *metric = entry ? json_object_get(entry->metrics,
                                                 vp_db_column_text(statement, 1)) : NULL;
        if (metric)
            set_if_present(metric, "distribution",
                           vp_store_column_json(store, statement, 2, 0, "a metric's distribution"));
    }
    vp_db_finalize(statement);
}

static void load_metrics(struct vp_store *store, const struct selection *selection,
                         const struct loaded *loaded)
{
    struct vp_db_statement *statement;
    const struct detail_query query = { .columns = "name, unit, better, aggregate",
                                        .table = "metrics", .order = "position, name" };
    if (prepare_details(store, selection, &query, &statement) == 0) {
        while (vp_store_step(store, statement) == VP_DB_ROW) {
            struct loading *entry = loading_of(loaded, vp_db_column_int64(statement, 0));
            if (!entry)
                continue;
            const char *name = vp_db_column_text(statement, 1);
            json_t *metric = json_pack("{s:s,s:s,s:s}", "unit", vp_db_column_text(statement, 2),
                                       "better", vp_db_column_text(statement, 3), "aggregate",
                                       vp_db_column_text(statement, 4));
            vp_metric_set_stats(metric, NULL, 0); /* until load_values finds its values */
            json_object_set_new(entry->metrics, name, metric);
            json_array_append_new(entry->names, json_string(name));
        }
        vp_db_finalize(statement);
    }
    load_values(store, selection, loaded, false);
    load_distributions(store, selection, loaded);
}

static void load_jobs(struct vp_store *store, const struct selection *selection,
                      const struct loaded *loaded)
{
    struct vp_db_statement *statement;
    const struct detail_query query = {
        .columns = "job, cpu_planned, cpu_binding, cpu_seen, start_offset_s, done_offset_s",
        .table = "jobs", .order = "job" };
    if (prepare_details(store, selection, &query, &statement) != 0)
        return;
    while (vp_store_step(store, statement) == VP_DB_ROW) {
        struct loading *entry = loading_of(loaded, vp_db_column_int64(statement, 0));
        if (!entry)
            continue;
        int64_t job = vp_db_column_int64(statement, 1);
        json_t *planned = column_json(statement, 2);
        json_t *job_metrics = json_object();
        size_t i;
        const json_t *name;
        json_array_foreach(entry->names, i, name) {
            json_t *metric = json_object();
            if (selection->detail == VP_EXPORT_WHOLE) /* until load_values finds its values */
                vp_metric_set_stats(metric, NULL, 0);
            json_object_set_new(job_metrics, json_string_value(name), metric);
        }
        json_array_append_new(entry->per_job, json_pack(
            "{s:I,s:o,s:s,s:I,s:f,s:f,s:o}", "job", (json_int_t)job, "cpu_planned",
            planned ? planned : json_null(), "cpu_binding", vp_db_column_text(statement, 3),
            "cpu_seen", (json_int_t)vp_db_column_int64(statement, 4), "start_offset_s",
            vp_db_column_double(statement, 5), "done_offset_s",
            vp_db_column_double(statement, 6), "metrics", job_metrics));
    }
    vp_db_finalize(statement);
    load_values(store, selection, loaded, true);
}

static void load_timing(struct vp_store *store, const struct selection *selection,
                        const struct loaded *loaded)
{
    struct vp_db_statement *statement;
    const struct detail_query query = { .columns = "start_skew_s, first_done_s, last_done_s",
                                        .table = "rep_timing", .order = "rep" };
    if (prepare_details(store, selection, &query, &statement) != 0)
        return;
    while (vp_store_step(store, statement) == VP_DB_ROW) {
        struct loading *entry = loading_of(loaded, vp_db_column_int64(statement, 0));
        if (entry)
            json_array_append_new(entry->timing, json_pack(
                "{s:f,s:f,s:f}", "start_skew_s", vp_db_column_double(statement, 1),
                "first_done_s", vp_db_column_double(statement, 2), "last_done_s",
                vp_db_column_double(statement, 3)));
    }
    vp_db_finalize(statement);
}

/* The monitor columns a read of summaries takes (store.h says which): at 20,000 results
 * each column left out is 20,000 objects fewer. */
#define SUMMARY_COLUMNS                                                                     \
    "(name IN ('cpu.busy', 'cpu.steal', 'cpu.idle', 'runq') OR name LIKE 'faults.%'"        \
    " OR name LIKE 'net.%' OR name LIKE 'network.%' OR name LIKE 'watch.%')"

/* The monitor's columns of the results that have a monitor (entry->monitor): each one's
 * summary and series, or in a read of summaries the mean of those the analyses read. */
static void load_monitor(struct vp_store *store, const struct selection *selection,
                         const struct loaded *loaded)
{
    bool whole = selection->detail == VP_EXPORT_WHOLE;
    struct vp_db_statement *statement;
    /* summaries: in the key's order (no sort), the order the analyses need not keep */
    const struct detail_query query =
        whole ? (struct detail_query){ .columns = "name, mean, max, series_json",
                                       .table = "monitor_columns", .order = "position" }
              : (struct detail_query){ .columns = "name, mean", .table = "monitor_columns",
                                       .filter = SUMMARY_COLUMNS, .order = "name" };
    if (prepare_details(store, selection, &query, &statement) != 0)
        return;
    while (vp_store_step(store, statement) == VP_DB_ROW) {
        struct loading *entry = loading_of(loaded, vp_db_column_int64(statement, 0));
        if (!entry || !entry->monitor)
            continue;
        const char *name = vp_db_column_text(statement, 1);
        if (whole) {
            json_t *values = vp_store_column_json(store, statement, 4, 0, "a monitor series");
            json_object_set_new(json_object_get(entry->monitor, "series"), name,
                                values ? values : json_array());
        }
        if (vp_db_column_type(statement, 2) == VP_DB_NULL)
            continue;
        double mean = vp_db_column_double(statement, 2);
        json_object_set_new(json_object_get(entry->monitor, "summary"), name,
                            whole ? json_pack("{s:f,s:f}", "mean", mean, "max",
                                              vp_db_column_double(statement, 3))
                                  : json_real(mean));
    }
    vp_db_finalize(statement);
}

/* The columns read_result reads (by name). */
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

/* A result's own row: its fields, and its monitor's and parts' beginnings in entry. */
static void read_result(struct vp_store *store, const struct selection *selection,
                        struct vp_db_statement *row, struct loading *entry)
{
    *entry = (struct loading){ .id = column_integer(row, "id"), .metrics = json_object(),
                               .names = json_array(), .per_job = json_array(),
                               .timing = json_array() };
    json_t *params = vp_store_column_json(store, row, column(row, "params_json"), 0,
                                          "a result's parameters");
    entry->result = json_pack("{s:s,s:o,s:I,s:s,s:I,s:I,s:s,s:s}",
                              "bench", column_text(row, "bench"),
                              "params", params ? params : json_object(),
                              "jobs", column_integer(row, "jobs"),
                              "pin", column_text(row, "pin"),
                              "reps", column_integer(row, "reps"),
                              "warmup", column_integer(row, "warmup"),
                              "status", column_text(row, "status"),
                              "started_at", column_text(row, "started_at"));
    if (!entry->result) { /* a NOT NULL column read as NULL */
        json_decref(params);
        vp_store_note_damage(store, "a result row lacks its benchmark, pin, status or start");
        entry->result = json_object();
        entry->id = -1; /* no details of its are read */
        return;
    }
    static const char *const plain[] = { "duration_s", "error", "start_skew_s",
                                         "start_skew_max_s", "first_done_s", "last_done_s" };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        set_if_present(entry->result, plain[i], column_json(row, column(row, plain[i])));
    int hz = column(row, "monitor_hz");
    if (vp_db_column_type(row, hz) != VP_DB_NULL) {
        entry->monitor = json_pack("{s:f,s:I,s:o,s:o}", "hz", vp_db_column_double(row, hz),
                                   "samples", column_integer(row, "monitor_samples"),
                                   "series", json_object(), "summary", json_object());
        if (selection->detail != VP_EXPORT_WHOLE) /* not read: not there, never empty */
            json_object_del(entry->monitor, "series");
        int nics = column(row, "monitor_nics_json");
        if (vp_db_column_type(row, nics) != VP_DB_NULL)
            json_object_set_new(entry->monitor, "nics",
                                vp_store_column_json(store, row, nics, 0,
                                                     "a monitor's interfaces"));
    }
    entry->parts = vp_store_column_json(store, row, column(row, "parts_json"), 0,
                                        "a result's parts");
}

/* The result put together in its document's key order; entry's pieces are spent. */
static json_t *assemble(const struct selection *selection, struct loading *entry)
{
    json_t *result = entry->result;
    if (json_object_size(entry->metrics) > 0) {
        json_object_set_new(result, "metrics", entry->metrics);
        json_object_set_new(result, "per_job", entry->per_job);
        if (json_array_size(entry->timing) > 0 || selection->detail == VP_EXPORT_WHOLE)
            json_object_set_new(result, "timing", entry->timing);
        else
            json_decref(entry->timing);
    } else {
        json_decref(entry->metrics);
        json_decref(entry->per_job);
        json_decref(entry->timing);
    }
    json_decref(entry->names);
    if (entry->monitor)
        json_object_set_new(result, "monitor", entry->monitor);
    /* the optional parts, in the order the result had them */
    const char *key;
    json_t *part;
    json_object_foreach(entry->parts, key, part)
        json_object_set(result, key, part);
    json_decref(entry->parts);
    return result;
}

/* Every result of selection with its details, in its order: a new array. */
static json_t *load_results(struct vp_store *store, const struct selection *selection)
{
    struct loaded loaded = { 0 };
    size_t capacity = 0;
    char sql[2048];
    snprintf(sql, sizeof sql, "SELECT " RESULT_COLUMNS " FROM results WHERE id IN (%s)"
             " ORDER BY %s", selection->ids_sql, selection->order);
    struct vp_db_statement *statement;
    if (vp_store_prepare(store, sql, &statement) == 0) {
        selection->bind(statement, selection);
        while (vp_store_step(store, statement) == VP_DB_ROW) {
            if (loaded.count == capacity) {
                capacity = capacity ? 2 * capacity : 64;
                loaded.results = realloc(loaded.results, capacity * sizeof *loaded.results);
                if (!loaded.results)
                    abort();
            }
            read_result(store, selection, statement, &loaded.results[loaded.count++]);
        }
        vp_db_finalize(statement);
    }
    loaded.by_id = malloc((loaded.count + 1) * sizeof *loaded.by_id);
    if (!loaded.by_id)
        abort();
    for (size_t i = 0; i < loaded.count; i++)
        loaded.by_id[i] = (struct id_index){ loaded.results[i].id, i };
    qsort(loaded.by_id, loaded.count, sizeof *loaded.by_id, by_ascending_id);
    if (loaded.count > 0) {
        load_metrics(store, selection, &loaded);
        load_jobs(store, selection, &loaded);
        if (selection->detail == VP_EXPORT_WHOLE)
            load_timing(store, selection, &loaded);
        load_monitor(store, selection, &loaded);
    }
    json_t *results = json_array();
    for (size_t i = 0; i < loaded.count; i++)
        json_array_append_new(results, assemble(selection, &loaded.results[i]));
    free(loaded.by_id);
    free(loaded.results);
    return results;
}

static void bind_run(struct vp_db_statement *statement, const struct selection *selection)
{
    vp_db_bind_int64(statement, 1, selection->run_id);
}

static void bind_host(struct vp_db_statement *statement, const struct selection *selection)
{
    vp_db_bind_text(statement, 1, selection->hostname);
    vp_db_bind_int64(statement, 2, selection->recent_runs);
}

int vp_store_export_run(struct vp_store *store, int64_t run_id, enum vp_export_detail detail,
                        json_t **document, char *err, size_t err_len)
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

    const struct selection run_results = {
        .ids_sql = "SELECT id FROM results WHERE run_id = ?1", .order = "seq",
        .bind = bind_run, .detail = detail, .run_id = run_id,
    };
    json_t *results = load_results(store, &run_results);
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
    const struct selection newest = {
        .ids_sql = "SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY bench,"
                   " params_json ORDER BY run_id DESC, seq DESC) AS newness FROM results"
                   " WHERE run_id IN (SELECT id FROM runs WHERE COALESCE(hostname, '') = ?1"
                   " ORDER BY id DESC LIMIT ?2)) AS ranked WHERE newness = 1",
        .order = "run_id DESC, seq", .bind = bind_host, .detail = VP_EXPORT_WHOLE,
        .hostname = hostname,
        .recent_runs = recent_runs,
    };
    *results = load_results(store, &newest);
    if (vp_store_check_reads(store, err, err_len) != 0) {
        json_decref(*results);
        *results = NULL;
        return -1;
    }
    return 0;
}
