/* mem.stream: STREAM's copy, scale, add and triad kernels on three arrays of doubles
 * per job, first-touched by the pinned job, each kernel timed alone, results checked
 * exactly after every repetition.
 *
 * The kernels are VP_KERNEL (vector_kernels.h): built for AVX-512F, AVX2 and the
 * baseline, the widest the CPU has chosen at run time (the result's "kernels" part names
 * it), never a call to memcpy. tests/system/test_stream_codegen.sh checks every clone.
 *
 * Placement: the three arrays are carved from one mapping, b starting ARRAY_GAP bytes
 * after the end of a and c as far after b, as STREAM's OFFSET pads its static arrays.
 * Three separate mmap calls start every array at the same offset modulo every power of
 * two up to the mapping's alignment, so a[j], b[j] and c[j] fall in the same cache set
 * and DRAM bank and evict one another: on an AMD EPYC guest that cost triad ~40%
 * (15 GB/s against 23-29 GB/s for the same loop on offset arrays). A gap of a page and
 * a cache line (4160 bytes) moves each array to other sets and banks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "bench/bench.h"
#include "bench/vector_kernels.h"
#include "core/clock.h"

#define SCALAR 3.0

static const struct vp_option stream_options[] = {
    { "size", VP_OPT_SIZE, "256m", 1048576, 68719476736.0, NULL,
      "bytes per array (three arrays per job); the default is fixed, never derived from "
      "the cache sizes a guest reports, and is 4x the largest common LLC" },
};

enum stream_metric {
    STREAM_COPY,
    STREAM_SCALE,
    STREAM_ADD,
    STREAM_TRIAD,
    STREAM_METRIC_COUNT
};

static const struct vp_metric stream_metrics[] = {
    [STREAM_COPY] = { "copy", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                      "c = a: 16 bytes moved per element" },
    [STREAM_SCALE] = { "scale", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                       "b = s*c: 16 bytes per element" },
    [STREAM_ADD] = { "add", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                     "c = a+b: 24 bytes per element" },
    [STREAM_TRIAD] = { "triad", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                       "a = b+s*c: 24 bytes per element" },
};
_Static_assert(sizeof stream_metrics / sizeof stream_metrics[0] == STREAM_METRIC_COUNT,
               "one metric per slot");

#define ARRAY_GAP (4096 + 64) /* bytes between the arrays: a page and a cache line */

struct stream_arrays {
    double *a, *b, *c;
    size_t n;
    size_t bytes;       /* per array */
    void *mapping;      /* all three, with the gaps */
    size_t mapping_bytes;
};

VP_KERNEL void stream_copy(double *restrict c, const double *restrict a, size_t n)
{
    for (size_t j = 0; j < n; j++)
        c[j] = a[j];
}

VP_KERNEL void stream_scale(double *restrict b, const double *restrict c, size_t n)
{
    for (size_t j = 0; j < n; j++)
        b[j] = SCALAR * c[j];
}

VP_KERNEL void stream_add(double *restrict c, const double *restrict a, const double *restrict b,
                       size_t n)
{
    for (size_t j = 0; j < n; j++)
        c[j] = a[j] + b[j];
}

VP_KERNEL void stream_triad(double *restrict a, const double *restrict b,
                         const double *restrict c, size_t n)
{
    for (size_t j = 0; j < n; j++)
        a[j] = b[j] + SCALAR * c[j];
}

/* a = 1, b = 2, c = 0: after one round c = 1, b = 3, c = 4, a = 15, all exact. */
static void reset_arrays(struct stream_arrays *arrays)
{
    for (size_t j = 0; j < arrays->n; j++) {
        arrays->a[j] = 1.0;
        arrays->b[j] = 2.0;
        arrays->c[j] = 0.0;
    }
}

