/* net.rr: request/response round trips over one connection per job: closed loop, open
 * loop at a fixed --rate with latency from each request's scheduled send time, or UDP
 * datagrams with a lost response counted after 1 s. The peer, setup and CPU accounting
 * are net_peer.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/net_peer.h"
#include "core/clock.h"
#include "core/procfs.h"
#include "net/wire.h"

static const struct vp_option rr_options[] = {
    VP_NET_PEER_OPTIONS,
    { "size", VP_OPT_SIZE, "350", 1, 4194304.0, NULL, "request bytes (350 as in the SPring-8 2005 study)" },
    { "response-size", VP_OPT_SIZE, "350", 0, 4194304.0, NULL, "response bytes" },
    { "rate", VP_OPT_COUNT, "0", 0, 1e6, NULL,
      "requests per second per job, open loop (0: closed loop, one at a time)" },
    { "udp", VP_OPT_CHOICE, "off", 0, 0, "off|on",
      "requests and responses as UDP datagrams (closed loop); a response missing after 1 s "
      "counts as lost" },
};

enum rr_metric {
    RR_LATENCY,
    RR_RATE,
    RR_CLIENT_CPU,
    RR_SERVER_CPU,
    RR_LOSS,
    RR_METRIC_COUNT
};

static const struct vp_metric rr_metrics[] = {
    [RR_LATENCY] = { "latency", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "round-trip time (not half of it); percentiles in its distribution" },
    [RR_RATE] = { "rate", "ops/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM, "transactions per second" },
    [RR_CLIENT_CPU] = { "client_cpu", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                        "machine CPU busy on the client side" },
    [RR_SERVER_CPU] = { "server_cpu", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                        "machine CPU busy on the server side" },
    [RR_LOSS] = { "loss", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                  "--udp: requests without a response" },
};
_Static_assert(sizeof rr_metrics / sizeof rr_metrics[0] == RR_METRIC_COUNT,
               "one metric per slot");

static int rr_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                       size_t err_len)
{
    if (vp_net_validate(params, max_jobs, err, err_len) != 0)
        return -1;
    if (!vp_param_on(params, "udp"))
        return 0;
    uint64_t size = vp_param_number(params, "size");
    uint64_t response = vp_param_number(params, "response-size");
    if (vp_param_number(params, "rate") > 0) {
        snprintf(err, err_len, "--udp: open-loop --rate is TCP only for now");
        return -1;
    }
    if (size < VP_UDP_MESSAGE_MIN || size > VP_UDP_MESSAGE_MAX || response < 8 ||
        response > VP_UDP_MESSAGE_MAX) {
        snprintf(err, err_len, "--udp: accepted: --size %d to %d bytes and --response-size 8 "
                 "to %d bytes", VP_UDP_MESSAGE_MIN, VP_UDP_MESSAGE_MAX, VP_UDP_MESSAGE_MAX);
        return -1;
    }
    return 0;
}

struct rr_state {
    int fd;
    int udp_fd; /* --udp: the datagram socket; -1 otherwise */
    uint8_t *request;
    uint8_t *response;
};

static int rr_prepare(struct vp_job *job)
{
    struct rr_state *state = calloc(1, sizeof *state);
    if (!state)
        abort();
    job->state = state;
    state->request = calloc(1, vp_param_number(job->params, "size"));
    state->response = calloc(1, vp_param_number(job->params, "response-size") + 1);
    if (!state->request || !state->response)
        abort();
    return 0;
}

static int rr_open(struct vp_job *job, struct rr_state *state)
{
    int udp = vp_param_on(job->params, "udp");
    struct vp_test_request request = {
        .kind = VP_TEST_RR,
        .transport = udp ? VP_TRANSPORT_UDP : VP_TRANSPORT_TCP,
        .duration_ms = (uint32_t)(job->duration * 1000),
        .message_size = (uint32_t)vp_param_number(job->params, "size"),
        .response_size = (uint32_t)vp_param_number(job->params, "response-size"),
    };
    struct vp_test_ready ready;
    state->udp_fd = -1;
    state->fd = vp_client_open_test(&vp_net_peer, &request, &ready, job->error, sizeof job->error);
    if (state->fd < 0)
        return -1;
    if (udp && (state->udp_fd = vp_net_connect_udp(state->fd, ready.udp_port, job->error,
                                            sizeof job->error)) < 0) {
        close(state->fd);
        return -1;
    }
    return 0;
}

#define UDP_RESPONSE_TIMEOUT_NS 1000000000 /* a response later than this counts as lost */

/* One numbered request datagram and its response; 1 when it came back, 0 when it was
 * lost, -1 on error. Late responses to earlier requests are skipped. */
