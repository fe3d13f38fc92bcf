/* Layout of the engine's shared region (see shared.h). */
#include "engine/shared.h"

#include <math.h>
#include <string.h>
#include <sys/mman.h>

#include "core/limits.h"

/* Every part starts on its own cache line: aligned for its types, and one job's writes
 * never share a line with another job's. */
static size_t cache_lines(size_t bytes)
{
    return (bytes + 63) & ~(size_t)63;
}

static size_t slot_bytes(void)
{
    return cache_lines(sizeof(struct vp_job_slot));
}

static size_t records_bytes(const struct vp_shared *shared)
{
    return cache_lines((size_t)shared->reps * sizeof(struct vp_rep_record));
}

static size_t intervals_bytes(const struct vp_shared *shared)
{
    return cache_lines(shared->interval_count * shared->reps * sizeof(uint64_t));
}

static size_t job_stride(const struct vp_shared *shared)
{
    return slot_bytes() + records_bytes(shared) + shared->histogram_bytes +
           cache_lines(shared->op_log_cap * sizeof(int64_t)) + intervals_bytes(shared);
}

static size_t jobs_offset(const struct vp_shared *shared)
{
    return cache_lines(sizeof(struct vp_control)) + cache_lines(shared->reps * sizeof(int64_t));
}

struct vp_job_slot *vp_shared_slot(const struct vp_shared *shared, unsigned job)
{
    char *jobs_base = (char *)shared->base + jobs_offset(shared);
    return (struct vp_job_slot *)(jobs_base + job * job_stride(shared));
}

struct vp_rep_record *vp_shared_record(const struct vp_shared *shared, unsigned job,
                                       unsigned rep)
{
    char *records = (char *)vp_shared_slot(shared, job) + slot_bytes();
    return (struct vp_rep_record *)records + rep;
}

struct vp_histogram *vp_shared_histogram(const struct vp_shared *shared, unsigned job)
{
    if (!shared->histogram_bytes)
        return NULL;
    return (struct vp_histogram *)((char *)vp_shared_slot(shared, job) + slot_bytes() +
                                   records_bytes(shared));
}

int64_t *vp_shared_op_log(const struct vp_shared *shared, unsigned job)
{
    if (!shared->op_log_cap)
        return NULL;
    return (int64_t *)((char *)vp_shared_slot(shared, job) + slot_bytes() + records_bytes(shared) +
                       shared->histogram_bytes);
}

/* The per-second counters of one job's repetition. */
uint64_t *vp_shared_intervals(const struct vp_shared *shared, unsigned job, unsigned rep)
{
    if (!shared->interval_count)
        return NULL;
    char *base = (char *)vp_shared_slot(shared, job) + slot_bytes() + records_bytes(shared) +
                 shared->histogram_bytes + cache_lines(shared->op_log_cap * sizeof(int64_t));
    return (uint64_t *)base + (size_t)rep * shared->interval_count;
}

size_t vp_shared_layout(struct vp_shared *shared, const struct vp_bench *bench,
                        const struct vp_params *params, unsigned jobs, unsigned reps,
                        double duration)
{
    shared->jobs = jobs;
    shared->reps = reps;
    shared->ran = reps;
    shared->histogram_bytes =
        bench->distribution_metric ? cache_lines(sizeof(struct vp_histogram)) : 0;
    shared->op_log_cap = bench->ops_per_rep ? bench->ops_per_rep(params, duration) : 0;
    /* The repetition's seconds plus room for warm-up options (at most a minute). */
    shared->interval_count = bench->interval_series ? (size_t)ceil(duration) + 62 : 0;
    shared->size = jobs_offset(shared) + jobs * job_stride(shared);
    shared->base = NULL;
    return shared->size;
}

void vp_shared_attach(struct vp_shared *shared, void *base)
{
    shared->base = base;
    shared->control = base;
    shared->start_at = (int64_t *)((char *)base + cache_lines(sizeof(struct vp_control)));
}

int vp_shared_map(struct vp_shared *shared, const struct vp_bench *bench,
                  const struct vp_params *params, unsigned jobs, unsigned reps, double duration)
{
    vp_shared_layout(shared, bench, params, jobs, reps, duration);
    void *base = mmap(NULL, shared->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                      -1, 0);
    if (base == MAP_FAILED)
        return -1;
    vp_shared_attach(shared, base);
    return 0;
}

void vp_shared_copy_job(const struct vp_shared *to, unsigned to_job, const struct vp_shared *from,
                        unsigned from_job, int64_t shift_ns)
{
    memcpy(vp_shared_slot(to, to_job), vp_shared_slot(from, from_job), job_stride(from));
    for (unsigned rep = 0; rep < to->reps; rep++) {
        struct vp_rep_record *record = vp_shared_record(to, to_job, rep);
        record->start_ns += shift_ns;
        record->end_ns += shift_ns;
    }
    int64_t *log = vp_shared_op_log(to, to_job);
    uint64_t logged = vp_shared_slot(to, to_job)->op_log_len;
    for (uint64_t i = 0; log && i < logged && i < to->op_log_cap; i++)
        log[i] += shift_ns;
}

const struct vp_shared *vp_shared_view(struct vp_shared *view, const struct vp_bench *bench,
                                       const struct vp_params *params, long long jobs,
                                       unsigned reps, double duration, void *region, size_t len)
{
    if (!region || len == 0 || jobs <= 0 || jobs > VP_MAX_JOBS ||
        vp_shared_layout(view, bench, params, (unsigned)jobs, reps, duration) != len)
        return NULL;
    vp_shared_attach(view, region);
    return view;
}
