/* Every benchmark virtperf knows, one line each, in the order `virtperf list` shows them:
 * X(FILE, NAME) says that src/bench/FILE.c defines `const struct vp_bench vp_bench_NAME`.
 * registry.c turns this list into the declarations and the table, and meson.build reads
 * it to compile each FILE.c, so adding a benchmark is its file and one line here. */
#ifndef VP_BENCH_LIST_H
#define VP_BENCH_LIST_H

#define VP_BENCHES(X)                \
    X(cpu, cpu)                      \
    X(mem_write, mem_write)          \
    X(mem_stream, mem_stream)        \
    X(mem_latency, mem_latency)      \
    X(disk, disk_write)              \
    X(disk, disk_rewrite)            \
    X(disk, disk_read)               \
    X(disk, disk_reread)             \
    X(disk, disk_randread)           \
    X(disk, disk_randwrite)          \
    X(data, data_copy)               \
    X(data, data_read)               \
    X(net_stream, net_stream)        \
    X(net_rr, net_rr)                \
    X(net_connect, net_connect)      \
    X(net_probe, net_probe)          \
    X(timing, time_read)             \
    X(timing, time_timer)            \
    X(ticks, time_ticks)             \
    X(drift, time_drift)             \
    X(vcost, vcost_syscall)          \
    X(vcost, vcost_cpuid)            \
    X(vcost, vcost_pagefault)        \
    X(vcost, vcost_fork)             \
    X(vcost, vcost_ctxswitch)        \
    X(vcost, vcost_tlb)              \
    X(app, app)                      \
    X(null, null)

#endif
