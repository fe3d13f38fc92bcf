/* Unit tests for engine/shared_check.c, a member's jobs' region checked before it is read:
 * an honest region passes; an affinity, error or detail with no end inside its array, a
 * state or CPU no host has, an instant outside the point (the 4.7e9 s skew a hostile
 * guest made), a histogram that does not add up, an infinite figure are each refused,
 * naming the job and the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "core/options.h"
#include "core/limits.h"
#include "engine/shared_check.h"

#define EARLIEST 1000000000LL
#define LATEST 9000000000LL

static struct vp_shared region;

/* A region of 2 jobs x 3 repetitions of bench, as an honest engine leaves it. */
static void honest(const char *bench_name)
{
    const struct vp_bench *bench = vp_bench_find(bench_name);
    struct vp_params params;
    vp_params_init(&params, bench->options, bench->option_count);
    size_t size = vp_shared_layout(&region, bench, &params, 2, 3, 1.0);
    vp_shared_attach(&region, calloc(1, size));
    for (unsigned rep = 0; rep < 3; rep++)
        region.start_at[rep] = EARLIEST + rep * 1000000;
    for (unsigned job = 0; job < 2; job++) {
        struct vp_job_slot *slot = vp_shared_slot(&region, job);
        atomic_store(&slot->state, JOB_FINISHED);
        slot->cpu_planned = slot->cpu_seen = (int)job;
        strcpy(slot->affinity, "0-1");
        for (unsigned rep = 0; rep < 3; rep++) {
            struct vp_rep_record *record = vp_shared_record(&region, job, rep);
            record->start_ns = region.start_at[rep] + 100;
            record->end_ns = record->start_ns + 500000;
            record->values[0] = 1.5;
        }
    }
}

static int check(char *why, size_t len)
{
    return vp_shared_check(&region, EARLIEST, LATEST, why, len);
}

static void honest_regions_pass(void **state)
{
    (void)state;
    char why[256] = "";
    honest("cpu");
    assert_int_equal(check(why, sizeof why), 0);
    free(region.base);
    honest("null");
    assert_int_equal(check(why, sizeof why), 0);
    free(region.base);
}

static void unterminated_strings_refused(void **state)
{
    (void)state;
    char why[256];
    honest("cpu");
    struct vp_job_slot *slot = vp_shared_slot(&region, 1);
    memset(slot->affinity, 'A', sizeof slot->affinity);
    assert_int_equal(check(why, sizeof why), -1);
    assert_string_equal(why, "job 2's affinity does not end within its 64 bytes");
    strcpy(slot->affinity, "0");
    memset(slot->error, 'E', sizeof slot->error);
    assert_int_equal(check(why, sizeof why), -1);
    assert_non_null(strstr(why, "job 2's error"));
    slot->error[0] = '\0';
    memset(slot->detail, '{', sizeof slot->detail);
    assert_int_equal(check(why, sizeof why), -1);
    assert_non_null(strstr(why, "job 2's detail"));
    free(region.base);
}

static void states_and_cpus_refused(void **state)
{
    (void)state;
    char why[256];
    honest("cpu");
    struct vp_job_slot *slot = vp_shared_slot(&region, 0);
    atomic_store(&slot->state, 77);
    assert_int_equal(check(why, sizeof why), -1);
    assert_string_equal(why, "job 1's state is none a job has");
    atomic_store(&slot->state, JOB_FINISHED);
    slot->cpu_seen = -5;
    assert_int_equal(check(why, sizeof why), -1);
    assert_string_equal(why, "job 1's CPU is none a host has");
    free(region.base);
}

static void instants_outside_the_point_refused(void **state)
{
    (void)state;
    char why[256];
    honest("cpu");
    vp_shared_record(&region, 1, 2)->end_ns = INT64_MAX;
    assert_int_equal(check(why, sizeof why), -1);
    assert_string_equal(why, "job 2's repetition 3 holds an instant outside the point");
    vp_shared_record(&region, 1, 2)->end_ns = vp_shared_record(&region, 1, 2)->start_ns - 1;
    assert_int_equal(check(why, sizeof why), -1); /* ending before it began */
    vp_shared_record(&region, 1, 2)->end_ns = vp_shared_record(&region, 1, 2)->start_ns + 1;
    region.start_at[1] = EARLIEST - 1;
    assert_int_equal(check(why, sizeof why), -1);
    assert_string_equal(why, "repetition 2 starts outside the point");
    region.start_at[1] = 0; /* a repetition not reached */
    assert_int_equal(check(why, sizeof why), 0);
    vp_shared_record(&region, 0, 0)->values[3] = INFINITY;
    assert_int_equal(check(why, sizeof why), -1);
    assert_string_equal(why, "job 1's repetition 1 holds an infinite figure");
    free(region.base);
}

