/* null: a hidden benchmark that does no work, for testing the engine itself (fio's null
 * engine is the model). Its figures are known in advance, so a test can check how the
 * engine combines them: every job writes 1 to `jobs` (summed: the job count), its index
 * to `last_job` (the largest: jobs - 1) and the repetition's number to `rep` (the mean:
 * which repetitions were measured), and NAN to `unmeasured` (left out of the result).
 * --fail makes one job (--fail-job) fail on purpose at one stage: in setup, in prepare,
 * or at repetition --fail-rep by returning an error from measure, by dying of a signal,
 * by exiting, or by hanging until it is killed. It declares the result part "known"
 * ({"jobs": N}), here and nowhere else, which tests/unit/test_parts.c puts on a result to
 * show that a part needs nothing but its benchmark (its runs never carry it, so the JSON
 * contract stays as it is). Not listed, not in any family: run it by its name. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"

static const struct vp_option null_options[] = {
    { "fail", VP_OPT_CHOICE, "none", 0, 0, "none|setup|prepare|measure|crash|exit|hang",
      "where a job fails on purpose: setup (in the parent), prepare, or at --fail-rep by an "
      "error from measure, a SIGSEGV, _exit(3), or hanging" },
    { "fail-job", VP_OPT_COUNT, "0", 0, 1023, NULL, "the job that fails" },
    { "fail-rep", VP_OPT_COUNT, "0", 0, 1100, NULL,
      "the repetition it fails at, counting warm-ups from 0" },
};

enum null_metric { NULL_JOBS, NULL_LAST_JOB, NULL_REP, NULL_UNMEASURED, NULL_METRIC_COUNT };

static const struct vp_metric null_metrics[] = {
    [NULL_JOBS] = { "jobs", "jobs", VP_HIGHER_IS_BETTER, VP_AGG_SUM, "1 per job, summed" },
    [NULL_LAST_JOB] = { "last_job", "jobs", VP_HIGHER_IS_BETTER, VP_AGG_MAX,
                        "each job's index, the largest kept" },
    [NULL_REP] = { "rep", "reps", VP_HIGHER_IS_BETTER, VP_AGG_MEAN,
                   "the repetition's number, counting warm-ups from 0" },
    [NULL_UNMEASURED] = { "unmeasured", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                          "always NAN: never in a result" },
};
_Static_assert(sizeof null_metrics / sizeof null_metrics[0] == NULL_METRIC_COUNT,
               "one null metric per slot");

static bool fails_here(const struct vp_job *job, const char *stage)
{
    return strcmp(vp_param_text(job->params, "fail"), stage) == 0 &&
           job->index == vp_param_number(job->params, "fail-job");
}

static int null_setup(const struct vp_params *params, char *err, size_t err_len)
{
    if (strcmp(vp_param_text(params, "fail"), "setup") != 0)
        return 0;
    snprintf(err, err_len, "null: setup failed on purpose (--fail=setup)");
    return -1;
}

static int null_prepare(struct vp_job *job)
{
    if (!fails_here(job, "prepare"))
        return 0;
    snprintf(job->error, sizeof job->error, "null: prepare failed on purpose (--fail=prepare)");
    return -1;
}

static int null_measure(struct vp_job *job, double *values)
{
    if (job->rep == vp_param_number(job->params, "fail-rep")) {
        if (fails_here(job, "measure")) {
            snprintf(job->error, sizeof job->error, "null: measure failed on purpose at "
                     "repetition %u (--fail=measure)", job->rep);
            return -1;
        }
        if (fails_here(job, "crash")) {
            signal(SIGSEGV, SIG_DFL); /* a sanitizer's handler would turn it into an exit */
            raise(SIGSEGV);
        }
        if (fails_here(job, "exit"))
            _exit(3);
        while (fails_here(job, "hang"))
            pause();
    }
    values[NULL_JOBS] = 1;
    values[NULL_LAST_JOB] = job->index;
    values[NULL_REP] = job->rep;
    values[NULL_UNMEASURED] = NAN;
    return 0;
}

/* {"jobs": 1..VP_MAX_JOBS} and nothing else. */
static int check_known(struct vp_check *checker, const json_t *known, const char *path)
{
    if (!json_is_object(known) || json_object_size(known) != 1)
        return vp_check_fail(checker, "%s.known: accepted: {\"jobs\": N}", path);
    char at[256];
    snprintf(at, sizeof at, "%s.known", path);
    return vp_check_integer(checker, known, at, "jobs", 1, 1024, 1);
}

static void print_known(FILE *out, const json_t *known, enum vp_unit_style style)
{
    (void)style;
    fprintf(out, "  known: %lld jobs\n",
            (long long)json_integer_value(json_object_get(known, "jobs")));
}

static const struct vp_result_part known_part = { "known", check_known, print_known };
static const struct vp_result_part *const null_parts[] = { &known_part, NULL };

const struct vp_bench vp_bench_null = {
    .name = "null",
    .hidden = true,
    .summary = "no work: known figures and failures on purpose, for testing the engine",
    .description = "Each job writes known figures (1, its index, the repetition's number) "
                   "and, with --fail, fails at the stage named. For the engine's tests.",
    .options = null_options,
    .option_count = sizeof null_options / sizeof null_options[0],
    .metrics = null_metrics,
    .metric_count = NULL_METRIC_COUNT,
    .setup = null_setup,
    .prepare = null_prepare,
    .measure = null_measure,
    .parts = null_parts,
};
