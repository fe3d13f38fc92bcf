/* virtperf's small SVG chart module for the HTML report: line charts (with an optional
 * marked x position, such as a knee), bar charts with interval whiskers, written through
 * the report's escaping writer (markup.h). Every chart has a title, axis labels with units, ticks at
 * round values and a legend where there is more than one series. */
#ifndef VP_SVG_H
#define VP_SVG_H

#include <stddef.h>

#include "core/units.h"
#include "render/markup.h"

struct vp_series {
    const char *name;
    const double *x, *y;
    size_t n;
};

struct vp_chart {
    const char *title;
    const char *x_label, *x_unit; /* units as virtperf names them: "s", "B/s", "%", "" */
    const char *y_label, *y_unit;
    enum vp_unit_style units; /* how byte figures on it read (core/units.h; 0: IEC) */
};

/* Round tick step for a range split in about five: 1, 2 or 5 times a power of ten. */
double vp_svg_tick_step(double range);

/* A line chart; marker_x (NAN: none) draws a dashed vertical line labelled marker. */
void vp_svg_lines(struct vp_markup *out, const struct vp_chart *chart,
                  const struct vp_series *series, size_t count, double marker_x,
                  const char *marker);

/* Horizontal bars (one per label) from zero to value, with a whisker from low to high
 * where both are finite. */
void vp_svg_bars(struct vp_markup *out, const struct vp_chart *chart, const char *const *labels,
                 const double *values, const double *low, const double *high, size_t n);

/* A heatmap of rows x columns (values row-major, NAN where missing), each cell shaded by
 * its value and labelled with it; higher_better darkens the better end. */
void vp_svg_heatmap(struct vp_markup *out, const char *title, const char *unit,
                    enum vp_unit_style units, const char *const *rows, size_t row_count,
                    const char *const *columns, size_t column_count, const double *values,
                    int higher_better);

#endif
