/* Run's flag table and the parser it drives (run_flags.h). */
#include "run/run_flags.h"

#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench.h"
#include "core/limits.h"
#include "core/units.h"
#include "engine/layout.h"
#include "render/roff.h"

int vp_run_flag_refuse(char *err, size_t err_len, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(err, err_len, format, args);
    va_end(args);
    return -1;
}

int vp_run_flag_whole(const char *flag, const char *text, unsigned min, unsigned max,
                      unsigned *value, char *err, size_t err_len)
{
    uint64_t parsed;
    if (vp_parse_count(text, &parsed) != 0 || parsed < min || parsed > max)
        return vp_run_flag_refuse(err, err_len, "%s: '%s' is not valid; accepted: a whole number from %u "
                      "to %u", flag, text, min, max);
    *value = (unsigned)parsed;
    return 0;
}

static int take_jobs(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)err, (void)len;
    request->plan.jobs_text = value;
    return 0;
}

static int take_pin(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)err, (void)len;
    request->plan.pin = value;
    return 0;
}

/* --reps N, or auto[:MAX]: repeat until the headline's 95% interval is within --target,
 * from VP_AUTO_REPS_MIN to MAX (VP_AUTO_REPS_MAX) repetitions. */
static int take_reps(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    request->plan.reps_given = true;
    request->plan.reps_auto = strncmp(value, "auto", 4) == 0 && (!value[4] || value[4] == ':');
    if (!request->plan.reps_auto)
        return vp_run_flag_whole("--reps", value, 1, VP_MAX_REPS, &request->plan.reps, err, len);
    request->plan.reps = VP_AUTO_REPS_MAX;
    if (value[4] && (vp_run_flag_whole("--reps auto:MAX", value + 5, VP_AUTO_REPS_MIN, VP_MAX_REPS,
                                &request->plan.reps, err, len) != 0))
        return -1;
    return 0;
}

static int take_target(struct vp_run_request *request, const char *value, char *err,
                       size_t len)
{
    char *end;
    double percent = strtod(value, &end);
    if (end == value || (*end && strcmp(end, "%") != 0) || !(percent >= 0.1 && percent <= 50))
        return vp_run_flag_refuse(err, len, "--target: '%s' is not valid; accepted: the 95%% interval's "
                      "half-width as a percentage of the mean, 0.1 to 50 (2 or 2%%)", value);
    request->plan.reps_target = percent / 100;
    return 0;
}

static int take_warmup(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    request->plan.warmup_given = true;
    return vp_run_flag_whole("--warmup", value, 0, VP_MAX_WARMUP, &request->plan.warmup, err, len);
}

static int take_duration(struct vp_run_request *request, const char *value, char *err,
                         size_t len)
{
    double *duration = &request->plan.duration;
    if (vp_parse_duration(value, duration) != 0 || *duration < 0.001 || *duration > 86400)
        return vp_run_flag_refuse(err, len, "--duration: '%s' is not valid; accepted: 1ms to 24h, such as "
                      "10s, 500ms or 2min", value);
    return 0;
}

static int take_label(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    if (!*value || strlen(value) > 128)
        return vp_run_flag_refuse(err, len, "--label: accepted: 1 to 128 characters");
    request->label = value;
    return 0;
}

static int take_db(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)err, (void)len;
    request->db = value;
    return 0;
}

static int take_json(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)err, (void)len;
    request->json = value;
    return 0;
}

static int take_monitor_hz(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    char *end;
    request->monitor_hz = strtod(value, &end);
    if (end == value || *end || !(request->monitor_hz >= 0.1 && request->monitor_hz <= 1000))
        return vp_run_flag_refuse(err, len, "--monitor-hz: '%s' is not valid; accepted: a rate from 0.1 "
                      "to 1000 samples per second", value);
    return 0;
}

static int take_watch(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    if (request->watch_count == VP_RUN_MAX_WATCH || !*value)
        return vp_run_flag_refuse(err, len, "--watch: accepted: up to %d non-empty process names",
                      VP_RUN_MAX_WATCH);
    request->watch[request->watch_count++] = (char *)value;
    return 0;
}

static int take_quiet(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)value, (void)err, (void)len;
    request->quiet = true;
    return 0;
}

