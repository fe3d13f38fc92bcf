/* Clock offsets, repetition windows and rates across hosts (see window.h). */
#include "engine/window.h"

#include <math.h>

void vp_clock_estimate_init(struct vp_clock_estimate *estimate)
{
    *estimate = (struct vp_clock_estimate){ .best_rtt_ns = INT64_MAX };
}

void vp_clock_estimate_add(struct vp_clock_estimate *estimate, int64_t sent_ns, int64_t peer_ns,
                           int64_t back_ns)
{
    int64_t rtt = back_ns - sent_ns;
    if (rtt < 0 || rtt >= estimate->best_rtt_ns)
        return;
    estimate->best_rtt_ns = rtt;
    estimate->offset_ns = peer_ns - (sent_ns + back_ns) / 2;
    estimate->bound_ns = (rtt + 1) / 2;
}

void vp_window_empty(int64_t *window)
{
    for (int w = 0; w < VP_WINDOW_WORDS; w++)
        window[w] = INT64_MIN;
}

static void widen(int64_t *word, int64_t value)
{
    if (value > *word)
        *word = value;
}

void vp_window_add_jobs(int64_t *window, const struct vp_shared *shared, unsigned rep,
                        int64_t offset_ns)
{
    for (unsigned job = 0; shared && job < shared->jobs; job++) {
        const struct vp_rep_record *record = vp_shared_record(shared, job, rep);
        int64_t start = record->start_ns - offset_ns, end = record->end_ns - offset_ns;
        widen(&window[0], start);
        widen(&window[1], -end);
        widen(&window[2], -start);
        widen(&window[3], end);
    }
}

void vp_window_shift(int64_t *window, int64_t by_ns)
{
    static const int sign[VP_WINDOW_WORDS] = { 1, -1, -1, 1 }; /* the negated instants */
    for (int w = 0; w < VP_WINDOW_WORDS; w++)
        if (window[w] != INT64_MIN)
            window[w] += sign[w] * by_ns;
}

void vp_window_merge(int64_t *window, const int64_t *other)
{
    for (int w = 0; w < VP_WINDOW_WORDS; w++)
        widen(&window[w], other[w]);
}

void vp_window_bytes(const struct vp_shared *shared, const int64_t *window, int64_t offset_ns,
                     double *bytes)
{
    int64_t latest_start = window[0], earliest_end = -window[1];
    bytes[0] = bytes[1] = bytes[2] = 0;
    for (unsigned job = 0; shared && job < shared->jobs; job++) {
        const struct vp_job_slot *slot = vp_shared_slot(shared, job);
        const int64_t *log = vp_shared_op_log(shared, job);
        if (slot->op_log_len > shared->op_log_cap) {
            bytes[2] += 1;
            continue;
        }
        for (uint64_t i = 0; i < slot->op_log_len; i++) {
            int64_t done = log[i] - offset_ns;
            if (done > latest_start && done <= earliest_end)
                bytes[0] += (double)slot->op_bytes;
        }
        bytes[1] += (double)slot->op_log_len * (double)slot->op_bytes;
    }
}

void vp_window_rates(const int64_t *window, const double *bytes, double *stonewall,
                     double *span)
{
    int64_t latest_start = window[0], earliest_end = -window[1];
    int64_t earliest_start = -window[2], latest_end = window[3];
    if (bytes[2] > 0) {
        *stonewall = *span = NAN;
        return;
    }
    *stonewall = earliest_end > latest_start
        ? bytes[0] / ((double)(earliest_end - latest_start) / 1e9) : 0;
    *span = latest_end > earliest_start
        ? bytes[1] / ((double)(latest_end - earliest_start) / 1e9) : 0;
}
