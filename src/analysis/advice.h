/* Advisories that results explain (the fingerprint's own are in core/sysinfo.c): each
 * benchmark's advise hook is given its ok results; late timer wake-ups, lost ticks,
 * clock steps and drift, slow clock reads and dear cross-CPU wake-ups live with the
 * benchmarks that measure them. */
#ifndef VP_ADVICE_H
#define VP_ADVICE_H

#include <jansson.h>

/* Appends one line per finding in results (an array of result objects; failed ones
 * are skipped) to advisories, each naming the benchmark and figure behind it; and the
 * fingerprint's advisories of each member a result ran in (a guest's emulated NIC or
 * disk, seen from inside it), once per member, naming it. */
void vp_result_advisories(const json_t *results, json_t *advisories);

#endif
