/* What a data benchmark read, kept with its result as "data": {"source", "scheme",
 * "manifest", "files", "network_rx_bytes", "network_rx_rate", "job_time_across_jobs"}. */
#ifndef VP_DATA_PART_H
#define VP_DATA_PART_H

#include "bench/bench.h"

extern const struct vp_result_part vp_part_data;

#endif
