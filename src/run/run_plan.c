/* The plan compiler (run_plan.h). The file is read by inih into entries (section, key,
 * value); each entry's line comes from inih too (a handler that stops at entry N makes
 * ini_parse_string return N's line). Each step becomes run's argv ("run" WORDS
 * --KEY=VALUE...), so run's own parser and the benchmarks' option tables judge every
 * value: first each key alone, so that an error names its line, then the whole step.
 * Where each step runs (this host, members, ranks) is plan_places.c's part. */
#define _GNU_SOURCE
#include "run/run_plan.h"
#include "run/plan_compiler.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/reference.h"
#include "core/limits.h"
#include "core/units.h"

#define MAX_PLAN_TEXT (64 * 1024)

char *plan_copy(const char *text)
{
    char *made = strdup(text ? text : "");
    if (!made)
        abort();
    return made;
}

/* Says where the error in err is: FILE:LINE, the --set that gave the value, or FILE:
 * [SECTION] when no entry is to blame. Returns -1. */
static int blame(struct compiler *c, const struct entry *entry, const char *section)
{
    char where[300], message[VP_ERROR_LEN];
    if (entry && entry->line > 0)
        snprintf(where, sizeof where, "%.200s:%d", c->path, entry->line);
    else if (entry)
        snprintf(where, sizeof where, "--set %.40s.%.40s", entry->section, entry->key);
    else
        snprintf(where, sizeof where, "%.200s: [%.60s]", c->path, section);
    snprintf(message, sizeof message, "%s", c->err);
    snprintf(c->err, c->err_len, "%s: %s", where, message);
    return -1;
}

/* An error at entry's line, or in section when there is no entry to blame; returns -1. */
int plan_error(struct compiler *c, const struct entry *entry, const char *section,
               const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(c->err, c->err_len, format, args);
    va_end(args);
    return blame(c, entry, section);
}

/* An error that names its own place (FILE:LINE, --set); returns -1. */
__attribute__((format(printf, 2, 3))) static int refuse(struct compiler *c,
                                                        const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(c->err, c->err_len, format, args);
    va_end(args);
    return -1;
}

bool plan_in_scope(const char *key, unsigned scopes)
{
    const struct vp_run_flag *flag = vp_run_flag_find(key);
    return flag && (flag->scope & scopes);
}
bool plan_session_key(const char *key) { return plan_in_scope(key, VP_SCOPE_SESSION); }
static bool step_flag(const char *key) { return plan_in_scope(key, VP_SCOPE_STEP | VP_SCOPE_MPI); }
static bool step_only_key(const char *key)
{
    return strcmp(key, "bench") == 0 || strcmp(key, "reference") == 0 || vp_reference_key(key);
}

static int collect(void *user, const char *section, const char *key, const char *value)
{
    struct compiler *c = user;
    if (c->count == MAX_ENTRIES)
        return 0;
    c->entries[c->count++] = (struct entry){ plan_copy(section), plan_copy(key), plan_copy(value), 0 };
    return 1;
}

struct stop_at {
    size_t wanted, seen;
};

static int stop_at_entry(void *user, const char *section, const char *key, const char *value)
{
    (void)section, (void)key, (void)value;
    struct stop_at *stop = user;
    return stop->seen++ == stop->wanted ? 0 : 1;
}

int vp_plan_command(struct vp_run_request *command, int argc, char **argv, char *err,
                    size_t err_len)
{
    if (vp_run_parse(command, argc, argv, VP_SCOPES_WITH_PLAN, err, err_len) != 0)
        return -1;
    size_t next = 0;
    if (!command->plan_path && command->plan.word_count > 0)
        command->plan_path = command->words[next++];
    if (!command->plan_path) {
        snprintf(err, err_len, "%s: accepted: a plan file (--plan FILE)", argv[0]);
        return -1;
    }
    if (next < command->plan.word_count) {
        snprintf(err, err_len, "%s: '%s': benchmarks go in the plan's steps (bench = ...)",
                 argv[0], command->words[next]);
        return -1;
    }
    return 0;
}

char *vp_plan_read_text(const char *path, char *err, size_t err_len)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(err, err_len, "--plan %s: %s", path, strerror(errno));
        return NULL;
    }
    char *text = calloc(MAX_PLAN_TEXT + 1, 1);
    if (!text)
        abort();
    size_t len = fread(text, 1, MAX_PLAN_TEXT + 1, in);
    fclose(in);
    if (len > MAX_PLAN_TEXT)
        snprintf(err, err_len, "--plan %s: larger than %d KiB", path, MAX_PLAN_TEXT / 1024);
    else if (memchr(text, '\0', len))
        snprintf(err, err_len, "--plan %s: not text (a NUL byte)", path);
    else
        return text;
    free(text);
    return NULL;
}

