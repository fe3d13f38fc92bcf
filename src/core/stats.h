/* Descriptive statistics over small samples (repetitions, per-job figures). */
#ifndef VP_STATS_H
#define VP_STATS_H

#include <stddef.h>

struct vp_summary {
    size_t n;
    double mean, stddev, min, max, p50, p90, p99;
};

double vp_mean(const double *values, size_t n);
/* Sample standard deviation (n - 1 in the denominator); 0 when n < 2. */
double vp_stddev(const double *values, size_t n);
/* Percentile by linear interpolation between closest ranks (R type 7, numpy's default),
 * pct in [0, 100]. Does not modify values. NAN when n == 0. */
double vp_percentile(const double *values, size_t n, double pct);
/* All of the above at once; every field NAN (n = 0) when n == 0. */
void vp_summarize(const double *values, size_t n, struct vp_summary *out);

#endif
