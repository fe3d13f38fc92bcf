/* Every rank a hypervisor: its members started, each point run on them from above, and
 * every host's members combined on rank 0 (see members.h). */
#include "mpi/members.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/json.h"
#include "core/json_check.h"
#include "core/limits.h"
#include "core/printable.h"
#include "engine/combine.h"
#include "engine/engine.h"
#include "engine/result.h"
#include "engine/shared_check.h"
#include "mpi/last_words.h"
#include "mpi/liveness.h"
#include "run/groups.h"
#include "run/run_flags.h"
#include "store/document.h"

int vp_mpi_members_refused(struct vp_mpi_members *members, const struct vp_run_steps *steps,
                           char *err, size_t err_len)
{
    const struct vp_guests_request *asked = &steps->guests;
    const struct vp_run_request *request = &steps->step[0].request;
    if (!asked->kind && !asked->group_count)
        return 0;
    if (vp_member_groups_of(asked, members->groups, &members->group_count, err, err_len) != 0)
        return -1;
    const struct vp_env_kind *kind = asked->kind;
    for (size_t g = 0; g < members->group_count && (!kind || kind->under_mpi); g++)
        kind = members->groups[g].asked.kind;
    const char *flag = asked->kind ? asked->kind->flag : "--group", *what = NULL;
    if (!kind->under_mpi) {
        snprintf(err, err_len, "%s: not under virtperf-mpi yet; accepted there: --guests SPEC "
                 "or --containers SPEC (or groups of them), or virtperf run %s SPEC on one "
                 "host", kind->flag, kind->flag);
        return -1;
    }
    if (asked->and_host) /* (a plan's guests = lines are ranks there: run_plan.c) */
        what = "--and-host";
    else if (asked->migrate_to)
        what = "--migrate-to";
    else if (asked->spec && strstr(asked->spec, "auto"))
        what = "a fill (SPEC A..auto)";
    else if (request->topology)
        what = "--topology";
    else if (request->start_with && strcmp(request->start_with, "barrier") == 0)
        what = "--start-with barrier";
    if (!what)
        return 0;
    snprintf(err, err_len, "%s with %s: not under virtperf-mpi yet (each rank starts its %ss "
             "and runs a command line's benchmarks in them); accepted: virtperf-mpi run "
             "BENCH... %s SPEC, or virtperf run on one host with %s", flag, what,
             kind->noun, flag, what);
    return -1;
}

int vp_mpi_members_prepare(const struct vp_world *world, struct vp_mpi_members *members,
                           struct vp_run_steps *steps, int argc, char **argv, char *err,
                           size_t err_len)
{
    unsigned neighbours = 0; /* ranks before this one on its host: a bridge's addresses */
    for (int r = 0; r < world->rank; r++)
        neighbours += strcmp(world->hosts[r], world->hosts[world->rank]) == 0;
    members->words = calloc((size_t)argc + 1, sizeof *members->words);
    if (!members->words)
        abort();
    /* the members parse `virtperf run`'s words: virtperf-mpi's own are left out */
    int count = vp_run_words_without(argc, argv, VP_SCOPE_MPI, members->words);
    members->fleet = vp_fleet_here_prepare(steps->guests.kind,
                                           members->group_count ? members->groups : NULL,
                                           members->group_count, steps, count, members->words,
                                           neighbours, err, err_len);
    vp_last_words_catch_interrupts(); /* the fleet took them for the engine alone: a signal
                                       * is still said to rank 0 as 'I', not a death */
    return members->fleet ? 0 : -1;
}

int vp_mpi_members_start(struct vp_mpi_members *members, const struct vp_run_steps *steps,
                         char *err, size_t err_len)
{
    return vp_fleet_here_start(members->fleet, steps, err, err_len);
}

size_t vp_mpi_members_counts(const struct vp_mpi_members *members,
                             const struct vp_run_steps *steps, size_t index, unsigned *counts)
{
    return vp_fleet_here_counts(members->fleet, steps, index, counts);
}

void vp_mpi_members_close(struct vp_mpi_members *members)
{
    if (members->fleet)
        vp_fleet_here_close(members->fleet);
    members->fleet = NULL;
    free(members->words);
    members->words = NULL;
}

/* A rank's part of a point to rank 0: its aggregate of each group (one without groups) and
 * each member's result, fingerprint, offset and bound to it and the size of its region,
 * then each region. */
