/* virtperf-mpi's transport of the start-together protocol (engine/together.h): the ranks
 * of one step's communicator, rank 0 leading; the agreements are MPI collectives
 * (allreduce, broadcast), the clock rounds and parts point-to-point messages, every wait
 * through vp_world_wait so that a rank's death or a signal ends it with why. Rank 0's
 * instant is sent ahead of the jobs' own lead by what its broadcast takes: 2 ms, 0.5 ms a
 * level of its tree and 0.25 ms a rank beyond the CPUs of the most crowded machine.
 * --start-with barrier starts each repetition when a blocking MPI_Barrier returns
 * instead, as most MPI benchmarks do (bench/mpi_skew.sh measures both). */
#ifndef VP_MPI_TRANSPORT_H
#define VP_MPI_TRANSPORT_H

#include <mpi.h>

#include "engine/together.h"
#include "mpi/world.h"

struct vp_mpi_transport {
    struct vp_together_transport transport;
    const struct vp_world *world;
    MPI_Comm comm;
    int *clock_twins; /* by rank of comm: its clock twin (world.h's clock_first, in comm) */
};

/* The transport over comm (every rank of comm takes part); ended by
 * vp_mpi_transport_end. */
void vp_mpi_transport_init(struct vp_mpi_transport *mpi, const struct vp_world *world,
                           MPI_Comm comm);
void vp_mpi_transport_end(struct vp_mpi_transport *mpi);

#endif
