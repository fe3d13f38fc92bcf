/* Unit tests for wire.c's vp_wire_recv_sized over a socket pair: a frame of the expected
 * size read whole, and never a byte of the frame behind it; a shorter frame (END, ERROR)
 * with nothing behind it taken, one with more behind it refused; a longer one left to
 * read; a frame that arrives in pieces waited for. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/wire.h"

struct pair {
    int ours, theirs;
};

static struct pair connected(void)
{
    int fds[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    vp_wire_set_timeout(fds[0], 5);
    return (struct pair){ fds[0], fds[1] };
}

static void send_frame(int fd, uint8_t type, const void *payload, uint32_t len)
{
    char err[256];
    assert_int_equal(vp_wire_send(fd, type, payload, len, err, sizeof err), 0);
}

static void a_sized_frame_is_read_whole_and_the_next_left(void **state)
{
    (void)state;
    struct pair pair = connected();
    uint8_t request[350], got[350];
    for (size_t i = 0; i < sizeof request; i++)
        request[i] = (uint8_t)(i * 7);
    send_frame(pair.theirs, VP_FRAME_REQUEST, request, sizeof request);
    send_frame(pair.theirs, VP_FRAME_END, NULL, 0); /* already behind it in the socket */
    struct vp_frame_header header;
    char err[256];
    assert_int_equal(vp_wire_recv_sized(pair.ours, &header, got, sizeof got, err, sizeof err), 0);
    assert_int_equal(header.type, VP_FRAME_REQUEST);
    assert_int_equal(header.length, sizeof request);
    assert_memory_equal(got, request, sizeof request);
    assert_true(header.arrived_ns > 0);
    assert_int_equal(vp_wire_recv_sized(pair.ours, &header, got, sizeof got, err, sizeof err), 0);
    assert_int_equal(header.type, VP_FRAME_END);
    assert_int_equal(header.length, 0);
    close(pair.ours);
    close(pair.theirs);
}

static void a_short_frame_with_more_behind_it_is_refused(void **state)
{
    (void)state;
    struct pair pair = connected();
    send_frame(pair.theirs, VP_FRAME_END, NULL, 0);
    send_frame(pair.theirs, VP_FRAME_REQUEST, "abcd", 4);
    struct vp_frame_header header;
    uint8_t got[64];
    char err[256];
    assert_int_equal(vp_wire_recv_sized(pair.ours, &header, got, sizeof got, err, sizeof err), -1);
    assert_non_null(strstr(err, "came with more behind it"));
    close(pair.ours);
    close(pair.theirs);
}

static void a_short_error_frame_leaves_its_text(void **state)
{
    (void)state;
    struct pair pair = connected();
    send_frame(pair.theirs, VP_FRAME_ERROR, "no such test", 12);
    struct vp_frame_header header;
    uint8_t got[350];
    char err[256];
    assert_int_equal(vp_wire_recv_sized(pair.ours, &header, got, sizeof got, err, sizeof err), 0);
    assert_int_equal(header.type, VP_FRAME_ERROR);
    assert_int_equal(header.length, 12);
    assert_memory_equal(got, "no such test", 12);
    close(pair.ours);
    close(pair.theirs);
}

static void a_longer_frame_leaves_its_rest_to_read(void **state)
{
    (void)state;
    struct pair pair = connected();
    send_frame(pair.theirs, VP_FRAME_RESPONSE, "0123456789", 10);
    struct vp_frame_header header;
    uint8_t got[4], rest[6];
    char err[256];
    assert_int_equal(vp_wire_recv_sized(pair.ours, &header, got, sizeof got, err, sizeof err), 0);
    assert_int_equal(header.length, 10);
    assert_memory_equal(got, "0123", 4);
    assert_int_equal(vp_wire_read_payload(pair.ours, &header, rest, sizeof rest, err, sizeof err), 0);
    assert_memory_equal(rest, "456789", 6);
    close(pair.ours);
    close(pair.theirs);
}

/* The frame's second half comes 20 ms after its first. */
struct late_half {
    int fd;
    const uint8_t *bytes;
    size_t len;
};

static void *send_late(void *arg)
{
    struct late_half *half = arg;
    nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
    assert_int_equal(write(half->fd, half->bytes, half->len), (ssize_t)half->len);
    return NULL;
}

static void a_frame_in_pieces_is_waited_for(void **state)
{
    (void)state;
    struct pair pair = connected();
    uint8_t frame[VP_FRAME_HEADER_BYTES + 100];
    vp_frame_encode_header(frame, VP_FRAME_RESPONSE, 100);
    memset(frame + VP_FRAME_HEADER_BYTES, 'x', 100);
    size_t first = VP_FRAME_HEADER_BYTES - 5; /* not even the whole header */
    assert_int_equal(write(pair.theirs, frame, first), (ssize_t)first);
    struct late_half half = { pair.theirs, frame + first, sizeof frame - first };
    pthread_t sender;
    pthread_create(&sender, NULL, send_late, &half);
    struct vp_frame_header header;
    uint8_t got[100];
    char err[256];
    assert_int_equal(vp_wire_recv_sized(pair.ours, &header, got, sizeof got, err, sizeof err), 0);
    pthread_join(sender, NULL);
    assert_int_equal(header.type, VP_FRAME_RESPONSE);
    assert_memory_equal(got, frame + VP_FRAME_HEADER_BYTES, 100);
    close(pair.ours);
    close(pair.theirs);
}

/* A short frame whose payload comes late, with the next frame behind it: only the short
 * frame's bytes are taken. */
static void a_late_short_frame_takes_only_its_own_bytes(void **state)
{
    (void)state;
    struct pair pair = connected();
    uint8_t frames[2 * VP_FRAME_HEADER_BYTES + 12];
    vp_frame_encode_header(frames, VP_FRAME_ERROR, 12);
    memcpy(frames + VP_FRAME_HEADER_BYTES, "no such test", 12);
    vp_frame_encode_header(frames + VP_FRAME_HEADER_BYTES + 12, VP_FRAME_END, 0);
    assert_int_equal(write(pair.theirs, frames, VP_FRAME_HEADER_BYTES), VP_FRAME_HEADER_BYTES);
    struct late_half half = { pair.theirs, frames + VP_FRAME_HEADER_BYTES,
                              sizeof frames - VP_FRAME_HEADER_BYTES };
    pthread_t sender;
    pthread_create(&sender, NULL, send_late, &half);
    struct vp_frame_header header;
    uint8_t got[350];
    char err[256];
    assert_int_equal(vp_wire_recv_sized(pair.ours, &header, got, sizeof got, err, sizeof err), 0);
    pthread_join(sender, NULL);
    assert_int_equal(header.type, VP_FRAME_ERROR);
    assert_memory_equal(got, "no such test", 12);
    assert_int_equal(vp_wire_recv_sized(pair.ours, &header, got, sizeof got, err, sizeof err), 0);
    assert_int_equal(header.type, VP_FRAME_END);
    close(pair.ours);
    close(pair.theirs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_sized_frame_is_read_whole_and_the_next_left),
        cmocka_unit_test(a_short_frame_with_more_behind_it_is_refused),
        cmocka_unit_test(a_short_error_frame_leaves_its_text),
        cmocka_unit_test(a_longer_frame_leaves_its_rest_to_read),
        cmocka_unit_test(a_frame_in_pieces_is_waited_for),
        cmocka_unit_test(a_late_short_frame_takes_only_its_own_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
