/* Building one result document from what the engine's jobs left in the shared region
 * (see result.c for what goes in). */
#ifndef VP_RESULT_H
#define VP_RESULT_H

#include <jansson.h>

#include "bench/bench.h"
#include "engine/settings.h"
#include "engine/shared.h"

/* {"name": value, ...} in base units; a sweep option is stored under the bench's
 * sweep_param with the current point's value. */
json_t *vp_params_json(const struct vp_bench *bench, const struct vp_params *params);

/* The result's identity before anything runs: bench, params, jobs, pin, reps, warm-up,
 * start time and (time-bound benchmarks) the duration. */
json_t *vp_result_start(const struct vp_bench *bench, const struct vp_params *params,
                        unsigned jobs, const struct vp_run_settings *settings);

/* Sets "status" ("ok", "failed", "interrupted") and the error, if any; returns result. */
json_t *vp_result_finish(json_t *result, const char *status, const char *error);

/* One repetition's aggregate rates from the jobs' op logs: bytes completed while every
 * job ran, over that window (stonewall), and all bytes over first start .. last done. */
void vp_op_log_rates(const struct vp_shared *shared, unsigned rep, double *stonewall,
                     double *span);

/* Metric number metric of repetition rep over the jobs, as the result gives it (their
 * sum, mean or largest, as the metric says). */
double vp_rep_value(const struct vp_bench *bench, const struct vp_shared *shared,
                    size_t metric, unsigned rep);

/* Adds metrics, per_job, the aggregate rates (stonewall/span: one per measured
 * repetition, with an op log), the distribution, the per-second series and the timing. */
void vp_result_add_measurements(json_t *result, const struct vp_bench *bench,
                                const struct vp_shared *shared, unsigned warmup,
                                const double *stonewall, const double *span);

#endif
