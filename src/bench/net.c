/* net.*: network benchmarks against a `virtperf serve` peer (--peer), or against one
 * this run starts on loopback. net.stream: TCP throughput over --streams connections,
 * one thread each, with CPU cost on both ends. net.rr: request/response round trips,
 * closed loop or at a fixed --rate measured from the scheduled send time. net.connect:
 * connection setup latency and rate. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "core/clock.h"
#include "core/procfs.h"
#include "net/client.h"
#include "net/server.h"
#include "net/wire.h"

#define EMBEDDED "embedded"
#define PEER_TIMEOUT_S 10.0

#define PEER_OPTIONS                                                                        \
    { "peer", VP_OPT_TEXT, EMBEDDED, 0, 0, NULL,                                            \
      "HOST[:PORT] running `virtperf serve`; embedded: a server this run starts on "       \
      "loopback" },                                                                         \
    { "key-file", VP_OPT_TEXT, "none", 0, 0, NULL,                                          \
      "file holding the shared secret the peer requires (none: no key)" }

static const struct vp_option stream_options[] = {
    PEER_OPTIONS,
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

static const struct vp_metric stream_metrics[] = {
    { "throughput", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM, "payload received per second" },
    { "bytes_sent", "B", VP_HIGHER_IS_BETTER, VP_AGG_SUM, "payload bytes the senders counted" },
    { "bytes_received", "B", VP_HIGHER_IS_BETTER, VP_AGG_SUM, "payload bytes the receivers counted" },
    { "retransmits", "count", VP_LOWER_IS_BETTER, VP_AGG_SUM, "TCP retransmits of client sockets" },
    { "client_cpu", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "machine CPU busy on the client side" },
    { "server_cpu", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "machine CPU busy on the server side" },
    { "server_steal", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "steal time on the server side" },
    { "client_demand", "us/MB", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "client CPU microseconds per MB" },
    { "server_demand", "us/MB", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "server CPU microseconds per MB" },
    { "window", "B", VP_HIGHER_IS_BETTER, VP_AGG_MEAN, "socket buffer the kernel gave the client" },
    { "loss", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "--udp: datagrams sent but not received" },
    { "jitter", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "--udp: RFC 3550 interarrival jitter" },
};

static const struct vp_option rr_options[] = {
    PEER_OPTIONS,
    { "size", VP_OPT_SIZE, "350", 1, 4194304.0, NULL, "request bytes (350 as in seed 001)" },
    { "response-size", VP_OPT_SIZE, "350", 0, 4194304.0, NULL, "response bytes" },
    { "rate", VP_OPT_COUNT, "0", 0, 1e6, NULL,
      "requests per second per job, open loop (0: closed loop, one at a time)" },
    { "udp", VP_OPT_CHOICE, "off", 0, 0, "off|on",
      "requests and responses as UDP datagrams (closed loop); a response missing after 1 s "
      "counts as lost" },
};

static const struct vp_metric rr_metrics[] = {
    { "latency", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
      "round-trip time (not half of it); percentiles in its distribution" },
    { "rate", "ops/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM, "transactions per second" },
    { "client_cpu", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "machine CPU busy on the client side" },
    { "server_cpu", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "machine CPU busy on the server side" },
    { "loss", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "--udp: requests without a response" },
};

static const struct vp_option connect_options[] = { PEER_OPTIONS };

static const struct vp_metric connect_metrics[] = {
    { "latency", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
      "connect(2) time: the TCP handshake; percentiles in its distribution" },
    { "rate", "ops/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
      "connections per second: connect, authenticate, one exchange, close" },
};

/* Set in the parent (setup) and inherited by the forked jobs. */
static struct vp_peer peer;
static pid_t embedded_pid;

static volatile sig_atomic_t embedded_stop;

static void stop_embedded(int signo)
{
    (void)signo;
    embedded_stop = 1;
}

