/* The results database (a SQLite file, or a PostgreSQL site store through the same
 * interface: store/db.h): versioned schema with migrations, one run row per
 * `virtperf run` or import, one result row per point, metric values per repetition,
 * per-job values, repetition timing and monitor series. Results go in and come out as
 * the JSON result objects of the virtperf/1 document (store/document.c), so run, export and import share one shape. */
#ifndef VP_STORE_H
#define VP_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VP_SCHEMA_VERSION 11

struct vp_store;

/* $VIRTPERF_DB, else $XDG_DATA_HOME/virtperf/results.db, else
 * ~/.local/share/virtperf/results.db. */
int vp_store_default_path(char *buf, size_t len);

/* vp_store_open: a store that is there but down or refusing (a server not answering, a
 * wrong password, no such database, a read-only role), not a mistake in the target;
 * vp_store_import: a store gone while it wrote (its server's connection lost). */
#define VP_STORE_UNAVAILABLE (-2)
/* vp_store_import: the document's run (its uuid) is stored already; nothing was written. */
#define VP_STORE_ALREADY_THERE (-3)

/* Opens path (a file path, or a postgresql:// URL without a password) and migrates;
 * checks that the database can be written before returning. A database from a newer
 * virtperf is refused. A write that finds the database locked by another process (or
 * host) waits up to $VIRTPERF_DB_TIMEOUT seconds (0..3600, default 60), then fails saying
 * so. On error: -1 (a target that cannot be used as given) or VP_STORE_UNAVAILABLE, with
 * a one-line message in err that never holds a password. */
int vp_store_open(const char *path, struct vp_store **store, char *err, size_t err_len);
void vp_store_close(struct vp_store *store);
/* True when target is a PostgreSQL URL, not a file path. */
bool vp_store_names_server(const char *target);
int vp_store_schema_version(struct vp_store *store);

/* A new run with status "running"; run_id receives its local id. */
int vp_store_begin_run(struct vp_store *store, const char *label, const char *command,
                       const json_t *host, int64_t *run_id, char *err, size_t err_len);
/* Stores one result object (engine output or a validated import) and commits it. */
int vp_store_add_result(struct vp_store *store, int64_t run_id, const json_t *result,
                        char *err, size_t err_len);
/* Keeps the text of the plan file the run was made from (run --plan). */
int vp_store_set_run_plan(struct vp_store *store, int64_t run_id, const char *text, char *err,
                          size_t err_len);
/* status: "ok", "failed" (some result failed) or "interrupted". */
int vp_store_finish_run(struct vp_store *store, int64_t run_id, const char *status);

/* Resolves a run reference: a local id, a run uuid, "latest", or a label (the latest
 * run with that label). */
int vp_store_resolve_run(struct vp_store *store, const char *ref, int64_t *run_id,
                         char *err, size_t err_len);

/* How much of a run a read takes: everything, or summaries: the monitor's column means
 * alone, each a bare number in place of {"mean", "max"} (core/monitor.h's
 * vp_monitor_mean reads either), no series, of the columns the analyses read (cpu.busy, cpu.steal,
 * cpu.idle, runq, faults.*, net.*, network.*, watch.*), each job's metrics as their means
 * alone, no repetition's timing (what compares and tables of runs read: a run's series,
 * per-job values and monitor columns are most of its values). */
enum vp_export_detail { VP_EXPORT_WHOLE, VP_EXPORT_SUMMARIES };

/* The JSON document (schema virtperf/1) of one run, whole or in summaries. */
int vp_store_export_run(struct vp_store *store, int64_t run_id, enum vp_export_detail detail,
                        json_t **document, char *err, size_t err_len);

/* Validates a document (vp_document_validate) and stores it as a new run in one
 * transaction: a refused document writes nothing, and a run whose uuid is stored already
 * (another host pushed it first) is VP_STORE_ALREADY_THERE; a store gone meanwhile is
 * VP_STORE_UNAVAILABLE. */
int vp_store_import(struct vp_store *store, const json_t *document, int64_t *run_id,
                    char *err, size_t err_len);

int vp_store_delete_run(struct vp_store *store, int64_t run_id, char *err, size_t err_len);

struct vp_run_row {
    int64_t id;
    const char *uuid, *label, *started_at, *status, *hostname;
    int result_count;
};
/* The newest result of each benchmark and parameter set among the recent_runs newest
 * runs whose fingerprint names hostname, newest first, as a new JSON array. */
int vp_store_newest_results(struct vp_store *store, const char *hostname, int recent_runs,
                            json_t **results, char *err, size_t err_len);

/* Calls visit for each run, oldest first. */
int vp_store_list_runs(struct vp_store *store,
                       void (*visit)(const struct vp_run_row *row, void *context),
                       void *context, char *err, size_t err_len);

/* Every read above fails whole (-1) when the database refused a step of it: a malformed
 * page, an I/O error, a lost connection, a stored JSON text that does not parse. This
 * says so in err: "database PATH: the engine's message (PRAGMA integrity_check: its first
 * line, or whether the server still answers)"; 0 when every read
 * so far succeeded. vp_store_damaged tells such a failure from a refused reference. */
int vp_store_check_reads(struct vp_store *store, char *err, size_t err_len);
bool vp_store_damaged(const struct vp_store *store);

#endif
