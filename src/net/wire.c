/* Socket I/O of protocol frames with timeouts and bounded buffers. */
#include "net/wire.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/procfs.h"

void vp_wire_set_timeout(int fd, double seconds)
{
    struct timeval timeout = { (time_t)seconds, (suseconds_t)((seconds - (time_t)seconds) * 1e6) };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
}

static int io_error(char *err, size_t err_len, const char *what, int error)
{
    if (error == EAGAIN || error == EWOULDBLOCK)
        snprintf(err, err_len, "%s: the peer stalled (timed out)", what);
    else
        snprintf(err, err_len, "%s: %s", what, strerror(error));
    return -1;
}

/* A whole frame must arrive (or leave) within the socket's timeout, not merely make some
 * progress within it: a peer trickling a byte now and then would otherwise hold a
 * session, or a client, for ever, and a frame whose header and payload were timed apart,
 * or whose last wait began just before the deadline, took twice the timeout. Once a
 * frame is under way every wait is for what is left of its time (a non-blocking call
 * first, poll only when nothing is there), and the timeout is asked of the socket only
 * then: a frame that arrives at once costs a clock read. */
struct frame_clock {
    int fd, option;               /* SO_RCVTIMEO or SO_SNDTIMEO */
    int64_t started_ns, limit_ns; /* started 0: not under way; limit -1: not asked yet */
};

/* Waits until fd is ready for events within what is left of the frame's time. */
static bool ready_in_time(struct frame_clock *clock, short events)
{
    if (clock->limit_ns < 0) {
        struct timeval timeout = { 0 };
        socklen_t len = sizeof timeout;
        getsockopt(clock->fd, SOL_SOCKET, clock->option, &timeout, &len);
        clock->limit_ns = (int64_t)timeout.tv_sec * 1000000000 + (int64_t)timeout.tv_usec * 1000;
    }
    for (;;) {
        int64_t left_ns = clock->limit_ns > 0 ? clock->limit_ns - (vp_now_ns() - clock->started_ns)
                                              : -1; /* no timeout set: wait */
        if (clock->limit_ns > 0 && left_ns <= 0)
            return false;
        struct pollfd ready = { .fd = clock->fd, .events = events };
        int rc = poll(&ready, 1, left_ns < 0 ? -1 : (int)((left_ns + 999999) / 1000000));
        if (rc > 0)
            return true;
        if (rc < 0 && errno != EINTR)
            return true; /* the call that follows says what is wrong */
    }
}

static int too_slow(char *err, size_t err_len, const char *what, const struct frame_clock *clock)
{
    snprintf(err, err_len, "%s: the peer stalled (a frame took more than %.3g s)", what,
             (double)clock->limit_ns / 1e9);
    return -1;
}

/* Drops the first done bytes from message's parts (what a call already moved). */
static void skip_done(struct msghdr *message, size_t done)
{
    while (done > 0 && message->msg_iovlen > 0) {
        size_t part = message->msg_iov[0].iov_len < done ? message->msg_iov[0].iov_len : done;
        message->msg_iov[0].iov_base = (char *)message->msg_iov[0].iov_base + part;
        message->msg_iov[0].iov_len -= part;
        done -= part;
        if (message->msg_iov[0].iov_len == 0) {
            message->msg_iov++;
            message->msg_iovlen--;
        }
    }
}

/* Reads into message's parts until at least at_least bytes came (*done of them in all,
 * never more than the parts hold); the first byte of a frame not yet under way may take
 * the socket's timeout (a silent peer), the rest what is left of the frame's time. */
static int receive_parts(struct frame_clock *clock, struct msghdr *message, size_t at_least,
                         size_t *done, char *err, size_t err_len)
{
    while (*done < at_least) {
        ssize_t got = recvmsg(clock->fd, message, clock->started_ns ? MSG_DONTWAIT : 0);
        if (got == 0) {
            snprintf(err, err_len, "%s", VP_WIRE_CLOSED);
            return -1;
        }
        if (got < 0) {
            if (errno == EINTR)
                continue;
            if (clock->started_ns && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                if (!ready_in_time(clock, POLLIN))
                    return too_slow(err, err_len, "receive", clock);
                continue;
            }
            return io_error(err, err_len, "receive", errno);
        }
        if (!clock->started_ns)
            clock->started_ns = vp_now_ns();
        *done += (size_t)got;
        skip_done(message, (size_t)got);
    }
    return 0;
}

/* Reads len bytes of a frame. */
static int receive(struct frame_clock *clock, void *buf, size_t len, char *err, size_t err_len)
{
    struct iovec whole = { .iov_base = buf, .iov_len = len };
    struct msghdr message = { .msg_iov = &whole, .msg_iovlen = 1 };
    size_t done = 0;
    return receive_parts(clock, &message, len, &done, err, err_len);
}

static struct frame_clock payload_clock(int fd, const struct vp_frame_header *header)
{
    return (struct frame_clock){ .fd = fd, .option = SO_RCVTIMEO,
                                 .started_ns = header->arrived_ns, .limit_ns = -1 };
}

/* Header and payload leave in one sendmsg, so TCP_NODELAY never sends a lone header. */
int vp_wire_send(int fd, uint8_t type, const void *payload, uint32_t len, char *err,
                 size_t err_len)
{
    uint8_t header[VP_FRAME_HEADER_BYTES];
    vp_frame_encode_header(header, type, len);
    struct iovec parts[2] = {
        { .iov_base = header, .iov_len = sizeof header },
        { .iov_base = (void *)payload, .iov_len = len },
    };
    struct msghdr message = { .msg_iov = parts, .msg_iovlen = len ? 2 : 1 };
    size_t left = sizeof header + len;
    struct frame_clock clock = { .fd = fd, .option = SO_SNDTIMEO, .limit_ns = -1 };
    while (left > 0) {
        ssize_t sent = sendmsg(fd, &message, MSG_NOSIGNAL | (clock.started_ns ? MSG_DONTWAIT : 0));
        if (sent < 0) {
            if (errno == EINTR)
                continue;
            if (clock.started_ns && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                if (!ready_in_time(&clock, POLLOUT))
                    return too_slow(err, err_len, "send", &clock);
                continue;
            }
            return io_error(err, err_len, "send", errno);
        }
        left -= (size_t)sent;
        if (!clock.started_ns)
            clock.started_ns = vp_now_ns();
        skip_done(&message, (size_t)sent);
    }
    return 0;
}

