/* scaling's table on the terminal: per benchmark and metric, each job count's aggregate,
 * per-job figure, efficiency, fairness, idle CPU and judged figure, then the knee. */
#ifndef VP_RENDER_SCALING_TABLE_H
#define VP_RENDER_SCALING_TABLE_H

#include <jansson.h>
#include <stdio.h>

#include "core/units.h"

/* scaling is vp_scaling's document; units: the --units chosen. */
void vp_print_scaling(FILE *out, const json_t *scaling, enum vp_unit_style units);

#endif
