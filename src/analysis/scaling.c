/* Sweep analysis: per-job figures, efficiency, fairness, knee, CPU saturation. */
#include "analysis/scaling.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/shown.h"
#include "analysis/sides.h"
#include "core/units.h"
#include "core/json.h"
#include "core/monitor.h"

int vp_qos_parse(const char *text, struct vp_qos *qos, char *err, size_t err_len)
{
    char *end;
    memset(qos, 0, sizeof *qos);
    qos->given = 1;
    if (strncmp(text, "per_job>=", 9) == 0) {
        qos->kind = VP_QOS_RELATIVE;
        qos->per_job = 1;
        qos->factor = strtod(text + 9, &end);
        if (end != text + 9 && *end == '\0' && qos->factor > 0 && qos->factor <= 1)
            return 0;
    } else if (strncmp(text, "p99<=", 5) == 0) {
        size_t len = strlen(text + 5);
        if (len > 1 && text[5 + len - 1] == 'x') {
            qos->kind = VP_QOS_RELATIVE;
            qos->factor = strtod(text + 5, &end);
            if (end == text + 5 + len - 1 && qos->factor >= 1)
                return 0;
        } else {
            qos->kind = VP_QOS_P99_MAX;
            if (vp_parse_duration(text + 5, &qos->limit) == 0 && qos->limit > 0)
                return 0;
        }
    }
    snprintf(err, err_len, "--qos: '%s' is not valid; accepted: per_job>=F (0 < F <= 1), "
             "p99<=Fx (F >= 1) or p99<=DURATION such as p99<=2ms", text);
    return -1;
}

static int meets(double value, double single, int higher_better, double factor,
                 const struct vp_qos *qos)
{
    if (qos->kind == VP_QOS_P99_MAX)
        return value <= qos->limit;
    return higher_better ? value >= factor * single : value <= factor * single;
}

size_t vp_knee(const double *values, size_t count, int higher_better, double factor,
               const struct vp_qos *qos)
{
    size_t knee = 0;
    for (size_t i = 0; i < count; i++) {
        if (!meets(values[i], values[0], higher_better, factor, qos))
            break;
        knee = i;
    }
    return knee;
}

double vp_jain_fairness(const double *values, size_t n)
{
    double sum = 0, squares = 0;
    for (size_t i = 0; i < n; i++) {
        sum += values[i];
        squares += values[i] * values[i];
    }
    return squares > 0 ? sum * sum / ((double)n * squares) : 1;
}

/* The jobs a result ran: its job count, times its hosts for a result of many hosts (a
 * virtperf-mpi --ranks sweep with one job per guest scales over guests). */
static json_int_t workers(const json_t *result)
{
    json_int_t jobs = json_integer_value(json_object_get(result, "jobs"));
    json_int_t hosts = json_integer_value(json_object_get(json_object_get(result, "ranks"), "count"));
    return hosts > 0 ? jobs * hosts : jobs;
}

/* A matrix result measures one pair of hosts: not a point of any sweep. */
static bool in_a_sweep(const json_t *result)
{
    const char *topology = json_string_value(json_object_get(json_object_get(result, "ranks"),
                                                             "topology"));
    return !topology || strcmp(topology, "matrix") != 0;
}

/* A result's side in a run of both (--and-host: "host" or "guests"), NULL in others. */
static const char *side_of(const json_t *result)
{
    return json_string_value(json_object_get(json_object_get(result, "side"), "name"));
}

static bool same_side(const json_t *a, const json_t *b)
{
    const char *one = side_of(a), *other = side_of(b);
    return one == other || (one && other && strcmp(one, other) == 0);
}

/* The results of one group (same bench, params and side), ordered by workers(). */
static size_t collect_group(const json_t *results, const json_t *first, const json_t **group,
                            size_t cap)
{
    size_t count = 0, i;
    const json_t *result;
    json_array_foreach(results, i, result) {
        if (strcmp(json_string_value(json_object_get(result, "status")), "ok") != 0 ||
            strcmp(json_string_value(json_object_get(result, "bench")),
                   json_string_value(json_object_get(first, "bench"))) != 0 ||
            !json_equal(json_object_get(result, "params"), json_object_get(first, "params")) ||
            !same_side(result, first) || !in_a_sweep(result) || count == cap)
            continue;
        group[count++] = result;
    }
    for (size_t a = 1; a < count; a++) { /* by the jobs they ran */
        const json_t *key = group[a];
        size_t b = a;
        while (b > 0 && workers(group[b - 1]) > workers(key)) {
            group[b] = group[b - 1];
            b--;
        }
        group[b] = key;
    }
    return count;
}

/* One monitor summary's figures: CPU busy, steal and idle (%), page faults and NIC
 * bytes per second (network.rx + tx: each packet once). */
