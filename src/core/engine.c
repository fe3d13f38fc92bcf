/* Job engine: fork, pin, prepare, timed-sleep start barrier, shared-memory results,
 * failure and interruption handling, and assembly of the result document. */
#define _GNU_SOURCE
#include "core/engine.h"

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
#include "core/monitor.h"
#include "core/result.h"
#include "core/stats.h"

#define WAIT_SLICE_NS 50000000

/* Time between the release of a repetition and its start instant: enough for every
 * sleeping job to be woken and call clock_nanosleep, even when jobs outnumber cores. */
static int64_t start_lead_ns(unsigned jobs)
{
    return 2000000 + 100000 * (int64_t)jobs;
}

static volatile sig_atomic_t interrupted;

static void on_signal(int signo)
{
    (void)signo;
    interrupted = 1;
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

enum job_state { JOB_STARTING, JOB_READY, JOB_FINISHED, JOB_FAILED };

/* One job's slot in the shared region; the per-repetition arrays follow it. */
struct job_slot {
    atomic_int state;
    int cpu_planned;
    int cpu_seen;
    char affinity[64];
    char error[VP_ERROR_LEN];
    uint64_t op_bytes;   /* bytes per logged operation */
    uint64_t op_log_len; /* operations logged in the current repetition */
};

struct rep_record {
    int64_t start_ns, end_ns;
    double values[VP_MAX_METRICS];
};

struct control {
    atomic_int ready;    /* jobs prepared */
    atomic_int released; /* repetitions released */
    atomic_int started;  /* job-repetitions started */
    atomic_int finished; /* job-repetitions done */
};

/* The shared region: control, start instants, then per job a slot, its records, its
 * latency histogram (benchmarks with a distribution) and its op log (with ops_per_rep). */
struct shared {
    void *base;
    size_t size;
    unsigned jobs, reps;
    size_t histogram_bytes, op_log_cap;
    size_t interval_count; /* per-second counters per repetition (0: none) */
    struct control *control;
    int64_t *start_at;
};

/* Every part starts on its own cache line: aligned for its types, and one job's writes
 * never share a line with another job's. */
static size_t cache_lines(size_t bytes)
{
    return (bytes + 63) & ~(size_t)63;
}

static size_t slot_bytes(void)
{
    return cache_lines(sizeof(struct job_slot));
}

static size_t records_bytes(const struct shared *shared)
{
    return cache_lines((size_t)shared->reps * sizeof(struct rep_record));
}

static size_t intervals_bytes(const struct shared *shared)
{
    return cache_lines(shared->interval_count * shared->reps * sizeof(uint64_t));
}

static size_t job_stride(const struct shared *shared)
{
    return slot_bytes() + records_bytes(shared) + shared->histogram_bytes +
           cache_lines(shared->op_log_cap * sizeof(int64_t)) + intervals_bytes(shared);
}

static size_t jobs_offset(const struct shared *shared)
{
    return cache_lines(sizeof(struct control)) + cache_lines(shared->reps * sizeof(int64_t));
}

static struct job_slot *slot_of(const struct shared *shared, unsigned job)
{
    char *jobs_base = (char *)shared->base + jobs_offset(shared);
    return (struct job_slot *)(jobs_base + job * job_stride(shared));
}

static struct rep_record *record_of(const struct shared *shared, unsigned job, unsigned rep)
{
    char *records = (char *)slot_of(shared, job) + slot_bytes();
    return (struct rep_record *)records + rep;
}

static struct vp_histogram *histogram_of(const struct shared *shared, unsigned job)
{
    if (!shared->histogram_bytes)
        return NULL;
    return (struct vp_histogram *)((char *)slot_of(shared, job) + slot_bytes() +
                                   records_bytes(shared));
}

static int64_t *op_log_of(const struct shared *shared, unsigned job)
{
    if (!shared->op_log_cap)
        return NULL;
    return (int64_t *)((char *)slot_of(shared, job) + slot_bytes() + records_bytes(shared) +
                       shared->histogram_bytes);
}

/* The per-second counters of one job's repetition. */
static uint64_t *intervals_of(const struct shared *shared, unsigned job, unsigned rep)
{
    if (!shared->interval_count)
        return NULL;
    char *base = (char *)slot_of(shared, job) + slot_bytes() + records_bytes(shared) +
                 shared->histogram_bytes + cache_lines(shared->op_log_cap * sizeof(int64_t));
    return (uint64_t *)base + (size_t)rep * shared->interval_count;
}

static int shared_map(struct shared *shared, const struct vp_bench *bench,
                      const struct vp_params *params, unsigned jobs, unsigned reps,
                      double duration)
{
    shared->jobs = jobs;
    shared->reps = reps;
    shared->histogram_bytes =
        bench->distribution_metric ? cache_lines(sizeof(struct vp_histogram)) : 0;
    shared->op_log_cap = bench->ops_per_rep ? bench->ops_per_rep(params) : 0;
    /* The repetition's seconds plus room for warm-up options (at most a minute). */
    shared->interval_count = bench->interval_series ? (size_t)ceil(duration) + 62 : 0;
    shared->size = jobs_offset(shared) + jobs * job_stride(shared);
    shared->base = mmap(NULL, shared->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                        -1, 0);
    if (shared->base == MAP_FAILED)
        return -1;
    shared->control = shared->base;
    shared->start_at = (int64_t *)((char *)shared->base + cache_lines(sizeof(struct control)));
    return 0;
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

static _Noreturn void job_fail(struct job_slot *slot, struct control *control,
                               const char *reason)
{
    snprintf(slot->error, sizeof slot->error, "%s", reason);
    atomic_store(&slot->state, JOB_FAILED);
    increment_and_wake(&control->ready);
    increment_and_wake(&control->finished);
    _exit(1);
}

/* Everything one job process does, from pinning to release. */
static _Noreturn void job_main(const struct vp_bench *bench, const struct vp_params *params,
                               const struct vp_run_settings *settings,
                               const struct shared *shared, unsigned index, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    struct job_slot *slot = slot_of(shared, index);
    struct control *control = shared->control;
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
        .duration = settings->duration > 0 ? settings->duration : bench->default_duration, .histogram = histogram_of(shared, index),
        .op_log = op_log_of(shared, index), .op_log_len = &slot->op_log_len,
        .op_log_cap = shared->op_log_cap,
    };
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
        if (rep == settings->warmup && job.histogram)
            vp_histogram_reset(job.histogram); /* the warm-up's operations do not count */
        slot->op_log_len = 0;
        job.rep = rep;
        job.intervals = intervals_of(shared, index, rep);
        job.interval_count = shared->interval_count;
        job.interval_origin_ns = shared->start_at[rep];
        vp_sleep_until_ns(shared->start_at[rep]);
        struct rep_record *record = record_of(shared, index, rep);
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
static void explain_exit(const struct shared *shared, unsigned index, pid_t pid, int status,
                         char *reason, size_t len)
{
    const struct job_slot *slot = slot_of(shared, index);
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

/* Waits until *counter reaches target, watching for dead jobs and interruption. */
static enum wait_outcome wait_for(const struct shared *shared, atomic_int *counter, int target,
                                  pid_t *pids, char *reason, size_t len)
{
    for (;;) {
        for (unsigned job = 0; job < shared->jobs; job++) {
            if (atomic_load(&slot_of(shared, job)->state) == JOB_FAILED) {
                int status = 0;
                waitpid(pids[job], &status, 0);
                explain_exit(shared, job, pids[job], status, reason, len);
                pids[job] = 0;
                return WAIT_FAILED;
            }
        }
        int value = atomic_load(counter);
        if (value >= target)
            return WAIT_DONE;
        if (interrupted)
            return WAIT_INTERRUPTED;
        for (unsigned job = 0; job < shared->jobs; job++) {
            int status;
            if (pids[job] > 0 && waitpid(pids[job], &status, WNOHANG) == pids[job]) {
                bool finished = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
                                atomic_load(&slot_of(shared, job)->state) == JOB_FINISHED;
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
            while (waitpid(pids[job], NULL, 0) < 0 && errno == EINTR)
                ;
            pids[job] = 0;
        }
    }
}

static double seconds_between(int64_t from_ns, int64_t to_ns)
{
    return (double)(to_ns - from_ns) / 1e9;
}

/* Per-repetition start skew and first/last done, relative to the agreed instant. */
static void add_timing(json_t *result, const struct shared *shared, unsigned warmup)
{
    unsigned measured = shared->reps - warmup;
    double *skew = calloc(measured, sizeof *skew);
    double *first = calloc(measured, sizeof *first);
    double *last = calloc(measured, sizeof *last);
    if (!skew || !first || !last)
        abort();
    json_t *timing = json_array();
    for (unsigned r = 0; r < measured; r++) {
        unsigned rep = warmup + r;
        int64_t min_start = INT64_MAX, max_start = INT64_MIN;
        int64_t min_end = INT64_MAX, max_end = INT64_MIN;
        for (unsigned job = 0; job < shared->jobs; job++) {
            const struct rep_record *record = record_of(shared, job, rep);
            if (record->start_ns < min_start) min_start = record->start_ns;
            if (record->start_ns > max_start) max_start = record->start_ns;
            if (record->end_ns < min_end) min_end = record->end_ns;
            if (record->end_ns > max_end) max_end = record->end_ns;
        }
        skew[r] = seconds_between(min_start, max_start);
        first[r] = seconds_between(shared->start_at[rep], min_end);
        last[r] = seconds_between(shared->start_at[rep], max_end);
        json_array_append_new(timing, json_pack("{s:f,s:f,s:f}", "start_skew_s", skew[r],
                                                "first_done_s", first[r], "last_done_s",
                                                last[r]));
    }
    struct vp_summary skew_summary;
    vp_summarize(skew, measured, &skew_summary);
    json_object_set_new(result, "start_skew_s", json_real(skew_summary.p50));
    json_object_set_new(result, "start_skew_max_s", json_real(skew_summary.max));
    json_object_set_new(result, "first_done_s", json_real(vp_percentile(first, measured, 50)));
    json_object_set_new(result, "last_done_s", json_real(vp_percentile(last, measured, 50)));
    json_object_set_new(result, "timing", timing);
    free(skew);
    free(first);
    free(last);
}

static json_t *metric_json(const struct vp_metric *metric, const double *values, size_t n)
{
    json_t *object = json_pack("{s:s,s:s,s:s}", "unit", metric->unit, "better",
                               vp_better_name(metric->better), "aggregate",
                               vp_aggregate_name(metric->across_jobs));
    vp_metric_set_stats(object, values, n);
    return object;
}

/* A benchmark writes NAN for a metric a run cannot measure (loss over TCP, say): the
 * metric is then left out of the result rather than given an invented value. */
static bool metric_measured(const struct shared *shared, size_t metric, unsigned warmup)
{
    for (unsigned job = 0; job < shared->jobs; job++)
        for (unsigned rep = warmup; rep < shared->reps; rep++)
            if (isnan(record_of(shared, job, rep)->values[metric]))
                return false;
    return true;
}

static void add_metrics(json_t *result, const struct vp_bench *bench,
                        const struct shared *shared, unsigned warmup)
{
    unsigned measured = shared->reps - warmup;
    double *values = calloc(measured, sizeof *values);
    if (!values)
        abort();
    json_t *metrics = json_object();
    for (size_t m = 0; m < bench->metric_count; m++) {
        const struct vp_metric *metric = &bench->metrics[m];
        if (!metric_measured(shared, m, warmup))
            continue;
        for (unsigned r = 0; r < measured; r++) {
            double combined = 0, largest = -INFINITY;
            for (unsigned job = 0; job < shared->jobs; job++) {
                double value = record_of(shared, job, warmup + r)->values[m];
                combined += value;
                largest = value > largest ? value : largest;
            }
            values[r] = metric->across_jobs == VP_AGG_SUM   ? combined
                        : metric->across_jobs == VP_AGG_MAX ? largest
                                                            : combined / shared->jobs;
        }
        json_object_set_new(metrics, metric->name, metric_json(metric, values, measured));
    }
    json_object_set_new(result, "metrics", metrics);

    json_t *per_job = json_array();
    double *offsets = calloc(measured, sizeof *offsets);
    double *done = calloc(measured, sizeof *done);
    if (!offsets || !done)
        abort();
    for (unsigned job = 0; job < shared->jobs; job++) {
        const struct job_slot *slot = slot_of(shared, job);
        json_t *job_metrics = json_object();
        for (size_t m = 0; m < bench->metric_count; m++) {
            if (!metric_measured(shared, m, warmup))
                continue;
            for (unsigned r = 0; r < measured; r++)
                values[r] = record_of(shared, job, warmup + r)->values[m];
            json_t *object = json_object();
            vp_metric_set_stats(object, values, measured);
            json_object_set_new(job_metrics, bench->metrics[m].name, object);
        }
        for (unsigned r = 0; r < measured; r++) {
            const struct rep_record *record = record_of(shared, job, warmup + r);
            offsets[r] = seconds_between(shared->start_at[warmup + r], record->start_ns);
            done[r] = seconds_between(shared->start_at[warmup + r], record->end_ns);
        }
        json_t *entry = json_pack("{s:i,s:s,s:i,s:f,s:f,s:o}", "job", (int)job, "cpu_binding",
                                  slot->affinity, "cpu_seen", slot->cpu_seen, "start_offset_s",
                                  vp_percentile(offsets, measured, 50), "done_offset_s",
                                  vp_percentile(done, measured, 50), "metrics", job_metrics);
        json_object_set_new(entry, "cpu_planned",
                            slot->cpu_planned >= 0 ? json_integer(slot->cpu_planned) : json_null());
        json_array_append_new(per_job, entry);
    }
    json_object_set_new(result, "per_job", per_job);
    free(values);
    free(offsets);
    free(done);
}

static json_t *result_skeleton(const struct vp_bench *bench, const struct vp_params *params,
                               unsigned jobs, const struct vp_run_settings *settings)
{
    char started[32];
    vp_utc_timestamp(started, sizeof started);
    json_t *result = json_pack("{s:s,s:o,s:i,s:s,s:i,s:i,s:s}", "bench", bench->name, "params",
                               vp_params_json(bench, params), "jobs", (int)jobs, "pin",
                               settings->pin_spec, "reps", (int)settings->reps, "warmup",
                               (int)settings->warmup, "started_at", started);
    double duration = settings->duration > 0 ? settings->duration : bench->default_duration;
    if (bench->uses_duration && duration > 0)
        json_object_set_new(result, "duration_s", json_real(duration));
    return result;
}

static json_t *finish(json_t *result, const char *status, const char *error)
{
    json_object_set_new(result, "status", json_string(status));
    if (error)
        json_object_set_new(result, "error", json_string(error));
    return result;
}

/* Aggregate rates of one repetition from the jobs' op logs: the bytes completed inside
 * the window in which every job was running (latest start .. earliest done), over that
 * window (stonewalled); and all bytes over earliest start .. latest done (span). Whole
 * operations only: one counts when its completion falls inside the window. */
static void op_log_rates(const struct shared *shared, unsigned rep, double *stonewall,
                         double *span)
{
    int64_t latest_start = INT64_MIN, earliest_end = INT64_MAX;
    int64_t earliest_start = INT64_MAX, latest_end = INT64_MIN;
    for (unsigned job = 0; job < shared->jobs; job++) {
        const struct rep_record *record = record_of(shared, job, rep);
        if (record->start_ns > latest_start) latest_start = record->start_ns;
        if (record->start_ns < earliest_start) earliest_start = record->start_ns;
        if (record->end_ns < earliest_end) earliest_end = record->end_ns;
        if (record->end_ns > latest_end) latest_end = record->end_ns;
    }
    double inside = 0, total = 0;
    for (unsigned job = 0; job < shared->jobs; job++) {
        const struct job_slot *slot = slot_of(shared, job);
        const int64_t *log = op_log_of(shared, job);
        uint64_t logged = slot->op_log_len < shared->op_log_cap ? slot->op_log_len
                                                                : shared->op_log_cap;
        for (uint64_t i = 0; i < logged; i++)
            if (log[i] > latest_start && log[i] <= earliest_end)
                inside += (double)slot->op_bytes;
        total += (double)logged * (double)slot->op_bytes;
    }
    *stonewall = earliest_end > latest_start ? inside / seconds_between(latest_start, earliest_end)
                                             : 0;
    *span = total / seconds_between(earliest_start, latest_end);
}

static void add_aggregate_rates(json_t *result, const double *stonewall, const double *span,
                                size_t measured)
{
    static const struct vp_metric stonewall_metric = {
        "stonewall_throughput", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
        "bytes done while every job ran, over that window",
    };
    static const struct vp_metric span_metric = {
        "span_throughput", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
        "all bytes over first start .. last done",
    };
    json_t *metrics = json_object_get(result, "metrics");
    json_object_set_new(metrics, stonewall_metric.name,
                        metric_json(&stonewall_metric, stonewall, measured));
    json_object_set_new(metrics, span_metric.name, metric_json(&span_metric, span, measured));
}

/* Sums the jobs' per-second counts of each measured repetition, trailing empty seconds
 * dropped: {"interval_s": 1, "unit": "B/s", "what", "reps": [[...], ...]}. */
static void add_intervals(json_t *result, const struct vp_bench *bench,
                          const struct shared *shared, unsigned warmup)
{
    json_t *reps = json_array();
    for (unsigned rep = warmup; rep < shared->reps; rep++) {
        size_t used = 0;
        json_t *series = json_array();
        for (size_t i = 0; i < shared->interval_count; i++) {
            uint64_t total = 0;
            for (unsigned job = 0; job < shared->jobs; job++)
                total += intervals_of(shared, job, rep)[i];
            if (total)
                used = i + 1;
            json_array_append_new(series, json_real((double)total));
        }
        while (json_array_size(series) > used)
            json_array_remove(series, json_array_size(series) - 1);
        json_array_append_new(reps, series);
    }
    json_object_set_new(result, "intervals",
                        json_pack("{s:f,s:s,s:s,s:o}", "interval_s", 1.0, "unit", "B/s", "what",
                                  bench->interval_series, "reps", reps));
}

/* Merges every job's histogram into the distribution of the bench's metric. */
static void add_distribution(json_t *result, const struct vp_bench *bench,
                             const struct shared *shared)
{
    struct vp_histogram *merged = malloc(sizeof *merged);
    if (!merged)
        abort();
    vp_histogram_reset(merged);
    for (unsigned job = 0; job < shared->jobs; job++)
        vp_histogram_merge(merged, histogram_of(shared, job));
    json_t *metric = json_object_get(json_object_get(result, "metrics"), bench->distribution_metric);
    json_object_set_new(metric, "distribution", vp_histogram_json(merged));
    free(merged);
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

json_t *vp_engine_run(const struct vp_bench *bench, const struct vp_params *params,
                      unsigned jobs, const struct vp_run_settings *settings)
{
    json_t *result = result_skeleton(bench, params, jobs, settings);
    char reason[VP_ERROR_LEN + 128] = "";
    int cpus[VP_MAX_JOBS];
    if (vp_pin_plan(settings->topology, settings->pin_spec, jobs, cpus, reason,
                    sizeof reason) != 0)
        return finish(result, "failed", reason);
    unsigned total_reps = settings->warmup + settings->reps;
    struct shared shared;
    if (shared_map(&shared, bench, params, jobs, total_reps,
                   settings->duration > 0 ? settings->duration : bench->default_duration) != 0)
        return finish(result, "failed", "cannot map shared memory for the jobs");
    if (bench->setup && bench->setup(params, reason, sizeof reason) != 0) {
        munmap(shared.base, shared.size);
        if (bench->teardown)
            bench->teardown(params, jobs);
        return finish(result, "failed", reason);
    }
    double *stonewall = calloc(settings->reps, sizeof *stonewall);
    double *span = calloc(settings->reps, sizeof *span);
    if (!stonewall || !span)
        abort();

    pid_t pids[VP_MAX_JOBS] = { 0 };
    pid_t parent = getpid();
    fflush(NULL);
    enum wait_outcome outcome = WAIT_DONE;
    for (unsigned job = 0; job < jobs && outcome == WAIT_DONE; job++) {
        slot_of(&shared, job)->cpu_planned = cpus[job];
        pids[job] = fork();
        if (pids[job] == 0)
            job_main(bench, params, settings, &shared, job, parent);
        if (pids[job] < 0) {
            pids[job] = 0;
            snprintf(reason, sizeof reason, "cannot fork job %u: %s", job, strerror(errno));
            outcome = WAIT_FAILED;
        }
    }
    if (outcome == WAIT_DONE)
        outcome = wait_for(&shared, &shared.control->ready, (int)jobs, pids, reason,
                           sizeof reason);

    struct vp_monitor *monitor = NULL;
    char what[128];
    snprintf(what, sizeof what, "%s jobs=%u", bench->name, jobs);
    for (unsigned rep = 0; rep < total_reps && outcome == WAIT_DONE; rep++) {
        if (rep == settings->warmup) {
            cpu_set_t observer;
            monitor = vp_monitor_start(settings->monitor_hz, settings->watch,
                                       settings->watch_count, monitor_cpus(cpus, jobs, &observer),
                                       reason, sizeof reason);
            if (!monitor) {
                outcome = WAIT_FAILED;
                break;
            }
        }
        shared.start_at[rep] = vp_now_ns() + start_lead_ns(jobs);
        atomic_store(&shared.control->released, (int)rep + 1);
        futex_wake_all(&shared.control->released);
        outcome = wait_for(&shared, &shared.control->finished, (int)((rep + 1) * jobs), pids,
                           reason, sizeof reason);
        if (outcome == WAIT_DONE && shared.op_log_cap && rep >= settings->warmup)
            op_log_rates(&shared, rep, &stonewall[rep - settings->warmup],
                         &span[rep - settings->warmup]);
        if (outcome == WAIT_DONE && settings->progress)
            vp_progress_step(settings->progress, what);
    }
    json_t *monitor_json = monitor ? vp_monitor_stop(monitor) : NULL;

    if (outcome == WAIT_DONE) {
        for (unsigned job = 0; job < jobs; job++) {
            int status;
            if (pids[job] == 0)
                continue; /* reaped after it finished, while others still ran */
            while (waitpid(pids[job], &status, 0) < 0 && errno == EINTR)
                ;
            if (outcome == WAIT_DONE && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
                explain_exit(&shared, job, pids[job], status, reason, sizeof reason);
                outcome = WAIT_FAILED;
            }
            pids[job] = 0;
        }
    }
    stop_jobs(pids, jobs);

    if (outcome == WAIT_DONE) {
        add_metrics(result, bench, &shared, settings->warmup);
        if (shared.op_log_cap)
            add_aggregate_rates(result, stonewall, span, settings->reps);
        if (bench->distribution_metric)
            add_distribution(result, bench, &shared);
        if (shared.interval_count)
            add_intervals(result, bench, &shared, settings->warmup);
        add_timing(result, &shared, settings->warmup);
        json_object_set_new(result, "monitor", monitor_json);
        monitor_json = NULL;
        if (bench->annotate)
            bench->annotate(params, jobs, result);
    }
    json_decref(monitor_json);
    munmap(shared.base, shared.size);
    free(stonewall);
    free(span);
    if (bench->teardown)
        bench->teardown(params, jobs);
    if (outcome == WAIT_INTERRUPTED)
        return finish(result, "interrupted", "interrupted by a signal");
    if (outcome == WAIT_FAILED)
        return finish(result, "failed", reason);
    return finish(result, "ok", NULL);
}
