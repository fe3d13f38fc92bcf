/* The report's interruptions section (timeline.h). */
#include "render/timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
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

/* Each --migrate-to move of the result (its "migrations") as a box from its start to its
 * end on the timeline's axis, as high as libvirt's downtime; how many points. */
static size_t move_boxes(const json_t *moves, const json_t *timeline, double end, double *x,
                         double *y)
{
    double origin = vp_utc_seconds(vp_json_text(timeline, "start_utc"));
    size_t n = 0, i;
    const json_t *moved;
    x[n] = 0;
    y[n++] = 0;
    json_array_foreach(moves, i, moved) {
        double began = vp_utc_seconds(vp_json_text(moved, "began_utc")) - origin;
        double ended = vp_utc_seconds(vp_json_text(moved, "ended_utc")) - origin;
        const json_t *downtime = json_object_get(moved, "downtime_ms");
        if (origin < 0 || began < 0 || ended < began || !json_is_number(downtime))
            continue;
        double high = json_number_value(downtime) / 1e3;
        double points[4][2] = { { began, 0 }, { began, high }, { ended, high }, { ended, 0 } };
        for (int p = 0; p < 4; p++) {
            x[n] = points[p][0];
            y[n++] = points[p][1];
        }
    }
    x[n] = end;
    y[n++] = 0;
    return n;
}

/* The moves beside what the probe saw of each. */
static void move_table(struct vp_markup *out, const json_t *moves)
{
    vp_markup_printf(out, "<table><tr><th>migration</th><th>began (UTC)</th><th>libvirt: "
                          "total</th><th>downtime</th><th>gap net.probe saw</th></tr>");
    size_t i;
    const json_t *moved;
    json_array_foreach(moves, i, moved) {
        vp_markup_printf(out, "<tr><td>");
        vp_markup_text(out, vp_json_text(moved, "from"));
        vp_markup_printf(out, " &rarr; ");
        vp_markup_text(out, vp_json_text(moved, "to"));
        vp_markup_printf(out, "</td><td>");
        vp_markup_text(out, vp_json_text(moved, "began_utc"));
        const json_t *total = json_object_get(moved, "total_ms");
        const json_t *downtime = json_object_get(moved, "downtime_ms");
        const json_t *gap = json_object_get(moved, "probe_gap_s");
        if (json_is_number(total) && json_is_number(downtime))
            vp_markup_printf(out, "</td><td>%.0f ms</td><td>%.0f ms</td>", json_number_value(total),
                             json_number_value(downtime));
        else
            vp_markup_printf(out, "</td><td colspan=\"2\">%s</td>",
                             strcmp(vp_json_text(moved, "status"), "ok") == 0 ? "not given"
                                                                             : "failed");
        if (json_is_number(gap))
            vp_markup_printf(out, "<td>%.0f ms</td></tr>", json_number_value(gap) * 1e3);
        else
            vp_markup_printf(out, "<td>not watched whole</td></tr>");
    }
    vp_markup_printf(out, "</table>");
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

static void one_timeline(struct vp_markup *out, const char *title, const json_t *timeline,
                         const json_t *moves)
{
    const json_t *rtt = json_object_get(timeline, "rtt_max_s");
    const json_t *gaps = json_object_get(timeline, "gaps");
    size_t steps = json_array_size(rtt);
    size_t boxes_cap = 4 * (json_array_size(gaps) + json_array_size(moves)) + 2;
    double step = vp_json_number(timeline, "step_s"), end = (double)steps * step;
    double *x = calloc(steps + 1, sizeof *x), *y = calloc(steps + 1, sizeof *y);
    double *box_x[4], *box_y[4];
    if (!x || !y)
        abort();
    for (size_t i = 0; i < steps; i++) {
        x[i] = ((double)i + 0.5) * step;
        y[i] = json_number_value(json_array_get(rtt, i));
    }
    static const char *const directions[3] = { "round_trip", "to_peer", "from_peer" };
    static const char *const names[3] = { "gap, round trip", "gap, to the peer",
                                          "gap, from the peer" };
    struct vp_series series[5] = { { "round trip", x, y, steps } };
    size_t count = 1;
    for (int d = 0; d < 4; d++) {
        box_x[d] = calloc(boxes_cap, sizeof *box_x[d]);
        box_y[d] = calloc(boxes_cap, sizeof *box_y[d]);
        if (!box_x[d] || !box_y[d])
            abort();
        size_t n = d < 3 ? gap_boxes(gaps, directions[d], end, box_x[d], box_y[d])
                         : move_boxes(moves, timeline, end, box_x[d], box_y[d]);
        if (n > 2)
            series[count++] = (struct vp_series){ d < 3 ? names[d]
                                                        : "migration: start to end, as high as "
                                                          "the downtime libvirt gives",
                                                  box_x[d], box_y[d], n };
    }
    struct vp_chart chart = { title, "time since the probing began", "s", "seconds", "s" };
    vp_svg_lines(out, &chart, series, count, NAN, NULL);
    gap_table(out, gaps);
    if (json_array_size(moves))
        move_table(out, moves);
    for (int d = 0; d < 4; d++) {
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
                one_timeline(out, title, timeline, json_object_get(result, "migrations"));
            }
        }
    }
}
