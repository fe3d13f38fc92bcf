/* Probe datagrams, the server's report and the gap tracker (see probe.h). */
#include "net/probe.h"

#include <string.h>

#include "net/bytes.h"

void vp_probe_encode(const struct vp_probe *probe, uint8_t out[VP_PROBE_MIN_BYTES])
{
    memset(out, 0, VP_PROBE_MIN_BYTES);
    vp_put64(out, probe->sequence);
    vp_put64(out + 8, (uint64_t)probe->sent_ns);
    out[16] = probe->kind;
}

int vp_probe_decode(const uint8_t *in, size_t len, struct vp_probe *out)
{
    if (len < VP_PROBE_MIN_BYTES || in[16] < VP_PROBE_FROM_CLIENT || in[16] > VP_PROBE_FROM_SERVER)
        return -1;
    out->sequence = vp_get64(in);
    out->sent_ns = (int64_t)vp_get64(in + 8);
    out->kind = in[16];
    return 0;
}

void vp_gaps_start(struct vp_gaps *gaps, int64_t threshold_ns, int64_t now_ns,
                   int64_t real_offset_ns)
{
    memset(gaps, 0, sizeof *gaps);
    gaps->threshold_ns = threshold_ns;
    gaps->real_offset_ns = real_offset_ns;
    gaps->last_ns = now_ns;
}

static void silence(struct vp_gaps *gaps, int64_t until_ns)
{
    int64_t length = until_ns - gaps->last_ns;
    if (length > gaps->longest_ns)
        gaps->longest_ns = length;
    if (length > gaps->longest_outage_ns)
        gaps->longest_outage_ns = length;
    if (length <= gaps->threshold_ns)
        return;
    if (gaps->count == 0 || gaps->last_ns - gaps->outage_end_ns > gaps->threshold_ns)
        gaps->outage_start_ns = gaps->last_ns; /* answers for a while since: a new outage */
    gaps->outage_end_ns = until_ns;
    if (until_ns - gaps->outage_start_ns > gaps->longest_outage_ns)
        gaps->longest_outage_ns = until_ns - gaps->outage_start_ns;
    struct vp_gap gap = { gaps->last_ns + gaps->real_offset_ns, length };
    if (gaps->listed_count < VP_PROBE_GAPS_LISTED) {
        gaps->listed[gaps->listed_count++] = gap;
    } else { /* full: the longest are kept, in the order they happened */
        size_t shortest = 0;
        for (size_t i = 1; i < VP_PROBE_GAPS_LISTED; i++)
            if (gaps->listed[i].length_ns < gaps->listed[shortest].length_ns)
                shortest = i;
        if (length > gaps->listed[shortest].length_ns) {
            memmove(&gaps->listed[shortest], &gaps->listed[shortest + 1],
                    (VP_PROBE_GAPS_LISTED - shortest - 1) * sizeof gap);
            gaps->listed[VP_PROBE_GAPS_LISTED - 1] = gap;
        }
    }
    gaps->count++;
    gaps->total_ns += length;
}

void vp_gaps_arrival(struct vp_gaps *gaps, int64_t now_ns)
{
    if (now_ns < gaps->last_ns)
        return; /* not later than the latest: no silence ended */
    silence(gaps, now_ns);
    gaps->last_ns = now_ns;
    gaps->arrivals++;
}

void vp_gaps_end(struct vp_gaps *gaps, int64_t end_ns)
{
    silence(gaps, end_ns);
    if (end_ns > gaps->last_ns)
        gaps->last_ns = end_ns;
}

size_t vp_probe_report_encode(const struct vp_probe_report *report,
                              uint8_t out[VP_PROBE_REPORT_MAX_BYTES])
{
    uint32_t listed = report->listed_count < VP_PROBE_GAPS_LISTED ? report->listed_count
                                                                   : VP_PROBE_GAPS_LISTED;
    vp_put64(out, report->received);
    vp_put64(out + 8, report->sent);
    vp_put64(out + 16, report->gap_count);
    vp_put64(out + 24, (uint64_t)report->longest_ns);
    vp_put64(out + 32, (uint64_t)report->total_ns);
    vp_put32(out + 40, listed);
    for (uint32_t i = 0; i < listed; i++) {
        vp_put64(out + 44 + 16 * i, (uint64_t)report->listed[i].start_real_ns);
        vp_put64(out + 52 + 16 * i, (uint64_t)report->listed[i].length_ns);
    }
    return VP_PROBE_REPORT_BYTES(listed);
}

int vp_probe_report_decode(const uint8_t *in, size_t len, struct vp_probe_report *out)
{
    if (len < VP_PROBE_REPORT_BYTES(0))
        return -1;
    out->received = vp_get64(in);
    out->sent = vp_get64(in + 8);
    out->gap_count = vp_get64(in + 16);
    out->longest_ns = (int64_t)vp_get64(in + 24);
    out->total_ns = (int64_t)vp_get64(in + 32);
    out->listed_count = vp_get32(in + 40);
    if (out->listed_count > VP_PROBE_GAPS_LISTED || len != VP_PROBE_REPORT_BYTES(out->listed_count) ||
        out->listed_count > out->gap_count || out->longest_ns < 0 || out->total_ns < 0)
        return -1;
    for (uint32_t i = 0; i < out->listed_count; i++) {
        out->listed[i].start_real_ns = (int64_t)vp_get64(in + 44 + 16 * i);
        out->listed[i].length_ns = (int64_t)vp_get64(in + 52 + 16 * i);
        if (out->listed[i].length_ns < 0 || out->listed[i].length_ns > out->longest_ns)
            return -1;
    }
    return 0;
}
