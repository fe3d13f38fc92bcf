/* A source x destination matrix (analysis/matrix.h) as an aligned terminal table: what
 * `virtperf matrix` prints, and a plan step's matrix under its step (the CNAF 2007
 * study's netperf tables). */
#ifndef VP_MATRIX_TABLE_H
#define VP_MATRIX_TABLE_H

#include <jansson.h>
#include <stdio.h>

#include "core/units.h"

/* One matrix, each line starting with indent, a blank line after it; units: the --units
 * chosen. */
void vp_print_matrix(FILE *out, const json_t *matrix, const char *indent,
                     enum vp_unit_style units);

#endif
