/* libFuzzer target: the frame decoder and every payload decoder (net.probe's datagrams
 * and PROBE_REPORT too) on arbitrary bytes, as a hostile peer would send them to
 * `virtperf serve` or to a client. */
#include <stdint.h>
#include <string.h>

#include "net/probe.h"
#include "net/protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    struct vp_frame_header header;
    if (size >= VP_FRAME_HEADER_BYTES &&
        vp_frame_decode_header(data, &header, err, sizeof err) == 0) {
        if (header.length > VP_MESSAGE_MAX || header.type == 0 || header.type >= VP_FRAME_TYPE_COUNT)
            __builtin_trap(); /* the decoder let through what it promised to refuse */
    }
    const uint8_t *payload = size > VP_FRAME_HEADER_BYTES ? data + VP_FRAME_HEADER_BYTES : data;
    size_t payload_len = size > VP_FRAME_HEADER_BYTES ? size - VP_FRAME_HEADER_BYTES : size;
    struct vp_test_request request;
    if (vp_test_request_decode(payload, payload_len, &request, err, sizeof err) == 0 &&
        (request.message_size == 0 || request.message_size > VP_MESSAGE_MAX ||
         (uint64_t)request.duration_ms + request.omit_ms > VP_TEST_MAX_MS))
        __builtin_trap();
    struct vp_test_ready ready;
    vp_test_ready_decode(payload, payload_len, &ready);
    struct vp_test_result result;
    vp_test_result_decode(payload, payload_len, &result);
    uint64_t sequence;
    vp_time_query_decode(payload, payload_len, &sequence);
    struct vp_time_reply reply;
    if (vp_time_reply_decode(payload, payload_len, &reply) == 0 && reply.sent_ns < reply.received_ns)
        __builtin_trap();
    struct vp_datagram datagram;
    if (vp_datagram_decode(data, size, &datagram) == 0 && size < VP_DATAGRAM_HEADER_BYTES)
        __builtin_trap();
    uint64_t echoed;
    if (vp_datagram_sequence(data, size, &echoed) == 0 &&
        (size < 8 || (size >= VP_DATAGRAM_HEADER_BYTES && echoed != datagram.sequence)))
        __builtin_trap();
    struct vp_probe probe;
    if (vp_probe_decode(data, size, &probe) == 0 &&
        (size < VP_PROBE_MIN_BYTES || probe.kind < VP_PROBE_FROM_CLIENT || probe.kind > VP_PROBE_FROM_SERVER))
        __builtin_trap();
    static struct vp_probe_report report; /* static: 1 KiB of gaps */
    if (vp_probe_report_decode(payload, payload_len, &report) == 0) {
        if (report.listed_count > VP_PROBE_GAPS_LISTED || report.listed_count > report.gap_count)
            __builtin_trap();
        for (uint32_t i = 0; i < report.listed_count; i++)
            if (report.listed[i].length_ns < 0 || report.listed[i].length_ns > report.longest_ns)
                __builtin_trap();
    }
    char text[VP_ERROR_TEXT_MAX + 1];
    vp_error_text_decode(payload, payload_len < VP_ERROR_TEXT_MAX ? payload_len : VP_ERROR_TEXT_MAX,
                         text, sizeof text);
    if (strlen(text) > VP_ERROR_TEXT_MAX)
        __builtin_trap();
    return 0;
}
