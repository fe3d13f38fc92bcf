/* The study-shaped tables of a plan's runs (analysis/study.h), for the terminal and the
 * HTML report. */
#ifndef VP_RENDER_STUDY_H
#define VP_RENDER_STUDY_H

#include <jansson.h>
#include <stdio.h>

#include "core/units.h"
#include "render/markup.h"

void vp_print_study(FILE *out, const json_t *study, enum vp_unit_style units);
void vp_study_html(struct vp_markup *out, const json_t *study, enum vp_unit_style units);

#endif
