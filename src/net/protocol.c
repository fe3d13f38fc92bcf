/* Frame header and payload encoding and validation for protocol version 2. */
#include "net/protocol.h"

#include <stdio.h>
#include <string.h>

#include "net/bytes.h"

static const uint8_t magic[4] = { 'V', 'P', 'R', 'F' };

const char *vp_frame_type_name(uint8_t type)
{
    static const char *const names[VP_FRAME_TYPE_COUNT] = {
        "?", "HELLO", "CHALLENGE", "AUTH", "WELCOME", "TEST", "READY", "DATA", "END",
        "RESULT", "REQUEST", "RESPONSE", "ERROR", "TIME_QUERY", "TIME_REPLY", "PROBE_REPORT",
    };
    return type < VP_FRAME_TYPE_COUNT ? names[type] : "?";
}

/* Smallest and largest payload each type may carry. */
static void length_limits(uint8_t type, uint32_t *min, uint32_t *max)
{
    *min = 0;
    *max = 0;
    switch (type) {
    case VP_FRAME_HELLO: case VP_FRAME_WELCOME: case VP_FRAME_END: break;
    case VP_FRAME_CHALLENGE: *min = *max = VP_NONCE_BYTES + 1; break;
    case VP_FRAME_AUTH: *min = *max = VP_MAC_BYTES; break;
    case VP_FRAME_TEST: *min = *max = VP_TEST_REQUEST_BYTES; break;
    case VP_FRAME_READY: *min = *max = VP_TEST_READY_BYTES; break;
    case VP_FRAME_RESULT: *min = *max = VP_TEST_RESULT_BYTES; break;
    case VP_FRAME_DATA: case VP_FRAME_REQUEST: case VP_FRAME_RESPONSE:
        *max = VP_MESSAGE_MAX;
        break;
    case VP_FRAME_ERROR: *max = VP_ERROR_TEXT_MAX; break;
    case VP_FRAME_TIME_QUERY: *min = *max = VP_TIME_QUERY_BYTES; break;
    case VP_FRAME_TIME_REPLY: *min = *max = VP_TIME_REPLY_BYTES; break;
    case VP_FRAME_PROBE_REPORT:
        *min = VP_PROBE_REPORT_BYTES(0);
        *max = VP_PROBE_REPORT_MAX_BYTES;
        break;
    default: break;
    }
}

void vp_frame_encode_header(uint8_t out[VP_FRAME_HEADER_BYTES], uint8_t type, uint32_t length)
{
    memcpy(out, magic, 4);
    out[4] = VP_PROTOCOL_VERSION;
    out[5] = type;
    vp_put16(out + 6, 0);
    vp_put32(out + 8, length);
}

int vp_frame_decode_header(const uint8_t in[VP_FRAME_HEADER_BYTES], struct vp_frame_header *out,
                           char *err, size_t err_len)
{
    if (memcmp(in, magic, 4) != 0) {
        snprintf(err, err_len, "not a virtperf peer (bad frame magic)");
        return -1;
    }
    out->version = in[4];
    out->type = in[5];
    out->flags = vp_get16(in + 6);
    out->length = vp_get32(in + 8);
    if (out->version != VP_PROTOCOL_VERSION) {
        snprintf(err, err_len, "protocol version %u not supported (this end speaks %u)",
                 out->version, VP_PROTOCOL_VERSION);
        return -1;
    }
    if (out->type == 0 || out->type >= VP_FRAME_TYPE_COUNT) {
        snprintf(err, err_len, "unknown frame type %u", out->type);
        return -1;
    }
    if (out->flags != 0) {
        snprintf(err, err_len, "frame flags 0x%x not supported", out->flags);
        return -1;
    }
    uint32_t min, max;
    length_limits(out->type, &min, &max);
    if (out->length > max) {
        snprintf(err, err_len, "message too long: %s of %u bytes (at most %u)",
                 vp_frame_type_name(out->type), out->length, max);
        return -1;
    }
    if (out->length < min) {
        snprintf(err, err_len, "message too short: %s of %u bytes (needs %u)",
                 vp_frame_type_name(out->type), out->length, min);
        return -1;
    }
    return 0;
}

