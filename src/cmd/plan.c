/* `virtperf plan`: hosts, consolidation ratio and savings from a per-host capacity,
 * given or taken from a sweep's knee (the SPring-8 2005 study: 50 consoles on 8 servers). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "core/units.h"
#include "analysis/scaling.h"

static const char plan_usage[] =
    "usage: virtperf plan --workloads N (--per-host N | --from RUN [--metric BENCH:METRIC]\n"
    "                     [--qos RULE]) [--host-cost C --current-cost C] [--db PATH|URL]\n"
    "\n"
    "Hosts needed for N workloads at a per-host capacity, the consolidation ratio, and with\n"
    "costs the hardware saved against one machine per workload. --from takes the capacity\n"
    "from a --jobs sweep's knee (see 'virtperf scaling').\n";

static double parse_positive(const char *flag, const char *text)
{
    char *end;
    double value = strtod(text, &end);
    if (end == text || *end || !(value > 0) || !isfinite(value))
        vp_usage_error("%s: '%s' is not valid; accepted: a positive number", flag, text);
    return value;
}

/* The knee of the group named bench:metric, or of the first group. */
static long knee_from(const char *db, const char *ref, const char *wanted, const struct vp_qos *qos,
                      char *what, size_t what_len)
{
    char err[VP_ERROR_LEN];
    json_t *run = vp_cli_load_run(db, ref);
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
    if (knee < 0)
        vp_usage_error("plan: --metric %s: not swept in run %s; accepted: BENCH:METRIC as "
                       "'virtperf scaling %s' lists them", wanted, ref, ref);
    return knee;
}

int cmd_plan(int argc, char **argv)
{
    static const struct option options[] = {
        { "workloads", required_argument, NULL, 'w' },
        { "per-host", required_argument, NULL, 'p' },
        { "from", required_argument, NULL, 'f' },
        { "metric", required_argument, NULL, 'm' },
        { "qos", required_argument, NULL, 'q' },
        { "host-cost", required_argument, NULL, 'H' },
        { "current-cost", required_argument, NULL, 'C' },
        { "db", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    double workloads = 0, per_host = 0, host_cost = 0, current_cost = 0;
    const char *from = NULL, *metric = NULL, *db = NULL;
    struct vp_qos qos = { 0 };
    char err[VP_ERROR_LEN];
    opterr = 0;
    int option;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (option) {
        case 'w': workloads = parse_positive("--workloads", optarg); break;
        case 'p': per_host = parse_positive("--per-host", optarg); break;
        case 'f': from = optarg; break;
        case 'm': metric = optarg; break;
        case 'q':
            if (vp_qos_parse(optarg, &qos, err, sizeof err) != 0)
                vp_usage_error("%s", err);
            break;
        case 'H': host_cost = parse_positive("--host-cost", optarg); break;
        case 'C': current_cost = parse_positive("--current-cost", optarg); break;
        case 'd': db = optarg; break;
        case 'h': fputs(plan_usage, stdout); return 0;
        default:
            vp_usage_error("plan: unknown or incomplete option '%s'; see 'virtperf plan --help'",
                           argv[optind - 1]);
        }
    }
    if (optind < argc)
        vp_usage_error("plan: unexpected argument '%s'", argv[optind]);
    if (workloads <= 0 || (per_host > 0) == (from != NULL))
        vp_usage_error("plan: accepted: --workloads N and either --per-host N or --from RUN");
    if ((host_cost > 0) != (current_cost > 0))
        vp_usage_error("plan: --host-cost and --current-cost go together");
    char what[384] = "--per-host";
    if (from)
        per_host = (double)knee_from(db, from, metric, &qos, what, sizeof what);
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
