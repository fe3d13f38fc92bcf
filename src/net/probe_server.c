/* The server's side of the probe test (probe.h): answers each of the client's probes at
 * once, sends its own at the same period to the address they come from, and tracks
 * their arrivals until END on the control connection. */
#define _GNU_SOURCE
#include "net/probe_server.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "core/clock.h"
#include "net/wire.h"

/* The datagrams waiting: echoes the client's probes, and learns where to send ours. */
static void take_datagrams(int udp_fd, const struct vp_test_request *request,
                           const struct sockaddr_storage *client, struct sockaddr_storage *peer,
                           socklen_t *peer_len, struct vp_gaps *arrivals,
                           struct vp_test_result *result)
{
    uint8_t datagram[VP_PROBE_MAX_BYTES + 1];
    struct sockaddr_storage from;
    socklen_t from_len = sizeof from;
    ssize_t got;
    while ((got = recvfrom(udp_fd, datagram, sizeof datagram, MSG_DONTWAIT,
                           (struct sockaddr *)&from, &from_len)) >= 0) {
        struct vp_probe probe;
        if (got == (ssize_t)request->message_size && vp_same_host(&from, client) &&
            vp_probe_decode(datagram, (size_t)got, &probe) == 0 && probe.kind == VP_PROBE_FROM_CLIENT) {
            vp_gaps_arrival(arrivals, vp_now_ns());
            datagram[16] = VP_PROBE_ECHO;
            if (sendto(udp_fd, datagram, (size_t)got, 0, (struct sockaddr *)&from, from_len) == got) {
                result->transactions++;
                result->bytes += 2 * (uint64_t)got;
            }
            *peer = from;
            *peer_len = from_len;
        }
        from_len = sizeof from;
    }
}

int vp_probe_serve(int control_fd, int udp_fd, const struct vp_test_request *request,
                   double idle_timeout_s, struct vp_probe_report *report,
                   struct vp_test_result *result, char *err, size_t err_len)
{
    struct sockaddr_storage client, peer;
    socklen_t client_len = sizeof client, peer_len = 0;
    getpeername(control_fd, (struct sockaddr *)&client, &client_len);
    int64_t period_ns = (int64_t)request->response_size * 1000;
    struct vp_gaps arrivals;
    int64_t start = vp_now_ns(), last_heard = start, next_send = start;
    vp_gaps_start(&arrivals, (int64_t)request->window * 1000, start, vp_clock_ns(CLOCK_REALTIME) - start);
    uint8_t probe[VP_PROBE_MAX_BYTES] = { 0 };
    uint64_t sent = 0;
    for (;;) {
        int64_t now = vp_now_ns();
        if (peer_len && now >= next_send) { /* ours, on schedule; after a stop, no burst */
            vp_probe_encode(&(struct vp_probe){ sent, now, VP_PROBE_FROM_SERVER }, probe);
            if (sendto(udp_fd, probe, request->message_size, 0, (struct sockaddr *)&peer,
                       peer_len) == (ssize_t)request->message_size)
                sent++;
            next_send = next_send + period_ns > now ? next_send + period_ns : now + period_ns;
        }
        int64_t wait_ns = peer_len ? next_send - now : 100000000;
        struct timespec timeout = { wait_ns / 1000000000, wait_ns % 1000000000 };
        struct pollfd waiting[2] = { { .fd = udp_fd, .events = POLLIN },
                                     { .fd = control_fd, .events = POLLIN } };
        int ready = ppoll(waiting, 2, wait_ns > 0 ? &timeout : &(struct timespec){ 0, 0 }, NULL);
        if (ready < 0 && errno != EINTR) {
            snprintf(err, err_len, "probe: poll: %s", strerror(errno));
            return -1;
        }
        now = vp_now_ns();
        if (ready > 0 && waiting[0].revents) {
            last_heard = now;
            take_datagrams(udp_fd, request, &client, &peer, &peer_len, &arrivals, result);
        }
        if (ready > 0 && waiting[1].revents) {
            struct vp_frame_header header;
            if (vp_wire_recv_header(control_fd, &header, err, err_len) != 0)
                return -1;
            if (header.type != VP_FRAME_END) {
                snprintf(err, err_len, "expected END, received %s", vp_frame_type_name(header.type));
                return -1;
            }
            break;
        }
        if ((double)(now - last_heard) > idle_timeout_s * 1e9) {
            snprintf(err, err_len, "receive: the peer stalled (timed out)");
            return -1;
        }
    }
    /* No vp_gaps_end: the client stops probing a grace period before END, and that
     * silence is not an interruption (one at the very end shows in the round trip). */
    result->elapsed_ns = (uint64_t)(vp_now_ns() - start);
    *report = (struct vp_probe_report){ .received = arrivals.arrivals, .sent = sent,
                                        .gap_count = arrivals.count,
                                        .longest_ns = arrivals.longest_ns,
                                        .total_ns = arrivals.total_ns,
                                        .listed_count = (uint32_t)arrivals.listed_count };
    memcpy(report->listed, arrivals.listed, sizeof arrivals.listed);
    return 0;
}