static void histograms_that_do_not_add_up_refused(void **state)
{
    (void)state;
    char why[256];
    honest("net.rr");
    struct vp_histogram *histogram = vp_shared_histogram(&region, 0);
    assert_non_null(histogram);
    histogram->count = 3;
    histogram->buckets[5] = 3;
    histogram->min_ns = 10;
    histogram->max_ns = 20;
    assert_int_equal(check(why, sizeof why), 0);
    histogram->buckets[9] = UINT64_MAX; /* a sum that would wrap to the count */
    assert_int_equal(check(why, sizeof why), -1);
    assert_non_null(strstr(why, "job 1's latency histogram does not add up"));
    free(region.base);
}

/* A region another rank sent, under its part: viewed when honest; a spoiled one fails
 * the part naming the rank; one whose length is not its result's jobs' is not viewed. */
static void a_part_takes_its_region_or_fails_naming_it(void **state)
{
    (void)state;
    honest("cpu");
    struct vp_plan_point point = { .bench = vp_bench_find("cpu"), .jobs = 2, .reps = 3 };
    vp_params_init(&point.params, point.bench->options, point.bench->option_count);
    struct vp_host_part part = { .rank = 1,
                                 .result = json_pack("{s:s,s:i}", "status", "ok", "jobs", 2) };
    struct vp_shared view;
    assert_true(vp_shared_take("guest 1", &point, 1.0, EARLIEST, &part, &view, region.base,
                               region.size));
    assert_ptr_equal(part.shared, &view);
    memset(vp_shared_slot(&region, 1)->affinity, 'A', sizeof vp_shared_slot(&region, 1)->affinity);
    assert_false(vp_shared_take("guest 1", &point, 1.0, EARLIEST, &part, &view, region.base,
                                region.size));
    assert_null(part.shared);
    assert_string_equal(json_string_value(json_object_get(part.result, "status")), "failed");
    assert_string_equal(json_string_value(json_object_get(part.result, "error")),
                        "guest 1 sent a region that is not its jobs': job 2's affinity does not "
                        "end within its 64 bytes");
    json_decref(part.result);
    part.result = json_pack("{s:s,s:i}", "status", "ok", "jobs", 3);
    assert_false(vp_shared_take("guest 1", &point, 1.0, EARLIEST, &part, &view, region.base,
                                region.size));
    assert_null(part.shared);
    assert_string_equal(json_string_value(json_object_get(part.result, "status")), "ok");
    json_decref(part.result);
    free(region.base);
}

/* What a rank may send for a point: its jobs' layout (a host side's many), or as many jobs
 * as a result may start where each rank counts its own CPUs. */
static void the_longest_region_is_the_points_layout(void **state)
{
    (void)state;
    struct vp_plan_point point = { .bench = vp_bench_find("cpu"), .jobs = 2, .reps = 3,
                                   .warmup = 1 };
    vp_params_init(&point.params, point.bench->options, point.bench->option_count);
    struct vp_shared layout;
    assert_int_equal(vp_shared_most(&point, 0, 1.0),
                     vp_shared_layout(&layout, point.bench, &point.params, 2, 4, 1.0));
    assert_int_equal(vp_shared_most(&point, 6, 1.0),
                     vp_shared_layout(&layout, point.bench, &point.params, 6, 4, 1.0));
    assert_true(vp_shared_most(&point, 0, 1.0) < (1u << 20));
    point.bench = vp_bench_find("time.timer");
    assert_true(point.bench->one_job_per_cpu);
    vp_params_init(&point.params, point.bench->options, point.bench->option_count);
    assert_int_equal(vp_shared_most(&point, 0, 1.0),
                     vp_shared_layout(&layout, point.bench, &point.params, VP_MAX_JOBS, 4, 1.0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(honest_regions_pass),
        cmocka_unit_test(unterminated_strings_refused),
        cmocka_unit_test(states_and_cpus_refused),
        cmocka_unit_test(instants_outside_the_point_refused),
        cmocka_unit_test(histograms_that_do_not_add_up_refused),
        cmocka_unit_test(the_longest_region_is_the_points_layout),
        cmocka_unit_test(a_part_takes_its_region_or_fails_naming_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
