/* The ranks of a virtperf-mpi launch: MPI set up and ended, every rank's knowledge of
 * every rank's host and machine (which ranks share a machine, a clock, and how crowded
 * the most crowded machine is), and point-to-point messages and waits that never block
 * for good: each wait polls its request, napping between polls (rank 0 wakes the rank it
 * turns to), and gives up, with the reason, when a rank died (liveness.h) or a signal
 * came, so rank 0 can still record what happened. */
#ifndef VP_WORLD_H
#define VP_WORLD_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

struct vp_world {
    int rank, size;
    char (*hosts)[256]; /* every rank's host name, by rank (all ranks know them) */
    /* By rank: the first rank that sees the same machine as it (one boot, the same
     * namespaces and cgroup), whose fingerprint stands for it: ranks on one host read
     * /proc and /sys for it once. */
    int *machine_first;
    /* By rank: the first rank reading the same CLOCK_MONOTONIC (one boot, one time
     * namespace): its clock offset is this rank's, no rounds needed. */
    int *clock_first;
    /* The most ranks any one machine runs beyond its CPUs (0: none crowded). */
    int crowding;
};

/* MPI_Init, ranks, host names and machines, liveness connections. Exits 1 with a message on failure. */
void vp_world_init(struct vp_world *world, int *argc, char ***argv);
/* Tells rank 0 this rank ends normally, ends MPI, exits with status. */
_Noreturn void vp_world_exit(struct vp_world *world, int status);
/* Ends without MPI_Finalize (a rank died or a signal came: mpirun stops the rest); a
 * rank other than 0 first waits, at most 10 s, for rank 0 to record the run and go. */
_Noreturn void vp_world_abandon(const struct vp_world *world, int status);

/* Waits for request: 0 when done; -1 with reason when a rank died or a signal came. */
int vp_world_wait(const struct vp_world *world, MPI_Request *request, char *reason,
                  size_t reason_len);
/* The world's ranks of count ranks of comm, into in_world. */
void vp_world_ranks_of(MPI_Comm comm, int count, const int *ranks, int *in_world);
/* Rank 0, turning to rank peer of comm (a message to or from it next): wakes it if it
 * naps in a wait (liveness.h), once for a run of messages with it. Elsewhere nothing. */
void vp_world_turn_to(const struct vp_world *world, MPI_Comm comm, int peer);
/* Waits, napping, for a nonblocking collective of every rank where ranks may arrive far
 * apart: Open MPI's blocking collectives spin on sched_yield while they wait, taking the
 * CPUs that oversubscribed ranks share. (MPI_Ibarrier, MPI_Iallreduce and MPI_Ibcast
 * reach a few peers each; libnbc's MPI_Iallgather reaches every rank and maps every
 * peer's shared memory: not for large launches.) A rank gone or a signal ends this rank
 * (vp_world_abandon, status 1, rank 0 saying why). */
void vp_world_await(const struct vp_world *world, MPI_Request *request);
/* Every rank here, napping meanwhile (an MPI_Ibarrier, vp_world_await'ed). */
void vp_world_meet(const struct vp_world *world);
/* Sends / receives len bytes (any size) to / from rank peer of comm; 0 or -1 + reason. */
int vp_world_send(const struct vp_world *world, const void *data, size_t len, int peer,
                  MPI_Comm comm, char *reason, size_t reason_len);
/* Receives what vp_world_send sent, at most most bytes (a longer one is refused by its
 * length, before anything is allocated): a malloc'd buffer (one byte more, zeroed, so
 * text ends) in *data, its length in *len. */
int vp_world_receive(const struct vp_world *world, size_t most, void **data, size_t *len,
                     int peer, MPI_Comm comm, char *reason, size_t reason_len);
/* A collective started (MPI_Iallreduce, MPI_Ibcast...) waited for by vp_world_wait. */
#define VP_WORLD_TAG 7310

#endif
