/* Unit tests for result parts declared by a benchmark (bench.h's struct vp_result_part,
 * engine/parts.h): the hidden null benchmark declares "known" in bench/null.c and
 * nowhere else, and it goes through the store, export, import's checks and the result
 * table like every other part. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/limits.h"
#include "core/options.h"
#include "engine/parts.h"
#include "fixtures.h"
#include "analysis/shown.h"
#include "render/table.h"
#include "store/document.h"
#include "store/store.h"

/* A result of the null benchmark carrying its part. */
static json_t *known_result(json_t *known)
{
    json_t *result = fixture_result();
    json_object_set_new(result, "bench", json_string("null"));
    json_object_set_new(result, "known", known);
    return result;
}

static void the_benchmark_declares_it_and_the_registry_finds_it(void **state)
{
    (void)state;
    const struct vp_result_part *part = vp_result_part_find("known");
    assert_non_null(part);
    assert_non_null(part->check);
    assert_non_null(part->print);
    assert_non_null(vp_result_part_find("device"));    /* a disk benchmark's */
    assert_non_null(vp_result_part_find("intervals")); /* the engine's */
    assert_null(vp_result_part_find("nosuch"));
}

static void it_round_trips_through_store_export_import_and_print(void **state)
{
    (void)state;
    struct vp_store *store;
    char err[VP_ERROR_LEN + 256];
    assert_int_equal(vp_store_open(db_path, &store, err, sizeof err), 0);
    json_t *host = json_pack("{s:s}", "hostname", "testhost");
    int64_t run_id;
    assert_int_equal(vp_store_begin_run(store, "parts", "virtperf run null", host, &run_id, err,
                                        sizeof err), 0);
    json_t *result = known_result(json_pack("{s:i}", "jobs", 2));
    json_object_set_new(result, "undeclared", json_string("not kept"));
    assert_int_equal(vp_store_add_result(store, run_id, result, err, sizeof err), 0);
    assert_int_equal(vp_store_finish_run(store, run_id, "ok"), 0);

    json_t *document;
    assert_int_equal(vp_store_export_run(store, run_id, VP_EXPORT_WHOLE,
                                         &document, err, sizeof err), 0);
    const json_t *exported = json_array_get(json_object_get(document, "results"), 0);
    assert_true(json_equal(json_object_get(exported, "known"), json_object_get(result, "known")));
    assert_null(json_object_get(exported, "undeclared")); /* what nothing declared is dropped */

    /* import: accepted as exported, then refused with the part's own message */
    assert_int_equal(vp_store_delete_run(store, run_id, err, sizeof err), 0);
    int64_t imported;
    assert_int_equal(vp_store_import(store, document, &imported, err, sizeof err), 0);
    json_t *again;
    assert_int_equal(vp_store_export_run(store, imported, VP_EXPORT_WHOLE,
                                         &again, err, sizeof err), 0);
    assert_true(json_equal(again, document));
    json_t *bad = json_deep_copy(document);
    json_object_set_new(json_array_get(json_object_get(bad, "results"), 0), "known",
                        json_pack("{s:i}", "jobs", 0));
    json_object_set_new(json_object_get(bad, "run"), "id", json_string("another"));
    assert_int_equal(vp_store_import(store, bad, &imported, err, sizeof err), -1);
    assert_non_null(strstr(err, "results[0].known.jobs"));

    /* the result's table prints it as its benchmark says */
    char *printed;
    size_t len;
    FILE *out = open_memstream(&printed, &len);
    assert_non_null(out);
    json_t *shown = vp_result_shown(exported);
    vp_print_result(out, exported, shown, VP_UNITS_FIELD);
    json_decref(shown);
    fclose(out);
    assert_non_null(strstr(printed, "  known: 2 jobs\n"));
    free(printed);

    json_decref(bad);
    json_decref(again);
    json_decref(document);
    json_decref(result);
    json_decref(host);
    vp_store_close(store);
}

/* What the part called key prints of value (malloc'd). */
static char *printed_part(const char *key, const json_t *value)
{
    char *printed;
    size_t len;
    FILE *out = open_memstream(&printed, &len);
    assert_non_null(out);
    vp_result_part_find(key)->print(out, value, VP_UNITS_FIELD);
    fclose(out);
    return printed;
}

/* --migrate-to's moves (the engine's "migrations" part): checked as import checks them,
 * printed with libvirt's figures beside the probe's gap. */
