/* Unit tests for combining the hosts' parts of one point (engine/combine.c), with hand-
 * made regions of the null benchmark: the jobs of every host become the result's jobs,
 * their instants moved onto the first host's clock (a host whose clock runs 5 s ahead
 * but started at the same real instant shows no skew), the skew's bound is the sum of
 * the two largest offset bounds, and a failed, interrupted or silent host fails the
 * result naming it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "engine/combine.h"

#define REPS 3 /* one warm-up, two measured */
#define WARMUP 1

static const struct vp_bench *null_bench;
static struct vp_params params;
static struct vp_run_settings settings = { .pin_spec = "none", .reps = REPS - WARMUP,
                                           .warmup = WARMUP };

/* A host of jobs jobs whose clock reads clock_ahead_ns more than the first host's; each
 * job writes 1, its index and the repetition, and starts late_ns after the instant. */
struct host {
    struct vp_shared shared;
    void *base;
};

static void make_host(struct host *host, unsigned jobs, int64_t clock_ahead_ns, int64_t late_ns)
{
    size_t size = vp_shared_layout(&host->shared, null_bench, &params, jobs, REPS, 0);
    host->base = calloc(1, size);
    assert_non_null(host->base);
    vp_shared_attach(&host->shared, host->base);
    for (unsigned rep = 0; rep < REPS; rep++) {
        int64_t instant = 1000000000LL * (rep + 1) + clock_ahead_ns;
        host->shared.start_at[rep] = instant;
        for (unsigned job = 0; job < jobs; job++) {
            struct vp_rep_record *record = vp_shared_record(&host->shared, job, rep);
            record->start_ns = instant + late_ns;
            record->end_ns = instant + late_ns + 1000;
            record->values[0] = 1;
            record->values[1] = job;
            record->values[2] = rep;
            record->values[3] = NAN;
        }
    }
}

static struct vp_host_part part_of(int rank, struct host *host, int64_t offset, int64_t bound,
                                   const char *status, const char *error)
{
    json_t *result = json_pack("{s:s}", "status", status);
    if (error)
        json_object_set_new(result, "error", json_string(error));
    json_object_set_new(result, "metrics", json_object());
    char name[32];
    snprintf(name, sizeof name, "host%d", rank);
    return (struct vp_host_part){ .rank = rank, .result = result,
                                  .fingerprint = json_pack("{s:s}", "hostname", name),
                                  .shared = host ? &host->shared : NULL,
                                  .clock_offset_ns = offset, .offset_bound_ns = bound };
}

static void release(struct vp_host_part *parts, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        json_decref(parts[i].result);
        json_decref(parts[i].fingerprint);
    }
}

static int setup(void **state)
{
    (void)state;
    null_bench = vp_bench_find("null");
    vp_params_init(&params, null_bench->options, null_bench->option_count);
    return null_bench ? 0 : -1;
}

static void every_host_jobs_are_the_result_jobs(void **state)
{
    (void)state;
    struct host first, second;
    make_host(&first, 2, 0, 0);
    make_host(&second, 3, 5000000000LL, 0); /* 5 s ahead, started at the same real instant */
    struct vp_host_part parts[] = { part_of(0, &first, 0, 0, "ok", NULL),
                                    part_of(1, &second, 5000000000LL, 2000, "ok", NULL) };
    json_t *result = vp_combine_hosts(null_bench, &params, 2, &settings, parts, 2, NULL, NULL);
    assert_string_equal(json_string_value(json_object_get(result, "status")), "ok");
    json_t *metrics = json_object_get(result, "metrics");
    assert_true(vp_json_number(json_object_get(metrics, "jobs"), "mean") == 5);
    assert_true(vp_json_number(json_object_get(metrics, "last_job"), "mean") == 2);
    assert_null(json_object_get(metrics, "unmeasured"));
    assert_int_equal(json_array_size(json_object_get(result, "per_job")), 5);
    assert_true(vp_json_number(result, "start_skew_s") == 0); /* the offset is taken out */
    json_t *ranks = json_object_get(result, "ranks");
    assert_int_equal(json_integer_value(json_object_get(ranks, "count")), 2);
    assert_true(fabs(vp_json_number(ranks, "start_skew_bound_s") - 2e-6) < 1e-12);
    json_t *host = json_array_get(json_object_get(ranks, "hosts"), 1);
    assert_int_equal(json_integer_value(json_object_get(host, "first_job")), 2);
    assert_int_equal(json_integer_value(json_object_get(host, "jobs")), 3);
    assert_string_equal(json_string_value(json_object_get(host, "host")), "host1");
    assert_true(vp_json_number(host, "clock_offset_s") == 5);
    json_decref(result);
    release(parts, 2);
    free(first.base);
    free(second.base);
}

/* A host that started 40 us late on the common clock is the skew. */
static void a_late_host_is_the_skew(void **state)
{
    (void)state;
    struct host first, second, third;
    make_host(&first, 1, 0, 0);
    make_host(&second, 1, -3000000, 40000); /* 3 ms behind, 40 us late */
    make_host(&third, 1, 7000, 0);
    struct vp_host_part parts[] = { part_of(0, &first, 0, 0, "ok", NULL),
                                    part_of(1, &second, -3000000, 500, "ok", NULL),
                                    part_of(2, &third, 7000, 900, "ok", NULL) };
    json_t *result = vp_combine_hosts(null_bench, &params, 1, &settings, parts, 3, NULL, NULL);
    assert_true(fabs(vp_json_number(result, "start_skew_s") - 40e-6) < 1e-12);
    assert_true(fabs(vp_json_number(json_object_get(result, "ranks"), "start_skew_bound_s") -
                     1.4e-6) < 1e-12);
    json_decref(result);
    release(parts, 3);
    free(first.base);
    free(second.base);
    free(third.base);
}

static void a_failed_or_silent_host_fails_the_result(void **state)
{
    (void)state;
    struct host first;
    make_host(&first, 1, 0, 0);
    struct vp_host_part failed[] = { part_of(0, &first, 0, 0, "ok", NULL),
                                     part_of(1, NULL, 0, 0, "failed", "job 0: no space") };
    json_t *result = vp_combine_hosts(null_bench, &params, 1, &settings, failed, 2, NULL, NULL);
    assert_string_equal(json_string_value(json_object_get(result, "status")), "failed");
    assert_string_equal(json_string_value(json_object_get(result, "error")),
                        "rank 1 (host1): job 0: no space");
    assert_null(json_object_get(result, "metrics")); /* no figures from half the hosts */
    json_decref(result);
    release(failed, 2);

    struct vp_host_part silent[] = { part_of(0, &first, 0, 0, "ok", NULL),
                                     part_of(1, NULL, 0, 0, "ok", NULL) };
    result = vp_combine_hosts(null_bench, &params, 1, &settings, silent, 2, NULL, NULL);
    assert_string_equal(json_string_value(json_object_get(result, "error")),
                        "rank 1 (host1): its jobs' figures did not arrive");
    json_decref(result);
    release(silent, 2);

    struct vp_host_part stopped[] = { part_of(0, &first, 0, 0, "interrupted", "signal"),
                                      part_of(1, NULL, 0, 0, "ok", NULL) };
    result = vp_combine_hosts(null_bench, &params, 1, &settings, stopped, 2, NULL, NULL);
    assert_string_equal(json_string_value(json_object_get(result, "status")), "interrupted");
    json_decref(result);
    release(stopped, 2);
    free(first.base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_host_jobs_are_the_result_jobs),
        cmocka_unit_test(a_late_host_is_the_skew),
        cmocka_unit_test(a_failed_or_silent_host_fails_the_result),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
