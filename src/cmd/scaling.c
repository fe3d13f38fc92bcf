/* `virtperf scaling RUN`: a --jobs sweep's per-job figures, efficiency, fairness, the
 * knee under a QoS rule and the CPU saturation point. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scaling.h"
#include "cmd/commands.h"
#include "core/json_arena.h"
#include "render/scaling_table.h"
#include "analysis/study.h"

static const char scaling_usage[] =
    "usage: virtperf scaling RUN [--qos RULE] [--metric NAME...] [--json FILE|-] [--db PATH|URL]\n"
    "\n"
    "For each benchmark swept in RUN over --jobs (1..8, 10,30,70) or virtperf-mpi's --ranks\n"
    "(N then counts every host's jobs, and the knee is also given in hosts): per-job and\n"
    "aggregate figures against N, efficiency (per-job figure against the smallest N's),\n"
    "Jain's fairness across jobs, the figure the rule judges, the knee (the largest N\n"
    "meeting the QoS rule at every N up to it) and the first N at which the CPUs had no\n"
    "idle time left (under 5%).\n"
;

struct scaling_settings {
    struct vp_shared_settings shared; /* first: the shared rows take into it */
    struct vp_qos qos;
};

static int take_qos(void *settings, const char *value, char *err, size_t err_len)
{
    return vp_qos_parse(value, &((struct scaling_settings *)settings)->qos, err, err_len);
}

static const struct vp_command_flag scaling_flags[] = {
    { "qos", 0, "RULE", "per_job>=0.8 (judges the rates), p99<=1.5x or p99<=2ms (judges\n"
      "the latencies with a distribution); the other metrics keep their\n"
      "default  [rates: per_job>=0.9; latencies: p99<=1.2x; relative to\n"
      "the smallest N]", take_qos },
    { "metric", 0, "NAME", "this metric (repeatable)  [each benchmark's first metric and its\n"
      "latencies]", vp_take_metrics },
    VP_JSON_FLAG("the analysis"),
    VP_DB_FLAG,
};
const struct vp_command_table vp_scaling_flags = {
    "scaling", scaling_flags, sizeof scaling_flags / sizeof scaling_flags[0]
};

int cmd_scaling(int argc, char **argv)
{
    struct scaling_settings settings = { .shared = VP_SHARED_SETTINGS_DEFAULT };
    size_t count;
    char **runs = vp_cmd_parse(&vp_scaling_flags, scaling_usage, &settings, argc, argv, &count);
    if (count != 1)
        vp_usage_error("scaling: accepted: one run (id, uuid, label or latest)");
    const char *json_path = settings.shared.json;
    const struct vp_compare_options *asked = &settings.shared.compare.options;
    char err[VP_PATH_ERROR_LEN];
    struct vp_json_output output;
    if (json_path && vp_json_output_open(&output, "--json", json_path, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    json_t *run = vp_cli_load_run(settings.shared.db, runs[0], VP_EXPORT_SUMMARIES);
    free(runs);
    struct vp_scaling_metrics metrics = { .names = asked->metrics, .count = asked->metric_count };
    json_t *scaling = vp_scaling(run, &settings.qos, &metrics, err, sizeof err);
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
    vp_json_arena_release();
    return rc;
}
