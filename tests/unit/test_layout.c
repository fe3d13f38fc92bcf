/* Unit tests for the layout of a run over many ranks (engine/layout.c): which ranks run,
 * wait or sit out in each step of a --ranks sweep and of each --topology, that rank 0
 * is in every step, the links each step's result carries, and the refusals when a
 * topology has nothing to run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "engine/layout.h"

static char err[8192];

/* A plan of the words, at one job, built as `virtperf run WORDS` would. */
static void plan_of(struct vp_plan *plan, const char *const *words)
{
    struct vp_plan_request request = { .words = (char *const *)words };
    while (words[request.word_count])
        request.word_count++;
    assert_int_equal(vp_plan_build(&request, plan, err, sizeof err), 0);
}

/* The roles of a step as text, one letter a rank: R run, W wait, - off. */
static const char *roles_text(const struct vp_step *step, int ranks)
{
    static char text[64];
    for (int r = 0; r < ranks; r++)
        text[r] = step->roles[r] == VP_ROLE_RUN ? 'R' : step->roles[r] == VP_ROLE_WAIT ? 'W' : '-';
    text[ranks] = '\0';
    return text;
}

static void a_ranks_sweep_runs_the_first_k(void **state)
{
    (void)state;
    const char *words[] = { "null", NULL };
    struct vp_plan plan;
    plan_of(&plan, words);
    unsigned counts[] = { 1, 2, 4 };
    struct vp_layout layout;
    assert_int_equal(vp_layout_build(&plan, 4, counts, 3, VP_TOPOLOGY_NONE, -1, &layout, err,
                                     sizeof err), 0);
    assert_int_equal(layout.count, 3);
    assert_string_equal(roles_text(&layout.steps[0], 4), "R---");
    assert_string_equal(roles_text(&layout.steps[1], 4), "RR--");
    assert_string_equal(roles_text(&layout.steps[2], 4), "RRRR");
    for (size_t s = 0; s < layout.count; s++)
        for (int r = 0; r < 4; r++)
            assert_int_equal(layout.steps[s].peers[r], -1);
    vp_layout_free(&layout);
    vp_plan_free(&plan);
}

/* Every ordered pair once, alone; rank 0 waits in the steps it is not part of. */
static void the_matrix_is_every_ordered_pair_alone(void **state)
{
    (void)state;
    const char *words[] = { "net.stream", NULL };
    struct vp_plan plan;
    plan_of(&plan, words);
    unsigned counts[] = { 3 };
    struct vp_layout layout;
    assert_int_equal(vp_layout_build(&plan, 3, counts, 1, VP_TOPOLOGY_MATRIX, -1, &layout, err,
                                     sizeof err), 0);
    assert_int_equal(layout.count, 6);
    const int from[] = { 0, 0, 1, 1, 2, 2 }, to[] = { 1, 2, 0, 2, 0, 1 };
    for (size_t s = 0; s < 6; s++) {
        const struct vp_step *step = &layout.steps[s];
        int runners = 0;
        for (int r = 0; r < 3; r++)
            runners += step->roles[r] == VP_ROLE_RUN;
        assert_int_equal(runners, 1);
        assert_int_equal(step->roles[from[s]], VP_ROLE_RUN);
        assert_int_equal(step->peers[from[s]], to[s]);
        assert_int_equal(step->roles[to[s]], VP_ROLE_WAIT);
        assert_int_not_equal(step->roles[0], VP_ROLE_OFF); /* rank 0 gathers every step */
    }
    assert_string_equal(roles_text(&layout.steps[3], 3), "WRW");
    assert_string_equal(roles_text(&layout.steps[5], 3), "WWR");
    vp_layout_free(&layout);
    vp_plan_free(&plan);
}

/* An external end (rank 2 here, no process): every other rank connects to it; net.stream
 * also has its server send to each (a reversed link, from it), net.rr cannot, so the
 * external end is a destination alone; it never waits, and only matrix takes one. */
