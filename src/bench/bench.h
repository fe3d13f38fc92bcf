/* The benchmark contract: a benchmark is one `const struct vp_bench` (name, summary,
 * typed options table, metric definitions, callbacks) listed in list.h.
 * Adding a benchmark is one new file here and one line in that list. */
#ifndef VP_BENCH_H
#define VP_BENCH_H

#include <stdbool.h>
#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/histogram.h"
#include "core/json_check.h"
#include "core/options.h"
#include "core/path_set.h"
#include "core/units.h"

#define VP_MAX_METRICS 16
/* The PATH a guest's or container's virtperf runs its programs with. */
#define VP_MEMBER_PATH "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

/* An optional part of a result (its "device", "peer", "data" ...), declared by what makes
 * it: the store keeps it, export and import carry it, import checks it with check, and
 * a result's table prints it with print, all without knowing it. */
struct vp_result_part {
    const char *key;
    /* value, the part of the result at path ("results[3]"), accepted: 0; else -1 with
     * why, naming it path.KEY. */
    int (*check)(struct vp_check *checker, const json_t *value, const char *path);
    /* Its lines under the result's table, each starting "  ", byte figures in style;
     * NULL: none. */
    void (*print)(FILE *out, const json_t *value, enum vp_unit_style style);
};

/* ZERO: a signed figure whose size matters (a drift, an offset): closer to zero is
 * better, and comparisons weigh magnitudes. */
enum vp_better { VP_HIGHER_IS_BETTER, VP_LOWER_IS_BETTER, VP_ZERO_IS_BETTER };

/* How one repetition's per-job values combine into the result's value. */
enum vp_aggregate {
    VP_AGG_SUM,  /* rates: the jobs' rates add up (aggregate throughput) */
    VP_AGG_MEAN, /* times and latencies: the mean over jobs */
    VP_AGG_MAX,  /* worst cases (the latest wake-up): the largest of the jobs' values */
};

struct vp_metric {
    const char *name;
    const char *unit; /* base unit: "B/s", "s", "ops/s" */
    enum vp_better better;
    enum vp_aggregate across_jobs;
    const char *help;
};

/* What one job of a benchmark sees. The engine fills everything but state/error. */
struct vp_bench;

struct vp_job {
    const struct vp_bench *bench;
    unsigned index;                 /* 0 .. count-1 */
    unsigned count;                 /* jobs started together */
    const struct vp_params *params; /* options as given, defaults otherwise */
    unsigned rep, rep_count;        /* this repetition (warm-ups first) and how many */
    double duration;                /* --duration in seconds, 0 when not given */
    void *state;                    /* the benchmark's own, set by prepare */
    char error[VP_ERROR_LEN];       /* reason, when a callback returns -1 */
    /* Benchmarks with a distribution_metric record each operation's latency here
     * (measured repetitions only: the engine clears it after the warm-up). */
    struct vp_histogram *histogram;
    /* Benchmarks with ops_per_rep log each operation's completion instant here
     * (CLOCK_MONOTONIC ns, while op_log_len < op_log_cap; op_log_len counts every
     * operation, so an overflow shows) and set op_bytes; the engine derives the
     * stonewalled and first-start..last-done aggregate rates from them. */
    int64_t *op_log;
    uint64_t *op_log_len;
    uint64_t op_log_cap;
    uint64_t op_bytes;
    /* Benchmarks with an interval_series count bytes per second of the repetition here
     * (vp_job_count_interval; any thread of the job may call it). */
    uint64_t *intervals;
    size_t interval_count;
    int64_t interval_origin_ns;
    /* Benchmarks that end_on_interrupt: non-zero once Ctrl-C asked the repetition to end
     * now; the benchmark stops and reports what it measured so far. */
    atomic_int *stop;
    /* A JSON object of this job's last repetition the benchmark may write here (at most
     * detail_cap bytes with the NUL): attached to the result as its "timeline". */
    char *detail;
    size_t detail_cap;
    /* Ends this job process at once, failed with reason; any thread may call it, and it
     * does not return: what a watchdog calls when a request is stuck in the kernel (a
     * hung mount), where only the end of the process ends it. */
    void (*fail_now)(const char *reason);
};

/* Adds bytes to the one-second interval that now_ns falls in. */
static inline void vp_job_count_interval(struct vp_job *job, int64_t now_ns, uint64_t bytes)
{
    if (!job->intervals || now_ns < job->interval_origin_ns)
        return;
    size_t index = (size_t)((now_ns - job->interval_origin_ns) / 1000000000);
    if (index < job->interval_count)
        __atomic_fetch_add(&job->intervals[index], bytes, __ATOMIC_RELAXED);
}

/* Logs one operation's completion (end_ns) in the op log while it has room; the count
 * goes on, so an overflow shows and the engine leaves the aggregate rates out. */
static inline void vp_job_log_op(struct vp_job *job, int64_t end_ns)
{
    if (*job->op_log_len < job->op_log_cap)
        job->op_log[*job->op_log_len] = end_ns;
    (*job->op_log_len)++;
}

