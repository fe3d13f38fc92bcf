/* The net benchmarks' shared peer, setup, route annotation, UDP socket and CPU
 * accounting (see net_peer.h). */
#define _GNU_SOURCE
#include "bench/net_peer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/json.h"
#include "core/procfs.h"
#include "core/route.h"
#include "net/wire.h"
#include "net/server.h"
#include "core/json_check.h"

#define PEER_TIMEOUT_S 10.0

struct vp_peer vp_net_peer;
static pid_t embedded_pid;

static volatile sig_atomic_t embedded_stop;

static void stop_embedded(int signo)
{
    (void)signo;
    embedded_stop = 1;
}

pid_t vp_net_spawn_server(const char *bind, const struct vp_peer *keyed, uint16_t *port,
                          char *err, size_t err_len)
{
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) {
        snprintf(err, err_len, "cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(pipe_fds[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        struct sigaction action = { .sa_handler = stop_embedded };
        sigaction(SIGTERM, &action, NULL);
        signal(SIGINT, SIG_IGN); /* the parent decides when it stops */
        struct vp_serve_config config = {
            .bind = bind, .max_sessions = 1024, .key = keyed->key_len ? keyed->key : NULL,
            .key_len = keyed->key_len, .idle_timeout_s = PEER_TIMEOUT_S,
        };
        char reason[256];
        _exit(vp_serve(&config, &embedded_stop, pipe_fds[1], reason, sizeof reason) == 0 ? 0 : 1);
    }
    close(pipe_fds[1]);
    uint8_t encoded[2];
    struct pollfd waiting = { .fd = pipe_fds[0], .events = POLLIN };
    int ready = pid > 0 && poll(&waiting, 1, 5000) == 1 && read(pipe_fds[0], encoded, 2) == 2;
    close(pipe_fds[0]);
    if (!ready) {
        vp_net_stop_server(pid);
        snprintf(err, err_len, "the server on %s did not start", bind ? bind : "every address");
        return -1;
    }
    *port = (uint16_t)(encoded[0] << 8 | encoded[1]);
    return pid;
}

void vp_net_stop_server(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

static int load_peer(const struct vp_params *params, char *err, size_t err_len)
{
    const char *where = vp_param_text(params, "peer");
    return vp_peer_from_options(strcmp(where, VP_NET_EMBEDDED) == 0 ? "127.0.0.1" : where,
                                vp_param_text(params, "key-file"), PEER_TIMEOUT_S, &vp_net_peer, err,
                                err_len);
}

int vp_net_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                    size_t err_len)
{
    (void)max_jobs;
    return load_peer(params, err, err_len);
}

int vp_net_setup(const struct vp_params *params, char *err, size_t err_len)
{
    if (load_peer(params, err, err_len) != 0)
        return -1;
    embedded_pid = 0;
    if (strcmp(vp_param_text(params, "peer"), VP_NET_EMBEDDED) == 0 &&
        (embedded_pid = vp_net_spawn_server("127.0.0.1", &vp_net_peer, &vp_net_peer.port, err,
                                            err_len)) < 0) {
        embedded_pid = 0;
        return -1;
    }
    return 0;
}

