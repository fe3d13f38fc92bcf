/* The results store on either engine (store/db.h): schema and migrations, run and
 * result rows, import, listing and deletion. Reading results back out is export.c's. */
#include "store/store.h"

#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/limits.h"
#include "core/options.h" /* VP_ERROR_LEN */
#include "core/procfs.h"
#include "core/json.h"
#include "store/document.h"
#include "store/store_db.h"

/* Migration k brings a database from schema version k to k + 1, on either engine: its
 * schema text (SQLite's type names, which store/db_postgresql.c reads as its own), then
 * sqlite_rows, then schema_after. sqlite_rows carries the rows an older SQLite file holds
 * into the new shape, in SQLite's own functions; a PostgreSQL store is never older than
 * version 11 (the first virtperf that wrote one), so it holds no such rows and skips
 * them. From version 11 on a migration moves rows in SQL both engines read. Never edit
 * a shipped one: add the next. */
static const struct migration {
    const char *schema, *sqlite_rows, *schema_after;
} migrations[VP_SCHEMA_VERSION] = {
    { .schema =
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  uuid TEXT NOT NULL UNIQUE,"
    "  label TEXT,"
    "  started_at TEXT NOT NULL,"
    "  status TEXT NOT NULL,"
    "  command TEXT,"
    "  host_json TEXT NOT NULL);"
    "CREATE TABLE results ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  seq INTEGER NOT NULL,"
    "  bench TEXT NOT NULL,"
    "  params_json TEXT NOT NULL,"
    "  jobs INTEGER NOT NULL,"
    "  pin TEXT NOT NULL,"
    "  reps INTEGER NOT NULL,"
    "  warmup INTEGER NOT NULL,"
    "  duration_s REAL,"
    "  status TEXT NOT NULL,"
    "  error TEXT,"
    "  started_at TEXT NOT NULL,"
    "  start_skew_s REAL, start_skew_max_s REAL, first_done_s REAL, last_done_s REAL,"
    "  monitor_hz REAL, monitor_samples INTEGER);"
    "CREATE TABLE metrics ("
    "  result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL, unit TEXT NOT NULL, better TEXT NOT NULL, aggregate TEXT NOT NULL,"
    "  PRIMARY KEY (result_id, name));"
    "CREATE TABLE metric_values ("
    "  result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    "  metric TEXT NOT NULL, rep INTEGER NOT NULL, value REAL NOT NULL,"
    "  PRIMARY KEY (result_id, metric, rep));"
    "CREATE TABLE jobs ("
    "  result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    "  job INTEGER NOT NULL, cpu_planned INTEGER, cpu_binding TEXT NOT NULL,"
    "  cpu_seen INTEGER NOT NULL, start_offset_s REAL NOT NULL, done_offset_s REAL NOT NULL,"
    "  PRIMARY KEY (result_id, job));"
    "CREATE TABLE job_values ("
    "  result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    "  job INTEGER NOT NULL, metric TEXT NOT NULL, rep INTEGER NOT NULL, value REAL NOT NULL,"
    "  PRIMARY KEY (result_id, job, metric, rep));"
    "CREATE TABLE rep_timing ("
    "  result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    "  rep INTEGER NOT NULL, start_skew_s REAL NOT NULL, first_done_s REAL NOT NULL,"
    "  last_done_s REAL NOT NULL, PRIMARY KEY (result_id, rep));"
    "CREATE TABLE monitor_columns ("
    "  result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    "  position INTEGER NOT NULL, name TEXT NOT NULL, mean REAL, max REAL,"
    "  series_json TEXT NOT NULL, PRIMARY KEY (result_id, name));" },

    { .schema =
    "CREATE INDEX results_by_run ON results(run_id, seq);"
    "CREATE INDEX runs_by_label ON runs(label, started_at);" },

    /* Disk and net results: warnings, device counters, the peer's route, per-operation
     * latency histograms. */
    { .schema =
    "ALTER TABLE results ADD COLUMN warnings_json TEXT;"
    "ALTER TABLE results ADD COLUMN device_json TEXT;"
    "ALTER TABLE results ADD COLUMN peer_json TEXT;"
    "ALTER TABLE results ADD COLUMN intervals_json TEXT;"
    "CREATE TABLE metric_distributions ("
    "  result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    "  metric TEXT NOT NULL, histogram_json TEXT NOT NULL,"
    "  PRIMARY KEY (result_id, metric));" },

    /* The conditions of a timing result: the background load (--load) and the CPU
     * idle policy in force (--hold-latency). */
    { .schema =
    "ALTER TABLE results ADD COLUMN load_json TEXT;"
    "ALTER TABLE results ADD COLUMN idle_json TEXT;"
    /* The process that runs a run, so a run whose process died is marked abandoned. */
    "ALTER TABLE runs ADD COLUMN pid INTEGER;"
    "ALTER TABLE runs ADD COLUMN pid_host TEXT;" },

    /* A result from many hosts at once (virtperf-mpi): each host's figures, monitor and
     * fingerprint, the start skew's error bound. */
    { .schema =
    "ALTER TABLE results ADD COLUMN ranks_json TEXT;" },

    /* A watch's events over time (net.probe: each gap, the round trip over time). */
    { .schema =
    "ALTER TABLE results ADD COLUMN timeline_json TEXT;" },

    /* What a data benchmark read: the source, the network input, job times across jobs. */
    { .schema =
    "ALTER TABLE results ADD COLUMN data_json TEXT;" },

    /* The plan file a run was made from (run --plan), as it was read, and the step of
     * the plan each result belongs to. */
    { .schema =
    "ALTER TABLE runs ADD COLUMN plan_text TEXT;"
    "ALTER TABLE results ADD COLUMN step_json TEXT;" },

    /* A result's optional parts in one JSON object, whatever declared them (engine/parts.h),
     * instead of a column and a migration per part. */
    { .schema =
    "ALTER TABLE results ADD COLUMN parts_json TEXT;",
      .sqlite_rows =
    "UPDATE results SET parts_json = (SELECT json_group_object(key, json(value)) FROM ("
    "  SELECT 1 AS place, 'warnings' AS key, warnings_json AS value"
    "  UNION ALL SELECT 2, 'device', device_json UNION ALL SELECT 3, 'peer', peer_json"
    "  UNION ALL SELECT 4, 'intervals', intervals_json UNION ALL SELECT 5, 'load', load_json"
    "  UNION ALL SELECT 6, 'idle', idle_json UNION ALL SELECT 7, 'ranks', ranks_json"
    "  UNION ALL SELECT 8, 'timeline', timeline_json UNION ALL SELECT 9, 'data', data_json"
    "  UNION ALL SELECT 10, 'step', step_json ORDER BY place) WHERE value IS NOT NULL);",
      .schema_after =
    "ALTER TABLE results DROP COLUMN warnings_json;"
    "ALTER TABLE results DROP COLUMN device_json;"
    "ALTER TABLE results DROP COLUMN peer_json;"
    "ALTER TABLE results DROP COLUMN intervals_json;"
    "ALTER TABLE results DROP COLUMN load_json;"
    "ALTER TABLE results DROP COLUMN idle_json;"
    "ALTER TABLE results DROP COLUMN ranks_json;"
    "ALTER TABLE results DROP COLUMN timeline_json;"
    "ALTER TABLE results DROP COLUMN data_json;"
    "ALTER TABLE results DROP COLUMN step_json;" },

    /* What each interface the monitor counted is (monitor.nics: kind, counted), so that
     * its network.rx/tx can be told from the per-interface series. */
    { .schema =
    "ALTER TABLE results ADD COLUMN monitor_nics_json TEXT;" },

    /* The fingerprint's hostname as a column (runs are listed and chosen by it), and each
     * metric's place in its result (SQLite's rowid kept it until the store was SQL that
     * PostgreSQL reads too). */
    { .schema =
    "ALTER TABLE runs ADD COLUMN hostname TEXT;"
    "ALTER TABLE metrics ADD COLUMN position INTEGER;",
      .sqlite_rows =
    "UPDATE runs SET hostname = json_extract(host_json, '$.hostname');"
    "UPDATE metrics SET position = rowid;" },
};