static int take_background(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    (void)err, (void)len;
    request->background = value;
    return 0;
}

static int take_help(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)value, (void)err, (void)len;
    request->help = true;
    return 0;
}

static int take_plan(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)err, (void)len;
    request->plan_path = value;
    return 0;
}

static int take_set(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    if (request->set_count == VP_RUN_MAX_SETS)
        return vp_run_flag_refuse(err, len, "--set: at most %d", VP_RUN_MAX_SETS);
    request->sets[request->set_count++] = value;
    return 0;
}

static int take_dry_run(struct vp_run_request *request, const char *value, char *err,
                        size_t len)
{
    (void)value, (void)err, (void)len;
    request->dry_run = true;
    return 0;
}

static int take_here(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)value, (void)err, (void)len;
    request->here = true;
    return 0;
}

static int take_no_guests(struct vp_run_request *request, const char *value, char *err,
                          size_t len)
{
    (void)value, (void)err, (void)len;
    request->no_guests = true;
    return 0;
}

/* --ranks SPEC: its shape here (how many ranks there are is known under mpirun only). */
static int take_ranks(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    unsigned counts[VP_MAX_RANKS];
    size_t count_n;
    if (vp_parse_jobs_spec(value, VP_MAX_RANKS, counts, VP_MAX_RANKS, &count_n) != 0)
        return vp_run_flag_refuse(err, len, "--ranks: '%s' is not valid; accepted: N, a list 1,2,4 or a "
                      "range 1..8 (increasing, 1 to the ranks mpirun starts)", value);
    request->ranks = value;
    return 0;
}

static int take_topology(struct vp_run_request *request, const char *value, char *err,
                         size_t len)
{
    enum vp_topology_kind kind;
    if (vp_topology_parse(value, &kind, err, len) != 0)
        return -1;
    request->topology = value;
    return 0;
}

static int take_start_with(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    if (strcmp(value, "instant") != 0 && strcmp(value, "barrier") != 0)
        return vp_run_flag_refuse(err, len, "--start-with: '%s' is not valid; accepted: instant or barrier",
                      value);
    request->start_with = value;
    return 0;
}

