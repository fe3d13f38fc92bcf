/* The HTML report: one self-contained page (inline CSS and SVG, no script, no external
 * URL) with the verdicts, the environments side by side with their advisories, the
 * penalty table with intervals and a bar chart, scaling charts with the knee, latency
 * CDFs, and monitor time series. */
#ifndef VP_HTML_H
#define VP_HTML_H

#include <jansson.h>
#include <stddef.h>

#include "core/units.h"
#include "render/svg.h"

/* What the report draws, computed by its command (cmd/report.c): the runs (documents[0]
 * the base), and the analyses of them. */
struct vp_report {
    json_t *const *documents;
    size_t count;
    const json_t *comparison;     /* vp_compare of the others against the base; NULL: */
    const char *comparison_error; /* why not (count 1: not drawn) */
    const json_t *const *scalings; /* per document, vp_scaling's or NULL (no sweep) */
    const json_t *const *advisories; /* per document, its host's and results' advisories */
    const json_t *matrices;       /* vp_matrices of the documents */
    const json_t *study;          /* vp_study, or NULL: no study figures */
    enum vp_unit_style units;     /* the --units chosen */
};

/* The page: it only draws what report holds. */
void vp_report_html(const struct vp_report *report, struct vp_markup *out);

#endif