struct vp_bench {
    const char *name;
    const char *summary;     /* one line */
    const char *description; /* what is measured and what the timing includes */
    const struct vp_option *options;
    size_t option_count;
    const struct vp_metric *metrics;
    size_t metric_count;
    bool uses_duration;       /* honours --duration */
    double default_duration;  /* seconds per repetition without --duration (0: none) */
    bool in_quick_suite;      /* run by a plain `virtperf run` (and `make run`) */
    bool hidden;              /* for tests: not listed, in no family; run by its name */
    bool one_job_per_cpu;     /* measures each CPU: without --jobs one job per CPU this run
                                 may use, without --pin pinned to them (cyclictest -S) */
    bool one_observation;     /* a long watch whose statistics come from within it: one
                                 repetition of --duration, no warm-up, unless --reps or
                                 --warmup say otherwise */
    bool from_outside;        /* in guests or containers with addresses of their own and no
                                 --topology: run from this host to each one's server in
                                 turn (--topology outside), on a clock that goes on while a
                                 paused member's stops */
    bool ends_on_interrupt;   /* Ctrl-C ends the last repetition early and keeps it as a
                                 result (a probe watching until the user stops it) */
    const char *sweep_option; /* a SIZE_LIST or CHOICE_LIST option: one result per value */
    const char *sweep_param;  /* the name each point's single value is stored under */
    const char *distribution_metric; /* the metric whose per-op histogram is kept */
    const char *interval_series; /* what the per-second byte counts are, or NULL */
    /* Operations one job does per repetition (bounds the op log; optional). duration is
     * the repetition's --duration in seconds, 0 without one. */
    uint64_t (*ops_per_rep)(const struct vp_params *params, double duration);

    /* Before anything runs (exit 2 on failure): checks that need the job count, such
     * as free space for every job's file. Optional. */
    int (*validate)(const struct vp_params *params, unsigned max_jobs, char *err,
                    size_t err_len);

    /* Once in the parent before the jobs' shared region is sized (ops_per_rep) and they
     * fork (optional): what a plan's step needs of its own (its fileset). Returns 0 or
     * -1 + err. */
    int (*setup)(const struct vp_params *params, char *err, size_t err_len);
    /* On the host, before members start and before each point they run (optional): loads
     * what ops_per_rep reads beyond the params (a step's fileset manifest), so this host
     * lays out and bounds the region each member's jobs send back as those jobs lay it
     * out. Returns 0 or -1 + err. */
    int (*sizing)(const struct vp_params *params, char *err, size_t err_len);
    /* On the host before a guest or container starts (optional): adds to files the paths
     * of this host the benchmark needs in the member (a program, a directory of its
     * data), which its image then carries at the same paths, an executable with its
     * libraries. -1 with err when one is missing here or could not be found there (a
     * program outside VP_MEMBER_PATH by its bare name): the refusal the member would
     * make, made before any boots. */
    int (*member_files)(const struct vp_params *params, struct vp_path_set *files, char *err,
                        size_t err_len);
    /* In each job after pinning, before the start barrier: allocate and first-touch. */
    int (*prepare)(struct vp_job *job);
    /* One repetition, in each job, started at the agreed instant. Writes one value per
     * metric into values (in the metrics table's order). */
    int (*measure)(struct vp_job *job, double *values);
    /* In each job after a repetition's end was recorded and before the next starts:
     * untimed work such as deleting a file so the next write allocates again. Optional. */
    int (*after_rep)(struct vp_job *job);
    /* In each job after the last repetition (optional). */
    void (*release)(struct vp_job *job);
    /* In the parent after a finished result is assembled: adds warnings or device
     * figures to it. Optional. */
    void (*annotate)(const struct vp_params *params, unsigned jobs, json_t *result);
    /* Advisories these results explain, one line each appended to advisories (sysinfo
     * and the report call it with every ok result of this benchmark, oldest first, each
     * a stored result object). Optional. */
    void (*advise)(const json_t *results, json_t *advisories);
    /* In the parent after every result, whatever its status (also after a crash or
     * Ctrl-C): removes what the jobs left behind. Optional. */
    void (*teardown)(const struct vp_params *params, unsigned jobs);
    /* How its byte rates read where each field reads its own way (--units field):
     * VP_UNITS_BITS the network's, VP_UNITS_SI a disk's; 0 (VP_UNITS_FIELD): IEC. */
    enum vp_unit_style units;
    /* The optional parts its results may carry (NULL-terminated; NULL: none). */
    const struct vp_result_part *const *parts;
};

/* Registry (registry.c, from list.h). */
extern const struct vp_bench *const vp_benches[];
extern const size_t vp_bench_count;
const struct vp_bench *vp_bench_find(const char *name);
/* The units the benchmark called name declares (VP_UNITS_FIELD when unknown). */
enum vp_unit_style vp_bench_units(const char *name);

/* "higher" / "lower"; "sum" / "mean" / "max": the names the JSON document uses. */
const char *vp_better_name(enum vp_better better);
const char *vp_aggregate_name(enum vp_aggregate aggregate);

#endif
