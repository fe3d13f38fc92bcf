/* Advisories from results (see advice.h). */
#include "core/advice.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/result.h"
#include "core/units.h"

static double metric_mean(const json_t *result, const char *metric)
{
    const json_t *entry = json_object_get(json_object_get(result, "metrics"), metric);
    return entry ? vp_json_number(entry, "mean") : NAN;
}

/* The --load a result ran under ("none" for results from before --load existed). */
static const char *load_of(const json_t *result)
{
    const char *load = vp_json_text(json_object_get(result, "params"), "load");
    return load[0] ? load : "none";
}

static void add(json_t *advisories, const char *line)
{
    json_array_append_new(advisories, json_string(line));
}

static void timer_advice(const json_t *result, json_t *advisories)
{
    const json_t *latency = json_object_get(json_object_get(result, "metrics"), "latency");
    double p99 = vp_json_number(json_object_get(latency, "distribution"), "p99");
    if (!(p99 > VP_TIMER_LATE_S))
        return;
    char figure[32], line[256];
    vp_format_value(p99, "s", figure, sizeof figure);
    snprintf(line, sizeof line, "timer wake-ups are late: p99 %s (time.timer, load=%s): a "
             "control loop or tick-driven program misses its deadlines here", figure,
             load_of(result));
    add(advisories, line);
}

static void ticks_advice(const json_t *result, json_t *advisories)
{
    double lost = metric_mean(result, "lost_ticks");
    if (!(lost > 0))
        return;
    char line[256];
    snprintf(line, sizeof line, "timer ticks are lost: %.3g%% of expiries overran (time.ticks, "
             "load=%s): a clock kept by counting ticks falls behind (seed 000)", lost,
             load_of(result));
    add(advisories, line);
}

static void drift_advice(const json_t *result, json_t *advisories)
{
    double steps = metric_mean(result, "steps"), local = metric_mean(result, "local_steps");
    double backward = metric_mean(result, "backward_jumps"), ppm = metric_mean(result, "drift_ppm");
    char line[256];
    if (steps > 0 || local > 0 || backward > 0) {
        char size[32];
        vp_format_value(fabs(metric_mean(result, "largest_step")), "s", size, sizeof size);
        snprintf(line, sizeof line, "the clock steps: %.3g against the reference (largest %s), "
                 "%.3g local steps, %.3g backward jumps per repetition (time.drift)", steps,
                 size, local, backward);
        add(advisories, line);
    }
    if (fabs(ppm) > VP_DRIFT_HIGH_PPM) {
        snprintf(line, sizeof line, "the clock drifts %.1f ppm (%.2f s a day) against the "
                 "reference (time.drift, load=%s): keep it synchronised", ppm, ppm * 86400e-6,
                 load_of(result));
        add(advisories, line);
    }
}

static void clock_read_advice(const json_t *result, json_t *advisories)
{
    const char *clock = vp_json_text(json_object_get(result, "params"), "clock");
    double cost = metric_mean(result, "cost");
    if (strcmp(clock, "rdtsc") == 0 || !(cost > VP_CLOCK_READ_SLOW_S))
        return;
    char figure[32], line[256];
    vp_format_value(cost, "s", figure, sizeof figure);
    snprintf(line, sizeof line, "reading the %s clock takes %s (time.read): off the vDSO fast "
             "path, each read is a system call or a trap", clock, figure);
    add(advisories, line);
}

void vp_result_advisories(const json_t *results, json_t *advisories)
{
    double same = NAN, cross = NAN;
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result) {
        if (strcmp(vp_json_text(result, "status"), "ok") != 0)
            continue;
        const char *bench = vp_json_text(result, "bench");
        if (strcmp(bench, "time.timer") == 0)
            timer_advice(result, advisories);
        else if (strcmp(bench, "time.ticks") == 0)
            ticks_advice(result, advisories);
        else if (strcmp(bench, "time.drift") == 0)
            drift_advice(result, advisories);
        else if (strcmp(bench, "time.read") == 0)
            clock_read_advice(result, advisories);
        else if (strcmp(bench, "vcost.ctxswitch") == 0) {
            int is_cross = strcmp(vp_json_text(json_object_get(result, "params"), "placement"),
                                  "cross") == 0;
            *(is_cross ? &cross : &same) = metric_mean(result, "cost");
        }
    }
    if (cross / same > VP_WAKEUP_RATIO_HIGH) {
        char line[256];
        snprintf(line, sizeof line, "cross-CPU wake-ups cost %.1fx a same-CPU switch "
                 "(vcost.ctxswitch): each is an IPI, in a guest an exit; halt polling or "
                 "posted interrupts help", cross / same);
        add(advisories, line);
    }
}
