/* The runner for guests and containers virtperf starts (see fleet.h). */
#define _GNU_SOURCE /* asprintf */
#include "cmd/fleet.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/net_peer.h"
#include "cmd/agent_point.h"
#include "cmd/common.h"
#include "core/clock.h"
#include "core/copy_speed.h"
#include "core/monitor.h"
#include "core/options.h"
#include "core/printable.h"
#include "core/scratch.h"
#include "core/sysinfo.h"
#include "core/units.h"
#include "engine/combine.h"
#include "engine/layout.h"
#include "engine/result.h"
#include "engine/shared_check.h"
#include "guest/channel.h"
#include "guest/transport.h"
#include "net/auth.h"
#include "net/client.h"
#include "store/document.h"

#define DEFAULT_TIMEOUT_S 300
#define SERVER_KEY_BYTES 32
#define MEMBER_KEY_PATH "/tmp/virtperf-host.key" /* where each member keeps the server's key */

struct fleet_run {
    const struct vp_fleet_kind *kind;
    const char *spec;
    int argc;
    char **argv;               /* the command's words, sent to every member */
    unsigned most, timeout_s;
    struct vp_member members[VP_MAX_GUESTS];
    size_t started;
    char work[256];
    double monitor_hz;
    char *const *watch;
    size_t watch_count;
    struct vp_monitor *monitor; /* this host's, while a point is measured */
    pid_t server;               /* the net benchmarks' server on this host, 0: none */
    char server_peer[96];       /* ADDRESS:PORT the members reach it at */
    char key_hex[2 * SERVER_KEY_BYTES + 1];
    char **words;               /* argv with the server's --peer and --key-file */
    int word_count;
    char *sets[2 * VP_RUN_MAX_STEPS]; /* a plan's: --set STEP.peer=..., STEP.key-file=... */
    size_t set_count;
    bool of_plan;               /* the steps are a plan's (--no-guests runs them here) */
    const char *host_dir;       /* where they work (--guest-disk), NULL: here */
    /* each step's --topology: this host rank 0, member m rank m + 1 */
    enum vp_topology_kind topology[VP_RUN_MAX_STEPS];
    bool linked;                /* some step has one */
    char member_peer[VP_MAX_GUESTS][96]; /* ADDRESS:PORT of each member's own server */
    char label_text[VP_MAX_GUESTS + 1][128];
    char *labels[VP_MAX_GUESTS + 1];     /* each rank's name in a link */
    /* the linked point being run: its ends' names, and its external end (--peer HOST
     * beside a matrix: rank count + 1, -1: none) with that host's key file */
    char *const *link_labels;
    int link_ends, external_rank;
    const char *external_peer, *external_key;
    json_t *host_fingerprint;   /* this host's, for its part of a link's result */
    struct vp_path_set files;   /* this host's, carried in the members' image */
};

static int64_t after_seconds(unsigned seconds)
{
    return vp_now_ns() + (int64_t)seconds * 1000000000LL;
}

/* ---- the members ---- */

static void remove_member(const struct vp_fleet_kind *kind, struct vp_member *member)
{
    if (member->fd >= 0) {
        char ignored[64];
        vp_channel_send(member->fd, VP_CHANNEL_QUIT, NULL, 0, ignored, sizeof ignored);
        close(member->fd);
    }
    member->fd = -1;
    kind->remove(kind->state, member);
    json_decref(member->fingerprint);
    member->fingerprint = NULL;
}

static void remove_all(struct fleet_run *run)
{
    vp_net_stop_server(run->server);
    run->server = 0;
    for (size_t m = 0; m < run->started; m++)
        remove_member(run->kind, &run->members[m]);
    run->started = 0;
    if (run->kind->finish)
        run->kind->finish(run->kind->state);
    if (run->work[0])
        vp_scratch_remove(run->work);
    run->work[0] = '\0';
}

int vp_fleet_hear(const struct vp_fleet_kind *kind, struct vp_member *member, unsigned timeout_s,
                  char *err, size_t err_len)
{
    int64_t deadline = after_seconds(timeout_s);
    if (kind->connect(kind->state, member, deadline, err, err_len) != 0) {
        kind->silent(kind->state, member);
        return -1;
    }
    char why[256];
    void *data;
    size_t len;
    if (vp_channel_expect(member->fd, VP_CHANNEL_HELLO, &data, &len, 0, deadline, why,
                        sizeof why) != 0) {
        char what[64] = "answer with a member's hello"; /* it answered, not as one does */
        if (vp_now_ns() >= deadline)
            snprintf(what, sizeof what, "start and answer within %u s", timeout_s);
        snprintf(err, err_len, "%s did not %s (%s%s)", member->name, what, why,
                 kind->alive(kind->state, member) ? "" : "; it stopped");
        kind->silent(kind->state, member);
        return -1;
    }
    member->fingerprint = json_loadb(data, len, 0, NULL);
    free(data);
    if (!json_is_object(member->fingerprint)) {
        json_decref(member->fingerprint);
        member->fingerprint = json_object();
    }
    /* its identity is this host's name for it: a member calling itself another's name is
     * not shown as that one; what it said is kept, made printable, beside */
    char said[VP_GUEST_NAME_LEN * 4];
    const char *claimed = json_string_value(json_object_get(member->fingerprint, "hostname"));
    if (claimed && strcmp(claimed, member->name) != 0)
        json_object_set_new(member->fingerprint, "hostname_said",
                            json_string(vp_printable(claimed, said, sizeof said)));
    json_object_set_new(member->fingerprint, "hostname", json_string(member->name));
    kind->describe(kind->state, member);
    member->ready_s = (double)(vp_now_ns() - member->started_ns) / 1e9;
    return 0;
}

/* The run's words (and a plan's text) to every member; each says whether it can run
 * them on its own machine. */
static int send_steps(struct fleet_run *run, const struct vp_run_steps *steps, char *err,
                      size_t err_len)
{
    json_t *words = json_array();
    for (int i = 0; i < run->word_count; i++)
        json_array_append_new(words, json_string(run->words[i]));
    json_t *message = json_pack("{s:o}", "words", words);
    if (run->server)
        json_object_set_new(message, "key", json_pack("{s:s,s:s}", "path", MEMBER_KEY_PATH,
                                                       "hex", run->key_hex));
    if (steps->kept_text)
        json_object_set_new(message, "plan", json_string(steps->kept_text));
    char *text = json_dumps(message, JSON_COMPACT);
    json_decref(message);
    int status = 0;
    for (size_t m = 0; m < run->started && status == 0; m++) {
        struct vp_member *member = &run->members[m];
        char why[VP_PATH_ERROR_LEN];
        void *verdict = NULL;
        size_t len = 0;
        if (vp_channel_send(member->fd, VP_CHANNEL_STEPS, text, strlen(text), why, sizeof why) != 0 ||
            vp_channel_expect(member->fd, VP_CHANNEL_VERDICT, &verdict, &len, 0,
                            after_seconds(run->timeout_s), why, sizeof why) != 0) {
            snprintf(err, err_len, "%s: %s", member->name, why);
            status = -1;
        } else if (len > 0) {
            char shown[VP_PATH_ERROR_LEN]; /* the member's words: no escape of its own */
            snprintf(err, err_len, "in %s %s: %s", run->kind->noun, member->name,
                     vp_printable(verdict, shown, sizeof shown));
            status = -1;
        }
        free(verdict);
    }
    free(text);
    return status;
}

