/* Unit tests for document.c: a valid document passes; each malformed or hostile one is
 * refused with a message naming the JSON path, and an import of it writes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/options.h"
#include "fixtures.h"
#include "store/document.h"
#include "store/store.h"

static void a_valid_document_passes(void **state)
{
    (void)state;
    json_t *document = fixture_document("abc123");
    char err[VP_ERROR_LEN] = "";
    assert_int_equal(vp_document_validate(document, err, sizeof err), 0);
    json_decref(document);
}

typedef void (*mutation)(json_t *document);

static json_t *first_result(json_t *document)
{
    return json_array_get(json_object_get(document, "results"), 0);
}

static json_t *triad(json_t *document)
{
    return json_object_get(json_object_get(first_result(document), "metrics"), "triad");
}

static void wrong_schema(json_t *d) { json_object_set_new(d, "schema", json_string("virtperf/2")); }
static void no_run(json_t *d) { json_object_del(d, "run"); }
static void bad_run_id(json_t *d) { json_object_set_new(json_object_get(d, "run"), "id", json_string("a b")); }
static void results_not_array(json_t *d) { json_object_set_new(d, "results", json_object()); }
static void bad_bench(json_t *d) { json_object_set_new(first_result(d), "bench", json_string("x;drop")); }
static void zero_jobs(json_t *d) { json_object_set_new(first_result(d), "jobs", json_integer(0)); }
static void huge_jobs(json_t *d) { json_object_set_new(first_result(d), "jobs", json_integer(1 << 30)); }
static void bad_status(json_t *d) { json_object_set_new(first_result(d), "status", json_string("great")); }
static void bad_better(json_t *d) { json_object_set_new(triad(d), "better", json_string("up")); }
static void lying_mean(json_t *d) { json_object_set_new(triad(d), "mean", json_real(1.0)); }
static void wrong_n(json_t *d) { json_object_set_new(triad(d), "n", json_integer(4)); }
static void string_value(json_t *d) { json_array_set_new(json_object_get(triad(d), "values"), 0, json_string("1")); }
static void object_param(json_t *d) { json_object_set_new(json_object_get(first_result(d), "params"), "size", json_object()); }
static void short_series(json_t *d)
{
    json_t *monitor = json_object_get(first_result(d), "monitor");
    json_array_remove(json_object_get(json_object_get(monitor, "series"), "t"), 0);
}
static void too_many_jobs_listed(json_t *d) { json_object_set_new(first_result(d), "jobs", json_integer(1)); }
static void metrics_missing(json_t *d) { json_object_del(first_result(d), "metrics"); }
static void warnings_not_strings(json_t *d) { json_object_set_new(first_result(d), "warnings", json_pack("[i]", 3)); }
static void util_above_100(json_t *d) { json_object_set_new(json_object_get(first_result(d), "device"), "util_mean", json_real(250)); }
static void peer_port_too_big(json_t *d) { json_object_set_new(json_object_get(first_result(d), "peer"), "port", json_integer(70000)); }
static void interval_not_number(json_t *d) { json_array_set_new(json_array_get(json_object_get(json_object_get(first_result(d), "intervals"), "reps"), 0), 0, json_string("x")); }
/* A guests part whose settings name a disk bus there is none of (and, first, one a
 * guest's QEMU left below zero: what import refuses, the host never stores). */
static void guests_with(json_t *d, json_t *settings, double other_cpu_pct)
{
    json_object_set_new(first_result(d), "guests",
                        json_pack("{s:i,s:s,s:s,s:[{s:s,s:f}],s:o}", "count", 1, "engine",
                                  "libvirt", "accel", "tcg", "hosts", "name", "virtperf-1-1",
                                  "qemu_other_cpu_pct", other_cpu_pct, "settings", settings));
}
static void guest_cpu_below_zero(json_t *d) { guests_with(d, json_pack("{s:i,s:i}", "cpus", 1, "memory_mib", 512), -0.56); }
static void guest_disk_bus_unknown(json_t *d) { guests_with(d, json_pack("{s:i,s:i,s:s}", "cpus", 1, "memory_mib", 512, "disk_bus", "floppy"), 1); }
static void guest_nic_unknown(json_t *d) { guests_with(d, json_pack("{s:i,s:i,s:s}", "cpus", 1, "memory_mib", 512, "nic", "ne2k"), 1); }

