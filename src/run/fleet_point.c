/* One point of the fleet (see fleet.h): the members it runs on, this host's own jobs
 * beside them or as a link's end, started together, their parts combined; and a
 * member's side of it (vp_agent_run_point). */
#define _GNU_SOURCE /* asprintf */
#include "run/fleet_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/net_peer.h"
#include "core/json.h"
#include "core/json_check.h"
#include "core/stats.h"
#include "engine/gather.h"
#include "engine/result.h"
#include "engine/shared_check.h"
#include "env/channel.h"
#include "env/transport.h"
#include "store/document.h"

static void start_monitor(void *context)
{
    struct fleet_run *run = context;
    char ignored[256];
    run->monitor = vp_monitor_start(run->monitor_hz, run->watch, run->watch_count, NULL, ignored,
                                    sizeof ignored);
}

/* What count members of group, from its first, cost this host over seconds, under
 * "guests": each one's, and the median and 95th percentile of their times from start to
 * ready. */
static json_t *cost_json(const struct fleet_run *run, const struct fleet_group *group,
                         unsigned count, double seconds)
{
    const struct vp_fleet_kind *kind = &group->kind;
    json_t *hosts = json_array();
    double ready[VP_MAX_GUESTS];
    for (size_t m = group->first; m < group->first + count; m++) {
        json_t *entry = kind->cost_end(kind->state, (struct vp_member *)&run->members[m], seconds);
        json_object_set_new(entry, "ready_s", json_real(run->members[m].ready_s));
        json_array_append_new(hosts, entry);
        ready[m - group->first] = run->members[m].ready_s;
    }
    json_t *summary = kind->summary(kind->state);
    json_object_set_new(summary, "count", json_integer(count));
    if (count > 0) {
        json_object_set_new(summary, "ready_p50_s", json_real(vp_percentile(ready, count, 50)));
        json_object_set_new(summary, "ready_p95_s", json_real(vp_percentile(ready, count, 95)));
    }
    if (run->files.count > 0) {
        json_t *files = json_array();
        for (size_t f = 0; f < run->files.count; f++)
            json_array_append_new(files, json_string(run->files.paths[f]));
        json_object_set_new(summary, "programs", files);
    }
    json_object_set_new(summary, "hosts", hosts);
    return summary;
}

/* What this host leads in a point: the ranks' channels and the protocol over them, and
 * what it does as it sends each instant. */
struct lead {
    int fds[VP_MAX_GUESTS + 1];
    struct vp_channel_transport channel;
    struct vp_together together;
    struct fleet_run *run;
    int64_t *starts;       /* each repetition's instant on this host's clock, NULL: not kept */
    bool monitors;         /* this host's monitor starts with the first measured repetition,
                            * and --migrate-to's moves are timed from it */
    int *migrating;        /* the first member's channel among fds, NULL: not a rank */
    const struct vp_guests_request *moves; /* the point's step's --migrate-* settings */
    struct vp_together_above above;        /* the run's, with this lead's margin */
};

static void releasing(void *context, unsigned rep, int64_t instant_ns)
{
    struct lead *lead = context;
    if (lead->monitors && rep == lead->together.warmup) {
        start_monitor(lead->run);
        vp_fleet_migration_begin(lead->run, lead->moves, instant_ns, lead->migrating);
    }
    if (lead->starts)
        lead->starts[rep] = instant_ns;
}

/* The channel transport's gate (env/transport.h): a member's channel while it moves. */
static int migration_gate(void *context, size_t i, bool receive, int ended, char *reason,
                          size_t reason_len)
{
    struct lead *lead = context;
    return vp_fleet_migration_gate(lead->run, &lead->fds[i], receive, ended, reason, reason_len);
}

