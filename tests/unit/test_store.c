/* Unit tests for store.c: round trip of results, export/import, migrations, refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/options.h"
#include "fixtures.h"
#include "store/db.h"
#include "store/store.h"
#include "vp_features.h" /* VP_HAVE_LIBPQ */

static struct vp_store *open_store(void)
{
    struct vp_store *store;
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_store_open(db_path, &store, err, sizeof err), 0);
    return store;
}

/* A finished run "bare" on host holding result alone; its id. */
static int64_t store_one_result(struct vp_store *store, const json_t *host, const json_t *result)
{
    char err[VP_ERROR_LEN];
    int64_t run_id;
    assert_int_equal(vp_store_begin_run(store, "bare", "virtperf run", host, &run_id, err,
                                        sizeof err), 0);
    assert_int_equal(vp_store_add_result(store, run_id, result, err, sizeof err), 0);
    assert_int_equal(vp_store_finish_run(store, run_id, "ok"), 0);
    return run_id;
}

static void results_round_trip_through_the_database(void **state)
{
    (void)state;
    struct vp_store *store = open_store();
    char err[VP_ERROR_LEN];
    json_t *host = json_pack("{s:s}", "hostname", "testhost");
    json_t *result = annotated_result();
    int64_t run_id = store_one_result(store, host, result);

    json_t *document;
    assert_int_equal(vp_store_export_run(store, run_id, VP_EXPORT_WHOLE,
                                         &document, err, sizeof err), 0);
    assert_string_equal(json_string_value(json_object_get(document, "schema")), "virtperf/1");
    const json_t *run = json_object_get(document, "run");
    assert_string_equal(json_string_value(json_object_get(run, "label")), "bare");
    assert_string_equal(json_string_value(json_object_get(run, "status")), "ok");
    assert_true(json_equal(json_object_get(run, "host"), host));
    json_t *exported = json_array_get(json_object_get(document, "results"), 0);
    char *want = json_dumps(result, JSON_SORT_KEYS), *got = json_dumps(exported, JSON_SORT_KEYS);
    assert_string_equal(got, want);
    free(want);
    free(got);

    /* The exported document imports back as a new copy only once. */
    int64_t imported_id;
    assert_int_equal(vp_store_import(store, document, &imported_id, err, sizeof err),
                     VP_STORE_ALREADY_THERE);
    assert_non_null(strstr(err, "already in the database"));
    assert_int_equal(vp_store_delete_run(store, run_id, err, sizeof err), 0);
    assert_int_equal(vp_store_import(store, document, &imported_id, err, sizeof err), 0);
    json_t *again;
    assert_int_equal(vp_store_export_run(store, imported_id, VP_EXPORT_WHOLE,
                                         &again, err, sizeof err), 0);
    assert_true(json_equal(again, document));

    json_decref(again);
    json_decref(document);
    json_decref(result);
    json_decref(host);
    vp_store_close(store);
}

/* A monitor column of two samples, its series and summary, into monitor. */
static void add_monitor_column(json_t *monitor, const char *name, double first, double second)
{
    json_object_set_new(json_object_get(monitor, "series"), name,
                        json_pack("[f,f]", first, second));
    json_object_set_new(json_object_get(monitor, "summary"), name,
                        json_pack("{s:f,s:f}", "mean", (first + second) / 2, "max", second));
}

/* A read of summaries (what compare and scaling take): the result's metrics whole, the
 * monitor's summary without its series, of the columns the analyses read, each as its
 * bare mean, each job's metric as its mean alone, no timing; the rest as a whole read has
 * it. */