int vp_store_default_path(char *buf, size_t len)
{
    const char *explicit_path = getenv("VIRTPERF_DB");
    if (explicit_path && *explicit_path) {
        snprintf(buf, len, "%s", explicit_path);
        return 0;
    }
    const char *data_home = getenv("XDG_DATA_HOME");
    if (data_home && *data_home) {
        snprintf(buf, len, "%s/virtperf/results.db", data_home);
        return 0;
    }
    const char *home = getenv("HOME");
    if (!home || !*home)
        return -1;
    snprintf(buf, len, "%s/.local/share/virtperf/results.db", home);
    return 0;
}

int vp_store_schema_version(struct vp_store *store)
{
    return vp_db_schema_version(store->db);
}

static int run_part(struct vp_store *store, const char *sql, bool schema)
{
    if (!sql)
        return 0;
    return schema ? vp_db_exec_schema(store->db, sql) : vp_db_exec(store->db, sql);
}

static int migrate(struct vp_store *store, char *err, size_t err_len)
{
    /* the writer lock: it fails on a read-only database, which is how an unwritable --db
     * is refused before any benchmark starts */
    if (vp_db_begin_write(store->db) != 0)
        return vp_store_error(err, err_len, "database", store);
    int version = vp_store_schema_version(store);
    if (version == VP_DB_FOREIGN) {
        vp_db_rollback(store->db);
        snprintf(err, err_len, "database: not a virtperf database (a table runs of another "
                 "program's, no virtperf schema version); accepted: a new database or one "
                 "virtperf made");
        return -1;
    }
    if (version < 0) {
        vp_store_error(err, err_len, "database: cannot read its schema version", store);
        vp_db_rollback(store->db);
        return -1;
    }
    if (version > VP_SCHEMA_VERSION) {
        vp_db_rollback(store->db);
        snprintf(err, err_len,
                 "database schema version %d is newer than this virtperf's (%d): upgrade virtperf",
                 version, VP_SCHEMA_VERSION);
        return -1;
    }
    bool sqlite = strcmp(vp_db_engine(store->db), "SQLite") == 0;
    for (int step = version; step < VP_SCHEMA_VERSION; step++) {
        const struct migration *migration = &migrations[step];
        if (run_part(store, migration->schema, true) != 0 ||
            run_part(store, sqlite ? migration->sqlite_rows : NULL, false) != 0 ||
            run_part(store, migration->schema_after, true) != 0 ||
            vp_db_set_schema_version(store->db, step + 1) != 0) {
            vp_store_error(err, err_len, "database", store);
            vp_db_rollback(store->db);
            return -1;
        }
    }
    if (vp_db_commit(store->db) != 0)
        return vp_store_error(err, err_len, "database", store);
    return 0;
}