static void send_back(const struct vp_world *world, const struct vp_fleet_point *own)
{
    json_t *list = json_array();
    for (size_t i = 0; i < own->parts.count; i++) {
        const struct vp_host_part *part = &own->parts.part[i];
        json_array_append_new(list, json_pack("{s:O?,s:O?,s:I,s:I,s:I}", "result", part->result,
                                              "fingerprint", part->fingerprint, "offset_ns",
                                              (json_int_t)part->clock_offset_ns, "bound_ns",
                                              (json_int_t)part->offset_bound_ns, "region_bytes",
                                              (json_int_t)(part->shared ? part->shared->size : 0)));
    }
    json_t *aggregates = json_array();
    for (size_t g = 0; g < own->group_count; g++)
        json_array_append(aggregates, own->results[g] ? own->results[g] : json_null());
    json_t *back = json_pack("{s:o,s:o}", "hosts", aggregates, "members", list);
    char *text = json_dumps(back, JSON_COMPACT);
    json_decref(back);
    char reason[VP_ERROR_LEN];
    int status = vp_world_send(world, text, strlen(text), 0, MPI_COMM_WORLD, reason, sizeof reason);
    free(text);
    for (size_t i = 0; status == 0 && i < own->parts.count; i++) {
        const struct vp_shared *shared = own->parts.part[i].shared;
        if (shared)
            status = vp_world_send(world, shared->base, shared->size, 0, MPI_COMM_WORLD, reason,
                                   sizeof reason);
    }
}

/* What one rank brought back, on rank 0. */
struct host_back {
    int rank;          /* the world's */
    json_t *aggregates[VP_MAX_GROUPS]; /* its own result of each group's members; NULL: none */
    json_t *members;   /* what it said of each, checked; NULL: nothing came */
    void *region[VP_MAX_GUESTS];
    size_t region_len[VP_MAX_GUESTS];
    char why[VP_ERROR_LEN]; /* why nothing, or not all, came */
};

/* One member's entry as rank rank sent it: its result (checked as any received one, named
 * name), a fingerprint object, its offset and bound, and a region no longer than most;
 * 0, or -1 with why. */
static int check_member(json_t *entry, const char *name, size_t most, char *why, size_t why_len)
{
    json_int_t bound = json_integer_value(json_object_get(entry, "bound_ns"));
    json_int_t region = json_integer_value(json_object_get(entry, "region_bytes"));
    if (!json_is_object(entry) || !json_is_integer(json_object_get(entry, "offset_ns")) ||
        bound < 0 || bound > VP_INSTANT_LIMIT || region < 0 || (size_t)region > most) {
        snprintf(why, why_len, "%.100s: a member's part is not {result, fingerprint, offset_ns, "
                 "bound_ns 0..%lld, region_bytes 0..%zu}", name, (long long)VP_INSTANT_LIMIT,
                 most);
        return -1;
    }
    const json_t *result = json_object_get(entry, "result");
    const char *status = vp_json_text(result, "status"), *error = vp_json_text(result, "error");
    if (strcmp(status, "ok") != 0 && json_object_size(result) <= 2) {
        /* what its rank said became of a member it did not hear from: kept as words */
        char shown[VP_CHECK_TEXT_LEN];
        json_object_set_new(entry, "result",
                            json_pack("{s:s,s:s}", "status",
                                      strcmp(status, "interrupted") == 0 ? "interrupted"
                                                                         : "failed",
                                      "error", vp_printable(error, shown, sizeof shown)));
        return 0;
    }
    char *text = json_dumps(result, JSON_COMPACT);
    json_object_set_new(entry, "result", vp_result_from(name, text ? text : ""));
    free(text);
    if (!json_is_object(json_object_get(entry, "fingerprint")))
        json_object_set_new(entry, "fingerprint", json_object());
    return 0;
}

