/* Where a plan's steps run (the plan compiler's part, plan_compiler.h): on this host, in
 * the members of one kind (its guests = / containers = SPEC lines, and-host, [global]'s
 * settings of the members), or under virtperf-mpi on ranks; and what one host does
 * instead of what needs many hosts or members (--no-guests, virtperf-mpi), each said in
 * a note. */
#define _GNU_SOURCE
#include "run/plan_compiler.h"
#include "run/fill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "core/units.h"

/* Where a step runs: the run's keys a step may also say for itself. */
bool plan_members_key(const char *key)
{
    return vp_env_kind_find(key) || strcmp(key, "and-host") == 0;
}

static void note_left_out(const struct compiler *c, const struct entry *entry,
                          const char *why_mpi, struct vp_run_steps *notes);

bool plan_migration_key(const char *key)
{
    return strncmp(key, "migrate-", 8) == 0;
}

/* Whether some step (or the command line) runs in members. */
static bool some_step_in_members(const struct compiler *c)
{
    if (c->members_given)
        return true;
    for (size_t i = 0; i < c->count; i++)
        if (vp_env_kind_find(c->entries[i].key))
            return true;
    return false;
}

int plan_place_migration(struct compiler *c, const char *step, const struct entry *entry,
                         struct command *command, struct vp_run_steps *notes)
{
    bool global = strcmp(entry->section, "global") == 0;
    if (plan_runs_in_members(c, step)) {
        plan_add_flag(command, entry->key, entry->value);
        return 0;
    }
    if (c->no_members) { /* [global]'s is noted once, with the other member settings */
        if (!global && notes)
            note_left_out(c, entry, "virtperf-mpi starts no guests", notes);
        return 0;
    }
    if (global && some_step_in_members(c))
        return 0; /* for the steps in guests */
    return plan_error(c, entry, step, "--%s: only for the guests of a step; accepted: guests = "
                      "SPEC in [%s] or [global], or --no-guests to leave it out", entry->key,
                      step);
}

/* On one host: ranks 1..N become --jobs 1..N and topology and start-with are left out
 * (the net benchmarks then use their embedded server), each with a note when notes is
 * given. Returns whether entry was one of them. */
bool plan_one_host_fallback(struct command *command, const struct entry *entry,
                              struct vp_run_steps *notes)
{
    if (!plan_in_scope(entry->key, VP_SCOPE_MPI))
        return false;
    char *note = NULL;
    if (strcmp(entry->key, "ranks") == 0) {
        plan_add_flag(command, "jobs", entry->value);
        if (notes && asprintf(&note, "[%s] ranks = %s: one host here, run as --jobs %s "
                              "(virtperf-mpi run --plan runs it on that many hosts or guests)",
                              entry->section, entry->value, entry->value) < 0)
            abort();
    } else if (notes && asprintf(&note, "[%s] %s = %s: one host here, left out (virtperf-mpi "
                                 "run --plan runs it between hosts)", entry->section,
                                 entry->key, entry->value) < 0) {
        abort();
    }
    plan_keep_note(notes, note);
    return true;
}

/* A note that entry is left out with the guests (--no-guests; virtperf-mpi: why_mpi). */
static void note_left_out(const struct compiler *c, const struct entry *entry,
                          const char *why_mpi, struct vp_run_steps *notes)
{
    char *note = NULL;
    if (asprintf(&note, "[%s] %s = %s: left out (%s)", entry->section, entry->key, entry->value,
                 c->for_mpi ? why_mpi : "--no-guests: the steps run on this host") < 0)
        abort();
    plan_keep_note(notes, note);
}

/* An and-host = line left out (--no-guests: the step is this host's side; virtperf-mpi:
 * its ranks are the hosts or guests), said in a note. */
static void leave_out_and_host(const struct compiler *c, const struct entry *entry,
                               struct vp_run_steps *notes)
{
    note_left_out(c, entry, "virtperf-mpi: its ranks are the hosts or guests", notes);
}

/* A [global] setting of the guests or containers themselves (guest-net = BRIDGE...),
 * left out with them (--no-guests, virtperf-mpi), said in a note. */
static void leave_out_member_settings(const struct compiler *c, struct vp_run_steps *notes)
{
    for (size_t i = 0; i < c->count; i++) {
        const struct entry *entry = &c->entries[i];
        if (strcmp(entry->section, "global") != 0 || strcmp(entry->key, "and-host") == 0 ||
            !vp_run_member_setting(entry->key))
            continue;
        note_left_out(c, entry, "virtperf-mpi starts no guests or containers", notes);
    }
}

/* The guests = or containers = line (a kind's) a step runs by: its own, else [global]'s;
 * NULL. */
const struct entry *plan_members_entry(const struct compiler *c, const char *step)
{
    const char *sections[] = { step, "global" };
    for (size_t s = 0; s < 2; s++)
        for (size_t k = 0; vp_env_kinds[k]; k++) {
            const struct entry *entry = plan_find(c, sections[s], vp_env_kinds[k]->name);
            if (entry)
                return entry;
        }
    return NULL;
}

