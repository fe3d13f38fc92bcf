/* What a data benchmark read, kept with its result as "data": {"source", "scheme",
 * "manifest", "files", "network_rx_bytes", "network_rx_rate", "network_interface"?, "job_time_across_jobs"}. */
#ifndef VP_DATA_PART_H
#define VP_DATA_PART_H

#include "bench/bench.h"

extern const struct vp_result_part vp_part_data;

/* Sets result's "data" from its monitor (the network input while it ran: of a URL
 * source, the interface the route to its host leaves by, named; else the interfaces
 * that face the outside) and its jobs (the spread of job_time across them). */
void vp_data_part_set(json_t *result, const char *source, const char *scheme,
                      const char *manifest, int files);

#endif
