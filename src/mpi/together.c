/* Clock offsets, start instants and the window across ranks (see together.h). */
#include "mpi/together.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "engine/window.h"

/* Time for rank 0's instant to reach every rank before it comes, beyond the jobs' own
 * lead: the broadcast crosses ranks that may share CPUs. */
static int64_t broadcast_margin_ns(int ranks)
{
    return 2000000 + 500000 * (int64_t)ranks;
}

static int exchange(struct vp_together *together, MPI_Request *request, char *reason,
                    size_t reason_len)
{
    return vp_world_wait(together->world, request, reason, reason_len);
}

/* Rank 0's side of the clock exchange with peer: the offset of the round with the
 * smallest round trip, and half that round trip. */
static int time_peer(struct vp_together *together, int peer, char *reason, size_t reason_len)
{
    struct vp_clock_estimate estimate;
    vp_clock_estimate_init(&estimate);
    for (int round = 0; round < VP_CLOCK_ROUNDS; round++) {
        MPI_Request request;
        int64_t sent = vp_now_ns(), peer_time;
        MPI_Isend(&sent, 1, MPI_INT64_T, peer, VP_WORLD_TAG, together->comm, &request);
        if (exchange(together, &request, reason, reason_len) != 0)
            return -1;
        MPI_Irecv(&peer_time, 1, MPI_INT64_T, peer, VP_WORLD_TAG, together->comm, &request);
        if (exchange(together, &request, reason, reason_len) != 0)
            return -1;
        vp_clock_estimate_add(&estimate, sent, peer_time, vp_now_ns());
    }
    together->offsets[peer] = estimate.offset_ns;
    together->bounds[peer] = estimate.bound_ns;
    MPI_Request request;
    MPI_Isend(&together->offsets[peer], 1, MPI_INT64_T, peer, VP_WORLD_TAG, together->comm,
              &request);
    return exchange(together, &request, reason, reason_len);
}

/* Another rank's side: answers each of rank 0's times with its own, then learns its
 * offset. */
static int answer_clock(struct vp_together *together, char *reason, size_t reason_len)
{
    for (int round = 0; round < VP_CLOCK_ROUNDS; round++) {
        MPI_Request request;
        int64_t their_time, own_time;
        MPI_Irecv(&their_time, 1, MPI_INT64_T, 0, VP_WORLD_TAG, together->comm, &request);
        if (exchange(together, &request, reason, reason_len) != 0)
            return -1;
        own_time = vp_now_ns();
        MPI_Isend(&own_time, 1, MPI_INT64_T, 0, VP_WORLD_TAG, together->comm, &request);
        if (exchange(together, &request, reason, reason_len) != 0)
            return -1;
    }
    MPI_Request request;
    MPI_Irecv(&together->offset_ns, 1, MPI_INT64_T, 0, VP_WORLD_TAG, together->comm, &request);
    return exchange(together, &request, reason, reason_len);
}

/* The rates of one repetition across ranks from the agreed window: this rank's bytes
 * inside it and in all, summed over ranks. */
static int agree_rates(struct vp_together *together, const struct vp_shared *shared,
                       unsigned rep, const int64_t *window, char *reason, size_t reason_len)
{
    if (!together->op_log)
        return 0;
    double bytes[VP_WINDOW_BYTES];
    vp_window_bytes(shared, window, together->offset_ns, bytes);
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, bytes, VP_WINDOW_BYTES, MPI_DOUBLE, MPI_SUM, together->comm,
                   &request);
    if (exchange(together, &request, reason, reason_len) != 0)
        return -1;
    if (rep < together->warmup)
        return 0;
    unsigned measured = rep - together->warmup;
    vp_window_rates(window, bytes, &together->stonewall[measured], &together->span[measured]);
    return 0;
}

/* Every rank's word on the repetition just done (or on the start): whether all are ok,
 * the longest lead, and the window of rep (when rep_done). Returns 1 when all are ok,
 * 0 when one is not, -1 when the wait gave up. */
