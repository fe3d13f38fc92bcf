/* The runner for guests and containers virtperf starts (see fleet.h): the members'
 * lifecycle, and each step over them. */
#define _GNU_SOURCE /* asprintf */
#include "run/fleet_run.h"
#include "run/fill.h"
#include "run/groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/net_peer.h"
#include "core/copy_speed.h"
#include "core/printable.h"
#include "core/scratch.h"
#include "core/sysinfo.h"
#include "env/channel.h"

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
        remove_member(vp_fleet_kind_of(run, m), &run->members[m]);
    run->started = 0;
    for (size_t g = 0; g < run->group_count; g++)
        if (run->groups[g].kind.finish)
            run->groups[g].kind.finish(run->groups[g].kind.state);
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
    if (kind->once_ready && kind->once_ready(kind->state, member, err, err_len) != 0) {
        json_decref(member->fingerprint); /* not heard: a start tried again hears anew */
        member->fingerprint = NULL;
        return -1;
    }
    kind->describe(kind->state, member);
    member->ready_s = (double)(vp_now_ns() - member->started_ns) / 1e9;
    return 0;
}

/* The run's words (and a plan's text) to every member; each says whether it can run
 * them on its own machine. */
static int send_steps(struct fleet_run *run, const struct vp_run_steps *steps, size_t from,
                      char *err, size_t err_len)
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
    for (size_t m = from; m < run->started && status == 0; m++) {
        struct vp_member *member = &run->members[m];
        char why[VP_PATH_ERROR_LEN];
        void *verdict = NULL;
        size_t len = 0;
        if (vp_channel_send(member->fd, VP_CHANNEL_STEPS, text, strlen(text), why,
                            sizeof why) != 0 ||
            vp_channel_expect(member->fd, VP_CHANNEL_VERDICT, &verdict, &len, 0,
                            after_seconds(run->timeout_s), why, sizeof why) != 0) {
            snprintf(err, err_len, "%s: %s", member->name, why);
            status = -1;
        } else if (len > 0) {
            char shown[VP_PATH_ERROR_LEN]; /* the member's words: no escape of its own */
            snprintf(err, err_len, "in %s %s: %s", vp_fleet_kind_of(run, m)->env->noun,
                     member->name, vp_printable(verdict, shown, sizeof shown));
            status = -1;
        }
        free(verdict);
    }
    free(text);
    return status;
}

/* A flag the members cannot share: each would decide alone. */
int vp_fleet_refuse(char *err, size_t err_len, const char *flag, const char *what,
                    const char *accepted)
{
    snprintf(err, err_len, "%s: not with %s; accepted: %s", what, flag, accepted);
    return -1;
}

/* The counts of members step runs in (*n 0: none, it runs on this host alone); -1 with
 * err when its SPEC is not valid. */
int vp_fleet_step_counts(const struct fleet_run *run, const struct vp_run_step *step,
                         unsigned *counts, size_t *n, char *err, size_t err_len)
{
    if (run->groups[0].name) { /* every group's members, every point */
        counts[0] = 0;
        for (size_t g = 0; g < run->group_count; g++)
            counts[0] += run->groups[g].count;
        *n = 1;
        return 0;
    }
    const char *spec = step->members_spec ? step->members_spec : run->spec;
    *n = 0;
    unsigned most;
    int fill = spec ? vp_fill_parse(run->kind->env->flag, spec, VP_MAX_GUESTS, counts, &most,
                                    err, err_len)
                    : 0;
    if (fill != 0) { /* a fill's first count: fleet_fill.c grows it */
        *n = fill > 0;
        return fill > 0 ? 0 : -1;
    }
    if (!spec || vp_parse_jobs_spec(spec, VP_MAX_GUESTS, counts, VP_MAX_GUESTS, n) == 0)
        return 0;
    snprintf(err, err_len, "%s%s%s%s: '%s' is not valid; accepted: a count, a list such as "
             "1,2,4 or a range such as 1..4, each from 1 to %d", step->name ? "[" : "",
             step->name ? step->name : "", step->name ? "] " : "", run->kind->env->flag, spec,
             VP_MAX_GUESTS);
    return -1;
}

