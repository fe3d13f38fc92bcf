/* Each step's figures to rank 0, combined there (see gather.h). */
#include "mpi/gather.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "engine/combine.h"
#include "engine/result.h"
#include "engine/shared_check.h"
#include "store/document.h"
#include "mpi/liveness.h"

/* One rank's contribution to a point, on rank 0: its result and a view of its region. */
struct gathered {
    struct vp_host_part part;
    struct vp_shared view;
    void *region;
};

/* Receives the result and region of the step's member peer (its place in the step's
 * communicator), checked as a member's are (name: how the rank is shown); one that is
 * not what an honest rank sends becomes a failed result naming it. Returns -1 when a
 * rank died or a signal came (reason says which). */
static int receive_part(struct vp_together *together, const struct vp_plan_point *point,
                        double duration, int64_t began_ns, int peer, const char *name,
                        struct gathered *into, char *reason, size_t reason_len)
{
    char *text;
    void *region;
    size_t region_len;
    if (vp_together_receive_part(together, peer, vp_shared_most(point, 0, duration), &text,
                                 &region, &region_len, reason, reason_len) != 0)
        return -1;
    into->part.result = vp_result_from(name, text);
    free(text);
    if (vp_shared_take(name, point, duration, began_ns, &into->part, &into->view, region,
                       region_len))
        into->region = region;
    else
        free(region);
    return 0;
}

/* The part of a rank not heard from: dead, or stopped with the run. */
static json_t *silent_part(int rank)
{
    bool died = vp_liveness_dead() == rank;
    char death[160];
    vp_liveness_death(death, sizeof death);
    return json_pack("{s:s,s:s}", "status", died ? "failed" : "interrupted", "error",
                     died ? death : "not heard from: the run stopped");
}

json_t *vp_gather_step(const struct vp_world *world, struct vp_together *together,
                       const struct vp_gather_step *what, const struct vp_run_settings *settings,
                       json_t *own, bool *stopped)
{
    const struct vp_plan_point *point = what->point;
    struct gathered *parts = calloc(what->member_count, sizeof *parts);
    if (!parts)
        abort();
    size_t count = 0;
    char reason[VP_ERROR_LEN] = "";
    double duration = settings->duration > 0 ? settings->duration : point->bench->default_duration;
    for (size_t m = 0; m < what->member_count; m++) {
        int rank = what->members[m];
        if (what->step->roles[rank] != VP_ROLE_RUN)
            continue;
        struct gathered *part = &parts[count++];
        part->part.rank = rank;
        part->part.fingerprint = what->fingerprints[rank];
        part->part.clock_offset_ns = together->offsets[m];
        part->part.offset_bound_ns = together->bounds[m];
        if (rank == 0) {
            part->part.result = json_incref(own);
            if (together->region) {
                vp_shared_layout(&part->view, point->bench, &point->params,
                                 together->region_jobs, point->warmup + point->reps, duration);
                vp_shared_attach(&part->view, together->region);
                part->part.shared = &part->view;
            }
        } else if (*stopped) {
            part->part.result = silent_part(rank);
        } else {
            char name[sizeof world->hosts[0] + 32];
            snprintf(name, sizeof name, "rank %d (%s)", rank, world->hosts[rank]);
            if (receive_part(together, point, duration, what->began_ns, (int)m, name, part,
                             reason, sizeof reason) == 0)
                continue;
            *stopped = true;
            bool refused = vp_liveness_dead() < 0 && !vp_engine_interrupted();
            part->part.result = refused ? json_pack("{s:s,s:s++}", "status", "failed", "error",
                                                    name, ": ", reason)
                                        : silent_part(rank);
        }
    }
    struct vp_host_part *host_parts = calloc(count, sizeof *host_parts);
    if (!host_parts)
        abort();
    for (size_t p = 0; p < count; p++)
        host_parts[p] = parts[p].part;
    json_t *result = vp_combine_hosts(point->bench, what->params, point->jobs, settings,
                                      host_parts, count, together->stonewall, together->span);
    if (what->topology != VP_TOPOLOGY_NONE && vp_layout_is_network(point->bench))
        vp_layout_mark(result, what->topology, what->step, world->size, what->labels);
    int dead = vp_liveness_dead();
    if (dead >= 0) { /* the cause, not the ranks it stopped */
        char cause[VP_ERROR_LEN], death[160];
        vp_liveness_death(death, sizeof death);
        snprintf(cause, sizeof cause, "rank %d (%s): %s", dead, world->hosts[dead], death);
        vp_result_finish(result, "failed", cause);
    }
    for (size_t p = 0; p < count; p++) {
        json_decref(parts[p].part.result);
        free(parts[p].region);
    }
    free(host_parts);
    free(parts);
    return result;
}

int vp_gather_send(const struct vp_together *together, json_t *result)
{
    char reason[VP_ERROR_LEN];
    char *text = json_dumps(result, JSON_COMPACT);
    int status = vp_together_send_part(together, text, reason, sizeof reason);
    free(text);
    return status;
}

json_t **vp_gather_fingerprints(const struct vp_world *world, const json_t *own)
{
    char reason[VP_ERROR_LEN];
    char *text = json_dumps(own, JSON_COMPACT);
    json_t **all = NULL;
    if (world->rank != 0) {
        if (vp_world_send(world, text, strlen(text), 0, MPI_COMM_WORLD, reason, sizeof reason) != 0)
            vp_world_abandon(world, 1);
    } else {
        all = calloc((size_t)world->size, sizeof *all);
        if (!all)
            abort();
        all[0] = json_incref((json_t *)own);
        for (int r = 1; r < world->size; r++) {
            void *data;
            size_t len;
            if (vp_world_receive(world, VP_FINGERPRINT_MOST, &data, &len, r, MPI_COMM_WORLD, reason, sizeof reason) != 0) {
                fprintf(stderr, "virtperf-mpi: %s\n", reason);
                vp_world_abandon(world, 1);
            }
            all[r] = json_loads(data, 0, NULL);
            free(data);
            if (!all[r])
                all[r] = json_pack("{s:s}", "hostname", world->hosts[r]);
        }
    }
    free(text);
    return all;
}

