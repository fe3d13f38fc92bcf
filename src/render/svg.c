/* SVG line and bar charts, written as text. */
#include "render/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

#define WIDTH 720.0
#define HEIGHT 320.0
#define LEFT 90.0
#define RIGHT 150.0
#define TOP 40.0
#define BOTTOM 56.0

static const char *const palette[] = { "#1f5fa8", "#c0392b", "#2e8b57", "#8e44ad", "#d35400",
                                       "#16a085", "#7f8c8d", "#b8860b" };

double vp_svg_tick_step(double range)
{
    if (!(range > 0) || !isfinite(range))
        return 1;
    double rough = range / 5, power = pow(10, floor(log10(rough)));
    double scaled = rough / power;
    return (scaled < 1.5 ? 1 : scaled < 3.5 ? 2 : scaled < 7.5 ? 5 : 10) * power;
}

static void tick_label(double value, const char *unit, enum vp_unit_style units, char *buf,
                       size_t len)
{
    if (fabs(value) < 1e-12 * (fabs(value) + 1))
        value = 0; /* never "-0" */
    if (unit && *unit)
        vp_format_value(value, unit, units, buf, len);
    else
        snprintf(buf, len, "%g", value);
}

/* The svg element, its accessible title, a white background and the visible title. */
static void open_svg(struct vp_markup *out, const char *title)
{
    vp_markup_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%.0f\" "
                        "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\"><title>",
                   WIDTH, HEIGHT, WIDTH, HEIGHT);
    vp_markup_text(out, title);
    vp_markup_printf(out, "</title><rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>"
                        "<text x=\"%.0f\" y=\"22\" class=\"title\">", LEFT);
    vp_markup_text(out, title);
    vp_markup_printf(out, "</text>");
}

/* Axis frame, title, labels and ticks for [x0, x1] x [y0, y1]. */
static void frame(struct vp_markup *out, const struct vp_chart *chart, double x0, double x1,
                  double y0, double y1, int x_ticks)
{
    double plot_w = WIDTH - LEFT - RIGHT, plot_h = HEIGHT - TOP - BOTTOM;
    open_svg(out, chart->title);
    double step = vp_svg_tick_step(y1 - y0);
    for (double tick = ceil(y0 / step) * step; tick <= y1 + step * 1e-9; tick += step) {
        double y = TOP + plot_h * (1 - (tick - y0) / (y1 - y0));
        char label[32];
        tick_label(tick, chart->y_unit, chart->units, label, sizeof label);
        vp_markup_printf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
                            "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>",
                       LEFT, LEFT + plot_w, y, y, LEFT - 6, y + 4, label);
    }
    if (x_ticks) {
        step = vp_svg_tick_step(x1 - x0);
        if (step < 1 && x0 == floor(x0) && x1 == floor(x1))
            step = 1; /* counts such as jobs: whole ticks only */
        for (double tick = ceil(x0 / step) * step; tick <= x1 + step * 1e-9; tick += step) {
            double x = LEFT + plot_w * (tick - x0) / (x1 - x0);
            char label[32];
            tick_label(tick, chart->x_unit, chart->units, label, sizeof label);
            vp_markup_printf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>"
                                "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"middle\">%s</text>",
                           x, x, TOP + plot_h, TOP + plot_h + 5, x, TOP + plot_h + 18, label);
        }
    }
    vp_markup_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>"
                        "<text x=\"%.1f\" y=\"%.1f\" class=\"label\" text-anchor=\"middle\">",
                   LEFT, TOP, plot_w, plot_h, LEFT + plot_w / 2, HEIGHT - 12);
    vp_markup_text(out, chart->x_label);
    vp_markup_printf(out, "</text><text transform=\"translate(16 %.1f) rotate(-90)\" class=\"label\" "
                        "text-anchor=\"middle\">", TOP + plot_h / 2);
    vp_markup_text(out, chart->y_label);
    vp_markup_printf(out, "</text>");
}

/* Expands [low, high] so a flat or single-valued range still has height. */
static void pad_range(double *low, double *high)
{
    if (!(*high > *low)) {
        double margin = fabs(*low) > 0 ? fabs(*low) * 0.1 : 1;
        *low -= margin;
        *high += margin;
    }
}

