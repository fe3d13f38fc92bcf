/* `virtperf report RUN... -o FILE`: the self-contained HTML report. The runs are
 * analysed here (comparison, scaling, advisories, matrices, study); render/html.c draws. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/advice.h"
#include "analysis/compare.h"
#include "analysis/matrix.h"
#include "analysis/scaling.h"
#include "analysis/sides.h"
#include "analysis/study.h"
#include "core/sysinfo.h"
#include "cmd/common.h"
#include "render/html.h"

#define MAX_RUNS 16
#define MAX_SIDES (2 * MAX_RUNS) /* every run of both sides as its two */

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
    if (count > 1)
        analyses->comparison = vp_compare(documents[0], (const json_t *const *)documents + 1,
                                          count - 1, options, analyses->comparison_error,
                                          sizeof analyses->comparison_error);
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
    static const struct option options[] = {
        { "output", required_argument, NULL, 'o' },
        VP_COMPARE_FLAG_OPTIONS,
        { "db", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *path = NULL, *db = NULL;
    struct vp_compare_flags flags = VP_COMPARE_FLAGS_DEFAULT;
    opterr = 0;
    int option;
    while ((option = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        if (vp_compare_flag(option, optarg, &flags))
            continue;
        switch (option) {
        case 'o': path = optarg; break;
        case 'd': db = optarg; break;
        case 'h': fputs(report_usage, stdout); return 0;
        default:
            vp_usage_error("report: unknown or incomplete option '%s'; see 'virtperf report "
                           "--help'", argv[optind - 1]);
        }
    }
    int count = argc - optind;
    if (!path || count < 1 || count > MAX_RUNS)
        vp_usage_error("report: accepted: 1 to 16 runs and -o FILE (see 'virtperf report --help')");
    struct vp_json_output output;
    char err[VP_PATH_ERROR_LEN];
    if (vp_json_output_open(&output, "-o", path, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    json_t *documents[MAX_SIDES];
    for (int i = 0; i < count; i++)
        documents[i] = vp_cli_load_run(db, argv[optind + i]);
    count = (int)vp_runs_by_side(documents, (size_t)count, MAX_SIDES);
    struct vp_markup page = { 0 };
    struct analyses analyses;
    analyse(&analyses, documents, (size_t)count, &flags.options);
    vp_report_html(&analyses.report, &page);
    forget(&analyses, (size_t)count);
    int rc = vp_output_commit_text(&output, page.data, page.len, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "virtperf: %s\n", err);
    else if (!output.to_stdout)
        printf("wrote %s (%zu bytes)\n", path, page.len);
    free(page.data);
    for (int i = 0; i < count; i++)
        json_decref(documents[i]);
    return rc == 0 ? 0 : 1;
}
