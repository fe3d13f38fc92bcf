/* `virtperf serve`: the endpoint every host or VM runs for the net benchmarks. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/units.h"
#include "net/auth.h"
#include "net/server.h"

static const char serve_usage[] =
    "usage: virtperf serve [--bind ADDR] [--port N] [--max-sessions N] [--key-file F]\n"
    "                      [--idle-timeout D] [--quiet]\n"
    "\n"
    "Serves net.stream, net.rr and net.connect clients (virtperf run net.* --peer HOST)\n"
    "until SIGTERM or Ctrl-C, in the foreground, one line per session on stderr.\n"
;

struct serve_settings {
    struct vp_serve_config config;
    uint8_t key[VP_KEY_MAX];
};

static int take_bind(void *settings, const char *value, char *err, size_t err_len)
{
    (void)err, (void)err_len; /* the listener's resolution says what was wrong */
    ((struct serve_settings *)settings)->config.bind = value;
    return 0;
}

static int take_port(void *settings, const char *value, char *err, size_t err_len)
{
    uint64_t number;
    if (vp_parse_count(value, &number) != 0 || number < 1 || number > 65535) {
        snprintf(err, err_len, "--port: '%s' is not valid; accepted: 1 to 65535", value);
        return -1;
    }
    ((struct serve_settings *)settings)->config.port = (uint16_t)number;
    return 0;
}

static int take_max_sessions(void *settings, const char *value, char *err, size_t err_len)
{
    uint64_t number;
    if (vp_parse_count(value, &number) != 0 || number < 1 || number > 4096) {
        snprintf(err, err_len, "--max-sessions: '%s' is not valid; accepted: 1 to 4096", value);
        return -1;
    }
    ((struct serve_settings *)settings)->config.max_sessions = (unsigned)number;
    return 0;
}

static int take_key_file(void *settings, const char *value, char *err, size_t err_len)
{
    struct serve_settings *serve = settings;
    if (vp_auth_load_key(value, serve->key, &serve->config.key_len, err, err_len) != 0)
        return -1;
    serve->config.key = serve->key;
    return 0;
}

static int take_idle_timeout(void *settings, const char *value, char *err, size_t err_len)
{
    double *timeout = &((struct serve_settings *)settings)->config.idle_timeout_s;
    if (vp_parse_duration(value, timeout) != 0 || *timeout < 1 || *timeout > 3600) {
        snprintf(err, err_len, "--idle-timeout: '%s' is not valid; accepted: 1s to 1h", value);
        return -1;
    }
    return 0;
}

static int take_quiet(void *settings, const char *value, char *err, size_t err_len)
{
    (void)value, (void)err, (void)err_len;
    ((struct serve_settings *)settings)->config.log = 0;
    return 0;
}

static const struct vp_command_flag serve_flags[] = {
    { "bind", 0, "ADDR", "address to listen on  [every address]", take_bind },
    { "port", 0, "N", "TCP port  [7310]", take_port },
    { "max-sessions", 0, "N", "sessions at once, 1..4096 (at most half still in their\n"
      "handshake); more are refused  [64]", take_max_sessions },
    { "key-file", 0, "F", "shared secret: clients must prove they hold it (HMAC-SHA256)",
      take_key_file },
    { "idle-timeout", 0, "D", "drop a session silent, or sending one frame, for this long,\n"
      "1s..1h  [10s]", take_idle_timeout },
    { "quiet", 0, NULL, "no per-session log lines", take_quiet },
};
const struct vp_command_table vp_serve_flags = {
    "serve", serve_flags, sizeof serve_flags / sizeof serve_flags[0]
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int signo)
{
    (void)signo;
    stop_requested = 1;
}

int cmd_serve(int argc, char **argv)
{
    struct serve_settings settings = {
        .config = { .port = VP_DEFAULT_PORT, .max_sessions = 64, .idle_timeout_s = 10, .log = 1 },
    };
    size_t count;
    char **operands = vp_cmd_parse(&vp_serve_flags, serve_usage, &settings, argc, argv, &count);
    vp_cmd_flags_only(&vp_serve_flags, operands, count);
    struct vp_serve_config config = settings.config;
    char err[VP_PATH_ERROR_LEN];
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