/* A key given twice in a step, or a step whose section opens twice, is refused at the
 * second place (the last one silently won). */
static int refuse_repeats(struct compiler *c)
{
    for (size_t i = 0; i < c->count; i++) {
        const struct entry *entry = &c->entries[i];
        bool reopened = i > 0 && strcmp(c->entries[i - 1].section, entry->section) != 0;
        for (size_t earlier = 0; earlier < i; earlier++) {
            const struct entry *before = &c->entries[earlier];
            if (strcmp(before->section, entry->section) != 0)
                continue;
            if (strcmp(before->key, entry->key) == 0)
                return refuse(c, "%s:%d: %s is given twice in [%s] (first at line %d); "
                              "accepted: each key once in a step", c->path, entry->line,
                              entry->key, entry->section, before->line);
            if (reopened && earlier < i - 1)
                return refuse(c, "%s:%d: [%s] opens a second time (first at line %d); "
                              "accepted: each step's keys under one [%s] line", c->path,
                              entry->line, entry->section, before->line, entry->section);
        }
    }
    return 0;
}

/* The entries of the text, each with its line; a syntax error or too many entries is
 * refused naming the file and line. */
static int parse_text(struct compiler *c)
{
    int bad_line = ini_parse_string(c->text, collect, c);
    if (bad_line > 0 && c->count == MAX_ENTRIES)
        return refuse(c, "%s:%d: more than %d keys in one plan", c->path, bad_line,
                      MAX_ENTRIES);
    if (bad_line != 0)
        return refuse(c, "%s:%d: not INI; accepted: [SECTION] lines, KEY = VALUE lines and ; "
                      "or # comments", c->path, bad_line);
    for (size_t i = 0; i < c->count; i++) {
        struct stop_at stop = { .wanted = i };
        c->entries[i].line = ini_parse_string(c->text, stop_at_entry, &stop);
    }
    return refuse_repeats(c);
}

/* --set STEP.KEY=VALUE: replaces the key in that section, or adds it. */
static int apply_set(struct compiler *c, const char *text)
{
    const char *dot = strchr(text, '.'), *equals = strchr(text, '=');
    if (!dot || !equals || dot > equals || dot == text || equals == dot + 1)
        return refuse(c, "--set '%s': accepted: STEP.KEY=VALUE, such as disk.size=1g or "
                      "global.reps=3", text);
    char *section = strndup(text, (size_t)(dot - text));
    char *key = strndup(dot + 1, (size_t)(equals - dot - 1));
    if (!section || !key)
        abort();
    bool known = strcmp(section, "global") == 0;
    for (size_t i = 0; i < c->count; i++)
        known = known || strcmp(c->entries[i].section, section) == 0;
    struct entry *found = NULL;
    for (size_t i = 0; i < c->count && !found; i++)
        if (strcmp(c->entries[i].section, section) == 0 && strcmp(c->entries[i].key, key) == 0)
            found = &c->entries[i];
    int status = 0;
    if (!known) {
        status = refuse(c, "--set '%s': %s has no step [%s]", text, c->path, section);
    } else if (found) {
        free(found->value);
        found->value = plan_copy(equals + 1);
        found->line = 0;
    } else if (c->count == MAX_ENTRIES) {
        status = refuse(c, "--set: more than %d keys in one plan", MAX_ENTRIES);
    } else {
        c->entries[c->count++] = (struct entry){ section, key, plan_copy(equals + 1), 0 };
        return 0;
    }
    free(section);
    free(key);
    return status;
}

const struct entry *plan_find(const struct compiler *c, const char *section,
                                const char *key)
{
    for (size_t i = 0; i < c->count; i++)
        if (strcmp(c->entries[i].section, section) == 0 && strcmp(c->entries[i].key, key) == 0)
            return &c->entries[i];
    return NULL;
}

/* The steps: every section but [global], in the order they first appear. */
static size_t list_steps(const struct compiler *c, const char **steps)
{
    size_t count = 0;
    for (size_t i = 0; i < c->count; i++) {
        const char *section = c->entries[i].section;
        bool seen = strcmp(section, "global") == 0;
        for (size_t s = 0; s < count; s++)
            seen = seen || strcmp(steps[s], section) == 0;
        if (!seen && count < VP_RUN_MAX_STEPS)
            steps[count++] = section;
    }
    return count;
}

