/* Unit tests for pin-spec mapping on synthetic hwloc topologies loaded from XML:
 * the CNAF 2007 study's 4-socket x 4-core box and a 2-package, 2-core, 2-thread box. */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/options.h"
#include "core/topology.h"

static struct vp_topology *load(const char *xml)
{
    struct vp_topology *topology;
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_topology_load(&topology, xml, err, sizeof err), 0);
    return topology;
}

static void counts_come_from_the_xml(void **state)
{
    (void)state;
    struct vp_topology *topology = load("data/4x4-packages.xml");
    struct vp_topology_counts counts;
    vp_topology_count(topology, &counts);
    assert_int_equal(counts.packages, 4);
    assert_int_equal(counts.cores, 16);
    assert_int_equal(counts.pus, 16);
    vp_topology_free(topology);
}

static void compact_fills_one_package_first(void **state)
{
    (void)state;
    struct vp_topology *topology = load("data/4x4-packages.xml");
    int cpus[20];
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_pin_plan(topology, "compact", 5, cpus, err, sizeof err), 0);
    int want[] = { 0, 1, 2, 3, 4 }; /* package 0's four cores, then package 1 */
    assert_memory_equal(cpus, want, sizeof want);
    assert_int_equal(vp_pin_plan(topology, "compact", 18, cpus, err, sizeof err), 0);
    assert_int_equal(cpus[16], 0); /* wraps after 16 cores */
    assert_int_equal(cpus[17], 1);
    vp_topology_free(topology);
}

static void spread_round_robins_packages(void **state)
{
    (void)state;
    struct vp_topology *topology = load("data/4x4-packages.xml");
    int cpus[16];
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_pin_plan(topology, "spread", 6, cpus, err, sizeof err), 0);
    int want[] = { 0, 4, 8, 12, 1, 5 }; /* "4 on four sockets" of the CNAF 2007 study */
    assert_memory_equal(cpus, want, sizeof want);
    assert_int_equal(vp_pin_plan(topology, "spread", 16, cpus, err, sizeof err), 0);
    int seen[16] = { 0 };
    for (int i = 0; i < 16; i++)
        seen[cpus[i]]++;
    for (int i = 0; i < 16; i++)
        assert_int_equal(seen[i], 1); /* 16 jobs: every core once */
    vp_topology_free(topology);
}

static void cores_are_named_by_their_first_thread(void **state)
{
    (void)state;
    struct vp_topology *topology = load("data/2x2x2-smt.xml");
    int cpus[8];
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_pin_plan(topology, "compact", 4, cpus, err, sizeof err), 0);
    int compact[] = { 0, 2, 4, 6 }; /* one thread per core, never two on one core */
    assert_memory_equal(cpus, compact, sizeof compact);
    assert_int_equal(vp_pin_plan(topology, "spread", 4, cpus, err, sizeof err), 0);
    int spread[] = { 0, 4, 2, 6 };
    assert_memory_equal(cpus, spread, sizeof spread);
    vp_topology_free(topology);
}

static void lists_cycle_and_none_leaves_jobs_free(void **state)
{
    (void)state;
    struct vp_topology *topology = load("data/4x4-packages.xml");
    int cpus[5];
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_pin_plan(topology, "0,2,4-5", 5, cpus, err, sizeof err), 0);
    int want[] = { 0, 2, 4, 5, 0 };
    assert_memory_equal(cpus, want, sizeof want);
    assert_int_equal(vp_pin_plan(topology, "none", 2, cpus, err, sizeof err), 0);
    assert_int_equal(cpus[0], -1);
    assert_int_equal(cpus[1], -1);
    vp_topology_free(topology);
}

/* On this machine compact and spread keep to the CPUs the process may run on (taskset,
 * a cpuset, an MPI launcher binding its ranks). */
static void this_machine_keeps_to_the_affinity(void **state)
{
    (void)state;
    cpu_set_t saved, last;
    assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
    if (CPU_COUNT(&saved) < 2)
        skip(); /* one CPU: nothing to keep to */
    int chosen = -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &saved))
            chosen = cpu;
    CPU_ZERO(&last);
    CPU_SET(chosen, &last);
    assert_int_equal(sched_setaffinity(0, sizeof last, &last), 0);
    struct vp_topology *topology = load(NULL);
    int cpus[4];
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_pin_plan(topology, "spread", 4, cpus, err, sizeof err), 0);
    for (int job = 0; job < 4; job++)
        assert_int_equal(cpus[job], chosen);
    assert_int_equal(vp_pin_plan(topology, "compact", 2, cpus, err, sizeof err), 0);
    assert_int_equal(cpus[0], chosen);
    assert_int_equal(cpus[1], chosen);
    vp_topology_free(topology);
    assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);
}

static void bad_specs_name_the_accepted_forms(void **state)
{
    (void)state;
    struct vp_topology *topology = load("data/4x4-packages.xml");
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_pin_check(topology, "16", err, sizeof err), -1);
    assert_non_null(strstr(err, "CPU 16 does not exist here; accepted CPUs: 0..15"));
    assert_int_equal(vp_pin_check(topology, "sparse", err, sizeof err), -1);
    assert_non_null(strstr(err, "none, compact, spread"));
    assert_int_equal(vp_pin_check(topology, "spread", err, sizeof err), 0);
    assert_int_equal(vp_pin_check(topology, "15", err, sizeof err), 0);
    vp_topology_free(topology);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_come_from_the_xml),
        cmocka_unit_test(compact_fills_one_package_first),
        cmocka_unit_test(spread_round_robins_packages),
        cmocka_unit_test(cores_are_named_by_their_first_thread),
        cmocka_unit_test(lists_cycle_and_none_leaves_jobs_free),
        cmocka_unit_test(this_machine_keeps_to_the_affinity),
        cmocka_unit_test(bad_specs_name_the_accepted_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
