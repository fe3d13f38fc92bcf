/* `virtperf scaling RUN`: a --jobs sweep's per-job figures, efficiency, fairness, the
 * knee under a QoS rule and the CPU saturation point. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "core/units.h"
#include "analysis/scaling.h"
#include "analysis/study.h"

#define MAX_METRICS 32

static const char scaling_usage[] =
    "usage: virtperf scaling RUN [--qos RULE] [--metric NAME...] [--json FILE|-] [--db PATH]\n"
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

static const char *plural(long long count)
{
    return count == 1 ? "" : "s";
}

static void print_group(const json_t *groups, const json_t *group)
{
    const char *unit = json_string_value(json_object_get(group, "unit"));
    vp_units_field(json_string_value(json_object_get(group, "bench")));
    bool by_p99 = strcmp(json_string_value(json_object_get(group, "judged")), "p99") == 0;
    char params[512];
    vp_distinguishing_params(groups, json_object_get(group, "bench"),
                             json_object_get(group, "params"), params, sizeof params);
    printf("%s%s%s %s (%s is better)\n", json_string_value(json_object_get(group, "bench")),
           params[0] ? " " : "", params,
           json_string_value(json_object_get(group, "metric")),
           json_string_value(json_object_get(group, "better")));
    printf("  %5s %14s %14s %10s %9s %9s %14s\n", "jobs", "aggregate", "per job", "efficiency",
           "fairness", "cpu idle", by_p99 ? "p99 (judged)" : "judged");
    size_t i;
    const json_t *point;
    json_array_foreach(json_object_get(group, "points"), i, point) {
        char aggregate[32], per_job[32], judged[32] = "-";
        vp_format_value(json_number_value(json_object_get(point, "aggregate")), unit, aggregate,
                        sizeof aggregate);
        vp_format_value(json_number_value(json_object_get(point, "per_job")), unit, per_job,
                        sizeof per_job);
        const json_t *judged_value = json_object_get(point, "judged");
        if (json_is_number(judged_value))
            vp_format_value(json_number_value(judged_value), unit, judged, sizeof judged);
        const json_t *idle = json_object_get(point, "cpu_idle");
        char idle_text[16] = "-"; /* unknown: a result of many hosts has a monitor per host */
        if (idle)
            snprintf(idle_text, sizeof idle_text, "%.1f%%", json_number_value(idle));
        printf("  %5.0f %14s %14s %9.0f%% %9.3f %9s %14s\n",
               json_number_value(json_object_get(point, "jobs")), aggregate, per_job,
               100 * json_number_value(json_object_get(point, "efficiency")),
               json_number_value(json_object_get(point, "fairness")), idle_text, judged);
    }
    long long knee = (long long)json_integer_value(json_object_get(group, "knee_jobs"));
    const json_t *knee_hosts = json_object_get(group, "knee_hosts");
    if (knee_hosts) /* a virtperf-mpi --ranks sweep */
        printf("  optimum %lld host%s or guest%s, %lld job%s in all (QoS: %s)",
               (long long)json_integer_value(knee_hosts),
               plural(json_integer_value(knee_hosts)), plural(json_integer_value(knee_hosts)),
               knee, plural(knee), json_string_value(json_object_get(group, "rule")));
    else
        printf("  optimum %lld job%s per host (QoS: %s)", knee, plural(knee),
               json_string_value(json_object_get(group, "rule")));
    const json_t *saturated = json_object_get(group, "saturated_from");
    if (saturated)
        printf("; no idle CPU left from %lld job%s", (long long)json_integer_value(saturated),
               plural(json_integer_value(saturated)));
    printf("\n\n");
}

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
        size_t i;
        const json_t *group;
        json_array_foreach(json_object_get(scaling, "groups"), i, group)
            print_group(json_object_get(scaling, "groups"), group);
    }
    int rc = 0;
    if (json_path && vp_json_output_commit(&output, scaling, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        rc = 1;
    }
    json_decref(scaling);
    return rc;
}