static void mark_abandoned(struct vp_store *store);

int vp_store_open(const char *path, struct vp_store **store, char *err, size_t err_len)
{
    struct vp_store *opened = calloc(1, sizeof *opened);
    if (!opened)
        abort();
    vp_db_shown_target(path, opened->path, sizeof opened->path);
    enum vp_db_refusal refusal;
    char detail[VP_ERROR_LEN];
    if (vp_db_open(path, &opened->db, &refusal, detail, sizeof detail) != 0) {
        snprintf(err, err_len, "--db %s: %s", opened->path, detail);
        free(opened);
        return refusal == VP_DB_UNAVAILABLE ? VP_STORE_UNAVAILABLE : -1;
    }
    if (migrate(opened, detail, sizeof detail) != 0) {
        snprintf(err, err_len, "--db %s: %s", opened->path, detail);
        bool served = vp_db_is_url(path);
        vp_store_close(opened);
        /* a server that refuses (a read-only role, a lock held too long) is unavailable,
         * not a mistake in the command */
        return served ? VP_STORE_UNAVAILABLE : -1;
    }
    *store = opened;
    mark_abandoned(opened);
    return 0;
}

void vp_store_close(struct vp_store *store)
{
    if (!store)
        return;
    vp_db_close(store->db);
    free(store);
}

bool vp_store_names_server(const char *target)
{
    return vp_db_is_url(target);
}

/* Where a pid names one process, kept with a run as pid_host: the host's name, its boot
 * (each guest and machine boots on its own, and cloned guests often share a name) and the
 * pid namespace (a container on the same boot has its own), "HOSTNAME BOOT_ID pid:[N]". */