static void an_external_end_is_linked_without_running(void **state)
{
    (void)state;
    const char *streams[] = { "net.stream", NULL }, *round_trips[] = { "net.rr", NULL };
    struct vp_plan plan;
    plan_of(&plan, streams);
    unsigned counts[] = { 3 };
    struct vp_layout layout;
    assert_int_equal(vp_layout_build(&plan, 3, counts, 1, VP_TOPOLOGY_MATRIX, 2, &layout, err,
                                     sizeof err), 0);
    assert_int_equal(layout.count, 6);
    char *const labels[] = { "this-host", "guest-1", "external" };
    char seen[6][32];
    for (size_t s = 0; s < layout.count; s++) {
        const struct vp_step *step = &layout.steps[s];
        assert_int_equal(step->roles[2], VP_ROLE_OFF);
        json_t *links = vp_layout_links(step, 3, labels);
        assert_int_equal(json_array_size(links), 1);
        json_t *link = json_array_get(links, 0);
        snprintf(seen[s], sizeof seen[s], "%s>%s",
                 json_string_value(json_object_get(link, "from_label")),
                 json_string_value(json_object_get(link, "to_label")));
        /* the reversed ones: the client is the destination, its server the external end */
        bool from_external = strncmp(seen[s], "external", 8) == 0;
        assert_int_equal(step->reverse, from_external);
        json_decref(links);
    }
    assert_string_equal(seen[0], "this-host>guest-1");
    assert_string_equal(seen[1], "this-host>external");
    assert_string_equal(seen[2], "guest-1>this-host");
    assert_string_equal(seen[3], "guest-1>external");
    assert_string_equal(seen[4], "external>this-host");
    assert_string_equal(seen[5], "external>guest-1");
    assert_string_equal(roles_text(&layout.steps[4], 3), "R--");
    assert_string_equal(roles_text(&layout.steps[5], 3), "WR-");
    vp_layout_free(&layout);
    vp_plan_free(&plan);

    plan_of(&plan, round_trips);
    assert_int_equal(vp_layout_build(&plan, 3, counts, 1, VP_TOPOLOGY_MATRIX, 2, &layout, err,
                                     sizeof err), 0);
    assert_int_equal(layout.count, 4);
    for (size_t s = 0; s < layout.count; s++)
        assert_false(layout.steps[s].reverse);
    vp_layout_free(&layout);
    assert_int_equal(vp_layout_build(&plan, 3, counts, 1, VP_TOPOLOGY_FAN_IN, 2, &layout, err,
                                     sizeof err), -1);
    assert_non_null(strstr(err, "accepted: --topology matrix"));
    vp_plan_free(&plan);
}

static void pairs_and_fans_link_at_once(void **state)
{
    (void)state;
    const char *words[] = { "net.rr", NULL };
    struct vp_plan plan;
    plan_of(&plan, words);
    unsigned counts[] = { 4 };
    struct vp_layout layout;
    assert_int_equal(vp_layout_build(&plan, 4, counts, 1, VP_TOPOLOGY_PAIRS, -1, &layout, err,
                                     sizeof err), 0);
    assert_int_equal(layout.count, 1);
    assert_string_equal(roles_text(&layout.steps[0], 4), "RRWW");
    assert_int_equal(layout.steps[0].peers[0], 2);
    assert_int_equal(layout.steps[0].peers[1], 3);
    vp_layout_free(&layout);

    assert_int_equal(vp_layout_build(&plan, 4, counts, 1, VP_TOPOLOGY_FAN_IN, -1, &layout, err,
                                     sizeof err), 0);
    assert_string_equal(roles_text(&layout.steps[0], 4), "WRRR");
    for (int r = 1; r < 4; r++)
        assert_int_equal(layout.steps[0].peers[r], 0);
    assert_false(layout.steps[0].reverse);
    vp_layout_free(&layout);

    assert_int_equal(vp_layout_build(&plan, 4, counts, 1, VP_TOPOLOGY_FAN_OUT, -1, &layout, err,
                                     sizeof err), 0);
    assert_string_equal(roles_text(&layout.steps[0], 4), "WRRR");
    assert_true(layout.steps[0].reverse);
    vp_layout_free(&layout);
    vp_plan_free(&plan);
}

/* outside: rank 0 the client of each other rank's server, one at a time, at each count. */
static void outside_is_rank_0_to_each_in_turn(void **state)
{
    (void)state;
    const char *words[] = { "net.probe", NULL };
    struct vp_plan plan;
    plan_of(&plan, words);
    unsigned counts[] = { 2, 3 };
    struct vp_layout layout;
    assert_int_equal(vp_layout_build(&plan, 3, counts, 2, VP_TOPOLOGY_OUTSIDE, -1, &layout, err,
                                     sizeof err), 0);
    assert_int_equal(layout.count, 3);
    const char *roles[] = { "RW-", "RW-", "R-W" };
    const int servers[] = { 1, 1, 2 };
    for (size_t s = 0; s < 3; s++) {
        assert_string_equal(roles_text(&layout.steps[s], 3), roles[s]);
        assert_int_equal(layout.steps[s].peers[0], servers[s]);
        assert_false(layout.steps[s].reverse);
    }
    vp_layout_free(&layout);
    enum vp_topology_kind kind;
    assert_int_equal(vp_topology_parse("outside", &kind, err, sizeof err), 0);
    assert_int_equal(kind, VP_TOPOLOGY_OUTSIDE);
    assert_string_equal(vp_topology_name(kind), "outside");
    vp_plan_free(&plan);
}

