/* Each step's figures to rank 0, combined there (see gather.h). */
#include "mpi/gather.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "engine/gather.h"
#include "engine/result.h"
#include "store/document.h"
#include "mpi/liveness.h"

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
    struct vp_gather_who *who = calloc(what->member_count ? what->member_count : 1, sizeof *who);
    char (*names)[sizeof world->hosts[0] + 32] = calloc(what->member_count ? what->member_count : 1,
                                                        sizeof *names);
    if (!who || !names)
        abort();
    size_t count = 0;
    for (size_t m = 0; m < what->member_count; m++) {
        int rank = what->members[m];
        if (what->step->roles[rank] != VP_ROLE_RUN)
            continue;
        snprintf(names[count], sizeof names[count], "rank %d (%s)", rank, world->hosts[rank]);
        who[count] = (struct vp_gather_who){ .rank = rank, .peer = (int)m, .name = names[count],
                                              .fingerprint = what->fingerprints[rank],
                                              .own = rank == 0 ? own : NULL };
        count++;
    }
    double duration = settings->duration > 0 ? settings->duration : point->bench->default_duration;
    struct vp_gathered gathered;
    vp_gather_receive(together, point, duration, what->began_ns, who, count, !*stopped,
                      vp_result_from, &gathered);
    *stopped = *stopped || gathered.lost >= 0;
    for (size_t i = 0; i < count; i++) {
        if (gathered.part[i].result)
            continue;
        /* the one whose part did not come: refused by this rank's checks, dead, or stopped */
        bool refused = (int)i == gathered.lost && vp_liveness_dead() < 0 &&
                       !vp_engine_interrupted();
        gathered.part[i].result = refused ? json_pack("{s:s,s:s++}", "status", "failed", "error",
                                                      who[i].name, ": ", gathered.reason)
                                          : silent_part(who[i].rank);
    }
    json_t *result = vp_gather_combine(&gathered, together, point, what->params, settings);
    if (what->topology != VP_TOPOLOGY_NONE && vp_layout_is_network(point->bench))
        vp_layout_mark(result, what->topology, what->step, world->size, what->labels);
    int dead = vp_liveness_dead();
    if (dead >= 0) { /* the cause, not the ranks it stopped */
        char cause[VP_ERROR_LEN], death[160];
        vp_liveness_death(death, sizeof death);
        snprintf(cause, sizeof cause, "rank %d (%s): %s", dead, world->hosts[dead], death);
        vp_result_finish(result, "failed", cause);
    }
    free(names);
    free(who);
    return result;
}

json_t **vp_gather_fingerprints(const struct vp_world *world, const json_t *own)
{
    char reason[VP_ERROR_LEN];
    json_t **all = NULL;
    if (world->rank != 0) {
        if (world->machine_first[world->rank] != world->rank)
            return NULL; /* its machine's first rank speaks for it */
        char *text = json_dumps(own, JSON_COMPACT);
        if (vp_world_send(world, text, strlen(text), 0, MPI_COMM_WORLD, reason, sizeof reason) != 0)
            vp_world_abandon(world, 1);
        free(text);
        return NULL;
    }
    all = calloc((size_t)world->size, sizeof *all);
    if (!all)
        abort();
    all[0] = json_incref((json_t *)own);
    for (int r = 1; r < world->size; r++) {
        int first = world->machine_first[r];
        if (first != r) { /* an earlier rank's, already here */
            all[r] = json_incref(all[first]);
            continue;
        }
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
    return all;
}

