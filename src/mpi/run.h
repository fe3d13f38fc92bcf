/* virtperf-mpi's run command (see run.c). */
#ifndef VP_MPI_RUN_H
#define VP_MPI_RUN_H

#include "mpi/world.h"

/* argv[0] is "run". Returns the exit status (rank 0's tells the run's outcome). */
int vp_mpi_run(const struct vp_world *world, int argc, char **argv);

#endif
