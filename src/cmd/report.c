/* `virtperf report RUN... -o FILE`: the self-contained HTML report. The runs are
 * analysed here (comparison, scaling, advisories, matrices, study, what each result
 * shows); render/html.c draws. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/advice.h"
#include "analysis/compare.h"
#include "analysis/matrix.h"
#include "analysis/scaling.h"
#include "analysis/shown.h"
#include "analysis/sides.h"
#include "analysis/study.h"
#include "core/json_arena.h"
#include "core/sysinfo.h"
#include "cmd/commands.h"
#include "render/html.h"

#define MAX_RUNS 16
#define MAX_SIDES (4 * MAX_RUNS) /* runs of sides as each of them */

static const char report_usage[] =
    "usage: virtperf report RUN [RUN...] -o FILE.html [--margin PCT] [--vary PARAM]\n"
    "                       [--metric NAME...] [--normalize clock] [--clock-ghz G,G...]\n"
    "                       [--db PATH|URL]\n"
    "\n"
    "Writes one self-contained HTML page (inline CSS and SVG; no script, no external URL):\n"
    "verdicts of every RUN against the first (matched as 'virtperf compare' does, with\n"
    "its --margin, --vary, --metric, --normalize and --clock-ghz), the environments side by side with their\n"
    "advisories, a penalty chart with 95% intervals, scaling charts with the knee, latency\n"
    "CDFs, and the monitor's CPU series. RUN is an id, uuid, label or 'latest'. A RUN of\n"
    "both sides (run --guests N --and-host) stands as two, its host side then its guests',\n"
    "as in 'virtperf compare': alone, the guests' verdicts against its host side.\n";

struct report_settings {
    struct vp_shared_settings shared; /* first: the shared rows take into it */
    const char *path;
};

static int take_output(void *settings, const char *value, char *err, size_t err_len)
{
    (void)err, (void)err_len; /* vp_json_output_open checks it */
    ((struct report_settings *)settings)->path = value;
    return 0;
}

static const struct vp_command_flag report_flags[] = {
    { "output", 'o', "FILE", "the page to write (- for standard output)", take_output },
    VP_COMPARE_FLAGS,
    VP_DB_FLAG,
};
const struct vp_command_table vp_report_flags = {
    "report", report_flags, sizeof report_flags / sizeof report_flags[0]
};

/* What the page shows, computed here: the comparison against the base, each run's
 * scaling and advisories, the matrices, the study's figures. */
struct analyses {
    struct vp_report report;
    json_t *comparison, *matrices, *study;
    json_t *scalings[MAX_SIDES], *advisories[MAX_SIDES];
    char comparison_error[VP_ERROR_LEN];
};

static void analyse(struct analyses *analyses, json_t *const *documents, size_t count,
                    const struct vp_compare_options *options)
{
    *analyses = (struct analyses){ .comparison = NULL };
    vp_documents_shown(documents, count);
    if (count > 1) {
        vp_json_arena_begin(); /* made once, rendered and released with the documents */
        analyses->comparison = vp_compare(documents[0], (const json_t *const *)documents + 1,
                                          count - 1, options, analyses->comparison_error,
                                          sizeof analyses->comparison_error);
        vp_json_arena_end();
    }
    for (size_t d = 0; d < count; d++) {
        char err[VP_ERROR_LEN];
        struct vp_qos qos = { 0 };
        struct vp_scaling_metrics headline = { 0 };
        analyses->scalings[d] = vp_scaling(documents[d], &qos, &headline, err, sizeof err);
        const json_t *run = json_object_get(documents[d], "run");
        analyses->advisories[d] = vp_sysinfo_advisories(json_object_get(run, "host"));
        vp_result_advisories(json_object_get(documents[d], "results"), analyses->advisories[d]);
    }
    analyses->matrices = vp_matrices(documents, count);
    analyses->study = vp_study(documents[0], (const json_t *const *)documents + 1, count - 1);
    analyses->report = (struct vp_report){
        .documents = documents, .count = count, .comparison = analyses->comparison,
        .comparison_error = analyses->comparison_error,
        .scalings = (const json_t *const *)analyses->scalings,
        .advisories = (const json_t *const *)analyses->advisories,
        .matrices = analyses->matrices, .study = analyses->study, .units = vp_cli_units(),
    };
}

static void forget(struct analyses *analyses, size_t count)
{
    json_decref(analyses->comparison);
    json_decref(analyses->matrices);
    json_decref(analyses->study);
    for (size_t d = 0; d < count; d++) {
        json_decref(analyses->scalings[d]);
        json_decref(analyses->advisories[d]);
    }
}

int cmd_report(int argc, char **argv)
{
    struct report_settings settings = { .shared = VP_SHARED_SETTINGS_DEFAULT };
    size_t count;
    char **runs = vp_cmd_parse(&vp_report_flags, report_usage, &settings, argc, argv, &count);
    const char *path = settings.path;
    if (!path || count < 1 || count > MAX_RUNS)
        vp_usage_error("report: accepted: 1 to 16 runs and -o FILE (see 'virtperf report --help')");
    struct vp_json_output output;
    char err[VP_PATH_ERROR_LEN];
    if (vp_json_output_open(&output, "-o", path, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    json_t *documents[MAX_SIDES];
    for (size_t i = 0; i < count; i++)
        documents[i] = vp_cli_load_run(settings.shared.db, runs[i], VP_EXPORT_WHOLE);
    free(runs);
    size_t sides = vp_runs_by_side(documents, count, MAX_SIDES);
    if (sides == 0)
        vp_usage_error("report: the runs of sides among these make more than %d sides; "
                       "accepted: fewer runs", MAX_SIDES);
    count = sides;
    struct vp_markup page = { 0 };
    struct analyses analyses;
    analyse(&analyses, documents, count, &settings.shared.compare.options);
    vp_report_html(&analyses.report, &page);
    forget(&analyses, count);
    int rc = vp_output_commit_text(&output, page.data, page.len, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "virtperf: %s\n", err);
    else if (!output.to_stdout)
        printf("wrote %s (%zu bytes)\n", path, page.len);
    free(page.data);
    for (size_t i = 0; i < count; i++)
        json_decref(documents[i]);
    vp_json_arena_release();
    return rc == 0 ? 0 : 1;
}
