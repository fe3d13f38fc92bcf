/* `virtperf scaling RUN`: a --jobs sweep's per-job figures, efficiency, fairness, the
 * knee under a QoS rule and the CPU saturation point. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scaling.h"
#include "cmd/common.h"
#include "render/scaling_table.h"
#include "analysis/study.h"

#define MAX_METRICS 32

static const char scaling_usage[] =
    "usage: virtperf scaling RUN [--qos RULE] [--metric NAME...] [--json FILE|-] [--db PATH|URL]\n"
    "\n"
    "For each benchmark swept in RUN over --jobs (1..8, 10,30,70) or virtperf-mpi's --ranks\n"
    "(N then counts every host's jobs, and the knee is also given in hosts): per-job and\n"
    "aggregate figures against N, efficiency (per-job figure against the smallest N's),\n"
    "Jain's fairness across jobs, the figure the rule judges, the knee (the largest N\n"
    "meeting the QoS rule at every N up to it) and the first N at which the CPUs had no\n"
    "idle time left (under 5%).\n"
    "\n"
    "  --qos RULE     per_job>=0.8 (judges the rates), p99<=1.5x or p99<=2ms (judges the\n"
    "                 latencies with a distribution); the other metrics keep their default\n"
    "                 [rates: per_job>=0.9; latencies: p99<=1.2x; relative to the smallest N]\n"
    "  --metric NAME  this metric (repeatable)  [each benchmark's first metric and its\n"
    "                 latencies]\n";

int cmd_scaling(int argc, char **argv)
{
    static const struct option options[] = {
        { "qos", required_argument, NULL, 'q' },
        { "metric", required_argument, NULL, 'm' },
        { "json", required_argument, NULL, 'j' },
        { "db", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *db = NULL, *json_path = NULL;
    struct vp_qos qos = { 0 };
    const char *metric_names[MAX_METRICS];
    size_t metric_count = 0;
    char err[VP_PATH_ERROR_LEN];
    opterr = 0;
    int option;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (option) {
        case 'q':
            if (vp_qos_parse(optarg, &qos, err, sizeof err) != 0)
                vp_usage_error("%s", err);
            break;
        case 'm':
            if (metric_count == MAX_METRICS || !*optarg)
                vp_usage_error("--metric: accepted: up to %d metric names such as latency",
                               MAX_METRICS);
            metric_names[metric_count++] = optarg;
            break;
        case 'j': json_path = optarg; break;
        case 'd': db = optarg; break;
        case 'h': fputs(scaling_usage, stdout); return 0;
        default:
            vp_usage_error("scaling: unknown or incomplete option '%s'; see 'virtperf scaling "
                           "--help'", argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        vp_usage_error("scaling: accepted: one run (id, uuid, label or latest)");
    struct vp_json_output output;
    if (json_path && vp_json_output_open(&output, "--json", json_path, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    json_t *run = vp_cli_load_run(db, argv[optind]);
    struct vp_scaling_metrics metrics = { .names = metric_names, .count = metric_count };
    json_t *scaling = vp_scaling(run, &qos, &metrics, err, sizeof err);
    json_decref(run);
    if (!scaling) {
        vp_usage_error("scaling: %s", err);
    }
    if (!json_path || !output.to_stdout) {
        vp_print_scaling(stdout, scaling, vp_cli_units());
    }
    int rc = 0;
    if (json_path && vp_json_output_commit(&output, scaling, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        rc = 1;
    }
    json_decref(scaling);
    return rc;
}
