/* The CPU time and elapsed time a test's server side spends (cpu_span.h). */
#include "net/cpu_span.h"

#include "core/clock.h"

void vp_cpu_span_start(struct vp_cpu_span *span)
{
    span->from = vp_now_ns();
    span->cpu_read = vp_cpu_snapshot(span->before) == 0;
}

void vp_cpu_span_finish(const struct vp_cpu_span *span, struct vp_test_result *result)
{
    uint64_t after[VP_CPU_FIELDS];
    bool cpu_read = span->from && span->cpu_read && vp_cpu_snapshot(after) == 0;
    result->elapsed_ns = span->from ? (uint64_t)(vp_now_ns() - span->from) : 0;
    for (int i = 0; i < VP_CPU_FIELDS; i++)
        result->cpu_ticks[i] = cpu_read && after[i] >= span->before[i] ? after[i] - span->before[i] : 0;
}
