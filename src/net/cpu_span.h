/* The span a test result covers on the server: its CPU ticks (from /proc/stat) and its
 * elapsed time, for the server's half of a test's CPU cost. */
#ifndef VP_NET_CPU_SPAN_H
#define VP_NET_CPU_SPAN_H

#include <stdbool.h>
#include <stdint.h>

#include "net/protocol.h"
#include "net/wire.h" /* VP_CPU_FIELDS, vp_cpu_snapshot */

struct vp_cpu_span {
    int64_t from;
    uint64_t before[VP_CPU_FIELDS];
    bool cpu_read; /* /proc/stat was read at the start */
};

void vp_cpu_span_start(struct vp_cpu_span *span);
/* Sets result's elapsed time and CPU ticks over the span; all 0 (the client's "not
 * measured") when /proc/stat could not be read at either end. */
void vp_cpu_span_finish(const struct vp_cpu_span *span, struct vp_test_result *result);

#endif
