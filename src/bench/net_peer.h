/* What the net benchmarks share: the peer options (--peer, --key-file), the peer they
 * talk to (a `virtperf serve` elsewhere, or one this run starts on loopback), the setup,
 * teardown and route annotation around every net result, the UDP socket beside a test's
 * TCP connection, and the CPU accounting from /proc/stat deltas on both ends. Each net
 * benchmark (net_stream.c, net_rr.c, net_connect.c) is a small file over this one. */
#ifndef VP_NET_PEER_H
#define VP_NET_PEER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench/bench.h"
#include "net/client.h"

#define VP_NET_EMBEDDED "embedded"

#define VP_NET_PEER_OPTIONS                                                                 \
    { "peer", VP_OPT_TEXT, VP_NET_EMBEDDED, 0, 0, NULL,                                     \
      "HOST[:PORT] running `virtperf serve`; embedded: a server this run starts on "       \
      "loopback" },                                                                         \
    { "key-file", VP_OPT_TEXT, "none", 0, 0, NULL,                                          \
      "file holding the shared secret the peer requires (none: no key)" }

/* The peer, set in the parent (setup) and inherited by the forked jobs. */
extern struct vp_peer vp_net_peer;

/* Forks a `virtperf serve` on bind (NULL: every address) and a free port, requiring the
 * key of keyed (none when its key_len is 0); it dies with the thread that forked it.
 * Returns its pid and the port in *port, or -1 with err. */
pid_t vp_net_spawn_server(const char *bind, const struct vp_peer *keyed, uint16_t *port,
                          char *err, size_t err_len);
void vp_net_stop_server(pid_t pid);

/* validate (the peer and key can be loaded), setup (loads the peer; starts the embedded
 * server), teardown (stops it) and annotate (the route to the peer) of every net bench. */
int vp_net_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                    size_t err_len);
int vp_net_setup(const struct vp_params *params, char *err, size_t err_len);
void vp_net_teardown(const struct vp_params *params, unsigned jobs);
void vp_net_annotate(const struct vp_params *params, unsigned jobs, json_t *result);

#define VP_NET_BENCH_COMMON                                                                 \
    .uses_duration = true, .default_duration = 1.0, .setup = vp_net_setup,                 \
    .annotate = vp_net_annotate, .teardown = vp_net_teardown, .parts = vp_net_parts,      \
    .units = VP_UNITS_BITS

/* A UDP socket connected to the TCP connection's peer address at port. */
int vp_net_connect_udp(int tcp_fd, uint32_t port, char *err, size_t err_len);

/* CPU accounting over /proc/stat tick deltas (VP_CPU_FIELDS each): a watch from start
 * to stop gives this machine's delta, all 0 when /proc/stat could not be read at
 * either end. */
struct vp_cpu_watch {
    uint64_t before[VP_CPU_FIELDS];
    bool read;
};
void vp_cpu_watch_start(struct vp_cpu_watch *watch);
void vp_cpu_watch_stop(const struct vp_cpu_watch *watch, uint64_t *delta);
double vp_cpu_all_ticks(const uint64_t *delta);
/* Busy and steal percentages and the demand are NAN when the delta holds no tick at all:
 * /proc/stat could not be read at one end (vp_cpu_snapshot), so the metric is left out
 * of the result and vp_net_annotate says why, never a made-up 0. */
double vp_cpu_busy_percent(const uint64_t *delta);
double vp_cpu_steal_percent(const uint64_t *delta);
/* CPU microseconds (all CPUs) per megabyte moved. */
double vp_cpu_demand(const uint64_t *delta, double ticks_per_second, double bytes);

/* The route to the peer every net result carries ("peer"), and the parts list of a net
 * benchmark that has no other. */
extern const struct vp_result_part vp_part_peer;
extern const struct vp_result_part *const vp_net_parts[];

#endif
