/* Ratio confidence intervals, Mann-Whitney U, Benjamini-Hochberg. */
#include "core/inference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "core/stats.h"

#define RESAMPLES 10000
#define EXACT_MAX 20

static double centre_of(const double *values, size_t n, enum vp_centre centre)
{
    return centre == VP_CENTRE_MEAN ? vp_mean(values, n) : vp_percentile(values, n, 50);
}

double vp_relative_half_width(const double *values, size_t n)
{
    if (n < 2)
        return NAN;
    double mean = vp_mean(values, n);
    if (mean == 0)
        return NAN;
    return vp_t_quantile_975((double)n - 1) * vp_stddev(values, n) / sqrt((double)n) / fabs(mean);
}

double vp_t_quantile_975(double df)
{
    static const double table[] = { 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                                    2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                                    2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
    if (df < 1)
        df = 1;
    if (df <= 30) { /* interpolate between whole degrees of freedom */
        size_t low = (size_t)floor(df);
        double fraction = df - (double)low;
        return low == 30 ? table[30] : table[low] + fraction * (table[low + 1] - table[low]);
    }
    double z = 1.959964; /* Cornish-Fisher expansion beyond the table */
    return z + (z * z * z + z) / (4 * df) + (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * df * df);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void resample(const double *from, size_t n, double *into, uint64_t *state)
{
    for (size_t i = 0; i < n; i++)
        into[i] = from[vp_xorshift64(state) % n];
}

int vp_ratio_interval(const double *base, size_t n_base, const double *candidate,
                      size_t n_candidate, enum vp_centre centre, uint64_t seed,
                      struct vp_ratio_interval *out)
{
    if (n_base == 0 || n_candidate == 0)
        return -1;
    for (size_t i = 0; i < n_base; i++)
        if (!(base[i] > 0))
            return -1;
    for (size_t i = 0; i < n_candidate; i++)
        if (!(candidate[i] > 0))
            return -1;
    out->ratio = centre_of(candidate, n_candidate, centre) / centre_of(base, n_base, centre);
    if (n_base < VP_BOOTSTRAP_MIN_N || n_candidate < VP_BOOTSTRAP_MIN_N) {
        /* Welch's t on the logarithms: the interval of the ratio of geometric means. */
        double *logs_base = malloc(n_base * sizeof *logs_base);
        double *logs_candidate = malloc(n_candidate * sizeof *logs_candidate);
        if (!logs_base || !logs_candidate)
            abort();
        for (size_t i = 0; i < n_base; i++)
            logs_base[i] = log(base[i]);
        for (size_t i = 0; i < n_candidate; i++)
            logs_candidate[i] = log(candidate[i]);
        double va = n_base > 1 ? pow(vp_stddev(logs_base, n_base), 2) / (double)n_base : 0;
        double vb = n_candidate > 1 ? pow(vp_stddev(logs_candidate, n_candidate), 2) / (double)n_candidate : 0;
        double difference = vp_mean(logs_candidate, n_candidate) - vp_mean(logs_base, n_base);
        double se = sqrt(va + vb);
        double df = se > 0 ? pow(va + vb, 2) /
                                 ((n_base > 1 ? va * va / (double)(n_base - 1) : 0) +
                                  (n_candidate > 1 ? vb * vb / (double)(n_candidate - 1) : 0))
                           : 1;
        double half = vp_t_quantile_975(isfinite(df) ? df : 1) * se;
        out->low = exp(difference - half);
        out->high = exp(difference + half);
        out->method = "t-log";
        free(logs_base);
        free(logs_candidate);
        return 0;
    }
    double *ratios = malloc(RESAMPLES * sizeof *ratios);
    double *a = malloc(n_base * sizeof *a), *b = malloc(n_candidate * sizeof *b);
    if (!ratios || !a || !b)
        abort();
    uint64_t state = seed | 1;
    for (size_t r = 0; r < RESAMPLES; r++) {
        resample(base, n_base, a, &state);
        resample(candidate, n_candidate, b, &state);
        ratios[r] = centre_of(b, n_candidate, centre) / centre_of(a, n_base, centre);
    }
    qsort(ratios, RESAMPLES, sizeof *ratios, compare_doubles);
    out->low = ratios[(size_t)(0.025 * RESAMPLES)];
    out->high = ratios[(size_t)(0.975 * RESAMPLES) - 1];
    out->method = "bootstrap";
    free(ratios);
    free(a);
    free(b);
    return 0;
}

/* Ranks (average ranks for ties) of the pooled sample; returns the tie correction term
 * sum(t^3 - t). */
static double pooled_ranks(const double *a, size_t n_a, const double *b, size_t n_b,
                           double *rank_sum_a, int *ties)
{
    size_t n = n_a + n_b;
    struct item { double value; int from_a; } *items = malloc(n * sizeof *items);
    if (!items)
        abort();
    for (size_t i = 0; i < n_a; i++)
        items[i] = (struct item){ a[i], 1 };
    for (size_t i = 0; i < n_b; i++)
        items[n_a + i] = (struct item){ b[i], 0 };
    for (size_t i = 1; i < n; i++) { /* insertion sort: samples are small */
        struct item key = items[i];
        size_t j = i;
        while (j > 0 && items[j - 1].value > key.value) {
            items[j] = items[j - 1];
            j--;
        }
        items[j] = key;
    }
    double correction = 0;
    *rank_sum_a = 0;
    *ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && items[j + 1].value == items[i].value)
            j++;
        double rank = (double)(i + j) / 2 + 1, t = (double)(j - i + 1);
        if (t > 1) {
            *ties = 1;
            correction += t * t * t - t;
        }
        for (size_t k = i; k <= j; k++)
            if (items[k].from_a)
                *rank_sum_a += rank;
        i = j + 1;
    }
    free(items);
    return correction;
}

