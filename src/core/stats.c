/* Descriptive statistics: mean, sample standard deviation, interpolated percentiles. */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double vp_mean(const double *values, size_t n)
{
    if (n == 0)
        return NAN;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += values[i];
    return sum / (double)n;
}

double vp_stddev(const double *values, size_t n)
{
    if (n < 2)
        return 0;
    double mean = vp_mean(values, n);
    double squares = 0;
    for (size_t i = 0; i < n; i++)
        squares += (values[i] - mean) * (values[i] - mean);
    return sqrt(squares / (double)(n - 1));
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *sorted_copy(const double *values, size_t n)
{
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        abort();
    memcpy(sorted, values, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    return sorted;
}

static double percentile_of_sorted(const double *sorted, size_t n, double pct)
{
    double rank = pct / 100.0 * (double)(n - 1);
    size_t below = (size_t)floor(rank);
    if (below + 1 >= n)
        return sorted[n - 1];
    double fraction = rank - (double)below;
    return sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
}

double vp_percentile(const double *values, size_t n, double pct)
{
    if (n == 0)
        return NAN;
    double *sorted = sorted_copy(values, n);
    double result = percentile_of_sorted(sorted, n, pct);
    free(sorted);
    return result;
}

void vp_summarize(const double *values, size_t n, struct vp_summary *out)
{
    out->n = n;
    if (n == 0) {
        out->mean = out->stddev = out->min = out->max = NAN;
        out->p50 = out->p90 = out->p99 = NAN;
        return;
    }
    double *sorted = sorted_copy(values, n);
    out->mean = vp_mean(values, n);
    out->stddev = vp_stddev(values, n);
    out->min = sorted[0];
    out->max = sorted[n - 1];
    out->p50 = percentile_of_sorted(sorted, n, 50);
    out->p90 = percentile_of_sorted(sorted, n, 90);
    out->p99 = percentile_of_sorted(sorted, n, 99);
    free(sorted);
}
