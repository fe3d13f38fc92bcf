/* Log-linear histogram: bucketing, merge, percentiles, JSON form. */
#include "core/histogram.h"

#include <math.h>
#include <string.h>

void vp_histogram_reset(struct vp_histogram *histogram)
{
    memset(histogram, 0, sizeof *histogram);
    histogram->min_ns = UINT64_MAX;
}

size_t vp_histogram_bucket_of(uint64_t value_ns)
{
    if (value_ns < VP_HISTOGRAM_SUB_BUCKETS)
        return (size_t)value_ns;
    unsigned exponent = 63u - (unsigned)__builtin_clzll(value_ns);
    unsigned shift = exponent - VP_HISTOGRAM_SUB_BITS;
    size_t sub = (size_t)(value_ns >> shift) & (VP_HISTOGRAM_SUB_BUCKETS - 1);
    return (size_t)(shift + 1) * VP_HISTOGRAM_SUB_BUCKETS + sub;
}

uint64_t vp_histogram_bucket_low(size_t bucket)
{
    if (bucket < VP_HISTOGRAM_SUB_BUCKETS)
        return bucket;
    unsigned shift = (unsigned)(bucket / VP_HISTOGRAM_SUB_BUCKETS) - 1;
    uint64_t sub = bucket % VP_HISTOGRAM_SUB_BUCKETS;
    return (VP_HISTOGRAM_SUB_BUCKETS + sub) << shift;
}

uint64_t vp_histogram_bucket_high(size_t bucket)
{
    if (bucket < VP_HISTOGRAM_SUB_BUCKETS)
        return bucket;
    unsigned shift = (unsigned)(bucket / VP_HISTOGRAM_SUB_BUCKETS) - 1;
    return vp_histogram_bucket_low(bucket) + ((1ULL << shift) - 1);
}

void vp_histogram_record(struct vp_histogram *histogram, uint64_t value_ns)
{
    histogram->buckets[vp_histogram_bucket_of(value_ns)]++;
    histogram->count++;
    if (value_ns < histogram->min_ns)
        histogram->min_ns = value_ns;
    if (value_ns > histogram->max_ns)
        histogram->max_ns = value_ns;
    histogram->sum_ns += (double)value_ns;
    histogram->sum_squares_ns += (double)value_ns * (double)value_ns;
}

void vp_histogram_merge(struct vp_histogram *into, const struct vp_histogram *from)
{
    if (from->count == 0)
        return;
    for (size_t i = 0; i < VP_HISTOGRAM_BUCKETS; i++)
        into->buckets[i] += from->buckets[i];
    into->count += from->count;
    if (from->min_ns < into->min_ns)
        into->min_ns = from->min_ns;
    if (from->max_ns > into->max_ns)
        into->max_ns = from->max_ns;
    into->sum_ns += from->sum_ns;
    into->sum_squares_ns += from->sum_squares_ns;
}

uint64_t vp_histogram_percentile(const struct vp_histogram *histogram, double pct)
{
    if (histogram->count == 0)
        return 0;
    uint64_t rank = (uint64_t)ceil(pct / 100.0 * (double)histogram->count);
    if (rank <= 1)
        return histogram->min_ns; /* the extremes are known exactly */
    if (rank >= histogram->count)
        return histogram->max_ns;
    uint64_t seen = 0;
    for (size_t i = 0; i < VP_HISTOGRAM_BUCKETS; i++) {
        seen += histogram->buckets[i];
        if (seen < rank)
            continue;
        uint64_t low = vp_histogram_bucket_low(i), high = vp_histogram_bucket_high(i);
        uint64_t middle = low + (high - low) / 2;
        if (middle < histogram->min_ns)
            middle = histogram->min_ns;
        if (middle > histogram->max_ns)
            middle = histogram->max_ns;
        return middle;
    }
    return histogram->max_ns;
}

static double stddev_ns(const struct vp_histogram *histogram)
{
    if (histogram->count < 2)
        return 0;
    double n = (double)histogram->count;
    double variance = (histogram->sum_squares_ns - histogram->sum_ns * histogram->sum_ns / n) /
                      (n - 1);
    return variance > 0 ? sqrt(variance) : 0;
}

json_t *vp_histogram_json(const struct vp_histogram *histogram)
{
    static const struct { const char *key; double pct; } percentiles[] = {
        { "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p99.9", 99.9 }, { "p99.99", 99.99 },
    };
    int empty = histogram->count == 0;
    json_t *object = json_pack("{s:s,s:I,s:f,s:f,s:f,s:f,s:i}", "unit", "s", "count",
                               (json_int_t)histogram->count,
                               "min", empty ? 0.0 : (double)histogram->min_ns / 1e9,
                               "max", (double)histogram->max_ns / 1e9,
                               "mean", empty ? 0.0 : histogram->sum_ns / (double)histogram->count / 1e9,
                               "stddev", stddev_ns(histogram) / 1e9,
                               "sub_bucket_bits", VP_HISTOGRAM_SUB_BITS);
    for (size_t i = 0; i < sizeof percentiles / sizeof percentiles[0]; i++)
        json_object_set_new(object, percentiles[i].key,
                            json_real((double)vp_histogram_percentile(histogram,
                                                                      percentiles[i].pct) / 1e9));
    json_t *buckets = json_array();
    for (size_t i = 0; i < VP_HISTOGRAM_BUCKETS; i++)
        if (histogram->buckets[i])
            json_array_append_new(buckets, json_pack("[I,I]", (json_int_t)i,
                                                     (json_int_t)histogram->buckets[i]));
    json_object_set_new(object, "buckets", buckets);
    return object;
}

void vp_histogram_from_json(const json_t *object, struct vp_histogram *histogram)
{
    vp_histogram_reset(histogram);
    size_t i;
    const json_t *pair;
    json_array_foreach(json_object_get(object, "buckets"), i, pair) {
        size_t bucket = (size_t)json_integer_value(json_array_get(pair, 0));
        if (bucket < VP_HISTOGRAM_BUCKETS)
            histogram->buckets[bucket] = (uint64_t)json_integer_value(json_array_get(pair, 1));
    }
    histogram->count = (uint64_t)json_integer_value(json_object_get(object, "count"));
    if (histogram->count == 0)
        return;
    double n = (double)histogram->count;
    double mean = json_number_value(json_object_get(object, "mean")) * 1e9;
    double stddev = json_number_value(json_object_get(object, "stddev")) * 1e9;
    histogram->min_ns = (uint64_t)llround(json_number_value(json_object_get(object, "min")) * 1e9);
    histogram->max_ns = (uint64_t)llround(json_number_value(json_object_get(object, "max")) * 1e9);
    histogram->sum_ns = mean * n;
    histogram->sum_squares_ns = stddev * stddev * (n - 1) + histogram->sum_ns * mean;
}
