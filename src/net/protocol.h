/* virtperf's wire protocol, version 2 (2 added time.drift's clock exchanges; the probe
 * test and its PROBE_REPORT came later within 2: a server without them refuses the
 * test kind with a clear error):
 * length-prefixed binary frames with explicit field
 * sizes, big-endian. Header (12 bytes): magic "VPRF", version u8, type u8, flags u16,
 * payload length u32. Every frame is checked by one decoder before any field is used:
 * magic, version, known type, and a length allowed for that type. */
#ifndef VP_PROTOCOL_H
#define VP_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#define VP_PROTOCOL_VERSION 2
#define VP_FRAME_HEADER_BYTES 12
#define VP_MESSAGE_MAX (4u << 20)   /* largest DATA, REQUEST or RESPONSE payload */
#define VP_NONCE_BYTES 32
#define VP_MAC_BYTES 32
#define VP_TEST_MAX_MS (3600u * 1000) /* hard cap on any test's duration */
#define VP_ERROR_TEXT_MAX 256
#define VP_UDP_MESSAGE_MIN 16    /* a datagram carries its header (VP_DATAGRAM_HEADER_BYTES) */
#define VP_UDP_MESSAGE_MAX 65507

enum vp_frame_type {
    VP_FRAME_HELLO = 1,  /* client -> server: first frame, carries the client's version */
    VP_FRAME_CHALLENGE,  /* server -> client: nonce[32], auth_required u8 */
    VP_FRAME_AUTH,       /* client -> server: HMAC-SHA256(key, nonce) */
    VP_FRAME_WELCOME,    /* server -> client: authenticated */
    VP_FRAME_TEST,       /* client -> server: struct vp_test_request */
    VP_FRAME_READY,      /* server -> client: struct vp_test_ready */
    VP_FRAME_DATA,       /* either way: payload counted, never interpreted */
    VP_FRAME_END,        /* either way: the data phase is over */
    VP_FRAME_RESULT,     /* server -> client: struct vp_test_result */
    VP_FRAME_REQUEST,    /* client -> server: a request of the request/response test */
    VP_FRAME_RESPONSE,   /* server -> client: its response */
    VP_FRAME_ERROR,      /* either way: a refusal, as text; the sender then closes */
    VP_FRAME_TIME_QUERY, /* client -> server: sequence u64, answered at once */
    VP_FRAME_TIME_REPLY, /* server -> client: struct vp_time_reply */
    VP_FRAME_PROBE_REPORT, /* server -> client after END of a probe test (net/probe.h) */
    VP_FRAME_TYPE_COUNT
};

enum vp_test_kind {
    VP_TEST_STREAM_TO_SERVER = 1, /* client sends DATA, server counts */
    VP_TEST_STREAM_FROM_SERVER,   /* server sends DATA, client counts */
    VP_TEST_RR,                   /* REQUEST -> RESPONSE until END */
    VP_TEST_CONNECT,              /* server answers RESULT at once and closes */
    VP_TEST_TIME,                 /* TIME_QUERY -> TIME_REPLY until END */
    VP_TEST_PROBE,                /* UDP probes both ways until END (net/probe.h) */
};

struct vp_frame_header {
    uint8_t version, type;
    uint16_t flags;
    uint32_t length;
    int64_t arrived_ns; /* when its first byte arrived (vp_wire_recv_header); 0: not read */
};

enum vp_transport { VP_TRANSPORT_TCP = 0, VP_TRANSPORT_UDP = 1 };

#define VP_TEST_REQUEST_BYTES 24
struct vp_test_request {
    uint8_t kind;
    uint8_t transport; /* UDP: data travels in datagrams; the TCP connection controls */
    uint32_t duration_ms, omit_ms, message_size, response_size, window;
};

#define VP_TEST_READY_BYTES 12
struct vp_test_ready {
    uint32_t send_buffer, receive_buffer; /* what the kernel gave the server's socket */
    uint32_t udp_port;                    /* UDP tests: where to send the datagrams */
};

#define VP_CPU_FIELDS 8 /* user nice system idle iowait irq softirq steal (ticks) */
#define VP_TEST_RESULT_BYTES (8 * 4 + 8 * VP_CPU_FIELDS + 4)
struct vp_test_result {
    uint64_t bytes, elapsed_ns, transactions; /* UDP stream: transactions = datagrams */
    uint64_t jitter_ns;                       /* UDP stream: RFC 3550 interarrival jitter */
    uint64_t cpu_ticks[VP_CPU_FIELDS]; /* the server's /proc/stat deltas over the test */
    uint32_t ticks_per_second;
};

