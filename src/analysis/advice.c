/* Advisories from results (see advice.h): the ok results of each benchmark, in their
 * order, go to that benchmark's advise hook. */
#include "analysis/advice.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "core/json.h"
#include "core/sysinfo.h"

/* Whether advisories holds line already. */
static bool listed(const json_t *advisories, const char *line)
{
    size_t i;
    const json_t *item;
    json_array_foreach(advisories, i, item)
        if (strcmp(json_string_value(item), line) == 0)
            return true;
    return false;
}

/* The fingerprint advisories of the members (ranks.hosts) results ran in, "NAME: ...". */
static void member_advisories(const json_t *results, json_t *advisories)
{
    size_t i, h;
    const json_t *result, *host;
    json_array_foreach(results, i, result) {
        json_array_foreach(json_object_get(json_object_get(result, "ranks"), "hosts"), h, host) {
            const json_t *fingerprint = json_object_get(host, "fingerprint");
            json_t *own = vp_sysinfo_advisories(fingerprint);
            size_t a;
            const json_t *line;
            json_array_foreach(own, a, line) {
                char named[700];
                snprintf(named, sizeof named, "%.120s: %s", vp_json_text(fingerprint, "hostname"),
                         json_string_value(line));
                if (!listed(advisories, named))
                    json_array_append_new(advisories, json_string(named));
            }
            json_decref(own);
        }
    }
}

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
    member_advisories(results, advisories);
}
