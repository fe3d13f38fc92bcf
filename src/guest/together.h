/* Starting the jobs of every guest together over their channels, the transport of
 * `run --guests` beside virtperf-mpi's MPI collectives, with the same arithmetic
 * (engine/window.h) and the same guarantees: before a point the host measures each
 * guest's clock offset to its own (16 timed exchanges, the shortest round trip's half the
 * bound); before each repetition every guest says whether it is ok, its lead and its last
 * repetition's window; the host answers with the window across guests (each guest then
 * counts its bytes inside it, for the stonewalled rate) and the instant, on that guest's
 * clock, at which every guest's jobs start. A guest that failed stops them all at the next
 * repetition; one that closed its channel (destroyed, crashed) is named. */
#ifndef VP_GUEST_TOGETHER_H
#define VP_GUEST_TOGETHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/settings.h"

/* The guest's side: the engine's sync for one point. */
struct vp_guest_sync {
    int fd;
    bool op_log;
    int64_t offset_ns;   /* this guest's clock minus the host's */
    unsigned total_reps;
    int64_t deadline_s;  /* how long to wait for the host */
    void *region;        /* a copy of the jobs' region, when every repetition ran */
    size_t region_len;
    struct vp_run_sync sync;
};

/* Answers the host's clock rounds and learns the offset; 0 or -1 with why. */
int vp_guest_sync_begin(struct vp_guest_sync *sync, int fd, bool op_log, unsigned total_reps,
                        char *err, size_t err_len);
void vp_guest_sync_end(struct vp_guest_sync *sync);

/* The host's side: one guest of a point. */
struct vp_guest_member {
    int fd;
    const char *name;
    int64_t offset_ns, bound_ns;
};

/* One point over count members. */
struct vp_guests_point {
    struct vp_guest_member *members;
    size_t count;
    bool op_log;
    unsigned warmup, total_reps;
    unsigned timeout_s;          /* the longest wait for one guest's word */
    double *stonewall, *span;    /* per measured repetition, across guests (filled) */
    int64_t *starts;             /* each repetition's instant on the host's clock (filled;
                                    NULL: not kept) */
    void (*measuring)(void *context); /* when the first measured repetition is sent off */
    void *context;
    int lost;                    /* the member whose channel failed, -1: none */
    char reason[512];            /* why, when lost >= 0 or a signal came */
};

/* Times every member's clock; 0, or -1 (point->lost, point->reason). */
int vp_guests_time(struct vp_guests_point *point);
/* Every repetition's agreement and the last word; 0 when every channel held (a guest
 * that failed is in its result), -1 when one was lost or a signal came. */
int vp_guests_together(struct vp_guests_point *point);

/* The same over sides of one point (the host's jobs, then the guests) whose repetitions
 * alternate: side 0's first, once done side 1's first, then side 0's second... (ABAB),
 * so that a drift of the machine does not become one side's penalty. Every side has
 * the same total_reps; a member failing on any side stops every side at its next
 * repetition. 0, or -1 (the lost side's lost and reason set). */
#define VP_GUESTS_MAX_SIDES 2
int vp_guests_alternate(struct vp_guests_point *const *sides, size_t count);

#endif
