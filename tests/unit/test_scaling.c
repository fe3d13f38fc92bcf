/* Unit tests for scaling.c: the knee on synthetic curves (flat, linear decay, cliff,
 * noisy, latency), QoS rules, Jain's fairness, the two sides of a run scaled apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <jansson.h>

#include "analysis/scaling.h"

static const struct vp_qos default_rule = { .kind = VP_QOS_RELATIVE };

static void knees_of_synthetic_curves(void **state)
{
    (void)state;
    const double flat[] = { 100, 100, 100, 100, 100, 100 };
    assert_int_equal(vp_knee(flat, 6, 1, 0.9, &default_rule), 5);
    const double linear[] = { 100, 95, 90, 85, 80, 75 }; /* 90 meets 0.9x exactly */
    assert_int_equal(vp_knee(linear, 6, 1, 0.9, &default_rule), 2);
    const double cliff[] = { 100, 99, 98, 97, 98, 40, 30 };
    assert_int_equal(vp_knee(cliff, 7, 1, 0.9, &default_rule), 4);
    /* Noise that dips under the rule once stops the knee there, even if it recovers. */
    const double noisy[] = { 100, 97, 103, 88, 95, 96 };
    assert_int_equal(vp_knee(noisy, 6, 1, 0.9, &default_rule), 2);
    const double p99[] = { 1.0e-3, 1.1e-3, 1.19e-3, 1.3e-3, 2e-3 };
    assert_int_equal(vp_knee(p99, 5, 0, 1.2, &default_rule), 2);
    const struct vp_qos absolute = { .kind = VP_QOS_P99_MAX, .limit = 1.25e-3, .given = 1 };
    assert_int_equal(vp_knee(p99, 5, 0, 0, &absolute), 2);
    const double first_fails[] = { 5e-3 };
    assert_int_equal(vp_knee(first_fails, 1, 0, 0, &absolute), 0);
}

/* A cpu result of jobs jobs on hosts hosts (0: one host, no ranks), on side (NULL: none). */
static json_t *cpu_result(int jobs, int hosts, const char *side, double score)
{
    json_t *result = json_pack("{s:s,s:s,s:{},s:i,s:{s:{s:f,s:s,s:s,s:s}}}", "status", "ok",
                               "bench", "cpu", "params", "jobs", jobs, "metrics", "score",
                               "mean", score, "better", "higher", "aggregate", "sum", "unit",
                               "ops/s");
    if (hosts)
        json_object_set_new(result, "ranks", json_pack("{s:i}", "count", hosts));
    if (side)
        json_object_set_new(result, "side", json_pack("{s:s}", "name", side));
    return result;
}

/* An --and-host run: this host's jobs and the guests' alternate per count; each side is
 * its own curve, never one sweep of both. */
static void sides_scale_apart(void **state)
{
    (void)state;
    json_t *run = json_pack("{s:[o,o,o,o]}", "results", cpu_result(1, 0, "host", 100),
                            cpu_result(1, 1, "guests", 90), cpu_result(2, 0, "host", 200),
                            cpu_result(1, 2, "guests", 170));
    char err[256];
    json_t *scaled = vp_scaling(run, &default_rule, NULL, err, sizeof err);
    assert_non_null(scaled);
    const json_t *groups = json_object_get(scaled, "groups");
    assert_int_equal(json_array_size(groups), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(groups, 0), "side")),
                        "host");
    assert_string_equal(json_string_value(json_object_get(json_array_get(groups, 1), "side")),
                        "guests");
    for (size_t g = 0; g < 2; g++)
        assert_int_equal(json_array_size(json_object_get(json_array_get(groups, g), "points")), 2);
    assert_non_null(json_object_get(json_array_get(groups, 1), "knee_hosts"));
    assert_null(json_object_get(json_array_get(groups, 0), "knee_hosts"));
    json_decref(scaled);
    json_decref(run);
}

/* A sweep's counted ranks are named for what they are: guests (libvirt), containers
 * (any other engine), hosts (virtperf-mpi). */
static void members_are_named(void **state)
{
    (void)state;
    const char *engines[] = { "libvirt", "podman", NULL };
    const char *words[] = { "guests", "containers", "hosts" };
    for (size_t e = 0; e < 3; e++) {
        json_t *run = json_pack("{s:[o,o]}", "results", cpu_result(1, 1, NULL, 90),
                                cpu_result(2, 2, NULL, 170));
        for (size_t r = 0; engines[e] && r < 2; r++)
            json_object_set_new(json_array_get(json_object_get(run, "results"), r), "guests",
                                json_pack("{s:s}", "engine", engines[e]));
        char err[256];
        json_t *scaled = vp_scaling(run, &default_rule, NULL, err, sizeof err);
        assert_non_null(scaled);
        assert_string_equal(json_string_value(json_object_get(
                                json_array_get(json_object_get(scaled, "groups"), 0), "members")),
                            words[e]);
        json_decref(scaled);
        json_decref(run);
    }
}

