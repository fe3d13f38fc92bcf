/* `virtperf plan`: hosts, consolidation ratio and savings from a per-host capacity,
 * given or taken from a sweep's knee (the SPring-8 2005 study: 50 consoles on 8 servers). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/json_arena.h"
#include "core/units.h"
#include "analysis/scaling.h"

static const char plan_usage[] =
    "usage: virtperf plan --workloads N (--per-host N | --from RUN [--metric BENCH:METRIC]\n"
    "                     [--qos RULE]) [--host-cost C --current-cost C] [--db PATH|URL]\n"
    "\n"
    "Hosts needed for N workloads at a per-host capacity, the consolidation ratio, and with\n"
    "costs the hardware saved against one machine per workload. --from takes the capacity\n"
    "from a --jobs sweep's knee (see 'virtperf scaling').\n";

struct plan_settings {
    struct vp_shared_settings shared; /* first: the shared rows take into it */
    double workloads, per_host, host_cost, current_cost;
    const char *from, *metric;
    struct vp_qos qos;
};

/* A positive number of flag's into *into: 0, or -1 with err. */
static int positive(const char *flag, const char *text, double *into, char *err, size_t err_len)
{
    char *end;
    double value = strtod(text, &end);
    if (end == text || *end || !(value > 0) || !isfinite(value)) {
        snprintf(err, err_len, "%s: '%s' is not valid; accepted: a positive number", flag, text);
        return -1;
    }
    *into = value;
    return 0;
}

static int take_workloads(void *settings, const char *value, char *err, size_t err_len)
{
    return positive("--workloads", value, &((struct plan_settings *)settings)->workloads, err,
                    err_len);
}

static int take_per_host(void *settings, const char *value, char *err, size_t err_len)
{
    return positive("--per-host", value, &((struct plan_settings *)settings)->per_host, err,
                    err_len);
}

static int take_host_cost(void *settings, const char *value, char *err, size_t err_len)
{
    return positive("--host-cost", value, &((struct plan_settings *)settings)->host_cost, err,
                    err_len);
}

static int take_current_cost(void *settings, const char *value, char *err, size_t err_len)
{
    return positive("--current-cost", value, &((struct plan_settings *)settings)->current_cost,
                    err, err_len);
}

static int take_from(void *settings, const char *value, char *err, size_t err_len)
{
    (void)err, (void)err_len; /* the store resolves it, or says what it accepts */
    ((struct plan_settings *)settings)->from = value;
    return 0;
}

static int take_metric(void *settings, const char *value, char *err, size_t err_len)
{
    if (!strchr(value, ':')) {
        snprintf(err, err_len, "--metric: '%s' is not valid; accepted: BENCH:METRIC as "
                 "'virtperf scaling RUN' lists them", value);
        return -1;
    }
    ((struct plan_settings *)settings)->metric = value;
    return 0;
}

static int take_qos(void *settings, const char *value, char *err, size_t err_len)
{
    return vp_qos_parse(value, &((struct plan_settings *)settings)->qos, err, err_len);
}

static const struct vp_command_flag plan_flags[] = {
    { "workloads", 0, "N", "the workloads to place", take_workloads },
    { "per-host", 0, "N", "workloads one host carries", take_per_host },
    { "from", 0, "RUN", "the per-host capacity from this run's knee (a --jobs or --guests\n"
      "sweep; see 'virtperf scaling')", take_from },
    { "metric", 0, "BENCH:METRIC", "with --from: the knee of this benchmark's metric  [the\n"
      "first swept]", take_metric },
    { "qos", 0, "RULE", "with --from: the rule the knee meets (see 'virtperf scaling')",
      take_qos },
    { "host-cost", 0, "C", "a new host's cost (with --current-cost)", take_host_cost },
    { "current-cost", 0, "C", "the cost of a machine per workload today", take_current_cost },
    VP_DB_FLAG,
};
const struct vp_command_table vp_plan_flags = {
    "plan", plan_flags, sizeof plan_flags / sizeof plan_flags[0]
};

/* The knee of the group named bench:metric, or of the first group. */
static long knee_from(const char *db, const char *ref, const char *wanted, const struct vp_qos *qos,
                      char *what, size_t what_len)
{
    char err[VP_ERROR_LEN];
    json_t *run = vp_cli_load_run(db, ref, VP_EXPORT_SUMMARIES);
    struct vp_scaling_metrics all = { .all = 1 };
    json_t *scaling = vp_scaling(run, qos, &all, err, sizeof err);
    json_decref(run);
    if (!scaling)
        vp_usage_error("plan: --from %s: %s", ref, err);
    long knee = -1;
    size_t i;
    const json_t *group;
    json_array_foreach(json_object_get(scaling, "groups"), i, group) {
        char name[256];
        snprintf(name, sizeof name, "%s:%s", json_string_value(json_object_get(group, "bench")),
                 json_string_value(json_object_get(group, "metric")));
        if (knee < 0 && (!wanted || strcmp(wanted, name) == 0)) {
            knee = (long)json_integer_value(json_object_get(group, "knee_jobs"));
            snprintf(what, what_len, "the knee of %s (QoS: %s)", name,
                     json_string_value(json_object_get(group, "rule")));
        }
    }
    json_decref(scaling);
    vp_json_arena_release();
    if (knee < 0)
        vp_usage_error("plan: --metric %s: not swept in run %s; accepted: BENCH:METRIC as "
                       "'virtperf scaling %s' lists them", wanted, ref, ref);
    return knee;
}

int cmd_plan(int argc, char **argv)
{
    struct plan_settings settings = { .shared = VP_SHARED_SETTINGS_DEFAULT };
    size_t count;
    char **operands = vp_cmd_parse(&vp_plan_flags, plan_usage, &settings, argc, argv, &count);
    vp_cmd_flags_only(&vp_plan_flags, operands, count);
    double workloads = settings.workloads, per_host = settings.per_host;
    double host_cost = settings.host_cost, current_cost = settings.current_cost;
    const char *from = settings.from;
    if (workloads <= 0 || (per_host > 0) == (from != NULL))
        vp_usage_error("plan: accepted: --workloads N and either --per-host N or --from RUN");
    if ((host_cost > 0) != (current_cost > 0))
        vp_usage_error("plan: --host-cost and --current-cost go together");
    char what[384] = "--per-host";
    if (from)
        per_host = (double)knee_from(settings.shared.db, from, settings.metric, &settings.qos,
                                     what, sizeof what);
    per_host = floor(per_host);
    if (per_host < 1)
        vp_usage_error("plan: a per-host capacity below one workload cannot be planned");
    double hosts = ceil(workloads / per_host);
    printf("%.0f workloads at %.0f per host (%s): %.0f hosts, consolidation %.1f:1\n", workloads,
           per_host, what, hosts, workloads / hosts);
    if (host_cost > 0) {
        double new_cost = hosts * host_cost, old_cost = workloads * current_cost;
        printf("hardware: %.0f x %g = %g against %.0f x %g = %g: %.0f%% saved\n", hosts, host_cost,
               new_cost, workloads, current_cost, old_cost, 100 * (1 - new_cost / old_cost));
    }
    return 0;
}
