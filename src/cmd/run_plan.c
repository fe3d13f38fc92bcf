/* `virtperf run --plan FILE` and `virtperf plan-check FILE` (run_plan.h). The file is
 * read by inih into entries (section, key, value); each entry's line comes from inih too
 * (a handler that stops at entry N makes ini_parse_string return N's line). Each step
 * becomes run's argv ("run" WORDS --KEY=VALUE...), so run's own parser and the
 * benchmarks' option tables judge every value: first each key alone, so that an error
 * names its line, then the whole step. */
#define _GNU_SOURCE
#include "cmd/run_plan.h"

#include <errno.h>
#include <getopt.h>
#include <ini.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/reference.h"
#include "cmd/common.h"
#include "cmd/run.h"
#include "core/sysinfo.h"
#include "store/store.h"

#define MAX_ENTRIES 512
#define MAX_STEPS VP_PLAN_MAX_STEPS
#define MAX_PLAN_TEXT (64 * 1024)

struct entry {
    char *section, *key, *value;
    int line; /* 0: given with --set */
};

struct plan_file {
    const char *path;
    char *text;
    struct entry entries[MAX_ENTRIES];
    size_t count;
};

/* Keys of run that belong to the whole run, allowed in [global] only. */
static const char *const session_keys[] = { "label", "db", "json", "quiet", NULL };
/* Keys of run that a step may set; ranks and topology are virtperf-mpi's (one host: see
 * one_host_fallback). */
static const char *const step_keys[] = { "bench", "jobs", "pin", "reps", "warmup", "duration",
                                         "monitor-hz", "watch", "ranks", "topology",
                                         "reference", NULL };

static bool listed(const char *const *list, const char *key)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], key) == 0)
            return true;
    return false;
}

/* The line the usage-error hook puts before run's own messages. */
static const struct plan_file *blamed_file;
static char blamed_where[300];
static void (*plan_refusal)(const char *message); /* virtperf-mpi's: every rank refuses */
static bool steps_for_mpi; /* ranks and topology kept as --ranks and --topology */

static void prefix_usage_error(const char *message)
{
    if (plan_refusal) {
        char line[1400];
        snprintf(line, sizeof line, "%s: %s", blamed_where, message);
        plan_refusal(line);
    }
    fprintf(stderr, "virtperf: %s: %s\n", blamed_where, message);
    exit(VP_EXIT_USAGE);
}

/* Says where the next usage error is: FILE:LINE, or the --set that gave the value. */
static void blame(const struct plan_file *file, const struct entry *entry, const char *section)
{
    blamed_file = file;
    if (entry && entry->line > 0)
        snprintf(blamed_where, sizeof blamed_where, "%.200s:%d", file->path, entry->line);
    else if (entry)
        snprintf(blamed_where, sizeof blamed_where, "--set %.40s.%.40s", entry->section,
                 entry->key);
    else
        snprintf(blamed_where, sizeof blamed_where, "%.200s: [%.60s]", file->path, section);
    vp_set_usage_error_hook(prefix_usage_error);
}

/* A usage error at entry's line, or in section when there is no entry to blame. */
__attribute__((format(printf, 4, 5))) static _Noreturn void plan_error(
    const struct plan_file *file, const struct entry *entry, const char *section,
    const char *format, ...)
{
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    blame(file, entry, section);
    vp_usage_error("%s", message);
}

static char *copy(const char *text)
{
    char *made = strdup(text ? text : "");
    if (!made)
        abort();
    return made;
}