/* virtperf-mpi's hypervisors: the machines' use from each one's own monitor (not its
 * members'), each member's memory from every host's, so many members on each host, and
 * the members named by the first host's kind. */
static void hypervisors_are_the_machines(void **state)
{
    (void)state;
    json_t *run = json_pack("{s:[o,o]}", "results", cpu_result(1, 2, NULL, 90),
                            cpu_result(1, 4, NULL, 170));
    for (size_t r = 0; r < 2; r++) {
        json_t *result = json_array_get(json_object_get(run, "results"), r);
        json_t *hypervisors = json_array();
        for (int h = 0; h < 2; h++) {
            json_t *members = json_array();
            for (size_t m = 0; m <= r; m++) /* 1 then 2 a host, each holding h + 1 MiB */
                json_array_append_new(members, json_pack("{s:s,s:f}", "name", "g",
                                                         "qemu_pss_bytes", (h + 1) * 1048576.0));
            json_array_append_new(hypervisors,
                                  json_pack("{s:i,s:i,s:{s:{s:f},s:{s:f}},s:{s:s,s:o}}", "rank", h,
                                            "members", (int)r + 1, "monitor", "cpu.busy", "mean",
                                            40.0 + 20 * h, "cpu.idle", "mean", 60.0 - 20 * h,
                                            "guests", "engine", "libvirt", "hosts", members));
        }
        json_object_set_new(result, "hypervisors", hypervisors);
        /* the members' own monitors watched guests: not the machines */
        json_object_set_new(json_object_get(result, "ranks"), "hosts",
                            json_pack("[{s:i,s:{s:{s:{s:f}}}}]", "rank", 1, "monitor", "summary",
                                      "cpu.idle", "mean", 0.0));
    }
    char err[256];
    json_t *scaled = vp_scaling(run, &default_rule, NULL, err, sizeof err);
    assert_non_null(scaled);
    const json_t *group = json_array_get(json_object_get(scaled, "groups"), 0);
    assert_string_equal(json_string_value(json_object_get(group, "members")), "guests");
    for (size_t r = 0; r < 2; r++) {
        const json_t *point = json_array_get(json_object_get(group, "points"), r);
        assert_float_equal(json_number_value(json_object_get(point, "cpu_idle")), 50, 1e-9);
        assert_int_equal(json_integer_value(json_object_get(point, "machines")), 2);
        assert_int_equal(json_integer_value(json_object_get(point, "per_host")), (int)r + 1);
        assert_float_equal(json_number_value(json_object_get(point, "member_memory_bytes")),
                           1.5 * 1048576, 1e-3);
    }
    json_decref(scaled);
    json_decref(run);
}

static void qos_rules_parse(void **state)
{
    (void)state;
    struct vp_qos qos;
    char err[256];
    assert_int_equal(vp_qos_parse("per_job>=0.8", &qos, err, sizeof err), 0);
    assert_int_equal(qos.kind, VP_QOS_RELATIVE);
    assert_float_equal(qos.factor, 0.8, 1e-12);
    assert_int_equal(vp_qos_parse("p99<=2ms", &qos, err, sizeof err), 0);
    assert_int_equal(qos.kind, VP_QOS_P99_MAX);
    assert_float_equal(qos.limit, 0.002, 1e-12);
    assert_int_equal(vp_qos_parse("p99<=1.5x", &qos, err, sizeof err), 0);
    assert_float_equal(qos.factor, 1.5, 1e-12);
    const char *bad[] = { "", "per_job>=1.5", "per_job>=0", "p99<=", "p99<=0.5x", "p50<=2ms",
                          "p99<=fast" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(vp_qos_parse(bad[i], &qos, err, sizeof err), -1);
    assert_non_null(strstr(err, "accepted: per_job>=F"));
}

static void jain_fairness_by_hand(void **state)
{
    (void)state;
    const double equal[] = { 5, 5, 5, 5 };
    assert_float_equal(vp_jain_fairness(equal, 4), 1.0, 1e-12);
    const double one_takes_all[] = { 10, 0, 0, 0 };
    assert_float_equal(vp_jain_fairness(one_takes_all, 4), 0.25, 1e-12);
    const double uneven[] = { 1, 2, 3 }; /* 36 / (3 * 14) */
    assert_float_equal(vp_jain_fairness(uneven, 3), 36.0 / 42.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(knees_of_synthetic_curves),
        cmocka_unit_test(qos_rules_parse),
        cmocka_unit_test(sides_scale_apart),
        cmocka_unit_test(members_are_named),
        cmocka_unit_test(hypervisors_are_the_machines),
        cmocka_unit_test(jain_fairness_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
