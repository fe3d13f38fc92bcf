/* One result from the same point run on many hosts at once (virtperf-mpi): each host's
 * jobs become jobs of one result, their instants moved onto the first host's clock, so
 * the metrics, stonewalled rates, distribution, per-second series and start skew are
 * computed across hosts exactly as across the jobs of one host; each host's own result
 * is kept under "ranks", with "machine": the first rank on the same running kernel (its
 * boot id: several ranks of one machine share it; guests, each with its own kernel, do
 * not, even on one hypervisor). */
#ifndef VP_COMBINE_H
#define VP_COMBINE_H

#include <jansson.h>
#include <stdint.h>

#include "bench/bench.h"
#include "engine/engine.h"
#include "engine/shared.h"

/* What one host (an MPI rank) brought back from a point. */
struct vp_host_part {
    int rank;
    json_t *result;                 /* its own result document (status, metrics, monitor) */
    json_t *fingerprint;            /* its environment (sysinfo) */
    const struct vp_shared *shared; /* its jobs' region, NULL unless its result is ok */
    int64_t clock_offset_ns;        /* its clock minus the first host's */
    int64_t offset_bound_ns;        /* the offset's error bound (half the round trip) */
};

/* The result of bench at params on count hosts (the first is the reference clock), its
 * identity from settings. stonewall and span: the aggregate rates of each measured
 * repetition across hosts (benchmarks with an op log; the hosts' op logs hold only the
 * last repetition, so these are found while they run). Failed when any host failed, its
 * error naming that host. */
json_t *vp_combine_hosts(const struct vp_bench *bench, const struct vp_params *params,
                         unsigned jobs, const struct vp_run_settings *settings,
                         const struct vp_host_part *parts, size_t count,
                         const double *stonewall, const double *span);

#endif