/* Rank back->rank's part of the point; false with back->why when it did not all come. */
static bool receive_back(const struct vp_world *world, size_t count, size_t region_most,
                         struct host_back *back)
{
    char name[300];
    snprintf(name, sizeof name, "rank %d (%s)", back->rank, world->hosts[back->rank]);
    void *text;
    size_t len;
    size_t most = (count + 1) * (VP_RESULT_MOST + VP_FINGERPRINT_MOST);
    if (vp_world_receive(world, most, &text, &len, back->rank, MPI_COMM_WORLD, back->why,
                         sizeof back->why) != 0)
        return false;
    json_t *whole = json_loadb(text, len, 0, NULL);
    free(text);
    json_t *list = json_object_get(whole, "members");
    if (!json_is_array(list) || json_array_size(list) != count) {
        snprintf(back->why, sizeof back->why, "%.200s sent no part of its %zu members", name,
                 count);
        json_decref(whole);
        return false;
    }
    back->members = json_incref(list);
    size_t g;
    json_t *host;
    json_array_foreach(json_object_get(whole, "hosts"), g, host) {
        char *aggregate = json_dumps(host, JSON_COMPACT);
        if (g < VP_MAX_GROUPS && json_is_object(host))
            back->aggregates[g] = vp_result_from(name, aggregate);
        free(aggregate);
    }
    json_decref(whole);
    size_t i;
    json_t *entry;
    json_array_foreach(back->members, i, entry) {
        size_t expected = 0;
        bool whole_part =
            check_member(entry, name, region_most, back->why, sizeof back->why) == 0 &&
            ((expected = (size_t)json_integer_value(json_object_get(entry, "region_bytes"))) == 0 ||
             vp_world_receive(world, region_most, &back->region[i], &back->region_len[i],
                              back->rank, MPI_COMM_WORLD, back->why, sizeof back->why) == 0);
        if (whole_part && back->region_len[i] == expected)
            continue;
        if (whole_part)
            snprintf(back->why, sizeof back->why, "%.200s: a region of %zu bytes, not %zu",
                     name, back->region_len[i], expected);
        json_decref(back->members); /* nothing it sent is taken, checked or not */
        back->members = NULL;
        for (size_t r = 0; r <= i; r++) {
            free(back->region[r]);
            back->region[r] = NULL;
        }
        return false;
    }
    return true;
}

/* Rank 0's own part as if it came as the others' do. */
static void take_own(struct vp_fleet_point *own, struct host_back *back)
{
    for (size_t g = 0; g < own->group_count; g++)
        back->aggregates[g] = json_incref(own->results[g]);
    back->members = json_array();
    for (size_t i = 0; i < own->parts.count; i++) {
        struct vp_host_part *part = &own->parts.part[i];
        json_array_append_new(back->members,
                              json_pack("{s:O,s:O?,s:I,s:I}", "result", part->result,
                                        "fingerprint", part->fingerprint, "offset_ns",
                                        (json_int_t)part->clock_offset_ns, "bound_ns",
                                        (json_int_t)part->offset_bound_ns));
        if (part->shared) { /* the region changes hands */
            back->region[i] = own->parts.region[i];
            back->region_len[i] = part->shared->size;
            own->parts.region[i] = NULL;
        }
    }
}

/* figures' entries (an object of objects) with only the keys named, NULL-ended. */
static json_t *only(const json_t *figures, const char *const *keys)
{
    json_t *kept = json_object();
    const char *name;
    const json_t *figure;
    json_object_foreach((json_t *)figures, name, figure) {
        json_t *entry = json_object();
        for (size_t k = 0; keys[k]; k++)
            if (json_object_get(figure, keys[k]))
                json_object_set(entry, keys[k], json_object_get(figure, keys[k]));
        json_object_set_new(kept, name, entry);
    }
    return kept;
}

/* Each host's aggregate of group's count members, as the result's "hypervisors"
 * (engine/hypervisors.c). */
