/* Unit tests for the run plan (engine/plan.c): which points a request yields and in
 * what order, the defaults each kind of benchmark takes, presets and overrides, the
 * errors that stop a run before anything starts, and the checks against a machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/topology.h"
#include "engine/plan.h"

static char err[8192];

static int build(struct vp_plan *plan, const char *const *words, const char *const *options,
                 const char *jobs, const char *pin)
{
    struct vp_plan_request request = { .jobs_text = jobs, .pin = pin };
    request.words = (char *const *)words;
    while (words && words[request.word_count])
        request.word_count++;
    for (size_t i = 0; options && options[i]; i += 2)
        request.options[request.option_count++] = (struct vp_plan_option){ options[i],
                                                                           options[i + 1] };
    err[0] = '\0';
    return vp_plan_build(&request, plan, err, sizeof err);
}

static void no_words_is_the_quick_suite_at_defaults(void **state)
{
    (void)state;
    struct vp_plan plan;
    assert_int_equal(build(&plan, NULL, NULL, NULL, NULL), 0);
    assert_true(plan.count >= 4);
    unsigned total = 0;
    for (size_t p = 0; p < plan.count; p++) {
        assert_true(plan.points[p].bench->in_quick_suite);
        assert_int_equal(plan.points[p].jobs, 1);
        assert_int_equal(plan.points[p].reps, 5);
        assert_int_equal(plan.points[p].warmup, 1);
        assert_string_equal(plan.points[p].pin, "none");
        total += 6;
    }
    assert_int_equal(plan.total_reps, total);
    vp_plan_free(&plan);
}

/* bench x sweep value x job count, in that order, each point with its value selected. */
static void a_sweep_and_job_counts_multiply_in_order(void **state)
{
    (void)state;
    struct vp_plan plan;
    const char *words[] = { "mem.latency", "cpu", NULL };
    const char *options[] = { "sizes", "16k,1m", NULL };
    assert_int_equal(build(&plan, words, options, "1,2", "spread"), 0);
    assert_int_equal(plan.count, 6);
    const uint64_t sizes[] = { 16384, 16384, 1048576, 1048576 };
    for (size_t p = 0; p < 4; p++) {
        assert_string_equal(plan.points[p].bench->name, "mem.latency");
        assert_int_equal(plan.points[p].step, 0);
        assert_int_equal(vp_param_number(&plan.points[p].params, "sizes"), sizes[p]);
        assert_int_equal(plan.points[p].jobs, p % 2 ? 2 : 1);
        assert_string_equal(plan.points[p].pin, "spread");
    }
    assert_string_equal(plan.points[4].bench->name, "cpu");
    assert_int_equal(plan.points[4].step, 1);
    assert_int_equal(plan.points[5].jobs, 2);
    vp_plan_free(&plan);
}

static void families_presets_and_hidden_benchmarks(void **state)
{
    (void)state;
    struct vp_plan plan;
    const char *vcost[] = { "vcost.*", NULL };
    assert_int_equal(build(&plan, vcost, NULL, NULL, NULL), 0);
    assert_int_equal(plan.count, 6);
    for (size_t p = 0; p < plan.count; p++)
        assert_memory_equal(plan.points[p].bench->name, "vcost.", 6);
    vp_plan_free(&plan);

    const char *nosuch[] = { "nosuch", NULL };
    assert_int_equal(build(&plan, nosuch, NULL, NULL, NULL), -1);
    assert_null(strstr(err, "null")); /* hidden: not offered */
    const char *null_bench[] = { "null", NULL };
    assert_int_equal(build(&plan, null_bench, NULL, NULL, NULL), 0);
    assert_int_equal(plan.count, 1);
    vp_plan_free(&plan);

    /* dd: its options first, so the user's --bs wins over the preset's 64k */
    const char *dd[] = { "dd", NULL };
    const char *bs[] = { "bs", "128k", NULL };
    assert_int_equal(build(&plan, dd, bs, NULL, NULL), 0);
    assert_int_equal(plan.count, 2);
    assert_string_equal(plan.points[0].bench->name, "disk.write");
    assert_string_equal(plan.points[1].bench->name, "disk.read");
    assert_int_equal(vp_param_number(&plan.points[0].params, "bs"), 131072);
    assert_string_equal(vp_param_text(&plan.points[0].params, "direct"), "off");
    vp_plan_free(&plan);
}

/* A watch runs once without a warm-up, a per-CPU benchmark one pinned job per CPU,
 * unless the request says otherwise. */
