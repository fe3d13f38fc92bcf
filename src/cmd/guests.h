/* `virtperf run --guests`: the runner for guests virtperf starts itself (guests.c). */
#ifndef VP_CMD_GUESTS_H
#define VP_CMD_GUESTS_H

#include "cmd/executor.h"
#include "core/limits.h"

#define VP_GUESTS_MAX VP_MAX_GUESTS

/* Runs steps (built and checked here) in the guests steps->step[0] asks for; the
 * executor's exit status. */
int vp_run_guests(struct vp_run_steps *steps, int argc, char **argv);

#endif