void vp_svg_lines(struct vp_markup *out, const struct vp_chart *chart,
                  const struct vp_series *series, size_t count, double marker_x,
                  const char *marker)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = 0, y1 = -INFINITY;
    for (size_t s = 0; s < count; s++) {
        for (size_t i = 0; i < series[s].n; i++) {
            x0 = fmin(x0, series[s].x[i]);
            x1 = fmax(x1, series[s].x[i]);
            y0 = fmin(y0, series[s].y[i]);
            y1 = fmax(y1, series[s].y[i]);
        }
    }
    if (!isfinite(x0)) {
        x0 = 0;
        x1 = 1;
        y1 = 1;
    }
    pad_range(&x0, &x1);
    y1 *= 1.05;
    pad_range(&y0, &y1);
    frame(out, chart, x0, x1, y0, y1, 1);
    double plot_w = WIDTH - LEFT - RIGHT, plot_h = HEIGHT - TOP - BOTTOM;
    for (size_t s = 0; s < count; s++) {
        const char *colour = palette[s % 8];
        vp_markup_printf(out, "<polyline class=\"line\" stroke=\"%s\" points=\"", colour);
        for (size_t i = 0; i < series[s].n; i++)
            vp_markup_printf(out, "%.1f,%.1f ", LEFT + plot_w * (series[s].x[i] - x0) / (x1 - x0),
                           TOP + plot_h * (1 - (series[s].y[i] - y0) / (y1 - y0)));
        vp_markup_printf(out, "\"/>");
        if (series[s].n <= 24)
            for (size_t i = 0; i < series[s].n; i++)
                vp_markup_printf(out, "<circle r=\"3\" fill=\"%s\" cx=\"%.1f\" cy=\"%.1f\"/>", colour,
                               LEFT + plot_w * (series[s].x[i] - x0) / (x1 - x0),
                               TOP + plot_h * (1 - (series[s].y[i] - y0) / (y1 - y0)));
        vp_markup_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"3\" fill=\"%s\"/>"
                            "<text x=\"%.1f\" y=\"%.1f\" class=\"legend\">",
                       WIDTH - RIGHT + 12, TOP + 10 + 18.0 * (double)s, colour, WIDTH - RIGHT + 30,
                       TOP + 14 + 18.0 * (double)s);
        vp_markup_text(out, series[s].name);
        vp_markup_printf(out, "</text>");
    }
    if (isfinite(marker_x) && marker) {
        double x = LEFT + plot_w * (marker_x - x0) / (x1 - x0);
        int left_of_line = x > LEFT + plot_w * 0.6; /* keep the label inside the plot */
        vp_markup_printf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"marker\"/>"
                            "<text x=\"%.1f\" y=\"%.1f\" class=\"marker-label\" "
                            "text-anchor=\"%s\">", x, x, TOP, TOP + plot_h,
                       left_of_line ? x - 4 : x + 4, TOP + plot_h - 8,
                       left_of_line ? "end" : "start");
        vp_markup_text(out, marker);
        vp_markup_printf(out, "</text>");
    }
    vp_markup_printf(out, "</svg>\n");
}

void vp_svg_bars(struct vp_markup *out, const struct vp_chart *chart, const char *const *labels,
                 const double *values, const double *low, const double *high, size_t n)
{
    double v0 = 0, v1 = 0;
    for (size_t i = 0; i < n; i++) {
        v0 = fmin(v0, fmin(values[i], isfinite(low[i]) ? low[i] : values[i]));
        v1 = fmax(v1, fmax(values[i], isfinite(high[i]) ? high[i] : values[i]));
    }
    pad_range(&v0, &v1);
    double span = v1 - v0;
    v0 -= span * 0.05;
    v1 += span * 0.05;
    /* Bars run along x: the value axis is x, so swap the frame's roles. */
    struct vp_chart swapped = { chart->title, chart->y_label, chart->y_unit, chart->x_label, "",
                               chart->units };
    double plot_w = WIDTH - LEFT - RIGHT, plot_h = HEIGHT - TOP - BOTTOM;
    open_svg(out, swapped.title);
    vp_markup_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                        "class=\"frame\"/>", LEFT, TOP, plot_w, plot_h);
    double step = vp_svg_tick_step(v1 - v0);
    for (double tick = ceil(v0 / step) * step; tick <= v1 + step * 1e-9; tick += step) {
        double x = LEFT + plot_w * (tick - v0) / (v1 - v0);
        char label[32];
        tick_label(tick, swapped.x_unit, swapped.units, label, sizeof label);
        vp_markup_printf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"%s\"/>"
                            "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"middle\">%s</text>",
                       x, x, TOP, TOP + plot_h, fabs(tick) < step * 1e-9 ? "zero" : "grid", x,
                       TOP + plot_h + 18, label);
    }
    double band = plot_h / (double)(n ? n : 1);
    double zero = LEFT + plot_w * (0 - v0) / (v1 - v0);
    for (size_t i = 0; i < n; i++) {
        double y = TOP + band * (double)i + band * 0.2, height = band * 0.6;
        double x = LEFT + plot_w * (values[i] - v0) / (v1 - v0);
        vp_markup_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>",
                       fmin(zero, x), y, fabs(x - zero), height, palette[i % 8]);
        if (isfinite(low[i]) && isfinite(high[i])) {
            double a = LEFT + plot_w * (low[i] - v0) / (v1 - v0);
            double b = LEFT + plot_w * (high[i] - v0) / (v1 - v0), middle = y + height / 2;
            vp_markup_printf(out, "<path class=\"whisker\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\"/>",
                           a, middle, b, a, middle - 6, middle + 6, b, middle - 6, middle + 6);
        }
        vp_markup_printf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"legend\">", WIDTH - RIGHT + 8,
                       y + height / 2 + 4);
        vp_markup_text(out, labels[i]);
        vp_markup_printf(out, "</text>");
    }
    vp_markup_printf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"label\" text-anchor=\"middle\">",
                   LEFT + plot_w / 2, HEIGHT - 12);
    vp_markup_text(out, swapped.x_label);
    vp_markup_printf(out, "</text></svg>\n");
}

