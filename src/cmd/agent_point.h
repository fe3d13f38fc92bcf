/* One point run by an agent of the run: in a guest or container virtperf started
 * (guest-agent), or in a process of the host beside them (run --and-host). It runs the
 * point's jobs with the engine, started by the host's word over fd (guest/together.h),
 * and sends back its result and its jobs' region. */
#ifndef VP_CMD_AGENT_POINT_H
#define VP_CMD_AGENT_POINT_H

#include <stddef.h>

#include "cmd/executor.h"

/* Point point_index of step index with jobs jobs (0: the point's own); 0, or -1 with why
 * when the channel failed. */
int vp_agent_run_point(int fd, const struct vp_run_steps *steps, size_t index,
                       size_t point_index, unsigned jobs, char *err, size_t err_len);

#endif
