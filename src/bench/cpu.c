/* cpu: a fixed, verified amount of integer and floating-point work per job.
 * One "op" is one iteration of a dependent chain of a xorshift64 step (integer shifts
 * and xors), a multiply-add on an integer and a floating-point multiply-add. Every job
 * compares its checksum with one computed by the parent before the jobs start, so the
 * work cannot be optimised away and a wrong result fails the run. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "core/clock.h"

#define CHUNK_OPS 1000000 /* granularity of --duration runs */

struct cpu_checksum {
    uint64_t integer;
    double floating;
};

static const struct vp_option cpu_options[] = {
    { "ops", VP_OPT_COUNT, "50m", 1000, 1e12, NULL,
      "iterations per job per repetition (ignored with --duration: runs 1m-op chunks)" },
};

static const struct vp_metric cpu_metrics[] = {
    { "score", "ops/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM, "iterations per second" },
};

/* Computed by the parent in setup for a full --ops run and for one --duration chunk.
 * The loop is seeded by the op count, a runtime value, so no compiler can fold it. */
static struct cpu_checksum reference_full, reference_chunk;

__attribute__((noinline)) static struct cpu_checksum cpu_work(uint64_t seed, uint64_t ops)
{
    uint64_t x = seed | 1;
    double y = 1.0;
    for (uint64_t i = 0; i < ops; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x = x * 0x9E3779B97F4A7C15ULL + i;
        y = y * 0.9999999 + (double)(x >> 44) * 1e-9;
    }
    return (struct cpu_checksum){ x, y };
}

static int cpu_setup(const struct vp_params *params, char *err, size_t err_len)
{
    (void)err;
    (void)err_len;
    uint64_t ops = vp_param_number(params, "ops");
    reference_full = cpu_work(ops, ops);
    reference_chunk = cpu_work(CHUNK_OPS, CHUNK_OPS);
    return 0;
}

static int checksum_matches(struct cpu_checksum got, struct cpu_checksum want)
{
    return got.integer == want.integer && memcmp(&got.floating, &want.floating,
                                                 sizeof got.floating) == 0;
}

static int cpu_measure(struct vp_job *job, double *values)
{
    uint64_t per_chunk = job->duration > 0 ? CHUNK_OPS : vp_param_number(job->params, "ops");
    struct cpu_checksum want = job->duration > 0 ? reference_chunk : reference_full;
    uint64_t done = 0;
    int64_t start = vp_now_ns(), deadline = start + (int64_t)(job->duration * 1e9);
    do {
        struct cpu_checksum got = cpu_work(per_chunk, per_chunk);
        if (!checksum_matches(got, want)) {
            snprintf(job->error, sizeof job->error,
                     "cpu: checksum mismatch after %llu ops (got %016llx, want %016llx)",
                     (unsigned long long)(done + per_chunk), (unsigned long long)got.integer,
                     (unsigned long long)want.integer);
            return -1;
        }
        done += per_chunk;
    } while (job->duration > 0 && vp_now_ns() < deadline);
    double elapsed = (double)(vp_now_ns() - start) / 1e9;
    values[0] = (double)done / elapsed;
    return 0;
}

const struct vp_bench vp_bench_cpu = {
    .name = "cpu",
    .summary = "verified integer + floating-point work per job (ops/s)",
    .description =
        "Each job runs --ops iterations of a dependent integer (xorshift64, multiply-add) and "
        "floating-point (multiply-add) chain and checks the checksum against the parent's. "
        "Timed: the loop and the check. With --duration, runs 1M-op chunks until the time "
        "is up. score is ops/s; the result's value is the sum over jobs.",
    .options = cpu_options,
    .option_count = sizeof cpu_options / sizeof cpu_options[0],
    .metrics = cpu_metrics,
    .metric_count = sizeof cpu_metrics / sizeof cpu_metrics[0],
    .uses_duration = true,
    .setup = cpu_setup,
    .measure = cpu_measure,
};
