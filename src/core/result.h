/* Building the pieces of a result document (DESIGN.md's JSON): params from an options
 * table and a metric's statistics from its per-repetition values. Used by the engine
 * when a result is measured and by the store when one is exported. */
#ifndef VP_RESULT_H
#define VP_RESULT_H

#include <jansson.h>
#include <stddef.h>

#include "bench/bench.h"

/* {"name": value, ...} in base units; a sweep option is stored under the bench's
 * sweep_param with the current point's value. */
json_t *vp_params_json(const struct vp_bench *bench, const struct vp_params *params);

/* Sets "values", "n", "mean", "stddev", "min", "max", "p50" on a metric object.
 * With no values, only "values": [] and "n": 0 (never invented numbers). */
void vp_metric_set_stats(json_t *metric, const double *values, size_t n);

const char *vp_better_name(enum vp_better better);
const char *vp_aggregate_name(enum vp_aggregate aggregate);

#endif