void vp_test_request_encode(const struct vp_test_request *request,
                            uint8_t out[VP_TEST_REQUEST_BYTES])
{
    memset(out, 0, VP_TEST_REQUEST_BYTES);
    out[0] = request->kind;
    out[1] = request->transport;
    vp_put32(out + 4, request->duration_ms);
    vp_put32(out + 8, request->omit_ms);
    vp_put32(out + 12, request->message_size);
    vp_put32(out + 16, request->response_size);
    vp_put32(out + 20, request->window);
}

int vp_test_request_decode(const uint8_t *in, size_t len, struct vp_test_request *out,
                           char *err, size_t err_len)
{
    if (len != VP_TEST_REQUEST_BYTES) {
        snprintf(err, err_len, "TEST of %zu bytes (needs %d)", len, VP_TEST_REQUEST_BYTES);
        return -1;
    }
    out->kind = in[0];
    out->transport = in[1];
    out->duration_ms = vp_get32(in + 4);
    out->omit_ms = vp_get32(in + 8);
    out->message_size = vp_get32(in + 12);
    out->response_size = vp_get32(in + 16);
    out->window = vp_get32(in + 20);
    if (out->kind < VP_TEST_STREAM_TO_SERVER || out->kind > VP_TEST_PROBE || in[2] || in[3]) {
        snprintf(err, err_len, "unknown test kind %u", in[0]);
        return -1;
    }
    if (out->transport > VP_TRANSPORT_UDP ||
        (out->transport == VP_TRANSPORT_UDP && out->kind != VP_TEST_STREAM_TO_SERVER &&
         out->kind != VP_TEST_RR && out->kind != VP_TEST_PROBE) ||
        (out->kind == VP_TEST_PROBE && out->transport != VP_TRANSPORT_UDP)) {
        snprintf(err, err_len, "transport %u not supported for test kind %u", in[1], in[0]);
        return -1;
    }
    if (out->kind == VP_TEST_PROBE) { /* response_size: period, window: threshold (us) */
        if (out->message_size < VP_PROBE_MIN_BYTES || out->message_size > VP_PROBE_MAX_BYTES ||
            out->response_size < VP_PROBE_MIN_PERIOD_US || out->response_size > VP_PROBE_MAX_PERIOD_US ||
            out->window < out->response_size || out->window > 60u * 1000000 ||
            out->duration_ms > VP_TEST_MAX_MS || out->omit_ms != 0) {
            snprintf(err, err_len, "probe of %u bytes every %u us (gaps above %u us) out of range "
                     "(%d..%d bytes, %d..%d us, a threshold from the period to 60 s, no omit)",
                     out->message_size, out->response_size, out->window, VP_PROBE_MIN_BYTES,
                     VP_PROBE_MAX_BYTES, VP_PROBE_MIN_PERIOD_US, VP_PROBE_MAX_PERIOD_US);
            return -1;
        }
        return 0;
    }
    if (out->transport == VP_TRANSPORT_UDP &&
        (out->message_size < VP_UDP_MESSAGE_MIN || out->message_size > VP_UDP_MESSAGE_MAX ||
         (out->kind == VP_TEST_RR && (out->response_size < 8 ||
                                      out->response_size > VP_UDP_MESSAGE_MAX)))) {
        snprintf(err, err_len, "UDP messages of %u and %u bytes out of range (%d..%d, "
                 "responses at least 8)", out->message_size, out->response_size,
                 VP_UDP_MESSAGE_MIN, VP_UDP_MESSAGE_MAX);
        return -1;
    }
    if ((uint64_t)out->duration_ms + out->omit_ms > VP_TEST_MAX_MS) {
        snprintf(err, err_len, "test of %u ms above the server's cap of %u s",
                 out->duration_ms + out->omit_ms, VP_TEST_MAX_MS / 1000);
        return -1;
    }
    if (out->message_size < 1 || out->message_size > VP_MESSAGE_MAX ||
        out->response_size > VP_MESSAGE_MAX || out->window > (256u << 20)) {
        snprintf(err, err_len, "message size %u, response size %u or window %u out of range "
                 "(messages 1..%u bytes, window at most 256 MiB)", out->message_size,
                 out->response_size, out->window, VP_MESSAGE_MAX);
        return -1;
    }
    return 0;
}