/* A flag the members cannot share: each would decide alone. */
static int refuse(char *err, size_t err_len, const char *flag, const char *what,
                  const char *accepted)
{
    snprintf(err, err_len, "%s: not with %s; accepted: %s", what, flag, accepted);
    return -1;
}

/* The counts of members step runs in (*n 0: none, it runs on this host alone); -1 with
 * err when its SPEC is not valid. */
static int step_counts(const struct fleet_run *run, const struct vp_run_step *step,
                       unsigned *counts, size_t *n, char *err, size_t err_len)
{
    const char *spec = step->members_spec ? step->members_spec : run->spec;
    *n = 0;
    if (!spec || vp_parse_jobs_spec(spec, VP_MAX_GUESTS, counts, VP_MAX_GUESTS, n) == 0)
        return 0;
    snprintf(err, err_len, "%s%s%s%s: '%s' is not valid; accepted: a count, a list such as "
             "1,2,4 or a range such as 1..4, each from 1 to %d", step->name ? "[" : "",
             step->name ? step->name : "", step->name ? "] " : "", run->kind->flag, spec,
             VP_MAX_GUESTS);
    return -1;
}

/* Whether step runs in members (not on this host alone). */
static bool in_members(const struct fleet_run *run, const struct vp_run_step *step)
{
    return step->members_spec || run->spec;
}

/* Whether step runs on this host too, beside its members, alternating. */
static bool with_host_side(const struct fleet_run *run, const struct vp_run_steps *steps,
                           const struct vp_run_step *step)
{
    return in_members(run, step) && vp_run_step_and_host(steps, step);
}

/* Whether a point of step, run in members, talks to the embedded server (no --peer
 * given). */
static bool step_wants_server(const struct fleet_run *run, const struct vp_run_step *step)
{
    for (size_t p = 0; in_members(run, step) && p < step->plan.count; p++) {
        const struct vp_plan_point *point = &step->plan.points[p];
        if (!vp_layout_is_network(point->bench))
            continue;
        const char *peer = vp_param_text(&point->params, "peer");
        if (peer && strcmp(peer, VP_NET_EMBEDDED) == 0)
            return true;
    }
    return false;
}

static bool wants_server(const struct fleet_run *run, const struct vp_run_steps *steps)
{
    for (size_t s = 0; s < steps->count; s++)
        if (step_wants_server(run, &steps->step[s]) || run->topology[s] != VP_TOPOLOGY_NONE)
            return true;
    return false;
}

/* The members' words with the server named: --peer and --key-file on a command line; a
 * plan takes them as --set STEP.peer= and STEP.key-file= for each step that talks to it
 * (a step with an external end keeps its --peer: each link names its own server). */
static void name_server(struct fleet_run *run, const struct vp_run_steps *steps)
{
    run->words = calloc((size_t)run->argc + 4 + 4 * steps->count + 1, sizeof *run->words);
    if (!run->words)
        abort();
    memcpy(run->words, run->argv, (size_t)run->argc * sizeof *run->words);
    run->word_count = run->argc;
    if (!steps->kept_text) {
        if (!step_wants_server(run, &steps->step[0]))
            return;
        run->words[run->word_count++] = "--peer";
        run->words[run->word_count++] = run->server_peer;
        run->words[run->word_count++] = "--key-file";
        run->words[run->word_count++] = MEMBER_KEY_PATH;
        return;
    }
    for (size_t s = 0; s < steps->count; s++) {
        const struct vp_run_step *step = &steps->step[s];
        if (!step_wants_server(run, step))
            continue;
        char *peer, *key;
        if (asprintf(&peer, "%s.peer=%s", step->name, run->server_peer) < 0 ||
            asprintf(&key, "%s.key-file=%s", step->name, MEMBER_KEY_PATH) < 0)
            abort();
        run->sets[run->set_count++] = peer;
        run->sets[run->set_count++] = key;
        run->words[run->word_count++] = "--set";
        run->words[run->word_count++] = peer;
        run->words[run->word_count++] = "--set";
        run->words[run->word_count++] = key;
    }
}

/* The net benchmarks' server on this host at address, where the members reach it (once
 * they run: an engine's bridge may have its address only then), keyed by a fresh key each
 * member gets over its channel; the members' words then name it. */
static int start_server(struct fleet_run *run, const struct vp_run_steps *steps,
                        const char *address, char *err, size_t err_len)
{
    uint8_t key[SERVER_KEY_BYTES];
    char path[300];
    snprintf(path, sizeof path, "%s/server.key", run->work);
    FILE *file = NULL;
    int fd = vp_auth_nonce(key) == 0 ? open(path, O_WRONLY | O_CREAT | O_EXCL, 0600) : -1;
    if (fd >= 0)
        file = fdopen(fd, "w");
    if (!file || fwrite(key, 1, sizeof key, file) != sizeof key || fclose(file) != 0) {
        snprintf(err, err_len, "%s: cannot write the server's key %s", run->kind->flag, path);
        return -1;
    }
    for (int i = 0; i < SERVER_KEY_BYTES; i++)
        sprintf(run->key_hex + 2 * i, "%02x", key[i]);
    struct vp_peer keyed;
    uint16_t port = 0;
    if (vp_peer_from_options(address, path, 10.0, &keyed, err, err_len) != 0 ||
        (run->server = vp_net_spawn_server(address, &keyed, &port, err, err_len)) <= 0) {
        run->server = 0;
        return -1;
    }
    snprintf(run->server_peer, sizeof run->server_peer, "%s:%u", address, port);
    name_server(run, steps);
    return 0;
}

/* --topology between this host and the members: each net point's jobs connect where the
 * topology says, so the point names no --peer of its own, --and-host (this host is one
 * end already) does not go with it, and pairs needs an even count of ends. */
