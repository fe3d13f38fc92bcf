/* Unit tests for how the executor (run/executor.c) ends a run: one whose runner stopped it
 * before its last point with no result failed (a rank or member gone between two points,
 * as mpirun's SIGTERM can make it under load) is stored failed and exits 1; one that ran
 * every point is ok and exits 0; one interrupted by a signal is interrupted (130). Each
 * runs the null benchmark here, into a scratch SQLite store and a JSON document. */
#include <fcntl.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/executor.h"
#include "run/run_plan.h"

/* What the fake runner does after the step's points ran. */
struct ending {
    bool stop;        /* the run must stop, as a lost rank says */
    bool interrupted; /* and a signal (not a loss) was why */
};

static bool run_step_then_end(void *context, const struct vp_run_steps *steps, size_t index,
                              struct vp_run_session *session, struct vp_progress *progress)
{
    const struct ending *ending = context;
    vp_run_step_here(steps, index, session, progress);
    return ending->stop;
}

static bool was_interrupted(void *context)
{
    const struct ending *ending = context;
    return ending->interrupted;
}

/* Runs `run null` under a runner ending as ending says; the run's stored status (from its
 * JSON document) into status, the exit status returned. */
static int run_ending(struct ending ending, char *status, size_t status_len)
{
    char dir[] = "/tmp/vp-executor-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char db[64], json[64];
    snprintf(db, sizeof db, "%s/results.db", dir);
    snprintf(json, sizeof json, "%s/run.json", dir);
    char *argv[] = { "run", "null", "--reps", "2", "--warmup", "0", "--quiet", "--db", db,
                     "--json", json, NULL };
    int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
    static struct vp_run_steps steps;
    memset(&steps, 0, sizeof steps);
    char err[512];
    assert_int_equal(vp_run_steps_of_words(&steps, argc, argv, NULL, err, sizeof err), 0);
    /* its topology loaded and its points checked, as cmd/run.c does */
    assert_int_equal(vp_run_steps_check_here(&steps, VP_CHECK_THIS_HOSTS, err, sizeof err), 0);
    const struct vp_runner runner = {
        .program = "virtperf run", .keeps_session = true, .context = &ending,
        .run_step = run_step_then_end, .interrupted = was_interrupted,
    };
    fflush(stdout); /* the run's table to /dev/null, cmocka's lines kept */
    int kept = dup(STDOUT_FILENO), nothing = open("/dev/null", O_WRONLY);
    assert_true(kept >= 0 && nothing >= 0 && dup2(nothing, STDOUT_FILENO) == STDOUT_FILENO);
    int exit_status = vp_run_execute(&runner, &steps, argc, argv);
    fflush(stdout);
    assert_int_equal(dup2(kept, STDOUT_FILENO), STDOUT_FILENO);
    close(kept);
    close(nothing);
    vp_run_steps_free(&steps);
    json_t *document = json_load_file(json, 0, NULL);
    assert_non_null(document);
    const char *stored = json_string_value(json_object_get(json_object_get(document, "run"),
                                                           "status"));
    assert_non_null(stored);
    snprintf(status, status_len, "%s", stored);
    /* its one result ran whole: the run's status says what the runner said of it */
    const json_t *result = json_array_get(json_object_get(document, "results"), 0);
    assert_string_equal(json_string_value(json_object_get(result, "status")), "ok");
    json_decref(document);
    unlink(json);
    unlink(db);
    rmdir(dir);
    return exit_status;
}

static void every_point_ran_is_ok(void **state)
{
    (void)state;
    char status[32];
    assert_int_equal(run_ending((struct ending){ .stop = false }, status, sizeof status), 0);
    assert_string_equal(status, "ok");
}

static void stopped_by_a_loss_is_failed(void **state)
{
    (void)state;
    char status[32];
    assert_int_equal(run_ending((struct ending){ .stop = true }, status, sizeof status), 1);
    assert_string_equal(status, "failed");
}

static void stopped_by_a_signal_is_interrupted(void **state)
{
    (void)state;
    char status[32];
    assert_int_equal(run_ending((struct ending){ .stop = true, .interrupted = true }, status,
                                sizeof status),
                     130);
    assert_string_equal(status, "interrupted");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_point_ran_is_ok),
        cmocka_unit_test(stopped_by_a_loss_is_failed),
        cmocka_unit_test(stopped_by_a_signal_is_interrupted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