static int rr_udp_exchange(struct vp_job *job, struct rr_state *state, uint64_t sequence,
                           uint32_t size, uint32_t expect, uint8_t *response)
{
    vp_datagram_encode(&(struct vp_datagram){ sequence, vp_now_ns() }, state->request);
    if (send(state->udp_fd, state->request, size, 0) < 0 && errno != ENOBUFS) {
        snprintf(job->error, sizeof job->error, "net.rr: UDP send: %s", strerror(errno));
        return -1;
    }
    int64_t give_up = vp_now_ns() + UDP_RESPONSE_TIMEOUT_NS;
    for (int64_t now = vp_now_ns(); now < give_up; now = vp_now_ns()) {
        struct pollfd waiting = { .fd = state->udp_fd, .events = POLLIN };
        if (poll(&waiting, 1, (int)((give_up - now) / 1000000) + 1) <= 0)
            continue;
        ssize_t got = recv(state->udp_fd, response, expect, 0);
        if (got < 0 && errno != ECONNREFUSED && errno != EINTR) {
            snprintf(job->error, sizeof job->error, "net.rr: UDP receive: %s", strerror(errno));
            return -1;
        }
        uint64_t echoed;
        if (got == (ssize_t)expect && vp_datagram_sequence(response, (size_t)got, &echoed) == 0 &&
            echoed == sequence)
            return 1;
    }
    return 0;
}

/* One RESPONSE of expect bytes, header and payload in one receive; an ERROR from the
 * peer or another frame is named. */
static int receive_response(int fd, uint8_t *buffer, uint32_t expect, char *err, size_t err_len)
{
    struct vp_frame_header header;
    if (vp_wire_recv_sized(fd, &header, buffer, expect, err, err_len) != 0)
        return -1;
    if (header.type == VP_FRAME_RESPONSE && header.length == expect)
        return 0;
    if (header.type == VP_FRAME_ERROR && header.length <= VP_ERROR_TEXT_MAX) {
        uint8_t text[VP_ERROR_TEXT_MAX];
        uint32_t came = header.length < expect ? header.length : expect;
        memcpy(text, buffer, came);
        if (vp_wire_read_payload(fd, &header, text + came, header.length - came, err,
                                 err_len) != 0)
            return -1;
        char printable[VP_ERROR_TEXT_MAX + 1];
        vp_error_text_decode(text, header.length, printable, sizeof printable);
        snprintf(err, err_len, "peer: %.240s", printable);
        return -1;
    }
    snprintf(err, err_len, "expected a RESPONSE of %u bytes, received %s of %u", expect,
             vp_frame_type_name(header.type), header.length);
    return -1;
}

/* A round trip: one send, one receive. */
static int rr_exchange(struct vp_job *job, struct rr_state *state, uint32_t size, uint32_t expect)
{
    if (vp_wire_send(state->fd, VP_FRAME_REQUEST, state->request, size, job->error,
                     sizeof job->error) != 0)
        return -1;
    return receive_response(state->fd, state->response, expect, job->error, sizeof job->error);
}

/* Open loop: the sender keeps a schedule; the receiver measures each response from its
 * request's scheduled send time, so a slow peer cannot hide its queueing delay. */
struct open_loop {
    struct vp_job *job;
    struct rr_state *state;
    int64_t *scheduled;
    uint64_t capacity, total;
    atomic_uint_fast64_t sent;
    int failed;
    char error[VP_ERROR_LEN];
};

static void *open_loop_receiver(void *arg)
{
    struct open_loop *loop = arg;
    uint32_t expect = (uint32_t)vp_param_number(loop->job->params, "response-size");
    for (uint64_t i = 0; i < loop->total; i++) {
        if (receive_response(loop->state->fd, loop->state->response, expect, loop->error,
                             VP_ERROR_LEN) != 0) {
            loop->failed = 1;
            return NULL;
        }
        int64_t now = vp_now_ns();
        vp_histogram_record(loop->job->histogram, (uint64_t)(now - loop->scheduled[i % loop->capacity]));
    }
    return NULL;
}

