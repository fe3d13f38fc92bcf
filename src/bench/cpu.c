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

#define CHUNK_OPS 1000000 /* work is done and checked in chunks of this many ops */

struct cpu_checksum {
    uint64_t integer;
    double floating;
};

static const struct vp_option cpu_options[] = {
    { "ops", VP_OPT_COUNT, "50m", 1e6, 1e12, NULL,
      "iterations per job per repetition, rounded up to whole 1m-op chunks "
      "(with --duration: chunks until the time is up)" },
};

enum cpu_metric { CPU_SCORE, CPU_METRIC_COUNT };

static const struct vp_metric cpu_metrics[] = {
    [CPU_SCORE] = { "score", "ops/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                    "iterations per second" },
};
_Static_assert(sizeof cpu_metrics / sizeof cpu_metrics[0] == CPU_METRIC_COUNT,
               "one metric per slot");

/* The chunk's seed is read through a volatile, so the compiler can neither fold the
 * work nor reuse one chunk's result for the next; the parent computes the reference
 * checksum once in setup. */
static volatile uint64_t chunk_seed = 0x2545F4914F6CDD1DULL;
static struct cpu_checksum reference;

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
    (void)params;
    (void)err;
    (void)err_len;
    reference = cpu_work(chunk_seed, CHUNK_OPS);
    return 0;
}

static int checksum_matches(struct cpu_checksum got, struct cpu_checksum want)
{
    return got.integer == want.integer && memcmp(&got.floating, &want.floating,
                                                 sizeof got.floating) == 0;
}

static int cpu_measure(struct vp_job *job, double *values)
{
    uint64_t chunks = (vp_param_number(job->params, "ops") + CHUNK_OPS - 1) / CHUNK_OPS;
    uint64_t done = 0;
    int64_t start = vp_now_ns(), deadline = start + (int64_t)(job->duration * 1e9);
    for (uint64_t chunk = 0;; chunk++) {
        if (job->duration > 0 ? vp_now_ns() >= deadline && chunk > 0 : chunk == chunks)
            break;
        struct cpu_checksum got = cpu_work(chunk_seed, CHUNK_OPS);
        if (!checksum_matches(got, reference)) {
            snprintf(job->error, sizeof job->error,
                     "cpu: checksum mismatch in chunk %llu (got %016llx, want %016llx)",
                     (unsigned long long)chunk, (unsigned long long)got.integer,
                     (unsigned long long)reference.integer);
            return -1;
        }
        done += CHUNK_OPS;
    }
    double elapsed = (double)(vp_now_ns() - start) / 1e9;
    values[CPU_SCORE] = (double)done / elapsed;
    return 0;
}

const struct vp_bench vp_bench_cpu = {
    .name = "cpu",
    .in_quick_suite = true,
    .summary = "verified integer + floating-point work per job (ops/s)",
    .description =
        "Each job runs --ops iterations, in 1M-op chunks, of a dependent integer "
        "(xorshift64, multiply-add) and floating-point (multiply-add) chain, and checks "
        "every chunk's checksum against the one the parent computed before the jobs "
        "started. Timed: the chunks and their checks. With --duration, runs chunks until "
        "the time is up. score is ops/s; the result's value is the sum over jobs.",
    .options = cpu_options,
    .option_count = sizeof cpu_options / sizeof cpu_options[0],
    .metrics = cpu_metrics,
    .metric_count = CPU_METRIC_COUNT,
    .uses_duration = true,
    .setup = cpu_setup,
    .measure = cpu_measure,
};
