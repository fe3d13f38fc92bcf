/* time.ticks: lost timer ticks without a peer. A periodic POSIX timer fires every
 * --interval; when the job has not taken one expiry's signal before the next comes, the
 * kernel counts an overrun (timer_getoverrun). Overruns are ticks a tick-driven program
 * would have lost, the failure the CNAF 2007 study's VMware guests showed under heavy load. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "core/clock.h"
#include "core/json.h"
#include "bench/conditions.h"
#include "core/load.h"

static const struct vp_option ticks_options[] = {
    { "interval", VP_OPT_DURATION, "1ms", 0.0001, 1, NULL, "the timer's period" },
    VP_LOAD_OPTIONS,
    VP_HOLD_LATENCY_OPTION,
};

enum ticks_metric {
    TICKS_LOST_TICKS,
    TICKS_LONGEST_LOSS,
    TICKS_EXPIRIES,
    TICKS_METRIC_COUNT
};

static const struct vp_metric ticks_metrics[] = {
    [TICKS_LOST_TICKS] = { "lost_ticks", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "expiries that overran (the job had not taken the previous one) per 100 expiries" },
    [TICKS_LONGEST_LOSS] = { "longest_loss", "ticks", VP_LOWER_IS_BETTER, VP_AGG_MAX,
        "the most ticks lost in one gap between deliveries" },
    [TICKS_EXPIRIES] = { "expiries", "ticks", VP_HIGHER_IS_BETTER, VP_AGG_MEAN,
        "expiries in the repetition (deliveries plus overruns), the sample size" },
};
_Static_assert(sizeof ticks_metrics / sizeof ticks_metrics[0] == TICKS_METRIC_COUNT,
               "one metric per slot");

static int ticks_prepare(struct vp_job *job)
{
    sigset_t tick;
    sigemptyset(&tick);
    sigaddset(&tick, SIGRTMIN);
    if (sigprocmask(SIG_BLOCK, &tick, NULL) != 0) {
        snprintf(job->error, sizeof job->error, "time.ticks: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int ticks_measure(struct vp_job *job, double *values)
{
    int64_t interval = (int64_t)vp_param_number(job->params, "interval");
    struct sigevent event = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN };
    timer_t timer;
    if (timer_create(CLOCK_MONOTONIC, &event, &timer) != 0) {
        snprintf(job->error, sizeof job->error, "time.ticks: timer_create: %s", strerror(errno));
        return -1;
    }
    struct timespec period = { interval / 1000000000, interval % 1000000000 };
    struct itimerspec schedule = { .it_interval = period, .it_value = period };
    sigset_t tick;
    sigemptyset(&tick);
    sigaddset(&tick, SIGRTMIN);
    int64_t end = vp_now_ns() + (int64_t)(job->duration * 1e9);
    uint64_t deliveries = 0, overruns = 0, longest = 0;
    timer_settime(timer, 0, &schedule, NULL);
    while (vp_now_ns() < end) {
        siginfo_t info;
        if (sigwaitinfo(&tick, &info) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        int overrun = timer_getoverrun(timer);
        deliveries++;
        if (overrun > 0) {
            overruns += (uint64_t)overrun;
            if ((uint64_t)overrun > longest)
                longest = (uint64_t)overrun;
        }
    }
    timer_delete(timer);
    struct timespec none = { 0, 0 };
    while (sigtimedwait(&tick, NULL, &none) > 0) /* a signal queued after the last wait */
        ;
    if (deliveries == 0) {
        snprintf(job->error, sizeof job->error, "time.ticks: no expiry within --duration "
                 "(it must be longer than --interval)");
        return -1;
    }
    values[TICKS_LOST_TICKS] = 100.0 * (double)overruns / (double)(deliveries + overruns);
    values[TICKS_LONGEST_LOSS] = (double)longest;
    values[TICKS_EXPIRIES] = (double)(deliveries + overruns);
    return 0;
}

static void ticks_advise(const json_t *results, json_t *advisories)
{
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result) {
        double lost = vp_metric_mean(result, "lost_ticks");
        if (lost > 0)
            vp_advise(advisories, "timer ticks are lost: %.3g%% of expiries overran (time.ticks, "
                      "load=%s): a clock kept by counting ticks falls behind (the CNAF 2007 "
                      "study)", lost, vp_load_of(result));
    }
}

const struct vp_bench vp_bench_time_ticks = {
    .name = "time.ticks",
    .summary = "lost ticks of a periodic timer (timer_getoverrun), % of expiries",
    .description = "Each job runs a CLOCK_MONOTONIC POSIX timer every --interval for "
                   "--duration and waits for its signal; an expiry that comes before the job "
                   "took the previous one is an overrun, a lost tick. --load runs a cpu, mem "
                   "or io load on every CPU meanwhile.",
    .options = ticks_options,
    .option_count = sizeof ticks_options / sizeof ticks_options[0],
    .metrics = ticks_metrics,
    .metric_count = TICKS_METRIC_COUNT,
    .uses_duration = true,
    .default_duration = 2.0,
    .setup = vp_conditions_setup,
    .prepare = ticks_prepare,
    .measure = ticks_measure,
    .annotate = vp_conditions_annotate,
    .parts = vp_condition_parts,
    .teardown = vp_conditions_teardown,
    .advise = ticks_advise,
};