static int rr_open_loop(struct vp_job *job, struct rr_state *state, uint64_t rate,
                        uint64_t *transactions, double *latency_sum)
{
    struct open_loop loop = { .job = job, .state = state };
    loop.total = (uint64_t)(job->duration * (double)rate);
    if (loop.total == 0)
        loop.total = 1;
    loop.capacity = loop.total < (1u << 20) ? loop.total : (1u << 20);
    loop.scheduled = calloc(loop.capacity, sizeof *loop.scheduled);
    if (!loop.scheduled)
        abort();
    uint64_t before = job->histogram->count;
    double sum_before = job->histogram->sum_ns;
    pthread_t receiver;
    pthread_create(&receiver, NULL, open_loop_receiver, &loop);
    uint32_t size = (uint32_t)vp_param_number(job->params, "size");
    int64_t start = vp_now_ns();
    int status = 0;
    for (uint64_t i = 0; i < loop.total && !loop.failed; i++) {
        int64_t when = start + (int64_t)((double)i * 1e9 / (double)rate);
        if (i >= loop.capacity) {
            snprintf(job->error, sizeof job->error, "net.rr: more than %llu requests outstanding "
                     "(--rate too high for this peer)", (unsigned long long)loop.capacity);
            status = -1;
            break;
        }
        loop.scheduled[i % loop.capacity] = when;
        vp_sleep_until_ns(when);
        if (vp_wire_send(state->fd, VP_FRAME_REQUEST, state->request, size, job->error,
                         sizeof job->error) != 0) {
            status = -1;
            break;
        }
    }
    if (status != 0)
        shutdown(state->fd, SHUT_RDWR);
    pthread_join(receiver, NULL);
    free(loop.scheduled);
    if (status == 0 && loop.failed) {
        snprintf(job->error, sizeof job->error, "net.rr: %.200s", loop.error);
        status = -1;
    }
    *transactions = job->histogram->count - before;
    *latency_sum = (job->histogram->sum_ns - sum_before) / 1e9;
    return status;
}

static int rr_measure(struct vp_job *job, double *values)
{
    struct rr_state *state = job->state;
    if (rr_open(job, state) != 0)
        return -1;
    uint32_t size = (uint32_t)vp_param_number(job->params, "size");
    uint32_t expect = (uint32_t)vp_param_number(job->params, "response-size");
    uint64_t rate = vp_param_number(job->params, "rate"), transactions = 0;
    double latency_sum = 0;
    uint64_t client[VP_CPU_FIELDS];
    struct vp_cpu_watch cpu_watch;
    vp_cpu_watch_start(&cpu_watch);
    int64_t start = vp_now_ns(), deadline = start + (int64_t)(job->duration * 1e9);
    int status = 0;
    uint64_t lost = 0;
    if (state->udp_fd >= 0) {
        for (int64_t now = start; now < deadline && status == 0; now = vp_now_ns()) {
            status = rr_udp_exchange(job, state, transactions + lost, size, expect, state->response);
            int64_t done = vp_now_ns();
            if (status == 1) {
                vp_histogram_record(job->histogram, (uint64_t)(done - now));
                latency_sum += (double)(done - now) / 1e9;
                transactions++;
            } else if (status == 0) {
                lost++;
            }
            status = status < 0 ? -1 : 0;
        }
    } else if (rate > 0) {
        status = rr_open_loop(job, state, rate, &transactions, &latency_sum);
    } else {
        for (int64_t now = start; now < deadline && status == 0; transactions++) {
            status = rr_exchange(job, state, size, expect);
            int64_t done = vp_now_ns();
            vp_histogram_record(job->histogram, (uint64_t)(done - now));
            latency_sum += (double)(done - now) / 1e9;
            now = done;
        }
    }
    double elapsed = (double)(vp_now_ns() - start) / 1e9;
    vp_cpu_watch_stop(&cpu_watch, client);
    struct vp_test_result result;
    if (status == 0 && (vp_wire_send(state->fd, VP_FRAME_END, NULL, 0, job->error, sizeof job->error) != 0 ||
                        vp_client_result(state->fd, &result, job->error, sizeof job->error) != 0))
        status = -1;
    close(state->fd);
    if (state->udp_fd >= 0)
        close(state->udp_fd);
    if (status != 0)
        return -1;
    values[RR_LATENCY] = transactions ? latency_sum / (double)transactions : 0;
    values[RR_RATE] = (double)transactions / elapsed;
    values[RR_CLIENT_CPU] = vp_cpu_busy_percent(client);
    values[RR_SERVER_CPU] = vp_cpu_busy_percent(result.cpu_ticks);
    values[RR_LOSS] = state->udp_fd >= 0 ? 100.0 * (double)lost / (double)(lost + transactions) : NAN;
    return 0;
}

static void rr_release(struct vp_job *job)
{
    struct rr_state *state = job->state;
    free(state->request);
    free(state->response);
    free(state);
}

const struct vp_bench vp_bench_net_rr = {
    .name = "net.rr",
    .summary = "request/response round-trip latency (350 bytes by default)",
    .description =
        "Each job holds one connection (TCP_NODELAY) and exchanges --size requests and "
        "--response-size responses for --duration: one at a time (closed loop), or at "
        "--rate per second, each latency measured from its scheduled send time (no "
        "coordinated omission). latency is the full round trip, not half of it.",
    .options = rr_options,
    .option_count = sizeof rr_options / sizeof rr_options[0],
    .metrics = rr_metrics,
    .metric_count = RR_METRIC_COUNT,
    .distribution_metric = "latency",
    VP_NET_BENCH_COMMON,
    .validate = rr_validate,
    .prepare = rr_prepare,
    .measure = rr_measure,
    .release = rr_release,
};
