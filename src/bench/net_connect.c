/* net.connect: connection setup, again and again: connect(2) latency (the TCP
 * handshake through the virtual NIC and conntrack) and whole cycles per second. The peer
 * and setup are net_peer.c's. */
#include <unistd.h>

#include "bench/bench.h"
#include "bench/net_peer.h"
#include "core/clock.h"

static const struct vp_option connect_options[] = { VP_NET_PEER_OPTIONS };

enum connect_metric { CONNECT_LATENCY, CONNECT_RATE, CONNECT_METRIC_COUNT };

static const struct vp_metric connect_metrics[] = {
    [CONNECT_LATENCY] = { "latency", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "connect(2) time: the TCP handshake; percentiles in its distribution" },
    [CONNECT_RATE] = { "rate", "ops/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
        "connections per second: connect, authenticate, one exchange, close" },
};
_Static_assert(sizeof connect_metrics / sizeof connect_metrics[0] == CONNECT_METRIC_COUNT,
               "one metric per slot");

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
        int fd = vp_client_connect(&vp_net_peer, &connect_s, job->error, sizeof job->error);
        if (fd < 0)
            return -1;
        int status = vp_client_handshake(fd, &vp_net_peer, job->error, sizeof job->error) != 0 ||
                     vp_client_request(fd, &request, &ready, job->error, sizeof job->error) != 0 ||
                     vp_client_result(fd, &result, job->error, sizeof job->error) != 0;
        close(fd);
        if (status)
            return -1;
        vp_histogram_record(job->histogram, (uint64_t)(connect_s * 1e9));
        connect_sum += connect_s;
    }
    values[CONNECT_LATENCY] = cycles ? connect_sum / (double)cycles : 0;
    values[CONNECT_RATE] = (double)cycles / ((double)(vp_now_ns() - start) / 1e9);
    return 0;
}

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
    .metric_count = CONNECT_METRIC_COUNT,
    .distribution_metric = "latency",
    VP_NET_BENCH_COMMON,
    .validate = vp_net_validate,
    .measure = connect_measure,
};
