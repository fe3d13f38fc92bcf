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

#include "core/options.h"
#include "engine/parts.h"
#include "fixtures.h"
#include "analysis/shown.h"
#include "render/table.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_benchmark_declares_it_and_the_registry_finds_it),
        cmocka_unit_test_setup_teardown(it_round_trips_through_store_export_import_and_print,
                                        make_path, remove_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