void vp_svg_heatmap(struct vp_markup *out, const char *title, const char *unit,
                    enum vp_unit_style units, const char *const *rows, size_t row_count,
                    const char *const *columns, size_t column_count, const double *values,
                    int higher_better)
{
    const double cell_w = 170, cell_h = 34, left = 170, top = 84;
    double width = left + cell_w * (double)column_count + 20;
    double height = top + cell_h * (double)row_count + 20;
    double low = INFINITY, high = -INFINITY;
    for (size_t i = 0; i < row_count * column_count; i++) {
        if (isfinite(values[i])) {
            low = fmin(low, values[i]);
            high = fmax(high, values[i]);
        }
    }
    vp_markup_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%.0f\" "
                        "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\"><title>",
                   width, height, width, height);
    vp_markup_text(out, title);
    vp_markup_printf(out, "</title><rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>"
                        "<text x=\"10\" y=\"22\" class=\"title\">");
    vp_markup_text(out, title);
    vp_markup_printf(out, "</text><text x=\"10\" y=\"%.0f\" class=\"label\">rows: source host, columns: "
                        "destination</text>", top - 36);
    for (size_t c = 0; c < column_count; c++) {
        vp_markup_printf(out, "<text x=\"%.1f\" y=\"%.0f\" class=\"label\" text-anchor=\"middle\">",
                       left + cell_w * ((double)c + 0.5), top - 12);
        vp_markup_text(out, columns[c]);
        vp_markup_printf(out, "</text>");
    }
    for (size_t r = 0; r < row_count; r++) {
        double y = top + cell_h * (double)r;
        vp_markup_printf(out, "<text x=\"10\" y=\"%.1f\" class=\"label\">", y + cell_h / 2 + 4);
        vp_markup_text(out, rows[r]);
        vp_markup_printf(out, "</text>");
        for (size_t c = 0; c < column_count; c++) {
            double value = values[r * column_count + c];
            double x = left + cell_w * (double)c;
            if (!isfinite(value)) {
                vp_markup_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" "
                                    "fill=\"#f4f4f4\" stroke=\"#fff\"/>", x, y, cell_w, cell_h);
                continue;
            }
            double share = high > low ? (value - low) / (high - low) : 1;
            if (!higher_better)
                share = 1 - share;
            int shade = (int)(235 - 160 * share); /* pale for the worse end, deep for the better */
            char label[32];
            vp_format_value(value, unit, units, label, sizeof label);
            vp_markup_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" "
                                "fill=\"rgb(%d,%d,255)\" stroke=\"#fff\"/><text x=\"%.1f\" "
                                "y=\"%.1f\" class=\"tick\" text-anchor=\"middle\" fill=\"%s\">%s</text>",
                           x, y, cell_w, cell_h, shade, shade, x + cell_w / 2, y + cell_h / 2 + 4,
                           share > 0.6 ? "#fff" : "#111", label);
        }
    }
    vp_markup_printf(out, "</svg>\n");
}