bool vp_fleet_step_fill(const struct fleet_run *run, const struct vp_run_step *step,
                        unsigned *first, unsigned *most)
{
    const char *spec = step->members_spec ? step->members_spec : run->spec;
    char ignored[256]; /* judged in open_fleet */
    return !run->groups[0].name && spec &&
           vp_fill_parse(run->kind->env->flag, spec, VP_MAX_GUESTS, first, most, ignored,
                         sizeof ignored) == 1;
}

/* Whether step runs in members (not on this host alone). */
bool vp_fleet_in_members(const struct fleet_run *run, const struct vp_run_step *step)
{
    return step->members_spec || run->spec || run->groups[0].name;
}

/* The flag that asks for the run's members, for what it cannot go with. */
static const char *members_flag(const struct fleet_run *run)
{
    return run->groups[0].name ? "--group" : run->kind->env->flag;
}

/* Whether step runs on this host too, beside its members, alternating. */
bool vp_fleet_with_host_side(const struct fleet_run *run, const struct vp_run_steps *steps,
                             const struct vp_run_step *step)
{
    return vp_fleet_in_members(run, step) && vp_run_step_and_host(steps, step);
}

/* None of the files the members' image carries is under a directory members of kind have
 * their own of; -1 with err naming it. */
static int files_not_own(const struct fleet_run *run, const struct vp_fleet_kind *kind,
                         char *err, size_t err_len)
{
    const char *const *own = kind->own_dirs;
    for (size_t f = 0; f < run->files.count; f++) {
        const char *path = run->files.paths[f];
        for (size_t o = 0; own[o]; o++) {
            size_t len = strlen(own[o]);
            if (strcmp(path, "/") != 0 &&
                (strncmp(path, own[o], len) != 0 || (path[len] != '/' && path[len] != '\0')))
                continue;
            char listed[128] = "";
            for (size_t l = 0; own[l]; l++)
                snprintf(listed + strlen(listed), sizeof listed - strlen(listed), "%s%s",
                         l == 0 ? "" : own[l + 1] ? ", " : " or ", own[l]);
            snprintf(err, err_len, "%s: %s is %s%s, which each %s has its own of; accepted: "
                     "programs and files elsewhere on this host", members_flag(run), path,
                     strcmp(path, "/") == 0 ? "the whole of this host" : "under ",
                     strcmp(path, "/") == 0 ? "" : listed, kind->env->noun);
            return -1;
        }
    }
    return 0;
}

/* A point the members would run refused before any starts: -1 with "[STEP]: why (BENCH,
 * in guests)" in err. */
static int point_refused(const struct fleet_run *run, const struct vp_run_step *step,
                         const struct vp_plan_point *point, const char *why, char *err,
                         size_t err_len)
{
    snprintf(err, err_len, "%s%s%s%s (%s, in %ss)", step->name ? "[" : "",
             step->name ? step->name : "", step->name ? "]: " : "", why, point->bench->name,
             run->kind->env->noun);
    return -1;
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
        for (size_t p = 0; vp_fleet_in_members(run, step) && p < step->plan.count; p++) {
            const struct vp_plan_point *point = &step->plan.points[p];
            char why[VP_ERROR_LEN];
            /* a key of the user's (an external server's) is read in the members too */
            if (vp_params_find(&point->params, "key-file") >= 0 &&
                strcmp(vp_param_text(&point->params, "key-file"), "none") != 0)
                vp_path_set_add(&run->files, vp_param_text(&point->params, "key-file"));
            if (point->bench->member_files &&
                point->bench->member_files(&point->params, &run->files, why, sizeof why) != 0) {
                return point_refused(run, step, point, why, err, err_len);
            }
        }
    }
    /* a member mounts its own of some directories over what its image carries */
    for (size_t g = 0; g < run->group_count; g++)
        if (files_not_own(run, &run->groups[g].kind, err, err_len) != 0)
            return -1;
    return 0;
}

