/* The conditions a timing benchmark measures under, for the benchmarks that offer them:
 * a background load (--load, core/load.c) and the CPU idle policy (--hold-latency,
 * core/idle.c). One setup, annotate and teardown serve them all; annotate records on
 * the result the load that ran ("load") and the idle policy in force ("idle"), so two
 * results are compared on the same terms. */
#ifndef VP_CONDITIONS_H
#define VP_CONDITIONS_H

#include <jansson.h>

#include "bench/bench.h"

#define VP_HOLD_LATENCY_OPTION                                                              \
    { "hold-latency", VP_OPT_CHOICE, "off", 0, 0, "off|on",                                 \
      "hold a 0 us CPU latency request (/dev/cpu_dma_latency) while measuring, as "        \
      "cyclictest does unless --laptop: idle CPUs then poll instead of halting (off: the " \
      "machine's own idle policy)" }

int vp_conditions_setup(const struct vp_params *params, char *err, size_t err_len);
void vp_conditions_annotate(const struct vp_params *params, unsigned jobs, json_t *result);
void vp_conditions_teardown(const struct vp_params *params, unsigned jobs);

/* The parts vp_conditions_annotate sets ("load", "idle"), for a benchmark's parts. */
extern const struct vp_result_part *const vp_condition_parts[];

#endif
