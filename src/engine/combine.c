/* Combining the hosts' parts of one point into one result (see combine.h). */
#include "engine/combine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "engine/result.h"

/* The parts of a host's own result worth keeping beside the combined figures. */
static const char *const kept_keys[] = {
    "status", "error", "metrics", "monitor", "warnings", "device", "peer", "load", "idle",
    "start_skew_s", "first_done_s", "last_done_s",
};

static const char *host_name(const struct vp_host_part *part)
{
    const char *name = json_string_value(json_object_get(part->fingerprint, "hostname"));
    return name ? name : "?";
}

/* The first of parts[0..index] on the same machine as parts[index] (the same running
 * kernel: its boot id), as a rank; its own rank when none is, or nothing says. */
static int same_machine(const struct vp_host_part *parts, size_t index)
{
    const char *own = json_string_value(json_object_get(parts[index].fingerprint, "boot_id"));
    for (size_t i = 0; own && *own && i < index; i++) {
        const char *other = json_string_value(json_object_get(parts[i].fingerprint, "boot_id"));
        if (other && strcmp(other, own) == 0)
            return parts[i].rank;
    }
    return parts[index].rank;
}

static json_t *host_entry(const struct vp_bench *bench, const struct vp_host_part *part,
                          unsigned first_job, unsigned jobs)
{
    json_t *entry = json_pack("{s:i,s:s,s:i,s:i,s:f,s:f,s:O}", "rank", part->rank, "host",
                              host_name(part), "first_job", (int)first_job, "jobs", (int)jobs,
                              "clock_offset_s", (double)part->clock_offset_ns / 1e9,
                              "clock_bound_s", (double)part->offset_bound_ns / 1e9,
                              "fingerprint", part->fingerprint);
    for (size_t k = 0; k < sizeof kept_keys / sizeof kept_keys[0]; k++) {
        json_t *value = json_object_get(part->result, kept_keys[k]);
        if (value)
            json_object_set_new(entry, kept_keys[k], json_deep_copy(value));
    }
    /* and what the benchmark says of its own work there (what a data job read, which
     * vector unit ran): a host's, checked at import as in any result */
    for (const struct vp_result_part *const *own = bench->parts; own && *own; own++) {
        json_t *value = json_object_get(part->result, (*own)->key);
        if (value)
            json_object_set_new(entry, (*own)->key, json_deep_copy(value));
    }
    /* the combined result holds the merged distribution; one per host is too much */
    const char *name;
    json_t *metric;
    json_object_foreach(json_object_get(entry, "metrics"), name, metric)
        json_object_del(metric, "distribution");
    return entry;
}

/* The start skew's error bound: two hosts' instants are compared through the first
 * host's clock, each offset known within its bound, so the sum of the two largest
 * (none for one host: its jobs' instants are read on its own clock). */
static double skew_bound_s(const struct vp_host_part *parts, size_t count)
{
    if (count < 2)
        return 0;
    int64_t largest = 0, second = 0;
    for (size_t i = 0; i < count; i++) {
        int64_t bound = parts[i].offset_bound_ns;
        if (bound > largest) {
            second = largest;
            largest = bound;
        } else if (bound > second) {
            second = bound;
        }
    }
    return (double)(largest + second) / 1e9;
}

/* Every host's jobs in one region, on the reference clock (each part's offset is to it:
 * the first host's own under virtperf-mpi, the host's when it started the guests), summarised as one host's
 * jobs are. Returns 0, or -1 when the region cannot be made. */
static int merge_regions(const struct vp_bench *bench, const struct vp_params *params,
                         const struct vp_run_settings *settings, const struct vp_host_part *parts,
                         size_t count, const double *stonewall, const double *span,
                         json_t *result)
{
    const struct vp_shared *first = parts[0].shared;
    unsigned total_jobs = 0;
    for (size_t i = 0; i < count; i++)
        total_jobs += parts[i].shared->jobs;
    double duration = settings->duration > 0 ? settings->duration : bench->default_duration;
    struct vp_shared merged;
    size_t size = vp_shared_layout(&merged, bench, params, total_jobs, first->reps, duration);
    void *base = calloc(1, size);
    if (!base)
        return -1;
    vp_shared_attach(&merged, base);
    for (unsigned rep = 0; rep < first->reps; rep++) /* onto the reference clock, as the jobs */
        merged.start_at[rep] = first->start_at[rep] - parts[0].clock_offset_ns;
    unsigned job = 0;
    for (size_t i = 0; i < count; i++)
        for (unsigned j = 0; j < parts[i].shared->jobs; j++)
            vp_shared_copy_job(&merged, job++, parts[i].shared, j, -parts[i].clock_offset_ns);

    vp_result_add_measurements(result, bench, &merged, settings->warmup, stonewall, span);
    free(base);
    return 0;
}

json_t *vp_combine_hosts(const struct vp_bench *bench, const struct vp_params *params,
                         unsigned jobs, const struct vp_run_settings *settings,
                         const struct vp_host_part *parts, size_t count,
                         const double *stonewall, const double *span)
{
    json_t *result = vp_result_start(bench, params, jobs, settings);
    json_t *hosts = json_array();
    unsigned first_job = 0;
    const struct vp_host_part *failed = NULL, *interrupted = NULL, *missing = NULL;
    for (size_t i = 0; i < count; i++) {
        unsigned host_jobs = parts[i].shared ? parts[i].shared->jobs : jobs;
        json_t *entry = host_entry(bench, &parts[i], first_job, host_jobs);
        json_object_set_new(entry, "machine", json_integer(same_machine(parts, i)));
        json_array_append_new(hosts, entry);
        first_job += host_jobs;
        const char *status = json_string_value(json_object_get(parts[i].result, "status"));
        if (!status || strcmp(status, "interrupted") == 0)
            interrupted = interrupted ? interrupted : &parts[i];
        else if (strcmp(status, "ok") != 0)
            failed = failed ? failed : &parts[i];
        else if (!parts[i].shared)
            missing = missing ? missing : &parts[i];
        json_t *warnings = json_object_get(parts[i].result, "warnings");
        size_t w;
        json_t *warning;
        json_array_foreach(warnings, w, warning)
            vp_result_warn(result, "rank %d (%s): %s", parts[i].rank, host_name(&parts[i]),
                           json_string_value(warning));
    }
    json_t *ranks = json_pack("{s:i,s:o}", "count", (int)count, "hosts", hosts);
    json_object_set_new(result, "ranks", ranks);
    if (failed) {
        const char *error = json_string_value(json_object_get(failed->result, "error"));
        char reason[VP_ERROR_LEN + 128];
        snprintf(reason, sizeof reason, "rank %d (%s): %s", failed->rank, host_name(failed),
                 error ? error : "failed");
        return vp_result_finish(result, "failed", reason);
    }
    if (interrupted)
        return vp_result_finish(result, "interrupted", "interrupted by a signal");
    if (missing) {
        char reason[128];
        snprintf(reason, sizeof reason, "rank %d (%s): its jobs' figures did not arrive",
                 missing->rank, host_name(missing));
        return vp_result_finish(result, "failed", reason);
    }
    if (merge_regions(bench, params, settings, parts, count, stonewall, span, result) != 0)
        return vp_result_finish(result, "failed", "out of memory combining the hosts' results");
    json_object_set_new(ranks, "start_skew_bound_s", json_real(skew_bound_s(parts, count)));
    return vp_result_finish(result, "ok", NULL);
}