/* Each point the members run whose region this host cannot size (its benchmark's sizing:
 * a fileset's manifest it cannot read) refused before any member starts; after the
 * groups are prepared, which say where this host reads what the members mount. */
static int size_points(struct fleet_run *run, const struct vp_run_steps *steps, char *err,
                       size_t err_len)
{
    for (size_t s = 0; s < steps->count; s++) {
        const struct vp_run_step *step = &steps->step[s];
        for (size_t p = 0; vp_fleet_in_members(run, step) && p < step->plan.count; p++) {
            const struct vp_plan_point *point = &step->plan.points[p];
            char why[VP_ERROR_LEN];
            if (point->bench->sizing &&
                point->bench->sizing(&point->params, why, sizeof why) != 0) {
                return point_refused(run, step, point, why, err, err_len);
            }
        }
    }
    return 0;
}

/* The libvirt the steps that say --migrate-to move the first member to: one per run,
 * and only where the members' kind can move one. */
static int take_migration(struct fleet_run *run, const struct vp_run_steps *steps, char *err,
                          size_t err_len)
{
    for (size_t s = 0; s < steps->count; s++) {
        const char *to = steps->step[s].request.guests.migrate_to;
        if (!to || !vp_fleet_in_members(run, &steps->step[s]))
            continue;
        if (!run->groups[0].kind.migrate)
            return vp_fleet_refuse(err, err_len, members_flag(run), "--migrate-to",
                                   "--guests SPEC --migrate-to URI");
        if (run->migrate_to && strcmp(run->migrate_to, to) != 0) {
            snprintf(err, err_len, "--migrate-to: %.200s and %.200s: one libvirt per run; "
                     "accepted: the same URI in every step that migrates", run->migrate_to, to);
            return -1;
        }
        run->migrate_to = to;
        run->migrate_step = steps->step[s].name;
    }
    return 0;
}

/* Each group's kind ready for its members (its settings, the first of its members). */
static int prepare_groups(struct fleet_run *run, char *err, size_t err_len)
{
    for (size_t g = 0; g < run->group_count; g++) {
        struct fleet_group *group = &run->groups[g];
        struct vp_fleet_setup setup = { .asked = group->asked, .work = run->work,
                                        .most = group->count,
                                        .first = (unsigned)group->first +
                                                 run->neighbours * run->most,
                                        .files = &run->files,
                                        .migrate_to = g == 0 ? run->migrate_to : NULL };
        char why[VP_PATH_ERROR_LEN];
        if (group->kind.prepare(group->kind.state, &setup, why, sizeof why) != 0) {
            if (group->name)
                snprintf(err, err_len, "--group %s: %s", group->name, why);
            else if (run->migrate_step && strncmp(why, "--migrate-to", 12) == 0)
                snprintf(err, err_len, "plan step [%.60s]: %s; a plan's step is given its own: "
                         "--set %.60s.migrate-to=URI (or --no-guests: the step on this host)",
                         run->migrate_step, why, run->migrate_step);
            else
                snprintf(err, err_len, "%s", why);
            return -1;
        }
    }
    return 0;
}

/* Where the members reach this host's server: every group's the same, or none (NULL
 * with why). */
static const char *groups_server_address(struct fleet_run *run, char *err, size_t err_len)
{
    const char *address = NULL;
    for (size_t g = 0; g < run->group_count; g++) {
        const struct vp_fleet_kind *kind = &run->groups[g].kind;
        const char *its = kind->server_address(kind->state, err, err_len);
        if (!its)
            return NULL;
        if (address && strcmp(address, its) != 0) {
            snprintf(err, err_len, "--group %s: its members reach this host at %s, %s's at %s; "
                     "accepted: groups that reach this host at one address (one --guest-net, "
                     "one --container-net) for a network benchmark", run->groups[g].name, its,
                     run->groups[0].name, address);
            return NULL;
        }
        address = its;
    }
    return address;
}

/* "virtperf: 2 guests started (libvirt tcg)", the group named; "2 more guests" when
 * more joins those running. */
