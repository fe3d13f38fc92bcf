/* The start-together protocol's words over MPI (see transport.h). */
#include "mpi/transport.h"

#include <stdlib.h>

static int wait_for(const struct vp_mpi_transport *mpi, MPI_Request *request, char *reason,
                    size_t reason_len)
{
    return vp_world_wait(mpi->world, request, reason, reason_len);
}

static int send_word(void *context, int peer, enum vp_together_word what, const void *data,
                     size_t len, char *reason, size_t reason_len)
{
    struct vp_mpi_transport *mpi = context;
    if (what == VP_WORD_RESULT || what == VP_WORD_REGION)
        return vp_world_send(mpi->world, data, len, peer, mpi->comm, reason, reason_len);
    MPI_Request request; /* a clock word: one int64 */
    vp_world_turn_to(mpi->world, mpi->comm, peer);
    MPI_Isend(data, (int)(len / sizeof(int64_t)), MPI_INT64_T, peer, VP_WORLD_TAG, mpi->comm,
              &request);
    return wait_for(mpi, &request, reason, reason_len);
}

static int receive_word(void *context, int peer, enum vp_together_word what, void *data,
                        size_t len, char *reason, size_t reason_len)
{
    (void)what; /* the protocol's order says which: only clock words come here */
    struct vp_mpi_transport *mpi = context;
    MPI_Request request;
    vp_world_turn_to(mpi->world, mpi->comm, peer);
    MPI_Irecv(data, (int)(len / sizeof(int64_t)), MPI_INT64_T, peer, VP_WORLD_TAG, mpi->comm,
              &request);
    return wait_for(mpi, &request, reason, reason_len);
}

static int receive_any(void *context, int peer, enum vp_together_word what, size_t most,
                       void **data, size_t *len, char *reason, size_t reason_len)
{
    (void)what;
    struct vp_mpi_transport *mpi = context;
    return vp_world_receive(mpi->world, most, data, len, peer, mpi->comm, reason, reason_len);
}

static int allreduce(struct vp_mpi_transport *mpi, void *data, size_t count, MPI_Datatype type,
                     MPI_Op op, char *reason, size_t reason_len)
{
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, data, (int)count, type, op, mpi->comm, &request);
    return wait_for(mpi, &request, reason, reason_len);
}

static int max_words(void *context, int64_t *words, size_t count, char *reason,
                     size_t reason_len)
{
    return allreduce(context, words, count, MPI_INT64_T, MPI_MAX, reason, reason_len);
}

static int sum_values(void *context, double *values, size_t count, char *reason,
                      size_t reason_len)
{
    return allreduce(context, values, count, MPI_DOUBLE, MPI_SUM, reason, reason_len);
}

static int broadcast(void *context, int64_t *value, char *reason, size_t reason_len)
{
    struct vp_mpi_transport *mpi = context;
    MPI_Request request;
    MPI_Ibcast(value, 1, MPI_INT64_T, 0, mpi->comm, &request);
    return wait_for(mpi, &request, reason, reason_len);
}

static void barrier(void *context)
{
    struct vp_mpi_transport *mpi = context;
    MPI_Barrier(mpi->comm);
}

static int clock_twin(void *context, int rank)
{
    const struct vp_mpi_transport *mpi = context;
    return mpi->clock_twins[rank];
}

/* Each rank's clock twin in comm: the first rank of comm whose world rank reads the same
 * clock (comm's ranks keep their world order, so it comes before). */
static int *clock_twins_of(const struct vp_world *world, MPI_Comm comm, int size)
{
    int *of_comm = malloc((size_t)size * sizeof *of_comm);
    int *in_world = malloc((size_t)size * sizeof *in_world);
    int *first_in_comm = malloc((size_t)world->size * sizeof *first_in_comm);
    if (!of_comm || !in_world || !first_in_comm)
        abort();
    for (int rank = 0; rank < size; rank++)
        of_comm[rank] = rank;
    vp_world_ranks_of(comm, size, of_comm, in_world);
    for (int rank = 0; rank < world->size; rank++)
        first_in_comm[rank] = -1;
    for (int rank = 0; rank < size; rank++) { /* of_comm now holds each one's twin */
        int *first = &first_in_comm[world->clock_first[in_world[rank]]];
        if (*first < 0)
            *first = rank;
        of_comm[rank] = *first;
    }
    free(in_world);
    free(first_in_comm);
    return of_comm;
}

/* How long before the instant rank 0 sends it: 2 ms, 0.5 ms a level of the broadcast's
 * tree (log2 of the ranks), and 0.25 ms a rank the most crowded machine runs beyond its
 * CPUs (each waits for a CPU in turn). On 2 CPUs the instant reached the last of 16 ranks
 * 2.5 ms after it was sent, the last of 64 after 7 ms (a flat 0.5 ms a rank before: 10
 * and 34 ms, idle). */
static int64_t margin_ns(const struct vp_world *world, int size)
{
    int levels = 0;
    while ((1 << levels) < size)
        levels++;
    return 2000000 + 500000 * (int64_t)levels + 250000 * (int64_t)world->crowding;
}

void vp_mpi_transport_init(struct vp_mpi_transport *mpi, const struct vp_world *world,
                           MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    *mpi = (struct vp_mpi_transport){
        .world = world, .comm = comm, .clock_twins = clock_twins_of(world, comm, size),
        .transport = { .context = mpi, .rank = rank, .size = size,
                       .margin_ns = margin_ns(world, size), .send = send_word,
                       .receive = receive_word, .receive_any = receive_any, .max = max_words,
                       .sum = sum_values, .broadcast = broadcast, .barrier = barrier,
                       .clock_twin = clock_twin },
    };
}

void vp_mpi_transport_end(struct vp_mpi_transport *mpi)
{
    free(mpi->clock_twins);
    mpi->clock_twins = NULL;
}
