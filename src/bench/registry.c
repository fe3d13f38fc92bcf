/* The table of every benchmark, made from list.h, and the names of the contract's enums. */
#include <string.h>

#include "bench/bench.h"
#include "bench/list.h"

#define VP_DECLARE_BENCH(file, name) extern const struct vp_bench vp_bench_##name;
VP_BENCHES(VP_DECLARE_BENCH)

#define VP_BENCH_ENTRY(file, name) &vp_bench_##name,
const struct vp_bench *const vp_benches[] = { VP_BENCHES(VP_BENCH_ENTRY) };
const size_t vp_bench_count = sizeof vp_benches / sizeof vp_benches[0];

const struct vp_bench *vp_bench_find(const char *name)
{
    for (size_t i = 0; i < vp_bench_count; i++)
        if (strcmp(vp_benches[i]->name, name) == 0)
            return vp_benches[i];
    return NULL;
}

enum vp_unit_style vp_bench_units(const char *name)
{
    const struct vp_bench *bench = name ? vp_bench_find(name) : NULL;
    return bench ? bench->units : VP_UNITS_FIELD;
}

const char *vp_better_name(enum vp_better better)
{
    return better == VP_HIGHER_IS_BETTER ? "higher" : better == VP_LOWER_IS_BETTER ? "lower" : "zero";
}

const char *vp_aggregate_name(enum vp_aggregate aggregate)
{
    return aggregate == VP_AGG_SUM ? "sum" : aggregate == VP_AGG_MAX ? "max" : "mean";
}