static void say_started(const struct fleet_group *group, unsigned count, bool more)
{
    const struct vp_fleet_kind *kind = &group->kind;
    json_t *summary = kind->summary(kind->state);
    const char *accel = json_string_value(json_object_get(summary, "accel"));
    fprintf(stderr, "virtperf: %s%s%u %s%s%s started (%s%s%s)\n", group->name ? group->name : "",
            group->name ? ": " : "", count, more ? "more " : "", kind->env->noun,
            count == 1 ? "" : "s", json_string_value(json_object_get(summary, "engine")),
            accel ? " " : "", accel ? accel : "");
    json_decref(summary);
}

/* How many of group g's members have started. */
static unsigned group_started(const struct fleet_run *run, size_t g)
{
    const struct fleet_group *group = &run->groups[g];
    size_t started = run->started > group->first ? run->started - group->first : 0;
    return started < group->count ? (unsigned)started : group->count;
}

/* Group g's members up to its count-th (those not started yet), started. */
static int start_members(struct fleet_run *run, size_t g, unsigned count, char *err,
                         size_t err_len)
{
    const struct fleet_group *group = &run->groups[g];
    for (size_t i = group_started(run, g); i < count; i++) {
        size_t m = group->first + i;
        struct vp_member *member = &run->members[m];
        *member = (struct vp_member){ .fd = -1, .group = (unsigned)g };
        snprintf(member->name, sizeof member->name, "virtperf-%ld-%zu", (long)getpid(), m + 1);
        run->started = m + 1; /* removed with the others even when it does not start */
        member->started_ns = vp_now_ns();
        if (group->kind.start(group->kind.state, member, i, err, err_len) != 0)
            return -1;
    }
    return 0;
}

/* Each member from the from-th on heard from (its hello and fingerprint). */
static int hear_members(struct fleet_run *run, size_t from, char *err, size_t err_len)
{
    for (size_t m = from; m < run->started; m++)
        if (!run->members[m].fingerprint &&
            vp_fleet_hear(vp_fleet_kind_of(run, m), &run->members[m], run->timeout_s, err,
                          err_len) != 0)
            return -1;
    return 0;
}

/* Each member from the from-th on paused until a point runs it. */
static void pause_members(struct fleet_run *run, size_t from)
{
    for (size_t m = from; m < run->started; m++) {
        const struct vp_fleet_kind *kind = vp_fleet_kind_of(run, m);
        run->members[m].paused = kind->pause(kind->state, &run->members[m], true) == 0;
    }
}

/* What a fill does not go with: each count's members must be the run's one kind, alone,
 * every one a member of the same standing (no topology between them). */
static int fill_refused(const struct fleet_run *run, const struct vp_run_steps *steps,
                        const struct vp_run_step *step, char *err, size_t err_len)
{
    char flag[64];
    snprintf(flag, sizeof flag, "%s A..auto", run->kind->env->flag);
    if (vp_run_step_and_host(steps, step))
        return vp_fleet_refuse(err, err_len, flag, "--and-host", "a fill of members alone");
    if (step->request.topology)
        return vp_fleet_refuse(err, err_len, flag, "--topology", "a fill of members alone");
    if (run->groups[0].asked->pin)
        return vp_fleet_refuse(err, err_len, flag, "--guest-pin",
                               "a fill whose guests this host's scheduler places");
    return 0;
}

/* Everything the members need, checked and made ready, none started: the counts, the
 * refusals, the run's directory, each group's kind prepared, where this host serves. */
