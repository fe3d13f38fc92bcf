/* Job engine: fork, pin, prepare, timed-sleep start barrier, collection through the
 * shared region (shared.c), failure and interruption handling. The result document is
 * assembled by result.c. */
#define _GNU_SOURCE
#include "engine/engine.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/inference.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/monitor.h"
#include "engine/result.h"
#include "engine/shared.h"
#include "core/stats.h"

#define WAIT_SLICE_NS 50000000
#define START_AWAKE_NS 200000

/* Time between the release of a repetition and its start instant: enough for every
 * sleeping job to be woken and call clock_nanosleep, even when jobs outnumber cores. */
static int64_t start_lead_ns(unsigned jobs)
{
    return 2000000 + 100000 * (int64_t)jobs;
}

static volatile sig_atomic_t interrupted;
static volatile sig_atomic_t stop_requested; /* SIGUSR1: a --background watch's run ended */

void vp_engine_note_interrupt(void)
{
    interrupted = 1;
}

static void on_signal(int signo)
{
    (void)signo;
    vp_engine_note_interrupt();
}

void vp_engine_catch_signals(void)
{
    struct sigaction action = { .sa_handler = on_signal };
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
}

bool vp_engine_interrupted(void)
{
    return interrupted != 0;
}

static void on_stop_request(int signo)
{
    (void)signo;
    stop_requested = 1;
}

void vp_engine_catch_stop_request(void)
{
    struct sigaction action = { .sa_handler = on_stop_request };
    sigemptyset(&action.sa_mask);
    sigaction(SIGUSR1, &action, NULL);
}


static void futex_wait(atomic_int *word, int expected, int64_t timeout_ns)
{
    struct timespec timeout = { timeout_ns / 1000000000, timeout_ns % 1000000000 };
    syscall(SYS_futex, word, FUTEX_WAIT, expected, timeout_ns ? &timeout : NULL, NULL, 0);
}