static void malformed_documents_are_refused(void **state)
{
    (void)state;
    static const struct { mutation mutate; const char *expected; } cases[] = {
        { wrong_schema, "schema: 'virtperf/2' not supported; accepted: virtperf/1" },
        { no_run, "run: accepted: an object" },
        { bad_run_id, "run.id:" },
        { results_not_array, "results: accepted: an array" },
        { bad_bench, "results[0].bench:" },
        { zero_jobs, "results[0].jobs: accepted: a whole number from 1" },
        { huge_jobs, "results[0].jobs:" },
        { bad_status, "results[0].status: not accepted; accepted: ok, failed, interrupted" },
        { bad_better, "results[0].metrics.triad.better" },
        { lying_mean, "results[0].metrics.triad.mean: does not match its values" },
        { wrong_n, "results[0].metrics.triad.n" },
        { string_value, "results[0].metrics.triad.values[0]: accepted: a finite number" },
        { object_param, "results[0].params.size" },
        { short_series, "results[0].monitor.series.t: has 1 values" },
        { too_many_jobs_listed, "results[0].per_job: accepted: an array of at most 1" },
        { metrics_missing, "results[0].metrics: accepted: an object" },
        { warnings_not_strings, "results[0].warnings[0]: accepted: a string" },
        { util_above_100, "results[0].device.util_mean: accepted: a number from 0 to 100" },
        { peer_port_too_big, "results[0].peer.port: accepted: a whole number from 0 to 65535" },
        { interval_not_number, "results[0].intervals.reps[0][0]: accepted: a finite number" },
        { guest_cpu_below_zero, "results[0].guests.hosts[0].qemu_other_cpu_pct: accepted: a number from 0" },
        { guest_disk_bus_unknown, "results[0].guests.settings.disk_bus: not accepted; accepted: virtio, ide, sata, scsi" },
        { guest_nic_unknown, "results[0].guests.settings.nic: not accepted; accepted: virtio, e1000, e1000e, rtl8139" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *document = fixture_document("abc123");
        cases[i].mutate(document);
        char err[VP_ERROR_LEN] = "";
        assert_int_equal(vp_document_validate(document, err, sizeof err), -1);
        if (!strstr(err, cases[i].expected))
            fail_msg("case %zu: got '%s', want '%s'", i, err, cases[i].expected);
        json_decref(document);
    }
    char err[VP_ERROR_LEN];
    json_t *not_object = json_array();
    assert_int_equal(vp_document_validate(not_object, err, sizeof err), -1);
    json_decref(not_object);
}

/* 1 when the store holds any run, else 0. */
static int has_runs(struct vp_store *store)
{
    char err[VP_ERROR_LEN + 256];
    int64_t id;
    return vp_store_resolve_run(store, "latest", &id, err, sizeof err) == 0;
}

static void a_refused_import_writes_nothing(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/vp-test-document-%d.db", (int)getpid());
    unlink(path);
    struct vp_store *store;
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_store_open(path, &store, err, sizeof err), 0);
    json_t *document = fixture_document("abc123");
    json_t *second = fixture_result();
    json_object_set_new(json_object_get(second, "metrics"), "bad name!", json_object());
    json_array_append_new(json_object_get(document, "results"), second);
    int64_t run_id;
    assert_int_equal(vp_store_import(store, document, &run_id, err, sizeof err), -1);
    assert_non_null(strstr(err, "results[1].metrics"));
    assert_int_equal(has_runs(store), 0);
    json_decref(document);
    vp_store_close(store);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_valid_document_passes),
        cmocka_unit_test(malformed_documents_are_refused),
        cmocka_unit_test(a_refused_import_writes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