static int prepare_fleet(struct fleet_run *run, struct vp_run_steps *steps, char *err,
                         size_t err_len)
{
    const struct vp_guests_request *asked = &steps->guests;
    run->of_plan = steps->kept_text != NULL;
    unsigned initial = 0; /* the members started now: a fill's first count, else the most */
    bool fills = false;
    for (size_t s = 0; s < steps->count; s++) {
        unsigned counts[VP_MAX_GUESTS], most;
        size_t n;
        if (vp_fleet_step_counts(run, &steps->step[s], counts, &n, err, err_len) != 0)
            return -1;
        if (vp_fleet_step_fill(run, &steps->step[s], &counts[0], &most)) {
            if (fill_refused(run, steps, &steps->step[s], err, err_len) != 0)
                return -1;
            fills = true;
            run->most = most > run->most ? most : run->most;
        }
        for (size_t c = 0; c < n; c++) {
            run->most = counts[c] > run->most ? counts[c] : run->most;
            initial = counts[c] > initial ? counts[c] : initial;
        }
    }
    if (!fills && (asked->qos.given || asked->keep_free)) {
        char accepted[64];
        snprintf(accepted, sizeof accepted, "%s A..auto (a fill)", run->kind->env->flag);
        return vp_fleet_refuse(err, err_len, "a fixed count of members",
                               asked->qos.given ? "--qos" : "--keep-free", accepted);
    }
    if (!run->groups[0].name)
        run->groups[0].count = run->most; /* what may start: prepared for */
    if (run->groups[0].name && steps->step[0].request.topology)
        return vp_fleet_refuse(err, err_len, "--group", "--topology",
                               "--topology with --guests SPEC or --containers SPEC");
    if (vp_fleet_take_topology(run, steps, err, err_len) != 0)
        return -1;
    for (size_t s = 0; s < steps->count; s++) {
        if (steps->step[s].request.plan.reps_auto)
            return vp_fleet_refuse(err, err_len, members_flag(run), "--reps auto",
                                   "--reps N (every member would have to agree when to stop)");
        if (steps->step[s].request.background)
            return vp_fleet_refuse(err, err_len, members_flag(run), "--background",
                                   "net.probe as a benchmark of its own");
    }
    if (take_migration(run, steps, err, err_len) != 0 || gather_files(run, steps, err, err_len) != 0)
        return -1;
    run->host_dir = asked->disk_dir;
    run->timeout_s = asked->timeout_s ? asked->timeout_s : DEFAULT_TIMEOUT_S;
    run->monitor_hz = steps->step[0].request.monitor_hz;
    run->watch = steps->step[0].request.watch;
    run->watch_count = steps->step[0].request.watch_count;
    /* a scratch directory (core/scratch.h) says which virtperf owns it: what a SIGKILL
     * left is reclaimed by the next run that makes one in /tmp */
    char prefix[64], why[VP_ERROR_LEN];
    snprintf(prefix, sizeof prefix, "virtperf-%s", run->kind->env->name);
    if (vp_scratch_make("/tmp", prefix, run->work, sizeof run->work, why, sizeof why) != 0) {
        snprintf(err, err_len, "%s: /tmp: %s", members_flag(run), why);
        return -1;
    }
    for (size_t g = 0; g < run->group_count; g++)
        if (run->groups[g].kind.shared_work) /* libvirt's QEMU user makes the channel sockets there */
            chmod(run->work, 0755);
    vp_engine_catch_signals();
    if (prepare_groups(run, err, err_len) != 0 || size_points(run, steps, err, err_len) != 0)
        return -1;
    vp_fleet_take_outside(run, steps);
    /* where this host serves is known (or refused) before any member starts */
    if (vp_fleet_wants_server(run, steps) &&
        !(run->server_address = groups_server_address(run, err, err_len)))
        return -1;
    run->initial = initial;
    return 0;
}

/* The members prepare_fleet made ready for started (the most SPEC asks for, or every
 * group's, or a fill's first count), each heard from and agreeing to the steps. */
static int start_fleet(struct fleet_run *run, const struct vp_run_steps *steps, char *err,
                       size_t err_len)
{
    for (size_t g = 0; g < run->group_count; g++) {
        const struct fleet_group *group = &run->groups[g];
        if (start_members(run, g, group->name ? group->count : run->initial, err, err_len) != 0)
            return -1;
    }
    if (hear_members(run, 0, err, err_len) != 0)
        return -1;
    enum vp_topology_kind serving = vp_fleet_members_serve(run, steps->count);
    if ((run->server_address &&
         vp_fleet_start_server(run, steps, run->server_address, err, err_len) != 0) ||
        send_steps(run, steps, 0, err, err_len) != 0 ||
        (serving != VP_TOPOLOGY_NONE &&
         vp_fleet_start_member_servers(run, serving, err, err_len) != 0))
        return -1;
    if (run->linked) {
        vp_fleet_name_ranks(run);
        run->host_fingerprint = vp_sysinfo_collect(steps->topology);
    }
    pause_members(run, 0);
    for (size_t g = 0; g < run->group_count; g++)
        say_started(&run->groups[g], group_started(run, g), false);
    return 0;
}

