/* The study-shaped tables of a plan's runs (analysis/study.h) on the terminal and in
 * the HTML report: per step, its reference (what the study reported then) above a table
 * of what was measured now. */
#include "render/study.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "render/words.h"
#include "core/json.h"
#include "core/json_check.h" /* VP_CHECK_TEXT_LEN */
#include "core/printable.h"
#include "core/units.h"
#include "render/matrix_table.h"
#include "render/table.h"

/* One row's cells as text: what, jobs (JOBS/RANKS of a virtperf-mpi result), value, the study's figure (then), per-job
 * min/mean/max/SD, CPU busy, network in, watched CPUs, and each candidate's value and
 * penalty [interval] (with the study's penalty). */
struct row_text {
    char what[420], jobs[16], value[32], then[80], spread[140], cpu[16], network[32];
    char watch[160], candidates[4][160];
    size_t candidate_count;
};

/* A study's figure as the plan gave it, then in this run's unit where that reads
 * otherwise: "0.32 Gb/s (40 MB/s)". */
static void as_given(double value, const char *unit, const char *written,
                     enum vp_unit_style style, char *buf, size_t len)
{
    char ours[32], shown[40];
    vp_format_value(value, unit, style, ours, sizeof ours);
    vp_printable(written, shown, sizeof shown);
    if (*shown && strcmp(shown, ours) != 0)
        snprintf(buf, len, "%s (%s)", shown, ours);
    else
        snprintf(buf, len, "%s", ours);
}

static void row_text(const json_t *row, struct row_text *text, enum vp_unit_style units)
{
    const char *unit = vp_json_text(row, "unit");
    const json_t *per_job = json_object_get(row, "per_job");
    char low[32], mean[32], high[32], sd[32];
    enum vp_unit_style style = vp_json_unit_style(row, units);
    snprintf(text->what, sizeof text->what, "%s%s%s %s", vp_json_text(row, "bench"),
             *vp_json_text(row, "variant") ? " " : "", vp_json_text(row, "variant"),
             vp_json_text(row, "metric"));
    long long ranks = (long long)json_integer_value(json_object_get(row, "ranks"));
    size_t said = strlen(text->what);
    const char *members = vp_json_text(row, "members"), *side = vp_json_text(row, "side");
    char where[48];
    if (ranks && *members) { /* where the jobs ran: "in 2 guests", "on 4 hosts" */
        vp_members_counted(members, ranks, true, where, sizeof where);
        snprintf(text->what + said, sizeof text->what - said, " %s", where);
    } else if (strcmp(side, "host") == 0)
        snprintf(text->what + said, sizeof text->what - said, " on this host");
    snprintf(text->jobs, sizeof text->jobs, ranks ? "%lld/%lld" : "%lld",
             (long long)json_integer_value(json_object_get(row, "jobs")), ranks);
    vp_format_value(vp_json_number(row, "value"), unit, style, text->value, sizeof text->value);
    snprintf(text->then, sizeof text->then, "-");
    if (json_object_get(row, "then"))
        as_given(vp_json_number(row, "then"), unit, vp_json_text(row, "then_as_written"), style,
                 text->then, sizeof text->then);
    vp_format_value(vp_json_number(per_job, "min"), unit, style, low, sizeof low);
    vp_format_value(vp_json_number(per_job, "mean"), unit, style, mean, sizeof mean);
    vp_format_value(vp_json_number(per_job, "max"), unit, style, high, sizeof high);
    vp_format_value(vp_json_number(per_job, "stddev"), unit, style, sd, sizeof sd);
    snprintf(text->spread, sizeof text->spread, "%s / %s / %s / %s", low, mean, high, sd);
    snprintf(text->cpu, sizeof text->cpu, "-");
    snprintf(text->network, sizeof text->network, "-");
    if (json_object_get(row, "cpu_busy"))
        snprintf(text->cpu, sizeof text->cpu, "%.0f%%", vp_json_number(row, "cpu_busy"));
    if (json_object_get(row, "network_rx_rate"))
        vp_format_value(vp_json_number(row, "network_rx_rate"), "B/s", style, text->network,
                        sizeof text->network);
    size_t used = 0;
    text->watch[0] = '\0';
    const char *name;
    const json_t *share;
    json_object_foreach(json_object_get(row, "watch"), name, share) {
        used += (size_t)snprintf(text->watch + used, sizeof text->watch - used, "%s%s %.0f%%",
                                 used ? ", " : "", name, json_number_value(share));
        if (used >= sizeof text->watch)
            break;
    }
    text->candidate_count = 0;
    size_t c;
    const json_t *candidate;
    json_array_foreach(json_object_get(row, "candidates"), c, candidate) {
        if (text->candidate_count == 4)
            break;
        char *cell = text->candidates[text->candidate_count++];
        char then[40] = "";
        if (json_object_get(candidate, "then_penalty_pct"))
            snprintf(then, sizeof then, " (then %+.0f%%)",
                     vp_json_number(candidate, "then_penalty_pct"));
        if (!json_object_get(candidate, "penalty_pct")) {
            snprintf(cell, 160, "not in this run%s", then);
            continue;
        }
        char value[32];
        vp_format_value(vp_json_number(candidate, "value"), unit, style, value, sizeof value);
        snprintf(cell, 160, "%s  %+.1f%% [%+.1f, %+.1f] %s%s", value,
                 vp_json_number(candidate, "penalty_pct"), vp_json_number(candidate, "ci_low"),
                 vp_json_number(candidate, "ci_high"), vp_json_text(candidate, "verdict"), then);
    }
}

