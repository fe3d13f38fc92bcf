/* `virtperf compare BASE CAND [CAND...]`: penalties with confidence intervals. */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/sides.h"
#include "analysis/study.h"
#include "cmd/common.h"
#include "render/compare_table.h"
#include "render/study.h"

static const char compare_usage[] =
    "usage: virtperf compare BASE CAND [CAND...] [--margin PCT] [--vary PARAM]\n"
    "                        [--metric NAME...] [--normalize clock] [--clock-ghz G,G...]\n"
    "                        [--json FILE|-] [--db PATH|URL]\n"
    "       virtperf compare RUN [...]   (a run of both sides: run --guests N --and-host)\n"
    "\n"
    "Compares stored runs (a run id, uuid, label or 'latest' each): results are matched by\n"
    "benchmark, params, job count (and host count, for virtperf-mpi runs); a result is\n"
    "compared with every candidate run that has it, and what cannot be paired is listed.\n"
    "Per metric: the centre of each side (mean for rates,\n"
    "median for times and latencies), the ratio CAND/BASE with a 95% interval (Welch t on\n"
    "logarithms below 10 repetitions a side, percentile bootstrap from 10), the penalty\n"
    "(positive: the candidate is worse), a Mann-Whitney p adjusted by Benjamini-Hochberg\n"
    "across the table, a verdict, and flags for numbers not to trust. Fewer than 5\n"
    "repetitions a side: no verdict. A RUN of both sides (run --guests N --and-host)\n"
    "stands as two, its host side then its guests' ('LABEL (host)', 'LABEL (guests)'),\n"
    "paired by total jobs: alone, its host side is the base and its guests the candidate;\n"
    "as a CAND, both sides are candidates; as the BASE, its host side is the base.\n"
    "\n"
    "  --margin PCT     differences inside +-PCT count as none  [2]\n"
    "  --vary PARAM     match results that differ only in PARAM and set its values against\n"
    "                   each other: --vary bs (4k reads against 512k), --vary path (GPFS\n"
    "                   against local disk), --vary peer\n"
    "  --metric NAME    only this metric (repeatable)\n"
    "  --normalize clock  times (app's wall_time, time_per_event...) scaled by the ratio of\n"
    "                   the runs' effective clocks (app's ghz), as the CNAF study divided by\n"
    "                   the ratio of clock frequencies; said per row. Where a run has no\n"
    "                   effective clock, both runs' nominal clocks: --clock-ghz's, or\n"
    "                   the one a CPU model's name states (X5570 @ 2.93GHz)\n"
    "  --clock-ghz G,G...  each run's nominal clock in GHz, the base's first (the CNAF\n"
    "                   study's 2.93,2.00); implies --normalize clock\n"
    "  --json FILE|-    also write the comparison as JSON\n";

int cmd_compare(int argc, char **argv)
{
    static const struct option options[] = {
        VP_COMPARE_FLAG_OPTIONS,
        { "json", required_argument, NULL, 'j' },
        { "db", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *db = NULL, *json_path = NULL;
    struct vp_compare_flags flags = VP_COMPARE_FLAGS_DEFAULT;
    opterr = 0;
    int option;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (vp_compare_flag(option, optarg, &flags))
            continue;
        switch (option) {
        case 'j': json_path = optarg; break;
        case 'd': db = optarg; break;
        case 'h': fputs(compare_usage, stdout); return 0;
        default:
            vp_usage_error("compare: unknown or incomplete option '%s'; see 'virtperf compare "
                           "--help'", argv[optind - 1]);
        }
    }
    int count = argc - optind;
    if (count < 1 || count > 64)
        vp_usage_error("compare: accepted: a base run and 1 to 63 candidate runs, or one run "
                       "of both sides (see 'virtperf compare --help')");
    struct vp_json_output output;
    char err[VP_PATH_ERROR_LEN];
    if (json_path && vp_json_output_open(&output, "--json", json_path, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    struct vp_store *store = vp_cli_open_store(db);
    json_t *documents[64];
    for (int i = 0; i < count; i++) {
        int64_t run_id;
        if (vp_store_resolve_run(store, argv[optind + i], &run_id, err, sizeof err) != 0 ||
            vp_store_export_run(store, run_id, &documents[i], err, sizeof err) != 0)
            vp_cli_store_refusal(store, "compare: ", err);
    }
    vp_store_close(store);
    /* a run of both sides stands as its two, host then guests, listed */
    size_t documents_count = vp_runs_by_side(documents, (size_t)count, 64);
    if (documents_count == 0)
        vp_usage_error("compare: the runs of both sides among these make more than 64 sides; "
                       "accepted: at most 64 runs or sides");
    if (documents_count == 1)
        vp_usage_error("compare: %s is one run without both sides; accepted: a base run "
                       "and 1 to 63 candidate runs, or one run of 'run --guests N "
                       "--and-host'", argv[optind]);
    count = (int)documents_count;
    json_t *comparison = vp_compare(documents[0], (const json_t *const *)documents + 1,
                                    (size_t)count - 1, &flags.options, err, sizeof err);
    if (!comparison)
        vp_usage_error("compare: %s", err);
    if (!json_path || !output.to_stdout) {
        vp_print_comparison(stdout, documents, (size_t)count, comparison, vp_cli_units());
        /* runs of a plan file: its steps as the study laid them out, then and now */
        json_t *study = vp_study(documents[0], (const json_t *const *)documents + 1,
                                 (size_t)count - 1);
        if (study) {
            putchar('\n');
            vp_print_study(stdout, study, vp_cli_units());
        }
        json_decref(study);
    }
    int rc = 0;
    if (json_path && vp_json_output_commit(&output, comparison, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        rc = 1;
    }
    json_decref(comparison);
    for (int i = 0; i < count; i++)
        json_decref(documents[i]);
    return rc;
}
