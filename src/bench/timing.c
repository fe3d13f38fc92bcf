/* time.read and time.timer: what reading a clock costs, and how late a timer wakes.
 * time.read times a calibrated loop of one clock read (the vDSO fast path takes tens of
 * nanoseconds; a clocksource without one is a system call, in a guest maybe an exit).
 * time.timer is cyclictest's measurement: sleep to an absolute instant every --interval
 * and record how late the wake-up came. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>

#ifdef __x86_64__
#include <x86intrin.h>
#endif

#include "bench/bench.h"
#include "core/calibrate.h"
#include "core/clock.h"
#include "bench/conditions.h"
#include "core/load.h"
#include "core/json.h"
#include "core/sysinfo.h"
#include "core/units.h"

#define CLOCK_READ_SLOW_S 150e-9 /* a vDSO read takes tens of ns, a system call more */
#define TIMER_LATE_S 1e-3        /* a p99 wake-up latency above this is late */

#ifdef __x86_64__
#define EVERY_CLOCK "realtime,monotonic,monotonic_raw,boottime,gettimeofday,rdtsc"
#else
#define EVERY_CLOCK "realtime,monotonic,monotonic_raw,boottime,gettimeofday"
#endif

static const struct vp_option read_options[] = {
    { "clock", VP_OPT_CHOICE_LIST, EVERY_CLOCK, 0, 0,
      "realtime|monotonic|monotonic_raw|boottime|gettimeofday|rdtsc",
      "the clocks to read, one result each (rdtsc on x86-64 only)" },
};

enum read_metric { READ_COST, READ_RESOLUTION, READ_METRIC_COUNT };

static const struct vp_metric read_metrics[] = {
    [READ_COST] = { "cost", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "seconds per read" },
    [READ_RESOLUTION] = { "resolution", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "clock_getres (rdtsc: one tick at the measured rate)" },
};
_Static_assert(sizeof read_metrics / sizeof read_metrics[0] == READ_METRIC_COUNT,
               "one metric per slot");

struct clock_choice {
    const char *name;
    clockid_t id;
};

static const struct clock_choice clocks[] = {
    { "realtime", CLOCK_REALTIME }, { "monotonic", CLOCK_MONOTONIC },
    { "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "boottime", CLOCK_BOOTTIME },
};

static void read_clock(void *context)
{
    struct timespec now;
    clock_gettime(*(const clockid_t *)context, &now);
    __asm__ volatile("" : : "r"(&now) : "memory");
}

static void read_gettimeofday(void *context)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    __asm__ volatile("" : : "r"(&now), "r"(context) : "memory");
}

#ifdef __x86_64__
static void read_tsc(void *context)
{
    unsigned long long ticks = __rdtsc();
    __asm__ volatile("" : : "r"(ticks), "r"(context) : "memory");
}
#endif

static int read_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                         size_t err_len)
{
    (void)max_jobs;
#ifndef __x86_64__
    int index = vp_params_find(params, "clock");
    for (size_t i = 0; i < params->values[index].list_len; i++) {
        if (params->values[index].list[i] == 5) { /* rdtsc, the sixth choice */
            snprintf(err, err_len, "time.read --clock=rdtsc: not available on this architecture");
            return -1;
        }
    }
#endif
    (void)params;
    (void)err;
    (void)err_len;
    return 0;
}

static int read_measure(struct vp_job *job, double *values)
{
    const char *name = vp_param_text(job->params, "clock");
    uint64_t iterations;
    for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
        if (strcmp(name, clocks[i].name) != 0)
            continue;
        struct timespec resolution;
        clock_getres(clocks[i].id, &resolution);
        values[READ_COST] = vp_cost_per_op(read_clock, (void *)&clocks[i].id, &iterations);
        values[READ_RESOLUTION] = (double)resolution.tv_sec + (double)resolution.tv_nsec / 1e9;
        return 0;
    }
    if (strcmp(name, "gettimeofday") == 0) {
        values[READ_COST] = vp_cost_per_op(read_gettimeofday, NULL, &iterations);
        values[READ_RESOLUTION] = 1e-6;
        return 0;
    }
#ifdef __x86_64__
    /* The TSC's rate from the monotonic clock over a millisecond or more. */
    int64_t start_ns = vp_now_ns();
    unsigned long long start_ticks = __rdtsc();
    values[READ_COST] = vp_cost_per_op(read_tsc, NULL, &iterations);
    double hz = (double)(__rdtsc() - start_ticks) / ((double)(vp_now_ns() - start_ns) / 1e9);
    values[READ_RESOLUTION] = 1 / hz;
    return 0;
#else
    snprintf(job->error, sizeof job->error, "time.read: rdtsc is x86-64 only");
    return -1;
#endif
}

/* A read slower than a vDSO read gets a warning naming the clocksource behind it. */
static void read_annotate(const struct vp_params *params, unsigned jobs, json_t *result)
{
    (void)jobs;
    double cost = vp_json_number(json_object_get(json_object_get(result, "metrics"), "cost"), "mean");
    if (strcmp(vp_param_text(params, "clock"), "rdtsc") == 0 || !(cost > CLOCK_READ_SLOW_S))
        return;
    json_t *clock = vp_sysinfo_clock();
    char figure[32];
    vp_format_seconds(cost, figure, sizeof figure);
    vp_result_warn(result, "%s per read: off the vDSO fast path (clocksource %s; available: %s)",
                   figure, vp_json_text(clock, "clocksource"), vp_json_text(clock, "available"));
    json_decref(clock);
}

static const struct vp_option timer_options[] = {
    { "interval", VP_OPT_DURATION, "1ms", 0.00001, 1, NULL, "time between wake-ups" },
    { "rt", VP_OPT_CHOICE, "off", 0, 0, "off|on",
      "SCHED_FIFO priority 80 and mlockall, as cyclictest -p80 -m (needs the privilege)" },
    VP_LOAD_OPTIONS,
    VP_HOLD_LATENCY_OPTION,
};

