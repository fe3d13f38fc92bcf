/* Timing of tiny operations (a system call, a clock read): the iteration count doubles
 * until the timed span is at least 1000 times what reading the clock costs (timing
 * overhead under 0.1%, lmbench's rule) and at least a millisecond; the same loop around
 * an empty operation is timed too and subtracted. */
#ifndef VP_CALIBRATE_H
#define VP_CALIBRATE_H

#include <stdint.h>

typedef void (*vp_operation)(void *context);

/* Seconds per call of op, loop overhead removed; *iterations receives the count used. */
double vp_cost_per_op(vp_operation op, void *context, uint64_t *iterations);

#endif
