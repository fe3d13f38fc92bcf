/* Offset, drift, jitter and steps from time exchanges (see drift.h). */
#include "core/drift.h"

#include <math.h>
#include <stdlib.h>

#include "core/stats.h"

struct vp_time_sample vp_time_sample_of(const struct vp_time_exchange *exchange)
{
    double away = (double)(exchange->t1 - exchange->t2) / 1e9;
    double back = (double)(exchange->t4 - exchange->t3) / 1e9;
    double round_trip = (double)(exchange->t4 - exchange->t1) / 1e9;
    double held = (double)(exchange->t3 - exchange->t2) / 1e9;
    return (struct vp_time_sample){ .at = exchange->at, .offset = (away + back) / 2,
                                    .delay = round_trip - held };
}

struct vp_time_sample vp_time_best_of(const struct vp_time_exchange *exchanges, size_t n)
{
    struct vp_time_sample best = vp_time_sample_of(&exchanges[0]);
    for (size_t i = 1; i < n; i++) {
        struct vp_time_sample sample = vp_time_sample_of(&exchanges[i]);
        if (sample.delay < best.delay)
            best = sample;
    }
    return best;
}

/* The median of the slopes between neighbouring samples: a drift that one step cannot
 * pull, used to tell a step from the drift's own progress. */
static double median_neighbour_slope(const struct vp_time_sample *samples, size_t n)
{
    double *slopes = malloc((n - 1) * sizeof *slopes);
    size_t count = 0;
    if (!slopes)
        abort();
    for (size_t i = 1; i < n; i++) {
        double span = samples[i].at - samples[i - 1].at;
        if (span > 0)
            slopes[count++] = (samples[i].offset - samples[i - 1].offset) / span;
    }
    double median = count ? vp_percentile(slopes, count, 50) : 0;
    free(slopes);
    return median;
}

/* The weight of a sample in the fit: 1 / delay^2, with delays below a microsecond
 * (loopback, synthetic series) counted as one so that no sample weighs without limit. */
static double sample_weight(const struct vp_time_sample *sample)
{
    double delay = sample->delay > 1e-6 ? sample->delay : 1e-6;
    return 1 / (delay * delay);
}

void vp_drift_estimate(const struct vp_time_sample *samples, size_t n, double step_threshold,
                       struct vp_drift_estimate *out)
{
    *out = (struct vp_drift_estimate){ .samples = n, .drift_ppm = NAN,
                                       .drift_error_ppm = NAN, .jitter = NAN };
    if (n == 0)
        return;
    out->offset_start = samples[0].offset;
    out->offset_end = samples[n - 1].offset;
    for (size_t i = 0; i < n; i++) {
        if (fabs(samples[i].offset) > out->max_offset)
            out->max_offset = fabs(samples[i].offset);
        if (samples[i].delay / 2 > out->error_bound)
            out->error_bound = samples[i].delay / 2;
    }
    if (n < 2)
        return;

    /* Segments: a new one starts at every step, a jump beyond the threshold that the two
     * samples' error bounds cannot account for. */
    size_t *segment = calloc(n, sizeof *segment);
    if (!segment)
        abort();
    double trend = median_neighbour_slope(samples, n);
    size_t segments = 1;
    for (size_t i = 1; i < n; i++) {
        double jump = samples[i].offset - samples[i - 1].offset -
                      trend * (samples[i].at - samples[i - 1].at);
        /* each offset may be off by half its delay: only what they cannot explain */
        double unexplained = fabs(jump) - (samples[i].delay + samples[i - 1].delay) / 2;
        if (unexplained > step_threshold) {
            out->steps++;
            if (fabs(jump) > fabs(out->largest_step))
                out->largest_step = jump;
            segments++;
        }
        segment[i] = segments - 1;
    }

    /* Pooled weighted least squares: one slope, one intercept per segment. A sample's
     * offset is uncertain by up to half its delay, so it weighs 1 / delay^2: one burst
     * that found the path busy cannot tilt the line. */
    double *mean_at = calloc(segments, sizeof *mean_at);
    double *mean_offset = calloc(segments, sizeof *mean_offset);
    double *weight_sum = calloc(segments, sizeof *weight_sum);
    if (!mean_at || !mean_offset || !weight_sum)
        abort();
    for (size_t i = 0; i < n; i++) {
        double w = sample_weight(&samples[i]);
        mean_at[segment[i]] += w * samples[i].at;
        mean_offset[segment[i]] += w * samples[i].offset;
        weight_sum[segment[i]] += w;
    }
    for (size_t s = 0; s < segments; s++) {
        mean_at[s] /= weight_sum[s];
        mean_offset[s] /= weight_sum[s];
    }
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        double w = sample_weight(&samples[i]);
        double dx = samples[i].at - mean_at[segment[i]];
        sxy += w * dx * (samples[i].offset - mean_offset[segment[i]]);
        sxx += w * dx * dx;
    }
    if (sxx > 0) {
        double slope = sxy / sxx;
        double squares = 0, weighted_squares = 0;
        for (size_t i = 0; i < n; i++) {
            double fitted = mean_offset[segment[i]] + slope * (samples[i].at - mean_at[segment[i]]);
            double residual = samples[i].offset - fitted;
            squares += residual * residual;
            weighted_squares += sample_weight(&samples[i]) * residual * residual;
        }
        out->drift_ppm = slope * 1e6;
        out->jitter = sqrt(squares / (double)n);
        /* n samples fit with segments intercepts and one slope */
        size_t freedom = n > segments + 1 ? n - segments - 1 : 0;
        if (freedom > 0)
            out->drift_error_ppm = sqrt(weighted_squares / (double)freedom / sxx) * 1e6;
    }
    free(mean_at);
    free(mean_offset);
    free(weight_sum);
    free(segment);
}