void vp_test_ready_encode(const struct vp_test_ready *ready, uint8_t out[VP_TEST_READY_BYTES])
{
    vp_put32(out, ready->send_buffer);
    vp_put32(out + 4, ready->receive_buffer);
    vp_put32(out + 8, ready->udp_port);
}

int vp_test_ready_decode(const uint8_t *in, size_t len, struct vp_test_ready *out)
{
    if (len != VP_TEST_READY_BYTES)
        return -1;
    out->send_buffer = vp_get32(in);
    out->receive_buffer = vp_get32(in + 4);
    out->udp_port = vp_get32(in + 8);
    return out->udp_port <= 65535 ? 0 : -1;
}

void vp_test_result_encode(const struct vp_test_result *result,
                           uint8_t out[VP_TEST_RESULT_BYTES])
{
    vp_put64(out, result->bytes);
    vp_put64(out + 8, result->elapsed_ns);
    vp_put64(out + 16, result->transactions);
    vp_put64(out + 24, result->jitter_ns);
    for (int i = 0; i < VP_CPU_FIELDS; i++)
        vp_put64(out + 32 + 8 * i, result->cpu_ticks[i]);
    vp_put32(out + 32 + 8 * VP_CPU_FIELDS, result->ticks_per_second);
}

int vp_test_result_decode(const uint8_t *in, size_t len, struct vp_test_result *out)
{
    if (len != VP_TEST_RESULT_BYTES)
        return -1;
    out->bytes = vp_get64(in);
    out->elapsed_ns = vp_get64(in + 8);
    out->transactions = vp_get64(in + 16);
    out->jitter_ns = vp_get64(in + 24);
    for (int i = 0; i < VP_CPU_FIELDS; i++)
        out->cpu_ticks[i] = vp_get64(in + 32 + 8 * i);
    out->ticks_per_second = vp_get32(in + 32 + 8 * VP_CPU_FIELDS);
    return out->ticks_per_second > 0 && out->ticks_per_second <= 100000 ? 0 : -1;
}

void vp_time_query_encode(uint64_t sequence, uint8_t out[VP_TIME_QUERY_BYTES])
{
    vp_put64(out, sequence);
}

int vp_time_query_decode(const uint8_t *in, size_t len, uint64_t *sequence)
{
    if (len != VP_TIME_QUERY_BYTES)
        return -1;
    *sequence = vp_get64(in);
    return 0;
}

void vp_time_reply_encode(const struct vp_time_reply *reply, uint8_t out[VP_TIME_REPLY_BYTES])
{
    vp_put64(out, reply->sequence);
    vp_put64(out + 8, (uint64_t)reply->received_ns);
    vp_put64(out + 16, (uint64_t)reply->sent_ns);
}

int vp_time_reply_decode(const uint8_t *in, size_t len, struct vp_time_reply *out)
{
    if (len != VP_TIME_REPLY_BYTES)
        return -1;
    out->sequence = vp_get64(in);
    out->received_ns = (int64_t)vp_get64(in + 8);
    out->sent_ns = (int64_t)vp_get64(in + 16);
    return out->sent_ns >= out->received_ns ? 0 : -1;
}

void vp_datagram_encode(const struct vp_datagram *datagram, uint8_t out[VP_DATAGRAM_HEADER_BYTES])
{
    vp_put64(out, datagram->sequence);
    vp_put64(out + 8, (uint64_t)datagram->sent_ns);
}

int vp_datagram_decode(const uint8_t *in, size_t len, struct vp_datagram *out)
{
    if (len < VP_DATAGRAM_HEADER_BYTES)
        return -1;
    out->sequence = vp_get64(in);
    out->sent_ns = (int64_t)vp_get64(in + 8);
    return 0;
}

int vp_datagram_sequence(const uint8_t *in, size_t len, uint64_t *sequence)
{
    if (len < 8)
        return -1;
    *sequence = vp_get64(in);
    return 0;
}

void vp_error_text_decode(const uint8_t *in, size_t len, char *out, size_t out_len)
{
    size_t n = len < out_len - 1 ? len : out_len - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = in[i] >= 0x20 && in[i] < 0x7f ? (char)in[i] : '?';
    out[n] = '\0';
}