static void process_space(char *buf, size_t len)
{
    char hostname[256] = "", boot[64] = "", namespace[64] = "";
    gethostname(hostname, sizeof hostname - 1);
    vp_read_text_file("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    boot[strcspn(boot, "\n")] = '\0';
    ssize_t used = readlink("/proc/self/ns/pid", namespace, sizeof namespace - 1);
    namespace[used > 0 ? used : 0] = '\0';
    snprintf(buf, len, "%s %s %s", hostname, boot, namespace);
}

/* A run still "running" whose process, in this process's space (above), is gone (killed,
 * a crash) never finishes: it is marked "abandoned" so no one waits for it or takes it
 * for complete. A pid now used by another program (not virtperf) counts as gone. A run
 * stored by a virtperf from before process spaces has the bare hostname. */
static void mark_abandoned(struct vp_store *store)
{
    char hostname[256] = "", space[400];
    gethostname(hostname, sizeof hostname - 1);
    process_space(space, sizeof space);
    struct vp_db_statement *statement;
    if (vp_db_prepare(store->db, "SELECT id, pid FROM runs WHERE status = 'running'"
                      " AND pid IS NOT NULL AND pid_host IN (?, ?)", &statement) != 0)
        return;
    vp_db_bind_text(statement, 1, space);
    vp_db_bind_text(statement, 2, hostname);
    int64_t gone[64];
    size_t count = 0;
    while (vp_db_step(statement) == VP_DB_ROW && count < 64) {
        long pid = (long)vp_db_column_int64(statement, 1);
        char path[64], comm[32] = "";
        snprintf(path, sizeof path, "/proc/%ld/comm", pid);
        bool alive = vp_read_text_file(path, comm, sizeof comm) > 0 &&
                     strncmp(comm, "virtperf", 8) == 0;
        if (!alive)
            gone[count++] = vp_db_column_int64(statement, 0);
    }
    vp_db_finalize(statement);
    for (size_t i = 0; i < count; i++)
        vp_store_run_statement(store, "UPDATE runs SET status = 'abandoned' WHERE id = ?", "i", gone[i]);
}

static void new_uuid(char *buf, size_t len)
{
    unsigned char bytes[16] = { 0 };
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, bytes, sizeof bytes) != (ssize_t)sizeof bytes) {
        int64_t now = vp_now_ns();
        memcpy(bytes, &now, sizeof now);
        pid_t pid = getpid();
        memcpy(bytes + 8, &pid, sizeof pid);
    }
    if (fd >= 0)
        close(fd);
    size_t used = 0;
    for (size_t i = 0; i < sizeof bytes && used + 3 <= len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%02x", bytes[i]);
}

/* ours: this process runs the run (it carries our pid: see mark_abandoned); an
 * imported run never does, whatever its status says. 1 with *run_id set, 0 when a run
 * with this uuid is there already (another host put it there first), -1 on an error. */
static int insert_run(struct vp_store *store, const char *uuid, const char *label,
                      const char *started_at, const char *status, const char *command,
                      const json_t *host, bool ours, int64_t *run_id)
{
    /* writers hold the store's one lock, so looking first is exact; ON CONFLICT below
     * only keeps a uuid from being stored twice whatever happens */
    int64_t existing;
    int found = vp_store_run_returning(store, &existing, "SELECT id FROM runs WHERE uuid = ?", "t", uuid);
    if (found != 0)
        return found < 0 ? -1 : 0;
    char *host_text = json_dumps(host, JSON_COMPACT);
    char space[400];
    process_space(space, sizeof space);
    json_t *pid = ours ? json_integer(getpid()) : NULL;
    int rc = vp_store_run_returning(store, run_id,
                           "INSERT INTO runs (uuid, label, started_at, status, command, host_json,"
                           " hostname, pid, pid_host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                           " ON CONFLICT (uuid) DO NOTHING RETURNING id",
                           "tttttttjt", uuid, label, started_at, status, command, host_text,
                           json_string_value(json_object_get(host, "hostname")), pid,
                           pid ? space : NULL);
    json_decref(pid);
    free(host_text);
    return rc;
}

int vp_store_begin_run(struct vp_store *store, const char *label, const char *command,
                       const json_t *host, int64_t *run_id, char *err, size_t err_len)
{
    char uuid[40], started[32];
    new_uuid(uuid, sizeof uuid);
    vp_utc_timestamp(started, sizeof started);
    if (insert_run(store, uuid, label, started, "running", command, host, true, run_id) != 1)
        return vp_store_error(err, err_len, "database: cannot add the run", store);
    return 0;
}

int vp_store_set_run_plan(struct vp_store *store, int64_t run_id, const char *text, char *err,
                          size_t err_len)
{
    if (vp_store_run_statement(store, "UPDATE runs SET plan_text = ? WHERE id = ?", "ti", text,
                      run_id) != 0)
        return vp_store_error(err, err_len, "database: cannot keep the plan", store);
    return 0;
}