static json_t *hypervisors_json(const struct vp_world *world, const struct host_back *backs,
                                size_t rank_count, unsigned count, size_t group,
                                const struct vp_together *together)
{
    static const char *const metric_keys[] = { "unit", "mean", "min", "max", NULL };
    static const char *const column_keys[] = { "mean", "max", NULL };
    json_t *list = json_array();
    for (size_t b = 0; b < rank_count; b++) {
        const struct host_back *back = &backs[b];
        const json_t *aggregate = back->aggregates[group];
        json_t *entry = json_pack("{s:i,s:s,s:i,s:i,s:s,s:f,s:f}", "rank", back->rank, "host",
                                  world->hosts[back->rank], "members", (int)count,
                                  "first_member", (int)(b * count + 1), "status",
                                  aggregate ? vp_json_text(aggregate, "status") : "failed",
                                  "clock_offset_s", (double)together->offsets[b] / 1e9,
                                  "clock_bound_s", (double)together->bounds[b] / 1e9);
        const char *error = aggregate ? json_string_value(json_object_get(aggregate, "error"))
                                      : back->why;
        if (error && *error)
            json_object_set_new(entry, "error", json_string(error));
        if (aggregate) {
            json_object_set_new(entry, "metrics",
                                only(json_object_get(aggregate, "metrics"), metric_keys));
            json_object_set_new(entry, "monitor",
                                only(json_object_get(json_object_get(aggregate, "monitor"),
                                                     "summary"), column_keys));
            if (json_object_get(aggregate, "guests"))
                json_object_set(entry, "guests", json_object_get(aggregate, "guests"));
        }
        json_array_append_new(list, entry);
    }
    return list;
}

/* A failed result's error: the member that failed and the host it was on, the one that
 * caused it before those it stopped ("stopped: another host's jobs failed"). */
static void name_the_cause(const struct vp_world *world, json_t *result,
                           const struct vp_host_part *parts, size_t total,
                           const struct host_back *backs, unsigned count)
{
    size_t cause = total;
    for (size_t j = 0; j < total; j++) {
        if (strcmp(vp_json_text(parts[j].result, "status"), "failed") != 0)
            continue;
        if (cause == total || strncmp(vp_json_text(parts[cause].result, "error"), "stopped:", 8) == 0)
            cause = j;
    }
    if (cause == total)
        return;
    int rank = backs[cause / count].rank;
    char reason[VP_ERROR_LEN * 2];
    snprintf(reason, sizeof reason, "member %zu (%s) on rank %d (%s): %s", cause + 1,
             vp_json_text(parts[cause].fingerprint, "hostname"), rank, world->hosts[rank],
             vp_json_text(parts[cause].result, "error"));
    vp_result_finish(result, "failed", reason);
}

/* Members first .. first + count - 1 of every host (every member, or a group's) as one
 * result's parts, each offset composed with its host's (together's, by the host's place in
 * the step) and its region checked on this clock; the rates across hosts only when they
 * are every member's. */
static json_t *combine_all(const struct vp_world *world, struct host_back *backs,
                           size_t rank_count, unsigned first, unsigned count, bool every,
                           const struct vp_together *together, const struct vp_plan_point *point,
                           const struct vp_run_settings *settings,
                           const struct vp_fleet_point *own, int64_t began_ns)
{
    size_t total = rank_count * count;
    struct vp_host_part *parts = calloc(total, sizeof *parts);
    struct vp_shared *views = calloc(total, sizeof *views);
    if (!parts || !views)
        abort();
    double duration = settings->duration > 0 ? settings->duration : point->bench->default_duration;
    for (size_t b = 0, j = 0; b < rank_count; b++) {
        struct host_back *back = &backs[b];
        for (unsigned i = first; i < first + count; i++, j++) {
            json_t *entry = json_array_get(back->members, i);
            char name[320];
            snprintf(name, sizeof name, "member %zu of rank %d (%s)", j + 1, back->rank,
                     world->hosts[back->rank]);
            if (!json_object_get(entry, "fingerprint")) /* not heard from */
                json_object_set_new(entry, "fingerprint", json_pack("{s:s}", "hostname", name));
            struct vp_host_part *part = &parts[j];
            *part = (struct vp_host_part){
                .rank = (int)j + 1,
                .result = json_incref(json_object_get(entry, "result")),
                .fingerprint = json_object_get(entry, "fingerprint"),
                .clock_offset_ns = json_integer_value(json_object_get(entry, "offset_ns")) +
                                   together->offsets[b],
                .offset_bound_ns = json_integer_value(json_object_get(entry, "bound_ns")) +
                                   together->bounds[b] };
            if (!part->result) /* not heard from: its host's reason */
                part->result = json_pack("{s:s,s:s}", "status", vp_liveness_dead() == back->rank
                                         ? "failed" : "interrupted", "error",
                                         back->why[0] ? back->why : "not heard from");
            if (back->region[i] &&
                !vp_shared_take(name, point, duration, began_ns, part, &views[j], back->region[i],
                                back->region_len[i])) {
                free(back->region[i]);
                back->region[i] = NULL;
            }
        }
    }
    unsigned measured = point->reps ? point->reps : 1;
    double *no_rates = every ? NULL : calloc(2 * (size_t)measured, sizeof *no_rates);
    if (!every && !no_rates)
        abort();
    json_t *result = vp_combine_hosts(point->bench, &point->params, point->jobs, settings, parts,
                                      total, every ? own->stonewall : no_rates,
                                      every ? own->span : no_rates + measured);
    free(no_rates);
    json_t *hosts = json_object_get(json_object_get(result, "ranks"), "hosts");
    if (strcmp(vp_json_text(result, "status"), "failed") == 0) {
        name_the_cause(world, result, parts, total, backs, count);
        if (vp_engine_interrupted()) /* its members lost to the signal, not failing */
            vp_result_finish(result, "interrupted", NULL);
    }
    for (size_t j = 0; j < total; j++) {
        json_object_set_new(json_array_get(hosts, j), "hypervisor",
                            json_integer(backs[j / count].rank));
        json_decref(parts[j].result);
    }
    free(parts);
    free(views);
    return result;
}