static int take_topology(struct fleet_run *run, const struct vp_run_steps *steps, char *err,
                         size_t err_len)
{
    for (size_t s = 0; s < steps->count; s++) {
        const struct vp_run_step *step = &steps->step[s];
        if (vp_topology_parse(step->request.topology, &run->topology[s], err, err_len) != 0)
            return -1;
        if (run->topology[s] == VP_TOPOLOGY_NONE)
            continue;
        run->linked = true;
        if (with_host_side(run, steps, step))
            return refuse(err, err_len, "--topology", "--and-host", "--topology (this host is "
                          "one end of its links) or --and-host alone (net.stream --reverse "
                          "--and-host: this host's server sends to each guest, as fan-out "
                          "does, beside this host's own jobs)");
        unsigned counts[VP_MAX_GUESTS];
        size_t n;
        step_counts(run, step, counts, &n, err, err_len);
        for (size_t p = 0; p < step->plan.count; p++) {
            const struct vp_plan_point *point = &step->plan.points[p];
            if (!vp_layout_is_network(point->bench))
                continue;
            if (strcmp(vp_param_text(&point->params, "peer"), VP_NET_EMBEDDED) != 0 &&
                run->topology[s] != VP_TOPOLOGY_MATRIX)
                return refuse(err, err_len, "--topology", "--peer", "--topology without --peer "
                              "(the topology names each job's server), or --topology matrix "
                              "--peer HOST (that host's server one more end of the matrix)");
            for (size_t c = 0; c < n && run->topology[s] == VP_TOPOLOGY_PAIRS; c++)
                if (counts[c] % 2 == 0) {
                    snprintf(err, err_len, "--topology pairs: this host and %u %s%s are %u "
                             "ends, which do not pair; accepted: an odd count (%s 1, 3, 5...)",
                             counts[c], run->kind->noun, counts[c] == 1 ? "" : "s",
                             counts[c] + 1, run->kind->flag);
                    return -1;
                }
        }
    }
    return 0;
}

/* A step in members with no --topology, no --and-host, and only network benchmarks that
 * are measured from outside (net.probe) at the run's server, where the members have
 * addresses of their own: laid out outside, this host the client of each member's server,
 * so that a paused member's outage is timed on a clock that did not stop with it. */
static void take_outside(struct fleet_run *run, const struct vp_run_steps *steps)
{
    if (!run->kind->member_address(run->kind->state, 0))
        return;
    for (size_t s = 0; s < steps->count; s++) {
        const struct vp_run_step *step = &steps->step[s];
        bool outside = run->topology[s] == VP_TOPOLOGY_NONE && in_members(run, step) &&
                       !with_host_side(run, steps, step);
        size_t network = 0;
        for (size_t p = 0; outside && p < step->plan.count; p++) {
            const struct vp_plan_point *point = &step->plan.points[p];
            if (!vp_layout_is_network(point->bench))
                continue;
            network++;
            outside = point->bench->from_outside &&
                      strcmp(vp_param_text(&point->params, "peer"), VP_NET_EMBEDDED) == 0;
        }
        if (outside && network > 0) {
            run->topology[s] = VP_TOPOLOGY_OUTSIDE;
            run->linked = true;
        }
    }
}

/* The topology of the run's steps whose servers include the members' own (pairs,
 * matrix, outside), NONE: this host serves alone. */
static enum vp_topology_kind members_serve(const struct fleet_run *run, size_t step_count)
{
    for (size_t s = 0; s < step_count; s++)
        if (run->topology[s] == VP_TOPOLOGY_PAIRS || run->topology[s] == VP_TOPOLOGY_MATRIX ||
            run->topology[s] == VP_TOPOLOGY_OUTSIDE)
            return run->topology[s];
    return VP_TOPOLOGY_NONE;
}

/* Each rank's name in a link: this host, then each member, with its address. */
static void name_ranks(struct fleet_run *run)
{
    snprintf(run->label_text[0], sizeof run->label_text[0], "this-host %.*s",
             (int)strcspn(run->server_peer, ":"), run->server_peer);
    run->labels[0] = run->label_text[0];
    for (size_t m = 0; m < run->started; m++) {
        const char *address = run->kind->member_address(run->kind->state, m);
        snprintf(run->label_text[m + 1], sizeof run->label_text[m + 1], "%s-%zu%s%s",
                 run->kind->noun, m + 1, address ? " " : "", address ? address : "");
        run->labels[m + 1] = run->label_text[m + 1];
    }
}

/* Asks every member to serve on its own address (the run's key) and keeps where. */
static int start_member_servers(struct fleet_run *run, enum vp_topology_kind topology,
                                char *err, size_t err_len)
{
    for (size_t m = 0; m < run->started; m++) {
        struct vp_member *member = &run->members[m];
        const char *address = run->kind->member_address(run->kind->state, m);
        if (!address) {
            snprintf(err, err_len, "--topology %s: the %ss have no address of their own here; "
                     "accepted: fan-in or fan-out (every %s to this host)%s",
                     vp_topology_name(topology), run->kind->noun, run->kind->noun,
                     strcmp(run->kind->noun, "container") == 0 ? ", or --container-net host" : "");
            return -1;
        }
        char message[128], why[VP_PATH_ERROR_LEN];
        snprintf(message, sizeof message, "{\"serve\":\"%s\"}", address);
        void *answer = NULL;
        size_t len;
        if (vp_channel_send(member->fd, VP_CHANNEL_STEPS, message, strlen(message), why,
                            sizeof why) != 0 ||
            vp_channel_expect(member->fd, VP_CHANNEL_SERVING, &answer, &len, 0,
                              after_seconds(run->timeout_s), why, sizeof why) != 0) {
            snprintf(err, err_len, "%s: %s", member->name, why);
            return -1;
        }
        json_t *parsed = json_loads(answer, 0, NULL);
        free(answer);
        json_int_t port = json_integer_value(json_object_get(parsed, "port"));
        const char *refused = json_string_value(json_object_get(parsed, "error"));
        if (port > 0 && port < 65536)
            snprintf(run->member_peer[m], sizeof run->member_peer[m], "%s:%lld", address,
                     (long long)port);
        else {
            char shown[VP_PATH_ERROR_LEN]; /* the member's words: no escape of its own */
            snprintf(err, err_len, "in %s %s: its server did not start: %s", run->kind->noun,
                     member->name, refused ? vp_printable(refused, shown, sizeof shown)
                                           : "no port in its answer");
        }
        json_decref(parsed);
        if (!run->member_peer[m][0])
            return -1;
    }
    return 0;
}

/* What the members' image carries of this host beside virtperf: --guest-programs, and
 * what each point the members run needs (its benchmark's member_files), where a point
 * that needs what is not here is refused before any member starts. */