static int collect(void *user, const char *section, const char *key, const char *value)
{
    struct plan_file *file = user;
    if (file->count == MAX_ENTRIES)
        return 0;
    file->entries[file->count++] = (struct entry){ copy(section), copy(key), copy(value), 0 };
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

/* The file's text (at most MAX_PLAN_TEXT bytes, no NUL), or NULL with err naming why. */
static char *read_plan_text(const char *path, char *err, size_t err_len)
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
static void refuse_repeats(const struct plan_file *file)
{
    for (size_t i = 0; i < file->count; i++) {
        const struct entry *entry = &file->entries[i];
        bool reopened = i > 0 && strcmp(file->entries[i - 1].section, entry->section) != 0;
        for (size_t earlier = 0; earlier < i; earlier++) {
            const struct entry *before = &file->entries[earlier];
            if (strcmp(before->section, entry->section) != 0)
                continue;
            if (strcmp(before->key, entry->key) == 0)
                vp_usage_error("%s:%d: %s is given twice in [%s] (first at line %d); accepted: "
                               "each key once in a step", file->path, entry->line, entry->key,
                               entry->section, before->line);
            if (reopened && earlier < i - 1)
                vp_usage_error("%s:%d: [%s] opens a second time (first at line %d); accepted: "
                               "each step's keys under one [%s] line", file->path, entry->line,
                               entry->section, before->line, entry->section);
        }
    }
}

/* Parses the text read from path; a syntax error or too many entries is a usage error
 * naming the file and line. */
static void parse_plan(struct plan_file *file, const char *path, char *text)
{
    *file = (struct plan_file){ .path = path, .text = text };
    int bad_line = ini_parse_string(file->text, collect, file);
    if (bad_line > 0 && file->count == MAX_ENTRIES)
        vp_usage_error("%s:%d: more than %d keys in one plan", path, bad_line, MAX_ENTRIES);
    if (bad_line != 0)
        vp_usage_error("%s:%d: not INI; accepted: [SECTION] lines, KEY = VALUE lines and ; or "
                       "# comments", path, bad_line);
    for (size_t i = 0; i < file->count; i++) {
        struct stop_at stop = { .wanted = i };
        file->entries[i].line = ini_parse_string(file->text, stop_at_entry, &stop);
    }
    refuse_repeats(file);
}

/* --set STEP.KEY=VALUE: replaces the key in that section, or adds it. */
static void apply_set(struct plan_file *file, const char *text)
{
    const char *dot = strchr(text, '.'), *equals = strchr(text, '=');
    if (!dot || !equals || dot > equals || dot == text || equals == dot + 1)
        vp_usage_error("--set '%s': accepted: STEP.KEY=VALUE, such as disk.size=1g or "
                       "global.reps=3", text);
    char *section = strndup(text, (size_t)(dot - text));
    char *key = strndup(dot + 1, (size_t)(equals - dot - 1));
    if (!section || !key)
        abort();
    bool known = strcmp(section, "global") == 0;
    for (size_t i = 0; i < file->count; i++)
        known = known || strcmp(file->entries[i].section, section) == 0;
    if (!known)
        vp_usage_error("--set '%s': %s has no step [%s]", text, file->path, section);
    for (size_t i = 0; i < file->count; i++) {
        struct entry *entry = &file->entries[i];
        if (strcmp(entry->section, section) == 0 && strcmp(entry->key, key) == 0) {
            free(entry->value);
            entry->value = copy(equals + 1);
            entry->line = 0;
            free(section);
            free(key);
            return;
        }
    }
    if (file->count == MAX_ENTRIES)
        vp_usage_error("--set: more than %d keys in one plan", MAX_ENTRIES);
    file->entries[file->count++] = (struct entry){ section, key, copy(equals + 1), 0 };
}

static const struct entry *find(const struct plan_file *file, const char *section,
                                const char *key)
{
    const struct entry *found = NULL;
    for (size_t i = 0; i < file->count; i++)
        if (strcmp(file->entries[i].section, section) == 0 &&
            strcmp(file->entries[i].key, key) == 0)
            found = &file->entries[i];
    return found;
}

/* The steps: every section but [global], in the order they first appear. */
static size_t list_steps(const struct plan_file *file, const char **steps)
{
    size_t count = 0;
    for (size_t i = 0; i < file->count; i++) {
        const char *section = file->entries[i].section;
        bool seen = strcmp(section, "global") == 0;
        for (size_t s = 0; s < count; s++)
            seen = seen || strcmp(steps[s], section) == 0;
        if (!seen && count < MAX_STEPS)
            steps[count++] = section;
    }
    return count;
}

/* A step's command line, as words. */
struct command {
    char *argv[VP_RUN_MAX_WORDS + MAX_ENTRIES + 4];
    int argc;
    char *notes[4]; /* what one host does instead of what needs many */
    size_t note_count;
};

static void add_word(struct command *command, char *word)
{
    command->argv[command->argc++] = word;
    command->argv[command->argc] = NULL;
}

static void add_flag(struct command *command, const char *key, const char *value)
{
    char *word;
    bool flag_only = strcmp(key, "quiet") == 0;
    if (flag_only && strcmp(value, "on") != 0 && strcmp(value, "true") != 0)
        return;
    if (asprintf(&word, flag_only ? "--%s" : "--%s=%s", key, value) < 0)
        abort();
    add_word(command, word);
}

static void free_command(struct command *command)
{
    for (int i = 0; i < command->argc; i++)
        free(command->argv[i]);
    for (size_t n = 0; n < command->note_count; n++)
        free(command->notes[n]);
    command->argc = 0;
    command->note_count = 0;
}

/* ranks and topology need virtperf-mpi; on one host ranks 1..N become --jobs 1..N and a
 * topology is left out (the net benchmarks then use their embedded server). */
static bool one_host_fallback(struct command *command, const struct entry *entry)
{
    char *note;
    if (strcmp(entry->key, "ranks") == 0) {
        add_flag(command, "jobs", entry->value);
        if (asprintf(&note, "[%s] ranks = %s: one host here, run as --jobs %s (virtperf-mpi "
                     "run --plan runs it on that many hosts or guests)", entry->section,
                     entry->value, entry->value) < 0)
            abort();
    } else if (strcmp(entry->key, "topology") == 0) {
        if (asprintf(&note, "[%s] topology = %s: one host here, left out (virtperf-mpi "
                     "run --plan runs it between hosts)", entry->section, entry->value) < 0)
            abort();
    } else {
        return false;
    }
    if (command->note_count < 4)
        command->notes[command->note_count++] = note;
    else
        free(note);
    return true;
}

static void add_entry(struct command *command, const struct entry *entry)
{
    if (strcmp(entry->key, "bench") == 0 || strcmp(entry->key, "reference") == 0 ||
        vp_reference_key(entry->key))
        return;
    if (!one_host_fallback(command, entry))
        add_flag(command, entry->key, entry->value);
}

/* An entry into the step's final command: as add_entry, but for virtperf-mpi ranks and
 * topology stay its own flags. */
static void add_step_entry(struct command *command, const struct entry *entry)
{
    if (steps_for_mpi && (strcmp(entry->key, "ranks") == 0 || strcmp(entry->key, "topology") == 0))
        add_flag(command, entry->key, entry->value);
    else
        add_entry(command, entry);
}

/* "run" and the step's benchmark words. */
static void start_command(const struct plan_file *file, const char *step,
                          struct command *command)
{
    *command = (struct command){ .argc = 0 };
    add_word(command, copy("run"));
    const struct entry *bench = find(file, step, "bench");
    if (!bench)
        plan_error(file, NULL, step, "no bench; accepted: bench = NAME... (a benchmark, family "
                   "or preset, as run takes them)");
    char *words = copy(bench->value);
    for (char *word = strtok(words, " \t,"); word; word = strtok(NULL, " \t,")) {
        if (word[0] == '-')
            plan_error(file, bench, step, "bench: '%s' is an option; accepted: benchmark "
                       "names only (a step's options are KEY = VALUE lines of their own)", word);
        if (command->argc < VP_RUN_MAX_WORDS)
            add_word(command, copy(word));
    }
    free(words);
    if (command->argc == 1)
        plan_error(file, bench, step, "bench: accepted: one or more benchmark names");
}

/* Judges one entry alone through run's parser and plan builder: its line is blamed. */
static void check_entry(const struct plan_file *file, const char *step,
                        const struct entry *entry)
{
    struct command command;
    start_command(file, step, &command);
    add_entry(&command, entry);
    blame(file, entry, step);
    struct vp_run_request request;
    vp_run_parse(&request, command.argc, command.argv);
    struct vp_plan plan;
    char err[VP_ERROR_LEN + 4200];
    int built = vp_plan_build(&request.plan, &plan, err, sizeof err);
    free_command(&command);
    if (built != 0)
        vp_usage_error("%s", err);
    vp_plan_free(&plan);
}

/* The step's plan from its benchmark words alone (an error blamed on its bench line). */
static void build_step_plan(const struct plan_file *file, const char *step, struct vp_plan *plan)
{
    struct command command;
    start_command(file, step, &command);
    blame(file, find(file, step, "bench"), step);
    struct vp_run_request request;
    vp_run_parse(&request, command.argc, command.argv);
    char err[VP_ERROR_LEN + 4200];
    int built = vp_plan_build(&request.plan, plan, err, sizeof err);
    free_command(&command);
    if (built != 0)
        vp_usage_error("%s", err);
}

/* Whether one of the step's benchmarks has an option called key. */
static bool step_takes_option(const struct plan_file *file, const char *step, const char *key)
{
    struct vp_plan plan;
    build_step_plan(file, step, &plan);
    bool takes = false;
    for (size_t p = 0; p < plan.count && !takes; p++)
        takes = vp_params_find(&plan.points[p].params, key) >= 0;
    vp_plan_free(&plan);
    return takes;
}

/* A study figure (then.BENCH.METRIC...): well formed, of one of the step's benchmarks. */
static void check_reference_entry(const struct plan_file *file, const char *step,
                                  const struct entry *entry)
{
    struct vp_reference reference;
    char err[1024];
    if (vp_reference_parse(entry->key, entry->value, &reference, err, sizeof err) != 0)
        plan_error(file, entry, step, "%s", err);
    struct vp_plan plan;
    build_step_plan(file, step, &plan);
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
        plan_error(file, entry, step, "%s: [%s] does not run %s; accepted: a figure of its "
                   "benchmarks (%s)", entry->key, step, reference.bench, names);
}

/* A [global] key alone: a run flag against the first step, a benchmark option against
 * every step whose benchmarks take it (one at least must). */
static void check_global_entry(const struct plan_file *file, const char *const *steps,
                               size_t step_count, const struct entry *entry)
{
    if (listed(session_keys, entry->key))
        return;
    if (listed(step_keys, entry->key)) {
        check_entry(file, steps[0], entry);
        return;
    }
    bool taken = false;
    for (size_t s = 0; s < step_count; s++) {
        if (step_takes_option(file, steps[s], entry->key)) {
            check_entry(file, steps[s], entry);
            taken = true;
        }
    }
    if (!taken)
        plan_error(file, entry, NULL, "%s: not a run flag nor an option of any step's "
                   "benchmarks; see 'virtperf run --help' and 'virtperf list BENCH'",
                   entry->key);
}

/* Checks every key and builds each step's command: [global]'s keys first (those of
 * benchmark options only for the steps whose benchmarks have them), then the step's. */
static size_t build_commands(const struct plan_file *file, struct command *commands,
                             const char **steps)
{
    size_t step_count = list_steps(file, steps);
    if (step_count == 0)
        plan_error(file, NULL, "global", "no step; accepted: at least one [STEP] section with bench = "
                   "NAME...");
    for (size_t i = 0; i < file->count; i++) {
        const struct entry *entry = &file->entries[i];
        bool global = strcmp(entry->section, "global") == 0;
        if (!entry->section[0])
            plan_error(file, entry, NULL, "%s outside a section; accepted: keys under "
                       "[global] or under a [STEP]", entry->key);
        if (!global && listed(session_keys, entry->key))
            plan_error(file, entry, NULL, "%s belongs to the whole run: accepted in [global] only",
                       entry->key);
        if (global && (strcmp(entry->key, "bench") == 0 || strcmp(entry->key, "reference") == 0 ||
                       vp_reference_key(entry->key)))
            plan_error(file, entry, NULL, "%s belongs to a step, not to [global]", entry->key);
        if (strcmp(entry->key, "background") == 0 || strcmp(entry->key, "plan") == 0 ||
            strcmp(entry->key, "help") == 0)
            plan_error(file, entry, NULL, "%s: not a plan key; accepted: run's flags (jobs, pin, "
                       "reps, warmup, duration, monitor-hz, watch; label, db, json, quiet in "
                       "[global]), ranks, topology, reference, then.BENCH.METRIC, and benchmark "
                       "options",
                       entry->key);
    }
    for (size_t s = 0; s < step_count; s++)
        step_takes_option(file, steps[s], "bench"); /* its words alone, blamed on its line */
    for (size_t i = 0; i < file->count; i++)
        if (strcmp(file->entries[i].section, "global") == 0)
            check_global_entry(file, steps, step_count, &file->entries[i]);
    for (size_t s = 0; s < step_count; s++) {
        for (size_t i = 0; i < file->count; i++) {
            const struct entry *entry = &file->entries[i];
            if (strcmp(entry->section, steps[s]) == 0 && vp_reference_key(entry->key))
                check_reference_entry(file, steps[s], entry);
            else if (strcmp(entry->section, steps[s]) == 0 && !listed(step_keys, entry->key))
                check_entry(file, steps[s], entry);
            else if (strcmp(entry->section, steps[s]) == 0 &&
                     (strcmp(entry->key, "jobs") == 0 || strcmp(entry->key, "pin") == 0 ||
                      strcmp(entry->key, "reps") == 0 || strcmp(entry->key, "warmup") == 0 ||
                      strcmp(entry->key, "duration") == 0 ||
                      strcmp(entry->key, "monitor-hz") == 0 || strcmp(entry->key, "ranks") == 0))
                check_entry(file, steps[s], entry);
        }
    }
    for (size_t s = 0; s < step_count; s++) {
        struct command *command = &commands[s];
        start_command(file, steps[s], command);
        for (size_t i = 0; i < file->count; i++) {
            const struct entry *entry = &file->entries[i];
            if (strcmp(entry->section, "global") != 0 || listed(session_keys, entry->key))
                continue;
            if (listed(step_keys, entry->key)) {
                add_step_entry(command, entry);
                continue;
            }
            /* a benchmark option of [global]: for the steps whose benchmarks take it */
            if (step_takes_option(file, steps[s], entry->key))
                add_step_entry(command, entry);
        }
        for (size_t i = 0; i < file->count; i++)
            if (strcmp(file->entries[i].section, steps[s]) == 0)
                add_step_entry(command, &file->entries[i]);
    }
    return step_count;
}

struct plan_flags {
    const char *path, *label, *db, *json;
    bool quiet, dry_run, here;
    char *sets[64];
    size_t set_count;
};

static void parse_flags(int argc, char **argv, struct plan_flags *flags, const char *who)
{
    static const struct option options[] = {
        { "plan", required_argument, NULL, 'p' }, { "set", required_argument, NULL, 's' },
        { "dry-run", no_argument, NULL, 'n' }, { "label", required_argument, NULL, 'l' },
        { "db", required_argument, NULL, 'd' }, { "json", required_argument, NULL, 'j' },
        { "quiet", no_argument, NULL, 'q' }, { "here", no_argument, NULL, 'H' },
        { NULL, 0, NULL, 0 },
    };
    *flags = (struct plan_flags){ 0 };
    opterr = 0;
    optind = 0;
    int option;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (option) {
        case 'p': flags->path = optarg; break;
        case 's':
            if (flags->set_count == 64)
                vp_usage_error("--set: at most 64");
            flags->sets[flags->set_count++] = optarg;
            break;
        case 'n': flags->dry_run = true; break;
        case 'l': flags->label = optarg; break;
        case 'd': flags->db = optarg; break;
        case 'j': flags->json = optarg; break;
        case 'q': flags->quiet = true; break;
        case 'H': flags->here = true; break;
        default:
            vp_usage_error("%s: '%s' is not taken with a plan; accepted: --plan FILE, --set "
                           "STEP.KEY=VALUE, --dry-run, --label, --db, --json, --quiet, --here "
                           "(plan-check) (the rest goes in the plan)", who, argv[optind - 1]);
        }
    }
    if (!flags->path && optind < argc)
        flags->path = argv[optind++];
    if (!flags->path)
        vp_usage_error("%s: accepted: a plan file (--plan FILE)", who);
    if (optind < argc)
        vp_usage_error("%s: '%s': benchmarks go in the plan's steps (bench = ...)", who,
                       argv[optind]);
}