static void add_word(struct command *command, char *word)
{
    if (command->argc == MAX_WORDS) {
        free(word);
        return;
    }
    command->argv[command->argc++] = word;
    command->argv[command->argc] = NULL;
}

/* Whether value is a switch's (on, off, true, false); *on: which. */
bool plan_switch_value(const char *value, bool *on)
{
    bool yes = strcmp(value, "on") == 0 || strcmp(value, "true") == 0;
    if (on)
        *on = yes;
    return yes || strcmp(value, "off") == 0 || strcmp(value, "false") == 0;
}

void plan_add_flag(struct command *command, const char *key, const char *value)
{
    const struct vp_run_flag *flag = vp_run_flag_find(key);
    char *word;
    bool on;
    if (flag && !flag->argument) {
        if (!plan_switch_value(value, &on) || !on)
            return;
        if (asprintf(&word, "--%s", key) < 0)
            abort();
    } else if (asprintf(&word, "--%s=%s", key, value) < 0) {
        abort();
    }
    add_word(command, word);
}

static void free_command(struct command *command)
{
    for (int i = 0; i < command->argc; i++)
        free(command->argv[i]);
    command->argc = 0;
}

void plan_keep_note(struct vp_run_steps *notes, char *note)
{
    if (note && notes->note_count < VP_RUN_MAX_NOTES)
        notes->notes[notes->note_count++] = note;
    else
        free(note);
}

/* An entry into a step's command: the step-only keys stay out, virtperf-mpi's keys are
 * its flags (for_mpi) or what one host does instead; topology is also the flag of a step
 * that runs in guests or containers (between this host and them). */
static void add_entry(struct command *command, const struct entry *entry, bool for_mpi,
                      bool in_members, struct vp_run_steps *notes)
{
    if (step_only_key(entry->key) || plan_members_key(entry->key))
        return;
    if (for_mpi || (in_members && strcmp(entry->key, "topology") == 0) ||
        !plan_one_host_fallback(command, entry, notes))
        plan_add_flag(command, entry->key, entry->value);
}

/* "run" and the step's benchmark words. */
static int start_command(struct compiler *c, const char *step, struct command *command)
{
    *command = (struct command){ .argc = 0 };
    const struct entry *bench = plan_find(c, step, "bench");
    if (!bench)
        return plan_error(c, NULL, step, "no bench; accepted: bench = NAME... (a benchmark, "
                          "family or preset, as run takes them)");
    add_word(command, plan_copy("run"));
    char *words = plan_copy(bench->value);
    int status = 0;
    for (char *word = strtok(words, " \t,"); word && status == 0; word = strtok(NULL, " \t,")) {
        if (word[0] == '-')
            status = plan_error(c, bench, step, "bench: '%s' is an option; accepted: benchmark "
                                "names only (a step's options are KEY = VALUE lines of their "
                                "own)", word);
        else if (command->argc <= VP_RUN_MAX_WORDS)
            add_word(command, plan_copy(word));
    }
    free(words);
    if (status == 0 && command->argc == 1)
        status = plan_error(c, bench, step, "bench: accepted: one or more benchmark names");
    if (status != 0)
        free_command(command);
    return status;
}

/* Parses a command with run's parser and builds its plan; an error is blamed on entry
 * (or the step when entry is NULL). plan NULL: built only to be judged. */
static int judge_command(struct compiler *c, struct command *command, const struct entry *entry,
                         const char *step, struct vp_plan *plan)
{
    struct vp_run_request request;
    struct vp_plan built;
    unsigned scopes = VP_SCOPE_STEP | (c->for_mpi ? VP_SCOPE_MPI : VP_SCOPE_FLEET);
    int status = vp_run_parse(&request, command->argc, command->argv, scopes, c->err, c->err_len);
    if (status == 0)
        status = vp_plan_build(&request.plan, plan ? plan : &built, c->err, c->err_len);
    if (status == 0 && !plan)
        vp_plan_free(&built);
    free_command(command);
    return status == 0 ? 0 : blame(c, entry, step);
}

/* Judges one entry alone through run's parser and plan builder: its line is blamed;
 * target is judged beside the step's reps (its own, else [global]'s), which it goes
 * with. A virtperf-mpi key that one host leaves out is still taken (a bad value is
 * refused here as virtperf-mpi would). */