/* Every flag but the members' (member_flags.c). */
static const struct vp_run_flag run_flags[] = {
    { "jobs", "SPEC", VP_SCOPE_STEP, "job counts: 4, 1,2,4 or 1..8 (a list is a sweep)  [1]",
      "Job counts: \\fB4\\fR, \\fB1,2,4\\fR or \\fB1..8\\fR. A list is a sweep: one result "
      "per count. Default 1.", take_jobs },
    { "pin", "SPEC", VP_SCOPE_STEP,
      "none | compact | spread | CPU list such as 0,2,4-6  [none]\n"
      "({per-cpu}: one job on each CPU this run may use, pinned)",
      "\\fBnone\\fR (default), \\fBcompact\\fR (fill the cores of one package first),\n"
      "\\fBspread\\fR (round-robin over packages, then cores), or a CPU list such as\n"
      "\\fB0,2,4\\-6\\fR (one CPU per job, cycling). The binding is read back inside each job.",
      take_pin },
    { "reps", "N|auto[:MAX]", VP_SCOPE_STEP,
      "measured repetitions, 1..{max-reps}  [5; {watch}: 1]; auto: until the headline's\n"
      "95% interval is within --target, 5 to MAX [30] repetitions (one host only)",
      "Measured repetitions (default 5; comparisons need at least 5), after the warm-up.\n"
      "\\fBauto\\fR repeats until the 95% interval of the headline metric (the benchmark's\n"
      "first) is within \\fB\\-\\-target\\fR of its mean, at least 5 times and at most MAX\n"
      "(\\fBauto:50\\fR; default 30), as pbench and the Phoronix suite do; a result that\n"
      "did not get there says so. Not under virtperf\\-mpi.",
      take_reps },
    { "target", "PCT", VP_SCOPE_STEP,
      "with --reps auto: the 95% interval's half-width to reach, % of the mean  [2]",
      "With \\fB\\-\\-reps auto\\fR: the half-width of the 95% interval of the headline\n"
      "metric (the benchmark's first) to reach, as a percentage of its mean (default 2).",
      take_target },
    { "warmup", "N", VP_SCOPE_STEP, "unmeasured repetitions first, 0..100  [1; {watch}: 0]",
      "Unmeasured warm-up repetitions before the measured ones (default 1).", take_warmup },
    { "duration", "D", VP_SCOPE_STEP,
      "time per repetition for time-bound benchmarks (10s, 500ms)",
      "Time per repetition for time-bound benchmarks (those whose BENCHMARKS entry lists\n"
      "\\fB\\-\\-duration\\fR), such as \\fB10s\\fR or \\fB500ms\\fR.", take_duration },
    { "label", "L", VP_SCOPE_SESSION, "tag the run (bare, kvm, xen-pv ...)", NULL, take_label },
    { "db", "PATH|URL", VP_SCOPE_SESSION,
      "results database: a SQLite file or postgresql://USER@HOST/DB  [$VIRTPERF_DB or "
      "~/.local/share/virtperf/results.db]",
      "The results database: a SQLite file (made with its directories on first use), or a\n"
      "PostgreSQL site store, \fBpostgresql://\fR[\fIUSER\fR\fB@\fR]\fIHOST\fR[\fB:\fR\fIPORT\fR]\fB/\fR\fIDATABASE\fR,\n"
      "shared by many hosts (its password from ~/.pgpass, \fBPGPASSFILE\fR or \fBPGPASSWORD\fR,\n"
      "never in the URL). Default: \fB$VIRTPERF_DB\fR, else ~/.local/share/virtperf/results.db.", take_db },
    { "json", "FILE|-", VP_SCOPE_SESSION, "also write the run's JSON document (- for stdout)",
      "Also write the run's JSON document; \\fB\\-\\fR is stdout (tables then go to stderr).\n"
      "Files are written whole or not at all.", take_json },
    { "monitor-hz", "HZ", VP_SCOPE_STEP, "monitor sampling rate, 0.1..1000  [10]", NULL,
      take_monitor_hz },
    { "watch", "NAME", VP_SCOPE_STEP,
      "also monitor the CPU use of processes named NAME (repeatable)",
      "Also monitor the CPU use of processes whose command name is \\fINAME\\fR (repeatable).",
      take_watch },
    { "quiet", NULL, VP_SCOPE_SESSION, "no progress line", NULL, take_quiet },
    { "background", "BENCH", VP_SCOPE_COMMAND,
      "run BENCH (a watch: net.probe) beside all the others, from\n"
      "before the first to after the last (at most 1 h)",
      "Run \\fIBENCH\\fR, a watch that runs until stopped (\\fBnet.probe\\fR), in a process of\n"
      "its own beside every other benchmark of the run, from before the first to after the\n"
      "last (at most one hour, one job): an interruption measured while the machine is busy.\n"
      "It takes the run's benchmark options like the others and is stored as one result more.",
      take_background },
    { "plan", "FILE", VP_SCOPE_PLAN,
      "run a plan file instead (INI: [global] and one section per\n"
      "step, keys named as these flags; see plans/); with it:",
      "Run a plan file instead of a command line (see PLAN FILES); with it only\n"
      "\\fB\\-\\-set\\fR, \\fB\\-\\-dry\\-run\\fR, \\fB\\-\\-label\\fR, \\fB\\-\\-db\\fR, "
      "\\fB\\-\\-json\\fR\nand \\fB\\-\\-quiet\\fR are taken.", take_plan },
    { "set", "STEP.KEY=V", VP_SCOPE_PLAN, "override or add a key of the plan (repeatable)",
      "Override or add one key of the plan (\\fBglobal.reps=3\\fR, \\fBdisk.size=1g\\fR);\n"
      "repeatable; kept with the stored plan text.", take_set },
    { "dry-run", NULL, VP_SCOPE_PLAN, "print the command lines the plan stands for, run nothing",
      "Print the \\fBvirtperf run\\fR command line each step of the plan stands for, and run "
      "nothing.", take_dry_run },
    { "here", NULL, VP_SCOPE_PLAN,
      "(plan-check) also check the plan against this machine", NULL, take_here },
    { "no-guests", NULL, VP_SCOPE_PLAN,
      "run every step on this host: the plan's guests, containers and\n"
      "and-host keys left out (each said in a note)",
      "Run every step of the plan on this host as written: its \\fBguests\\fR, "
      "\\fBcontainers\\fR\nand \\fBand\\-host\\fR keys are left out, each said in a note, so a "
      "study plan\nruns where libvirt or podman does not.", take_no_guests },
    { "ranks", "SPEC", VP_SCOPE_MPI,
      "run on the first k ranks, for each k of SPEC (1..4, 1,2,4),\n"
      "the others idle  [every rank]", NULL, take_ranks },
    { "topology", "T", VP_SCOPE_MPI | VP_SCOPE_FLEET,
      "network benchmarks between ranks (virtperf-mpi) or between\n"
      "this host (rank 0) and its guests or containers (1..k):\n"
      "matrix (each ordered pair alone), pairs (rank i to i+k/2 at\n"
      "once), fan-in (every rank to rank 0 at once), fan-out (the\n"
      "same, rank 0 sending), outside (rank 0 to each rank in turn);\n"
      "with guests, matrix --peer HOST adds that host's server as\n"
      "one more end [mpi: each rank to its own loopback server;\n"
      "guests: fan-in, net.probe outside]", NULL, take_topology },
    { "start-with", "S", VP_SCOPE_MPI,
      "instant: each repetition at an instant rank 0 picks, on\n"
      "every rank's clock; barrier: when MPI_Barrier returns (for\n"
      "comparison; blind to a dead rank)  [instant]", NULL, take_start_with },
};
static const struct vp_run_flag help_flag = {
    "help", NULL, VP_SCOPE_COMMAND, "this text", NULL, take_help
};

