/* The checks of a region received from another host (see shared_check.h). */
#include "engine/shared_check.h"

#include "core/clock.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/histogram.h"
#include "core/limits.h"

#define MOST_CPUS 65536          /* a CPU number any host has */
#define MOST_OP_BYTES (1ull << 40) /* bytes one logged operation moves */

static bool ends_within(const char *text, size_t size)
{
    return memchr(text, '\0', size) != NULL;
}

static bool instant_ok(int64_t instant, int64_t earliest, int64_t latest)
{
    return instant == 0 || (instant >= earliest && instant <= latest);
}

static int slot_check(const struct vp_job_slot *slot, unsigned job, char *why, size_t why_len)
{
    const char *field = NULL;
    int state = atomic_load(&slot->state);
    if (state < JOB_STARTING || state > JOB_FAILED)
        field = "state is none a job has";
    else if (slot->cpu_planned < -1 || slot->cpu_planned >= MOST_CPUS ||
             slot->cpu_seen < -1 || slot->cpu_seen >= MOST_CPUS)
        field = "CPU is none a host has";
    else if (!ends_within(slot->affinity, sizeof slot->affinity))
        field = "affinity does not end within its 64 bytes";
    else if (!ends_within(slot->error, sizeof slot->error))
        field = "error does not end within its bytes";
    else if (!ends_within(slot->detail, sizeof slot->detail))
        field = "detail does not end within its bytes";
    else if (slot->op_bytes > MOST_OP_BYTES)
        field = "bytes per operation are past 1 TiB";
    if (!field)
        return 0;
    snprintf(why, why_len, "job %u's %s", job + 1, field);
    return -1;
}

static int histogram_check(const struct vp_histogram *histogram, unsigned job, char *why,
                           size_t why_len)
{
    uint64_t total = 0;
    for (size_t b = 0; b < VP_HISTOGRAM_BUCKETS; b++) {
        if (histogram->buckets[b] > UINT64_MAX - total) {
            total = UINT64_MAX;
            break;
        }
        total += histogram->buckets[b];
    }
    if (total == histogram->count &&
        (histogram->count == 0 || histogram->min_ns <= histogram->max_ns) &&
        isfinite(histogram->sum_ns) && isfinite(histogram->sum_squares_ns))
        return 0;
    snprintf(why, why_len, "job %u's latency histogram does not add up (count %llu, "
             "buckets %llu)", job + 1, (unsigned long long)histogram->count,
             (unsigned long long)total);
    return -1;
}

static int records_check(const struct vp_shared *view, unsigned job, int64_t earliest,
                         int64_t latest, char *why, size_t why_len)
{
    for (unsigned rep = 0; rep < view->reps; rep++) {
        const struct vp_rep_record *record = vp_shared_record(view, job, rep);
        bool values_ok = true;
        for (size_t m = 0; m < VP_MAX_METRICS; m++)
            values_ok = values_ok && !isinf(record->values[m]);
        if (!instant_ok(record->start_ns, earliest, latest) ||
            !instant_ok(record->end_ns, earliest, latest) ||
            (record->start_ns && record->end_ns && record->end_ns < record->start_ns) ||
            !values_ok) {
            snprintf(why, why_len, "job %u's repetition %u holds %s", job + 1, rep + 1,
                     values_ok ? "an instant outside the point" : "an infinite figure");
            return -1;
        }
    }
    const int64_t *log = vp_shared_op_log(view, job);
    uint64_t logged = vp_shared_slot(view, job)->op_log_len;
    for (uint64_t i = 0; log && i < logged && i < view->op_log_cap; i++)
        if (!instant_ok(log[i], earliest, latest)) {
            snprintf(why, why_len, "job %u's operation %llu ended outside the point", job + 1,
                     (unsigned long long)i + 1);
            return -1;
        }
    return 0;
}

int vp_shared_check(const struct vp_shared *view, int64_t earliest_ns, int64_t latest_ns,
                    char *why, size_t why_len)
{
    for (unsigned rep = 0; rep < view->reps; rep++)
        if (!instant_ok(view->start_at[rep], earliest_ns, latest_ns)) {
            snprintf(why, why_len, "repetition %u starts outside the point", rep + 1);
            return -1;
        }
    for (unsigned job = 0; job < view->jobs; job++) {
        const struct vp_histogram *histogram = vp_shared_histogram(view, job);
        if (slot_check(vp_shared_slot(view, job), job, why, why_len) != 0 ||
            (histogram && histogram_check(histogram, job, why, why_len) != 0) ||
            records_check(view, job, earliest_ns, latest_ns, why, why_len) != 0)
            return -1;
    }
    return 0;
}

size_t vp_shared_most(const struct vp_plan_point *point, unsigned jobs, double duration)
{
    struct vp_shared layout;
    jobs = point->bench->one_job_per_cpu ? VP_MAX_JOBS : jobs ? jobs : point->jobs;
    return vp_shared_layout(&layout, point->bench, &point->params, jobs,
                            point->warmup + point->reps, duration);
}

bool vp_shared_take(const char *name, const struct vp_plan_point *point, double duration,
                    int64_t began_ns, struct vp_host_part *part, struct vp_shared *view,
                    void *region, size_t len)
{
    json_int_t jobs = json_integer_value(json_object_get(part->result, "jobs"));
    part->shared = vp_shared_view(view, point->bench, &point->params, jobs,
                                  point->warmup + point->reps, duration, region, len);
    if (!part->shared)
        return false;
    int64_t slack = 1000000000LL + 2 * part->offset_bound_ns;
    char why[256];
    if (vp_shared_check(view, began_ns + part->clock_offset_ns - slack,
                        vp_now_ns() + part->clock_offset_ns + slack, why, sizeof why) == 0)
        return true;
    json_decref(part->result);
    char error[400];
    snprintf(error, sizeof error, "%s sent a region that is not its jobs': %s", name, why);
    part->result = json_pack("{s:s,s:s}", "status", "failed", "error", error);
    part->shared = NULL;
    return false;
}
