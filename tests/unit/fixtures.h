/* A complete, valid result object and document for the store and document tests,
 * shaped like the engine's output. */
#ifndef VP_TEST_FIXTURES_H
#define VP_TEST_FIXTURES_H

#include <jansson.h>
#include <stdio.h>
#include <unistd.h>

#include "core/json.h"

static inline json_t *fixture_metric(const char *unit, const char *better,
                                     const char *aggregate, const double *values, size_t n)
{
    json_t *metric = json_pack("{s:s,s:s,s:s}", "unit", unit, "better", better, "aggregate",
                               aggregate);
    vp_metric_set_stats(metric, values, n);
    return metric;
}

static inline json_t *fixture_result(void)
{
    const double triad[] = { 1.01e10, 0.99e10, 1.02e10, 1.0e10, 1.03e10 };
    const double job0[] = { 5.0e9, 4.9e9, 5.1e9, 5.0e9, 5.2e9 };
    const double job1[] = { 5.1e9, 5.0e9, 5.1e9, 5.0e9, 5.1e9 };
    json_t *job0_metrics = json_object(), *job1_metrics = json_object();
    json_t *metric = json_object();
    vp_metric_set_stats(metric, job0, 5);
    json_object_set_new(job0_metrics, "triad", metric);
    metric = json_object();
    vp_metric_set_stats(metric, job1, 5);
    json_object_set_new(job1_metrics, "triad", metric);
    json_t *timing = json_array();
    for (int i = 0; i < 5; i++)
        json_array_append_new(timing, json_pack("{s:f,s:f,s:f}", "start_skew_s", 1e-5 * i,
                                                "first_done_s", 0.1, "last_done_s", 0.11));
    return json_pack(
        "{s:s,s:{s:I},s:i,s:s,s:i,s:i,s:s,s:s,s:{s:o},s:[{s:i,s:i,s:s,s:i,s:f,s:f,s:o},"
        "{s:i,s:n,s:s,s:i,s:f,s:f,s:o}],s:{s:f,s:i,s:{s:[f,f],s:[f,f]},s:{s:{s:f,s:f}}},"
        "s:f,s:f,s:f,s:f,s:o}",
        "bench", "mem.stream", "params", "size", (json_int_t)268435456, "jobs", 2, "pin",
        "spread", "reps", 5, "warmup", 1, "status", "ok", "started_at", "2026-11-29T20:00:00Z",
        "metrics", "triad", fixture_metric("B/s", "higher", "sum", triad, 5),
        "per_job",
        "job", 0, "cpu_planned", 0, "cpu_binding", "0", "cpu_seen", 0, "start_offset_s", 2e-6,
        "done_offset_s", 0.1, "metrics", job0_metrics,
        "job", 1, "cpu_planned", "cpu_binding", "0-1", "cpu_seen", 1, "start_offset_s", 3e-6,
        "done_offset_s", 0.11, "metrics", job1_metrics,
        "monitor", "hz", 10.0, "samples", 2, "series", "t", 0.1, 0.2, "cpu.busy", 99.5, 100.0,
        "summary", "cpu.busy", "mean", 99.75, "max", 100.0,
        "start_skew_s", 2e-5, "start_skew_max_s", 4e-5, "first_done_s", 0.1, "last_done_s", 0.11,
        "timing", timing);
}

/* The optional parts disk and net results carry, added to a result. */
static inline void fixture_add_annotations(json_t *result)
{
    json_object_set_new(result, "warnings", json_pack("[s]", "served from cache: test"));
    json_object_set_new(result, "device",
                        json_pack("{s:s,s:s,s:s,s:f,s:f,s:f}", "name", "vda", "fstype", "ext4",
                                  "mount", "/", "read_bytes", 1048576.0, "write_bytes", 0.0,
                                  "util_mean", 12.5));
    json_object_set_new(result, "peer",
                        json_pack("{s:s,s:i,s:s,s:s,s:i,s:s,s:s}", "address", "198.18.0.2",
                                  "port", 7310, "local_address", "198.18.0.1", "interface",
                                  "veth0", "mtu", 1500, "driver", "veth", "congestion", "cubic"));
    json_object_set_new(result, "intervals",
                        json_pack("{s:f,s:s,s:s,s:[[f,f],[f]]}", "interval_s", 1.0, "unit", "B/s",
                                  "what", "bytes sent", "reps", 1e9, 5e8, 1.2e9));
}

static inline json_t *annotated_result(void)
{
    json_t *result = fixture_result();
    fixture_add_annotations(result);
    return result;
}

static inline json_t *fixture_document(const char *run_id)
{
    return json_pack("{s:s,s:{s:s,s:s,s:s,s:s,s:{s:s}},s:[o]}", "schema", "virtperf/1", "run",
                     "id", run_id, "label", "bare", "started_at", "2026-11-29T20:00:00Z",
                     "status", "ok", "host", "hostname", "testhost", "results",
                     annotated_result());
}

/* A database path of this test process's own, made empty before a test and removed
 * after it (cmocka setup and teardown). */
static char db_path[64];

static inline int make_path(void **state)
{
    (void)state;
    snprintf(db_path, sizeof db_path, "/tmp/vp-unit-test-%d.db", (int)getpid());
    unlink(db_path);
    return 0;
}

static inline int remove_path(void **state)
{
    (void)state;
    unlink(db_path);
    return 0;
}

#endif
