/* mem.latency: dependent loads over a random cyclic permutation of 64-byte lines
 * (Sattolo's algorithm), one result per working-set size. Each load's address comes
 * from the previous load, so the time per step is the load-to-use latency, including
 * TLB misses at sizes beyond the TLB's reach, as a random chase incurs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "bench/bench.h"
#include "core/clock.h"
#include "core/random.h"

#define LINE 64

static const struct vp_option latency_options[] = {
    { "sizes", VP_OPT_SIZE_LIST, "16k,256k,4m,64m", 4096, 17179869184.0, NULL,
      "working-set sizes, one result each (16k to 1g and beyond)" },
    { "accesses", VP_OPT_COUNT, "4m", 1000, 1e11, NULL,
      "dependent loads per repetition, rounded up to whole laps of the cycle" },
};

enum latency_metric { LATENCY_PER_LOAD, LATENCY_METRIC_COUNT };

static const struct vp_metric latency_metrics[] = {
    [LATENCY_PER_LOAD] = { "latency", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                          "seconds per dependent load" },
};
_Static_assert(sizeof latency_metrics / sizeof latency_metrics[0] == LATENCY_METRIC_COUNT,
               "one metric per slot");

struct chase {
    unsigned char *lines;
    size_t count; /* lines in the cycle */
    size_t bytes;
};

/* Links line i to line order[i+1] for a random single cycle over all lines. */
static void link_random_cycle(struct chase *chase, uint64_t seed)
{
    size_t *order = malloc(chase->count * sizeof *order);
    if (!order)
        abort();
    for (size_t i = 0; i < chase->count; i++)
        order[i] = i;
    uint64_t state = seed | 1;
    for (size_t i = chase->count - 1; i > 0; i--) { /* Sattolo: j < i gives one cycle */
        size_t j = (size_t)(vp_xorshift64(&state) % i);
        size_t swap = order[i];
        order[i] = order[j];
        order[j] = swap;
    }
    for (size_t i = 0; i < chase->count; i++) {
        unsigned char *from = chase->lines + order[i] * LINE;
        unsigned char *to = chase->lines + order[(i + 1) % chase->count] * LINE;
        *(void **)from = to;
    }
    free(order);
}

__attribute__((noinline)) static void *follow(void *start, uint64_t steps)
{
    void **cursor = start;
    for (uint64_t i = 0; i < steps; i++)
        cursor = *cursor;
    return cursor;
}

/* The chain must return to its start after exactly count steps and not before. */
static int cycle_is_whole(const struct chase *chase)
{
    void **cursor = (void **)chase->lines;
    for (size_t step = 1; step <= chase->count; step++) {
        cursor = *cursor;
        if ((unsigned char *)cursor == chase->lines)
            return step == chase->count;
    }
    return 0;
}

static int latency_prepare(struct vp_job *job)
{
    struct chase *chase = calloc(1, sizeof *chase);
    if (!chase)
        abort();
    chase->bytes = vp_param_number(job->params, "sizes");
    chase->count = chase->bytes / LINE;
    chase->lines = mmap(NULL, chase->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    if (chase->lines == MAP_FAILED) {
        snprintf(job->error, sizeof job->error, "mem.latency: cannot map %zu bytes",
                 chase->bytes);
        free(chase);
        return -1;
    }
    link_random_cycle(chase, 0x9E3779B97F4A7C15ULL + job->index);
    job->state = chase;
    if (!cycle_is_whole(chase)) {
        snprintf(job->error, sizeof job->error, "mem.latency: permutation is not one cycle");
        return -1;
    }
    return 0;
}

static int latency_measure(struct vp_job *job, double *values)
{
    struct chase *chase = job->state;
    uint64_t wanted = vp_param_number(job->params, "accesses");
    uint64_t laps = (wanted + chase->count - 1) / chase->count;
    uint64_t steps = laps * chase->count;
    int64_t start = vp_now_ns();
    void *end = follow(chase->lines, steps);
    int64_t elapsed = vp_now_ns() - start;
    if (end != chase->lines) {
        snprintf(job->error, sizeof job->error,
                 "mem.latency: chase ended off its start after %llu steps",
                 (unsigned long long)steps);
        return -1;
    }
    values[LATENCY_PER_LOAD] = (double)elapsed / 1e9 / (double)steps;
    return 0;
}

static void latency_release(struct vp_job *job)
{
    struct chase *chase = job->state;
    munmap(chase->lines, chase->bytes);
    free(chase);
}

const struct vp_bench vp_bench_mem_latency = {
    .name = "mem.latency",
    .in_quick_suite = true,
    .summary = "dependent-load latency over a random cycle, per working-set size (s)",
    .description =
        "Each job links 64-byte lines of a --sizes buffer into one random cycle "
        "(Sattolo), first-touched and verified in the pinned job, then times whole laps of "
        "dependent loads. latency is seconds per load; the chase must end where it began.",
    .options = latency_options,
    .option_count = sizeof latency_options / sizeof latency_options[0],
    .metrics = latency_metrics,
    .metric_count = LATENCY_METRIC_COUNT,
    .sweep_option = "sizes",
    .sweep_param = "size",
    .prepare = latency_prepare,
    .measure = latency_measure,
    .release = latency_release,
};
