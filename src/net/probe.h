/* The probe test (net.probe): a steady stream of small numbered UDP datagrams each way
 * between a client and `virtperf serve`, to time interruptions (a live migration, a
 * failover, a link flap). What both ends share: the probe datagram, the report the
 * server sends at the end, and the gap tracker that turns arrival instants into gaps.
 *
 * In a VP_TEST_PROBE request (UDP only) message_size is the probe's size, response_size
 * the period between probes in microseconds (each way), window the gap threshold in
 * microseconds. The client sends PROBE datagrams, the server answers each with an ECHO
 * at once and sends its own SERVER probes at the same period; after END the server sends
 * a PROBE_REPORT (the arrivals of the client's probes: the client-to-server direction),
 * then RESULT. */
#ifndef VP_PROBE_H
#define VP_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "net/protocol.h"


enum vp_probe_kind { VP_PROBE_FROM_CLIENT = 1, VP_PROBE_ECHO = 2, VP_PROBE_FROM_SERVER = 3 };

/* A probe datagram's header: sequence number (per sender), the sender's CLOCK_MONOTONIC
 * send instant (an ECHO carries the client's), the kind; the rest is padding. */
struct vp_probe {
    uint64_t sequence;
    int64_t sent_ns;
    uint8_t kind;
};

void vp_probe_encode(const struct vp_probe *probe, uint8_t out[VP_PROBE_MIN_BYTES]);
/* Refuses a datagram shorter than the header or of an unknown kind. */
int vp_probe_decode(const uint8_t *in, size_t len, struct vp_probe *out);

/* One interruption: when it began (CLOCK_REALTIME, ns) and how long it lasted. */
struct vp_gap {
    int64_t start_real_ns;
    int64_t length_ns;
};

/* Arrival instants in, gaps out: a gap is a time without any arrival longer than the
 * threshold, measured from the arrival before it (or the start) to the one after it (or
 * the end). longest_ns is the longest time without an arrival, gap or not. An outage is
 * a run of gaps whose answered stretches between them last no longer than the threshold
 * (a guest answering a moment as it resumes on a migration's destination, then silent
 * again, is one outage); longest_outage_ns is the longest, and never below longest_ns. */
struct vp_gaps {
    int64_t threshold_ns;
    int64_t real_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC, for the gaps' instants */
    int64_t last_ns;        /* the latest arrival, or the start */
    uint64_t arrivals;
    uint64_t count;         /* gaps above the threshold */
    int64_t longest_ns, total_ns;
    int64_t outage_start_ns, outage_end_ns, longest_outage_ns;
    struct vp_gap listed[VP_PROBE_GAPS_LISTED]; /* the longest ones, in order */
    size_t listed_count;
};

void vp_gaps_start(struct vp_gaps *gaps, int64_t threshold_ns, int64_t now_ns,
                   int64_t real_offset_ns);
void vp_gaps_arrival(struct vp_gaps *gaps, int64_t now_ns);
/* The silence from the last arrival to the end counts too. */
void vp_gaps_end(struct vp_gaps *gaps, int64_t end_ns);

/* PROBE_REPORT: the server's view of the client's probes and its own it sent. */
struct vp_probe_report {
    uint64_t received; /* client probes that arrived */
    uint64_t sent;     /* server probes sent */
    uint64_t gap_count;
    int64_t longest_ns, total_ns;
    uint32_t listed_count;
    struct vp_gap listed[VP_PROBE_GAPS_LISTED];
};

/* Writes the report; returns its length. */
size_t vp_probe_report_encode(const struct vp_probe_report *report,
                              uint8_t out[VP_PROBE_REPORT_MAX_BYTES]);
/* Refuses a length that does not match its gap count, more listed gaps than gaps,
 * negative lengths and a listed gap longer than the longest. */
int vp_probe_report_decode(const uint8_t *in, size_t len, struct vp_probe_report *out);

#endif
