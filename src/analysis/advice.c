/* Advisories from results (see advice.h): the ok results of each benchmark, in their
 * order, go to that benchmark's advise hook. */
#include "analysis/advice.h"

#include <string.h>

#include "bench/bench.h"
#include "core/json.h"

void vp_result_advisories(const json_t *results, json_t *advisories)
{
    for (size_t b = 0; b < vp_bench_count; b++) {
        const struct vp_bench *bench = vp_benches[b];
        if (!bench->advise)
            continue;
        json_t *own = json_array();
        size_t i;
        json_t *result;
        json_array_foreach(results, i, result) {
            if (strcmp(vp_json_text(result, "status"), "ok") == 0 &&
                strcmp(vp_json_text(result, "bench"), bench->name) == 0)
                json_array_append(own, result);
        }
        if (json_array_size(own) > 0)
            bench->advise(own, advisories);
        json_decref(own);
    }
}
