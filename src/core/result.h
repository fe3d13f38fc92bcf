/* Building and reading the pieces of a result document (DESIGN.md's JSON): params from
 * an options table, a metric's statistics from its per-repetition values, and lenient
 * field access for code that reads documents already validated. */
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

/* Appends a printf-formatted line to the result's "warnings" (made when absent). */
void vp_result_warn(json_t *result, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The string at key, or "" when absent or not a string. */
const char *vp_json_text(const json_t *object, const char *key);
/* The number at key, or NAN when absent or not a number. */
double vp_json_number(const json_t *object, const char *key);

const char *vp_better_name(enum vp_better better);
const char *vp_aggregate_name(enum vp_aggregate aggregate);

#endif