enum timer_metric { TIMER_LATENCY, TIMER_MAX_LATENCY, TIMER_METRIC_COUNT };

static const struct vp_metric timer_metrics[] = {
    [TIMER_LATENCY] = { "latency", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "how late each wake-up came (mean; percentiles and max in its distribution)" },
    [TIMER_MAX_LATENCY] = { "max_latency", "s", VP_LOWER_IS_BETTER, VP_AGG_MAX,
        "the latest wake-up of the repetition, of all jobs" },
};
_Static_assert(sizeof timer_metrics / sizeof timer_metrics[0] == TIMER_METRIC_COUNT,
               "one metric per slot");

static int timer_prepare(struct vp_job *job)
{
    if (!vp_param_on(job->params, "rt"))
        return 0;
    struct sched_param priority = { .sched_priority = 80 };
    if (sched_setscheduler(0, SCHED_FIFO, &priority) != 0 || mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
        snprintf(job->error, sizeof job->error, "time.timer --rt: %s (SCHED_FIFO and mlockall "
                 "need root or CAP_SYS_NICE and CAP_IPC_LOCK; most containers refuse them)",
                 strerror(errno));
        return -1;
    }
    return 0;
}

static int timer_measure(struct vp_job *job, double *values)
{
    int64_t interval = (int64_t)vp_param_number(job->params, "interval");
    int64_t start = vp_now_ns(), end = start + (int64_t)(job->duration * 1e9);
    double sum = 0, latest = 0;
    uint64_t wakeups = 0;
    for (int64_t next = start + interval; next < end; next += interval) {
        vp_sleep_until_ns(next);
        int64_t late = vp_now_ns() - next;
        if (late < 0)
            late = 0;
        vp_histogram_record(job->histogram, (uint64_t)late);
        sum += (double)late / 1e9;
        if ((double)late / 1e9 > latest)
            latest = (double)late / 1e9;
        wakeups++;
        if (vp_now_ns() > next + interval) /* late past a period: skip, as cyclictest does */
            next += (vp_now_ns() - next) / interval * interval;
    }
    if (wakeups == 0) {
        snprintf(job->error, sizeof job->error, "time.timer: --duration shorter than --interval");
        return -1;
    }
    values[TIMER_LATENCY] = sum / (double)wakeups;
    values[TIMER_MAX_LATENCY] = latest;
    return 0;
}

static void read_advise(const json_t *results, json_t *advisories)
{
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result) {
        const char *clock = vp_json_text(json_object_get(result, "params"), "clock");
        double cost = vp_metric_mean(result, "cost");
        if (strcmp(clock, "rdtsc") == 0 || !(cost > CLOCK_READ_SLOW_S))
            continue;
        char figure[32];
        vp_format_seconds(cost, figure, sizeof figure);
        vp_advise(advisories, "reading the %s clock takes %s (time.read): off the vDSO fast "
                  "path, each read is a system call or a trap", clock, figure);
    }
}

static void timer_advise(const json_t *results, json_t *advisories)
{
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result) {
        const json_t *latency = json_object_get(json_object_get(result, "metrics"), "latency");
        double p99 = vp_json_number(json_object_get(latency, "distribution"), "p99");
        if (!(p99 > TIMER_LATE_S))
            continue;
        char figure[32];
        vp_format_seconds(p99, figure, sizeof figure);
        vp_advise(advisories, "timer wake-ups are late: p99 %s (time.timer, load=%s): a control "
                  "loop or tick-driven program misses its deadlines here", figure,
                  vp_load_of(result));
    }
}

const struct vp_bench vp_bench_time_read = {
    .name = "time.read",
    .summary = "cost of reading a clock (vDSO or system call), s per read",
    .description = "Reads --clock in a calibrated loop (span >= 1000x one clock read and >= "
                   "1 ms, empty-loop overhead subtracted) and reports its resolution. Compare "
                   "with the fingerprint's clocksource: tsc and kvm-clock have a fast path, "
                   "hpet and acpi_pm make every read a system call.",
    .options = read_options,
    .option_count = sizeof read_options / sizeof read_options[0],
    .metrics = read_metrics,
    .metric_count = READ_METRIC_COUNT,
    .sweep_option = "clock",
    .sweep_param = "clock",
    .validate = read_validate,
    .measure = read_measure,
    .annotate = read_annotate,
    .advise = read_advise,
};

const struct vp_bench vp_bench_time_timer = {
    .name = "time.timer",
    .summary = "timer wake-up latency (cyclictest style), s late per wake-up",
    .description = "Each job sleeps with clock_nanosleep(TIMER_ABSTIME) to the next multiple "
                   "of --interval for --duration and records how late it woke (timer slack "
                   "1 ns). Without --jobs one job runs on each CPU this run may use, and "
                   "without --pin the jobs are pinned to those CPUs; --rt runs them SCHED_FIFO with "
                   "memory locked, as cyclictest -p80 -m; --load adds a "
                   "background load on every CPU.",
    .options = timer_options,
    .option_count = sizeof timer_options / sizeof timer_options[0],
    .metrics = timer_metrics,
    .metric_count = TIMER_METRIC_COUNT,
    .uses_duration = true,
    .default_duration = 1.0,
    .one_job_per_cpu = true,
    .distribution_metric = "latency",
    .setup = vp_conditions_setup,
    .prepare = timer_prepare,
    .measure = timer_measure,
    .annotate = vp_conditions_annotate,
    .parts = vp_condition_parts,
    .teardown = vp_conditions_teardown,
    .advise = timer_advise,
};
