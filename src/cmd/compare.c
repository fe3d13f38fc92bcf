/* `virtperf compare BASE CAND [CAND...]`: penalties with confidence intervals. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/sides.h"
#include "analysis/study.h"
#include "core/json_arena.h"
#include "cmd/commands.h"
#include "render/compare_table.h"
#include "render/study.h"

static const char compare_usage[] =
    "usage: virtperf compare BASE CAND [CAND...] [--margin PCT] [--vary PARAM]\n"
    "                        [--metric NAME...] [--normalize clock] [--clock-ghz G,G...]\n"
    "                        [--json FILE|-] [--db PATH|URL]\n"
    "       virtperf compare RUN [...]   (a run of sides: --and-host, or --group twice)\n"
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
    "as a CAND, both sides are candidates; as the BASE, its host side is the base. A RUN\n"
    "of groups (run --group A:... --group B:...) stands as each group ('LABEL (A)',\n"
    "'LABEL (B)'...) in the order given: alone, its first group is the base.\n";

static const struct vp_command_flag compare_flags[] = {
    VP_COMPARE_FLAGS,
    VP_JSON_FLAG("the comparison"),
    VP_DB_FLAG,
};
const struct vp_command_table vp_compare_flags = {
    "compare", compare_flags, sizeof compare_flags / sizeof compare_flags[0]
};

int cmd_compare(int argc, char **argv)
{
    struct vp_shared_settings settings = VP_SHARED_SETTINGS_DEFAULT;
    size_t count;
    char **runs = vp_cmd_parse(&vp_compare_flags, compare_usage, &settings, argc, argv, &count);
    if (count < 1 || count > 64)
        vp_usage_error("compare: accepted: a base run and 1 to 63 candidate runs, or one run "
                       "of sides (see 'virtperf compare --help')");
    const char *json_path = settings.json, *db = settings.db;
    struct vp_json_output output;
    char err[VP_PATH_ERROR_LEN];
    if (json_path && vp_json_output_open(&output, "--json", json_path, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    struct vp_store *store = vp_cli_open_store(db);
    json_t *documents[64];
    for (size_t i = 0; i < count; i++)
        documents[i] = vp_cli_read_run(store, runs[i], VP_EXPORT_SUMMARIES, "compare: ");
    vp_store_close(store);
    /* a run of sides stands as each of them, host then guests, or its groups, listed */
    size_t documents_count = vp_runs_by_side(documents, count, 64);
    if (documents_count == 0)
        vp_usage_error("compare: the runs of sides among these make more than 64 sides; "
                       "accepted: at most 64 runs or sides");
    if (documents_count == 1)
        vp_usage_error("compare: %s is one run without sides; accepted: a base run "
                       "and 1 to 63 candidate runs, or one run of 'run --guests N "
                       "--and-host' or of 'run --group A:... --group B:...'", runs[0]);
    count = documents_count;
    vp_json_arena_begin(); /* the comparison too is made once, printed and released */
    json_t *comparison = vp_compare(documents[0], (const json_t *const *)documents + 1,
                                    count - 1, &settings.compare.options, err, sizeof err);
    vp_json_arena_end();
    if (!comparison)
        vp_usage_error("compare: %s", err);
    if (!json_path || !output.to_stdout) {
        vp_print_comparison(stdout, documents, count, comparison, vp_cli_units());
        /* runs of a plan file: its steps as the study laid them out, then and now */
        json_t *study = vp_study(documents[0], (const json_t *const *)documents + 1,
                                 count - 1);
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
    free(runs);
    for (size_t i = 0; i < count; i++)
        json_decref(documents[i]);
    vp_json_arena_release();
    return rc;
}