static void a_read_of_summaries_leaves_series_and_job_values_out(void **state)
{
    (void)state;
    struct vp_store *store = open_store();
    char err[VP_ERROR_LEN];
    json_t *host = json_pack("{s:s}", "hostname", "testhost");
    json_t *result = annotated_result();
    add_monitor_column(json_object_get(result, "monitor"), "cpu.user", 60.0, 62.0);
    add_monitor_column(json_object_get(result, "monitor"), "net.eth0.rx", 1e6, 3e6);
    int64_t run_id = store_one_result(store, host, result);
    json_t *whole, *summaries;
    assert_int_equal(vp_store_export_run(store, run_id, VP_EXPORT_WHOLE, &whole, err,
                                         sizeof err), 0);
    assert_int_equal(vp_store_export_run(store, run_id, VP_EXPORT_SUMMARIES, &summaries, err,
                                         sizeof err), 0);
    json_t *read = json_array_get(json_object_get(summaries, "results"), 0);
    const json_t *monitor = json_object_get(read, "monitor");
    assert_null(json_object_get(monitor, "series"));
    json_t *means = json_pack("{s:f,s:f}", "cpu.busy", 99.75, "net.eth0.rx", 2e6);
    assert_true(json_equal(json_object_get(monitor, "summary"), means));
    json_decref(means);
    assert_null(json_object_get(read, "timing"));
    const json_t *job = json_object_get(json_object_get(json_array_get(
        json_object_get(read, "per_job"), 1), "metrics"), "triad");
    assert_int_equal(json_object_size(job), 1);
    assert_float_equal(json_real_value(json_object_get(job, "mean")), 5.06e9, 1e3);
    /* the rest is the whole read's */
    json_t *expected = json_deep_copy(json_array_get(json_object_get(whole, "results"), 0));
    json_object_del(json_object_get(expected, "monitor"), "series");
    json_object_set(json_object_get(expected, "monitor"), "summary",
                    json_object_get(monitor, "summary"));
    json_object_del(expected, "timing");
    json_object_del(expected, "per_job");
    json_object_del(read, "per_job");
    assert_true(json_equal(read, expected));
    json_decref(expected);
    json_decref(summaries);
    json_decref(whole);
    json_decref(result);
    json_decref(host);
    vp_store_close(store);
}

/* Stores one copy of annotated_result() with params {"n": n} and pin as given. */
static void add_variant(struct vp_store *store, int64_t run_id, int n, const char *pin)
{
    char err[VP_ERROR_LEN];
    json_t *result = annotated_result();
    json_object_set_new(result, "params", json_pack("{s:i}", "n", n));
    json_object_set_new(result, "pin", json_string(pin));
    assert_int_equal(vp_store_add_result(store, run_id, result, err, sizeof err), 0);
    json_decref(result);
}

static int64_t begin_on(struct vp_store *store, const char *hostname)
{
    char err[VP_ERROR_LEN];
    json_t *host = json_pack("{s:s}", "hostname", hostname);
    int64_t run_id;
    assert_int_equal(vp_store_begin_run(store, NULL, "x", host, &run_id, err, sizeof err), 0);
    json_decref(host);
    return run_id;
}

static void newest_result_of_each_configuration_on_one_host(void **state)
{
    (void)state;
    struct vp_store *store = open_store();
    char err[VP_ERROR_LEN];
    int64_t old_run = begin_on(store, "a");
    add_variant(store, old_run, 1, "old");
    add_variant(store, old_run, 2, "old");
    add_variant(store, begin_on(store, "b"), 1, "other host");
    add_variant(store, begin_on(store, "a"), 1, "new");

    json_t *newest;
    assert_int_equal(vp_store_newest_results(store, "a", 50, &newest, err, sizeof err), 0);
    assert_int_equal(json_array_size(newest), 2);
    const json_t *first = json_array_get(newest, 0), *second = json_array_get(newest, 1);
    assert_string_equal(json_string_value(json_object_get(first, "pin")), "new");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(first, "params"), "n")), 1);
    assert_string_equal(json_string_value(json_object_get(second, "pin")), "old");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(second, "params"), "n")), 2);
    json_decref(newest);

    /* only the newest run of host a */
    assert_int_equal(vp_store_newest_results(store, "a", 1, &newest, err, sizeof err), 0);
    assert_int_equal(json_array_size(newest), 1);
    json_decref(newest);
    assert_int_equal(vp_store_newest_results(store, "c", 50, &newest, err, sizeof err), 0);
    assert_int_equal(json_array_size(newest), 0);
    json_decref(newest);
    vp_store_close(store);
}

static void runs_resolve_by_id_label_uuid_and_latest(void **state)
{
    (void)state;
    struct vp_store *store = open_store();
    char err[VP_ERROR_LEN + 256];
    json_t *host = json_object();
    int64_t first, second, found;
    assert_int_equal(vp_store_begin_run(store, "kvm", "x", host, &first, err, sizeof err), 0);
    assert_int_equal(vp_store_begin_run(store, "kvm", "x", host, &second, err, sizeof err), 0);
    char ref[32];
    snprintf(ref, sizeof ref, "%lld", (long long)first);
    assert_int_equal(vp_store_resolve_run(store, ref, &found, err, sizeof err), 0);
    assert_int_equal(found, first);
    assert_int_equal(vp_store_resolve_run(store, "kvm", &found, err, sizeof err), 0);
    assert_int_equal(found, second);
    assert_int_equal(vp_store_resolve_run(store, "latest", &found, err, sizeof err), 0);
    assert_int_equal(found, second);
    assert_int_equal(vp_store_resolve_run(store, "xen", &found, err, sizeof err), -1);
    assert_non_null(strstr(err, "run 'xen': not found"));
    json_t *document;
    assert_int_equal(vp_store_export_run(store, first, VP_EXPORT_WHOLE,
                                         &document, err, sizeof err), 0);
    const char *uuid = json_string_value(json_object_get(json_object_get(document, "run"), "id"));
    assert_int_equal(vp_store_resolve_run(store, uuid, &found, err, sizeof err), 0);
    assert_int_equal(found, first);
    json_decref(document);
    json_decref(host);
    vp_store_close(store);
}

