/* The plain MPI launch bench/mpi_scale.sh measures virtperf-mpi against: every rank
 * initialises MPI, meets the others once and finalises, as any MPI program must. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
