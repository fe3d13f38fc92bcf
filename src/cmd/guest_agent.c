/* `virtperf guest-agent`: what runs in each guest `virtperf run --guests` starts (the
 * initramfs's init starts it), each container `--containers` starts (with --socket,
 * the unix socket the host listens on; nobody else needs it) and each UML instance
 * `--uml` starts (with --tty, the serial line the host gave it). It finds the host's
 * channel (the virtio-serial port named org.virtperf.control), says hello with this guest's
 * fingerprint, builds the run's steps from the host's words and says whether this guest
 * can run them, then runs each point the host names, started together with the other
 * guests (engine/together.c over env/transport.c), and sends back its result and its jobs' region. Under a
 * --topology whose servers are guests, the host first asks it to serve: it starts a
 * `virtperf serve` on its own address, keyed with the run's key, and says its port. The
 * host stores everything; this guest keeps nothing. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "bench/net_peer.h"
#include "run/fleet.h"
#include "cmd/commands.h"
#include "run/executor.h"
#include "run/run_flags.h"
#include "run/run_plan.h"
#include "core/clock.h"
#include "core/printable.h"
#include "core/sysinfo.h"
#include "core/topology.h"
#include "engine/engine.h"
#include "env/channel.h"
#include "env/domain.h"
#include "net/client.h"

#define FOREVER_NS (24 * 3600 * 1000000000LL)

static json_t *fingerprint(struct vp_topology *topology)
{
    json_t *host = vp_sysinfo_collect(topology);
    vp_sysinfo_add_boot_id(host);
    return host;
}

/* The key of the host's server for the net benchmarks, where the host's words say it is
 * (also the key of this guest's own server, when it serves). */
static char key_path[256];

