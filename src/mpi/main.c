/* virtperf-mpi: virtperf's run over the ranks of an MPI launch (mpirun, srun), every rank
 * a host or a guest. Only `run`; the stored run is read with virtperf. */
#include <stdio.h>
#include <string.h>

#include "run/cli.h"
#include "mpi/run.h"
#include "mpi/world.h"

int main(int argc, char **argv)
{
    struct vp_world world;
    vp_world_init(&world, &argc, &argv);
    int status;
    if (argc >= 2 && strcmp(argv[1], "run") == 0) {
        status = vp_mpi_run(&world, argc - 1, argv + 1);
    } else if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        if (world.rank == 0)
            printf("virtperf-mpi %s\n", VP_VERSION);
        status = 0;
    } else {
        if (world.rank == 0)
            fprintf(stderr, "usage: mpirun -np N virtperf-mpi run [BENCH...] [options]   "
                    "(virtperf-mpi run --help for more; read the results with virtperf)\n");
        status = argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
                     ? 0 : VP_EXIT_USAGE;
    }
    if (world.rank == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "virtperf-mpi: cannot write to standard output\n");
        status = status ? status : 1;
    }
    vp_world_exit(&world, status);
}
