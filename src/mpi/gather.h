/* Bringing each step's figures to rank 0: every other rank that ran jobs sends its
 * result and its jobs' region (engine/gather.h's follower); rank 0 gathers and combines
 * them there (engine/gather.c), names the rank that died when one did, and adds the
 * step's network links. Also the ranks' fingerprints, once, at the start. */
#ifndef VP_GATHER_H
#define VP_GATHER_H

#include <jansson.h>
#include <stdbool.h>

#include "engine/engine.h"
#include "engine/layout.h"
#include "engine/plan.h"
#include "engine/together.h"
#include "mpi/world.h"

/* What rank 0 knows of a step. members: the world ranks of the step's communicator, in
 * its order; labels: each world rank's "HOST ADDRESS" (links of a topology). */
struct vp_gather_step {
    const struct vp_step *step;
    const struct vp_plan_point *point;
    const struct vp_params *params;    /* the result's params */
    const int *members;
    size_t member_count;
    enum vp_topology_kind topology;
    char *const *labels;
    json_t *const *fingerprints;       /* by world rank */
    int64_t began_ns;                  /* when the point began, on rank 0's clock */
};

/* Rank 0: the step's result from own (rank 0's result, NULL when it ran no jobs) and
 * every other running rank's part. *stopped becomes true when a rank died or a signal
 * came; the ranks not heard from are then given that reason. */
json_t *vp_gather_step(const struct vp_world *world, struct vp_together *together,
                       const struct vp_gather_step *what, const struct vp_run_settings *settings,
                       json_t *own, bool *stopped);
/* Every rank's fingerprint, by rank, on rank 0 (NULL elsewhere): own from each machine's
 * first rank (world.h; NULL on the others, which send nothing), shared by its others. */
json_t **vp_gather_fingerprints(const struct vp_world *world, const json_t *own);

#endif