static int gather_files(struct fleet_run *run, const struct vp_run_steps *steps, char *err,
                        size_t err_len)
{
    if (steps->guests.programs) {
        char copy[VP_TEXT_LEN], *save, *path;
        snprintf(copy, sizeof copy, "%s", steps->guests.programs);
        for (path = strtok_r(copy, ",", &save); path; path = strtok_r(NULL, ",", &save))
            vp_path_set_add(&run->files, path);
    }
    for (size_t s = 0; s < steps->count; s++) {
        const struct vp_run_step *step = &steps->step[s];
        for (size_t p = 0; in_members(run, step) && p < step->plan.count; p++) {
            const struct vp_plan_point *point = &step->plan.points[p];
            char why[VP_ERROR_LEN];
            /* a key of the user's (an external server's) is read in the members too */
            if (vp_params_find(&point->params, "key-file") >= 0 &&
                strcmp(vp_param_text(&point->params, "key-file"), "none") != 0)
                vp_path_set_add(&run->files, vp_param_text(&point->params, "key-file"));
            if (point->bench->member_files &&
                point->bench->member_files(&point->params, &run->files, why, sizeof why) != 0) {
                snprintf(err, err_len, "%s%s%s%s (%s, in %ss)", step->name ? "[" : "",
                         step->name ? step->name : "", step->name ? "]: " : "", why,
                         point->bench->name, run->kind->noun);
                return -1;
            }
        }
    }
    /* a member mounts its own of these over what its image carries (a container its /work) */
    static const char *const own[] = { "/tmp", "/proc", "/sys", "/dev", "/run", "/work" };
    size_t owned = sizeof own / sizeof own[0] - (strcmp(run->kind->noun, "container") != 0);
    for (size_t f = 0; f < run->files.count; f++) {
        const char *path = run->files.paths[f];
        for (size_t o = 0; o < owned; o++) {
            size_t len = strlen(own[o]);
            if (strcmp(path, "/") == 0 ||
                (strncmp(path, own[o], len) == 0 && (path[len] == '/' || path[len] == '\0'))) {
                snprintf(err, err_len, "%s: %s is %s, which each %s has its own of; accepted: "
                         "programs and files elsewhere on this host", run->kind->flag, path,
                         strcmp(path, "/") == 0 ? "the whole of this host" : owned < 6
                             ? "under /tmp, /proc, /sys, /dev or /run"
                             : "under /tmp, /proc, /sys, /dev, /run or /work", run->kind->noun);
                return -1;
            }
        }
    }
    return 0;
}

/* Starts the most members SPEC asks for, each heard from and agreeing to the steps. */
static int open_fleet(void *context, struct vp_run_steps *steps, char *err, size_t err_len)
{
    struct fleet_run *run = context;
    const struct vp_fleet_kind *kind = run->kind;
    const struct vp_guests_request *asked = &steps->guests;
    run->of_plan = steps->kept_text != NULL;
    for (size_t s = 0; s < steps->count; s++) {
        unsigned counts[VP_MAX_GUESTS];
        size_t n;
        if (step_counts(run, &steps->step[s], counts, &n, err, err_len) != 0)
            return -1;
        for (size_t c = 0; c < n; c++)
            run->most = counts[c] > run->most ? counts[c] : run->most;
    }
    if (take_topology(run, steps, err, err_len) != 0)
        return -1;
    for (size_t s = 0; s < steps->count; s++) {
        if (steps->step[s].request.plan.reps_auto)
            return refuse(err, err_len, kind->flag, "--reps auto", "--reps N (every member "
                          "would have to agree when to stop)");
        if (steps->step[s].request.background)
            return refuse(err, err_len, kind->flag, "--background",
                          "net.probe as a benchmark of its own");
    }
    if (gather_files(run, steps, err, err_len) != 0)
        return -1;
    run->host_dir = asked->disk_dir;
    run->timeout_s = asked->timeout_s ? asked->timeout_s : DEFAULT_TIMEOUT_S;
    run->monitor_hz = steps->step[0].request.monitor_hz;
    run->watch = steps->step[0].request.watch;
    run->watch_count = steps->step[0].request.watch_count;
    /* a scratch directory (core/scratch.h) says which virtperf owns it: what a SIGKILL
     * left is reclaimed by the next run that makes one in /tmp */
    char prefix[64], why[VP_ERROR_LEN];
    snprintf(prefix, sizeof prefix, "virtperf-%ss", kind->noun);
    if (vp_scratch_make("/tmp", prefix, run->work, sizeof run->work, why, sizeof why) != 0) {
        snprintf(err, err_len, "%s: /tmp: %s", kind->flag, why);
        return -1;
    }
    if (kind->shared_work) /* libvirt's QEMU user makes the channel sockets there */
        chmod(run->work, 0755);
    vp_engine_catch_signals();
    struct vp_fleet_setup setup = { .asked = asked, .work = run->work, .most = run->most,
                                    .files = &run->files };
    if (kind->prepare(kind->state, &setup, err, err_len) != 0)
        return -1;
    take_outside(run, steps);
    /* where this host serves is known (or refused) before any member starts */
    const char *server_address = NULL;
    if (wants_server(run, steps) &&
        !(server_address = kind->server_address(kind->state, err, err_len)))
        return -1;
    for (size_t m = 0; m < run->most; m++) {
        struct vp_member *member = &run->members[m];
        *member = (struct vp_member){ .fd = -1 };
        snprintf(member->name, sizeof member->name, "virtperf-%ld-%zu", (long)getpid(), m + 1);
        run->started = m + 1; /* removed with the others even when it does not start */
        member->started_ns = vp_now_ns();
        if (kind->start(kind->state, member, m, err, err_len) != 0)
            return -1;
    }
    for (size_t m = 0; m < run->started; m++)
        if (!run->members[m].fingerprint &&
            vp_fleet_hear(kind, &run->members[m], run->timeout_s, err, err_len) != 0)
            return -1;
    enum vp_topology_kind serving = members_serve(run, steps->count);
    if ((server_address && start_server(run, steps, server_address, err, err_len) != 0) ||
        send_steps(run, steps, err, err_len) != 0 ||
        (serving != VP_TOPOLOGY_NONE && start_member_servers(run, serving, err, err_len) != 0))
        return -1;
    if (run->linked) {
        name_ranks(run);
        run->host_fingerprint = vp_sysinfo_collect(steps->topology);
    }
    for (size_t m = 0; m < run->started; m++)
        run->members[m].paused = kind->pause(kind->state, &run->members[m], true) == 0;
    json_t *summary = kind->summary(kind->state);
    const char *accel = json_string_value(json_object_get(summary, "accel"));
    fprintf(stderr, "virtperf: %u %s%s started (%s%s%s)\n", run->most, kind->noun,
            run->most == 1 ? "" : "s", json_string_value(json_object_get(summary, "engine")),
            accel ? " " : "", accel ? accel : "");
    json_decref(summary);
    return 0;
}

/* A refusal: every member gone first; 130 when it was Ctrl-C. */
static void settle_fleet(void *context, const char *refusal, int exit_status)
{
    struct fleet_run *run = context;
    if (!refusal)
        return;
    remove_all(run);
    fprintf(stderr, "virtperf: %s%s\n", refusal,
            run->of_plan ? " (or --no-guests: the plan's steps on this host alone)" : "");
    exit(vp_engine_interrupted() ? VP_EXIT_INTERRUPTED : exit_status);
}

