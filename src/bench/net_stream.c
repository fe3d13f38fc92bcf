/* net.stream: throughput over --streams connections per job, one thread each, TCP (or
 * UDP datagrams with loss and jitter), with the CPU cost on both ends. The peer, setup
 * and CPU accounting are net_peer.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
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

static const struct vp_option stream_options[] = {
    VP_NET_PEER_OPTIONS,
    { "streams", VP_OPT_COUNT, "1", 1, 128, NULL, "parallel connections per job, a thread each" },
    { "window", VP_OPT_SIZE, "0", 0, 268435456.0, NULL,
      "SO_SNDBUF and SO_RCVBUF on both ends (0: the kernel's autotuning); the kernel's "
      "actual value is reported as the window metric" },
    { "msg-size", VP_OPT_SIZE, "128k", 1, 4194304.0, NULL, "bytes per send" },
    { "omit", VP_OPT_DURATION, "0", 0, 60, NULL, "warm-up seconds not counted, per repetition" },
    { "reverse", VP_OPT_CHOICE, "off", 0, 0, "off|on", "the server sends, the client receives" },
    { "bidir", VP_OPT_CHOICE, "off", 0, 0, "off|on",
      "both directions at once (each stream becomes one connection each way)" },
    { "udp", VP_OPT_CHOICE, "off", 0, 0, "off|on",
      "UDP datagrams client to server (--msg-size defaults to 1460 then), with loss and "
      "jitter" },
    { "rate", VP_OPT_COUNT, "0", 0, 1e12, NULL,
      "--udp: bits per second per stream, k/m/g = 10^3/10^6/10^9 (0: as fast as it goes)" },
};

enum stream_metric {
    STREAM_THROUGHPUT,
    STREAM_BYTES_SENT,
    STREAM_BYTES_RECEIVED,
    STREAM_RETRANSMITS,
    STREAM_CLIENT_CPU,
    STREAM_SERVER_CPU,
    STREAM_SERVER_STEAL,
    STREAM_CLIENT_DEMAND,
    STREAM_SERVER_DEMAND,
    STREAM_WINDOW,
    STREAM_LOSS,
    STREAM_JITTER,
    STREAM_METRIC_COUNT
};

static const struct vp_metric stream_metrics[] = {
    [STREAM_THROUGHPUT] = { "throughput", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                            "payload received per second" },
    [STREAM_BYTES_SENT] = { "bytes_sent", "B", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                            "payload bytes the senders counted" },
    [STREAM_BYTES_RECEIVED] = { "bytes_received", "B", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                                "payload bytes the receivers counted" },
    [STREAM_RETRANSMITS] = { "retransmits", "count", VP_LOWER_IS_BETTER, VP_AGG_SUM,
                             "TCP retransmits of client sockets" },
    [STREAM_CLIENT_CPU] = { "client_cpu", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                            "machine CPU busy on the client side" },
    [STREAM_SERVER_CPU] = { "server_cpu", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                            "machine CPU busy on the server side" },
    [STREAM_SERVER_STEAL] = { "server_steal", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                              "steal time on the server side" },
    [STREAM_CLIENT_DEMAND] = { "client_demand", "us/MB", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                               "client CPU microseconds per MB" },
    [STREAM_SERVER_DEMAND] = { "server_demand", "us/MB", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                               "server CPU microseconds per MB" },
    [STREAM_WINDOW] = { "window", "B", VP_HIGHER_IS_BETTER, VP_AGG_MEAN,
                        "socket buffer the kernel gave the client" },
    [STREAM_LOSS] = { "loss", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                      "--udp: datagrams sent but not received" },
    [STREAM_JITTER] = { "jitter", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                        "--udp: RFC 3550 interarrival jitter" },
};
_Static_assert(sizeof stream_metrics / sizeof stream_metrics[0] == STREAM_METRIC_COUNT,
               "one metric per slot");

/* The message size of a stream: --msg-size, or 1460 for UDP when not given. */
static uint32_t stream_message_size(const struct vp_params *params)
{
    int index = vp_params_find(params, "msg-size");
    if (vp_param_on(params, "udp") && !params->values[index].given)
        return 1460;
    return (uint32_t)vp_param_number(params, "msg-size");
}

