/* Each host of a result against the others (see hosts.h). */
#include "analysis/hosts.h"

#include <math.h>
#include <stdlib.h>

#include "core/json.h"
#include "core/stats.h"

static double host_mean(const json_t *hosts, size_t index, const char *metric)
{
    const json_t *metrics = json_object_get(json_array_get(hosts, index), "metrics");
    return vp_json_number(json_object_get(metrics, metric), "mean");
}

double vp_host_versus_others(const json_t *hosts, size_t index, const char *metric)
{
    size_t count = json_array_size(hosts), n = 0;
    double own = host_mean(hosts, index, metric);
    double *others = calloc(count ? count : 1, sizeof *others);
    if (!others)
        abort();
    for (size_t i = 0; i < count; i++) {
        double value = host_mean(hosts, i, metric);
        if (i != index && isfinite(value))
            others[n++] = value;
    }
    double median = n ? vp_percentile(others, n, 50) : NAN;
    free(others);
    return isfinite(own) && isfinite(median) && median != 0 ? own / median - 1 : NAN;
}
