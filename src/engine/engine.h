/* The job engine: forks N job processes, has each pin itself and prepare, releases them
 * together at an agreed absolute CLOCK_MONOTONIC instant for every repetition, collects
 * their figures through shared memory while the monitor samples the machine, and turns
 * it all into one result document. */
#ifndef VP_ENGINE_H
#define VP_ENGINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "bench/bench.h"
#include "core/limits.h"
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
    double duration;   /* 0: the benchmark's own amount of work */
    double monitor_hz;
    char *const *watch;
    size_t watch_count;
    const struct vp_topology *topology;
    struct vp_progress *progress;
    const struct vp_run_sync *sync; /* NULL: this host alone */
};

/* Catches SIGINT and SIGTERM: the engine then stops its jobs and returns an
 * "interrupted" result; vp_engine_interrupted() tells the caller to stop. */
void vp_engine_catch_signals(void);
bool vp_engine_interrupted(void);
/* Catches SIGUSR1: a benchmark that ends_on_interrupt then ends its repetition as it
 * would on Ctrl-C, but the run is not interrupted (run --background stops its watch so). */
void vp_engine_catch_stop_request(void);
/* What the signal handler does, for a caller with a handler of its own (async-signal-safe). */
void vp_engine_note_interrupt(void);

/* Runs one result: bench with params at this job count. Never returns NULL; the
 * document's "status" is "ok", "failed" (with "error") or "interrupted". */
json_t *vp_engine_run(const struct vp_bench *bench, const struct vp_params *params,
                      unsigned jobs, const struct vp_run_settings *settings);

#endif