/* A plan ready to run: its file, and per step its command, request and built plan. */
struct prepared {
    struct plan_file file;
    struct command commands[MAX_STEPS];
    struct vp_run_request requests[MAX_STEPS];
    struct vp_plan plans[MAX_STEPS];
    const char *steps[MAX_STEPS];
    size_t count;
    struct vp_topology *topology;
};

static void free_prepared(struct prepared *prepared)
{
    for (size_t s = 0; s < prepared->count; s++)
        vp_plan_free(&prepared->plans[s]);
    vp_topology_free(prepared->topology);
}

/* The plan read, --set applied, every step checked against run's parser and plan
 * builder, and when here is true against this machine too (its sources, paths, peers and
 * CPUs: what a run needs, and a plan made for other machines may not find here). */
static size_t check_plan(struct plan_file *file, const struct plan_flags *flags, bool here,
                         struct command *commands, const char **steps,
                         struct vp_run_request *requests, struct vp_plan *plans,
                         struct vp_topology **topology)
{
    char err_text[VP_ERROR_LEN];
    char *text = read_plan_text(flags->path, err_text, sizeof err_text);
    if (!text)
        vp_usage_error("%s", err_text);
    parse_plan(file, flags->path, text);
    for (size_t i = 0; i < flags->set_count; i++)
        apply_set(file, flags->sets[i]);
    size_t step_count = build_commands(file, commands, steps);
    char err[VP_ERROR_LEN + 4200];
    if (vp_topology_load(topology, NULL, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    for (size_t s = 0; s < step_count; s++) {
        blame(file, NULL, steps[s]);
        vp_run_parse(&requests[s], commands[s].argc, commands[s].argv);
        if (vp_plan_build(&requests[s].plan, &plans[s], err, sizeof err) != 0 ||
            (here && vp_plan_check(&plans[s], *topology, err, sizeof err) != 0))
            vp_usage_error("%s", err);
    }
    vp_set_usage_error_hook(NULL);
    return step_count;
}

static void print_command(FILE *out, const struct command *command)
{
    fputs("virtperf", out);
    for (int i = 0; i < command->argc; i++)
        fprintf(out, " %s", command->argv[i]);
    fputc('\n', out);
}

static void print_notes(FILE *out, const struct command *commands, size_t count)
{
    for (size_t s = 0; s < count; s++)
        for (size_t n = 0; n < commands[s].note_count; n++)
            fprintf(out, "note: %s\n", commands[s].notes[n]);
}

/* The text kept with the run: the file, then the --set lines that changed it. */
static char *kept_text(const struct plan_file *file, const struct plan_flags *flags)
{
    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        abort();
    fprintf(out, "; plan %s\n%s", file->path, file->text);
    for (size_t i = 0; i < flags->set_count; i++)
        fprintf(out, "\n; --set %s", flags->sets[i]);
    fclose(out);
    return text;
}

static void prepare_plan(struct prepared *prepared, const struct plan_flags *flags, bool here)
{
    prepared->count = check_plan(&prepared->file, flags, here, prepared->commands,
                                 prepared->steps, prepared->requests, prepared->plans,
                                 &prepared->topology);
}

int vp_run_wants_plan(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--plan") == 0 || strncmp(argv[i], "--plan=", 7) == 0)
            return 1;
    return 0;
}

int cmd_plan_check(int argc, char **argv)
{
    struct plan_flags flags;
    parse_flags(argc, argv, &flags, "plan-check");
    static struct prepared prepared;
    prepare_plan(&prepared, &flags, flags.here);
    size_t count = prepared.count, points = 0;
    for (size_t s = 0; s < count; s++)
        points += prepared.plans[s].count;
    printf("%s: %zu step%s, %zu result%s: ok%s\n", flags.path, count, count == 1 ? "" : "s",
           points, points == 1 ? "" : "s",
           flags.here ? ", and runnable here" : " (--here also checks this machine: sources, "
                                                "paths, peers, CPUs)");
    print_notes(stdout, prepared.commands, count);
    free_prepared(&prepared);
    return 0;
}

/* The run's own flags: the command line's, else [global]'s. */
static void session_flags_of(const struct plan_file *file, const struct plan_flags *flags,
                             struct vp_run_request *request)
{
    const struct entry *global;
    request->label = flags->label ? flags->label
                     : (global = find(file, "global", "label")) ? global->value : NULL;
    request->db = flags->db ? flags->db
                  : (global = find(file, "global", "db")) ? global->value : NULL;
    request->json = flags->json ? flags->json
                    : (global = find(file, "global", "json")) ? global->value : NULL;
    request->quiet = flags->quiet ||
                     ((global = find(file, "global", "quiet")) && strcmp(global->value, "on") == 0);
    if (request->label && (!*request->label || strlen(request->label) > 128))
        vp_usage_error("--label: accepted: 1 to 128 characters");
}

static struct vp_run_request session_request_of(const struct prepared *prepared,
                                                const struct plan_flags *flags)
{
    struct vp_run_request request = prepared->requests[0];
    session_flags_of(&prepared->file, flags, &request);
    return request;
}

char *vp_plan_read(int argc, char **argv, bool read, char *err, size_t err_len)
{
    struct plan_flags flags;
    parse_flags(argc, argv, &flags, "run");
    return read ? read_plan_text(flags.path, err, err_len) : NULL;
}

void vp_plan_steps_build(int argc, char **argv, char *text, void (*refusal)(const char *),
                         struct vp_plan_steps *out)
{
    struct plan_flags flags;
    static struct plan_file file;
    static struct command commands[MAX_STEPS];
    plan_refusal = refusal;
    steps_for_mpi = true;
    parse_flags(argc, argv, &flags, "run");
    if (flags.dry_run || flags.here)
        vp_usage_error("%s: not taken by virtperf-mpi; accepted: virtperf run --plan FILE "
                       "--dry-run, virtperf plan-check FILE --here", flags.dry_run ? "--dry-run"
                                                                          : "--here");
    parse_plan(&file, flags.path, text);
    for (size_t i = 0; i < flags.set_count; i++)
        apply_set(&file, flags.sets[i]);
    *out = (struct vp_plan_steps){ .count = 0 };
    out->count = build_commands(&file, commands, out->names);
    for (size_t s = 0; s < out->count; s++) {
        out->argc[s] = commands[s].argc;
        out->argv[s] = commands[s].argv;
    }
    session_flags_of(&file, &flags, &out->session);
    out->kept_text = kept_text(&file, &flags);
}

int vp_run_plan(int argc, char **argv)
{
    struct plan_flags flags;
    parse_flags(argc, argv, &flags, "run");
    static struct prepared prepared;
    prepare_plan(&prepared, &flags, !flags.dry_run);
    struct vp_run_request session_request = session_request_of(&prepared, &flags);
    if (flags.dry_run) {
        for (size_t s = 0; s < prepared.count; s++) {
            printf("# [%s]\n", prepared.steps[s]);
            print_command(stdout, &prepared.commands[s]);
        }
        print_notes(stdout, prepared.commands, prepared.count);
        free_prepared(&prepared);
        return 0;
    }
    unsigned total_reps = 0;
    for (size_t s = 0; s < prepared.count; s++)
        total_reps += prepared.plans[s].total_reps;
    json_t *host = vp_sysinfo_collect(prepared.topology);
    char *command_line = vp_run_command_line("virtperf run", argc, argv);
    struct vp_run_session session;
    vp_run_session_open(&session, &session_request);
    vp_run_session_begin(&session, host, command_line);
    free(command_line);
    json_decref(host);
    char *text = kept_text(&prepared.file, &flags), err[VP_ERROR_LEN];
    if (vp_store_set_run_plan(session.store, session.run_id, text, err, sizeof err) != 0)
        fprintf(stderr, "virtperf: the plan's text was not kept: %s\n", err);
    free(text);
    print_notes(session.table, prepared.commands, prepared.count);
    vp_engine_catch_signals();
    struct vp_progress progress;
    vp_progress_init(&progress, total_reps, !session_request.quiet);
    for (size_t s = 0; s < prepared.count && !vp_engine_interrupted(); s++) {
        fprintf(session.table, "step [%s]\n\n", prepared.steps[s]);
        vp_run_points(&session, &prepared.requests[s], &prepared.plans[s], prepared.topology,
                      &progress, prepared.steps[s]);
    }
    int exit_status = vp_run_session_end(&session, vp_engine_interrupted());
    free_prepared(&prepared);
    return exit_status;
}
