/* Unit tests for protocol.c: header and payload round trips, and every refusal the
 * decoder must make before a field is used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "net/protocol.h"

static void headers_round_trip(void **state)
{
    (void)state;
    uint8_t raw[VP_FRAME_HEADER_BYTES];
    struct vp_frame_header header;
    char err[256];
    vp_frame_encode_header(raw, VP_FRAME_DATA, 131072);
    assert_memory_equal(raw, "VPRF", 4);
    assert_int_equal(vp_frame_decode_header(raw, &header, err, sizeof err), 0);
    assert_int_equal(header.type, VP_FRAME_DATA);
    assert_int_equal(header.length, 131072);
    assert_int_equal(header.version, VP_PROTOCOL_VERSION);
}

static void bad_headers_are_refused_with_a_reason(void **state)
{
    (void)state;
    uint8_t raw[VP_FRAME_HEADER_BYTES];
    struct vp_frame_header header;
    char err[256];
    vp_frame_encode_header(raw, VP_FRAME_HELLO, 0);
    raw[0] = 'X';
    assert_int_equal(vp_frame_decode_header(raw, &header, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad frame magic"));
    vp_frame_encode_header(raw, VP_FRAME_HELLO, 0);
    raw[4] = 1;
    assert_int_equal(vp_frame_decode_header(raw, &header, err, sizeof err), -1);
    assert_string_equal(err, "protocol version 1 not supported (this end speaks 2)");
    vp_frame_encode_header(raw, 99, 0);
    assert_int_equal(vp_frame_decode_header(raw, &header, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown frame type 99"));
    vp_frame_encode_header(raw, VP_FRAME_DATA, VP_MESSAGE_MAX + 1);
    assert_int_equal(vp_frame_decode_header(raw, &header, err, sizeof err), -1);
    assert_non_null(strstr(err, "message too long: DATA"));
    vp_frame_encode_header(raw, VP_FRAME_AUTH, 31);
    assert_int_equal(vp_frame_decode_header(raw, &header, err, sizeof err), -1);
    assert_non_null(strstr(err, "message too short: AUTH"));
    vp_frame_encode_header(raw, VP_FRAME_HELLO, 1);
    assert_int_equal(vp_frame_decode_header(raw, &header, err, sizeof err), -1);
    vp_frame_encode_header(raw, VP_FRAME_HELLO, 0);
    raw[7] = 1;
    assert_int_equal(vp_frame_decode_header(raw, &header, err, sizeof err), -1);
    assert_non_null(strstr(err, "flags"));
}

static void test_requests_round_trip_and_are_checked(void **state)
{
    (void)state;
    struct vp_test_request request = { .kind = VP_TEST_RR, .duration_ms = 5000, .omit_ms = 100,
                                       .message_size = 350, .response_size = 350, .window = 262144 };
    uint8_t raw[VP_TEST_REQUEST_BYTES];
    struct vp_test_request back;
    char err[256];
    vp_test_request_encode(&request, raw);
    assert_int_equal(vp_test_request_decode(raw, sizeof raw, &back, err, sizeof err), 0);
    assert_int_equal(back.kind, request.kind);
    assert_int_equal(back.duration_ms, 5000);
    assert_int_equal(back.omit_ms, 100);
    assert_int_equal(back.message_size, 350);
    assert_int_equal(back.response_size, 350);
    assert_int_equal(back.window, 262144);
    assert_int_equal(vp_test_request_decode(raw, sizeof raw - 1, &back, err, sizeof err), -1);
    request.duration_ms = VP_TEST_MAX_MS + 1;
    vp_test_request_encode(&request, raw);
    assert_int_equal(vp_test_request_decode(raw, sizeof raw, &back, err, sizeof err), -1);
    assert_non_null(strstr(err, "above the server's cap"));
    request.duration_ms = 1000;
    request.message_size = 0;
    vp_test_request_encode(&request, raw);
    assert_int_equal(vp_test_request_decode(raw, sizeof raw, &back, err, sizeof err), -1);
    request.message_size = 350;
    request.kind = 9;
    vp_test_request_encode(&request, raw);
    assert_int_equal(vp_test_request_decode(raw, sizeof raw, &back, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown test kind 9"));
}

static void time_exchanges_round_trip_and_are_checked(void **state)
{
    (void)state;
    uint8_t query[VP_TIME_QUERY_BYTES], raw[VP_TIME_REPLY_BYTES];
    uint64_t sequence;
    vp_time_query_encode(0x0102030405060708ull, query);
    assert_int_equal(vp_time_query_decode(query, sizeof query, &sequence), 0);
    assert_true(sequence == 0x0102030405060708ull);
    assert_int_equal(vp_time_query_decode(query, sizeof query - 1, &sequence), -1);
    struct vp_time_reply reply = { .sequence = 7, .received_ns = 1795000000123456789,
                                   .sent_ns = 1795000000123470000 }, back;
    vp_time_reply_encode(&reply, raw);
    assert_int_equal(vp_time_reply_decode(raw, sizeof raw, &back), 0);
    assert_true(back.sequence == 7);
    assert_true(back.received_ns == reply.received_ns && back.sent_ns == reply.sent_ns);
    assert_int_equal(vp_time_reply_decode(raw, sizeof raw + 1, &back), -1);
    reply.sent_ns = reply.received_ns - 1; /* sent before it came: refused */
    vp_time_reply_encode(&reply, raw);
    assert_int_equal(vp_time_reply_decode(raw, sizeof raw, &back), -1);
    uint8_t header_raw[VP_FRAME_HEADER_BYTES];
    struct vp_frame_header header;
    char err[256];
    vp_frame_encode_header(header_raw, VP_FRAME_TIME_REPLY, VP_TIME_REPLY_BYTES + 1);
    assert_int_equal(vp_frame_decode_header(header_raw, &header, err, sizeof err), -1);
    assert_non_null(strstr(err, "message too long: TIME_REPLY"));
    struct vp_test_request request = { .kind = VP_TEST_TIME, .duration_ms = 1000,
                                       .message_size = 1 }, decoded;
    uint8_t request_raw[VP_TEST_REQUEST_BYTES];
    vp_test_request_encode(&request, request_raw);
    assert_int_equal(vp_test_request_decode(request_raw, sizeof request_raw, &decoded, err, sizeof err), 0);
    request_raw[0] = VP_TEST_TIME + 1;
    assert_int_equal(vp_test_request_decode(request_raw, sizeof request_raw, &decoded, err, sizeof err), -1);
}

