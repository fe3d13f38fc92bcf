/* `virtperf run --containers`: the fleet runner's containers kind (containers.c). */
#ifndef VP_CMD_CONTAINERS_H
#define VP_CMD_CONTAINERS_H

#include "cmd/executor.h"

/* Runs steps (built and checked here) in the containers steps->step[0] asks for; the
 * executor's exit status. */
int vp_run_containers(struct vp_run_steps *steps, int argc, char **argv);

#endif
