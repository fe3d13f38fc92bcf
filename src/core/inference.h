/* Inference for comparing two environments from their repetitions: a confidence
 * interval for the ratio of centres, the Mann-Whitney U test, and Benjamini-Hochberg
 * correction across a table of tests. */
#ifndef VP_INFERENCE_H
#define VP_INFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* The fewest repetitions on each side a comparison gives a verdict with. */
#define VP_MIN_REPS_FOR_VERDICT 5

/* Below this many repetitions on either side the interval is a Welch t-interval on the
 * logarithms; from it on, a percentile bootstrap (10000 resamples, fixed seed). */
#define VP_BOOTSTRAP_MIN_N 10

enum vp_centre { VP_CENTRE_MEAN, VP_CENTRE_MEDIAN };

struct vp_ratio_interval {
    double ratio;      /* centre(candidate) / centre(base) */
    double low, high;  /* 95% interval of that ratio */
    const char *method; /* "bootstrap" or "t-log" */
};

/* 0, or -1 when a sample is empty or holds a value <= 0 (ratios need positive values). */
int vp_ratio_interval(const double *base, size_t n_base, const double *candidate,
                      size_t n_candidate, enum vp_centre centre, uint64_t seed,
                      struct vp_ratio_interval *out);

/* Two-sided Mann-Whitney U p-value: exact for up to 20 values a side without ties, the
 * normal approximation with tie correction otherwise. */
double vp_mann_whitney_p(const double *a, size_t n_a, const double *b, size_t n_b);

/* Benjamini-Hochberg adjusted p-values (in place, same order). */
void vp_benjamini_hochberg(double *p, size_t n);

/* The two-sided 97.5% quantile of Student's t with df degrees of freedom. */
double vp_t_quantile_975(double df);

/* The half-width of the 95% interval of the mean of values[0..n), as a share of the
 * mean (t quantile x standard error / |mean|): what --reps auto stops on. NAN for fewer
 * than 2 values or a mean of 0. */
double vp_relative_half_width(const double *values, size_t n);

#endif
