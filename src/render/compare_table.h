/* compare's table on the terminal: the runs, one row per matched metric (each candidate's
 * value, penalty, 95% interval, adjusted p and verdict, their flags under it), what could
 * not be matched and how the environments differ. */
#ifndef VP_RENDER_COMPARE_TABLE_H
#define VP_RENDER_COMPARE_TABLE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "core/units.h"

/* documents[0] is the base; comparison is vp_compare's of the others against it; units:
 * the --units chosen. */
void vp_print_comparison(FILE *out, json_t *const *documents, size_t count,
                         const json_t *comparison, enum vp_unit_style units);

#endif
