/* What the engine is told for one result: repetitions, pinning, duration, the monitor,
 * and (virtperf-mpi) the sync that starts the jobs together with other hosts'. Its own
 * header so the result builder (result.c) and the engine (engine.c) share it without
 * reaching each other. */
#ifndef VP_ENGINE_SETTINGS_H
#define VP_ENGINE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/progress.h"
#include "core/topology.h"
#include "engine/shared.h"

/* A run whose jobs start together with other hosts' (virtperf-mpi). start is called
 * before every repetition, also after this host failed (ok false), so every host makes
 * the same calls: it returns 0 and this host's start instant (CLOCK_MONOTONIC), or -1
 * when the repetition must not start (a host failed, a signal came) with the reason.
 * shared (NULL before the jobs exist) still holds the previous repetition's records and
 * op logs, for figures across hosts.
 * measured is called with the shared region once the jobs have finished every
 * repetition (ok) or stopped, before the region is unmapped. */
struct vp_run_sync {
    void *context;
    int (*start)(void *context, const struct vp_shared *shared, unsigned rep, bool ok,
                 int64_t lead_ns, int64_t *start_ns, char *reason, size_t reason_len);
    void (*measured)(void *context, const struct vp_shared *shared, const double *stonewall,
                     const double *span);
};

struct vp_run_settings {
    const char *pin_spec;
    unsigned reps, warmup;
    double reps_target; /* --reps auto: stop once the headline's 95% interval is within
                           this fraction of its mean (reps the most; 0: run reps) */
    double duration;   /* 0: the benchmark's own amount of work */
    double monitor_hz;
    char *const *watch;
    size_t watch_count;
    const struct vp_topology *topology;
    struct vp_progress *progress;
    const struct vp_run_sync *sync; /* NULL: this host alone */
};

#endif