/* With the guests left out (--no-guests, virtperf-mpi), a step still runs what the
 * members would have: under virtperf-mpi, guests = SPEC is ranks = SPEC (a rank per
 * guest); on this host, every member's jobs at once (SPEC x N jobs, as and-host runs). */
int plan_members_as_jobs(struct compiler *c, const char *step, const struct entry *members,
                           struct command *command, struct vp_run_steps *notes)
{
    char *note = NULL, *value = NULL;
    /* a fill (A..auto:MOST) left out: its range swept, where `virtperf scaling` finds the
     * knee afterwards */
    unsigned first, most;
    char swept[32], ignored[256];
    const char *spec = members->value;
    if (vp_fill_parse(members->key, spec, VP_MAX_GUESTS, &first, &most, ignored,
                      sizeof ignored) == 1) {
        snprintf(swept, sizeof swept, "%u..%u", first, most);
        spec = swept;
    }
    if (c->for_mpi) {
        plan_add_flag(command, "ranks", spec);
        if (asprintf(&note, "[%s] %s = %s: virtperf-mpi, run on ranks %s (a rank per "
                     "guest)", step, members->key, members->value, spec) < 0)
            abort();
        plan_keep_note(notes, note);
        return 0;
    }
    const struct entry *jobs = plan_find(c, step, "jobs");
    if (!jobs)
        jobs = plan_find(c, "global", "jobs");
    char *end = NULL;
    unsigned long each = jobs ? strtoul(jobs->value, &end, 10) : 1;
    unsigned counts[VP_MAX_GUESTS];
    size_t count_n = 0;
    if ((jobs && (*end || each == 0)) ||
        vp_parse_jobs_spec(spec, VP_MAX_GUESTS, counts, VP_MAX_GUESTS, &count_n) != 0)
        return plan_error(c, jobs ? jobs : members, step, "%s = %s with jobs = %s: not "
                          "runnable on this host alone (--no-guests); accepted: %s = SPEC "
                          "(1 to %d) and jobs = N (each one's jobs: SPEC x N here)",
                          members->key, members->value, jobs ? jobs->value : "1", members->key,
                          VP_MAX_GUESTS);
    size_t len = 0;
    FILE *out = open_memstream(&value, &len);
    if (!out)
        abort();
    for (size_t i = 0; i < count_n; i++)
        fprintf(out, "%s%lu", i ? "," : "", counts[i] * each);
    fclose(out);
    plan_add_flag(command, "jobs", value);
    if (asprintf(&note, "[%s] %s = %s: --no-guests, run on this host as jobs = %s (each "
                 "one's jobs at once)", step, members->key, members->value, value) < 0)
        abort();
    free(value);
    plan_keep_note(notes, note);
    return 0;
}

/* Whether step runs in guests or containers: the plan's, or the command line's (which
 * every step runs in). */
bool plan_runs_in_members(const struct compiler *c, const char *step)
{
    return !c->no_members && (c->members_given || plan_members_entry(c, step));
}

/* The guests a plan's run asks for: the command line's flags over its [global] keys. */
static struct vp_guests_request merged_guests(const struct vp_guests_request *given,
                                              const struct vp_guests_request *global)
{
    struct vp_guests_request merged = *global;
#define TAKE(field) if (given->field) merged.field = given->field
    TAKE(kind); TAKE(spec); TAKE(accel); TAKE(uri); TAKE(bridge); TAKE(nic); TAKE(disk_dir);
    TAKE(disk_bus);
    TAKE(container_engine); TAKE(container_runtime); TAKE(container_net);
    TAKE(pin); TAKE(programs); TAKE(mount); TAKE(cpus); TAKE(memory_mib); TAKE(timeout_s); TAKE(disk_bytes);
    TAKE(keep_free);
#undef TAKE
    if (given->qos.given)
        merged.qos = given->qos;
    /* the plan's texts go with its entries: the run keeps copies (vp_run_steps_free) */
    const char **texts[] = { &merged.spec, &merged.accel, &merged.uri, &merged.bridge, &merged.nic,
                             &merged.disk_dir, &merged.disk_bus, &merged.container_engine, &merged.container_runtime,
                             &merged.container_net, &merged.pin, &merged.programs, &merged.mount };
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++)
        if (*texts[t] && !(*texts[t] = strdup(*texts[t])))
            abort();
    if (given->cpu_cap_pct) {
        merged.cpu_cap_pct = given->cpu_cap_pct;
        merged.cpu_cap_guest = given->cpu_cap_guest;
    }
    return merged;
}

