/* The HTML report: one self-contained page (inline CSS and SVG, no script, no external
 * URL) with the verdicts, the environments side by side with their advisories, the
 * penalty table with intervals and a bar chart, scaling charts with the knee, latency
 * CDFs, and monitor time series. */
#ifndef VP_HTML_H
#define VP_HTML_H

#include <jansson.h>
#include <stddef.h>

#include "analysis/compare.h"
#include "render/svg.h"

/* documents[0] is the base run; the others are compared against it with options. */
void vp_report_html(json_t *const *documents, size_t count,
                    const struct vp_compare_options *options, struct vp_markup *out);

#endif
