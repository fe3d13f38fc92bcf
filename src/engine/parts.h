/* Every optional part a result may carry (bench.h's struct vp_result_part): those the
 * engine makes for any benchmark (per-second intervals, a watch's timeline) and those
 * each benchmark declares. The store, import's checks and the result table find them
 * here, so a new part is declared where it is made and nowhere else. */
#ifndef VP_ENGINE_PARTS_H
#define VP_ENGINE_PARTS_H

#include <stddef.h>

#include "bench/bench.h"

#define VP_MAX_RESULT_PARTS 64

/* Every distinct part, the benchmarks' in list order then the engine's; returns how
 * many (at most cap). */
size_t vp_result_parts(const struct vp_result_part **parts, size_t cap);
/* The part called key, or NULL. */
const struct vp_result_part *vp_result_part_find(const char *key);

/* virtperf-mpi's hypervisors (hypervisors.c), an engine part of its own file. */
extern const struct vp_result_part vp_part_hypervisors;

#endif