/* Times the count ranks of lead (their channels in lead->fds) for point. */
static int begin_lead(struct lead *lead, const struct fleet_run *run, size_t count,
                      const struct vp_plan_point *point, char *reason, size_t reason_len)
{
    vp_channel_transport_lead(&lead->channel, lead->fds, count, run->timeout_s);
    lead->channel.gate = migration_gate;
    lead->channel.gate_context = lead;
    if (run->above) {
        lead->above = *run->above;
        lead->above.below_margin_ns = lead->channel.transport.margin_ns;
        lead->channel.above = &lead->above;
    }
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

/* Rank rank's server: this host's (0), the external end's, or a member's own. */
static const char *server_of(const struct fleet_run *run, int rank)
{
    if (rank == run->external_rank)
        return run->external_peer;
    return rank == 0 ? run->server_peer : run->member_peer[rank - 1];
}

/* The key of rank rank's server: the user's for the external end, else the run's (at
 * run_key, where the connecting side keeps it). */
static const char *server_key(const struct fleet_run *run, int rank, const char *run_key)
{
    return rank >= 0 && rank == run->external_rank ? run->external_key : run_key;
}

/* Where a point's jobs on this host connect: to rank server's server (a link's), or the
 * run's server (-1) when the point talks to it; NULL: as the point says. */
static const struct vp_agent_link *host_link(const struct fleet_run *run,
                                             const struct vp_plan_point *point, int server,
                                             bool reverse, struct vp_agent_link *link,
                                             char *key_path, size_t key_len)
{
    if (!run->server || !vp_layout_is_network(point->bench) ||
        (server < 0 && strcmp(vp_param_text(&point->params, "peer"), VP_NET_EMBEDDED) != 0))
        return NULL;
    char run_key[sizeof run->work + 16];
    snprintf(run_key, sizeof run_key, "%s/server.key", run->work);
    snprintf(key_path, key_len, "%s", server_key(run, server, run_key));
    const char *peer = server < 0 ? run->server_peer : server_of(run, server);
    *link = (struct vp_agent_link){ .peer = peer, .key_file = key_path, .reverse = reverse };
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
    return json_pack("{s:s,s:s+,s:o}", "name", name, "members", run->kind->env->noun, "s",
                     "starts_s", seconds);
}

/* A group's result's "side": its name and what its members are. */
static json_t *group_side_json(const struct fleet_group *group)
{
    return json_pack("{s:s,s:s+}", "name", group->name, "members", group->kind.env->noun, "s");
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
        json_object_set_new(message, "peer", json_string(server_of(run, link->peers[rank])));
        json_object_set_new(message, "key_file",
                            json_string(server_key(run, link->peers[rank], MEMBER_KEY_PATH)));
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
    char reason[1024];
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
        if (ranks->rank[i] == 1)
            guests->migrating = &guests->fds[i];
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
        int waited = vp_together_wait(&guests->together, reason, reason_len);
        if (waited == 0 && guests->channel.lost == 0)
            return true;
        if (guests->channel.lost) /* (led from above, its words went on without it) */
            snprintf(reason, reason_len, "%s", guests->channel.lost_why);
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

/* Each running rank's result and region when the protocol held (engine/gather.c), else
 * a part saying it was not heard from; false, with the rank that was lost, when one did
 * not come. */
static bool receive_parts(const struct fleet_run *run, const struct vp_together *together,
                          const struct point_ranks *ranks, const struct vp_plan_point *point,
                          double duration, int64_t began, bool held,
                          struct point_outcome *outcome, struct vp_gathered *parts)
{
    struct vp_gather_who who[VP_MAX_GUESTS + 1];
    for (size_t i = 0; i < ranks->count; i++) {
        int rank = ranks->rank[i];
        who[i] = (struct vp_gather_who){
            .rank = rank, .peer = (int)i + 1, .name = rank_name(run, rank),
            .fingerprint = rank ? run->members[rank - 1].fingerprint : run->host_fingerprint };
    }
    vp_gather_receive(together, point, duration, began, who, ranks->count, held,
                      vp_result_from, parts);
    if (parts->lost >= 0) {
        held = false;
        outcome->lost = parts->lost;
        snprintf(outcome->reason, sizeof outcome->reason, "%s", parts->reason);
    }
    for (size_t i = 0; i < ranks->count; i++)
        if (!parts->part[i].result)
            parts->part[i].result = json_pack("{s:s,s:s}", "status", "interrupted", "error",
                                              "not heard from: the run stopped");
    return held;
}

/* Each group's result of the point from the parts (one group: every part), marked with
 * what became of the point, with what its members cost (costs[g], taken); into
 * results[1 + g]. */
static void combine_groups(struct fleet_run *run, struct vp_gathered *parts,
                           const struct vp_together *together, const struct vp_plan_point *point,
                           const struct vp_params *params, const struct vp_run_settings *settings,
                           json_t **costs, const char *failed, json_t *monitor, json_t **results)
{
    struct vp_together own = *together;
    if (run->above)
        own.stonewall = NULL; /* the rates are every host's: rank 0's result has them */
    for (size_t g = 0; g < run->group_count; g++) {
        const struct fleet_group *group = &run->groups[g];
        bool grouped = group->name != NULL;
        json_t *result = vp_gather_combine_some(parts, grouped ? group->first : 0,
                                                grouped ? group->count : parts->count,
                                                &own, point, params, settings);
        if (failed)
            vp_result_finish(result, vp_engine_interrupted() ? "interrupted" : "failed", failed);
        if (monitor) /* this host's, over the point every group ran in */
            json_object_set_new(result, "monitor", g == 0 ? json_incref(monitor)
                                                          : json_deep_copy(monitor));
        json_object_set_new(result, "guests", costs[g]);
        if (grouped)
            json_object_set_new(result, "side", group_side_json(group));
        results[1 + g] = result;
    }
}

/* The point's parts (taken) and its rates across hosts into kept, for rank 0. */
static void keep_parts(struct vp_fleet_point *kept, struct vp_gathered *parts,
                       const struct vp_together *together, const struct vp_plan_point *point)
{
    kept->parts = *parts;
    *parts = (struct vp_gathered){ .lost = -1 };
    size_t measured = point->reps ? point->reps : 1;
    kept->stonewall = calloc(measured, sizeof *kept->stonewall);
    kept->span = calloc(measured, sizeof *kept->span);
    if (!kept->stonewall || !kept->span)
        abort();
    if (together->stonewall) {
        memcpy(kept->stonewall, together->stonewall, measured * sizeof *kept->stonewall);
        memcpy(kept->span, together->span, measured * sizeof *kept->span);
    }
}

/* More jobs than this host has CPUs (the members' and, beside them, this host's own): a
 * job then waits for a CPU to start, so the start skew is the CPUs' (who ran first), not
 * the clocks' it is bounded by; each result says so, as an oversubscribed run should. */
static void say_when_crowded(const struct fleet_run *run, unsigned jobs, json_t **results)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus <= 0 || jobs <= (unsigned long)cpus)
        return;
    for (size_t r = 0; r <= run->group_count; r++)
        if (results[r])
            vp_result_warn(results[r], "%u jobs on this host's %ld CPUs: a job waits for a "
                           "CPU to start, so the start skew is the CPUs', not the clocks'",
                           jobs, cpus);
}