static void migrations_are_checked_and_printed(void **state)
{
    (void)state;
    json_t *result = known_result(json_pack("{s:i}", "jobs", 1));
    json_t *moved = json_pack(
        "{s:s,s:s,s:s,s:f,s:s,s:s,s:f,s:s,s:f,s:f,s:f,s:f,s:f,s:s,s:f,s:b}", "guest", "virtperf-1-1",
        "from", "qemu:///system", "to", "qemu+ssh://hv2/system", "began_s", 2.0, "began_utc",
        "2026-12-07T10:47:22.807Z", "ended_utc", "2026-12-07T10:47:24.212Z", "seconds", 1.4,
        "status", "ok", "total_ms", 1180.0, "downtime_ms", 118.0, "data_bytes", 131973667.0,
        "memory_iterations", 3.0, "probe_gap_s", 0.187, "probe_gap_utc",
        "2026-12-07T10:47:23.872Z", "gap_beyond_downtime_s", 0.069, "probe_covered", 1);
    json_object_set_new(result, "migrations", json_pack("[o]", moved));
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_result_validate(result, "results[0]", err, sizeof err), 0);

    char *printed = printed_part("migrations", json_object_get(result, "migrations"));
    assert_non_null(strstr(printed, "migration of virtperf-1-1 at 2.00 s, qemu:///system -> "
                                    "qemu+ssh://hv2/system: libvirt: downtime 118 ms, total "
                                    "1180 ms, 125.9 MiB in 3 passes; net.probe from this host: "
                                    "187 ms without answers, +69 ms beside the downtime"));
    free(printed);

    json_object_set_new(moved, "status", json_string("maybe"));
    assert_int_equal(vp_result_validate(result, "results[0]", err, sizeof err), -1);
    assert_non_null(strstr(err, "results[0].migrations[0].status"));
    json_object_set_new(moved, "status", json_string("ok"));
    json_object_set_new(moved, "downtime_ms", json_real(-1));
    assert_int_equal(vp_result_validate(result, "results[0]", err, sizeof err), -1);
    assert_non_null(strstr(err, "results[0].migrations[0].downtime_ms"));
    json_object_set_new(moved, "downtime_ms", json_real(118));
    json_object_set_new(moved, "probe_covered", json_string("yes"));
    assert_int_equal(vp_result_validate(result, "results[0]", err, sizeof err), -1);
    assert_non_null(strstr(err, "probe_covered"));

    json_t *none = json_array(); /* none begun before the point ended */
    printed = printed_part("migrations", none);
    assert_non_null(strstr(printed, "migration: none: the point ended before --migrate-at"));
    free(printed);
    json_decref(none);
    json_decref(result);
}

/* virtperf-mpi's "hypervisors": each host's aggregate of its members, checked as import
 * checks it and printed a line each. */
static void hypervisors_are_checked_and_printed(void **state)
{
    (void)state;
    json_t *result = known_result(json_pack("{s:i}", "jobs", 1));
    json_t *host = json_pack("{s:i,s:s,s:i,s:i,s:s,s:f,s:f,s:{s:{s:s,s:f,s:f,s:f}},"
                             "s:{s:{s:f,s:f},s:{s:f,s:f}}}",
                             "rank", 1, "host", "blade2", "members", 2, "first_member", 3,
                             "status", "ok", "clock_offset_s", -1e-5, "clock_bound_s", 2e-4,
                             "metrics", "score", "unit", "ops/s", "mean", 3.3e8, "min", 3.2e8,
                             "max", 3.4e8, "monitor", "cpu.busy", "mean", 97.5, "max", 100.0,
                             "cpu.steal", "mean", 0.25, "max", 4.0);
    json_object_set_new(result, "hypervisors", json_pack("[o]", host));
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_result_validate(result, "results[0]", err, sizeof err), 0);

    char *printed = printed_part("hypervisors", json_object_get(result, "hypervisors"));
    assert_non_null(strstr(printed, "  hypervisor rank 1 (blade2): members 3-4 ok, score 330 M"));
    assert_non_null(strstr(printed, "cpu busy 98% steal 0.2%"));
    free(printed);

    json_object_set_new(host, "members", json_integer(VP_MAX_GUESTS + 1));
    assert_int_equal(vp_result_validate(result, "results[0]", err, sizeof err), -1);
    assert_non_null(strstr(err, "results[0].hypervisors[0].members"));
    json_object_set_new(host, "members", json_integer(2));
    json_object_set_new(json_object_get(json_object_get(host, "monitor"), "cpu.busy"), "mean",
                        json_string("busy"));
    assert_int_equal(vp_result_validate(result, "results[0]", err, sizeof err), -1);
    assert_non_null(strstr(err, "results[0].hypervisors[0].monitor.cpu.busy"));
    json_decref(result);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(migrations_are_checked_and_printed),
        cmocka_unit_test(hypervisors_are_checked_and_printed),
        cmocka_unit_test(the_benchmark_declares_it_and_the_registry_finds_it),
        cmocka_unit_test_setup_teardown(it_round_trips_through_store_export_import_and_print,
                                        make_path, remove_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
