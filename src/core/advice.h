/* Advisories that results explain (the fingerprint's own are in sysinfo.c): late timer
 * wake-ups, lost ticks, clock steps and drift, clock reads off the vDSO fast path,
 * cross-CPU wake-ups far dearer than same-CPU switches. */
#ifndef VP_ADVICE_H
#define VP_ADVICE_H

#include <jansson.h>

#define VP_TIMER_LATE_S 1e-3       /* p99 wake-up latency above this is late */
#define VP_DRIFT_HIGH_PPM 100.0    /* beyond a typical crystal's error */
#define VP_CLOCK_READ_SLOW_S 150e-9 /* a vDSO read takes tens of ns, a system call more */
#define VP_WAKEUP_RATIO_HIGH 4.0   /* cross-CPU over same-CPU switch cost */

/* Appends one line per finding in results (an array of result objects; failed ones
 * are skipped) to advisories, each naming the benchmark and figure behind it. */
void vp_result_advisories(const json_t *results, json_t *advisories);

#endif