/* A topology leaves the benchmarks without a peer to the --ranks sweep. */
static void a_topology_applies_to_network_benchmarks_only(void **state)
{
    (void)state;
    const char *words[] = { "null", "net.stream", NULL };
    struct vp_plan plan;
    plan_of(&plan, words);
    unsigned counts[] = { 1, 2, 3 };
    struct vp_layout layout;
    assert_int_equal(vp_layout_build(&plan, 3, counts, 3, VP_TOPOLOGY_FAN_IN, -1, &layout, err,
                                     sizeof err), 0);
    assert_int_equal(layout.count, 5); /* null at 1, 2, 3; fan-in at 2 and 3 (1: no peer) */
    assert_string_equal(roles_text(&layout.steps[2], 3), "RRR");
    assert_string_equal(roles_text(&layout.steps[3], 3), "WR-");
    assert_string_equal(roles_text(&layout.steps[4], 3), "WRR");
    vp_layout_free(&layout);
    vp_plan_free(&plan);
}

/* The links run the way the data flows: fan-in from each connecting rank to rank 0,
 * fan-out from rank 0 (the server sends) to each; the ranks that only serve have none. */
static void links_follow_the_data(void **state)
{
    (void)state;
    const char *words[] = { "net.stream", NULL };
    struct vp_plan plan;
    plan_of(&plan, words);
    unsigned counts[] = { 3 };
    char *labels[] = { "this-host", "guest-1", "guest-2" };
    enum vp_topology_kind kinds[] = { VP_TOPOLOGY_FAN_IN, VP_TOPOLOGY_FAN_OUT };
    for (size_t k = 0; k < 2; k++) {
        struct vp_layout layout;
        assert_int_equal(vp_layout_build(&plan, 3, counts, 1, kinds[k], -1, &layout, err,
                                         sizeof err), 0);
        json_t *result = json_pack("{s:{}}", "ranks");
        vp_layout_mark(result, kinds[k], &layout.steps[0], 3, labels);
        const json_t *ranks = json_object_get(result, "ranks");
        assert_string_equal(json_string_value(json_object_get(ranks, "topology")),
                            k ? "fan-out" : "fan-in");
        const json_t *links = json_object_get(ranks, "links");
        assert_int_equal(json_array_size(links), 2);
        for (size_t l = 0; l < 2; l++) {
            const json_t *link = json_array_get(links, l);
            const char *from = json_string_value(json_object_get(link, "from_label"));
            const char *to = json_string_value(json_object_get(link, "to_label"));
            assert_string_equal(k ? from : to, "this-host");
            assert_string_equal(k ? to : from, labels[l + 1]);
            assert_int_equal(json_integer_value(json_object_get(link, k ? "to" : "from")),
                             (json_int_t)l + 1);
        }
        json_decref(result);
        vp_layout_free(&layout);
    }
    vp_plan_free(&plan);
}

static void nothing_to_run_is_refused(void **state)
{
    (void)state;
    const char *words[] = { "net.stream", NULL };
    struct vp_plan plan;
    plan_of(&plan, words);
    unsigned odd[] = { 3 }, one[] = { 1 };
    struct vp_layout layout;
    assert_int_equal(vp_layout_build(&plan, 3, odd, 1, VP_TOPOLOGY_PAIRS, -1, &layout, err,
                                     sizeof err), -1);
    assert_non_null(strstr(err, "an even count of 2 or more"));
    assert_int_equal(vp_layout_build(&plan, 1, one, 1, VP_TOPOLOGY_MATRIX, -1, &layout, err,
                                     sizeof err), -1);
    assert_non_null(strstr(err, "--topology matrix"));
    enum vp_topology_kind kind;
    assert_int_equal(vp_topology_parse("ring", &kind, err, sizeof err), -1);
    assert_non_null(strstr(err, "accepted: matrix, pairs, fan-in, fan-out or outside"));
    assert_int_equal(vp_topology_parse("fan-out", &kind, err, sizeof err), 0);
    assert_int_equal(kind, VP_TOPOLOGY_FAN_OUT);
    vp_plan_free(&plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_ranks_sweep_runs_the_first_k),
        cmocka_unit_test(the_matrix_is_every_ordered_pair_alone),
        cmocka_unit_test(an_external_end_is_linked_without_running),
        cmocka_unit_test(pairs_and_fans_link_at_once),
        cmocka_unit_test(outside_is_rank_0_to_each_in_turn),
        cmocka_unit_test(a_topology_applies_to_network_benchmarks_only),
        cmocka_unit_test(links_follow_the_data),
        cmocka_unit_test(nothing_to_run_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