/* The whole table, in --help's order: run_flags, the members' rows, then --help. */
static size_t flag_count(void)
{
    return sizeof run_flags / sizeof run_flags[0] + vp_member_flag_count + 1;
}

static const struct vp_run_flag *flag_at(size_t i)
{
    size_t own = sizeof run_flags / sizeof run_flags[0];
    return i < own                        ? &run_flags[i]
           : i < own + vp_member_flag_count ? &vp_member_flags[i - own]
                                          : &help_flag;
}

const struct vp_run_flag *vp_run_flag_find(const char *name)
{
    for (size_t i = 0; i < flag_count(); i++)
        if (strcmp(flag_at(i)->name, name) == 0)
            return flag_at(i);
    return NULL;
}

int vp_run_words_without(int argc, char **argv, unsigned scope, char **out)
{
    int count = 0;
    for (int i = 0; i < argc; i++) {
        char name[64] = "";
        if (strncmp(argv[i], "--", 2) == 0)
            snprintf(name, sizeof name, "%.*s", (int)strcspn(argv[i] + 2, "="), argv[i] + 2);
        const struct vp_run_flag *flag = name[0] ? vp_run_flag_find(name) : NULL;
        if (!flag || (flag->scope & ~scope) != 0) {
            out[count++] = argv[i];
            continue;
        }
        if (flag->argument && !strchr(argv[i], '='))
            i++; /* its value, the next word */
    }
    out[count] = NULL;
    return count;
}

int vp_run_take(struct vp_run_request *request, const struct vp_run_flag *flag,
                const char *value, char *err, size_t err_len)
{
    if (!flag->argument && strcmp(value, "on") != 0 && strcmp(value, "true") != 0)
        return 0;
    return flag->take(request, value, err, err_len);
}

/* Every distinct option of every benchmark (by name), for getopt_long. */
static size_t collect_bench_options(const struct vp_option **found, size_t cap)
{
    size_t count = 0;
    for (size_t b = 0; b < vp_bench_count; b++) {
        for (size_t o = 0; o < vp_benches[b]->option_count; o++) {
            const struct vp_option *option = &vp_benches[b]->options[o];
            bool seen = false;
            for (size_t i = 0; i < count; i++)
                seen = seen || strcmp(found[i]->name, option->name) == 0;
            if (!seen && count < cap)
                found[count++] = option;
        }
    }
    return count;
}

void vp_run_flag_names(unsigned scopes, const char *prefix, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < flag_count() && used < len; i++)
        if (flag_at(i)->scope & scopes)
            used += (size_t)snprintf(buf + used, len - used, "%s%s%s", used ? ", " : "",
                                     prefix, flag_at(i)->name);
}