void vp_net_teardown(const struct vp_params *params, unsigned jobs)
{
    (void)params;
    (void)jobs;
    vp_net_stop_server(embedded_pid);
    embedded_pid = 0;
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

/* A CPU figure the bench has but the result lacks could not be measured: /proc/stat was
 * unreadable or unparsable on that side. Say so, rather than leave the reader to guess. */
static void warn_unmeasured_cpu(json_t *result)
{
    static const char *const figures[][2] = {
        { "client_cpu", "client" }, { "client_demand", "client" }, { "server_cpu", "server" },
        { "server_steal", "server" }, { "server_demand", "server" },
    };
    const struct vp_bench *bench = vp_bench_find(vp_json_text(result, "bench"));
    const json_t *metrics = json_object_get(result, "metrics");
    for (size_t i = 0; bench && i < sizeof figures / sizeof figures[0]; i++) {
        bool defined = false;
        for (size_t m = 0; m < bench->metric_count; m++)
            defined = defined || strcmp(bench->metrics[m].name, figures[i][0]) == 0;
        if (defined && !json_object_get(metrics, figures[i][0]))
            vp_result_warn(result, "%s not measured: /proc/stat could not be read or parsed on "
                           "the %s side", figures[i][0], figures[i][1]);
    }
}

/* The client side's route to the peer: local interface, its MTU and driver, and the
 * congestion control in use; and a warning for each CPU figure that was not measured. */
void vp_net_annotate(const struct vp_params *params, unsigned jobs, json_t *result)
{
    (void)params;
    (void)jobs;
    warn_unmeasured_cpu(result);
    char err[256];
    int fd = vp_client_connect(&vp_net_peer, NULL, err, sizeof err);
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
    if (vp_interface_of_address((struct sockaddr *)&local, interface, sizeof interface) != 0)
        interface[0] = '\0';
    char path[128], mtu[16] = "", driver[64];
    snprintf(path, sizeof path, "/sys/class/net/%s/mtu", interface);
    if (vp_read_text_file(path, mtu, sizeof mtu) < 0)
        mtu[0] = '\0';
    interface_driver(interface, driver, sizeof driver);
    json_object_set_new(result, "peer",
                        json_pack("{s:s,s:i,s:s,s:s,s:i,s:s,s:s}", "address", vp_net_peer.host, "port",
                                  vp_net_peer.port, "local_address", address, "interface", interface,
                                  "mtu", atoi(mtu), "driver", driver, "congestion", congestion));
}

static double busy_ticks(const uint64_t *delta)
{
    return (double)(delta[0] + delta[1] + delta[2] + delta[5] + delta[6] + delta[7]);
}

double vp_cpu_all_ticks(const uint64_t *delta)
{
    double total = 0;
    for (int i = 0; i < VP_CPU_FIELDS; i++)
        total += (double)delta[i];
    return total;
}

double vp_cpu_busy_percent(const uint64_t *delta)
{
    double total = vp_cpu_all_ticks(delta);
    return total > 0 ? 100 * busy_ticks(delta) / total : NAN;
}

double vp_cpu_steal_percent(const uint64_t *delta)
{
    double total = vp_cpu_all_ticks(delta);
    return total > 0 ? 100 * (double)delta[7] / total : NAN;
}

double vp_cpu_demand(const uint64_t *delta, double ticks_per_second, double bytes)
{
    if (!(vp_cpu_all_ticks(delta) > 0))
        return NAN;
    return bytes > 0 ? busy_ticks(delta) / ticks_per_second * 1e6 / (bytes / 1e6) : 0;
}

void vp_cpu_watch_start(struct vp_cpu_watch *watch)
{
    watch->read = vp_cpu_snapshot(watch->before) == 0;
}

void vp_cpu_watch_stop(const struct vp_cpu_watch *watch, uint64_t *delta)
{
    uint64_t after[VP_CPU_FIELDS];
    bool read = vp_cpu_snapshot(after) == 0 && watch->read;
    for (int i = 0; i < VP_CPU_FIELDS; i++)
        delta[i] = read && after[i] >= watch->before[i] ? after[i] - watch->before[i] : 0;
}

int vp_net_connect_udp(int tcp_fd, uint32_t port, char *err, size_t err_len)
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

/* The client's route to a network peer. */
static int check_peer(struct vp_check *checker, const json_t *peer, const char *path)
{
    char at[256];
    snprintf(at, sizeof at, "%s.peer", path);
    if (!json_is_object(peer))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    static const char *const texts[] = { "address", "local_address", "interface", "driver",
                                         "congestion" };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (vp_check_string(checker, peer, at, texts[i], 256, 1) != 0)
            return -1;
    if (vp_check_integer(checker, peer, at, "port", 0, 65535, 1) != 0 ||
        vp_check_integer(checker, peer, at, "mtu", 0, 1 << 20, 1) != 0)
        return -1;
    return 0;
}

static void print_peer(FILE *out, const json_t *peer, enum vp_unit_style style)
{
    (void)style;
    fprintf(out, "  peer %s port %lld via %s (%s, MTU %lld, driver %s, congestion %s)\n",
            vp_json_text(peer, "address"), (long long)json_integer_value(json_object_get(peer, "port")),
            vp_json_text(peer, "interface"), vp_json_text(peer, "local_address"),
            (long long)json_integer_value(json_object_get(peer, "mtu")),
            vp_json_text(peer, "driver"), vp_json_text(peer, "congestion"));
}

const struct vp_result_part vp_part_peer = { "peer", check_peer, print_peer };
const struct vp_result_part *const vp_net_parts[] = { &vp_part_peer, NULL };
