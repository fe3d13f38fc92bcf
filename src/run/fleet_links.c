/* The fleet's servers and a --topology's links (see fleet.h): this host's server the
 * members talk to, the members' own, and each step of a linked point in turn. */
#define _GNU_SOURCE /* asprintf */
#include "run/fleet_run.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/net_peer.h"
#include "core/printable.h"
#include "engine/result.h"
#include "env/channel.h"
#include "net/auth.h"
#include "net/client.h"

/* Whether a point of step, run in members, talks to the embedded server (no --peer
 * given). */
static bool step_wants_server(const struct fleet_run *run, const struct vp_run_step *step)
{
    for (size_t p = 0; vp_fleet_in_members(run, step) && p < step->plan.count; p++) {
        const struct vp_plan_point *point = &step->plan.points[p];
        if (!vp_layout_is_network(point->bench))
            continue;
        const char *peer = vp_param_text(&point->params, "peer");
        if (peer && strcmp(peer, VP_NET_EMBEDDED) == 0)
            return true;
    }
    return false;
}

bool vp_fleet_wants_server(const struct fleet_run *run, const struct vp_run_steps *steps)
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
int vp_fleet_start_server(struct fleet_run *run, const struct vp_run_steps *steps,
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
        snprintf(err, err_len, "%s: cannot write the server's key %s", run->kind->env->flag, path);
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
int vp_fleet_take_topology(struct fleet_run *run, const struct vp_run_steps *steps, char *err,
                           size_t err_len)
{
    for (size_t s = 0; s < steps->count; s++) {
        const struct vp_run_step *step = &steps->step[s];
        if (vp_topology_parse(step->request.topology, &run->topology[s], err, err_len) != 0)
            return -1;
        if (run->topology[s] == VP_TOPOLOGY_NONE)
            continue;
        run->linked = true;
        if (vp_fleet_with_host_side(run, steps, step))
            return vp_fleet_refuse(err, err_len, "--topology", "--and-host",
                                   "--topology (this host is one end of its links) or --and-host "
                                   "alone (net.stream --reverse --and-host: this host's server "
                                   "sends to each guest, as fan-out does, beside this host's own "
                                   "jobs)");
        unsigned counts[VP_MAX_GUESTS];
        size_t n;
        vp_fleet_step_counts(run, step, counts, &n, err, err_len);
        for (size_t p = 0; p < step->plan.count; p++) {
            const struct vp_plan_point *point = &step->plan.points[p];
            if (!vp_layout_is_network(point->bench))
                continue;
            if (strcmp(vp_param_text(&point->params, "peer"), VP_NET_EMBEDDED) != 0 &&
                run->topology[s] != VP_TOPOLOGY_MATRIX)
                return vp_fleet_refuse(err, err_len, "--topology", "--peer",
                                       "--topology without --peer (the topology names each job's "
                                       "server), or --topology matrix --peer HOST (that host's "
                                       "server one more end of the matrix)");
            for (size_t c = 0; c < n && run->topology[s] == VP_TOPOLOGY_PAIRS; c++)
                if (counts[c] % 2 == 0) {
                    snprintf(err, err_len, "--topology pairs: this host and %u %s%s are %u "
                             "ends, which do not pair; accepted: an odd count (%s 1, 3, 5...)",
                             counts[c], run->kind->env->noun, counts[c] == 1 ? "" : "s",
                             counts[c] + 1, run->kind->env->flag);
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
void vp_fleet_take_outside(struct fleet_run *run, const struct vp_run_steps *steps)
{
    /* groups: every member runs every point, none is paused; and links are one group's */
    if (run->groups[0].name || !run->kind->member_address(run->kind->state, 0))
        return;
    for (size_t s = 0; s < steps->count; s++) {
        const struct vp_run_step *step = &steps->step[s];
        bool outside = run->topology[s] == VP_TOPOLOGY_NONE && vp_fleet_in_members(run, step) &&
                       !vp_fleet_with_host_side(run, steps, step);
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
enum vp_topology_kind vp_fleet_members_serve(const struct fleet_run *run, size_t step_count)
{
    for (size_t s = 0; s < step_count; s++)
        if (run->topology[s] == VP_TOPOLOGY_PAIRS || run->topology[s] == VP_TOPOLOGY_MATRIX ||
            run->topology[s] == VP_TOPOLOGY_OUTSIDE)
            return run->topology[s];
    return VP_TOPOLOGY_NONE;
}

/* Each rank's name in a link: this host, then each member, with its address. */
void vp_fleet_name_ranks(struct fleet_run *run)
{
    snprintf(run->label_text[0], sizeof run->label_text[0], VP_LINK_THIS_HOST " %.*s",
             (int)strcspn(run->server_peer, ":"), run->server_peer);
    run->labels[0] = run->label_text[0];
    for (size_t m = 0; m < run->started; m++) {
        const char *address = run->kind->member_address(run->kind->state, m);
        snprintf(run->label_text[m + 1], sizeof run->label_text[m + 1], "%s-%zu%s%s",
                 run->kind->env->noun, m + 1, address ? " " : "", address ? address : "");
        run->labels[m + 1] = run->label_text[m + 1];
    }
}

/* Asks every member to serve on its own address (the run's key) and keeps where. */
int vp_fleet_start_member_servers(struct fleet_run *run, enum vp_topology_kind topology,
                                  char *err, size_t err_len)
{
    for (size_t m = 0; m < run->started; m++) {
        struct vp_member *member = &run->members[m];
        const char *address = run->kind->member_address(run->kind->state, m);
        if (!address) {
            snprintf(err, err_len, "--topology %s: the %ss have no address of their own here; "
                     "accepted: fan-in or fan-out (every %s to this host)%s%s",
                     vp_topology_name(topology), run->kind->env->noun, run->kind->env->noun,
                     run->kind->own_address_hint ? ", or " : "",
                     run->kind->own_address_hint ? run->kind->own_address_hint : "");
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
            snprintf(err, err_len, "in %s %s: its server did not start: %s", run->kind->env->noun,
                     member->name, refused ? vp_printable(refused, shown, sizeof shown)
                                           : "no port in its answer");
        }
        json_decref(parsed);
        if (!run->member_peer[m][0])
            return -1;
    }
    return 0;
}

/* A net point at count members under the topology: each step of its layout (this host
 * rank 0, the members ranks 1..count, an external end count + 1 when the point names a
 * --peer) in turn, one result each. */
void vp_fleet_run_linked_point(struct fleet_run *run, const struct vp_run_steps *steps,
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
        snprintf(external_label, sizeof external_label, VP_LINK_EXTERNAL " %s", peer);
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
        json_t *results[2] = { NULL, NULL }; /* no host side; the run's one group */
        vp_fleet_run_point(run, steps, index, point_index, count, link, settings, false,
                           results, stopped);
        json_t *result = results[1];
        /* a member that only served the link is in no protocol: asked whether it is gone */
        for (unsigned r = 1; r <= count && !*stopped; r++) {
            if (link->roles[r] != VP_ROLE_WAIT ||
                run->kind->alive(run->kind->state, &run->members[r - 1]))
                continue;
            char reason[800], both[1800];
            vp_fleet_lost_reason(run, (int)r - 1, "gone while it served this link", reason,
                                 sizeof reason);
            /* what the point already failed by (a move that failed, say) comes first */
            const char *earlier = json_string_value(json_object_get(result, "error"));
            if (earlier)
                snprintf(both, sizeof both, "%.900s; %s", earlier, reason);
            vp_result_finish(result, vp_engine_interrupted() ? "interrupted" : "failed",
                             earlier ? both : reason);
            *stopped = true;
        }
        vp_fleet_keep_results(session, step, &result, 1);
    }
    vp_layout_free(&layout);
    run->external_rank = -1;
    run->link_labels = NULL;
}
