/* Scaling over a --jobs sweep: per-job and aggregate figures against the job count,
 * efficiency, Jain's fairness across jobs, the knee (the largest job count that still
 * meets a QoS rule) and the CPU saturation point from the monitor. */
#ifndef VP_SCALING_H
#define VP_SCALING_H

#include <jansson.h>
#include <stddef.h>

enum vp_qos_kind {
    VP_QOS_RELATIVE, /* per-job figure at least (higher-better) / at most (lower-better)
                        factor x its single-job value */
    VP_QOS_P99_MAX,  /* p99 of the distribution at most limit seconds */
};

struct vp_qos {
    enum vp_qos_kind kind;
    double factor; /* VP_QOS_RELATIVE */
    double limit;  /* VP_QOS_P99_MAX, seconds */
    int given;     /* 0: the default rule (0.9x for rates, p99 <= 1.2x for latencies) */
    int per_job;   /* VP_QOS_RELATIVE given as per_job>=F: it names the rates */
};

/* The metrics a scaling analysis covers: all, the names given, or (none given) each
 * benchmark's headline: its first metric and those with a latency distribution. */
struct vp_scaling_metrics {
    int all;
    const char *const *names;
    size_t count;
};

/* "per_job>=0.8", "p99<=2ms", "p99<=1.5x"; 0 or -1 with the accepted forms in err. */
int vp_qos_parse(const char *text, struct vp_qos *qos, char *err, size_t err_len);

/* Index of the knee in values[0..count) ordered by rising job count, values[0] being the
 * smallest count's figure: the largest index such that it and every smaller one meet the
 * rule. For a relative rule, ok(i) is values[i] >= factor * values[0] (higher_better) or
 * values[i] <= factor * values[0]; for VP_QOS_P99_MAX, values[i] <= limit. */
size_t vp_knee(const double *values, size_t count, int higher_better, double factor,
               const struct vp_qos *qos);

/* Jain's fairness index: (sum x)^2 / (n * sum x^2); 1 when every job got the same. */
double vp_jain_fairness(const double *values, size_t n);

/* The scaling document of one run: {"groups": [{"bench", "params", "metric", "unit",
 * "better", "points": [{"jobs", "aggregate", "per_job", "efficiency", "fairness",
 * "judged", "p99"?, "hosts"?, "cpu_idle"?, "cpu_busy"?, "cpu_steal"?, "faults"?,
 * "nic_rate"?, "machines"?, "ranks"?: [{"rank", "cpu_busy", "cpu_steal", "cpu_idle"?,
 * "faults", "nic_rate"}]}], "knee_jobs", "knee_hosts"? with "members"? ("hosts",
 * "guests" or "containers": what the counted ranks are), "rule",
 * "judged": "p99"|"per_job", "relative_to_jobs", "saturated_from"?}]}. A sweep is a
 * benchmark at two job counts or more (jobs x hosts for virtperf-mpi), its efficiency
 * and relative rules against its smallest count. A rule given applies to the metrics it
 * names (p99 rules: latencies with a distribution; per_job>=: rates), the others keep
 * their default. metrics NULL: all. NULL with err when the run holds no sweep. */
json_t *vp_scaling(const json_t *run, const struct vp_qos *qos,
                   const struct vp_scaling_metrics *metrics, char *err, size_t err_len);

/* What one result's point cost the machines, as a point of a scaling document carries
 * it: cpu_busy, cpu_steal, cpu_idle?, faults, nic_rate, member_memory_bytes?,
 * ready_p50_s? (a fill judges each count by them as it is measured). */
json_t *vp_scaling_point_costs(const json_t *result);

#endif
