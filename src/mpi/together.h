/* Starting the ranks' jobs together and proving it. Before a point runs, rank 0 measures
 * each rank's clock offset to its own (NTP-style: the exchange with the smallest round
 * trip of several, its half round trip the bound). Each repetition then starts at an
 * absolute instant rank 0 picks on its clock and sends; each rank translates it into its
 * own clock and its jobs sleep to it (no barrier: a barrier's exit skew grows to tens of
 * ms once ranks outnumber cores). Between repetitions the ranks also agree on the window
 * in which every job of every rank ran, for the stonewalled rate across hosts (each op
 * log holds only the repetition just done). For comparison, --start-with barrier starts
 * each repetition when a blocking MPI_Barrier returns instead, as most MPI benchmarks
 * do (bench/mpi_skew.sh measures both). */
#ifndef VP_TOGETHER_H
#define VP_TOGETHER_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "mpi/world.h"

struct vp_together {
    const struct vp_world *world;
    MPI_Comm comm;
    int comm_rank, comm_size;
    bool op_log;                /* the benchmark logs operations (stonewalled rates) */
    bool barrier;               /* start when MPI_Barrier returns, for comparison */
    int64_t offset_ns;          /* this rank's clock minus the comm's rank 0's */
    int64_t *offsets, *bounds;  /* on rank 0: each comm rank's offset and its bound */
    unsigned warmup, total_reps;
    double *stonewall, *span;   /* per measured repetition, across ranks */
    void *region;               /* a copy of this rank's shared region, when it ran ok */
    size_t region_len;
    unsigned region_jobs;
    struct vp_run_sync sync;    /* what the engine calls */
};

/* Sets up together for one point on comm (every rank of comm calls it) and measures the
 * clocks. Returns 0, or -1 with reason (a rank died, a signal came). */
int vp_together_begin(struct vp_together *together, const struct vp_world *world,
                      MPI_Comm comm, bool op_log, bool barrier, unsigned warmup,
                      unsigned total_reps, char *reason, size_t reason_len);
/* A rank without jobs in this point (a server, or rank 0 gathering): takes part in every
 * agreement the jobs' ranks make, until they end or one fails. Returns -1 with reason
 * when a rank died or a signal came. */
int vp_together_wait(struct vp_together *together, char *reason, size_t reason_len);
void vp_together_end(struct vp_together *together);

#endif