/* "BENCH METRIC [at N jobs] VALUE; ...": the study's figures for a step ("" if none). */
static void figures_line(const json_t *figures, char *line, size_t len,
                         enum vp_unit_style units)
{
    size_t used = 0, i;
    const json_t *figure;
    line[0] = '\0';
    json_array_foreach(figures, i, figure) {
        char value[80], at[32] = "";
        bool penalty = json_is_true(json_object_get(figure, "penalty"));
        enum vp_unit_style style =
            vp_json_unit_style(figure, units);
        if (penalty)
            snprintf(value, sizeof value, "penalty %+.0f%%", vp_json_number(figure, "value"));
        else
            as_given(vp_json_number(figure, "value"), vp_json_text(figure, "unit"),
                     vp_json_text(figure, "as_written"), style, value, sizeof value);
        long long jobs = (long long)json_integer_value(json_object_get(figure, "jobs"));
        if (jobs)
            snprintf(at, sizeof at, " at %lld job%s", jobs, jobs == 1 ? "" : "s");
        if (used < len)
            used += (size_t)snprintf(line + used, len - used, "%s%s %s%s %s", used ? "; " : "",
                                     vp_json_text(figure, "bench"), vp_json_text(figure, "metric"),
                                     at, value);
    }
}

/* "optimum: BENCH VARIANT METRIC: N jobs (rule); no idle CPU from M jobs", or false
 * when there is no such optimum. */
static bool optimum_line(const json_t *optimum, char *line, size_t len)
{
    if (!optimum)
        return false;
    long long knee = (long long)json_integer_value(json_object_get(optimum, "knee_jobs"));
    int used = snprintf(line, len, "optimum: %s%s%s %s: %lld job%s (QoS: %s)",
                        vp_json_text(optimum, "bench"), *vp_json_text(optimum, "variant") ? " " : "",
                        vp_json_text(optimum, "variant"), vp_json_text(optimum, "metric"), knee,
                        knee == 1 ? "" : "s", vp_json_text(optimum, "rule"));
    const json_t *saturated = json_object_get(optimum, "saturated_from");
    if (saturated && used > 0 && (size_t)used < len)
        snprintf(line + used, len - (size_t)used, "; no idle CPU from %lld jobs",
                 (long long)json_integer_value(saturated));
    return true;
}

