/* Clock offset and drift against a reference from NTP-style exchanges. One exchange is
 * four timestamps: t1 local send, t2 reference receive, t3 reference send, t4 local
 * receive. Its offset (local minus reference, positive when the local clock is ahead) is
 * ((t1 - t2) + (t4 - t3)) / 2 and its delay (t4 - t1) - (t3 - t2); whatever the path's
 * asymmetry, the true offset lies within delay / 2 of the estimate. Per window the
 * exchange with the smallest delay is kept; over the windows a step is a jump of the
 * offset beyond the threshold after the drift and both samples' error bounds (half their
 * delays) are allowed for, so a busy path is not taken for a step, and the drift is the
 * least-squares slope of offset over time with one intercept per step-free segment, each
 * sample weighted by 1 / delay^2. */
#ifndef VP_DRIFT_H
#define VP_DRIFT_H

#include <stddef.h>
#include <stdint.h>

struct vp_time_exchange {
    int64_t t1, t2, t3, t4; /* ns */
    double at;              /* when it happened, s on a steady local clock */
};

struct vp_time_sample {
    double at, offset, delay; /* s */
};

struct vp_drift_estimate {
    size_t samples;
    double offset_start, offset_end; /* s, of the first and last sample */
    double max_offset;               /* s, largest |offset| */
    double drift_ppm;                /* NaN with fewer than two samples in one segment */
    double drift_error_ppm;          /* standard error of drift_ppm; NaN without a spare
                                        sample beyond the slope and the intercepts */
    double jitter;                   /* s, RMS of the offsets around the fitted lines */
    double error_bound;              /* s, largest delay / 2 of the samples */
    unsigned steps;
    double largest_step; /* s, signed, the step of largest size (0 without one) */
};

/* The sample of one exchange. */
struct vp_time_sample vp_time_sample_of(const struct vp_time_exchange *exchange);

/* The sample of the exchange with the smallest delay (n > 0). */
struct vp_time_sample vp_time_best_of(const struct vp_time_exchange *exchanges, size_t n);

/* Estimates over n >= 1 samples in time order. */
void vp_drift_estimate(const struct vp_time_sample *samples, size_t n, double step_threshold,
                       struct vp_drift_estimate *out);

#endif