struct resources {
    double busy, steal, idle, faults, nic;
};

static struct resources resources_of(const json_t *summary, const char *route)
{
    struct resources used = {
        .busy = vp_monitor_mean(summary, "cpu.busy"),
        .steal = vp_monitor_mean(summary, "cpu.steal"),
        .idle = vp_monitor_mean(summary, "cpu.idle"),
    };
    const char *column;
    const json_t *figures;
    json_object_foreach((json_t *)summary, column, figures) {
        double mean = vp_monitor_figures_mean(figures);
        if (!isfinite(mean))
            continue;
        if (strncmp(column, "faults.", 7) == 0)
            used.faults += mean;
        else if (vp_monitor_network_column(summary, column, "rx", route) ||
                 vp_monitor_network_column(summary, column, "tx", route))
            used.nic += mean;
    }
    return used;
}

static void set_resources(json_t *point, const struct resources *used)
{
    json_object_set_new(point, "cpu_busy", json_real(used->busy));
    json_object_set_new(point, "cpu_steal", json_real(used->steal));
    json_object_set_new(point, "faults", json_real(used->faults));
    json_object_set_new(point, "nic_rate", json_real(used->nic));
    if (isfinite(used->idle))
        json_object_set_new(point, "cpu_idle", json_real(used->idle));
}

/* What each member of a point's guests or containers held of the host's memory, as a
 * mean over them (a guest: its QEMU's Pss, its RAM with the rest; a container: its
 * cgroup's memory and its engine's shim), and their median time to ready: the figures
 * that say how many more fit. Nothing when the result had no members or no figures. */
static void add_member_costs(json_t *point, const json_t *result)
{
    const json_t *guests = json_object_get(result, "guests");
    const json_t *hypervisors = json_object_get(result, "hypervisors");
    json_t *members = json_array(); /* every host's, with virtperf-mpi's hypervisors */
    size_t h;
    const json_t *hypervisor;
    json_array_foreach(hypervisors, h, hypervisor)
        json_array_extend(members, json_object_get(json_object_get(hypervisor, "guests"), "hosts"));
    if (!hypervisors)
        json_array_extend(members, json_object_get(guests, "hosts"));
    if (!guests) /* the ready times: the first hypervisor's */
        guests = json_object_get(json_array_get(hypervisors, 0), "guests");
    double held = 0;
    size_t counted = 0, i;
    const json_t *member;
    json_array_foreach(members, i, member) {
        const json_t *qemu = json_object_get(member, "qemu_pss_bytes");
        const json_t *cgroup = json_object_get(member, "cgroup_memory_bytes");
        if (!json_is_number(qemu) && !json_is_number(cgroup))
            continue;
        const json_t *shim = json_object_get(member, "shim_pss_bytes");
        held += json_is_number(qemu) ? json_number_value(qemu)
                                     : json_number_value(cgroup) +
                                       (json_is_number(shim) ? json_number_value(shim) : 0);
        counted++;
    }
    if (counted > 0)
        json_object_set_new(point, "member_memory_bytes", json_real(held / (double)counted));
    json_decref(members);
    const json_t *ready = json_object_get(guests, "ready_p50_s");
    if (json_is_number(ready))
        json_object_set_new(point, "ready_p50_s", json_real(json_number_value(ready)));
}

/* The machines' use while a point ran, as the SPring-8 study plotted it against the
 * number of VMs: from the result's monitor on one host; for a result of many hosts from
 * each host's (every hypervisor's under "hypervisors", else every rank's under "ranks"),
 * and the point's over the machines they ran on
 * (one per machine: ranks on one machine see the same machine), CPU as their mean,
 * faults and NIC rates summed. Returns the CPU idle (NaN: not known). */
static double add_resources(json_t *point, const json_t *result)
{
    const json_t *summary = json_object_get(json_object_get(result, "monitor"), "summary");
    if (summary) {
        struct resources used = resources_of(summary, vp_result_route(result));
        set_resources(point, &used);
        return used.idle;
    }
    struct resources machines = { 0 };
    size_t machine_count = 0, i;
    json_t *ranks = json_array();
    const json_t *host;
    /* virtperf-mpi's hypervisors: each watched its machine (their members' own monitors
     * watched the members), a machine each */
    const json_t *hypervisors = json_object_get(result, "hypervisors");
    const json_t *hosts = hypervisors ? hypervisors
                                      : json_object_get(json_object_get(result, "ranks"), "hosts");
    json_array_foreach(hosts, i, host) {
        summary = hypervisors ? json_object_get(host, "monitor")
                              : json_object_get(json_object_get(host, "monitor"), "summary");
        if (!summary)
            continue;
        struct resources used = resources_of(summary, vp_result_route(host));
        json_t *entry = json_pack("{s:O}", "rank", json_object_get(host, "rank"));
        set_resources(entry, &used);
        json_array_append_new(ranks, entry);
        const json_t *machine = json_object_get(host, "machine");
        if (machine && !json_equal(machine, json_object_get(host, "rank")))
            continue; /* another rank's machine, counted with it */
        machines.busy += used.busy;
        machines.steal += used.steal;
        machines.idle += used.idle;
        machines.faults += used.faults;
        machines.nic += used.nic;
        machine_count++;
    }
    if (machine_count == 0) {
        json_decref(ranks);
        return NAN;
    }
    machines.busy /= (double)machine_count;
    machines.steal /= (double)machine_count;
    machines.idle /= (double)machine_count;
    set_resources(point, &machines);
    json_object_set_new(point, "machines", json_integer((json_int_t)machine_count));
    json_object_set_new(point, "ranks", ranks);
    return machines.idle;
}

