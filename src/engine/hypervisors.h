/* A result's "hypervisors" part: each virtperf-mpi rank that started members, with its
 * aggregate of them (see hypervisors.c). */
#ifndef VP_ENGINE_HYPERVISORS_H
#define VP_ENGINE_HYPERVISORS_H

#include "bench/bench.h"

extern const struct vp_result_part vp_part_hypervisors;

#endif
