/* A jobs' region that came from another host (a guest's or a container's agent, an MPI
 * rank) checked before anything of it is read: a member is untrusted, and the result
 * assembly (result.c, combine.c) reads strings, counts and instants from the region as
 * its own engine wrote them. */
#ifndef VP_SHARED_CHECK_H
#define VP_SHARED_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "engine/combine.h"
#include "engine/plan.h"
#include "engine/shared.h"

/* Whether every field of view holds what an honest engine writes: each string ends
 * inside its array, each state and CPU is one there is, every instant (a start, a
 * record, a logged operation) is 0 (not reached) or inside [earliest_ns, latest_ns] on the
 * sender's clock, each histogram's buckets add up to its count. 0, or -1 with the first
 * field that is not ("job 2's affinity does not end within its 64 bytes"). */
int vp_shared_check(const struct vp_shared *view, int64_t earliest_ns, int64_t latest_ns,
                    char *why, size_t why_len);

/* The longest region an honest rank sends for point: the layout of the jobs it was asked
 * to run (jobs; 0: the point's), or of as many as a result may start where the benchmark
 * runs one job per CPU (a rank counts its own CPUs), at most duration seconds a
 * repetition. A longer one is refused by its length, before it is read. */
size_t vp_shared_most(const struct vp_plan_point *point, unsigned jobs, double duration);

/* The region another rank sent for point (region, len: what arrived) under part, whose
 * result came with it: part->shared is view on it when it is the layout part's result
 * states and holds what an honest engine writes, every instant inside the point (began_ns:
 * when the point started on the leader's clock, moved onto the rank's by its offset, give
 * or take a second and the offset's bound); else NULL, and a region that is not what it
 * should be replaces part's result by a failure that names the rank (name). Whether
 * region is in use by view. */
bool vp_shared_take(const char *name, const struct vp_plan_point *point, double duration,
                    int64_t began_ns, struct vp_host_part *part, struct vp_shared *view,
                    void *region, size_t len);

#endif