static void set_user_version(int version, const char *extra_sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    char sql[4096];
    assert_true((size_t)snprintf(sql, sizeof sql, "%s PRAGMA user_version = %d;", extra_sql,
                                 version) < sizeof sql);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static int index_exists(const char *name)
{
    sqlite3 *db;
    sqlite3_stmt *statement;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", -1,
                       &statement, NULL);
    sqlite3_bind_text(statement, 1, name, -1, SQLITE_STATIC);
    int found = sqlite3_step(statement) == SQLITE_ROW;
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return found;
}

static void remember_hostname(const struct vp_run_row *row, void *context)
{
    snprintf(context, 64, "%s", row->hostname);
}

static void migrations_bring_old_databases_forward(void **state)
{
    (void)state;
    struct vp_store *store = open_store();
    assert_int_equal(vp_store_schema_version(store), VP_SCHEMA_VERSION);
    vp_store_close(store);
    assert_true(index_exists("results_by_run"));
    /* A version-1 database (before the indexes) is migrated on open, keeping its runs. */
    set_user_version(1, "DROP INDEX results_by_run; DROP INDEX runs_by_label;"
                        "ALTER TABLE runs DROP COLUMN hostname;"
                        "ALTER TABLE metrics DROP COLUMN position;"
                        "ALTER TABLE results DROP COLUMN parts_json;"
                        "ALTER TABLE results DROP COLUMN monitor_nics_json;"
                        "ALTER TABLE runs DROP COLUMN pid;"
                        "ALTER TABLE runs DROP COLUMN pid_host;"
                        "ALTER TABLE runs DROP COLUMN plan_text;"
                        "DROP TABLE metric_distributions;"
                        "INSERT INTO runs (uuid, started_at, status, host_json)"
                        " VALUES ('old', 'then', 'ok', '{\"hostname\":\"oldhost\"}');");
    assert_false(index_exists("results_by_run"));
    store = open_store();
    assert_int_equal(vp_store_schema_version(store), VP_SCHEMA_VERSION);
    int64_t found;
    char err[VP_ERROR_LEN + 256];
    assert_int_equal(vp_store_resolve_run(store, "old", &found, err, sizeof err), 0);
    /* version 11 keeps the fingerprint's hostname in a column of its own */
    char hostname[64] = "";
    assert_int_equal(vp_store_list_runs(store, remember_hostname, hostname, err, sizeof err), 0);
    assert_string_equal(hostname, "oldhost");
    vp_store_close(store);
    assert_true(index_exists("results_by_run"));
}

/* A version-8 database kept each optional part in a column of its own: migrating moves
 * them into parts_json, and the result exports with every part as it was. */
static void parts_move_from_their_columns_into_one(void **state)
{
    (void)state;
    struct vp_store *store = open_store();
    vp_store_close(store);
    set_user_version(8, "ALTER TABLE results DROP COLUMN parts_json;"
                        "ALTER TABLE runs DROP COLUMN hostname;"
                        "ALTER TABLE metrics DROP COLUMN position;"
                        "ALTER TABLE results DROP COLUMN monitor_nics_json;"
                        "ALTER TABLE results ADD COLUMN warnings_json TEXT;"
                        "ALTER TABLE results ADD COLUMN device_json TEXT;"
                        "ALTER TABLE results ADD COLUMN peer_json TEXT;"
                        "ALTER TABLE results ADD COLUMN intervals_json TEXT;"
                        "ALTER TABLE results ADD COLUMN load_json TEXT;"
                        "ALTER TABLE results ADD COLUMN idle_json TEXT;"
                        "ALTER TABLE results ADD COLUMN ranks_json TEXT;"
                        "ALTER TABLE results ADD COLUMN timeline_json TEXT;"
                        "ALTER TABLE results ADD COLUMN data_json TEXT;"
                        "ALTER TABLE results ADD COLUMN step_json TEXT;"
                        "INSERT INTO runs (id, uuid, started_at, status, host_json)"
                        " VALUES (1, 'old', '2026-01-01T00:00:00Z', 'ok', '{}');"
                        "INSERT INTO results (run_id, seq, bench, params_json, jobs, pin, reps,"
                        " warmup, status, started_at, warnings_json, peer_json, step_json)"
                        " VALUES (1, 0, 'net.rr', '{}', 1, 'none', 1, 0, 'ok',"
                        " '2026-01-01T00:00:00Z', '[\"slow\"]', '{\"port\":7310}', '\"rpc\"');");
    store = open_store();
    assert_int_equal(vp_store_schema_version(store), VP_SCHEMA_VERSION);
    char err[VP_ERROR_LEN + 256];
    int64_t found;
    json_t *document;
    assert_int_equal(vp_store_resolve_run(store, "old", &found, err, sizeof err), 0);
    assert_int_equal(vp_store_export_run(store, found, VP_EXPORT_WHOLE,
                                         &document, err, sizeof err), 0);
    const json_t *result = json_array_get(json_object_get(document, "results"), 0);
    assert_string_equal(json_string_value(json_array_get(json_object_get(result, "warnings"), 0)),
                        "slow");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(result, "peer"), "port")),
                     7310);
    assert_string_equal(json_string_value(json_object_get(result, "step")), "rpc");
    assert_null(json_object_get(result, "device"));
    json_decref(document);
    vp_store_close(store);
}

