/* `virtperf report RUN... -o FILE`: the self-contained HTML report. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "render/html.h"

static const char report_usage[] =
    "usage: virtperf report RUN [RUN...] -o FILE.html [--margin PCT] [--vary PARAM]\n"
    "                       [--metric NAME...] [--db PATH]\n"
    "\n"
    "Writes one self-contained HTML page (inline CSS and SVG; no script, no external URL):\n"
    "verdicts of every RUN against the first (matched as 'virtperf compare' does, with\n"
    "its --margin, --vary and --metric), the environments side by side with their\n"
    "advisories, a penalty chart with 95% intervals, scaling charts with the knee, latency\n"
    "CDFs, and the monitor's CPU series. RUN is an id, uuid, label or 'latest'.\n";

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
    if (!path || count < 1 || count > 16)
        vp_usage_error("report: accepted: 1 to 16 runs and -o FILE (see 'virtperf report --help')");
    struct vp_json_output output;
    char err[VP_PATH_ERROR_LEN];
    if (vp_json_output_open(&output, "-o", path, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    json_t *documents[16];
    for (int i = 0; i < count; i++)
        documents[i] = vp_cli_load_run(db, argv[optind + i]);
    struct vp_markup page = { 0 };
    vp_report_html(documents, (size_t)count, &flags.options, &page);
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
