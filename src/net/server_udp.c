/* The server's side of the UDP tests (server_udp.h): datagrams on their own socket, the
 * TCP control connection says when the test ends. */
#define _GNU_SOURCE
#include "net/server_udp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "net/cpu_span.h"
#include "net/wire.h"

int vp_udp_open(int control_fd, uint32_t window, uint32_t *port)
{
    struct sockaddr_storage local;
    socklen_t local_len = sizeof local;
    getsockname(control_fd, (struct sockaddr *)&local, &local_len);
    if (local.ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&local)->sin6_port = 0;
    else
        ((struct sockaddr_in *)&local)->sin_port = 0;
    int fd = socket(local.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&local, local_len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (window) {
        int size = (int)window;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    }
    local_len = sizeof local;
    getsockname(fd, (struct sockaddr *)&local, &local_len);
    *port = ntohs(local.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&local)->sin6_port
                                              : ((struct sockaddr_in *)&local)->sin_port);
    return fd;
}

/* Waits for a datagram or for the control connection; returns 1 for a datagram, 0 when
 * END arrived, -1 on error or silence past the idle timeout. */
static int wait_udp(int control_fd, double idle_timeout_s, int udp_fd, char *err,
                    size_t err_len)
{
    struct pollfd waiting[2] = { { .fd = udp_fd, .events = POLLIN },
                                 { .fd = control_fd, .events = POLLIN } };
    int rc = poll(waiting, 2, (int)(idle_timeout_s * 1000));
    if (rc == 0) {
        snprintf(err, err_len, "receive: the peer stalled (timed out)");
        return -1;
    }
    if (rc < 0 || waiting[1].revents) {
        struct vp_frame_header header;
        if (rc < 0 || vp_wire_recv_header(control_fd, &header, err, err_len) != 0)
            return -1;
        if (header.type != VP_FRAME_END) {
            snprintf(err, err_len, "expected END, received %s", vp_frame_type_name(header.type));
            return -1;
        }
        return 0;
    }
    return 1;
}

/* What a UDP test does with each datagram that is the session's. */
struct udp_handler {
    void (*take)(struct udp_handler *handler, const uint8_t *datagram, size_t len,
                 const struct sockaddr_storage *from, socklen_t from_len, int64_t now);
    int udp_fd;
    const struct vp_test_request *request;
    struct vp_test_result *result;
    struct vp_cpu_span span;
    int64_t omit_until, previous_transit;
    double jitter;
    uint8_t *response;
};

/* Receives datagrams until END on the control connection. Only datagrams of the agreed
 * size from the host of the TCP session are handled: others are never counted nor
 * answered. */
static int serve_udp(int control_fd, double idle_timeout_s, struct udp_handler *handler,
                     char *err, size_t err_len)
{
    uint8_t *datagram = malloc(VP_UDP_MESSAGE_MAX + 1);
    if (!datagram) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    struct sockaddr_storage client;
    socklen_t client_len = sizeof client;
    getpeername(control_fd, (struct sockaddr *)&client, &client_len);
    int status;
    while ((status = wait_udp(control_fd, idle_timeout_s, handler->udp_fd, err, err_len)) == 1) {
        struct sockaddr_storage from;
        socklen_t from_len = sizeof from;
        ssize_t got;
        while ((got = recvfrom(handler->udp_fd, datagram, VP_UDP_MESSAGE_MAX + 1, MSG_DONTWAIT,
                               (struct sockaddr *)&from, &from_len)) >= 0) {
            if (got == (ssize_t)handler->request->message_size && vp_same_host(&from, &client))
                handler->take(handler, datagram, (size_t)got, &from, from_len, vp_now_ns());
            from_len = sizeof from;
        }
    }
    free(datagram);
    return status;
}

/* Stream: counts datagrams and payload, and the interarrival jitter (RFC 3550: the
 * smoothed change in transit time, so the two clocks need not agree). */
static void take_stream_datagram(struct udp_handler *handler, const uint8_t *datagram,
                                 size_t len, const struct sockaddr_storage *from,
                                 socklen_t from_len, int64_t now)
{
    (void)from;
    (void)from_len;
    struct vp_test_result *result = handler->result;
    if (!handler->omit_until)
        handler->omit_until = now + (int64_t)handler->request->omit_ms * 1000000;
    if (now < handler->omit_until)
        return;
    if (!handler->span.from)
        vp_cpu_span_start(&handler->span);
    struct vp_datagram header;
    if (vp_datagram_decode(datagram, len, &header) != 0)
        return; /* shorter than the header: not one of ours */
    int64_t transit = now - header.sent_ns;
    if (result->transactions > 0) {
        double change = (double)(transit - handler->previous_transit);
        handler->jitter += ((change < 0 ? -change : change) - handler->jitter) / 16;
    }
    handler->previous_transit = transit;
    result->transactions++;
    result->bytes += len;
}

/* Request/response: answers with response_size bytes carrying the request's number. */
static void take_request_datagram(struct udp_handler *handler, const uint8_t *datagram,
                                  size_t len, const struct sockaddr_storage *from,
                                  socklen_t from_len, int64_t now)
{
    (void)now;
    uint32_t size = handler->request->response_size;
    memcpy(handler->response, datagram, 8);
    if (sendto(handler->udp_fd, handler->response, size, 0, (const struct sockaddr *)from,
               from_len) == (ssize_t)size) {
        handler->result->transactions++;
        handler->result->bytes += len + size;
    }
}

int vp_udp_test_run(int control_fd, double idle_timeout_s, int udp_fd,
                    const struct vp_test_request *request, struct vp_test_result *result,
                    char *err, size_t err_len)
{
    struct udp_handler handler = { .udp_fd = udp_fd, .request = request, .result = result };
    if (request->kind == VP_TEST_RR) {
        handler.take = take_request_datagram;
        handler.response = calloc(1, request->response_size);
        if (!handler.response) {
            snprintf(err, err_len, "out of memory");
            return -1;
        }
        vp_cpu_span_start(&handler.span);
    } else {
        handler.take = take_stream_datagram;
    }
    int status = serve_udp(control_fd, idle_timeout_s, &handler, err, err_len);
    free(handler.response);
    vp_cpu_span_finish(&handler.span, result);
    result->jitter_ns = (uint64_t)handler.jitter;
    return status;
}