void vp_wire_send_error(int fd, const char *text)
{
    char ignored[64];
    size_t len = strlen(text);
    vp_wire_send(fd, VP_FRAME_ERROR, text, (uint32_t)(len > VP_ERROR_TEXT_MAX ? VP_ERROR_TEXT_MAX : len),
                 ignored, sizeof ignored);
}

int vp_wire_recv_header(int fd, struct vp_frame_header *header, char *err, size_t err_len)
{
    uint8_t raw[VP_FRAME_HEADER_BYTES];
    struct frame_clock clock = { .fd = fd, .option = SO_RCVTIMEO, .limit_ns = -1 };
    if (receive(&clock, raw, sizeof raw, err, err_len) != 0)
        return -1;
    int status = vp_frame_decode_header(raw, header, err, err_len);
    header->arrived_ns = clock.started_ns;
    return status;
}

int vp_wire_recv_sized(int fd, struct vp_frame_header *header, void *payload, uint32_t len,
                       char *err, size_t err_len)
{
    uint8_t raw[VP_FRAME_HEADER_BYTES];
    struct iovec parts[2] = {
        { .iov_base = raw, .iov_len = sizeof raw },
        { .iov_base = payload, .iov_len = len },
    };
    struct msghdr message = { .msg_iov = parts, .msg_iovlen = len ? 2 : 1 };
    struct frame_clock clock = { .fd = fd, .option = SO_RCVTIMEO, .limit_ns = -1 };
    size_t done = 0;
    if (receive_parts(&clock, &message, sizeof raw, &done, err, err_len) != 0 ||
        vp_frame_decode_header(raw, header, err, err_len) != 0)
        return -1;
    header->arrived_ns = clock.started_ns;
    size_t frame_end = sizeof raw + (header->length < len ? header->length : len);
    if (done > frame_end) {
        snprintf(err, err_len, "protocol: %s of %u bytes came with more behind it (expected "
                 "%u-byte frames, one at a time)", vp_frame_type_name(header->type),
                 header->length, len);
        return -1;
    }
    if (message.msg_iovlen > 0) /* the header is in: only the payload's part is left */
        parts[1].iov_len = frame_end - done;
    return receive_parts(&clock, &message, frame_end, &done, err, err_len);
}

int vp_wire_read_payload(int fd, const struct vp_frame_header *header, void *buf, size_t len,
                         char *err, size_t err_len)
{
    struct frame_clock clock = payload_clock(fd, header);
    return receive(&clock, buf, len, err, err_len);
}

int vp_wire_discard(int fd, const struct vp_frame_header *header, char *err, size_t err_len)
{
    char chunk[65536];
    struct frame_clock clock = payload_clock(fd, header);
    for (uint32_t len = header->length; len > 0;) {
        uint32_t part = len < sizeof chunk ? len : (uint32_t)sizeof chunk;
        if (receive(&clock, chunk, part, err, err_len) != 0)
            return -1;
        len -= part;
    }
    return 0;
}

int vp_wire_expect(int fd, uint8_t want, void *payload, uint32_t cap, uint32_t *len, char *err,
                   size_t err_len)
{
    struct vp_frame_header header;
    if (vp_wire_recv_header(fd, &header, err, err_len) != 0)
        return -1;
    if (header.type == VP_FRAME_ERROR) {
        uint8_t text[VP_ERROR_TEXT_MAX];
        char printable[VP_ERROR_TEXT_MAX + 1];
        if (vp_wire_read_payload(fd, &header, text, header.length, err, err_len) != 0)
            return -1;
        vp_error_text_decode(text, header.length, printable, sizeof printable);
        snprintf(err, err_len, "peer: %s", printable);
        return -1;
    }
    if (header.type != want) {
        snprintf(err, err_len, "expected %s, received %s", vp_frame_type_name(want),
                 vp_frame_type_name(header.type));
        return -1;
    }
    if (header.length > cap) {
        snprintf(err, err_len, "message too long: %s of %u bytes (at most %u here)",
                 vp_frame_type_name(header.type), header.length, cap);
        return -1;
    }
    if (len)
        *len = header.length;
    return vp_wire_read_payload(fd, &header, payload, header.length, err, err_len);
}

int vp_cpu_snapshot(uint64_t ticks[VP_CPU_FIELDS])
{
    struct vp_text text = { 0 };
    struct vp_proc_stat stat;
    memset(ticks, 0, VP_CPU_FIELDS * sizeof *ticks);
    int status = vp_read_whole("/proc/stat", &text) == 0 ? vp_parse_proc_stat(text.data, &stat) : -1;
    vp_text_free(&text);
    if (status != 0)
        return -1;
    const struct vp_cpu_ticks *c = &stat.cpu;
    uint64_t fields[VP_CPU_FIELDS] = { c->user, c->nice, c->system, c->idle, c->iowait, c->irq,
                                       c->softirq, c->steal };
    memcpy(ticks, fields, sizeof fields);
    return 0;
}

bool vp_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family)
        return false;
    if (a->ss_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                      &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
    return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
           ((const struct sockaddr_in *)b)->sin_addr.s_addr;
}
