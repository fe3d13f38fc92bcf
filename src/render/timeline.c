/* The report's interruptions section (timeline.h). */
#include "render/timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "render/svg.h"

#define MAX_TIMELINES 12

/* The gaps of one direction as boxes on the time axis: at zero between them, as high
 * as each lasted while it lasted. */
static size_t gap_boxes(const json_t *gaps, const char *direction, double end, double *x, double *y)
{
    size_t n = 0, i;
    const json_t *gap;
    x[n] = 0;
    y[n++] = 0;
    json_array_foreach(gaps, i, gap) {
        if (strcmp(vp_json_text(gap, "direction"), direction) != 0)
            continue;
        double start = vp_json_number(gap, "start_s"), length = vp_json_number(gap, "length_s");
        double points[4][2] = { { start, 0 }, { start, length }, { start + length, length },
                                { start + length, 0 } };
        for (int p = 0; p < 4; p++) {
            x[n] = points[p][0];
            y[n++] = points[p][1];
        }
    }
    x[n] = end;
    y[n++] = 0;
    return n;
}

static void gap_table(struct vp_markup *out, const json_t *gaps)
{
    if (json_array_size(gaps) == 0) {
        vp_markup_printf(out, "<p>No gap above the threshold.</p>");
        return;
    }
    vp_markup_printf(out, "<table><tr><th>direction</th><th>start (UTC)</th><th>after</th>"
                          "<th>length</th></tr>");
    size_t i;
    const json_t *gap;
    json_array_foreach(gaps, i, gap) {
        vp_markup_printf(out, "<tr><td>");
        vp_markup_text(out, vp_json_text(gap, "direction"));
        vp_markup_printf(out, "</td><td>");
        vp_markup_text(out, vp_json_text(gap, "start_utc"));
        vp_markup_printf(out, "</td><td>%.3f s</td><td>%.1f ms</td></tr>",
                         vp_json_number(gap, "start_s"), vp_json_number(gap, "length_s") * 1e3);
    }
    vp_markup_printf(out, "</table>");
}

static void one_timeline(struct vp_markup *out, const char *title, const json_t *timeline)
{
    const json_t *rtt = json_object_get(timeline, "rtt_max_s");
    const json_t *gaps = json_object_get(timeline, "gaps");
    size_t steps = json_array_size(rtt), boxes_cap = 4 * json_array_size(gaps) + 2;
    double step = vp_json_number(timeline, "step_s"), end = (double)steps * step;
    double *x = calloc(steps + 1, sizeof *x), *y = calloc(steps + 1, sizeof *y);
    double *box_x[3], *box_y[3];
    if (!x || !y)
        abort();
    for (size_t i = 0; i < steps; i++) {
        x[i] = ((double)i + 0.5) * step;
        y[i] = json_number_value(json_array_get(rtt, i));
    }
    static const char *const directions[3] = { "round_trip", "to_peer", "from_peer" };
    static const char *const names[3] = { "gap, round trip", "gap, to the peer",
                                          "gap, from the peer" };
    struct vp_series series[4] = { { "round trip", x, y, steps } };
    size_t count = 1;
    for (int d = 0; d < 3; d++) {
        box_x[d] = calloc(boxes_cap, sizeof *box_x[d]);
        box_y[d] = calloc(boxes_cap, sizeof *box_y[d]);
        if (!box_x[d] || !box_y[d])
            abort();
        size_t n = gap_boxes(gaps, directions[d], end, box_x[d], box_y[d]);
        if (n > 2)
            series[count++] = (struct vp_series){ names[d], box_x[d], box_y[d], n };
    }
    struct vp_chart chart = { title, "time since the probing began", "s", "seconds", "s" };
    vp_svg_lines(out, &chart, series, count, NAN, NULL);
    gap_table(out, gaps);
    for (int d = 0; d < 3; d++) {
        free(box_x[d]);
        free(box_y[d]);
    }
    free(x);
    free(y);
}

void vp_report_timelines(struct vp_markup *out, json_t *const *documents, size_t count,
                         const char *(*name)(const json_t *document))
{
    size_t drawn = 0;
    for (size_t d = 0; d < count; d++) {
        size_t r, j;
        const json_t *result, *timeline;
        json_array_foreach(json_object_get(documents[d], "results"), r, result) {
            json_array_foreach(json_object_get(result, "timeline"), j, timeline) {
                if (drawn == MAX_TIMELINES)
                    return;
                if (drawn++ == 0)
                    vp_markup_printf(out, "<h2>Interruptions</h2><p>net.probe: the largest "
                                          "round trip of each step, and each gap (a time without "
                                          "an answer above the threshold) as a box as long and "
                                          "as high as it lasted.</p>");
                char title[200];
                snprintf(title, sizeof title, "%s: %s jobs=%lld, job %lld", name(documents[d]),
                         vp_json_text(result, "bench"),
                         (long long)json_integer_value(json_object_get(result, "jobs")),
                         (long long)json_integer_value(json_object_get(timeline, "job")));
                one_timeline(out, title, timeline);
            }
        }
    }
}
