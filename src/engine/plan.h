/* The run plan: what a `virtperf run` asked for, turned once into the list of points the
 * engine runs, one result each (benchmark x sweep value x job count, in that order), with
 * each point's params, pin, repetitions and warm-ups settled. Built from the words and
 * flags of a command line (cmd/run.c) without touching the machine; checked against the
 * machine (free space, CPUs) by vp_plan_check, which every host that runs it can repeat. */
#ifndef VP_PLAN_H
#define VP_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/bench.h"
#include "core/topology.h"

#define VP_PLAN_MAX_BENCHES 64
#define VP_PLAN_MAX_OPTIONS 64
#define VP_PLAN_PIN_LEN 4096 /* a per-CPU pin list: long only for a scattered cpuset */

/* A --NAME=VALUE benchmark option as given (the value is parsed by the plan). */
struct vp_plan_option {
    const char *name, *value;
};

/* What the user asked for. Words are benchmark names, families ("mem", "vcost.*") or
 * presets ("dd"); none: the quick suite. Unset counts and specs take the defaults below. */
struct vp_plan_request {
    char *const *words;
    size_t word_count;
    struct vp_plan_option options[VP_PLAN_MAX_OPTIONS];
    size_t option_count;
    const char *jobs_text;      /* "4", "1,2,4", "1..8"; NULL: "1" */
    const char *pin;            /* NULL: "none" */
    unsigned reps, warmup;      /* used when reps_given / warmup_given */
    bool reps_given, warmup_given;
    bool reps_auto;             /* --reps auto: reps is the most to run */
    double reps_target;         /* --target: the interval to reach, a fraction (0: 2%) */
    double duration;            /* 0: each benchmark's own amount of work */
};

/* One result to run. */
struct vp_plan_point {
    const struct vp_bench *bench;
    size_t step;                /* points of one benchmark share a step number */
    struct vp_params params;    /* every option, the sweep's current value selected */
    unsigned jobs;
    unsigned reps, warmup;      /* reps: the most, with reps_target */
    double reps_target;         /* --reps auto: stop at this interval (0: run reps)  */
    char pin[VP_PLAN_PIN_LEN];
};

struct vp_plan {
    struct vp_plan_point *points;
    size_t count;
    unsigned total_reps;        /* repetitions over all points, warm-ups included */
    double duration;
};

/* Builds the plan. Returns 0, or -1 with one line in err naming what was wrong and what
 * is accepted (the caller exits 2); nothing is allocated then. */
int vp_plan_build(const struct vp_plan_request *request, struct vp_plan *plan, char *err,
                  size_t err_len);

/* Checks the plan against this machine: each benchmark's own validation at its largest
 * job count (free space for every job's file...), and every pin spec against the
 * topology. Returns 0, or -1 with one line in err. */
int vp_plan_check(const struct vp_plan *plan, const struct vp_topology *topology, char *err,
                  size_t err_len);

void vp_plan_free(struct vp_plan *plan);

#endif