/* The refusal of a word getopt did not take. */
static int refuse_word(const char *command, const char *word, unsigned scopes, char *err,
                       size_t err_len)
{
    char name[64];
    snprintf(name, sizeof name, "%s", word + (strncmp(word, "--", 2) == 0 ? 2 : 0));
    name[strcspn(name, "=")] = '\0';
    const struct vp_run_flag *flag = vp_run_flag_find(name);
    if (!(scopes & VP_SCOPE_STEP)) {
        char accepted[400];
        vp_run_flag_names(scopes, "--", accepted, sizeof accepted);
        return vp_run_flag_refuse(err, err_len, "%s: '%s' is not taken with a plan; accepted: %s (the "
                      "rest goes in the plan)", command, word, accepted);
    }
    if (flag && flag->scope == VP_SCOPE_MPI)
        return vp_run_flag_refuse(err, err_len, "%s: --%s is virtperf-mpi's; accepted: mpirun -np N "
                      "virtperf-mpi run ... --%s, or a plan's %s key", command, name, name, name);
    if (flag && flag->scope == VP_SCOPE_PLAN)
        return vp_run_flag_refuse(err, err_len, "%s: --%s goes with --plan FILE only", command, name);
    return vp_run_flag_refuse(err, err_len, "%s: unknown or incomplete option '%s'; see 'virtperf run "
                  "--help' and 'virtperf list BENCH'", command, word);
}

#define FLAG_BASE 1000 /* getopt's codes: above any character it returns ('?', ':') */

int vp_run_parse(struct vp_run_request *request, int argc, char **argv, unsigned scopes,
                 char *err, size_t err_len)
{
    const struct vp_option *bench_options[VP_MAX_OPTIONS * 16];
    size_t bench_option_count = scopes & VP_SCOPE_STEP
                                    ? collect_bench_options(bench_options, VP_MAX_OPTIONS * 16)
                                    : 0;
    struct option *options = calloc(flag_count() + bench_option_count + 1, sizeof *options);
    if (!options)
        abort();
    size_t count = 0;
    for (size_t i = 0; i < flag_count(); i++)
        if (flag_at(i)->scope & scopes)
            options[count++] = (struct option){ flag_at(i)->name,
                                                flag_at(i)->argument ? required_argument
                                                                         : no_argument,
                                                NULL, FLAG_BASE + (int)i };
    int bench_base = FLAG_BASE + (int)flag_count();
    for (size_t i = 0; i < bench_option_count; i++)
        options[count++] = (struct option){
            bench_options[i]->name,
            vp_option_is_flag(bench_options[i]) ? optional_argument : required_argument, NULL,
            bench_base + (int)i };

    *request = (struct vp_run_request){ .monitor_hz = 10 };
    struct vp_plan_request *plan = &request->plan;
    int status = 0;
    opterr = 0;
    optind = 0; /* a plan file parses one command line per step */
    int option;
    while (status == 0 && (option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (option == '?' || option == ':')
            status = refuse_word(argv[0], argv[optind - 1], scopes, err, err_len);
        else if (option < bench_base)
            status = flag_at(option - FLAG_BASE)->take(request, optarg, err, err_len);
        else if (plan->option_count == VP_PLAN_MAX_OPTIONS)
            status = vp_run_flag_refuse(err, err_len, "run: too many benchmark options (at most %d)",
                            VP_PLAN_MAX_OPTIONS);
        else
            plan->options[plan->option_count++] = (struct vp_plan_option){
                bench_options[option - bench_base]->name, optarg ? optarg : "on" };
    }
    free(options);
    if (status != 0)
        return -1;
    size_t words = (size_t)(argc - optind);
    if (words + (request->background != NULL) > VP_RUN_MAX_WORDS)
        return vp_run_flag_refuse(err, err_len, "%s: at most %d benchmarks on one command line", argv[0],
                      VP_RUN_MAX_WORDS - 1);
    memcpy(request->words, argv + optind, words * sizeof *request->words);
    if (request->background) /* its options are the run's: it joins the plan's words */
        request->words[words++] = (char *)request->background;
    plan->words = request->words;
    plan->word_count = words;
    return 0;
}

/* The benchmarks with a property, comma-separated ("time.timer, ..."). */
static void names_where(bool (*has)(const struct vp_bench *), char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t b = 0; b < vp_bench_count; b++) {
        if (vp_benches[b]->hidden || !has(vp_benches[b]))
            continue;
        strncat(buf, buf[0] ? ", " : "", len - strlen(buf) - 1);
        strncat(buf, vp_benches[b]->name, len - strlen(buf) - 1);
    }
}