int vp_store_finish_run(struct vp_store *store, int64_t run_id, const char *status)
{
    return vp_store_run_statement(store, "UPDATE runs SET status = ? WHERE id = ?", "ti", status, run_id);
}

int vp_store_add_result(struct vp_store *store, int64_t run_id, const json_t *result,
                        char *err, size_t err_len)
{
    if (vp_db_begin_write(store->db) != 0)
        return vp_store_error(err, err_len, "database", store);
    if (vp_store_insert_result(store, run_id, result) != 0) {
        vp_store_error(err, err_len, "database: cannot store the result", store);
        vp_db_rollback(store->db);
        return -1;
    }
    if (vp_db_commit(store->db) != 0)
        return vp_store_error(err, err_len, "database", store);
    return 0;
}

/* status, or VP_STORE_UNAVAILABLE when the store can no longer be reached. */
static int unavailable_or(struct vp_store *store, int status)
{
    return vp_db_lost(store->db) ? VP_STORE_UNAVAILABLE : status;
}

int vp_store_import(struct vp_store *store, const json_t *document, int64_t *run_id,
                    char *err, size_t err_len)
{
    if (vp_document_validate(document, err, err_len) != 0)
        return -1;
    const json_t *run = json_object_get(document, "run");
    const char *uuid = json_string_value(json_object_get(run, "id"));
    const char *status = json_string_value(json_object_get(run, "status"));
    if (vp_db_begin_write(store->db) != 0) {
        vp_store_error(err, err_len, "database", store);
        return unavailable_or(store, -1);
    }
    int failed = 0;
    int inserted = insert_run(store, uuid, json_string_value(json_object_get(run, "label")),
                              json_string_value(json_object_get(run, "started_at")),
                              status ? status : "ok",
                              json_string_value(json_object_get(run, "command")),
                              json_object_get(run, "host"), false, run_id);
    if (inserted == 0) {
        snprintf(err, err_len, "run.id: run %s is already in the database", uuid);
        failed = VP_STORE_ALREADY_THERE;
    } else if (inserted < 0) {
        vp_store_error(err, err_len, "database: cannot add the run", store);
        failed = -1;
    } else if (json_object_get(run, "plan") &&
               vp_store_set_run_plan(store, *run_id,
                                     json_string_value(json_object_get(run, "plan")), err,
                                     err_len) != 0) {
        failed = -1;
    }
    size_t i;
    const json_t *result;
    json_array_foreach(json_object_get(document, "results"), i, result) {
        if (failed)
            break;
        if (vp_store_insert_result(store, *run_id, result) != 0) {
            vp_store_error(err, err_len, "database: cannot store a result", store);
            failed = -1;
        }
    }
    if (failed) {
        vp_db_rollback(store->db);
        return failed == VP_STORE_ALREADY_THERE ? failed : unavailable_or(store, failed);
    }
    if (vp_db_commit(store->db) != 0) {
        vp_store_error(err, err_len, "database: cannot commit the run", store);
        return unavailable_or(store, -1);
    }
    return 0;
}

int vp_store_delete_run(struct vp_store *store, int64_t run_id, char *err, size_t err_len)
{
    int64_t deleted;
    int rc = vp_store_run_returning(store, &deleted, "DELETE FROM runs WHERE id = ? RETURNING id", "i",
                           run_id);
    if (rc < 0)
        return vp_store_error(err, err_len, "database: cannot delete", store);
    if (rc == 0) {
        snprintf(err, err_len, "run %lld: no such run", (long long)run_id);
        return -1;
    }
    return 0;
}

