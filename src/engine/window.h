/* The arithmetic of starting many hosts' jobs together, whatever carries the messages
 * (MPI collectives in virtperf-mpi, the guests' channel in run --guests): a clock offset
 * from timed exchanges (the one with the smallest round trip, its half round trip the
 * bound), the window in which every job of a repetition ran on the reference clock, and
 * the rates across hosts inside that window (the stonewalled rate) and over its whole
 * span, from each host's op log. */
#ifndef VP_ENGINE_WINDOW_H
#define VP_ENGINE_WINDOW_H

#include <stdint.h>

#include "engine/shared.h"

#define VP_CLOCK_ROUNDS 16

/* The best of the timed exchanges seen so far. */
struct vp_clock_estimate {
    int64_t best_rtt_ns; /* INT64_MAX: none yet */
    int64_t offset_ns;   /* the peer's clock minus ours */
    int64_t bound_ns;    /* half the best round trip */
};

void vp_clock_estimate_init(struct vp_clock_estimate *estimate);
/* One exchange: we sent at sent_ns, the peer read peer_ns, its answer came at back_ns. */
void vp_clock_estimate_add(struct vp_clock_estimate *estimate, int64_t sent_ns, int64_t peer_ns,
                           int64_t back_ns);

/* A repetition's window as maxima, so that hosts' windows combine by taking the largest
 * of each word: latest start, -earliest done, -earliest start, latest done. */
#define VP_WINDOW_WORDS 4
void vp_window_empty(int64_t *window);
/* Widens window by the jobs of shared in repetition rep, their instants moved onto the
 * reference clock (offset_ns: this host's clock minus the reference's). */
void vp_window_add_jobs(int64_t *window, const struct vp_shared *shared, unsigned rep,
                        int64_t offset_ns);
void vp_window_merge(int64_t *window, const int64_t *other);
/* The window onto another clock: each instant it holds by_ns later (none stays none). */
void vp_window_shift(int64_t *window, int64_t by_ns);

/* This host's bytes of the last repetition (its op logs): [0] done inside window, [1] in
 * all, [2] jobs whose log overflowed. Hosts' counts add up. */
#define VP_WINDOW_BYTES 3
void vp_window_bytes(const struct vp_shared *shared, const int64_t *window, int64_t offset_ns,
                     double *bytes);
/* The stonewalled rate (bytes inside the window over its length) and the span rate
 * (every byte over first start to last done), NAN both when a log overflowed. */
void vp_window_rates(const int64_t *window, const double *bytes, double *stonewall,
                     double *span);

#endif