/* "found by the fill: the optimum count of guests N (stopped by WHAT: REASON)", or false
 * when the step was no fill. */
static bool fill_line(const json_t *fill, char *line, size_t len)
{
    if (!fill)
        return false;
    char reason[VP_CHECK_TEXT_LEN + 1]; /* a result's, checked: printable */
    snprintf(line, len, "found by the fill: the optimum count of %s %lld (stopped by %s: %s)",
             vp_json_text(fill, "members"),
             (long long)json_integer_value(json_object_get(fill, "optimum")),
             vp_json_text(fill, "stopped"),
             vp_printable(vp_json_text(fill, "reason"), reason, sizeof reason));
    return true;
}

static void paragraph(struct vp_markup *out, const char *line)
{
    vp_markup_printf(out, "<p>");
    vp_markup_text(out, line);
    vp_markup_printf(out, "</p>");
}

void vp_print_study(FILE *out, const json_t *study, enum vp_unit_style units)
{
    size_t s, r;
    const json_t *step, *row;
    fprintf(out, "The plan's steps (jobs: at once, /ranks under virtperf-mpi; value: all jobs; "
                 "then: the study's figure; per job: min / mean / max / SD; penalty: positive "
                 "is worse, [95%% interval])\n\n");
    json_array_foreach(json_object_get(study, "steps"), s, step) {
        char name[140];
        fprintf(out, "[%s]\n", vp_printable(vp_json_text(step, "step"), name, sizeof name));
        if (json_object_get(step, "reference")) {
            char reference[600];
            fprintf(out, "  then: %s\n", vp_printable(vp_json_text(step, "reference"), reference,
                                                      sizeof reference));
        }
        char figures[1200];
        figures_line(json_object_get(step, "figures"), figures, sizeof figures, units);
        if (figures[0])
            fprintf(out, "  then, figures: %s\n", figures);
        json_array_foreach(json_object_get(step, "rows"), r, row) {
            struct row_text text;
            row_text(row, &text, units);
            char what[420];
            fprintf(out, "  %-44s jobs %-3s %12s%s%s  per job %s  cpu %s  net in %s%s%s\n",
                    vp_printable(text.what, what, sizeof what), text.jobs, text.value,
                    json_object_get(row, "then") ? "  then " : "",
                    json_object_get(row, "then") ? text.then : "", text.spread, text.cpu,
                    text.network, text.watch[0] ? "  " : "", text.watch);
            for (size_t c = 0; c < text.candidate_count; c++)
                fprintf(out, "  %44s %s: %s\n", "", vp_json_text(json_array_get(
                            json_object_get(row, "candidates"), c), "run"), text.candidates[c]);
        }
        char line[600];
        for (size_t o = 0; optimum_line(json_array_get(json_object_get(step, "optima"), o), line,
                                         sizeof line); o++)
            fprintf(out, "  %s\n", line);
        if (fill_line(json_object_get(step, "fill"), line, sizeof line))
            fprintf(out, "  %s\n", line);
        fputc('\n', out);
        size_t m;
        const json_t *matrix;
        json_array_foreach(json_object_get(step, "matrices"), m, matrix)
            vp_print_matrix(out, matrix, "  ", units);
    }
}


