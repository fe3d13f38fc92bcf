/* Advisories that results explain (the fingerprint's own are in sysinfo.c): each
 * benchmark's advise hook is given its ok results; late timer wake-ups, lost ticks,
 * clock steps and drift, slow clock reads and dear cross-CPU wake-ups live with the
 * benchmarks that measure them. */
#ifndef VP_ADVICE_H
#define VP_ADVICE_H

#include <jansson.h>

/* Appends one line per finding in results (an array of result objects; failed ones
 * are skipped) to advisories, each naming the benchmark and figure behind it. */
void vp_result_advisories(const json_t *results, json_t *advisories);

#endif
