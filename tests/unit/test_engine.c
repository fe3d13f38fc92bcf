/* Unit tests for the job engine through the hidden null benchmark: how the jobs'
 * figures combine (sum, max, mean, warm-ups left out, a NAN metric left out), and every
 * failure path ending in a result that says which job failed and how: an error in setup,
 * in prepare or in measure, a job killed by a signal, a job that exits, and a job that
 * hangs until the run is interrupted. No job may outlive its result. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "core/json.h"
#include "engine/engine.h"

static struct vp_topology *topology;

static int load_topology(void **state)
{
    (void)state;
    char err[256];
    return vp_topology_load(&topology, NULL, err, sizeof err);
}

static int free_topology(void **state)
{
    (void)state;
    vp_topology_free(topology);
    return 0;
}

/* Runs null at jobs x (warmup + reps) with the given --NAME=VALUE pairs. */
static json_t *run_null(unsigned jobs, unsigned reps, unsigned warmup, const char *const *given)
{
    const struct vp_bench *bench = vp_bench_find("null");
    assert_non_null(bench);
    struct vp_params params;
    vp_params_init(&params, bench->options, bench->option_count);
    char err[VP_ERROR_LEN];
    for (size_t i = 0; given && given[i]; i += 2) {
        int index = vp_params_find(&params, given[i]);
        assert_true(index >= 0);
        assert_int_equal(vp_option_parse(&bench->options[index], given[i + 1],
                                         &params.values[index], err, sizeof err), 0);
    }
    struct vp_run_settings settings = { .pin_spec = "none", .reps = reps, .warmup = warmup,
                                        .monitor_hz = 10, .topology = topology };
    json_t *result = vp_engine_run(bench, &params, jobs, &settings);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* every job was reaped */
    assert_int_equal(errno, ECHILD);
    return result;
}

static const json_t *metric(const json_t *result, const char *name)
{
    return json_object_get(json_object_get(result, "metrics"), name);
}

static void figures_combine_across_jobs_and_skip_warmups(void **state)
{
    (void)state;
    json_t *result = run_null(3, 4, 2, NULL);
    assert_string_equal(vp_json_text(result, "status"), "ok");
    const json_t *jobs = json_object_get(metric(result, "jobs"), "values");
    const json_t *last = json_object_get(metric(result, "last_job"), "values");
    const json_t *rep = json_object_get(metric(result, "rep"), "values");
    assert_int_equal(json_array_size(jobs), 4);
    for (size_t r = 0; r < 4; r++) {
        assert_true(json_real_value(json_array_get(jobs, r)) == 3);   /* summed */
        assert_true(json_real_value(json_array_get(last, r)) == 2);   /* the largest */
        assert_true(json_real_value(json_array_get(rep, r)) == 2 + r); /* warm-ups 0, 1 out */
    }
    assert_null(metric(result, "unmeasured"));
    assert_int_equal(json_array_size(json_object_get(result, "per_job")), 3);
    assert_int_equal(json_array_size(json_object_get(result, "timing")), 4);
    assert_non_null(json_object_get(result, "monitor"));
    json_decref(result);
}

/* A failed result: status "failed", an error containing want, no metrics. */
static void expect_failure(json_t *result, const char *want)
{
    assert_string_equal(vp_json_text(result, "status"), "failed");
    const char *error = vp_json_text(result, "error");
    if (!strstr(error, want))
        fail_msg("error '%s' lacks '%s'", error, want);
    assert_null(json_object_get(result, "metrics"));
    json_decref(result);
}

static void each_failure_names_its_job_and_cause(void **state)
{
    (void)state;
    expect_failure(run_null(2, 2, 1, (const char *[]){ "fail", "setup", NULL }),
                   "null: setup failed on purpose");
    expect_failure(run_null(3, 2, 1, (const char *[]){ "fail", "prepare", "fail-job", "1", NULL }),
                   "job 1: null: prepare failed on purpose");
    expect_failure(run_null(2, 3, 1, (const char *[]){ "fail", "measure", "fail-rep", "2", NULL }),
                   "job 0: null: measure failed on purpose at repetition 2");
    expect_failure(run_null(2, 2, 0, (const char *[]){ "fail", "crash", "fail-job", "1", NULL }),
                   "job 1 (pid");
    expect_failure(run_null(2, 2, 0, (const char *[]){ "fail", "crash", "fail-job", "1", NULL }),
                   "killed by signal 11");
    expect_failure(run_null(1, 2, 0, (const char *[]){ "fail", "exit", "fail-rep", "1", NULL }),
                   "exited with status 3 before finishing");
}

static void interrupt_soon(int signo)
{
    (void)signo;
    raise(SIGINT);
}

/* A hung job holds the run until it is interrupted; then the result says so and no job
 * is left behind. (Last: the engine stays interrupted for the rest of the process.) */
static void a_hung_job_ends_with_the_interruption(void **state)
{
    (void)state;
    vp_engine_catch_signals();
    signal(SIGALRM, interrupt_soon);
    struct itimerval soon = { .it_value = { 0, 300000 } };
    setitimer(ITIMER_REAL, &soon, NULL);
    json_t *result = run_null(2, 2, 0, (const char *[]){ "fail", "hang", "fail-job", "1", NULL });
    assert_string_equal(vp_json_text(result, "status"), "interrupted");
    assert_true(vp_engine_interrupted());
    json_decref(result);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(figures_combine_across_jobs_and_skip_warmups),
        cmocka_unit_test(each_failure_names_its_job_and_cause),
        cmocka_unit_test(a_hung_job_ends_with_the_interruption),
    };
    return cmocka_run_group_tests(tests, load_topology, free_topology);
}