/* A step's source x destination table. */
static void matrix_html(struct vp_markup *out, const json_t *matrix, enum vp_unit_style units)
{
    const char *unit = vp_json_text(matrix, "unit");
    enum vp_unit_style style = vp_json_unit_style(matrix, units);
    char caption[200];
    snprintf(caption, sizeof caption, "%s %s, source x destination", vp_json_text(matrix, "bench"),
             vp_json_text(matrix, "metric"));
    vp_markup_printf(out, "<table><caption>");
    vp_markup_text(out, caption);
    vp_markup_printf(out, "</caption><tr><th>source \\ destination</th>");
    size_t r, c;
    const json_t *name, *value;
    json_array_foreach(json_object_get(matrix, "destinations"), c, name) {
        vp_markup_printf(out, "<th>");
        vp_markup_text(out, json_string_value(name));
        vp_markup_printf(out, "</th>");
    }
    vp_markup_printf(out, "</tr>");
    json_array_foreach(json_object_get(matrix, "sources"), r, name) {
        vp_markup_printf(out, "<tr>");
        vp_markup_cell(out, json_string_value(name));
        json_array_foreach(json_array_get(json_object_get(matrix, "values"), r), c, value) {
            char text[32] = "-";
            if (json_is_number(value))
                vp_format_value(json_number_value(value), unit, style, text, sizeof text);
            vp_markup_cell(out, text);
        }
        vp_markup_printf(out, "</tr>");
    }
    vp_markup_printf(out, "</table>");
}

void vp_study_html(struct vp_markup *out, const json_t *study, enum vp_unit_style units)
{
    size_t s, r, c;
    const json_t *step, *row, *candidate;
    vp_markup_printf(out, "<h2>The plan's steps, then and now</h2><p>Each step of the plan "
                     "file as the study laid out its figures: the value over all jobs, the "
                     "study's own figure for it (<em>then</em>, from the plan file), each "
                     "job's spread, the machine's CPU and network input while it ran, and "
                     "against each other run the penalty (positive is worse) with its 95%% "
                     "interval. <em>Then</em>: what the study reported.</p>");
    json_array_foreach(json_object_get(study, "steps"), s, step) {
        vp_markup_printf(out, "<h3>");
        vp_markup_text(out, vp_json_text(step, "step"));
        vp_markup_printf(out, "</h3>");
        if (json_object_get(step, "reference")) {
            vp_markup_printf(out, "<p><em>Then:</em> ");
            vp_markup_text(out, vp_json_text(step, "reference"));
            vp_markup_printf(out, "</p>");
        }
        char figures[1200];
        figures_line(json_object_get(step, "figures"), figures, sizeof figures, units);
        if (figures[0]) {
            vp_markup_printf(out, "<p><em>Then, figures:</em> ");
            vp_markup_text(out, figures);
            vp_markup_printf(out, "</p>");
        }
        vp_markup_printf(out, "<table><tr><th>what</th><th>jobs</th><th>value</th><th>then</th><th>per job "
                         "min / mean / max / SD</th><th>CPU busy</th><th>network in</th>"
                         "<th>watched</th>");
        const json_t *first = json_array_get(json_object_get(step, "rows"), 0);
        json_array_foreach(json_object_get(first, "candidates"), c, candidate) {
            vp_markup_printf(out, "<th>");
            vp_markup_text(out, vp_json_text(candidate, "run"));
            vp_markup_printf(out, "</th>");
        }
        vp_markup_printf(out, "</tr>");
        json_array_foreach(json_object_get(step, "rows"), r, row) {
            struct row_text text;
            row_text(row, &text, units);
            vp_markup_printf(out, "<tr>");
            vp_markup_cell(out, text.what);
            vp_markup_cell(out, text.jobs);
            vp_markup_cell(out, text.value);
            vp_markup_cell(out, text.then);
            vp_markup_cell(out, text.spread);
            vp_markup_cell(out, text.cpu);
            vp_markup_cell(out, text.network);
            vp_markup_cell(out, text.watch);
            for (size_t i = 0; i < text.candidate_count; i++)
                vp_markup_cell(out, text.candidates[i]);
            vp_markup_printf(out, "</tr>");
        }
        vp_markup_printf(out, "</table>");
        char line[600];
        for (size_t o = 0; optimum_line(json_array_get(json_object_get(step, "optima"), o), line,
                                         sizeof line); o++)
            paragraph(out, line);
        if (fill_line(json_object_get(step, "fill"), line, sizeof line))
            paragraph(out, line);
        size_t m;
        const json_t *matrix;
        json_array_foreach(json_object_get(step, "matrices"), m, matrix)
            matrix_html(out, matrix, units);
    }
}