/* The run a reference of one kind names, or 0 (ids start at 1); -1 on a database error. */
static int64_t find_run(struct vp_store *store, const char *query, const char *ref)
{
    struct vp_db_statement *statement;
    if (vp_store_prepare(store, query, &statement) != 0)
        return -1;
    vp_db_bind_text(statement, 1, ref);
    enum vp_db_step stepped = vp_store_step(store, statement);
    int64_t id = stepped == VP_DB_ROW ? vp_db_column_int64(statement, 0)
                 : stepped == VP_DB_DONE ? 0 : -1;
    vp_db_finalize(statement);
    return id;
}
int vp_store_resolve_run(struct vp_store *store, const char *ref, int64_t *run_id,
                         char *err, size_t err_len)
{
    static const struct {
        const char *prefix, *kind, *query;
    } kinds[] = {
        { "id:", "id", "SELECT id FROM runs WHERE CAST(id AS TEXT) = ?1" },
        { "uuid:", "uuid", "SELECT id FROM runs WHERE uuid = ?1" },
        { "", "latest", "SELECT id FROM runs WHERE ?1 = 'latest' ORDER BY id DESC LIMIT 1" },
        { "@", "label", "SELECT id FROM runs WHERE label = ?1 ORDER BY id DESC LIMIT 1" },
    };
    size_t count = sizeof kinds / sizeof kinds[0];
    int64_t found[sizeof kinds / sizeof kinds[0]] = { 0 };
    for (size_t k = 0; k < count; k++) {
        size_t prefix_len = strlen(kinds[k].prefix);
        if (prefix_len && strncmp(ref, kinds[k].prefix, prefix_len) == 0) {
            /* an explicit kind: that kind only */
            int64_t id = find_run(store, kinds[k].query, ref + prefix_len);
            if (id < 0)
                return vp_store_check_reads(store, err, err_len);
            if (id > 0) {
                *run_id = id;
                return 0;
            }
            snprintf(err, err_len, "run %s: no run has that %s (see 'virtperf results list')",
                     ref, kinds[k].kind);
            return -1;
        }
    }
    /* A bare reference may be any kind: it must name one run, whichever kinds match. */
    int64_t chosen = 0;
    bool ambiguous = false;
    char named[256] = "", accepted[256] = "";
    for (size_t k = 0; k < count; k++) {
        if ((found[k] = find_run(store, kinds[k].query, ref)) < 0)
            return vp_store_check_reads(store, err, err_len);
        if (!found[k])
            continue;
        ambiguous = ambiguous || (chosen && found[k] != chosen);
        chosen = found[k];
        char part[96];
        snprintf(part, sizeof part, "%srun %lld (%s)", named[0] ? ", " : "", (long long)found[k],
                 kinds[k].kind);
        strncat(named, part, sizeof named - strlen(named) - 1);
        snprintf(part, sizeof part, "%s%s%.40s", accepted[0] ? ", " : "", kinds[k].prefix,
                 kinds[k].prefix[0] ? ref : "latest");
        strncat(accepted, part, sizeof accepted - strlen(accepted) - 1);
    }
    if (ambiguous) {
        snprintf(err, err_len, "run '%.60s' is ambiguous: it names %s; accepted: one of %s",
                 ref, named, accepted);
        return -1;
    }
    if (chosen) {
        *run_id = chosen;
        return 0;
    }
    snprintf(err, err_len,
             "run '%s': not found; accepted: a run id, run uuid, label, or 'latest' (id:N, "
             "uuid:U, @LABEL name one kind only; see 'virtperf results list')", ref);
    return -1;
}

int vp_store_list_runs(struct vp_store *store,
                       void (*visit)(const struct vp_run_row *row, void *context),
                       void *context, char *err, size_t err_len)
{
    struct vp_db_statement *statement;
    if (vp_store_prepare(store,
                         "SELECT r.id, r.uuid, COALESCE(r.label, ''), r.started_at, r.status,"
                         " COALESCE(r.hostname, ''),"
                         " (SELECT COUNT(*) FROM results WHERE run_id = r.id)"
                         " FROM runs r ORDER BY r.id", &statement) != 0)
        return vp_store_check_reads(store, err, err_len);
    while (vp_store_step(store, statement) == VP_DB_ROW) {
        struct vp_run_row row = {
            .id = vp_db_column_int64(statement, 0),
            .uuid = vp_db_column_text(statement, 1),
            .label = vp_db_column_text(statement, 2),
            .started_at = vp_db_column_text(statement, 3),
            .status = vp_db_column_text(statement, 4),
            .hostname = vp_db_column_text(statement, 5),
            .result_count = (int)vp_db_column_int64(statement, 6),
        };
        if (!row.uuid || !row.started_at || !row.status) { /* NOT NULL columns read as NULL */
            vp_store_note_damage(store, "a run row lacks its uuid, start or status");
            break;
        }
        visit(&row, context);
    }
    vp_db_finalize(statement);
    return vp_store_check_reads(store, err, err_len);
}