static void results_round_trip(void **state)
{
    (void)state;
    struct vp_test_result result = { .bytes = 1ULL << 40, .elapsed_ns = 123456789,
                                     .transactions = 42, .ticks_per_second = 100 };
    for (int i = 0; i < VP_CPU_FIELDS; i++)
        result.cpu_ticks[i] = (uint64_t)i * 1000 + 7;
    uint8_t raw[VP_TEST_RESULT_BYTES];
    struct vp_test_result back;
    vp_test_result_encode(&result, raw);
    assert_int_equal(vp_test_result_decode(raw, sizeof raw, &back), 0);
    assert_int_equal(back.bytes, result.bytes);
    assert_int_equal(back.elapsed_ns, result.elapsed_ns);
    assert_int_equal(back.transactions, 42);
    assert_int_equal(back.ticks_per_second, 100);
    assert_memory_equal(back.cpu_ticks, result.cpu_ticks, sizeof back.cpu_ticks);
    result.ticks_per_second = 0;
    vp_test_result_encode(&result, raw);
    assert_int_equal(vp_test_result_decode(raw, sizeof raw, &back), -1);
    char text[16];
    vp_error_text_decode((const uint8_t *)"bad\x01\xff.", 6, text, sizeof text);
    assert_string_equal(text, "bad?" "?.");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(headers_round_trip),
        cmocka_unit_test(bad_headers_are_refused_with_a_reason),
        cmocka_unit_test(test_requests_round_trip_and_are_checked),
        cmocka_unit_test(time_exchanges_round_trip_and_are_checked),
        cmocka_unit_test(results_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