static bool per_cpu(const struct vp_bench *bench) { return bench->one_job_per_cpu; }
static bool watches(const struct vp_bench *bench) { return bench->one_observation; }
static bool quick(const struct vp_bench *bench) { return bench->in_quick_suite; }

/* text with {quick}, {per-cpu}, {watch} and {max-reps} replaced. */
static void expand(const char *text, FILE *out)
{
    static const char *const names[] = { "{quick}", "{per-cpu}", "{watch}", "{max-reps}" };
    static bool (*const lists[])(const struct vp_bench *) = { quick, per_cpu, watches, NULL };
    while (*text) {
        size_t n = 0;
        while (n < 4 && strncmp(text, names[n], strlen(names[n])) != 0)
            n++;
        if (n == 4) {
            fputc(*text++, out);
            continue;
        }
        char list[256];
        if (lists[n])
            names_where(lists[n], list, sizeof list);
        else
            snprintf(list, sizeof list, "%d", VP_MAX_REPS);
        fputs(list, out);
        text += strlen(names[n]);
    }
}

void vp_run_print_flags(FILE *out, unsigned scopes, unsigned listed)
{
    for (size_t i = 0; i < flag_count(); i++) {
        const struct vp_run_flag *flag = flag_at(i);
        if (!(flag->scope & scopes) || (flag->scope & listed))
            continue;
        char head[40];
        snprintf(head, sizeof head, "--%s%s%s", flag->name, flag->argument ? " " : "",
                 flag->argument ? flag->argument : "");
        fprintf(out, "  %-18s ", head);
        for (const char *line = flag->help; *line;) {
            size_t len = strcspn(line, "\n");
            char piece[200];
            snprintf(piece, sizeof piece, "%.*s", (int)len, line);
            expand(piece, out);
            fputc('\n', out);
            line += len + (line[len] == '\n');
            if (*line)
                fprintf(out, "%21s", "");
        }
    }
}

void vp_run_print_usage(FILE *out, unsigned listed)
{
    fputs("usage: virtperf run [BENCH...] [options] [--BENCH-OPTION=VALUE...]\n"
          "\n"
          "Runs each BENCH (a name such as mem.stream, a family such as mem, disk or vcost.*, a\n"
          "preset such as dd or iozone) at every job count of --jobs, stores each result and\n"
          "prints a table. No BENCH: the quick suite (", out);
    expand("{quick}", out);
    fputs(").\n'virtperf list BENCH' shows a benchmark's own options; 'virtperf list' the "
          "presets.\n\n", out);
    vp_run_print_flags(out, VP_SCOPE_SESSION | VP_SCOPE_STEP | VP_SCOPE_PLAN |
                                VP_SCOPE_COMMAND | VP_SCOPE_FLEET, listed);
}

void vp_run_print_manual(FILE *out)
{
    fputs(".SH RUN OPTIONS\n", out);
    for (size_t i = 0; i < flag_count(); i++) {
        const struct vp_run_flag *flag = flag_at(i);
        if (strcmp(flag->name, "help") == 0)
            continue;
        if (flag->manual) {
            vp_roff_flag(out, flag->name, flag->argument, flag->manual);
            continue;
        }
        char *help;
        size_t len;
        FILE *text = open_memstream(&help, &len);
        if (!text)
            abort();
        if (flag->scope == VP_SCOPE_MPI)
            fputs("virtperf-mpi run (and a plan's step): ", text);
        expand(flag->help, text);
        fclose(text);
        vp_roff_flag_text(out, flag->name, flag->argument, help);
        free(help);
    }
    fputs(".PP\nBenchmark options (\\fB\\-\\-size=256m\\fR, \\fB\\-\\-passes=200\\fR, "
          "\\fB\\-\\-mode=byte\\fR ...)\ncome from each benchmark's table: see \\fBvirtperf "
          "list\\fR \\fIBENCH\\fR. Sizes take\nk, m, g, t (powers of 1024); counts take k, m, g "
          "(powers of 1000).\n", out);
}
