/* One point run by an agent of the run: in a guest or container virtperf started
 * (guest-agent), or in a process of the host beside them (run --and-host). It runs the
 * point's jobs with the engine, started by the host's word over fd (engine/together.h
 * over env/transport.h), and sends back its result and its jobs' region. */
#ifndef VP_CMD_AGENT_POINT_H
#define VP_CMD_AGENT_POINT_H

#include <stdbool.h>
#include <stddef.h>

#include "run/executor.h"

/* Where a net point's jobs connect, when the host says (a topology, the run's server):
 * peer ADDRESS:PORT, the key file its server takes (NULL: the point's own), and whether
 * the server sends (fan-out). */
struct vp_agent_link {
    const char *peer, *key_file;
    bool reverse;
};

/* Point point_index of step index with jobs jobs (0: the point's own), its jobs aimed by
 * link (NULL: as the words say); 0, or -1 with why when the channel failed or link does
 * not parse. */
int vp_agent_run_point(int fd, const struct vp_run_steps *steps, size_t index,
                       size_t point_index, unsigned jobs, const struct vp_agent_link *link,
                       char *err, size_t err_len);

#endif