static int stream_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                           size_t err_len)
{
    if (vp_net_validate(params, max_jobs, err, err_len) != 0)
        return -1;
    if (!vp_param_on(params, "udp")) {
        if (vp_param_number(params, "rate") > 0) {
            snprintf(err, err_len, "--rate on net.stream needs --udp (TCP paces itself)");
            return -1;
        }
        return 0;
    }
    uint32_t size = stream_message_size(params);
    if (vp_param_on(params, "reverse") || vp_param_on(params, "bidir") ||
        vp_param_seconds(params, "omit") > 0) {
        snprintf(err, err_len, "--udp: --reverse, --bidir and --omit are TCP only");
        return -1;
    }
    if (size < VP_UDP_MESSAGE_MIN || size > VP_UDP_MESSAGE_MAX) {
        snprintf(err, err_len, "--msg-size %u: accepted with --udp: %d to %d bytes", size,
                 VP_UDP_MESSAGE_MIN, VP_UDP_MESSAGE_MAX);
        return -1;
    }
    return 0;
}

struct stream {
    struct vp_job *job;          /* for its per-second byte counts */
    int fd;
    int udp_fd;                  /* --udp: the datagram socket; -1 otherwise */
    uint64_t rate_bps;           /* --udp: pacing, 0 unpaced */
    uint64_t datagrams;          /* --udp: datagrams sent */
    int sending;                 /* this end sends */
    double duration_s, omit_s;
    uint32_t message_size;
    uint64_t bytes;              /* counted by this end */
    double elapsed_s;            /* this end's counting span (receivers) */
    struct vp_test_result result;
    uint32_t window;
    uint32_t retransmits;
    char error[VP_ERROR_LEN];
    int failed;
};

static void *stream_sender(struct stream *stream)
{
    uint8_t *message = calloc(1, stream->message_size);
    if (!message)
        abort();
    int64_t start = vp_now_ns();
    int64_t counting_from = start + (int64_t)(stream->omit_s * 1e9);
    int64_t end = counting_from + (int64_t)(stream->duration_s * 1e9);
    char *err = stream->error;
    for (int64_t now = start; now < end; now = vp_now_ns()) {
        if (vp_wire_send(stream->fd, VP_FRAME_DATA, message, stream->message_size, err,
                         VP_ERROR_LEN) != 0) {
            stream->failed = 1;
            break;
        }
        vp_job_count_interval(stream->job, vp_now_ns(), stream->message_size);
        if (now >= counting_from)
            stream->bytes += stream->message_size;
    }
    free(message);
    return NULL;
}

static void stream_receiver(struct stream *stream)
{
    int64_t counting_from = 0, omit_until = 0;
    for (;;) {
        struct vp_frame_header header;
        if (vp_wire_recv_header(stream->fd, &header, stream->error, VP_ERROR_LEN) != 0) {
            stream->failed = 1;
            return;
        }
        int64_t now = vp_now_ns();
        if (header.type == VP_FRAME_END)
            break;
        if (header.type != VP_FRAME_DATA) {
            snprintf(stream->error, VP_ERROR_LEN, "expected DATA, received %s",
                     vp_frame_type_name(header.type));
            stream->failed = 1;
            return;
        }
        if (!omit_until)
            omit_until = now + (int64_t)(stream->omit_s * 1e9);
        if (vp_wire_discard(stream->fd, &header, stream->error, VP_ERROR_LEN) != 0) {
            stream->failed = 1;
            return;
        }
        vp_job_count_interval(stream->job, vp_now_ns(), header.length);
        if (now >= omit_until) {
            if (!counting_from)
                counting_from = now;
            stream->bytes += header.length;
        }
    }
    stream->elapsed_s = counting_from ? (double)(vp_now_ns() - counting_from) / 1e9 : 0;
}

/* Sends numbered, timestamped datagrams for the duration, paced to rate_bps if set. A
 * datagram the kernel refuses for want of buffer space (ENOBUFS) is not counted as sent. */
