/* Unit tests for sides.c: a run of both sides (--and-host) stands as its two sides
 * wherever it is among the runs, each labelled, and a run of groups as each group; other
 * runs stay as they are; the words for what a result's ranks are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <jansson.h>

#include "analysis/sides.h"

/* A run document labelled label, of results on the sides named (NULL: a result of no
 * side); the guests' side in containers when engine is "podman". */
static json_t *run_of(const char *label, const char *engine, const char *first,
                      const char *second)
{
    json_t *results = json_array();
    const char *sides[] = { first, second };
    for (size_t s = 0; s < 2; s++) {
        json_t *result = json_pack("{s:s}", "bench", "cpu");
        if (sides[s])
            json_object_set_new(result, "side", json_pack("{s:s}", "name", sides[s]));
        if (sides[s] && strcmp(sides[s], "guests") == 0)
            json_object_set_new(result, "guests", json_pack("{s:s}", "engine", engine));
        json_array_append_new(results, result);
    }
    return json_pack("{s:{s:s},s:o}", "run", "label", label, "results", results);
}

static const char *label_of(const json_t *document)
{
    return json_string_value(json_object_get(json_object_get(document, "run"), "label"));
}

static void a_run_of_both_sides_stands_as_two_in_its_place(void **state)
{
    (void)state;
    json_t *documents[8] = {
        run_of("base", "libvirt", NULL, NULL),
        run_of("ihep", "libvirt", "host", "guests"),
        run_of("boxes", "podman", "guests", "host"),
    };
    size_t count = vp_runs_by_side(documents, 3, 8);
    assert_int_equal(count, 5);
    const char *want[] = { "base", "ihep (host)", "ihep (guests)", "boxes (host)",
                           "boxes (containers)" };
    for (size_t d = 0; d < count; d++) {
        assert_string_equal(label_of(documents[d]), want[d]);
        if (d > 0) /* each side holds its own results alone */
            assert_int_equal(json_array_size(json_object_get(documents[d], "results")), 1);
    }
    for (size_t d = 0; d < count; d++)
        json_decref(documents[d]);
}

static void a_run_of_groups_stands_as_each_group_in_order(void **state)
{
    (void)state;
    json_t *documents[8] = {
        run_of("cnaf", "libvirt", "pv", "emu"),
        run_of("base", "libvirt", NULL, NULL),
    };
    /* a third group, after the first two's results */
    json_t *third = json_pack("{s:s,s:{s:s}}", "bench", "cpu", "side", "name", "boxes");
    json_array_append_new(json_object_get(documents[0], "results"), third);
    size_t count = vp_runs_by_side(documents, 2, 8);
    assert_int_equal(count, 4);
    const char *want[] = { "cnaf (pv)", "cnaf (emu)", "cnaf (boxes)", "base" };
    for (size_t d = 0; d < count; d++) {
        assert_string_equal(label_of(documents[d]), want[d]);
        json_decref(documents[d]);
    }
}

static void sides_beyond_the_room_leave_the_runs_as_they_were(void **state)
{
    (void)state;
    json_t *documents[2] = { run_of("ihep", "libvirt", "host", "guests"),
                             run_of("base", "libvirt", NULL, NULL) };
    json_t *first = documents[0];
    assert_int_equal(vp_runs_by_side(documents, 2, 2), 0);
    assert_ptr_equal(documents[0], first);
    assert_string_equal(label_of(documents[1]), "base");
    json_decref(documents[0]);
    json_decref(documents[1]);
}

static void members_are_named_for_their_engine(void **state)
{
    (void)state;
    json_t *guest = json_pack("{s:{s:s}}", "guests", "engine", "libvirt");
    json_t *box = json_pack("{s:{s:s}}", "guests", "engine", "docker");
    json_t *rank = json_pack("{s:{s:i}}", "ranks", "count", 4);
    assert_string_equal(vp_members_word(guest), "guests");
    assert_string_equal(vp_members_word(box), "containers");
    assert_string_equal(vp_members_word(rank), "hosts");
    json_decref(guest);
    json_decref(box);
    json_decref(rank);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_run_of_both_sides_stands_as_two_in_its_place),
        cmocka_unit_test(a_run_of_groups_stands_as_each_group_in_order),
        cmocka_unit_test(sides_beyond_the_room_leave_the_runs_as_they_were),
        cmocka_unit_test(members_are_named_for_their_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