json_t *vp_scaling_point_costs(const json_t *result)
{
    json_t *point = json_object();
    add_resources(point, result);
    add_member_costs(point, result);
    return point;
}

/* The rule a metric is judged by: the one given where it names this kind of metric (a
 * p99 rule: metrics with a latency distribution; per_job>=: rates), else its default
 * (rates: per-job >= 0.9x the smallest sweep point's; latencies with a distribution: p99
 * <= 1.2x; other lower-is-better figures: per-job <= 1.2x). */
static struct vp_qos rule_for(const struct vp_qos *given, int higher_better, int has_distribution,
                              bool *by_p99)
{
    bool names_p99 = given->given && (given->kind == VP_QOS_P99_MAX || !given->per_job);
    bool names_rates = given->given && given->kind == VP_QOS_RELATIVE && given->per_job;
    if (names_p99 && has_distribution && !higher_better) {
        *by_p99 = true;
        return *given;
    }
    if (names_rates && higher_better) {
        *by_p99 = false;
        return *given;
    }
    *by_p99 = has_distribution && !higher_better;
    return (struct vp_qos){ .kind = VP_QOS_RELATIVE, .factor = higher_better ? 0.9 : 1.2 };
}

/* One metric across the group's points, with its knee. */
static json_t *analyse_metric(const json_t **group, size_t count, const char *name,
                              const struct vp_qos *qos)
{
    const json_t *first_metric = json_object_get(json_object_get(group[0], "metrics"), name);
    int higher_better = strcmp(json_string_value(json_object_get(first_metric, "better")), "higher") == 0;
    bool closer_to_zero = strcmp(json_string_value(json_object_get(first_metric, "better")), "zero") == 0;
    int summed = strcmp(json_string_value(json_object_get(first_metric, "aggregate")), "sum") == 0;
    double *per_job = calloc(count, sizeof *per_job), *judged = calloc(count, sizeof *judged);
    if (!per_job || !judged)
        abort();
    bool use_p99;
    struct vp_qos rule = rule_for(qos, higher_better,
                                  json_object_get(first_metric, "distribution") != NULL, &use_p99);
    json_t *points = json_array();
    int saturated_from = 0;
    for (size_t i = 0; i < count; i++) {
        const json_t *metric = json_object_get(json_object_get(group[i], "metrics"), name);
        double jobs = (double)workers(group[i]);
        double aggregate = vp_json_number(metric, "mean");
        if (closer_to_zero) /* a signed figure: its size scales, not its sign */
            aggregate = fabs(aggregate);
        per_job[i] = summed ? aggregate / jobs : aggregate;
        double job_means[1024];
        size_t n = 0, j;
        const json_t *job;
        json_array_foreach(json_object_get(group[i], "per_job"), j, job)
            if (n < 1024)
                job_means[n++] = vp_json_number(json_object_get(json_object_get(job, "metrics"), name), "mean");
        json_t *point = json_pack("{s:f,s:f,s:f,s:f}", "jobs", jobs, "aggregate", aggregate,
                                  "per_job", per_job[i], "fairness", vp_jain_fairness(job_means, n));
        const json_t *hosts = json_object_get(json_object_get(group[i], "ranks"), "count");
        if (hosts)
            json_object_set_new(point, "hosts", json_deep_copy(hosts));
        const json_t *hypervisors = json_object_get(group[i], "hypervisors");
        if (hypervisors) /* virtperf-mpi's: so many members on each of so many hosts */
            json_object_set_new(point, "per_host",
                                json_deep_copy(json_object_get(json_array_get(hypervisors, 0),
                                                               "members")));
        double p99 = vp_json_number(json_object_get(metric, "distribution"), "p99");
        if (isfinite(p99))
            json_object_set_new(point, "p99", json_real(p99));
        judged[i] = use_p99 ? p99 : per_job[i];
        json_object_set_new(point, "judged", isfinite(judged[i]) ? json_real(judged[i]) : json_null());
        double idle = add_resources(point, group[i]);
        add_member_costs(point, group[i]);
        if (isfinite(idle) && idle < 5 && !saturated_from)
            saturated_from = (int)jobs;
        json_array_append_new(points, point);
    }
    json_t *point;
    size_t i;
    json_array_foreach(points, i, point) {
        double efficiency = higher_better ? per_job[i] / per_job[0] : per_job[0] / per_job[i];
        json_object_set_new(point, "efficiency", json_real(isfinite(efficiency) ? efficiency : 0));
    }
    size_t knee = vp_knee(judged, count, higher_better, rule.factor, &rule);
    char description[128];
    long long smallest = (long long)workers(group[0]);
    if (rule.kind == VP_QOS_P99_MAX)
        snprintf(description, sizeof description, "p99 <= %g ms", rule.limit * 1e3);
    else
        snprintf(description, sizeof description, "%s %s %gx its value at %lld job%s",
                 use_p99 ? "p99" : "per-job", higher_better ? ">=" : "<=", rule.factor, smallest,
                 smallest == 1 ? "" : "s");
    json_t *analysis = json_pack("{s:s,s:s,s:s,s:o,s:I,s:s,s:s,s:I}", "metric", name, "unit",
                                 json_string_value(json_object_get(first_metric, "unit")), "better",
                                 higher_better ? "higher" : "lower", "points", points, "knee_jobs",
                                 workers(group[knee]), "rule", description, "judged",
                                 use_p99 ? "p99" : "per_job", "relative_to_jobs",
                                 (json_int_t)smallest);
    const json_t *knee_hosts = json_object_get(json_object_get(group[knee], "ranks"), "count");
    if (knee_hosts) { /* a --ranks or --guests sweep: the knee as a number of them */
        json_object_set_new(analysis, "knee_hosts", json_deep_copy(knee_hosts));
        json_object_set_new(analysis, "members", json_string(vp_members_word(group[knee])));
    }
    if (saturated_from)
        json_object_set_new(analysis, "saturated_from", json_integer(saturated_from));
    free(per_job);
    free(judged);
    return analysis;
}