static void udp_sender(struct stream *stream)
{
    uint8_t *datagram = calloc(1, stream->message_size);
    if (!datagram)
        abort();
    int64_t start = vp_now_ns(), end = start + (int64_t)(stream->duration_s * 1e9);
    double gap_ns = stream->rate_bps ? stream->message_size * 8.0 * 1e9 / (double)stream->rate_bps : 0;
    for (uint64_t attempt = 0;; attempt++) {
        int64_t now = vp_now_ns();
        if (gap_ns > 0) {
            int64_t due = start + (int64_t)((double)attempt * gap_ns);
            if (due > now) {
                vp_sleep_until_ns(due);
                now = vp_now_ns();
            }
        }
        if (now >= end)
            break;
        vp_datagram_encode(&(struct vp_datagram){ stream->datagrams, now }, datagram);
        if (send(stream->udp_fd, datagram, stream->message_size, 0) < 0) {
            if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR)
                continue;
            snprintf(stream->error, VP_ERROR_LEN, "UDP send: %s", strerror(errno));
            stream->failed = 1;
            break;
        }
        stream->datagrams++;
        stream->bytes += stream->message_size;
        vp_job_count_interval(stream->job, now, stream->message_size);
    }
    free(datagram);
}

static void *stream_thread(void *arg)
{
    struct stream *stream = arg;
    if (stream->udp_fd >= 0) {
        udp_sender(stream);
        if (!stream->failed &&
            vp_wire_send(stream->fd, VP_FRAME_END, NULL, 0, stream->error, VP_ERROR_LEN) != 0)
            stream->failed = 1;
    } else if (stream->sending) {
        stream_sender(stream);
        if (!stream->failed &&
            vp_wire_send(stream->fd, VP_FRAME_END, NULL, 0, stream->error, VP_ERROR_LEN) != 0)
            stream->failed = 1;
    } else {
        stream_receiver(stream);
    }
    struct tcp_info info;
    socklen_t info_len = sizeof info;
    if (getsockopt(stream->fd, IPPROTO_TCP, TCP_INFO, &info, &info_len) == 0)
        stream->retransmits = info.tcpi_total_retrans;
    if (!stream->failed &&
        vp_client_result(stream->fd, &stream->result, stream->error, VP_ERROR_LEN) != 0)
        stream->failed = 1;
    return NULL;
}

static int open_stream(struct stream *stream, int sending, struct vp_job *job)
{
    const struct vp_params *params = job->params;
    struct vp_peer local = vp_net_peer;
    local.window = (uint32_t)vp_param_number(params, "window");
    int udp = vp_param_on(params, "udp");
    struct vp_test_request request = {
        .kind = sending ? VP_TEST_STREAM_TO_SERVER : VP_TEST_STREAM_FROM_SERVER,
        .transport = udp ? VP_TRANSPORT_UDP : VP_TRANSPORT_TCP,
        .duration_ms = (uint32_t)(job->duration * 1000),
        .omit_ms = (uint32_t)(vp_param_seconds(params, "omit") * 1000),
        .message_size = stream_message_size(params),
        .window = local.window,
    };
    struct vp_test_ready ready;
    memset(stream, 0, sizeof *stream);
    stream->udp_fd = -1;
    stream->rate_bps = vp_param_number(params, "rate");
    stream->job = job;
    stream->sending = sending;
    stream->duration_s = job->duration;
    stream->omit_s = vp_param_seconds(params, "omit");
    stream->message_size = request.message_size;
    stream->fd = vp_client_open_test(&local, &request, &ready, stream->error, VP_ERROR_LEN);
    if (stream->fd < 0)
        return -1;
    if (udp && (stream->udp_fd = vp_net_connect_udp(stream->fd, ready.udp_port, stream->error,
                                             VP_ERROR_LEN)) < 0)
        return -1;
    if (udp && local.window) {
        int requested = (int)local.window;
        setsockopt(stream->udp_fd, SOL_SOCKET, SO_SNDBUF, &requested, sizeof requested);
    }
    int size = 0;
    socklen_t size_len = sizeof size;
    getsockopt(udp ? stream->udp_fd : stream->fd, SOL_SOCKET, sending ? SO_SNDBUF : SO_RCVBUF,
               &size, &size_len);
    stream->window = (uint32_t)size;
    return 0;
}