static void start_monitor(void *context)
{
    struct fleet_run *run = context;
    char ignored[256];
    run->monitor = vp_monitor_start(run->monitor_hz, run->watch, run->watch_count, NULL, ignored,
                                    sizeof ignored);
}

/* The first count members running, the others paused. */
static void set_running(struct fleet_run *run, unsigned count)
{
    for (size_t m = 0; m < run->started; m++) {
        bool pause = m >= count;
        struct vp_member *member = &run->members[m];
        if (member->paused != pause && run->kind->pause(run->kind->state, member, pause) == 0)
            member->paused = pause;
    }
}

/* Whether member is gone; its engine may take a moment to see it after its channel
 * closed. */
static bool member_gone(const struct vp_fleet_kind *kind, struct vp_member *member)
{
    for (int tries = 0; tries < 20; tries++) {
        if (!kind->alive(kind->state, member))
            return true;
        usleep(50000);
    }
    return false;
}

/* Why member index was lost: its channel's failure, and whether it is gone. */
static void lost_reason(const struct fleet_run *run, int index, const char *why, char *reason,
                        size_t len)
{
    struct vp_member *member = (struct vp_member *)&run->members[index];
    snprintf(reason, len, "%s %d (%s): %s%s", run->kind->noun, index + 1, member->name, why,
             member_gone(run->kind, member) ? " (it is gone: destroyed, killed or crashed)" : "");
}

/* What the first count members cost this host over seconds, under "guests". */
static json_t *cost_json(const struct fleet_run *run, unsigned count, double seconds)
{
    json_t *hosts = json_array();
    for (unsigned m = 0; m < count; m++) {
        json_t *entry = run->kind->cost_end(run->kind->state, (struct vp_member *)&run->members[m],
                                            seconds);
        json_object_set_new(entry, "ready_s", json_real(run->members[m].ready_s));
        json_array_append_new(hosts, entry);
    }
    json_t *summary = run->kind->summary(run->kind->state);
    json_object_set_new(summary, "count", json_integer(count));
    if (run->files.count > 0) {
        json_t *files = json_array();
        for (size_t f = 0; f < run->files.count; f++)
            json_array_append_new(files, json_string(run->files.paths[f]));
        json_object_set_new(summary, "programs", files);
    }
    json_object_set_new(summary, "hosts", hosts);
    return summary;
}

/* ---- this host's own jobs: beside the members (--and-host), or a topology's rank 0 ---- */

/* What this host leads in a point: the ranks' channels and the protocol over them, and
 * what it does as it sends each instant. */
struct lead {
    int fds[VP_MAX_GUESTS + 1];
    struct vp_channel_transport channel;
    struct vp_together together;
    struct fleet_run *run;
    int64_t *starts;       /* each repetition's instant on this host's clock, NULL: not kept */
    bool monitors;         /* this host's monitor starts with the first measured repetition */
};

static void releasing(void *context, unsigned rep, int64_t instant_ns)
{
    struct lead *lead = context;
    if (lead->monitors && rep == lead->together.warmup)
        start_monitor(lead->run);
    if (lead->starts)
        lead->starts[rep] = instant_ns;
}

/* Times the count ranks of lead (their channels in lead->fds) for point. */
static int begin_lead(struct lead *lead, const struct fleet_run *run, size_t count,
                      const struct vp_plan_point *point, char *reason, size_t reason_len)
{
    vp_channel_transport_lead(&lead->channel, lead->fds, count, run->timeout_s);
    int status = vp_together_begin(&lead->together, &lead->channel.transport,
                                   point->bench->ops_per_rep != NULL, false, point->warmup,
                                   point->warmup + point->reps, reason, reason_len);
    lead->together.releasing = releasing;
    lead->together.releasing_context = lead;
    return status;
}

/* The host's side of a point: a process of this host running the point's jobs as a
 * member's agent does, over a socket pair, so both sides are started by one protocol. */
struct host_side {
    pid_t pid;
    int fd;
    unsigned jobs; /* how many it runs (0: the point's) */
    struct lead lead;
};

/* Where a point's jobs on this host connect: to peer, a link's server (the external end's
 * with the user's key, the others' with the run's), or the run's server (NULL) when the
 * point talks to it; NULL: as the point says. */
static const struct vp_agent_link *host_link(const struct fleet_run *run,
                                             const struct vp_plan_point *point, const char *peer,
                                             bool reverse, struct vp_agent_link *link,
                                             char *key_path, size_t key_len)
{
    if (!run->server || !vp_layout_is_network(point->bench) ||
        (!peer && strcmp(vp_param_text(&point->params, "peer"), VP_NET_EMBEDDED) != 0))
        return NULL;
    if (peer && peer == run->external_peer)
        snprintf(key_path, key_len, "%s", run->external_key);
    else
        snprintf(key_path, key_len, "%s/server.key", run->work);
    *link = (struct vp_agent_link){ .peer = peer ? peer : run->server_peer, .key_file = key_path,
                                    .reverse = reverse };
    return link;
}

/* Forks the host's agent for point point_index of step index with jobs jobs (0: the
 * point's), its jobs aimed by link. */
static int start_host_side(struct fleet_run *run, const struct vp_run_steps *steps, size_t index,
                           size_t point_index, unsigned jobs, const struct vp_agent_link *link,
                           struct host_side *side, char *err, size_t err_len)
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        snprintf(err, err_len, "this host's jobs: cannot make a socket pair: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    side->pid = fork();
    if (side->pid == 0) {
        close(pair[0]);
        char why[256] = "";
        if (run->host_dir && chdir(run->host_dir) != 0)
            snprintf(why, sizeof why, "cannot work in %s: %s", run->host_dir, strerror(errno));
        if (why[0] || vp_agent_run_point(pair[1], steps, index, point_index, jobs, link, why,
                                         sizeof why) != 0) {
            fprintf(stderr, "virtperf: the host's jobs: %s\n", why);
            _exit(1);
        }
        _exit(0);
    }
    close(pair[1]);
    if (side->pid < 0) {
        close(pair[0]);
        snprintf(err, err_len, "this host's jobs: cannot fork: %s", strerror(errno));
        return -1;
    }
    side->fd = pair[0];
    side->jobs = jobs;
    side->lead.fds[0] = side->fd;
    return 0;
}

/* Waits for the host's agent to end (stopped first when not held: its partner in the
 * protocol is gone); whether it exited cleanly. */