static int agree(struct vp_together *together, const struct vp_shared *shared, bool ok,
                 int64_t lead_ns, bool rep_done, unsigned rep, int64_t *lead, char *reason,
                 size_t reason_len)
{
    int64_t words[2 + VP_WINDOW_WORDS] = { ok ? 0 : 1, lead_ns };
    vp_window_empty(words + 2);
    if (ok && rep_done)
        vp_window_add_jobs(words + 2, shared, rep, together->offset_ns);
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, words, 2 + VP_WINDOW_WORDS, MPI_INT64_T, MPI_MAX, together->comm, &request);
    if (exchange(together, &request, reason, reason_len) != 0)
        return -1;
    if (words[0]) {
        snprintf(reason, reason_len, "stopped: another rank failed (its error is in the result)");
        return 0;
    }
    *lead = words[1];
    if (rep_done && agree_rates(together, shared, rep, words + 2, reason, reason_len) != 0)
        return -1;
    return 1;
}

static int start(void *context, const struct vp_shared *shared, unsigned rep, bool ok,
                 int64_t lead_ns, int64_t *start_ns, char *reason, size_t reason_len)
{
    struct vp_together *together = context;
    int64_t lead = 0;
    if (agree(together, shared, ok, lead_ns, rep > 0, rep - 1, &lead, reason, reason_len) != 1)
        return -1;
    if (together->barrier) { /* blocking, as a benchmark would: no rank death is seen here */
        MPI_Barrier(together->comm);
        *start_ns = vp_now_ns();
        return 0;
    }
    int64_t instant = 0;
    if (together->comm_rank == 0)
        instant = vp_now_ns() + lead + broadcast_margin_ns(together->comm_size);
    MPI_Request request;
    MPI_Ibcast(&instant, 1, MPI_INT64_T, 0, together->comm, &request);
    if (exchange(together, &request, reason, reason_len) != 0)
        return -1;
    *start_ns = instant + together->offset_ns;
    return 0;
}

static void measured(void *context, const struct vp_shared *shared, const double *stonewall,
                     const double *span)
{
    (void)stonewall; /* this rank's own: the agreed ones are in together */
    (void)span;
    struct vp_together *together = context;
    char reason[VP_ERROR_LEN];
    int64_t lead;
    if (agree(together, shared, shared != NULL, 0, true, together->total_reps - 1, &lead,
              reason, sizeof reason) != 1)
        return;
    together->region = malloc(shared->size);
    if (!together->region)
        return;
    memcpy(together->region, shared->base, shared->size);
    together->region_len = shared->size;
    together->region_jobs = shared->jobs;
}

int vp_together_wait(struct vp_together *together, char *reason, size_t reason_len)
{
    for (unsigned rep = 0; rep < together->total_reps; rep++) {
        int64_t instant;
        if (start(together, NULL, rep, true, 0, &instant, reason, reason_len) != 0)
            break; /* a rank failed: the last word below is still everyone's */
    }
    int64_t lead;
    return agree(together, NULL, true, 0, true, together->total_reps - 1, &lead, reason,
                 reason_len) < 0 ? -1 : 0;
}

int vp_together_begin(struct vp_together *together, const struct vp_world *world,
                      MPI_Comm comm, bool op_log, bool barrier, unsigned warmup,
                      unsigned total_reps, char *reason, size_t reason_len)
{
    *together = (struct vp_together){ .world = world, .comm = comm, .op_log = op_log,
                                      .barrier = barrier, .warmup = warmup,
                                      .total_reps = total_reps };
    MPI_Comm_rank(comm, &together->comm_rank);
    MPI_Comm_size(comm, &together->comm_size);
    unsigned measured_reps = total_reps > warmup ? total_reps - warmup : 1;
    together->stonewall = calloc(measured_reps, sizeof *together->stonewall);
    together->span = calloc(measured_reps, sizeof *together->span);
    together->offsets = calloc((size_t)together->comm_size, sizeof *together->offsets);
    together->bounds = calloc((size_t)together->comm_size, sizeof *together->bounds);
    if (!together->stonewall || !together->span || !together->offsets || !together->bounds)
        abort();
    together->sync = (struct vp_run_sync){ .context = together, .start = start,
                                           .measured = measured };
    if (together->comm_rank != 0)
        return answer_clock(together, reason, reason_len);
    for (int peer = 1; peer < together->comm_size; peer++)
        if (time_peer(together, peer, reason, reason_len) != 0)
            return -1;
    return 0;
}

void vp_together_end(struct vp_together *together)
{
    free(together->stonewall);
    free(together->span);
    free(together->offsets);
    free(together->bounds);
    free(together->region);
}
