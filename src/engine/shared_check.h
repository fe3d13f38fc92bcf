/* A jobs' region that came from another host (a guest's or a container's agent, an MPI
 * rank) checked before anything of it is read: a member is untrusted, and the result
 * assembly (result.c, combine.c) reads strings, counts and instants from the region as
 * its own engine wrote them. */
#ifndef VP_SHARED_CHECK_H
#define VP_SHARED_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "engine/shared.h"

/* Whether every field of view holds what an honest engine writes: each string ends
 * inside its array, each state and CPU is one there is, every instant (a start, a
 * record, a logged operation) is 0 (not reached) or inside [earliest_ns, latest_ns] on the
 * sender's clock, each histogram's buckets add up to its count. 0, or -1 with the first
 * field that is not ("job 2's affinity does not end within its 64 bytes"). */
int vp_shared_check(const struct vp_shared *view, int64_t earliest_ns, int64_t latest_ns,
                    char *why, size_t why_len);

#endif