static int check_entry(struct compiler *c, const char *step, const struct entry *entry)
{
    const struct vp_run_flag *flag = vp_run_flag_find(entry->key);
    struct vp_run_request taken = { 0 };
    if (!c->for_mpi && flag && plan_in_scope(entry->key, VP_SCOPE_MPI) &&
        vp_run_take(&taken, flag, entry->value, c->err, c->err_len) != 0)
        return blame(c, entry, step);
    struct command command;
    if (start_command(c, step, &command) != 0)
        return -1;
    if (strcmp(entry->key, "target") == 0) {
        const struct entry *reps = plan_find(c, step, "reps");
        if (!reps)
            reps = plan_find(c, "global", "reps");
        if (reps)
            add_entry(&command, reps, false, plan_runs_in_members(c, step), NULL);
    }
    add_entry(&command, entry, false, plan_runs_in_members(c, step), NULL);
    return judge_command(c, &command, entry, step, NULL);
}

/* The step's plan from its benchmark words alone (an error blamed on its bench line). */
static int build_step_plan(struct compiler *c, const char *step, struct vp_plan *plan)
{
    struct command command;
    if (start_command(c, step, &command) != 0)
        return -1;
    return judge_command(c, &command, plan_find(c, step, "bench"), step, plan);
}

/* Whether one of the step's benchmarks has an option called key (-1: its words refused). */
static int step_takes_option(struct compiler *c, const char *step, const char *key)
{
    struct vp_plan plan;
    if (build_step_plan(c, step, &plan) != 0)
        return -1;
    bool takes = false;
    for (size_t p = 0; p < plan.count && !takes; p++)
        takes = vp_params_find(&plan.points[p].params, key) >= 0;
    vp_plan_free(&plan);
    return takes;
}

/* A study figure (then.BENCH.METRIC...): well formed, of one of the step's benchmarks. */
static int check_reference_entry(struct compiler *c, const char *step, const struct entry *entry)
{
    struct vp_reference reference;
    if (vp_reference_parse(entry->key, entry->value, &reference, c->err, c->err_len) != 0)
        return blame(c, entry, step);
    struct vp_plan plan;
    if (build_step_plan(c, step, &plan) != 0)
        return -1;
    char names[600] = "";
    size_t used = 0;
    bool runs = false;
    for (size_t p = 0; p < plan.count; p++) {
        const char *name = plan.points[p].bench->name;
        runs = runs || strcmp(name, reference.bench) == 0;
        if ((p == 0 || plan.points[p - 1].bench != plan.points[p].bench) && used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                                     name);
    }
    vp_plan_free(&plan);
    if (!runs)
        return plan_error(c, entry, step, "%s: [%s] does not run %s; accepted: a figure of its "
                          "benchmarks (%s)", entry->key, step, reference.bench, names);
    return 0;
}

/* A key of the whole run (or a step's guests keys) through run's own flag parser. */
static int check_run_entry(struct compiler *c, const struct entry *entry, const char *step)
{
    struct vp_run_request request = { .monitor_hz = 0 };
    int taken = vp_run_take(&request, vp_run_flag_find(entry->key), entry->value, c->err,
                            c->err_len);
    return taken == 0 ? 0 : blame(c, entry, step);
}

/* A [global] key alone: a run flag against the first step, a benchmark option against
 * every step whose benchmarks take it (one at least must). */
static int check_global_entry(struct compiler *c, const char *const *steps, size_t step_count,
                              const struct entry *entry)
{
    if (plan_session_key(entry->key))
        return check_run_entry(c, entry, NULL);
    if (step_flag(entry->key))
        return check_entry(c, steps[0], entry);
    bool taken = false;
    for (size_t s = 0; s < step_count; s++) {
        int takes = step_takes_option(c, steps[s], entry->key);
        if (takes < 0 || (takes && check_entry(c, steps[s], entry) != 0))
            return -1;
        taken = taken || takes;
    }
    if (!taken)
        return plan_error(c, entry, NULL, "%s: not a run flag nor an option of any step's "
                          "benchmarks; see 'virtperf run --help' and 'virtperf list BENCH'",
                          entry->key);
    return 0;
}

/* Each key where it belongs: no key outside a section, the run's own in [global] only, a
 * step's own in a step only, no key of the command line alone. */