json_t *vp_mpi_members_point(const struct vp_world *world, struct vp_mpi_members *members,
                             const struct vp_run_steps *steps, size_t index,
                             size_t point_index, unsigned count,
                             struct vp_run_settings *settings, struct vp_together *together,
                             const int *ranks, size_t rank_count, int64_t began_ns,
                             bool *stopped)
{
    const struct vp_plan_point *point = &steps->step[index].plan.points[point_index];
    struct vp_together_above above = { .together = together };
    struct vp_fleet_point own;
    vp_fleet_here_point(members->fleet, steps, index, point_index, count, settings, &above,
                        &own, stopped);
    if (world->rank != 0) {
        send_back(world, &own);
        vp_fleet_point_free(&own);
        return NULL;
    }
    struct host_back *backs = calloc(rank_count, sizeof *backs);
    if (!backs)
        abort();
    double duration = settings->duration > 0 ? settings->duration : point->bench->default_duration;
    size_t region_most = vp_shared_most(point, 0, duration);
    bool all_came = true;
    for (size_t b = 0; b < rank_count; b++) {
        backs[b].rank = ranks[b];
        if (ranks[b] == 0)
            take_own(&own, &backs[b]);
        else if (all_came) /* once one did not come, the rest would be out of step */
            all_came = receive_back(world, count, region_most, &backs[b]);
        if (!backs[b].members) { /* what became of it, for each of its members */
            snprintf(backs[b].why, sizeof backs[b].why, "%s", all_came ? "not heard from"
                     : backs[b].why[0] ? backs[b].why : "not heard from: the run stopped");
            backs[b].members = json_array();
            for (unsigned i = 0; i < count; i++)
                json_array_append_new(backs[b].members, json_object());
        }
    }
    *stopped = *stopped || !all_came;
    json_t *results = json_array();
    if (members->group_count == 0) {
        json_t *result = combine_all(world, backs, rank_count, 0, count, true, together, point,
                                     settings, &own, began_ns);
        json_object_set_new(result, "hypervisors",
                            hypervisors_json(world, backs, rank_count, count, 0, together));
        json_array_append_new(results, result);
    }
    /* with groups: a result per group, its members of every host, as on one host */
    for (size_t g = 0, first = 0; g < members->group_count; first += members->groups[g++].count) {
        const struct vp_member_group *group = &members->groups[g];
        json_t *result = combine_all(world, backs, rank_count, (unsigned)first, group->count,
                                     false, together, point, settings, &own, began_ns);
        json_object_set_new(result, "hypervisors",
                            hypervisors_json(world, backs, rank_count, group->count, g,
                                             together));
        json_object_set_new(result, "side", json_pack("{s:s,s:s+}", "name", group->name,
                                                      "members", group->asked.kind->noun, "s"));
        json_array_append_new(results, result);
    }
    for (size_t b = 0; b < rank_count; b++) {
        for (size_t g = 0; g < VP_MAX_GROUPS; g++)
            json_decref(backs[b].aggregates[g]);
        json_decref(backs[b].members);
        for (unsigned i = 0; i < count; i++)
            free(backs[b].region[i]);
    }
    free(backs);
    vp_fleet_point_free(&own);
    return results;
}