static bool reap_host_side(struct host_side *side, bool held)
{
    close(side->fd);
    if (!held)
        kill(side->pid, SIGTERM);
    int status = 0;
    while (waitpid(side->pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The host side's result (failed, saying why, when its agent did not give one) once its
 * agent has ended; lost: the run lost it. */
static json_t *end_host_side(struct host_side *side, const struct vp_plan_point *point,
                             double duration, bool held, const char *stopped_why)
{
    char err[256] = "", *text = NULL;
    void *region = NULL;
    size_t region_len;
    json_t *result = NULL;
    if (held && vp_together_receive_part(&side->lead.together, 1,
                                         vp_shared_most(point, side->jobs, duration),
                                         &text, &region, &region_len,
                                         err, sizeof err) == 0)
        result = vp_result_from("this host", text);
    free(text);
    free(region);
    bool exited_ok = reap_host_side(side, held);
    if (!result || !exited_ok) {
        json_decref(result);
        char why[400];
        if (!held)
            snprintf(why, sizeof why, "the host's jobs: stopped with the other side (%s)",
                     stopped_why);
        else
            snprintf(why, sizeof why, "the host's jobs: %s%s", err[0] ? err : "no result",
                     exited_ok ? "" : " (its process did not end cleanly)");
        result = vp_result_finish(vp_result_start(point->bench, &point->params, point->jobs,
                                                  &(struct vp_run_settings){ 0 }),
                                  vp_engine_interrupted() ? "interrupted" : "failed", why);
    }
    return result;
}

/* A result's "side": its name, the members of the run ("guests" or "containers"), and
 * when its repetitions started, s after origin_ns (the ones that did not start left out). */
static json_t *side_json(const struct fleet_run *run, const char *name, const int64_t *starts,
                         int64_t origin_ns, unsigned count)
{
    json_t *seconds = json_array();
    for (unsigned r = 0; r < count && starts[r] > 0; r++)
        json_array_append_new(seconds, json_real((double)(starts[r] - origin_ns) / 1e9));
    return json_pack("{s:s,s:s+,s:o}", "name", name, "members", run->kind->noun, "s",
                     "starts_s", seconds);
}

/* ---- one point ---- */

/* Rank rank's server: this host's (0), the external end's, or a member's own. */
static const char *server_of(const struct fleet_run *run, int rank)
{
    if (rank == run->external_rank)
        return run->external_peer;
    return rank == 0 ? run->server_peer : run->member_peer[rank - 1];
}

/* Who runs a point: ranks (0: this host, m + 1: member m) in the order they start. */
struct point_ranks {
    int rank[VP_MAX_GUESTS + 1];
    size_t count;
};

/* The word that sends member rank to point point_index of step index: where its jobs
 * connect when link (a topology's step) gives it a server. */
static char *point_message(const struct fleet_run *run, const struct vp_step *link, int rank,
                           size_t index, size_t point_index)
{
    json_t *message = json_pack("{s:[I,I]}", "run", (json_int_t)index, (json_int_t)point_index);
    if (link && link->peers[rank] >= 0) {
        bool external = link->peers[rank] == run->external_rank;
        json_object_set_new(message, "peer", json_string(server_of(run, link->peers[rank])));
        json_object_set_new(message, "key_file",
                            json_string(external ? run->external_key : MEMBER_KEY_PATH));
        json_object_set_new(message, "reverse", json_boolean(link->reverse));
    }
    char *text = json_dumps(message, JSON_COMPACT);
    json_decref(message);
    return text;
}

/* How a point's protocol ended when it did not hold: the rank (its index in the point's
 * ranks) whose channel failed, or this host's side, and why. */
struct point_outcome {
    int lost;        /* -1: none (a signal, or this host's side) */
    bool host_lost;  /* this host's alternating side */
    char reason[512];
};

/* Sends the point to its running members and starts every rank that runs together (the
 * alternating host side too, when host); false with what was lost when the protocol did
 * not hold. */
static bool run_together(struct fleet_run *run, struct lead *guests, struct host_side *host,
                         const struct point_ranks *ranks, const struct vp_step *link,
                         const struct vp_plan_point *point, size_t index, size_t point_index,
                         struct point_outcome *outcome)
{
    char *reason = outcome->reason;
    size_t reason_len = sizeof outcome->reason;
    for (size_t i = 0; i < ranks->count; i++) {
        if (ranks->rank[i] == 0)
            continue; /* this host's jobs know their point: their channel is fds[0] */
        struct vp_member *member = &run->members[ranks->rank[i] - 1];
        guests->fds[i] = member->fd;
        char *message = point_message(run, link, ranks->rank[i], index, point_index);
        int sent = vp_channel_send(member->fd, VP_CHANNEL_STEPS, message, strlen(message),
                                   reason, reason_len);
        free(message);
        if (sent != 0) {
            outcome->lost = (int)i;
            return false;
        }
    }
    if (begin_lead(guests, run, ranks->count, point, reason, reason_len) != 0) {
        outcome->lost = guests->channel.lost - 1;
        return false;
    }
    if (!host) {
        if (vp_together_wait(&guests->together, reason, reason_len) == 0)
            return true;
        outcome->lost = guests->channel.lost - 1;
        return false;
    }
    size_t lost_side = 0;
    struct vp_together *const sides[] = { &host->lead.together, &guests->together };
    if (begin_lead(&host->lead, run, 1, point, reason, reason_len) == 0 &&
        vp_together_alternate(sides, 2, &lost_side, reason, reason_len) == 0)
        return true;
    outcome->host_lost = lost_side == 0;
    outcome->lost = lost_side == 0 ? -1 : guests->channel.lost - 1;
    return false;
}

/* A rank's name in what went wrong. */
static const char *rank_name(const struct fleet_run *run, int rank)
{
    return rank == 0 ? "this host" : run->members[rank - 1].name;
}

/* Every running rank's part of a point, as this host combines them. */
struct point_parts {
    struct vp_host_part part[VP_MAX_GUESTS + 1];
    struct vp_shared view[VP_MAX_GUESTS + 1];
    void *region[VP_MAX_GUESTS + 1];
};

/* Each running rank's result and region when the protocol held (else a part saying it
 * was not heard from); false, with the rank that was lost, when one did not come. */
static bool receive_parts(const struct fleet_run *run, const struct vp_together *together,
                          const struct point_ranks *ranks, const struct vp_plan_point *point,
                          double duration, int64_t began, bool held,
                          struct point_outcome *outcome, struct point_parts *parts)
{
    for (size_t i = 0; i < ranks->count; i++) {
        int rank = ranks->rank[i];
        struct vp_host_part *part = &parts->part[i];
        *part = (struct vp_host_part){
            .rank = rank,
            .fingerprint = rank ? run->members[rank - 1].fingerprint : run->host_fingerprint,
            .clock_offset_ns = together->offsets ? together->offsets[i + 1] : 0,
            .offset_bound_ns = together->bounds ? together->bounds[i + 1] : 0 };
        parts->region[i] = NULL;
        char *text = NULL;
        size_t region_len;
        if (held && vp_together_receive_part(together, (int)i + 1,
                                             vp_shared_most(point, 0, duration), &text,
                                             &parts->region[i], &region_len, outcome->reason,
                                             sizeof outcome->reason) == 0) {
            part->result = vp_result_from(rank_name(run, rank), text);
            vp_shared_take(rank_name(run, rank), point, duration, began, part, &parts->view[i],
                           parts->region[i], region_len);
        } else if (held) {
            held = false;
            outcome->lost = (int)i;
        }
        free(text);
        if (!json_is_object(part->result)) {
            json_decref(part->result);
            part->result = json_pack("{s:s,s:s}", "status", "interrupted", "error",
                                     "not heard from: the run stopped");
        }
    }
    return held;
}

/* One point on the first count members, or on the ranks link (a topology's step) runs:
 * their combined result; with --and-host also the host's (*host_result, NULL without).
 * *stopped: a member was lost or a signal came. */
static json_t *run_point(struct fleet_run *run, const struct vp_run_steps *steps, size_t index,
                         size_t point_index, unsigned count, const struct vp_step *link,
                         struct vp_run_settings *settings, bool with_host, json_t **host_result,
                         bool *stopped)
{
    const struct vp_run_step *step = &steps->step[index];
    const struct vp_plan_point *point = &step->plan.points[point_index];
    set_running(run, count);
    struct point_ranks ranks = { .count = 0 };
    for (unsigned r = 0; r <= count; r++)
        if (link ? link->roles[r] == VP_ROLE_RUN : r > 0)
            ranks.rank[ranks.count++] = (int)r;
    unsigned total_reps = point->warmup + point->reps, measured = point->reps ? point->reps : 1;
    struct lead guests = { .run = run, .monitors = true };
    struct host_side host_side = { .lead = { .run = run } }, linked_host, *host = NULL;
    bool host_linked = link && link->roles[0] == VP_ROLE_RUN; /* ranks.rank[0] is 0 */
    char host_err[256] = "", key_path[sizeof run->work + 16];
    struct vp_agent_link aim;
    int64_t *host_starts = NULL, *guest_starts = NULL;
    *host_result = NULL;
    if (host_linked) {
        const struct vp_agent_link *how = host_link(run, point, server_of(run, link->peers[0]),
                                                    link->reverse, &aim, key_path,
                                                    sizeof key_path);
        if (start_host_side(run, steps, index, point_index, 0, how, &linked_host, host_err,
                            sizeof host_err) != 0) {
            *stopped = true;
            return vp_result_finish(vp_result_start(point->bench, &point->params, point->jobs,
                                                    settings), "failed", host_err);
        }
        guests.fds[0] = linked_host.fd;
    } else if (with_host &&
               start_host_side(run, steps, index, point_index, count * point->jobs,
                               host_link(run, point, NULL, false, &aim, key_path, sizeof key_path),
                               &host_side, host_err, sizeof host_err) == 0) {
        host = &host_side;
        host_starts = calloc(total_reps, sizeof *host_starts);
        guest_starts = calloc(total_reps, sizeof *guest_starts);
        if (!host_starts || !guest_starts)
            abort();
        guests.starts = guest_starts;
        host->lead.starts = host_starts;
    }
    for (unsigned m = 0; m < count; m++)
        run->kind->cost_begin(run->kind->state, &run->members[m]);
    int64_t began = vp_now_ns();
    struct point_outcome outcome = { .lost = -1 };
    bool held = run_together(run, &guests, host, &ranks, link, point, index, point_index,
                             &outcome);
    double seconds = (double)(vp_now_ns() - began) / 1e9;
    json_t *monitor = run->monitor ? vp_monitor_stop(run->monitor) : NULL;
    run->monitor = NULL;
    json_t *cost = cost_json(run, count, seconds);

    struct point_parts parts;
    double duration = settings->duration > 0 ? settings->duration : point->bench->default_duration;
    const struct vp_together *together = &guests.together;
    held = receive_parts(run, together, &ranks, point, duration, began, held, &outcome,
                         &parts);
    if (host_linked && !reap_host_side(&linked_host, held) && held) {
        json_decref(parts.part[0].result);
        parts.part[0].result = json_pack("{s:s,s:s}", "status", "failed", "error",
                                    "this host's jobs: its process did not end cleanly");
    }
    char reason[800] = "";
    if (host) {
        /* not held: its agent may wait for a start that never comes, so it is stopped */
        const char *why = outcome.lost >= 0 ? "a guest was lost" : "a signal came";
        *host_result = end_host_side(host, point, duration, held, why);
        if (outcome.host_lost) {
            vp_result_finish(*host_result, vp_engine_interrupted() ? "interrupted" : "failed",
                             outcome.reason);
            *stopped = true;
        }
        json_object_set_new(*host_result, "side",
                            side_json(run, "host", host_starts, host_starts[0], total_reps));
        vp_together_end(&host->lead.together);
    } else if (with_host) {
        *host_result = vp_result_finish(vp_result_start(point->bench, &point->params,
                                                        count * point->jobs, settings),
                                        "failed", host_err);
        json_object_set_new(*host_result, "side", side_json(run, "host", NULL, 0, 0));
        *stopped = true;
    }
    if (outcome.lost >= 0) { /* the lost one's part says what became of it */
        int rank = ranks.rank[outcome.lost];
        if (rank == 0)
            snprintf(reason, sizeof reason, "this host's jobs: %s", outcome.reason);
        else
            lost_reason(run, rank - 1, outcome.reason, reason, sizeof reason);
        json_decref(parts.part[outcome.lost].result);
        parts.part[outcome.lost].result = json_pack("{s:s,s:s}", "status", "failed", "error",
                                                    reason);
    }
    /* stored with the server the members talked to named (a topology: its name, and
     * fan-out's direction) */
    struct vp_params params = point->params;
    char err[256];
    if (run->server && vp_params_find(&params, "peer") >= 0 &&
        (link || strcmp(vp_param_text(&params, "peer"), VP_NET_EMBEDDED) == 0))
        vp_params_set(&params, "peer",
                      link ? vp_topology_name(run->topology[index]) : run->server_peer, err,
                      sizeof err);
    vp_params_set(&params, "reverse", link && link->reverse ? "on" : NULL, err, sizeof err);
    double *no_rates = together->stonewall ? NULL : calloc(2 * (size_t)measured, sizeof *no_rates);
    json_t *result = vp_combine_hosts(point->bench, &params, point->jobs, settings, parts.part,
                                      ranks.count, no_rates ? no_rates : together->stonewall,
                                      no_rates ? no_rates + measured : together->span);
    free(no_rates);
    if (link)
        vp_layout_mark(result, run->topology[index], link, run->link_ends, run->link_labels);
    if (outcome.lost >= 0) {
        vp_result_finish(result, vp_engine_interrupted() ? "interrupted" : "failed", reason);
        *stopped = true;
    }
    if (*host_result) /* one point, so one params (without the host's key file) */
        json_object_set(*host_result, "params", json_object_get(result, "params"));
    if (monitor)
        json_object_set_new(result, "monitor", monitor);
    json_object_set_new(result, "guests", cost);
    if (guest_starts)
        json_object_set_new(result, "side",
                            side_json(run, "guests", guest_starts,
                                      host_starts[0] ? host_starts[0] : guest_starts[0],
                                      total_reps));
    free(host_starts);
    free(guest_starts);
    for (size_t i = 0; i < ranks.count; i++) {
        json_decref(parts.part[i].result);
        free(parts.region[i]);
    }
    vp_together_end(&guests.together);
    *stopped = *stopped || vp_engine_interrupted();
    return result;
}

/* The result(s) of one point to the session, marked with the plan's step. */
static void keep_results(struct vp_run_session *session, const struct vp_run_step *step,
                         json_t *const *results, size_t count)
{
    for (size_t r = 0; r < count; r++) {
        if (!results[r])
            continue;
        if (step->name)
            json_object_set_new(results[r], "step", json_string(step->name));
        vp_run_session_add(session, results[r]);
        json_decref(results[r]);
    }
}

/* A net point at count members under the topology: each step of its layout (this host
 * rank 0, the members ranks 1..count, an external end count + 1 when the point names a
 * --peer) in turn, one result each. */
static void run_linked_point(struct fleet_run *run, const struct vp_run_steps *steps,
                             size_t index, size_t point_index, unsigned count,
                             struct vp_run_settings *settings, struct vp_run_session *session,
                             bool *stopped)
{
    const struct vp_run_step *step = &steps->step[index];
    const struct vp_plan_point *point = &step->plan.points[point_index];
    struct vp_plan one = { .points = &step->plan.points[point_index], .count = 1 };
    const char *peer = vp_param_text(&point->params, "peer");
    bool external = strcmp(peer, VP_NET_EMBEDDED) != 0;
    char *labels[VP_MAX_GUESTS + 2], external_label[128];
    memcpy(labels, run->labels, (count + 1) * sizeof *labels);
    unsigned ends = count + 1 + external;
    if (external) {
        snprintf(external_label, sizeof external_label, "external %s", peer);
        labels[count + 1] = external_label;
        run->external_rank = (int)count + 1;
        run->external_peer = peer;
        run->external_key = vp_param_text(&point->params, "key-file");
    }
    run->link_labels = labels;
    run->link_ends = (int)ends;
    struct vp_layout layout;
    char err[256];
    if (vp_layout_build(&one, (int)ends, &ends, 1, run->topology[index], run->external_rank,
                        &layout, err, sizeof err) != 0) {
        run->external_rank = -1;
        return; /* judged in take_topology */
    }
    for (size_t s = 0; s < layout.count && !*stopped; s++) {
        const struct vp_step *link = &layout.steps[s];
        json_t *none = NULL;
        json_t *result = run_point(run, steps, index, point_index, count, link, settings, false,
                                   &none, stopped);
        /* a member that only served the link is in no protocol: asked whether it is gone */
        for (unsigned r = 1; r <= count && !*stopped; r++) {
            if (link->roles[r] != VP_ROLE_WAIT ||
                run->kind->alive(run->kind->state, &run->members[r - 1]))
                continue;
            char reason[800];
            lost_reason(run, (int)r - 1, "gone while it served this link", reason,
                        sizeof reason);
            vp_result_finish(result, vp_engine_interrupted() ? "interrupted" : "failed", reason);
            *stopped = true;
        }
        keep_results(session, step, &result, 1);
    }
    vp_layout_free(&layout);
    run->external_rank = -1;
    run->link_labels = NULL;
}

/* Every count of the step's SPEC, every point of the step; a step of a plan that runs in
 * no member runs on this host, the members paused. */
static bool run_step_in_fleet(void *context, const struct vp_run_steps *steps, size_t index,
                              struct vp_run_session *session, struct vp_progress *progress)
{
    struct fleet_run *run = context;
    const struct vp_run_step *step = &steps->step[index];
    unsigned counts[VP_MAX_GUESTS];
    size_t count_n;
    char ignored[256]; /* judged in open_fleet */
    step_counts(run, step, counts, &count_n, ignored, sizeof ignored);
    if (count_n == 0) {
        set_running(run, 0);
        return vp_run_step_here(steps, index, session, progress);
    }
    struct vp_run_settings settings = vp_run_settings_of(step, steps->topology, progress);
    bool stopped = false;
    for (size_t c = 0; c < count_n && !stopped; c++) {
        for (size_t p = 0; p < step->plan.count && !stopped; p++) {
            const struct vp_plan_point *point = &step->plan.points[p];
            settings.pin_spec = point->pin;
            settings.reps = point->reps;
            settings.warmup = point->warmup;
            if (run->topology[index] != VP_TOPOLOGY_NONE && vp_layout_is_network(point->bench)) {
                run_linked_point(run, steps, index, p, counts[c], &settings, session, &stopped);
                continue;
            }
            json_t *host = NULL;
            json_t *result = run_point(run, steps, index, p, counts[c], NULL, &settings,
                                       with_host_side(run, steps, step), &host, &stopped);
            json_t *both[] = { host, result };
            keep_results(session, step, both, 2);
        }
    }
    return stopped;
}

static unsigned fleet_repetitions(void *context, const struct vp_run_steps *steps)
{
    (void)context, (void)steps;
    return 0; /* the members' repetitions are not seen here */
}

static int close_fleet(void *context, int status, bool stopped)
{
    (void)stopped;
    remove_all(context);
    return status;
}

int vp_run_fleet(const struct vp_fleet_kind *kind, const char *spec, struct vp_run_steps *steps,
                 int argc, char **argv)
{
    static struct fleet_run run;
    run = (struct fleet_run){ .kind = kind, .spec = spec, .argc = argc, .argv = argv,
                              .words = argv, .word_count = argc, .external_rank = -1 };
    const struct vp_runner runner = {
        .program = "virtperf run", .keeps_session = true, .context = &run,
        .settle = settle_fleet, .open = open_fleet, .repetitions = fleet_repetitions,
        .run_step = run_step_in_fleet, .close = close_fleet,
    };
    vp_copy_speed_settle(); /* before any member boots */
    int status = vp_run_execute(&runner, steps, argc, argv);
    if (run.words != argv)
        free(run.words);
    for (size_t s = 0; s < run.set_count; s++)
        free(run.sets[s]);
    json_decref(run.host_fingerprint);
    vp_path_set_free(&run.files);
    vp_run_steps_free(steps);
    return status;
}
