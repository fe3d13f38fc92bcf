/* The report's sections of single results (html_results.c), which html.c's page places
 * after the verdicts and the curves, and the helpers both write with. */
#ifndef VP_RENDER_HTML_RESULTS_H
#define VP_RENDER_HTML_RESULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/units.h"
#include "render/markup.h"

#define VP_HTML_MAX_CHARTS 12 /* a section's charts at most */

/* A run's name: its label, else its id. */
const char *vp_html_run_name(const json_t *document);
/* "bench jobs=N", with where a result of many hosts ran. */
void vp_html_result_name(const json_t *result, char *out, size_t len);
/* Each of texts as a flag: under a verdict a line of its own (inline), else a paragraph. */
void vp_html_flag_lines(struct vp_markup *out, const json_t *texts, bool inline_lines);

/* One chart per benchmark and latency metric, every result's CDF overlaid. */
void vp_html_latency_cdfs(struct vp_markup *out, json_t *const *documents, size_t count);
/* Source x destination heatmaps of network results gathered from several hosts. */
void vp_html_matrix_charts(struct vp_markup *out, const json_t *matrices, enum vp_unit_style units);
/* Results of many hosts at once (virtperf-mpi, guests), host by host. */
void vp_html_hosts_tables(struct vp_markup *out, json_t *const *documents, size_t count,
                          enum vp_unit_style units);
/* Per result: the machine's CPU time, page faults, and NIC and disk rates. */
void vp_html_monitor_charts(struct vp_markup *out, json_t *const *documents, size_t count,
                            enum vp_unit_style units);

#endif