static void futex_wake_all(atomic_int *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void increment_and_wake(atomic_int *word)
{
    atomic_fetch_add(word, 1);
    futex_wake_all(word);
}

static _Noreturn void job_fail(struct vp_job_slot *slot, struct vp_control *control,
                               const char *reason)
{
    snprintf(slot->error, sizeof slot->error, "%s", reason);
    atomic_store(&slot->state, JOB_FAILED);
    increment_and_wake(&control->ready);
    increment_and_wake(&control->finished);
    _exit(1);
}

/* This job process's slot, for vp_job.fail_now (each job is a process of its own). */
static struct vp_job_slot *own_slot;
static struct vp_control *own_control;

static void fail_now(const char *reason)
{
    job_fail(own_slot, own_control, reason);
}

/* Everything one job process does, from pinning to release. */
static _Noreturn void job_main(const struct vp_bench *bench, const struct vp_params *params,
                               const struct vp_run_settings *settings,
                               const struct vp_shared *shared, unsigned index, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    /* A benchmark that Ctrl-C ends gracefully hears it from the parent (control->stop);
     * others die with it. */
    signal(SIGINT, bench->ends_on_interrupt ? SIG_IGN : SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    struct vp_job_slot *slot = vp_shared_slot(shared, index);
    struct vp_control *control = shared->control;
    char reason[VP_ERROR_LEN + 64];

    if (vp_pin_self(slot->cpu_planned) != 0) {
        snprintf(reason, sizeof reason, "cannot pin job %u to CPU %d: %s", index,
                 slot->cpu_planned, strerror(errno));
        job_fail(slot, control, reason);
    }
    vp_affinity_text(slot->affinity, sizeof slot->affinity);
    prctl(PR_SET_TIMERSLACK, 1UL); /* wake at the start instant, not up to 50 us late */
    bool oversubscribed = shared->jobs > (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    slot->cpu_seen = sched_getcpu();

    struct vp_job job = {
        .bench = bench, .index = index, .count = shared->jobs, .params = params,
        .rep_count = shared->reps,
        .duration = settings->duration > 0 ? settings->duration : bench->default_duration, .histogram = vp_shared_histogram(shared, index),
        .op_log = vp_shared_op_log(shared, index), .op_log_len = &slot->op_log_len,
        .op_log_cap = shared->op_log_cap, .stop = &control->stop, .detail = slot->detail,
        .detail_cap = sizeof slot->detail, .fail_now = fail_now,
    };
    own_slot = slot;
    own_control = control;
    if (job.histogram)
        vp_histogram_reset(job.histogram);
    if (bench->prepare && bench->prepare(&job) != 0)
        job_fail(slot, control, job.error);
    slot->op_bytes = job.op_bytes;
    atomic_store(&slot->state, JOB_READY);
    increment_and_wake(&control->ready);

    for (unsigned rep = 0; rep < shared->reps; rep++) {
        int released;
        while ((released = atomic_load(&control->released)) <= (int)rep)
            futex_wait(&control->released, released, 0);
        int cut = atomic_load(&control->cut); /* --reps auto had enough */
        if (cut > 0 && rep >= (unsigned)cut)
            break;
        if (rep == settings->warmup && job.histogram)
            vp_histogram_reset(job.histogram); /* the warm-up's operations do not count */
        slot->op_log_len = 0;
        job.rep = rep;
        job.intervals = vp_shared_intervals(shared, index, rep);
        job.interval_count = shared->interval_count;
        job.interval_origin_ns = shared->start_at[rep];
        /* Asleep until just before the instant, then awake to it: waking from an idle
         * CPU takes tens of microseconds that differ from CPU to CPU and host to host
         * (more under a hypervisor); the last stretch costs no wake-up. Yielding, not
         * spinning, so that jobs sharing a CPU all get there. */
        vp_sleep_until_ns(shared->start_at[rep] - START_AWAKE_NS);
        while (vp_now_ns() < shared->start_at[rep])
            sched_yield();
        struct vp_rep_record *record = vp_shared_record(shared, index, rep);
        record->start_ns = vp_now_ns();
        /* More jobs than CPUs: all woke at the same instant, but only one per CPU runs,
         * and the rest would wait a time slice or more before their first instruction.
         * Yielding until every job has recorded its start lets all of them begin
         * together; unlike a spinning barrier, yielding cannot starve a job that has
         * no CPU of its own. */
        atomic_fetch_add(&control->started, 1);
        while (oversubscribed && atomic_load(&control->started) < (int)((rep + 1) * shared->jobs))
            sched_yield();
        int status = bench->measure(&job, record->values);
        record->end_ns = vp_now_ns();
        if (status != 0 || (bench->after_rep && bench->after_rep(&job) != 0))
            job_fail(slot, control, job.error);
        increment_and_wake(&control->finished);
    }
    if (bench->release)
        bench->release(&job);
    atomic_store(&slot->state, JOB_FINISHED);
    _exit(0);
}

/* Describes why job 'index' stopped before finishing. */
static void explain_exit(const struct vp_shared *shared, unsigned index, pid_t pid, int status,
                         char *reason, size_t len)
{
    const struct vp_job_slot *slot = vp_shared_slot(shared, index);
    if (atomic_load(&slot->state) == JOB_FAILED)
        snprintf(reason, len, "job %u: %s", index, slot->error);
    else if (WIFSIGNALED(status))
        snprintf(reason, len, "job %u (pid %d) killed by signal %d (%s)", index, (int)pid,
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(reason, len, "job %u (pid %d) exited with status %d before finishing", index,
                 (int)pid, WEXITSTATUS(status));
}

enum wait_outcome { WAIT_DONE, WAIT_FAILED, WAIT_INTERRUPTED };

#define REAP_NS 2000000000 /* how long a job told to end may take to be gone */

/* Ends a job that failed or must stop (SIGKILL) and reaps it within REAP_NS. A job
 * blocked in the kernel (a read from a hung mount that its server never answers) cannot
 * end even so: it is left behind, said once, rather than holding the run for ever. */
static void end_job(pid_t pid, int *status)
{
    kill(pid, SIGKILL);
    int64_t until = vp_now_ns() + REAP_NS;
    while (waitpid(pid, status, WNOHANG) == 0) {
        if (vp_now_ns() > until) {
            fprintf(stderr, "virtperf: job pid %d does not end (blocked in the kernel, on a "
                    "hung mount?): left behind\n", (int)pid);
            return;
        }
        vp_sleep_until_ns(vp_now_ns() + 10000000);
    }
}

#define GRACEFUL_STOP_NS 5000000000 /* how long jobs asked to stop may take */

/* Waits until *counter reaches target, watching for dead jobs and interruption; when
 * graceful, an interruption asks the jobs to stop (control->stop) and waits for them. */
static enum wait_outcome wait_for(const struct vp_shared *shared, atomic_int *counter, int target,
                                  pid_t *pids, bool graceful, char *reason, size_t len)
{
    int64_t stop_deadline = 0;
    for (;;) {
        for (unsigned job = 0; job < shared->jobs; job++) {
            if (atomic_load(&vp_shared_slot(shared, job)->state) == JOB_FAILED) {
                int status = 0;
                end_job(pids[job], &status);
                explain_exit(shared, job, pids[job], status, reason, len);
                pids[job] = 0;
                return WAIT_FAILED;
            }
        }
        int value = atomic_load(counter);
        if (value >= target)
            return WAIT_DONE;
        if (interrupted && !graceful)
            return WAIT_INTERRUPTED;
        bool stopping = graceful && (interrupted || stop_requested);
        if (stopping && !stop_deadline) {
            atomic_store(&shared->control->stop, 1);
            stop_deadline = vp_now_ns() + GRACEFUL_STOP_NS;
        } else if (stopping && vp_now_ns() > stop_deadline) {
            return WAIT_INTERRUPTED;
        }
        for (unsigned job = 0; job < shared->jobs; job++) {
            int status;
            if (pids[job] > 0 && waitpid(pids[job], &status, WNOHANG) == pids[job]) {
                bool finished = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
                                atomic_load(&vp_shared_slot(shared, job)->state) == JOB_FINISHED;
                if (!finished)
                    explain_exit(shared, job, pids[job], status, reason, len);
                pids[job] = 0; /* reaped: a finished job needs nothing more */
                if (!finished)
                    return WAIT_FAILED;
            }
        }
        futex_wait(counter, value, WAIT_SLICE_NS);
    }
}

static void stop_jobs(pid_t *pids, unsigned jobs)
{
    for (unsigned job = 0; job < jobs; job++)
        if (pids[job] > 0)
            kill(pids[job], SIGKILL);
    for (unsigned job = 0; job < jobs; job++) {
        if (pids[job] > 0) {
            int status;
            end_job(pids[job], &status);
            pids[job] = 0;
        }
    }
}


/* The CPUs the monitor samples from: those this process may use but no job is pinned
 * to, so the observer does not sit on a measured CPU. NULL (anywhere) when no CPU is
 * left or the affinity cannot be read. */
static const cpu_set_t *monitor_cpus(const int *cpus, unsigned jobs, cpu_set_t *set)
{
    if (sched_getaffinity(0, sizeof *set, set) != 0)
        return NULL;
    for (unsigned job = 0; job < jobs; job++)
        if (cpus[job] >= 0 && cpus[job] < CPU_SETSIZE)
            CPU_CLR(cpus[job], set);
    return CPU_COUNT(set) > 0 ? set : NULL;
}

/* A result that failed before its jobs started; hosts started together are told, as
 * they would be by a failure at the first repetition. */
static json_t *failed_before_start(json_t *result, const struct vp_run_settings *settings,
                                   const char *reason)
{
    const struct vp_run_sync *sync = settings->sync;
    if (sync) {
        char ignored[VP_ERROR_LEN];
        int64_t start;
        sync->start(sync->context, NULL, 0, false, 0, &start, ignored, sizeof ignored);
        sync->measured(sync->context, NULL, NULL, NULL);
    }
    return vp_result_finish(result, "failed", reason);
}

/* One result's run, phase by phase: the jobs forked and ready, each repetition released
 * and waited for, the jobs reaped, the figures recorded. */
struct engine_run {
    const struct vp_bench *bench;
    const struct vp_params *params;
    unsigned jobs, total_reps;
    const struct vp_run_settings *settings;
    json_t *result;
    struct vp_shared shared;
    int cpus[VP_MAX_JOBS];
    pid_t pids[VP_MAX_JOBS];
    double *stonewall, *span; /* per measured repetition, from the op logs */
    struct vp_monitor *monitor;
    enum wait_outcome outcome;
    char reason[VP_ERROR_LEN + 128];
};

/* Forks the jobs, each pinned to its planned CPU, and waits until all are ready. */
static void start_jobs(struct engine_run *run)
{
    pid_t parent = getpid();
    fflush(NULL);
    run->outcome = WAIT_DONE;
    for (unsigned job = 0; job < run->jobs && run->outcome == WAIT_DONE; job++) {
        vp_shared_slot(&run->shared, job)->cpu_planned = run->cpus[job];
        run->pids[job] = fork();
        if (run->pids[job] == 0)
            job_main(run->bench, run->params, run->settings, &run->shared, job, parent);
        if (run->pids[job] < 0) {
            run->pids[job] = 0;
            snprintf(run->reason, sizeof run->reason, "cannot fork job %u: %s", job,
                     strerror(errno));
            run->outcome = WAIT_FAILED;
        }
    }
    if (run->outcome == WAIT_DONE)
        run->outcome = wait_for(&run->shared, &run->shared.control->ready, (int)run->jobs,
                                run->pids, false, run->reason, sizeof run->reason);
}

/* The instant repetition rep starts: now and a lead alone, or the one every host agreed
 * on (sync). Returns false when the repetitions must end. */
static bool agree_start(struct engine_run *run, unsigned rep)
{
    const struct vp_run_sync *sync = run->settings->sync;
    if (!sync) {
        if (run->outcome != WAIT_DONE)
            return false; /* the monitor could not start */
        run->shared.start_at[rep] = vp_now_ns() + start_lead_ns(run->jobs);
        return true;
    }
    char why[VP_ERROR_LEN];
    int64_t start;
    if (sync->start(sync->context, &run->shared, rep, run->outcome == WAIT_DONE,
                    start_lead_ns(run->jobs), &start, why, sizeof why) != 0) {
        if (run->outcome == WAIT_DONE) {
            run->outcome = interrupted ? WAIT_INTERRUPTED : WAIT_FAILED;
            snprintf(run->reason, sizeof run->reason, "%s", why);
        }
        return false;
    }
    if (run->outcome == WAIT_DONE)
        run->shared.start_at[rep] = start;
    return true; /* a host that failed still calls: the others learn it at the next call */
}

/* A watch stopped by Ctrl-C or by the run (--background) at its last repetition keeps
 * what it saw, with a warning; earlier, the result is interrupted. */
static void note_watch_stopped(struct engine_run *run, unsigned rep)
{
    const struct vp_run_settings *settings = run->settings;
    if (rep + 1 < run->total_reps) { /* stopped early, with repetitions to go */
        run->outcome = WAIT_INTERRUPTED;
        return;
    }
    double watched = (double)(vp_now_ns() - run->shared.start_at[rep]) / 1e9;
    if (interrupted)
        vp_result_warn(run->result, "ended by Ctrl-C after %.3g s of the %.3g s asked; what "
                       "it saw until then is kept", watched,
                       settings->duration > 0 ? settings->duration : run->bench->default_duration);
    else
        vp_result_warn(run->result, "watched for %.3g s, in the background of the run's "
                       "other benchmarks, until they ended", watched);
}

/* --reps auto: whether the measured repetitions so far (at least VP_AUTO_REPS_MIN) put
 * the 95% interval of the headline metric within the target; *half_width: its share of
 * the mean. */
static bool precise_enough(const struct engine_run *run, unsigned measured, double *half_width)
{
    const struct vp_run_settings *settings = run->settings;
    double values[VP_MAX_REPS] = { 0 };
    for (unsigned r = 0; r < measured; r++)
        values[r] = vp_rep_value(run->bench, &run->shared, 0, settings->warmup + r);
    *half_width = vp_relative_half_width(values, measured);
    return measured >= VP_AUTO_REPS_MIN && isfinite(*half_width) &&
           *half_width <= settings->reps_target;
}

/* Ends --reps auto's repetitions after count: the jobs waiting for the next one see the
 * cut once released moves, and leave. */
static void cut_repetitions(struct engine_run *run, unsigned count)
{
    atomic_store(&run->shared.control->cut, (int)count);
    atomic_store(&run->shared.control->released, INT_MAX);
    futex_wake_all(&run->shared.control->released);
    run->total_reps = count;
    run->shared.ran = count;
}

/* Every repetition: the monitor starts with the first measured one; each is released at
 * its start instant and waited for; --reps auto stops once the interval is reached. */
static void run_repetitions(struct engine_run *run)
{
    const struct vp_run_settings *settings = run->settings;
    const struct vp_bench *bench = run->bench;
    char what[128];
    snprintf(what, sizeof what, "%s jobs=%u", bench->name, run->jobs);
    for (unsigned rep = 0; rep < run->total_reps && (run->outcome == WAIT_DONE || settings->sync);
         rep++) {
        if (rep == settings->warmup && run->outcome == WAIT_DONE) {
            cpu_set_t observer;
            run->monitor = vp_monitor_start(settings->monitor_hz, settings->watch,
                                            settings->watch_count,
                                            monitor_cpus(run->cpus, run->jobs, &observer),
                                            run->reason, sizeof run->reason);
            if (!run->monitor)
                run->outcome = WAIT_FAILED;
        }
        if (!agree_start(run, rep))
            break;
        if (run->outcome != WAIT_DONE)
            continue;
        atomic_store(&run->shared.control->released, (int)rep + 1);
        futex_wake_all(&run->shared.control->released);
        run->outcome = wait_for(&run->shared, &run->shared.control->finished,
                                (int)((rep + 1) * run->jobs), run->pids,
                                bench->ends_on_interrupt, run->reason, sizeof run->reason);
        if (run->outcome == WAIT_DONE && bench->ends_on_interrupt && (interrupted || stop_requested)) {
            note_watch_stopped(run, rep);
            if (run->outcome != WAIT_DONE)
                break;
        }
        if (run->outcome == WAIT_DONE && run->shared.op_log_cap && rep >= settings->warmup)
            vp_op_log_rates(&run->shared, rep, &run->stonewall[rep - settings->warmup],
                            &run->span[rep - settings->warmup]);
        if (run->outcome == WAIT_DONE && settings->progress)
            vp_progress_step(settings->progress, what);
        double half_width;
        if (run->outcome == WAIT_DONE && settings->reps_target > 0 && rep >= settings->warmup &&
            rep + 1 < run->total_reps &&
            precise_enough(run, rep + 1 - settings->warmup, &half_width)) {
            cut_repetitions(run, rep + 1);
            break;
        }
    }
    if (run->outcome != WAIT_DONE || settings->reps_target <= 0)
        return;
    double half_width;
    unsigned measured = run->total_reps - settings->warmup;
    if (!precise_enough(run, measured, &half_width))
        vp_result_warn(run->result, "--reps auto: the 95%% interval of %s is +-%.2g%% of its "
                       "mean after %u repetitions, short of the %.2g%% asked (--reps auto:MAX "
                       "runs more)", run->bench->metrics[0].name, 100 * half_width, measured,
                       100 * settings->reps_target);
    json_object_set_new(run->result, "reps", json_integer(measured));
    json_object_set_new(run->result, "reps_target", json_real(settings->reps_target));
}

/* Reaps the jobs (a job that did not exit 0 fails the result), stops any left. */
static void reap_jobs(struct engine_run *run)
{
    bool finished = run->outcome == WAIT_DONE;
    for (unsigned job = 0; job < run->jobs && finished; job++) {
        int status;
        if (run->pids[job] == 0)
            continue; /* reaped after it finished, while others still ran */
        while (waitpid(run->pids[job], &status, 0) < 0 && errno == EINTR)
            ;
        if (run->outcome == WAIT_DONE && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
            explain_exit(&run->shared, job, run->pids[job], status, run->reason,
                         sizeof run->reason);
            run->outcome = WAIT_FAILED;
        }
        run->pids[job] = 0;
    }
    stop_jobs(run->pids, run->jobs);
}

/* The figures, the monitor's view and the benchmark's notes into the result. */
static void record_figures(struct engine_run *run, json_t *monitor_json)
{
    vp_result_add_measurements(run->result, run->bench, &run->shared, run->settings->warmup,
                               run->stonewall, run->span);
    const json_t *missing = json_object_get(monitor_json, "watch_missing");
    size_t m;
    const json_t *name;
    json_array_foreach(missing, m, name)
        vp_result_warn(run->result, "--watch %s: no process of that name ran while this was "
                       "measured", json_string_value(name));
    json_object_del(monitor_json, "watch_missing");
    json_object_set_new(run->result, "monitor", monitor_json);
    if (run->bench->annotate)
        run->bench->annotate(run->params, run->jobs, run->result);
}

/* compact and spread are one placement on a machine of one package (and on any machine
 * for one job): a sweep of both would measure the same thing twice, so the result says so. */
static void note_same_placement(json_t *result, const struct vp_run_settings *settings,
                                unsigned jobs, const int *cpus)
{
    const char *spec = settings->pin_spec, *other = NULL;
    if (jobs < 2 || !spec)
        return;
    if (strcmp(spec, "compact") == 0)
        other = "spread";
    else if (strcmp(spec, "spread") == 0)
        other = "compact";
    else
        return;
    int other_cpus[VP_MAX_JOBS];
    char err[VP_ERROR_LEN];
    if (vp_pin_plan(settings->topology, other, jobs, other_cpus, err, sizeof err) == 0 &&
        memcmp(cpus, other_cpus, jobs * sizeof *cpus) == 0) {
        struct vp_topology_counts counts;
        vp_topology_count(settings->topology, &counts);
        vp_result_warn(result, "--pin %s: the same CPUs as --pin %s on this machine (%u "
                       "package%s): the two place these %u jobs alike", spec, other,
                       counts.packages, counts.packages == 1 ? "" : "s", jobs);
    }
}

json_t *vp_engine_run(const struct vp_bench *bench, const struct vp_params *params,
                      unsigned jobs, const struct vp_run_settings *settings)
{
    struct engine_run *run = malloc(sizeof *run);
    if (!run)
        abort();
    *run = (struct engine_run){ .bench = bench, .params = params, .jobs = jobs,
                                .total_reps = settings->warmup + settings->reps,
                                .settings = settings,
                                .result = vp_result_start(bench, params, jobs, settings) };
    json_t *result = run->result;
    int refused = 0;
    if (vp_pin_plan(settings->topology, settings->pin_spec, jobs, run->cpus, run->reason,
                    sizeof run->reason) != 0) {
        refused = 1;
    } else if (bench->setup && bench->setup(params, run->reason, sizeof run->reason) != 0) {
        if (bench->teardown)
            bench->teardown(params, jobs);
        refused = 1;
    } else if (vp_shared_map(&run->shared, bench, params, jobs, run->total_reps,
                             settings->duration > 0 ? settings->duration
                                                    : bench->default_duration) != 0) {
        /* after setup: the op log's size may depend on what setup loaded (a step's fileset) */
        snprintf(run->reason, sizeof run->reason, "cannot map shared memory for the jobs");
        if (bench->teardown)
            bench->teardown(params, jobs);
        refused = 1;
    }
    if (!refused)
        note_same_placement(result, settings, jobs, run->cpus);
    if (refused) {
        result = failed_before_start(result, settings, run->reason);
        free(run);
        return result;
    }
    run->stonewall = calloc(settings->reps, sizeof *run->stonewall);
    run->span = calloc(settings->reps, sizeof *run->span);
    if (!run->stonewall || !run->span)
        abort();

    start_jobs(run);
    run_repetitions(run);
    json_t *monitor_json = run->monitor ? vp_monitor_stop(run->monitor) : NULL;
    reap_jobs(run);
    if (settings->sync)
        settings->sync->measured(settings->sync->context,
                                 run->outcome == WAIT_DONE ? &run->shared : NULL,
                                 run->stonewall, run->span);
    if (run->outcome == WAIT_DONE)
        record_figures(run, monitor_json);
    else
        json_decref(monitor_json);
    munmap(run->shared.base, run->shared.size);
    free(run->stonewall);
    free(run->span);
    if (bench->teardown)
        bench->teardown(params, jobs);
    enum wait_outcome outcome = run->outcome;
    char reason[sizeof run->reason];
    memcpy(reason, run->reason, sizeof reason);
    free(run);
    if (outcome == WAIT_INTERRUPTED)
        return vp_result_finish(result, "interrupted", "interrupted by a signal");
    if (outcome == WAIT_FAILED)
        return vp_result_finish(result, "failed", reason);
    return vp_result_finish(result, "ok", NULL);
}