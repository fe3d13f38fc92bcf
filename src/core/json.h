/* JSON helpers for result documents that need nothing but jansson and the statistics:
 * lenient field reads for documents already validated, a result's warnings, and the
 * statistics object of one metric. */
#ifndef VP_JSON_H
#define VP_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "core/units.h"

/* The string at key, or "" when absent or not a string. */
const char *vp_json_text(const json_t *object, const char *key);
/* The style to show object's byte figures in: chosen (--units) unless FIELD, else the
 * style object's "units" names (analysis/shown.h puts it there; none: IEC). */
enum vp_unit_style vp_json_unit_style(const json_t *object, enum vp_unit_style chosen);
/* The number at key, or NAN when absent or not a number. */
double vp_json_number(const json_t *object, const char *key);

/* Appends a printf-formatted line to the result's "warnings" (made when absent). */
void vp_result_warn(json_t *result, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The mean of a result's metric, or NAN when the result lacks it. */
double vp_metric_mean(const json_t *result, const char *metric);

/* Appends a printf-formatted line to an array of advisories. */
void vp_advise(json_t *advisories, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Sets "values", "n", "mean", "stddev", "min", "max", "p50" on a metric object.
 * With no values, only "values": [] and "n": 0 (never invented numbers). */
void vp_metric_set_stats(json_t *metric, const double *values, size_t n);

/* text for a terminal: control characters (ESC, CR, LF, ...) become '?', so a stored or
 * imported string cannot move the cursor or fake lines. Returns out. */
const char *vp_printable(const char *text, char *out, size_t len);

#endif
