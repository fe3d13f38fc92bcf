/* Terminal output of results: an aligned block per result with human units, the
 * per-job figures (the studies listed every process) and the monitor's summary. */
#ifndef VP_TABLE_H
#define VP_TABLE_H

#include <jansson.h>
#include <stdio.h>

#include "core/json.h" /* vp_printable */
#include "core/units.h"

/* Prints one result object (engine output or exported) as shown says (analysis/shown.h's
 * vp_result_shown); units: the --units chosen. */
void vp_print_result(FILE *out, const json_t *result, const json_t *shown,
                     enum vp_unit_style units);
/* app --preset's scores (analysis/combined.c's vp_workload_scores): one line per job count. */
void vp_print_workload_scores(FILE *out, const json_t *scores);


#endif