/* The run's own flags: the command line's, else [global]'s. */
void plan_session_flags(const struct compiler *c, const struct vp_run_request *command,
                          struct vp_run_steps *steps)
{
    struct vp_run_request global = { .monitor_hz = 0 };
    for (size_t i = 0; i < c->count; i++)
        if (strcmp(c->entries[i].section, "global") == 0 && plan_session_key(c->entries[i].key))
            vp_run_take(&global, vp_run_flag_find(c->entries[i].key), c->entries[i].value,
                        (char[VP_ERROR_LEN]){ 0 }, VP_ERROR_LEN); /* judged by check_keys */
    /* the command line's (argv's), else copies of [global]'s (the plan's text goes) */
    struct vp_run_request session = { .quiet = command->quiet || global.quiet };
    const char **chosen[] = { &session.label, &session.db, &session.json };
    const char *given[] = { command->label, command->db, command->json };
    const char *planned[] = { global.label, global.db, global.json };
    for (size_t t = 0; t < 3; t++) {
        if (!given[t] && planned[t] && !(steps->plan_session[t] = strdup(planned[t])))
            abort();
        *chosen[t] = given[t] ? given[t] : steps->plan_session[t];
    }
    /* without members, [global]'s settings of them go (the command line's are judged) */
    session.guests = merged_guests(&command->guests, c->no_members ? &(struct vp_guests_request){ 0 }
                                                                   : &global.guests);
    vp_run_steps_take_session(steps, &session);
    steps->guests_owned = true;
    if (!c->no_members)
        return;
    leave_out_member_settings(c, steps);
    const struct entry *and_host = plan_find(c, "global", "and-host");
    if (and_host)
        leave_out_and_host(c, and_host, steps);
    free((char *)steps->guests.spec);
    steps->guests.spec = NULL;
    steps->guests.kind = NULL;
    steps->guests.and_host = false;
}

/* Where a step runs: its own guests = / containers = / and-host = lines (judged by
 * check_keys), or left out with a note. */
int plan_place_step(struct compiler *c, const char *name, struct vp_run_step *step,
                      struct vp_run_steps *steps)
{
    const struct vp_guests_request *moving = &step->request.guests;
    if ((moving->migrate_at_s > 0 || moving->migrate_back) && !moving->migrate_to)
        return plan_error(c, NULL, name, "%s: no libvirt to migrate the guest to; accepted: "
                          "--set %s.migrate-to=URI (a second hypervisor's libvirt, "
                          "qemu+ssh://HOST/system), or --no-guests to run the step on this "
                          "host", moving->migrate_back ? "migrate-back" : "migrate-at", name);
    for (size_t i = 0; i < c->count; i++) {
        const struct entry *entry = &c->entries[i];
        if (strcmp(entry->section, name) != 0 || !plan_members_key(entry->key))
            continue;
        if (c->no_members) {
            if (strcmp(entry->key, "and-host") == 0)
                leave_out_and_host(c, entry, steps);
            continue;
        }
        struct vp_run_request request = { .monitor_hz = 0 };
        vp_run_take(&request, vp_run_flag_find(entry->key), entry->value, c->err, c->err_len);
        if (strcmp(entry->key, "and-host") == 0) {
            bool on;
            plan_switch_value(entry->value, &on);
            step->and_host = on ? VP_STEP_AND_HOST_ON : VP_STEP_AND_HOST_OFF;
            continue;
        }
        const struct vp_env_kind *kind = vp_env_kind_find(entry->key);
        if (step->members_spec && step->members_kind != kind)
            return plan_error(c, entry, name, "%s: not with %s in one step; accepted: %s = "
                              "SPEC or %s = SPEC", entry->key, step->members_kind->name,
                              step->members_kind->name, entry->key);
        free((char *)step->members_spec);
        step->members_spec = plan_copy(entry->value);
        step->members_kind = kind;
    }
    return 0;
}

/* One kind of member for the whole run, and and-host only where a step runs in them. */
int plan_check_members(struct compiler *c, const struct vp_run_steps *steps)
{
    /* the run's kind: the command line's, [global]'s, and every step's own, one */
    const struct vp_env_kind *kinds[VP_RUN_MAX_STEPS + 8] = { steps->guests.kind };
    size_t kind_count = 1;
    for (size_t k = 0; vp_env_kinds[k] && kind_count < 8; k++)
        if (!c->no_members && plan_find(c, "global", vp_env_kinds[k]->name))
            kinds[kind_count++] = vp_env_kinds[k];
    for (size_t s = 0; s < steps->count; s++) {
        const struct vp_run_step *step = &steps->step[s];
        kinds[kind_count++] = step->members_kind;
        if (step->and_host == VP_STEP_AND_HOST_ON && !step->members_spec && !steps->guests.spec)
            return plan_error(c, NULL, step->name, "and-host: this step runs on this host "
                              "alone; accepted: and-host beside guests = SPEC or containers = "
                              "SPEC (the step's or [global]'s)");
    }
    const struct vp_env_kind *first = NULL;
    for (size_t k = 0; k < kind_count; k++) {
        if (kinds[k] && first && kinds[k] != first) {
            const struct vp_env_kind *one = vp_env_kind_earlier(first, kinds[k]);
            const struct vp_env_kind *other = one == first ? kinds[k] : first;
            return plan_error(c, NULL, "global", "%s and %s: one kind per run; accepted: %s = "
                              "SPEC or %s = SPEC in the steps and [global] that say either",
                              one->name, other->name, one->name, other->name);
        }
        first = first ? first : kinds[k];
    }
    return 0;
}