/* Forks a server on 127.0.0.1 and an ephemeral port; returns its port or 0. */
static uint16_t start_embedded_server(char *err, size_t err_len)
{
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) {
        snprintf(err, err_len, "cannot create a pipe: %s", strerror(errno));
        return 0;
    }
    fflush(NULL);
    embedded_pid = fork();
    if (embedded_pid == 0) {
        close(pipe_fds[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        struct sigaction action = { .sa_handler = stop_embedded };
        sigaction(SIGTERM, &action, NULL);
        signal(SIGINT, SIG_IGN); /* the parent decides when it stops */
        struct vp_serve_config config = {
            .bind = "127.0.0.1", .max_sessions = 1024, .key = peer.key_len ? peer.key : NULL,
            .key_len = peer.key_len, .idle_timeout_s = PEER_TIMEOUT_S,
        };
        char reason[256];
        _exit(vp_serve(&config, &embedded_stop, pipe_fds[1], reason, sizeof reason) == 0 ? 0 : 1);
    }
    close(pipe_fds[1]);
    uint8_t encoded[2];
    struct pollfd waiting = { .fd = pipe_fds[0], .events = POLLIN };
    int ready = embedded_pid > 0 && poll(&waiting, 1, 5000) == 1 &&
                read(pipe_fds[0], encoded, 2) == 2;
    close(pipe_fds[0]);
    if (!ready) {
        snprintf(err, err_len, "the embedded loopback server did not start");
        return 0;
    }
    return (uint16_t)(encoded[0] << 8 | encoded[1]);
}

static int load_peer(const struct vp_params *params, char *err, size_t err_len)
{
    const char *where = vp_param_text(params, "peer");
    return vp_peer_from_options(strcmp(where, EMBEDDED) == 0 ? "127.0.0.1" : where,
                                vp_param_text(params, "key-file"), PEER_TIMEOUT_S, &peer, err,
                                err_len);
}

/* The message size of a stream: --msg-size, or 1460 for UDP when not given. */
static uint32_t stream_message_size(const struct vp_params *params)
{
    int index = vp_params_find(params, "msg-size");
    if (vp_param_on(params, "udp") && !params->values[index].given)
        return 1460;
    return (uint32_t)vp_param_number(params, "msg-size");
}

static int udp_options_valid(const struct vp_params *params, char *err, size_t err_len)
{
    int udp = vp_params_find(params, "udp") >= 0 && vp_param_on(params, "udp");
    int streaming = vp_params_find(params, "streams") >= 0;
    if (!udp) {
        if (streaming && vp_param_number(params, "rate") > 0) {
            snprintf(err, err_len, "--rate on net.stream needs --udp (TCP paces itself)");
            return -1;
        }
        return 0;
    }
    if (streaming) {
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

static int net_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                        size_t err_len)
{
    (void)max_jobs;
    if (load_peer(params, err, err_len) != 0 || udp_options_valid(params, err, err_len) != 0)
        return -1;
    return 0;
}

static int net_setup(const struct vp_params *params, char *err, size_t err_len)
{
    if (load_peer(params, err, err_len) != 0)
        return -1;
    embedded_pid = 0;
    if (strcmp(vp_param_text(params, "peer"), EMBEDDED) == 0 &&
        (peer.port = start_embedded_server(err, err_len)) == 0)
        return -1;
    return 0;
}

static void net_teardown(const struct vp_params *params, unsigned jobs)
{
    (void)params;
    (void)jobs;
    if (embedded_pid > 0) {
        kill(embedded_pid, SIGTERM);
        while (waitpid(embedded_pid, NULL, 0) < 0 && errno == EINTR)
            ;
        embedded_pid = 0;
    }
}

/* The driver behind a network interface as ethtool reports it (virtio_net, veth, e1000),
 * "none" for interfaces without one (loopback). */
static void interface_driver(const char *interface, char *driver, size_t len)
{
    struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
    struct ifreq request;
    memset(&request, 0, sizeof request);
    snprintf(request.ifr_name, sizeof request.ifr_name, "%s", interface);
    request.ifr_data = (void *)&info;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int found = fd >= 0 && ioctl(fd, SIOCETHTOOL, &request) == 0 && info.driver[0];
    if (fd >= 0)
        close(fd);
    snprintf(driver, len, "%s", found ? info.driver : "none");
}

/* The client side's route to the peer: local interface, its MTU and driver, and the
 * congestion control in use. */
static void net_annotate(const struct vp_params *params, unsigned jobs, json_t *result)
{
    (void)params;
    (void)jobs;
    char err[256];
    int fd = vp_client_connect(&peer, NULL, err, sizeof err);
    if (fd < 0)
        return;
    struct sockaddr_storage local;
    socklen_t local_len = sizeof local;
    getsockname(fd, (struct sockaddr *)&local, &local_len);
    char congestion[32] = "";
    socklen_t congestion_len = sizeof congestion;
    getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, congestion, &congestion_len);
    close(fd);
    char interface[IF_NAMESIZE] = "", address[INET6_ADDRSTRLEN] = "";
    getnameinfo((struct sockaddr *)&local, local_len, address, sizeof address, NULL, 0,
                NI_NUMERICHOST);
    struct ifaddrs *list = NULL;
    if (getifaddrs(&list) == 0) {
        for (struct ifaddrs *item = list; item && !interface[0]; item = item->ifa_next) {
            char candidate[INET6_ADDRSTRLEN];
            if (item->ifa_addr && (item->ifa_addr->sa_family == AF_INET ||
                                   item->ifa_addr->sa_family == AF_INET6) &&
                getnameinfo(item->ifa_addr, item->ifa_addr->sa_family == AF_INET
                                                ? sizeof(struct sockaddr_in)
                                                : sizeof(struct sockaddr_in6),
                            candidate, sizeof candidate, NULL, 0, NI_NUMERICHOST) == 0 &&
                strcmp(candidate, address) == 0)
                snprintf(interface, sizeof interface, "%s", item->ifa_name);
        }
        freeifaddrs(list);
    }
    char path[128], mtu[16] = "", driver[64];
    snprintf(path, sizeof path, "/sys/class/net/%s/mtu", interface);
    if (vp_read_text_file(path, mtu, sizeof mtu) < 0)
        mtu[0] = '\0';
    interface_driver(interface, driver, sizeof driver);
    json_object_set_new(result, "peer",
                        json_pack("{s:s,s:i,s:s,s:s,s:i,s:s,s:s}", "address", peer.host, "port",
                                  peer.port, "local_address", address, "interface", interface,
                                  "mtu", atoi(mtu), "driver", driver, "congestion", congestion));
}

/* ---- CPU accounting ---- */

static double busy_ticks(const uint64_t *delta)
{
    return (double)(delta[0] + delta[1] + delta[2] + delta[5] + delta[6] + delta[7]);
}

static double all_ticks(const uint64_t *delta)
{
    double total = 0;
    for (int i = 0; i < VP_CPU_FIELDS; i++)
        total += (double)delta[i];
    return total;
}

static double busy_percent(const uint64_t *delta)
{
    double total = all_ticks(delta);
    return total > 0 ? 100 * busy_ticks(delta) / total : 0;
}

/* CPU microseconds (all CPUs) per megabyte moved. */
static double demand(const uint64_t *delta, double ticks_per_second, double bytes)
{
    return bytes > 0 ? busy_ticks(delta) / ticks_per_second * 1e6 / (bytes / 1e6) : 0;
}

static void cpu_delta(const uint64_t *before, const uint64_t *after, uint64_t *delta)
{
    for (int i = 0; i < VP_CPU_FIELDS; i++)
        delta[i] = after[i] >= before[i] ? after[i] - before[i] : 0;
}

/* ---- net.stream ---- */

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
        if (vp_wire_discard(stream->fd, header.length, stream->error, VP_ERROR_LEN) != 0) {
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

static void put64_be(uint8_t *out, uint64_t value)
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(value >> (56 - 8 * i));
}

static uint64_t get64_be(const uint8_t *in)
{
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value = value << 8 | in[i];
    return value;
}

/* A UDP socket connected to the peer's address (the TCP connection's) and port. */
static int connect_udp(int tcp_fd, uint32_t port, char *err, size_t err_len)
{
    struct sockaddr_storage address;
    socklen_t len = sizeof address;
    getpeername(tcp_fd, (struct sockaddr *)&address, &len);
    if (address.ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&address)->sin6_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in *)&address)->sin_port = htons((uint16_t)port);
    int fd = socket(address.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, len) != 0) {
        snprintf(err, err_len, "UDP socket to port %u: %s", port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
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
        put64_be(datagram, stream->datagrams);
        put64_be(datagram + 8, (uint64_t)now);
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
    struct vp_peer local = peer;
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
    if (udp && (stream->udp_fd = connect_udp(stream->fd, ready.udp_port, stream->error,
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
    uint64_t cpu_before[VP_CPU_FIELDS], cpu_after[VP_CPU_FIELDS], client[VP_CPU_FIELDS];
    vp_cpu_snapshot(cpu_before);
    unsigned started = 0;
    for (; started < count && status == 0; started++)
        if (pthread_create(&threads[started], NULL, stream_thread, &all[started]) != 0)
            status = -1;
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    vp_cpu_snapshot(cpu_after);
    cpu_delta(cpu_before, cpu_after, client);

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
        server_cpu += busy_percent(stream->result.cpu_ticks);
        double server_all = all_ticks(stream->result.cpu_ticks);
        server_steal += server_all > 0 ? 100 * (double)stream->result.cpu_ticks[7] / server_all : 0;
        server_demand += demand(stream->result.cpu_ticks, stream->result.ticks_per_second,
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
    values[0] = throughput;
    values[1] = sent;
    values[2] = received;
    values[3] = udp ? NAN : retransmits; /* TCP's figure; UDP does not retransmit */
    values[4] = busy_percent(client);
    values[5] = server_cpu / count;
    values[6] = server_steal / count;
    values[7] = demand(client, (double)sysconf(_SC_CLK_TCK), received);
    values[8] = server_demand;
    values[9] = window / count;
    values[10] = udp ? loss / count : NAN; /* UDP's figures; TCP has neither */
    values[11] = udp ? jitter / count : NAN;
    return 0;
}

/* ---- net.rr ---- */

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
    state->fd = vp_client_open_test(&peer, &request, &ready, job->error, sizeof job->error);
    if (state->fd < 0)
        return -1;
    if (udp && (state->udp_fd = connect_udp(state->fd, ready.udp_port, job->error,
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
    put64_be(state->request, sequence);
    put64_be(state->request + 8, (uint64_t)vp_now_ns());
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
        if (got == (ssize_t)expect && get64_be(response) == sequence)
            return 1;
    }
    return 0;
}

static int rr_exchange(struct vp_job *job, struct rr_state *state, uint32_t size, uint32_t expect)
{
    struct vp_frame_header header;
    if (vp_wire_send(state->fd, VP_FRAME_REQUEST, state->request, size, job->error,
                     sizeof job->error) != 0 ||
        vp_wire_recv_header(state->fd, &header, job->error, sizeof job->error) != 0)
        return -1;
    if (header.type != VP_FRAME_RESPONSE || header.length != expect) {
        snprintf(job->error, sizeof job->error, "expected a RESPONSE of %u bytes, received %s of %u",
                 expect, vp_frame_type_name(header.type), header.length);
        return -1;
    }
    return vp_wire_discard(state->fd, header.length, job->error, sizeof job->error);
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
        struct vp_frame_header header;
        if (vp_wire_recv_header(loop->state->fd, &header, loop->error, VP_ERROR_LEN) != 0 ||
            header.type != VP_FRAME_RESPONSE || header.length != expect ||
            vp_wire_discard(loop->state->fd, header.length, loop->error, VP_ERROR_LEN) != 0) {
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
    uint64_t cpu_before[VP_CPU_FIELDS], cpu_after[VP_CPU_FIELDS], client[VP_CPU_FIELDS];
    vp_cpu_snapshot(cpu_before);
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
    vp_cpu_snapshot(cpu_after);
    cpu_delta(cpu_before, cpu_after, client);
    struct vp_test_result result;
    if (status == 0 && (vp_wire_send(state->fd, VP_FRAME_END, NULL, 0, job->error, sizeof job->error) != 0 ||
                        vp_client_result(state->fd, &result, job->error, sizeof job->error) != 0))
        status = -1;
    close(state->fd);
    if (state->udp_fd >= 0)
        close(state->udp_fd);
    if (status != 0)
        return -1;
    values[0] = transactions ? latency_sum / (double)transactions : 0;
    values[1] = (double)transactions / elapsed;
    values[2] = busy_percent(client);
    values[3] = busy_percent(result.cpu_ticks);
    values[4] = state->udp_fd >= 0 ? 100.0 * (double)lost / (double)(lost + transactions) : NAN;
    return 0;
}

static void rr_release(struct vp_job *job)
{
    struct rr_state *state = job->state;
    free(state->request);
    free(state->response);
    free(state);
}

/* ---- net.connect ---- */

static int connect_measure(struct vp_job *job, double *values)
{
    struct vp_test_request request = { .kind = VP_TEST_CONNECT, .message_size = 1 };
    int64_t start = vp_now_ns(), deadline = start + (int64_t)(job->duration * 1e9);
    uint64_t cycles = 0;
    double connect_sum = 0;
    for (int64_t now = start; now < deadline; now = vp_now_ns(), cycles++) {
        double connect_s;
        struct vp_test_ready ready;
        struct vp_test_result result;
        int fd = vp_client_connect(&peer, &connect_s, job->error, sizeof job->error);
        if (fd < 0)
            return -1;
        int status = vp_client_handshake(fd, &peer, job->error, sizeof job->error) != 0 ||
                     vp_client_request(fd, &request, &ready, job->error, sizeof job->error) != 0 ||
                     vp_client_result(fd, &result, job->error, sizeof job->error) != 0;
        close(fd);
        if (status)
            return -1;
        vp_histogram_record(job->histogram, (uint64_t)(connect_s * 1e9));
        connect_sum += connect_s;
    }
    values[0] = cycles ? connect_sum / (double)cycles : 0;
    values[1] = (double)cycles / ((double)(vp_now_ns() - start) / 1e9);
    return 0;
}

#define NET_BENCH_COMMON                                                                    \
    .uses_duration = true, .default_duration = 1.0, .validate = net_validate,              \
    .setup = net_setup, .annotate = net_annotate, .teardown = net_teardown

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
    .metric_count = sizeof stream_metrics / sizeof stream_metrics[0],
    .interval_series = "payload bytes per second the client sent (received with --reverse; "
                       "both with --bidir), from the repetition's start",
    NET_BENCH_COMMON,
    .measure = stream_measure,
};

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
    .metric_count = sizeof rr_metrics / sizeof rr_metrics[0],
    .distribution_metric = "latency",
    NET_BENCH_COMMON,
    .prepare = rr_prepare,
    .measure = rr_measure,
    .release = rr_release,
};

const struct vp_bench vp_bench_net_connect = {
    .name = "net.connect",
    .summary = "TCP connection setup latency and rate (netperf TCP_CRR style)",
    .description =
        "Each job connects, authenticates, makes one exchange and closes, again and again "
        "for --duration. latency is the connect(2) time (the TCP handshake through the "
        "virtual NIC and conntrack); rate counts whole cycles per second.",
    .options = connect_options,
    .option_count = sizeof connect_options / sizeof connect_options[0],
    .metrics = connect_metrics,
    .metric_count = sizeof connect_metrics / sizeof connect_metrics[0],
    .distribution_metric = "latency",
    NET_BENCH_COMMON,
    .measure = connect_measure,
};