/* A group's headline metrics: its first metric and those with a latency distribution. */
static bool headline(const json_t *result, const char *name)
{
    const char *first = NULL;
    json_t *ignored;
    json_object_foreach(json_object_get(result, "metrics"), first, ignored)
        break;
    return (first && strcmp(first, name) == 0) ||
           json_object_get(json_object_get(json_object_get(result, "metrics"), name),
                           "distribution") != NULL;
}

static bool wanted(const struct vp_scaling_metrics *metrics, const json_t *result, const char *name)
{
    if (!metrics || metrics->all)
        return true;
    for (size_t i = 0; i < metrics->count; i++)
        if (strcmp(metrics->names[i], name) == 0)
            return true;
    return metrics->count == 0 && headline(result, name);
}

json_t *vp_scaling(const json_t *run, const struct vp_qos *qos,
                   const struct vp_scaling_metrics *metrics, char *err, size_t err_len)
{
    const json_t *results = json_object_get(run, "results");
    json_t *groups = json_array();
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result) {
        const json_t *group[256];
        size_t count = collect_group(results, result, group, 256);
        /* Each group once (at its first member), a sweep of two counts or more. */
        if (count < 2 || group[0] != result || workers(group[0]) == workers(group[count - 1]))
            continue;
        const char *name;
        const json_t *metric;
        json_object_foreach(json_object_get(group[0], "metrics"), name, metric) {
            if (!wanted(metrics, group[0], name))
                continue;
            json_t *analysis = analyse_metric(group, count, name, qos);
            json_object_set_new(analysis, "bench", json_deep_copy(json_object_get(group[0], "bench")));
            json_object_set_new(analysis, "params", json_deep_copy(json_object_get(group[0], "params")));
            if (side_of(group[0]))
                json_object_set_new(analysis, "side", json_string(side_of(group[0])));
            json_array_append_new(groups, analysis);
        }
    }
    if (json_array_size(groups) == 0) {
        json_decref(groups);
        snprintf(err, err_len, "the run holds no sweep%s: run with --jobs (or virtperf-mpi's "
                 "--ranks) at two counts or more, such as 1..8 or 10,30,70",
                 metrics && metrics->count ? " of the --metric asked for" : "");
        return NULL;
    }
    json_t *group;
    json_array_foreach(groups, i, group) {
        char params[512];
        vp_distinguishing_params(groups, json_object_get(group, "bench"),
                                 json_object_get(group, "params"), params, sizeof params);
        json_object_set_new(group, "params_shown", json_string(params));
        vp_shown_units(group);
    }
    return json_pack("{s:o}", "groups", groups);
}
