/* One many-host point's parts brought together on its leader and combined: each
 * participant that ran jobs sends its result and its jobs' region over the together
 * transport (together.h); the leader receives each, checks it as untrusted (its result
 * by the caller's check, store/document.h's, which this layer cannot reach; its region
 * against its jobs' shape), and combines them into one result
 * (combine.h). virtperf-mpi's rank 0 and the fleet's host (guests, containers) both
 * assemble their points here; what became of a participant not heard from is theirs to
 * say, between the two calls. A follower's side (an MPI rank, a guest's or container's
 * agent) is vp_gather_follow. */
#ifndef VP_ENGINE_GATHER_H
#define VP_ENGINE_GATHER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/combine.h"
#include "engine/plan.h"
#include "engine/shared.h"
#include "engine/together.h"

/* One participant of the point, as the leader knows it. */
struct vp_gather_who {
    int rank;                  /* its rank in the result */
    int peer;                  /* its place in the together transport (offsets, receives) */
    const char *name;          /* how it is named in what went wrong */
    json_t *fingerprint;
    json_t *own;               /* the leader's own result (with together's region); NULL:
                                * received from peer */
};

/* The parts received. part[i].result is NULL for one not heard from: the caller puts in
 * what became of it before combining. */
struct vp_gathered {
    size_t count;
    struct vp_host_part *part;
    struct vp_shared *view;
    void **region;
    int lost;                  /* the first whose receive failed, -1: none */
    char reason[VP_ERROR_LEN]; /* why, from the transport */
};

/* A received result's text as a result: parsed and checked, else a failed result that
 * names who sent it. */
typedef json_t *vp_gather_check(const char *name, const char *text);

/* Receives the part of each of who[0..count) that is not the leader's own, while
 * receiving (false: the protocol did not hold, nothing is received) and until a receive
 * fails (then gathered->lost and ->reason say which and why); each result through
 * check. duration: the point's (its op logs' bound); began_ns: when it began on the
 * leader's clock. */
void vp_gather_receive(const struct vp_together *together, const struct vp_plan_point *point,
                       double duration, int64_t began_ns, const struct vp_gather_who *who,
                       size_t count, bool receiving, vp_gather_check *check,
                       struct vp_gathered *gathered);
/* A follower's part of point over transport: the point begun together with the leader,
 * jobs jobs run at its instants with params and settings (pin, repetitions and the sync
 * set here), the result and the jobs' region sent to the leader. barrier: start when
 * the transport's barrier returns instead. 0, or -1 with why. */
int vp_gather_follow(const struct vp_together_transport *transport,
                     const struct vp_plan_point *point, const struct vp_params *params,
                     unsigned jobs, struct vp_run_settings *settings, bool barrier, char *err,
                     size_t err_len);

/* The point's one result from the parts (every one's result set by now), its params
 * those given; frees what vp_gather_receive kept. */
json_t *vp_gather_combine(struct vp_gathered *gathered, const struct vp_together *together,
                          const struct vp_plan_point *point, const struct vp_params *params,
                          const struct vp_run_settings *settings);
/* One result from count of the parts, from first (a group of a point's members), without
 * the stonewalled rates unless it is every part; the parts are kept: vp_gather_free. */
json_t *vp_gather_combine_some(const struct vp_gathered *gathered, size_t first, size_t count,
                               const struct vp_together *together,
                               const struct vp_plan_point *point, const struct vp_params *params,
                               const struct vp_run_settings *settings);
/* Frees what vp_gather_receive kept. */
void vp_gather_free(struct vp_gathered *gathered);

#endif
