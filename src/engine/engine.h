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
#include "engine/settings.h"
#include "engine/shared.h"

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