static int open_fleet(void *context, struct vp_run_steps *steps, char *err, size_t err_len)
{
    return prepare_fleet(context, steps, err, err_len) != 0 ? -1
                                                            : start_fleet(context, steps, err,
                                                                          err_len);
}

int vp_fleet_start_more(struct fleet_run *run, const struct vp_run_steps *steps, unsigned count,
                        char *err, size_t err_len)
{
    size_t from = run->started;
    if (start_members(run, 0, count, err, err_len) != 0 || hear_members(run, from, err, err_len) != 0 ||
        send_steps(run, steps, from, err, err_len) != 0)
        return -1;
    pause_members(run, from);
    say_started(&run->groups[0], count - (unsigned)from, true);
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

/* The first count members running, the others paused. */
void vp_fleet_set_running(struct fleet_run *run, unsigned count)
{
    for (size_t m = 0; m < run->started; m++) {
        bool pause = m >= count;
        struct vp_member *member = &run->members[m];
        const struct vp_fleet_kind *kind = vp_fleet_kind_of(run, m);
        if (member->paused != pause && kind->pause(kind->state, member, pause) == 0)
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

/* Why member index was lost: its channel's failure, and whether it is gone (its console's
 * last lines to stderr then: a guest whose kernel crashed says so there). */
void vp_fleet_lost_reason(const struct fleet_run *run, int index, const char *why, char *reason,
                          size_t len)
{
    struct vp_member *member = (struct vp_member *)&run->members[index];
    const struct vp_fleet_kind *kind = vp_fleet_kind_of(run, (size_t)index);
    /* (not asked after a signal: it is not gone, and a launcher that stops the ranks
     * kills them a second after it asked: virtperf-mpi's run must be marked by then) */
    bool gone = !vp_engine_interrupted() && member_gone(kind, member);
    if (gone)
        kind->silent(kind->state, member);
    snprintf(reason, len, "%s %d (%s): %s%s", kind->env->noun, index + 1, member->name, why,
             gone ? " (it is gone: destroyed, killed or crashed)" : "");
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
    vp_fleet_step_counts(run, step, counts, &count_n, ignored, sizeof ignored);
    unsigned most;
    if (vp_fleet_step_fill(run, step, &counts[0], &most))
        return vp_fleet_fill_step(run, steps, index, session, progress, counts[0], most);
    if (count_n == 0) {
        vp_fleet_set_running(run, 0);
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
                vp_fleet_run_linked_point(run, steps, index, p, counts[c], &settings, session,
                                          &stopped);
                continue;
            }
            json_t *results[VP_MAX_GROUPS + 1] = { NULL }; /* the host's side, each group's */
            bool with_host = vp_fleet_with_host_side(run, steps, step);
            vp_fleet_run_point(run, steps, index, p, counts[c], NULL, &settings, with_host,
                               results, &stopped);
            vp_fleet_keep_results(session, step, results, run->group_count + 1);
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

/* The run's members as asked: kind's of the run's SPEC, or each group's (count of them);
 * argv: the words they take. */
static void take_members(struct fleet_run *run, const struct vp_env_kind *kind,
                         const struct vp_member_group *groups, size_t count,
                         const struct vp_run_steps *steps, int argc, char **argv)
{
    *run = (struct fleet_run){ .spec = groups ? NULL : steps->guests.spec, .argc = argc,
                               .argv = argv, .words = argv, .word_count = argc,
                               .external_rank = -1 };
    run->group_count = groups ? count : 1;
    size_t first = 0;
    for (size_t g = 0; g < run->group_count; g++) {
        struct fleet_group *group = &run->groups[g];
        if (groups)
            *group = (struct fleet_group){ .name = groups[g].name, .asked = &groups[g].asked,
                                           .kind = groups[g].asked.kind->fleet(),
                                           .first = first, .count = groups[g].count };
        else
            *group = (struct fleet_group){ .asked = &steps->guests, .kind = kind->fleet() };
        first += group->count;
    }
    run->kind = &run->groups[0].kind;
}

/* What the run holds once its members are gone. */
static void free_run(struct fleet_run *run)
{
    if (run->words != run->argv)
        free(run->words);
    for (size_t s = 0; s < run->set_count; s++)
        free(run->sets[s]);
    json_decref(run->host_fingerprint);
    vp_path_set_free(&run->files);
    for (size_t g = 0; g < run->group_count; g++)
        free(run->groups[g].kind.state);
}

struct fleet_run *vp_fleet_here_prepare(const struct vp_env_kind *kind,
                                        const struct vp_member_group *groups, size_t count,
                                        struct vp_run_steps *steps, int argc, char **argv,
                                        unsigned neighbours, char *err, size_t err_len)
{
    struct fleet_run *run = calloc(1, sizeof *run);
    if (!run)
        abort();
    take_members(run, kind, groups, count, steps, argc, argv);
    run->neighbours = neighbours;
    vp_copy_speed_settle(); /* before any member boots */
    if (prepare_fleet(run, steps, err, err_len) != 0) {
        vp_fleet_here_close(run);
        return NULL;
    }
    return run;
}

int vp_fleet_here_start(struct fleet_run *run, const struct vp_run_steps *steps, char *err,
                        size_t err_len)
{
    return start_fleet(run, steps, err, err_len);
}

size_t vp_fleet_here_counts(const struct fleet_run *run, const struct vp_run_steps *steps,
                            size_t index, unsigned *counts)
{
    size_t n = 0;
    char ignored[256]; /* judged when the members started */
    vp_fleet_step_counts(run, &steps->step[index], counts, &n, ignored, sizeof ignored);
    return n;
}

void vp_fleet_here_point(struct fleet_run *run, const struct vp_run_steps *steps, size_t index,
                         size_t point_index, unsigned count, struct vp_run_settings *settings,
                         const struct vp_together_above *above, struct vp_fleet_point *out,
                         bool *stopped)
{
    json_t *results[VP_MAX_GROUPS + 1] = { NULL };
    *out = (struct vp_fleet_point){ .parts = { .lost = -1 } };
    run->above = above;
    run->kept = out;
    vp_fleet_run_point(run, steps, index, point_index, count, NULL, settings, false, results,
                       stopped);
    run->above = NULL;
    run->kept = NULL;
    for (size_t g = 0; g < run->group_count; g++)
        out->results[g] = results[1 + g];
    out->group_count = run->group_count;
}

void vp_fleet_point_free(struct vp_fleet_point *point)
{
    for (size_t g = 0; g < point->group_count; g++)
        json_decref(point->results[g]);
    vp_gather_free(&point->parts);
    free(point->stonewall);
    free(point->span);
    *point = (struct vp_fleet_point){ .parts = { .lost = -1 } };
}

void vp_fleet_here_close(struct fleet_run *run)
{
    remove_all(run);
    free_run(run);
    free(run);
}

int vp_run_fleet(const struct vp_env_kind *kind, const struct vp_member_group *groups,
                 size_t count, struct vp_run_steps *steps, int argc, char **argv)
{
    static struct fleet_run run;
    take_members(&run, kind, groups, count, steps, argc, argv);
    const struct vp_runner runner = {
        .program = "virtperf run", .keeps_session = true, .context = &run,
        .settle = settle_fleet, .open = open_fleet, .repetitions = fleet_repetitions,
        .run_step = run_step_in_fleet, .close = close_fleet,
    };
    vp_copy_speed_settle(); /* before any member boots */
    int status = vp_run_execute(&runner, steps, argc, argv);
    free_run(&run);
    vp_run_steps_free(steps);
    return status;
}