/* A probe test's limits, as the TEST frame may ask them (net/probe.h). */
#define VP_PROBE_MIN_BYTES 24
#define VP_PROBE_MAX_BYTES 1472 /* one Ethernet frame */
#define VP_PROBE_MIN_PERIOD_US 100
#define VP_PROBE_MAX_PERIOD_US 1000000
#define VP_PROBE_GAPS_LISTED 64 /* gaps kept with their instants (the longest, in order);
                                   all are counted */
/* PROBE_REPORT (net/probe.h): the server's view of the client's probes, listed gaps. */
#define VP_PROBE_REPORT_BYTES(listed) (5 * 8 + 4 + 16 * (listed))
#define VP_PROBE_REPORT_MAX_BYTES VP_PROBE_REPORT_BYTES(VP_PROBE_GAPS_LISTED)
#define VP_TIME_QUERY_BYTES 8
#define VP_TIME_REPLY_BYTES 24
/* The server's CLOCK_REALTIME when the query arrived and when the reply left, in ns since
 * the epoch, and the query's sequence number echoed. */
struct vp_time_reply {
    uint64_t sequence;
    int64_t received_ns, sent_ns;
};

/* A UDP datagram of the net tests (stream and request/response): its sequence number
 * at byte 0 and the sender's CLOCK_MONOTONIC send time at byte 8, both big-endian; the
 * rest is padding to the message size. A response echoes the request's first 8 bytes. */
#define VP_DATAGRAM_HEADER_BYTES 16
struct vp_datagram {
    uint64_t sequence;
    int64_t sent_ns;
};

void vp_frame_encode_header(uint8_t out[VP_FRAME_HEADER_BYTES], uint8_t type, uint32_t length);

/* Checks magic, version, type and the length allowed for the type. On refusal returns
 * -1 with a message fit for an ERROR frame ("version 3 not supported ...",
 * "message too long ..."). */
int vp_frame_decode_header(const uint8_t in[VP_FRAME_HEADER_BYTES], struct vp_frame_header *out,
                           char *err, size_t err_len);

void vp_test_request_encode(const struct vp_test_request *request,
                            uint8_t out[VP_TEST_REQUEST_BYTES]);
/* Refuses unknown kinds, durations above the cap, sizes out of range. */
int vp_test_request_decode(const uint8_t *in, size_t len, struct vp_test_request *out,
                           char *err, size_t err_len);
void vp_test_ready_encode(const struct vp_test_ready *ready, uint8_t out[VP_TEST_READY_BYTES]);
int vp_test_ready_decode(const uint8_t *in, size_t len, struct vp_test_ready *out);
void vp_test_result_encode(const struct vp_test_result *result,
                           uint8_t out[VP_TEST_RESULT_BYTES]);
int vp_test_result_decode(const uint8_t *in, size_t len, struct vp_test_result *out);
void vp_time_query_encode(uint64_t sequence, uint8_t out[VP_TIME_QUERY_BYTES]);
int vp_time_query_decode(const uint8_t *in, size_t len, uint64_t *sequence);
void vp_time_reply_encode(const struct vp_time_reply *reply, uint8_t out[VP_TIME_REPLY_BYTES]);
/* Refuses a wrong length and a reply sent before it was received. */
int vp_time_reply_decode(const uint8_t *in, size_t len, struct vp_time_reply *out);
/* Writes the header into the first VP_DATAGRAM_HEADER_BYTES of out. */
void vp_datagram_encode(const struct vp_datagram *datagram, uint8_t out[VP_DATAGRAM_HEADER_BYTES]);
/* Refuses a datagram shorter than its header. */
int vp_datagram_decode(const uint8_t *in, size_t len, struct vp_datagram *out);
/* The sequence number a response carries (its first 8 bytes); -1 when shorter. */
int vp_datagram_sequence(const uint8_t *in, size_t len, uint64_t *sequence);
/* An ERROR payload as printable text (anything else becomes '?'). */
void vp_error_text_decode(const uint8_t *in, size_t len, char *out, size_t out_len);

const char *vp_frame_type_name(uint8_t type);

#endif
