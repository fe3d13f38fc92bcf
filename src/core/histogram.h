/* Log-linear latency histogram: values in nanoseconds fall into buckets whose width is
 * 1/64 of their power of two (under 1.6% relative error). Histograms from jobs,
 * repetitions and hosts merge exactly by adding bucket counts; percentiles are read
 * from the merged counts, never averaged. Fixed size, so it can live in shared memory. */
#ifndef VP_HISTOGRAM_H
#define VP_HISTOGRAM_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define VP_HISTOGRAM_SUB_BITS 6
#define VP_HISTOGRAM_SUB_BUCKETS (1u << VP_HISTOGRAM_SUB_BITS)
#define VP_HISTOGRAM_BUCKETS ((64 - VP_HISTOGRAM_SUB_BITS + 1) * VP_HISTOGRAM_SUB_BUCKETS)

struct vp_histogram {
    uint64_t count;
    uint64_t min_ns, max_ns;
    double sum_ns, sum_squares_ns;
    uint64_t buckets[VP_HISTOGRAM_BUCKETS];
};

void vp_histogram_reset(struct vp_histogram *histogram);
void vp_histogram_record(struct vp_histogram *histogram, uint64_t value_ns);
/* into += from. */
void vp_histogram_merge(struct vp_histogram *into, const struct vp_histogram *from);

/* Bucket of a value, and the lowest and highest value a bucket holds. */
size_t vp_histogram_bucket_of(uint64_t value_ns);
uint64_t vp_histogram_bucket_low(size_t bucket);
uint64_t vp_histogram_bucket_high(size_t bucket);

/* The value at percentile pct (0..100) by nearest rank: the midpoint of the bucket
 * holding that rank, clamped to the exact min and max; the first and last ranks are the
 * exact min and max. 0 when empty. */
uint64_t vp_histogram_percentile(const struct vp_histogram *histogram, double pct);

/* {"unit": "s", "count", "min", "max", "mean", "stddev", "p50", "p90", "p99",
 *  "p99.9", "p99.99", "sub_bucket_bits", "buckets": [[index, count], ...]} in seconds. */
json_t *vp_histogram_json(const struct vp_histogram *histogram);

/* Rebuilds a histogram from the "buckets", "count", "min", "max", "mean", "stddev"
 * of vp_histogram_json's output (already validated). */
void vp_histogram_from_json(const json_t *object, struct vp_histogram *histogram);

#endif
