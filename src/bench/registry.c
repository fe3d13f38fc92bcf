/* The list of every benchmark virtperf knows; one line per benchmark. */
#include <string.h>

#include "bench/bench.h"

extern const struct vp_bench vp_bench_cpu;
extern const struct vp_bench vp_bench_mem_write;
extern const struct vp_bench vp_bench_mem_stream;
extern const struct vp_bench vp_bench_mem_latency;
extern const struct vp_bench vp_bench_disk_write, vp_bench_disk_rewrite, vp_bench_disk_read,
    vp_bench_disk_reread, vp_bench_disk_randread, vp_bench_disk_randwrite;
extern const struct vp_bench vp_bench_net_stream, vp_bench_net_rr, vp_bench_net_connect;
extern const struct vp_bench vp_bench_time_read, vp_bench_time_timer, vp_bench_time_ticks,
    vp_bench_time_drift;
extern const struct vp_bench vp_bench_vcost_syscall, vp_bench_vcost_cpuid,
    vp_bench_vcost_pagefault, vp_bench_vcost_fork, vp_bench_vcost_ctxswitch, vp_bench_vcost_tlb;

const struct vp_bench *const vp_benches[] = {
    &vp_bench_cpu,
    &vp_bench_mem_write,
    &vp_bench_mem_stream,
    &vp_bench_mem_latency,
    &vp_bench_disk_write,
    &vp_bench_disk_rewrite,
    &vp_bench_disk_read,
    &vp_bench_disk_reread,
    &vp_bench_disk_randread,
    &vp_bench_disk_randwrite,
    &vp_bench_net_stream,
    &vp_bench_net_rr,
    &vp_bench_net_connect,
    &vp_bench_time_read,
    &vp_bench_time_timer,
    &vp_bench_time_ticks,
    &vp_bench_time_drift,
    &vp_bench_vcost_syscall,
    &vp_bench_vcost_cpuid,
    &vp_bench_vcost_pagefault,
    &vp_bench_vcost_fork,
    &vp_bench_vcost_ctxswitch,
    &vp_bench_vcost_tlb,
};
const size_t vp_bench_count = sizeof vp_benches / sizeof vp_benches[0];

const struct vp_bench *vp_bench_find(const char *name)
{
    for (size_t i = 0; i < vp_bench_count; i++)
        if (strcmp(vp_benches[i]->name, name) == 0)
            return vp_benches[i];
    return NULL;
}