static int keep_key(const json_t *key, char *err, size_t err_len)
{
    const char *path = json_string_value(json_object_get(key, "path"));
    const char *hex = json_string_value(json_object_get(key, "hex"));
    size_t len = hex ? strlen(hex) / 2 : 0;
    if (!path || !hex || len == 0 || len > 4096 || strlen(hex) != 2 * len) {
        snprintf(err, err_len, "the host sent a key this guest cannot read");
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FILE *file = fd >= 0 ? fdopen(fd, "w") : NULL;
    for (size_t i = 0; file && i < len; i++) {
        unsigned byte;
        if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
            break;
        fputc((int)byte, file);
    }
    if (!file || fclose(file) != 0) {
        snprintf(err, err_len, "cannot keep the host's key in %s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(key_path, sizeof key_path, "%s", path);
    return 0;
}

/* A server of this guest's own on address (the host's word), keyed with the run's key;
 * its port, or why not, to the host. 0, or -1 when the channel failed. */
static int serve(int fd, const char *address, pid_t *server, char *err, size_t err_len)
{
    char why[VP_PATH_ERROR_LEN] = "";
    struct vp_peer keyed;
    uint16_t port = 0;
    if (*server > 0)
        snprintf(why, sizeof why, "this guest serves already");
    else if (!address || !key_path[0])
        snprintf(why, sizeof why, "the host asked for a server without an address or a key");
    else if (vp_peer_from_options(address, key_path, 10.0, &keyed, why, sizeof why) != 0 ||
             (*server = vp_net_spawn_server(address, &keyed, &port, why, sizeof why)) <= 0)
        *server = 0;
    json_t *answer = why[0] ? json_pack("{s:s}", "error", why) : json_pack("{s:i}", "port", port);
    char *text = json_dumps(answer, JSON_COMPACT);
    json_decref(answer);
    int status = vp_channel_send(fd, VP_CHANNEL_SERVING, text, strlen(text), err, err_len);
    free(text);
    return status;
}

/* Where the host says a point's jobs connect (a topology), with which key, in link; NULL:
 * as the words say. */
static const struct vp_agent_link *link_of(const json_t *message, struct vp_agent_link *link)
{
    const char *peer = json_string_value(json_object_get(message, "peer"));
    if (!peer)
        return NULL;
    *link = (struct vp_agent_link){ .peer = peer,
                                    .key_file = json_string_value(json_object_get(message,
                                                                                  "key_file")),
                                    .reverse = json_is_true(json_object_get(message, "reverse")) };
    return link;
}

/* What this guest's init could not set up (its --guest-mount), in verdict: 0 when it
 * wrote nothing. */
static int setup_failed(char *verdict, size_t verdict_len)
{
    FILE *said = fopen("/virtperf-setup.err", "r");
    if (!said)
        return 0;
    char text[1024];
    size_t got = fread(text, 1, sizeof text - 1, said);
    fclose(said);
    text[got] = '\0';
    text[strcspn(text, "\n")] = '\0';
    vp_printable(text, verdict, verdict_len);
    return -1;
}

/* The host's words (and a plan's text) as this guest's steps, checked against this
 * machine; "" in verdict when it can run them. */
static void take_steps(const json_t *message, struct vp_run_steps *steps, char **words,
                       char *verdict, size_t verdict_len)
{
    const json_t *list = json_object_get(message, "words");
    const char *text = json_string_value(json_object_get(message, "plan"));
    int count = (int)json_array_size(list);
    for (int i = 0; words[i]; i++) {
        free(words[i]);
        words[i] = NULL;
    }
    if (count > VP_RUN_MAX_WORDS * 4)
        count = VP_RUN_MAX_WORDS * 4;
    for (int i = 0; i < count; i++)
        words[i] = strdup(json_string_value(json_array_get(list, (size_t)i)) ?: "");
    words[count] = NULL;
    verdict[0] = '\0';
    const json_t *key = json_object_get(message, "key");
    if ((key && keep_key(key, verdict, verdict_len) != 0) ||
        setup_failed(verdict, verdict_len) != 0)
        return;
    if (vp_run_steps_of_words(steps, count, words, text, verdict, verdict_len) == 0 &&
        vp_run_steps_check_here(steps, VP_CHECK_MEMBERS, verdict, verdict_len) == 0)
        verdict[0] = '\0';
}

/* A UML instance's channel: the serial line the host's end is behind, made 8-bit clean. */
static int open_tty(const char *path)
{
    int fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
    struct termios mode;
    if (fd >= 0 && tcgetattr(fd, &mode) == 0) {
        cfmakeraw(&mode);
        if (tcsetattr(fd, TCSANOW, &mode) == 0)
            return fd;
    }
    if (fd >= 0)
        close(fd);
    return -1;
}

int cmd_guest_agent(int argc, char **argv)
{
    bool socket_given = argc == 3 && strcmp(argv[1], "--socket") == 0;
    bool tty_given = argc == 3 && strcmp(argv[1], "--tty") == 0;
    if (argc > 1 && !socket_given && !tty_given) {
        fprintf(stderr, "virtperf: guest-agent takes no arguments but --socket PATH or --tty "
                "PATH; it runs in the guests, containers and UML instances 'virtperf run' "
                "starts\n");
        return VP_EXIT_USAGE;
    }
    int fd = socket_given ? vp_channel_connect(argv[2])
             : tty_given  ? open_tty(argv[2])
                          : vp_channel_open_port();
    if (fd < 0) {
        if (socket_given || tty_given)
            fprintf(stderr, "virtperf: guest-agent: cannot %s %s: %s\n",
                    socket_given ? "connect to" : "open", argv[2], strerror(errno));
        else
            fprintf(stderr, "virtperf: guest-agent: no virtio-serial port named %s: this is "
                    "not a guest that 'virtperf run --guests' started\n", VP_GUEST_CHANNEL);
        return 1;
    }
    /* the programs the host put in the image are where the host looked for them */
    setenv("PATH", VP_MEMBER_PATH, 1);
    char err[VP_PATH_ERROR_LEN];
    static struct vp_run_steps steps;
    static char *words[VP_RUN_MAX_WORDS * 4 + 1];
    bool have_steps = false;
    pid_t server = 0;
    struct vp_topology *topology = NULL;
    vp_topology_load(&topology, NULL, err, sizeof err);
    json_t *hello = fingerprint(topology);
    char *text = json_dumps(hello, JSON_COMPACT);
    json_decref(hello);
    int status = vp_channel_send(fd, VP_CHANNEL_HELLO, text, strlen(text), err, sizeof err);
    free(text);
    vp_engine_catch_signals();
    while (status == 0) {
        uint32_t kind;
        void *data;
        size_t len;
        if (vp_channel_receive(fd, &kind, &data, &len, vp_now_ns() + FOREVER_NS, err,
                             sizeof err) != 0)
            break;
        json_t *message = kind == VP_CHANNEL_STEPS ? json_loads(data, 0, NULL) : NULL;
        free(data);
        if (kind == VP_CHANNEL_QUIT)
            break;
        if (!message) {
            fprintf(stderr, "virtperf: guest-agent: a frame of kind %u the host should not send\n",
                    kind);
            status = 1;
            break;
        }
        const json_t *run = json_object_get(message, "run");
        const json_t *address = json_object_get(message, "serve");
        if (address) {
            status = serve(fd, json_string_value(address), &server, err, sizeof err);
        } else if (!run) {
            if (have_steps)
                vp_run_steps_free(&steps);
            char verdict[VP_PATH_ERROR_LEN];
            take_steps(message, &steps, words, verdict, sizeof verdict);
            steps.topology = steps.topology ? steps.topology : topology;
            have_steps = verdict[0] == '\0';
            status = vp_channel_send(fd, VP_CHANNEL_VERDICT, verdict, strlen(verdict), err, sizeof err);
        } else {
            size_t index = (size_t)json_integer_value(json_array_get(run, 0));
            size_t point = (size_t)json_integer_value(json_array_get(run, 1));
            if (!have_steps || index >= steps.count || point >= steps.step[index].plan.count) {
                fprintf(stderr, "virtperf: guest-agent: the host named a point it never sent\n");
                status = 1;
            } else {
                struct vp_agent_link link;
                status = vp_agent_run_point(fd, &steps, index, point, 0, link_of(message, &link),
                                            err, sizeof err);
            }
        }
        json_decref(message);
    }
    if (status != 0)
        fprintf(stderr, "virtperf: guest-agent: %s\n", err);
    vp_net_stop_server(server);
    close(fd);
    return status == 0 ? 0 : 1;
}