/* Maps a, gap, b, gap, c in one region (see the placement note above). */
static int map_arrays(struct stream_arrays *arrays)
{
    size_t stride = arrays->bytes + ARRAY_GAP;
    arrays->mapping_bytes = 3 * stride;
    void *memory = mmap(NULL, arrays->mapping_bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
        return -1;
    arrays->mapping = memory;
    arrays->a = memory;
    arrays->b = (double *)((char *)memory + stride);
    arrays->c = (double *)((char *)memory + 2 * stride);
    return 0;
}

static void unmap_arrays(struct stream_arrays *arrays)
{
    if (arrays->mapping)
        munmap(arrays->mapping, arrays->mapping_bytes);
    free(arrays);
}

static int stream_prepare(struct vp_job *job)
{
    struct stream_arrays *arrays = calloc(1, sizeof *arrays);
    if (!arrays)
        abort();
    arrays->bytes = vp_param_number(job->params, "size");
    arrays->n = arrays->bytes / sizeof(double);
    if (map_arrays(arrays) != 0) {
        snprintf(job->error, sizeof job->error, "mem.stream: cannot map 3 x %zu bytes",
                 arrays->bytes);
        unmap_arrays(arrays);
        return -1;
    }
    reset_arrays(arrays); /* the first touch, by the pinned job */
    job->state = arrays;
    return 0;
}

static double seconds_since(int64_t start)
{
    return (double)(vp_now_ns() - start) / 1e9;
}

static int stream_measure(struct vp_job *job, double *values)
{
    struct stream_arrays *arrays = job->state;
    size_t n = arrays->n;
    double bytes = (double)n * sizeof(double);
    int64_t start = vp_now_ns();
    stream_copy(arrays->c, arrays->a, n);
    values[STREAM_COPY] = 2 * bytes / seconds_since(start);
    start = vp_now_ns();
    stream_scale(arrays->b, arrays->c, n);
    values[STREAM_SCALE] = 2 * bytes / seconds_since(start);
    start = vp_now_ns();
    stream_add(arrays->c, arrays->a, arrays->b, n);
    values[STREAM_ADD] = 3 * bytes / seconds_since(start);
    start = vp_now_ns();
    stream_triad(arrays->a, arrays->b, arrays->c, n);
    values[STREAM_TRIAD] = 3 * bytes / seconds_since(start);

    for (size_t j = 0; j < n; j++) {
        if (arrays->a[j] != 15.0 || arrays->b[j] != 3.0 || arrays->c[j] != 4.0) {
            snprintf(job->error, sizeof job->error,
                     "mem.stream: wrong result at element %zu (a=%g b=%g c=%g, want 15 3 4)", j,
                     arrays->a[j], arrays->b[j], arrays->c[j]);
            return -1;
        }
    }
    reset_arrays(arrays);
    return 0;
}

static void stream_release(struct vp_job *job)
{
    unmap_arrays(job->state);
}

static void stream_annotate(const struct vp_params *params, unsigned jobs, json_t *result)
{
    (void)params, (void)jobs;
    vp_kernels_annotate(result);
}

static const struct vp_result_part *const stream_parts[] = { &vp_kernels_part, NULL };

const struct vp_bench vp_bench_mem_stream = {
    .name = "mem.stream",
    .in_quick_suite = true,
    .summary = "STREAM copy/scale/add/triad bandwidth per job (B/s)",
    .description =
        "Three arrays of --size bytes per job, first-touched by the pinned job. Each "
        "repetition times copy, scale, add and triad separately (STREAM's byte counts, no "
        "write-allocate traffic counted), then checks every element exactly and resets the "
        "arrays untimed. Mean and max (best-of) over repetitions are both reported.",
    .options = stream_options,
    .option_count = sizeof stream_options / sizeof stream_options[0],
    .metrics = stream_metrics,
    .metric_count = STREAM_METRIC_COUNT,
    .prepare = stream_prepare,
    .measure = stream_measure,
    .release = stream_release,
    .annotate = stream_annotate,
    .parts = stream_parts,
};
