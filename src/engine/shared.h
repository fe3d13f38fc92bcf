/* The region the engine shares with its job processes: control counters, each
 * repetition's start instant, then per job a slot (state, CPU, error), its per-repetition
 * records, its latency histogram, its op log and its per-second byte counters. The engine
 * (engine.c) writes and waits on it; the result assembly (result.c) reads it. */
#ifndef VP_SHARED_H
#define VP_SHARED_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"

enum vp_job_state { JOB_STARTING, JOB_READY, JOB_FINISHED, JOB_FAILED };

#define VP_JOB_DETAIL_LEN 65536

/* One job's slot in the shared region; the per-repetition arrays follow it. */
struct vp_job_slot {
    atomic_int state;
    int cpu_planned;
    int cpu_seen;
    char affinity[64];
    char error[VP_ERROR_LEN];
    uint64_t op_bytes;   /* bytes per logged operation */
    uint64_t op_log_len; /* operations logged in the current repetition */
    char detail[VP_JOB_DETAIL_LEN]; /* the benchmark's JSON of the last repetition, or "" */
};

struct vp_rep_record {
    int64_t start_ns, end_ns;
    double values[VP_MAX_METRICS];
};

struct vp_control {
    atomic_int ready;    /* jobs prepared */
    atomic_int released; /* repetitions released */
    atomic_int started;  /* job-repetitions started */
    atomic_int finished; /* job-repetitions done */
    atomic_int stop;     /* Ctrl-C: benchmarks that end_on_interrupt end the repetition */
    atomic_int cut;      /* --reps auto: the repetitions there are (0: all of them) */
};

/* The shared region: control, start instants, then per job a slot, its records, its
 * latency histogram (benchmarks with a distribution) and its op log (with ops_per_rep). */
struct vp_shared {
    void *base;
    size_t size;
    unsigned jobs, reps; /* reps: the repetitions the region holds room for */
    unsigned ran;        /* the ones that ran: reps, unless --reps auto had enough sooner */
    size_t histogram_bytes, op_log_cap;
    size_t interval_count; /* per-second counters per repetition (0: none) */
    struct vp_control *control;
    int64_t *start_at;
};

/* Maps the region for jobs x reps of bench (duration: seconds per repetition, for the
 * per-second counters). Returns 0, or -1 when mmap fails. */
int vp_shared_map(struct vp_shared *shared, const struct vp_bench *bench,
                  const struct vp_params *params, unsigned jobs, unsigned reps, double duration);

/* Sets the layout of that region without mapping it and returns its size; then
 * vp_shared_attach gives it memory (a copy received from another host, say). */
size_t vp_shared_layout(struct vp_shared *shared, const struct vp_bench *bench,
                        const struct vp_params *params, unsigned jobs, unsigned reps,
                        double duration);
void vp_shared_attach(struct vp_shared *shared, void *base);
/* A region received from another host (len bytes) as view, when its size is the one
 * bench, params, jobs, reps and duration lay out: view, else NULL (the region is not it). */
const struct vp_shared *vp_shared_view(struct vp_shared *view, const struct vp_bench *bench,
                                       const struct vp_params *params, long long jobs,
                                       unsigned reps, double duration, void *region, size_t len);

/* Copies one job's slot, records, histogram, op log and counters from one region into
 * another of the same bench, params and reps, every instant moved by shift_ns (from one
 * host's clock to another's). */
void vp_shared_copy_job(const struct vp_shared *to, unsigned to_job, const struct vp_shared *from,
                        unsigned from_job, int64_t shift_ns);

struct vp_job_slot *vp_shared_slot(const struct vp_shared *shared, unsigned job);
struct vp_rep_record *vp_shared_record(const struct vp_shared *shared, unsigned job,
                                       unsigned rep);
/* NULL when the benchmark keeps no distribution / no op log / no per-second series. */
struct vp_histogram *vp_shared_histogram(const struct vp_shared *shared, unsigned job);
int64_t *vp_shared_op_log(const struct vp_shared *shared, unsigned job);
uint64_t *vp_shared_intervals(const struct vp_shared *shared, unsigned job, unsigned rep);

#endif
