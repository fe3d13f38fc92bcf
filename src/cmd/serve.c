/* `virtperf serve`: the endpoint every host or VM runs for the net benchmarks. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "core/units.h"
#include "net/auth.h"
#include "net/server.h"

static const char serve_usage[] =
    "usage: virtperf serve [--bind ADDR] [--port N] [--max-sessions N] [--key-file F]\n"
    "                      [--idle-timeout D] [--quiet]\n"
    "\n"
    "Serves net.stream, net.rr and net.connect clients (virtperf run net.* --peer HOST)\n"
    "until SIGTERM or Ctrl-C, in the foreground, one line per session on stderr.\n"
    "\n"
    "  --bind ADDR          address to listen on  [every address]\n"
    "  --port N             TCP port  [7310]\n"
    "  --max-sessions N     sessions at once, 1..4096 (at most half still in their\n"
    "                       handshake); more are refused  [64]\n"
    "  --key-file F         shared secret: clients must prove they hold it (HMAC-SHA256)\n"
    "  --idle-timeout D     drop a session silent, or sending one frame, for this long,\n"
    "                       1s..1h  [10s]\n"
    "  --quiet              no per-session log lines\n";

static volatile sig_atomic_t stop_requested;

static void on_stop(int signo)
{
    (void)signo;
    stop_requested = 1;
}

int cmd_serve(int argc, char **argv)
{
    static const struct option options[] = {
        { "bind", required_argument, NULL, 'b' },
        { "port", required_argument, NULL, 'p' },
        { "max-sessions", required_argument, NULL, 'm' },
        { "key-file", required_argument, NULL, 'k' },
        { "idle-timeout", required_argument, NULL, 'i' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct vp_serve_config config = { .port = VP_DEFAULT_PORT, .max_sessions = 64,
                                       .idle_timeout_s = 10, .log = 1 };
    static uint8_t key[VP_KEY_MAX];
    char err[VP_PATH_ERROR_LEN];
    uint64_t number;
    opterr = 0;
    int option;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (option) {
        case 'b': config.bind = optarg; break;
        case 'p':
            if (vp_parse_count(optarg, &number) != 0 || number < 1 || number > 65535)
                vp_usage_error("--port: '%s' is not valid; accepted: 1 to 65535", optarg);
            config.port = (uint16_t)number;
            break;
        case 'm':
            if (vp_parse_count(optarg, &number) != 0 || number < 1 || number > 4096)
                vp_usage_error("--max-sessions: '%s' is not valid; accepted: 1 to 4096", optarg);
            config.max_sessions = (unsigned)number;
            break;
        case 'k':
            if (vp_auth_load_key(optarg, key, &config.key_len, err, sizeof err) != 0)
                vp_usage_error("%s", err);
            config.key = key;
            break;
        case 'i':
            if (vp_parse_duration(optarg, &config.idle_timeout_s) != 0 ||
                config.idle_timeout_s < 1 || config.idle_timeout_s > 3600)
                vp_usage_error("--idle-timeout: '%s' is not valid; accepted: 1s to 1h", optarg);
            break;
        case 'q': config.log = 0; break;
        case 'h': fputs(serve_usage, stdout); return 0;
        default:
            vp_usage_error("serve: unknown or incomplete option '%s'; see 'virtperf serve --help'",
                           argv[optind - 1]);
        }
    }
    if (optind < argc)
        vp_usage_error("serve: unexpected argument '%s'; see 'virtperf serve --help'", argv[optind]);
    if (vp_serve_check_fds(config.max_sessions, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    struct sigaction action = { .sa_handler = on_stop };
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (vp_serve(&config, &stop_requested, -1, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        return 1;
    }
    return 0;
}