static void newer_and_unwritable_databases_are_refused(void **state)
{
    (void)state;
    struct vp_store *store = open_store();
    vp_store_close(store);
    set_user_version(99, "");
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_store_open(db_path, &store, err, sizeof err), -1);
    assert_non_null(strstr(err, "schema version 99 is newer"));
    assert_int_equal(vp_store_open("/dev/null/results.db", &store, err, sizeof err), -1);
    assert_non_null(strstr(err, "--db /dev/null/results.db"));
}

/* A URL's password never shows: in the user part or as a query option; a path and a URL
 * without one show as they are; a URL with one is refused before any connection. */
static void a_url_shows_without_its_password(void **state)
{
    (void)state;
    char shown[256];
    vp_db_shown_target("postgresql://site:s3cret@db:5432/campaign", shown, sizeof shown);
    assert_string_equal(shown, "postgresql://site:***@db:5432/campaign");
    vp_db_shown_target("postgres://site@db/c?sslmode=require&password=s3cret&x=1", shown,
                       sizeof shown);
    assert_string_equal(shown, "postgres://site@db/c?sslmode=require&password=***&x=1");
    /* libpq decodes the key: a percent-encoded password is one too */
    vp_db_shown_target("postgresql://site@db/c?pass%77ord=SECRET&x=%41", shown, sizeof shown);
    assert_string_equal(shown, "postgresql://site@db/c?password=***&x=%41");
    vp_db_shown_target("postgresql://site@db/c?%70%61ssword=SECRET", shown, sizeof shown);
    assert_string_equal(shown, "postgresql://site@db/c?password=***");
    vp_db_shown_target("postgresql://site@db/c?passwords=x&pass%7=y", shown, sizeof shown);
    assert_string_equal(shown, "postgresql://site@db/c?passwords=x&pass%7=y");
    vp_db_shown_target("postgresql://site@db/campaign", shown, sizeof shown);
    assert_string_equal(shown, "postgresql://site@db/campaign");
    vp_db_shown_target("/tmp/a:b@c/results.db", shown, sizeof shown);
    assert_string_equal(shown, "/tmp/a:b@c/results.db");
    assert_true(vp_db_is_url("postgres://h/d"));
    assert_false(vp_db_is_url("postgresql:/h/d"));
    struct vp_store *store;
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_store_open("postgresql://site:s3cret@127.0.0.1:1/campaign", &store, err,
                                   sizeof err), -1);
    assert_null(strstr(err, "s3cret"));
#ifdef VP_HAVE_LIBPQ
    assert_non_null(strstr(err, "the URL carries a password"));
#else
    assert_non_null(strstr(err, "built without PostgreSQL"));
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(results_round_trip_through_the_database, make_path,
                                        remove_path),
        cmocka_unit_test_setup_teardown(a_read_of_summaries_leaves_series_and_job_values_out,
                                        make_path, remove_path),
        cmocka_unit_test_setup_teardown(newest_result_of_each_configuration_on_one_host,
                                        make_path, remove_path),
        cmocka_unit_test_setup_teardown(runs_resolve_by_id_label_uuid_and_latest, make_path,
                                        remove_path),
        cmocka_unit_test_setup_teardown(migrations_bring_old_databases_forward, make_path,
                                        remove_path),
        cmocka_unit_test_setup_teardown(parts_move_from_their_columns_into_one, make_path,
                                        remove_path),
        cmocka_unit_test_setup_teardown(newer_and_unwritable_databases_are_refused, make_path,
                                        remove_path),
        cmocka_unit_test(a_url_shows_without_its_password),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