static void benchmark_kinds_shape_their_points(void **state)
{
    (void)state;
    struct vp_plan plan;
    const char *words[] = { "time.drift", "time.timer", NULL };
    const char *peer[] = { "peer", "127.0.0.1", NULL };
    assert_int_equal(build(&plan, words, peer, NULL, NULL), 0);
    assert_int_equal(plan.count, 2);
    assert_int_equal(plan.points[0].reps, 1);
    assert_int_equal(plan.points[0].warmup, 0);
    unsigned cpus = vp_allowed_cpus(NULL, 0);
    assert_int_equal(plan.points[1].jobs, cpus);
    char affinity[256];
    vp_affinity_text(affinity, sizeof affinity);
    assert_string_equal(plan.points[1].pin, affinity);
    vp_plan_free(&plan);

    struct vp_plan_request request = { .words = (char *const *)words, .word_count = 2,
                                       .reps = 3, .reps_given = true, .jobs_text = "1" };
    request.options[request.option_count++] = (struct vp_plan_option){ "peer", "127.0.0.1" };
    assert_int_equal(vp_plan_build(&request, &plan, err, sizeof err), 0);
    assert_int_equal(plan.points[0].reps, 3);
    assert_int_equal(plan.points[1].reps, 3);
    assert_int_equal(plan.points[1].jobs, 1);
    assert_string_equal(plan.points[1].pin, affinity); /* --jobs alone keeps the pinning */
    assert_int_equal(plan.total_reps, 3 + 4);
    vp_plan_free(&plan);
}

static void bad_requests_name_what_is_wrong(void **state)
{
    (void)state;
    struct vp_plan plan;
    const char *nosuch[] = { "nosuch", NULL };
    assert_int_equal(build(&plan, nosuch, NULL, NULL, NULL), -1);
    assert_non_null(strstr(err, "unknown benchmark 'nosuch'; accepted: cpu, mem.write"));
    assert_non_null(strstr(err, "or a preset (dd, iozone)"));
    assert_null(plan.points);

    const char *cpu[] = { "cpu", NULL };
    const char *passes[] = { "passes", "3", NULL };
    assert_int_equal(build(&plan, cpu, passes, NULL, NULL), -1);
    assert_non_null(strstr(err, "--passes: not an option of the selected benchmarks"));

    const char *ops[] = { "ops", "many", NULL };
    assert_int_equal(build(&plan, cpu, ops, NULL, NULL), -1);
    assert_non_null(strstr(err, "--ops: 'many' is not valid"));
    assert_non_null(strstr(err, "(cpu)"));

    assert_int_equal(build(&plan, cpu, NULL, "2,1", NULL), -1);
    assert_non_null(strstr(err, "--jobs: '2,1' is not valid"));

    const char *stream[] = { "mem.stream", NULL };
    struct vp_plan_request request = { .words = (char *const *)stream, .word_count = 1,
                                       .duration = 1 };
    assert_int_equal(vp_plan_build(&request, &plan, err, sizeof err), -1);
    assert_non_null(strstr(err, "--duration: none of the selected benchmarks is time-bound"));
    assert_non_null(strstr(err, "cpu"));
}

/* The machine's checks: a benchmark's own validation at its largest job count, and the
 * pin spec against the topology. */
static void checks_against_the_machine(void **state)
{
    (void)state;
    struct vp_topology *topology;
    assert_int_equal(vp_topology_load(&topology, "data/4x4-packages.xml", err, sizeof err), 0);
    struct vp_plan plan;
    const char *disk[] = { "disk.write", NULL };
    const char *missing[] = { "path", "/nonexistent/virtperf-plan-test", NULL };
    assert_int_equal(build(&plan, disk, missing, "1,4", NULL), 0);
    assert_int_equal(vp_plan_check(&plan, topology, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/virtperf-plan-test"));
    assert_non_null(strstr(err, "(disk.write)"));
    vp_plan_free(&plan);

    const char *cpu[] = { "cpu", NULL };
    assert_int_equal(build(&plan, cpu, NULL, NULL, "0,15"), 0);
    assert_int_equal(vp_plan_check(&plan, topology, err, sizeof err), 0);
    vp_plan_free(&plan);
    assert_int_equal(build(&plan, cpu, NULL, NULL, "99"), 0);
    assert_int_equal(vp_plan_check(&plan, topology, err, sizeof err), -1);
    assert_non_null(strstr(err, "99"));
    vp_plan_free(&plan);
    vp_topology_free(topology);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_words_is_the_quick_suite_at_defaults),
        cmocka_unit_test(a_sweep_and_job_counts_multiply_in_order),
        cmocka_unit_test(families_presets_and_hidden_benchmarks),
        cmocka_unit_test(benchmark_kinds_shape_their_points),
        cmocka_unit_test(bad_requests_name_what_is_wrong),
        cmocka_unit_test(checks_against_the_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