/* One point on the first count members (with groups: every member), or on the ranks link
 * (a topology's step) runs: results[1 + g] each group's combined result (one group: the
 * run's members); with --and-host results[0] the host's (NULL without). *stopped: a member
 * was lost or a signal came. */
void vp_fleet_run_point(struct fleet_run *run, const struct vp_run_steps *steps, size_t index,
                        size_t point_index, unsigned count, const struct vp_step *link,
                        struct vp_run_settings *settings, bool with_host, json_t **results,
                        bool *stopped)
{
    json_t **host_result = &results[0];
    const struct vp_run_step *step = &steps->step[index];
    const struct vp_plan_point *point = &step->plan.points[point_index];
    vp_fleet_set_running(run, count);
    struct point_ranks ranks = { .count = 0 };
    for (unsigned r = 0; r <= count; r++)
        if (link ? link->roles[r] == VP_ROLE_RUN : r > 0)
            ranks.rank[ranks.count++] = (int)r;
    unsigned total_reps = point->warmup + point->reps;
    struct lead guests = { .run = run, .monitors = true, .moves = &step->request.guests };
    struct host_side host_side = { .lead = { .run = run } }, linked_host, *host = NULL;
    bool host_linked = link && link->roles[0] == VP_ROLE_RUN; /* ranks.rank[0] is 0 */
    char host_err[256] = "", key_path[sizeof run->work + 16];
    struct vp_agent_link aim;
    int64_t *host_starts = NULL, *guest_starts = NULL;
    *host_result = NULL;
    if (point->bench->sizing && point->bench->sizing(&point->params, host_err,
                                                     sizeof host_err) != 0) {
        *stopped = true; /* the members' regions could not be bounded */
        results[1] = vp_result_finish(vp_result_start(point->bench, &point->params,
                                                      point->jobs, settings),
                                      "failed", host_err);
        return;
    }
    if (host_linked) {
        const struct vp_agent_link *how = host_link(run, point, link->peers[0], link->reverse,
                                                    &aim, key_path, sizeof key_path);
        if (start_host_side(run, steps, index, point_index, 0, how, &linked_host, host_err,
                            sizeof host_err) != 0) {
            *stopped = true;
            results[1] = vp_result_finish(vp_result_start(point->bench, &point->params,
                                                          point->jobs, settings),
                                          "failed", host_err);
            return;
        }
        guests.fds[0] = linked_host.fd;
    } else if (with_host &&
               start_host_side(run, steps, index, point_index, count * point->jobs,
                               host_link(run, point, -1, false, &aim, key_path, sizeof key_path),
                               &host_side, host_err, sizeof host_err) == 0) {
        host = &host_side;
        host_starts = calloc(total_reps, sizeof *host_starts);
        guest_starts = calloc(total_reps, sizeof *guest_starts);
        if (!host_starts || !guest_starts)
            abort();
        guests.starts = guest_starts;
        host->lead.starts = host_starts;
    }
    for (unsigned m = 0; m < count; m++) {
        const struct vp_fleet_kind *kind = vp_fleet_kind_of(run, m);
        kind->cost_begin(kind->state, &run->members[m]);
    }
    int64_t began = vp_now_ns();
    struct point_outcome outcome = { .lost = -1 };
    bool held = run_together(run, &guests, host, &ranks, link, point, index, point_index,
                             &outcome);
    double seconds = (double)(vp_now_ns() - began) / 1e9;
    json_t *monitor = run->monitor ? vp_monitor_stop(run->monitor) : NULL;
    run->monitor = NULL;
    json_t *costs[VP_MAX_GROUPS]; /* what each group's members cost over the point */
    for (size_t g = 0; g < run->group_count; g++)
        costs[g] = cost_json(run, &run->groups[g], run->groups[g].name ? run->groups[g].count
                                                                       : count, seconds);

    struct vp_gathered parts;
    double duration = settings->duration > 0 ? settings->duration : point->bench->default_duration;
    const struct vp_together *together = &guests.together;
    held = receive_parts(run, together, &ranks, point, duration, began, held, &outcome,
                         &parts);
    char unmoved[VP_CHECK_TEXT_LEN];
    json_t *moves = vp_fleet_migration_end(run, unmoved, sizeof unmoved);
    if (host_linked && !reap_host_side(&linked_host, held) && held) {
        json_decref(parts.part[0].result);
        parts.part[0].result = json_pack("{s:s,s:s}", "status", "failed", "error",
                                    "this host's jobs: its process did not end cleanly");
    }
    char reason[1300] = "";
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
            vp_fleet_lost_reason(run, rank - 1, outcome.reason, reason, sizeof reason);
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
    combine_groups(run, &parts, together, point, &params, settings, costs,
                   outcome.lost >= 0 ? reason : NULL, monitor, results);
    if (run->kept)
        keep_parts(run->kept, &parts, together, point);
    else
        vp_gather_free(&parts);
    json_decref(monitor);
    say_when_crowded(run, (unsigned)ranks.count * point->jobs + (host ? count * point->jobs : 0),
                     results);
    *stopped = *stopped || outcome.lost >= 0;
    json_t *result = results[1]; /* the one group of a run that links or has a host side */
    if (moves) {
        vp_fleet_migration_mark(result, moves);
        json_decref(moves);
    }
    if (unmoved[0] && strcmp(json_string_value(json_object_get(result, "status")), "ok") == 0) {
        vp_result_finish(result, "failed", unmoved); /* a member not in the point's words */
        *stopped = true;
    }
    if (link)
        vp_layout_mark(result, run->topology[index], link, run->link_ends, run->link_labels);
    if (*host_result) /* one point, so one params (without the host's key file) */
        json_object_set(*host_result, "params", json_object_get(result, "params"));
    if (guest_starts)
        json_object_set_new(result, "side",
                            side_json(run, "guests", guest_starts,
                                      host_starts[0] ? host_starts[0] : guest_starts[0],
                                      total_reps));
    free(host_starts);
    free(guest_starts);
    vp_together_end(&guests.together);
    *stopped = *stopped || vp_engine_interrupted();
}

/* The result(s) of one point to the session, marked with the plan's step. */
void vp_fleet_keep_results(struct vp_run_session *session, const struct vp_run_step *step,
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

int vp_agent_run_point(int fd, const struct vp_run_steps *steps, size_t index,
                       size_t point_index, unsigned jobs, const struct vp_agent_link *link,
                       char *err, size_t err_len)
{
    const struct vp_run_step *step = &steps->step[index];
    const struct vp_plan_point *point = &step->plan.points[point_index];
    struct vp_params params = point->params;
    if (link && (vp_params_set(&params, "peer", link->peer, err, err_len) != 0 ||
                 vp_params_set(&params, "key-file", link->key_file, err, err_len) != 0 ||
                 vp_params_set(&params, "reverse", link->reverse ? "on" : NULL, err,
                               err_len) != 0))
        return -1;
    struct vp_channel_transport channel;
    vp_channel_transport_follow(&channel, &fd);
    struct vp_run_settings settings = vp_run_settings_of(step, steps->topology, NULL);
    return vp_gather_follow(&channel.transport, point, &params, jobs ? jobs : point->jobs,
                            &settings, false, err, err_len);
}
