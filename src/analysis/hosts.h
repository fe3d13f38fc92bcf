/* Results of many hosts (virtperf-mpi): each host against the others, so a reader sees
 * "vm3 was 30% slower than the others". */
#ifndef VP_HOSTS_H
#define VP_HOSTS_H

#include <jansson.h>
#include <stddef.h>

/* Host index's mean of metric over the median of the other hosts' means, minus 1
 * (-0.3: 30% below the others); NAN when there are no others or a mean is missing. */
double vp_host_versus_others(const json_t *hosts, size_t index, const char *metric);

#endif
