/* `virtperf compare BASE CAND [CAND...]`: penalties with confidence intervals. */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "analysis/study.h"
#include "render/study.h"
#include "core/units.h"
#include "analysis/compare.h"

static const char compare_usage[] =
    "usage: virtperf compare BASE CAND [CAND...] [--margin PCT] [--vary PARAM]\n"
    "                        [--metric NAME...] [--normalize clock] [--json FILE|-] [--db PATH]\n"
    "\n"
    "Compares stored runs (a run id, uuid, label or 'latest' each): results are matched by\n"
    "benchmark, params, job count (and host count, for virtperf-mpi runs); a result is\n"
    "compared with every candidate run that has it, and what cannot be paired is listed.\n"
    "Per metric: the centre of each side (mean for rates,\n"
    "median for times and latencies), the ratio CAND/BASE with a 95% interval (Welch t on\n"
    "logarithms below 10 repetitions a side, percentile bootstrap from 10), the penalty\n"
    "(positive: the candidate is worse), a Mann-Whitney p adjusted by Benjamini-Hochberg\n"
    "across the table, a verdict, and flags for numbers not to trust. Fewer than 5\n"
    "repetitions a side: no verdict.\n"
    "\n"
    "  --margin PCT     differences inside +-PCT count as none  [2]\n"
    "  --vary PARAM     match results that differ only in PARAM and set its values against\n"
    "                   each other: --vary bs (4k reads against 512k), --vary path (GPFS\n"
    "                   against local disk), --vary peer\n"
    "  --metric NAME    only this metric (repeatable)\n"
    "  --normalize clock  times (app's wall_time, time_per_event...) scaled by the ratio of\n"
    "                   the runs' effective clocks (app's ghz), as the CNAF study divided by\n"
    "                   the ratio of clock frequencies; said per row\n"
    "  --json FILE|-    also write the comparison as JSON\n";

/* One row; label_width aligns the rows' labels, and the flags under the base value:
 * the base's once, with the base run's id, each candidate's with its own. */
static void print_row(const json_t *row, int label_width, const char *base_id)
{
    char base[32], what[256];
    const char *unit = json_string_value(json_object_get(row, "unit"));
    vp_units_field(json_string_value(json_object_get(row, "bench")));
    vp_format_value(json_number_value(json_object_get(json_object_get(row, "base"), "value")),
                    unit, base, sizeof base);
    vp_compare_row_label(row, what, sizeof what);
    printf("%-*s jobs=%-3lld %-20s %-6s %12s", label_width, what,
           (long long)json_integer_value(json_object_get(row, "jobs")),
           json_string_value(json_object_get(row, "metric")),
           json_string_value(json_object_get(row, "centre")), base);
    size_t i;
    const json_t *cell;
    json_array_foreach(json_object_get(row, "candidates"), i, cell) {
        const json_t *ci = json_object_get(cell, "ci");
        const json_t *param_value = json_object_get(cell, "param_value");
        printf("  |");
        if (param_value) /* --vary: the candidate's value of the param */
            printf(" %s=%s", json_string_value(json_object_get(json_object_get(row, "varied"),
                                                               "param")),
                   json_string_value(param_value));
        if (!ci) {
            printf(" %s", json_string_value(json_object_get(cell, "verdict")));
            continue;
        }
        char value[32];
        vp_format_value(json_number_value(json_object_get(cell, "value")), unit, value, sizeof value);
        char p[32] = "p=-"; /* combined rows have an interval and no test */
        if (json_object_get(cell, "p_adjusted"))
            snprintf(p, sizeof p, "p=%.3g", json_number_value(json_object_get(cell, "p_adjusted")));
        printf(" %12s %+6.1f%% [%.3f, %.3f] %s %s", value,
               json_number_value(json_object_get(cell, "penalty_pct")),
               json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)),
               p, json_string_value(json_object_get(cell, "verdict")));
    }
    putchar('\n');
    json_t *said = json_object(); /* the base's flags repeat in every cell: once is enough */
    json_array_foreach(json_object_get(row, "candidates"), i, cell) {
        size_t f;
        const json_t *text;
        json_array_foreach(json_object_get(cell, "flags"), f, text) {
            const char *flag = json_string_value(text);
            bool of_base = strncmp(flag, "base:", 5) == 0;
            if (of_base && json_object_get(said, flag))
                continue;
            json_object_set_new(said, flag, json_true());
            printf("%*s ! %s (%s)\n", label_width + 35, "", flag,
                   of_base ? base_id : json_string_value(json_object_get(cell, "run")));
        }
        const json_t *normalized = json_object_get(cell, "normalized");
        if (normalized)
            printf("%*s ! normalised by clock: candidate %.3g GHz against base %.3g GHz (%s)\n",
                   label_width + 35, "", json_number_value(json_object_get(normalized, "candidate_ghz")),
                   json_number_value(json_object_get(normalized, "base_ghz")),
                   json_string_value(json_object_get(cell, "run")));
    }
    json_decref(said);
}

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
    if (count < 2 || count > 64)
        vp_usage_error("compare: accepted: a base run and 1 to 63 candidate runs (see "
                       "'virtperf compare --help')");
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
    json_t *comparison = vp_compare(documents[0], (const json_t *const *)documents + 1,
                                    (size_t)count - 1, &flags.options, err, sizeof err);
    if (!comparison)
        vp_usage_error("compare: %s", err);
    if (!json_path || !output.to_stdout) {
        for (int d = 0; d < count; d++) {
            const json_t *run = json_object_get(documents[d], "run");
            const char *label = json_string_value(json_object_get(run, "label"));
            printf("%s %s (%s, %s)\n", d == 0 ? "base     " : "candidate", label ? label : "-",
                   json_string_value(json_object_get(run, "id")),
                   json_string_value(json_object_get(json_object_get(run, "host"), "hostname")));
        }
        size_t i;
        const json_t *item;
        printf("\npenalty: positive = the candidate is worse; [95%% interval of CAND/BASE]; "
               "p adjusted (Benjamini-Hochberg)\n\n");
        int label_width = 12;
        json_array_foreach(json_object_get(comparison, "rows"), i, item) {
            char what[256];
            vp_compare_row_label(item, what, sizeof what);
            label_width = (int)strlen(what) > label_width ? (int)strlen(what) : label_width;
        }
        json_array_foreach(json_object_get(comparison, "rows"), i, item)
            print_row(item, label_width, json_string_value(json_object_get(comparison, "base")));
        json_array_foreach(json_object_get(comparison, "unmatched"), i, item)
            printf("unmatched: %s\n", json_string_value(item));
        json_array_foreach(json_object_get(comparison, "fingerprint_differences"), i, item)
            printf("environment: %s\n", json_string_value(item));
        /* runs of a plan file: its steps as the study laid them out, then and now */
        json_t *study = vp_study(documents[0], (const json_t *const *)documents + 1,
                                 (size_t)count - 1);
        if (study) {
            putchar('\n');
            vp_print_study(stdout, study);
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
