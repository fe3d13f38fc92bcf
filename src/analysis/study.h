/* A plan's results in the shape a study published them: per step of the plan file, one
 * row per result (what tells it from the step's other results, jobs) with the step's
 * headline metric (the first of its benchmark's table: seconds per process, Gb/s per
 * process, response time, job time...), its spread across jobs (min, mean, max, SD, as
 * the 2005 slides gave them), the machine's CPU, the watched processes' CPU and the
 * network input while it ran, and against each candidate run the penalty with its 95%
 * interval; beside each step, what the study reported then (the step's `reference`
 * text, and its figures, reference.h, each beside the row and penalty it stands for). */
#ifndef VP_STUDY_H
#define VP_STUDY_H

#include <jansson.h>
#include <stddef.h>

/* base (and candidates, each a run document of the same plan) as exported. Returns
 * {"plan": true, "steps": [{"step", "reference"?, "figures"?: [{"bench", "metric",
 * "unit", "jobs"?, "penalty", "value", "as_written"}], "rows": [{"bench", "variant", "jobs", "metric",
 * "unit", "better", "value", "then"?, "then_as_written"?, "per_job": {"min", "mean", "max", "stddev"},
 * "cpu_busy"?, "network_rx_rate"?, "watch"?: {NAME: %}, "candidates": [{"run",
 * "value"?, "penalty_pct"?, "ci_low"?, "ci_high"?, "verdict"?, "then_penalty_pct"?}]}],
 * "optima"?: [{"bench",
 * "variant", "metric", "knee_jobs", "rule", "saturated_from"?}], "fill"?: {"optimum",
 * "stopped", "reason", "members"}}]} (optima: each job sweep's knee, as `virtperf
 * scaling` finds it; fill: a step's fill, --guests A..auto, what it found), or NULL when
 * base's results carry no plan steps. */
json_t *vp_study(const json_t *base, const json_t *const *candidates, size_t candidate_count);


#endif
