/* `virtperf run --guests`: the fleet runner's guests kind (guests.c, libvirt domains). */
#ifndef VP_CMD_GUESTS_H
#define VP_CMD_GUESTS_H

#include "cmd/executor.h"

/* Runs steps (built and checked here) in the guests steps->step[0] asks for; the
 * executor's exit status. */
int vp_run_guests(struct vp_run_steps *steps, int argc, char **argv);

#endif
