/* Combining workloads into one figure (HEPscore, SPEC): the geometric mean over the
 * results of `app --preset`, in a comparison and in a run's own table. */
#ifndef VP_COMBINED_H
#define VP_COMBINED_H

#include <jansson.h>
#include <stdbool.h>

/* The preset value a combined row carries ("all", as `--preset all` asked for them). */
#define VP_COMBINED_NAME "combined"

/* Appends to a comparison's rows, for every group of rows that ask the same question
 * (metric, job count, params) of two or more workloads, a row of their geometric mean:
 * per candidate the geometric mean of the ratios, an interval from the workloads' own
 * (normal on logarithms, workloads independent) and a verdict with margin. Those rows
 * have centre "geomean" (geometric mean) and no p value. */
void vp_combine_workload_rows(json_t *rows, double margin);

/* Per job count among results (a run's), the geometric mean of the workloads' mean
 * scores: [{"jobs", "score", "workloads", "each": {name: score}}]; empty without any. */
json_t *vp_workload_scores(const json_t *results);

#endif