static int check_places(struct compiler *c)
{
    for (size_t i = 0; i < c->count; i++) {
        const struct entry *entry = &c->entries[i];
        bool global = strcmp(entry->section, "global") == 0;
        if (!entry->section[0])
            return plan_error(c, entry, NULL, "%s outside a section; accepted: keys under "
                              "[global] or under a [STEP]", entry->key);
        if (!global && plan_session_key(entry->key) && !plan_members_key(entry->key))
            return plan_error(c, entry, NULL, "%s belongs to the whole run: accepted in "
                              "[global] only (a step may say guests, containers and "
                              "and-host for itself)", entry->key);
        if (global && step_only_key(entry->key))
            return plan_error(c, entry, NULL, "%s belongs to a step, not to [global]",
                              entry->key);
        const struct vp_run_flag *flag = vp_run_flag_find(entry->key);
        if (flag && !flag->argument && !plan_switch_value(entry->value, NULL))
            return plan_error(c, entry, NULL, "%s = %s: a switch; accepted: on, off, true or "
                              "false", entry->key, entry->value);
        if (plan_in_scope(entry->key, VP_SCOPE_COMMAND | VP_SCOPE_PLAN)) {
            char step_keys[300], run_keys[200];
            vp_run_flag_names(VP_SCOPE_STEP | VP_SCOPE_MPI, "", step_keys, sizeof step_keys);
            vp_run_flag_names(VP_SCOPE_SESSION, "", run_keys, sizeof run_keys);
            return plan_error(c, entry, NULL, "%s: not a plan key; accepted: run's flags (%s; "
                              "%s in [global]), reference, then.BENCH.METRIC, and benchmark "
                              "options", entry->key, step_keys, run_keys);
        }
    }
    return 0;
}

/* Checks every key alone: the places, each step's words, [global]'s keys, each step's. */
static int check_keys(struct compiler *c, const char **steps, size_t step_count)
{
    if (check_places(c) != 0)
        return -1;
    for (size_t s = 0; s < step_count; s++)
        if (step_takes_option(c, steps[s], "bench") < 0) /* its words alone */
            return -1;
    for (size_t i = 0; i < c->count; i++)
        if (strcmp(c->entries[i].section, "global") == 0 &&
            check_global_entry(c, steps, step_count, &c->entries[i]) != 0)
            return -1;
    for (size_t s = 0; s < step_count; s++) {
        for (size_t i = 0; i < c->count; i++) {
            const struct entry *entry = &c->entries[i];
            if (strcmp(entry->section, steps[s]) != 0 || strcmp(entry->key, "bench") == 0 ||
                strcmp(entry->key, "reference") == 0)
                continue;
            int checked = vp_reference_key(entry->key) ? check_reference_entry(c, steps[s], entry)
                          : plan_members_key(entry->key)    ? check_run_entry(c, entry, steps[s])
                                                       : check_entry(c, steps[s], entry);
            if (checked != 0)
                return -1;
        }
    }
    return 0;
}

/* A step's whole command: [global]'s keys first (those of benchmark options only when
 * the step's benchmarks take them), then the step's own. */
static int step_command(struct compiler *c, const char *step, struct command *command,
                        struct vp_run_steps *notes, struct vp_run_steps *placement)
{
    if (start_command(c, step, command) != 0)
        return -1;
    const struct entry *members = c->no_members ? plan_members_entry(c, step) : NULL;
    bool jobs_of_members = members && !c->for_mpi; /* members_as_jobs says them */
    for (size_t i = 0; i < c->count; i++) {
        const struct entry *entry = &c->entries[i];
        if (strcmp(entry->section, "global") != 0 || plan_session_key(entry->key) ||
            (jobs_of_members && strcmp(entry->key, "jobs") == 0))
            continue;
        int takes = step_flag(entry->key) ? 1 : step_takes_option(c, step, entry->key);
        if (takes < 0) {
            free_command(command);
            return -1;
        }
        if (takes && plan_migration_key(entry->key) &&
            plan_place_migration(c, step, entry, command, notes) != 0) {
            free_command(command);
            return -1;
        }
        if (takes && !plan_migration_key(entry->key))
            add_entry(command, entry, c->for_mpi, plan_runs_in_members(c, step), notes);
    }
    for (size_t i = 0; i < c->count; i++) {
        const struct entry *entry = &c->entries[i];
        if (strcmp(entry->section, step) != 0 ||
            (jobs_of_members && strcmp(entry->key, "jobs") == 0))
            continue;
        if (!plan_migration_key(entry->key))
            add_entry(command, entry, c->for_mpi, plan_runs_in_members(c, step), notes);
        else if (plan_place_migration(c, step, entry, command, notes) != 0) {
            free_command(command);
            return -1;
        }
    }
    if (members && plan_members_as_jobs(c, step, members, command, placement) != 0) {
        free_command(command);
        return -1;
    }
    return 0;
}