static int stream_measure(struct vp_job *job, double *values)
{
    unsigned streams = (unsigned)vp_param_number(job->params, "streams");
    int bidir = vp_param_on(job->params, "bidir"), reverse = vp_param_on(job->params, "reverse");
    unsigned count = bidir ? 2 * streams : streams;
    struct stream *all = calloc(count, sizeof *all);
    pthread_t *threads = calloc(count, sizeof *threads);
    if (!all || !threads)
        abort();
    int status = 0;
    unsigned opened = 0;
    for (; opened < count && status == 0; opened++) {
        int sending = bidir ? opened % 2 == 0 : !reverse;
        if (open_stream(&all[opened], sending, job) != 0) {
            snprintf(job->error, sizeof job->error, "net.stream: %.200s", all[opened].error);
            status = -1;
        }
    }
    uint64_t client[VP_CPU_FIELDS];
    struct vp_cpu_watch cpu_watch;
    vp_cpu_watch_start(&cpu_watch);
    unsigned started = 0;
    for (; started < count && status == 0; started++)
        if (pthread_create(&threads[started], NULL, stream_thread, &all[started]) != 0)
            status = -1;
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    vp_cpu_watch_stop(&cpu_watch, client);

    double throughput = 0, sent = 0, received = 0, retransmits = 0, window = 0;
    double server_cpu = 0, server_steal = 0, server_demand = 0, loss = 0, jitter = 0;
    for (unsigned i = 0; i < count && status == 0; i++) {
        struct stream *stream = &all[i];
        if (stream->failed) {
            snprintf(job->error, sizeof job->error, "net.stream: %.200s", stream->error);
            status = -1;
            break;
        }
        if (stream->udp_fd >= 0) {
            loss += stream->datagrams
                        ? 100.0 * (double)(stream->datagrams - stream->result.transactions) /
                              (double)stream->datagrams
                        : 0;
            jitter += (double)stream->result.jitter_ns / 1e9;
        }
        double stream_received = stream->sending ? (double)stream->result.bytes : (double)stream->bytes;
        double stream_elapsed = stream->sending ? (double)stream->result.elapsed_ns / 1e9
                                                : stream->elapsed_s;
        sent += stream->sending ? (double)stream->bytes : (double)stream->result.bytes;
        received += stream_received;
        throughput += stream_elapsed > 0 ? stream_received / stream_elapsed : 0;
        retransmits += stream->retransmits;
        window += stream->window;
        server_cpu += vp_cpu_busy_percent(stream->result.cpu_ticks);
        server_steal += vp_cpu_steal_percent(stream->result.cpu_ticks);
        server_demand += vp_cpu_demand(stream->result.cpu_ticks, stream->result.ticks_per_second,
                                stream_received) / count;
    }
    int udp = count > 0 && all[0].udp_fd >= 0;
    for (unsigned i = 0; i < opened; i++) {
        if (all[i].fd > 0)
            close(all[i].fd);
        if (all[i].udp_fd > 0)
            close(all[i].udp_fd);
    }
    free(all);
    free(threads);
    if (status != 0)
        return -1;
    values[STREAM_THROUGHPUT] = throughput;
    values[STREAM_BYTES_SENT] = sent;
    values[STREAM_BYTES_RECEIVED] = received;
    values[STREAM_RETRANSMITS] = udp ? NAN : retransmits; /* TCP's figure; UDP does not retransmit */
    values[STREAM_CLIENT_CPU] = vp_cpu_busy_percent(client);
    values[STREAM_SERVER_CPU] = server_cpu / count;
    values[STREAM_SERVER_STEAL] = server_steal / count;
    values[STREAM_CLIENT_DEMAND] = vp_cpu_demand(client, (double)sysconf(_SC_CLK_TCK), received);
    values[STREAM_SERVER_DEMAND] = server_demand;
    values[STREAM_WINDOW] = window / count;
    values[STREAM_LOSS] = udp ? loss / count : NAN; /* UDP's figures; TCP has neither */
    values[STREAM_JITTER] = udp ? jitter / count : NAN;
    return 0;
}

const struct vp_bench vp_bench_net_stream = {
    .name = "net.stream",
    .summary = "TCP throughput over parallel streams, with CPU cost on both ends",
    .description =
        "Each job opens --streams connections to the peer (one thread each), then sends "
        "(or with --reverse receives) 128 KiB messages for --duration after --omit "
        "seconds of warm-up. throughput is payload received over the receiver's counting "
        "span; both ends count bytes. CPU is the machine's busy time from /proc/stat on "
        "each side (steal included), and demand is CPU microseconds per MB moved.",
    .options = stream_options,
    .option_count = sizeof stream_options / sizeof stream_options[0],
    .metrics = stream_metrics,
    .metric_count = STREAM_METRIC_COUNT,
    .interval_series = "payload bytes per second the client sent (received with --reverse; "
                       "both with --bidir), from the repetition's start",
    VP_NET_BENCH_COMMON,
    .validate = stream_validate,
    .measure = stream_measure,
};