/* Number of arrangements with U = u, for n_a and n_b values (no ties), by recursion
 * f(n_a, n_b, u) = f(n_a - 1, n_b, u - n_b) + f(n_a, n_b - 1, u). */
static double exact_two_sided(size_t n_a, size_t n_b, double u)
{
    size_t max_u = n_a * n_b;
    /* table[i][j][k]: arrangements of i and j values with U = k; built up in place. */
    double *counts = calloc((n_a + 1) * (n_b + 1) * (max_u + 1), sizeof *counts);
    if (!counts)
        abort();
#define AT(i, j, k) counts[((i) * (n_b + 1) + (j)) * (max_u + 1) + (k)]
    for (size_t i = 0; i <= n_a; i++) {
        for (size_t j = 0; j <= n_b; j++) {
            if (i == 0 || j == 0) {
                AT(i, j, 0) = 1;
                continue;
            }
            for (size_t k = 0; k <= i * j; k++)
                AT(i, j, k) = (k >= j ? AT(i - 1, j, k - j) : 0) + AT(i, j - 1, k);
        }
    }
    double total = 0, tail = 0, low_u = fmin(u, (double)max_u - u);
    for (size_t k = 0; k <= max_u; k++) {
        total += AT(n_a, n_b, k);
        if ((double)k <= low_u + 1e-9)
            tail += AT(n_a, n_b, k);
    }
#undef AT
    free(counts);
    double p = 2 * tail / total;
    return p > 1 ? 1 : p;
}

double vp_mann_whitney_p(const double *a, size_t n_a, const double *b, size_t n_b)
{
    if (n_a == 0 || n_b == 0)
        return 1;
    double rank_sum_a;
    int ties;
    double correction = pooled_ranks(a, n_a, b, n_b, &rank_sum_a, &ties);
    double u = rank_sum_a - (double)n_a * (double)(n_a + 1) / 2;
    if (!ties && n_a <= EXACT_MAX && n_b <= EXACT_MAX)
        return exact_two_sided(n_a, n_b, u);
    double n = (double)(n_a + n_b);
    double mean = (double)n_a * (double)n_b / 2;
    double variance = (double)n_a * (double)n_b / 12 * ((n + 1) - correction / (n * (n - 1)));
    if (variance <= 0)
        return 1;
    double z = (fabs(u - mean) - 0.5) / sqrt(variance); /* continuity correction */
    if (z < 0)
        z = 0;
    return erfc(z / sqrt(2));
}

void vp_benjamini_hochberg(double *p, size_t n)
{
    if (n == 0)
        return;
    size_t *order = malloc(n * sizeof *order);
    double *adjusted = malloc(n * sizeof *adjusted);
    if (!order || !adjusted)
        abort();
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = 1; i < n; i++) { /* sort indexes by p, ascending */
        size_t key = order[i], j = i;
        while (j > 0 && p[order[j - 1]] > p[key]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = key;
    }
    double running = 1;
    for (size_t rank = n; rank >= 1; rank--) {
        size_t index = order[rank - 1];
        double value = p[index] * (double)n / (double)rank;
        if (value < running)
            running = value;
        adjusted[index] = running;
    }
    memcpy(p, adjusted, n * sizeof *p);
    free(order);
    free(adjusted);
}