/* The text kept with the run: the file, then the --set lines that changed it. */
static char *kept_text(const struct compiler *c, const struct vp_run_request *command)
{
    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        abort();
    fprintf(out, "; plan %s\n%s", c->path, c->text);
    for (size_t i = 0; i < command->set_count; i++)
        fprintf(out, "\n; --set %s", command->sets[i]);
    fclose(out);
    return text;
}

/* Each step as the executor takes it: its command line (owned by the step), its request
 * parsed from it and its plan built. */
static int make_steps(struct compiler *c, const char **names, size_t count,
                      struct vp_run_steps *steps)
{
    for (size_t s = 0; s < count; s++) {
        struct command command;
        if (step_command(c, names[s], &command, c->for_mpi ? NULL : steps, steps) != 0)
            return -1;
        struct vp_run_step *step = &steps->step[steps->count++];
        *step = (struct vp_run_step){ .name = plan_copy(names[s]), .argc = command.argc,
                                      .owned = true };
        step->argv = calloc((size_t)command.argc + 1, sizeof *step->argv);
        if (!step->argv)
            abort();
        memcpy(step->argv, command.argv, (size_t)command.argc * sizeof *step->argv);
        unsigned scopes = VP_SCOPE_STEP | (c->for_mpi ? VP_SCOPE_MPI : VP_SCOPE_FLEET);
        if (vp_run_parse(&step->request, step->argc, step->argv, scopes, c->err,
                         c->err_len) != 0 ||
            vp_plan_build(&step->request.plan, &step->plan, c->err, c->err_len) != 0) {
            step->plan.count = 0;
            return blame(c, NULL, names[s]);
        }
        if (plan_place_step(c, names[s], step, steps) != 0)
            return -1;
    }
    return 0;
}

int vp_plan_compile(const struct vp_run_request *command, const char *text, bool for_mpi,
                    struct vp_run_steps *steps, char *err, size_t err_len)
{
    struct compiler *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    *c = (struct compiler){ .path = command->plan_path, .text = text, .for_mpi = for_mpi,
                            .no_members = for_mpi || command->no_guests,
                            .members_given = command->guests.kind != NULL,
                            .err = err, .err_len = err_len };
    *steps = (struct vp_run_steps){ .count = 0 };
    const char *names[VP_RUN_MAX_STEPS];
    size_t count = 0;
    int status = parse_text(c);
    for (size_t i = 0; status == 0 && i < command->set_count; i++)
        status = apply_set(c, command->sets[i]);
    if (status == 0 && (count = list_steps(c, names)) == 0)
        status = plan_error(c, NULL, "global", "no step; accepted: at least one [STEP] section "
                            "with bench = NAME...");
    if (status == 0)
        status = check_keys(c, names, count);
    if (status == 0)
        status = make_steps(c, names, count, steps);
    if (status == 0 && command->no_guests &&
        (command->guests.kind || command->guests.and_host)) {
        snprintf(err, err_len, "--no-guests: not with --guests, --containers or --and-host; "
                 "accepted: one or the other");
        status = -1;
    }
    if (status == 0) {
        plan_session_flags(c, command, steps);
        steps->kept_text = kept_text(c, command);
        status = plan_check_members(c, steps);
    }
    if (status != 0)
        vp_run_steps_free(steps);
    for (size_t i = 0; i < c->count; i++) {
        free(c->entries[i].section);
        free(c->entries[i].key);
        free(c->entries[i].value);
    }
    free(c);
    return status;
}

int vp_run_steps_of_words(struct vp_run_steps *steps, int argc, char **argv,
                          const char *plan_text, char *err, size_t err_len)
{
    if (plan_text) {
        struct vp_run_request command;
        if (vp_plan_command(&command, argc, argv, err, err_len) != 0)
            return -1;
        return vp_plan_compile(&command, plan_text, false, steps, err, err_len);
    }
    if (vp_run_steps_of_command_line(steps, argc, argv, VP_SCOPES_COMMAND_LINE, err,
                                     err_len) != 0)
        return -1;
    return vp_run_steps_build(steps, err, err_len);
}
