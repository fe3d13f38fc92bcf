/* Comparing environments: results of a base run and candidate runs matched by
 * benchmark, params and job count; per metric the centres, ratio with a 95% interval,
 * signed penalty, Mann-Whitney p (Benjamini-Hochberg adjusted across the table), a
 * verdict, and the validity flags that say when a number should not be trusted. */
#ifndef VP_COMPARE_H
#define VP_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/inference.h" /* VP_MIN_REPS_FOR_VERDICT */


/* base and candidates are exported run documents (virtperf/1). A base result is
 * compared with every candidate run that has it (a cell "not in this run" for the
 * others, each also listed as unmatched). Returns the comparison document:
 * {"base", "candidates": [run ids], "margin", "vary"?, "rows": [{"bench", "params",
 *  "jobs", "metric", "unit", "better", "centre", "varied"?: {"param", "base"}, "units",
 *  "label", "headline" (analysis/shown.h),
 *  "base": {"value", "n"}, "candidates": [{"run", "value", "n", "ratio", "ci": [low,
 *  high], "ci_method", "penalty_pct", "p", "p_adjusted", "verdict", "param_value"?,
 *  "paired"?, "flags": [...]}]}], "unmatched": [...], "fingerprint_differences": [...]}
 * — or NULL with err when no pair exists at all. A result is paired with the one of the
 * same benchmark, params and job count on as many hosts; failing that, with the one of
 * the same total job count on other hosts ("paired": "paired by total jobs: 8 jobs on 1
 * host / 1 job on each of 8 hosts"), the IHEP study's processes against its VMs. */

/* margin: a fraction (0.02 for +-2%); vary: a param left out of the matching, whose
 * values the comparison sets against each other (NULL: none); metrics: the metrics to
 * keep (none: all). */
struct vp_compare_options {
    double margin;
    const char *vary;
    bool normalize_clock; /* time metrics in the base's clock: x candidate GHz / base GHz */
    /* --clock-ghz: each run's nominal clock in GHz, base first (count 0: none given); used
     * where the runs have no effective clock, before the one a CPU model's name states */
    const double *clock_ghz;
    size_t clock_ghz_count;
    const char *const *metrics;
    size_t metric_count;
};

/* The clock a CPU model's name states ("Intel(R) Xeon(R) CPU X5570 @ 2.93GHz": 2.93), 0
 * when it states none (as AMD's names do not). */
double vp_model_ghz(const char *model);

json_t *vp_compare(const json_t *base, const json_t *const *candidates, size_t candidate_count,
                   const struct vp_compare_options *options, char *err, size_t err_len);

#endif
