/* Comparing environments: results of a base run and candidate runs matched by
 * benchmark, params and job count; per metric the centres, ratio with a 95% interval,
 * signed penalty, Mann-Whitney p (Benjamini-Hochberg adjusted across the table), a
 * verdict, and the validity flags that say when a number should not be trusted. */
#ifndef VP_COMPARE_H
#define VP_COMPARE_H

#include <jansson.h>
#include <stddef.h>

#define VP_MIN_REPS_FOR_VERDICT 5

/* base and candidates are exported run documents (virtperf/1). margin is a fraction
 * (0.02 for +-2%). Returns the comparison document:
 * {"base", "candidates": [run ids], "margin", "rows": [{"bench", "params", "jobs",
 *  "metric", "unit", "better", "centre", "base": {"value", "n"}, "candidates":
 *  [{"run", "value", "n", "ratio", "ci": [low, high], "ci_method", "penalty_pct", "p",
 *  "p_adjusted", "verdict", "flags": [...]}]}], "unmatched": [...],
 *  "fingerprint_differences": [...]} — or NULL with err when nothing matches. */
/* What a comparison row measured, "bench variant" ("time.read clock=monotonic"). */
void vp_compare_row_label(const json_t *row, char *buf, size_t len);

json_t *vp_compare(const json_t *base, const json_t *const *candidates, size_t candidate_count,
                   double margin, char *err, size_t err_len);

#endif
