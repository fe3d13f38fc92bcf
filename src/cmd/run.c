/* `virtperf run`: parses the run's flags and each benchmark's own options, refuses bad
 * input before anything starts, then runs every point (bench x sweep value x job
 * count), storing and printing each result as it finishes. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/presets.h"
#include "cmd/common.h"
#include "core/engine.h"
#include "core/sysinfo.h"
#include "core/topology.h"
#include "core/units.h"
#include "report/table.h"

#define MAX_SELECTED 64
#define MAX_GIVEN_OPTIONS 64
#define MAX_WATCH 8

static const char run_usage[] =
    "usage: virtperf run [BENCH...] [options] [--BENCH-OPTION=VALUE...]\n"
    "\n"
    "Runs each BENCH (a name such as mem.stream, a family such as mem, disk or vcost.*, a\n"
    "preset such as dd or iozone; none: the quick suite of cpu and memory benchmarks) at\n"
    "every job count of --jobs, stores each result and prints a table. 'virtperf list\n"
    "BENCH' shows a benchmark's own options; 'virtperf list' the presets.\n"
    "\n"
    "  --jobs SPEC        job counts: 4, 1,2,4 or 1..8 (a list is a sweep)  [1]\n"
    "  --pin SPEC         none | compact | spread | CPU list such as 0,2,4-6  [none]\n"
    "                     (time.timer: one job on each CPU this run may use, pinned)\n"
    "  --reps N           measured repetitions, 1..1000  [5; time.drift: 1]\n"
    "  --warmup N         unmeasured repetitions first, 0..100  [1; time.drift: 0]\n"
    "  --duration D       time per repetition for time-bound benchmarks (10s, 500ms)\n"
    "  --label L          tag the run (bare, kvm, xen-pv ...)\n"
    "  --db PATH          results database  [$VIRTPERF_DB or ~/.local/share/virtperf/results.db]\n"
    "  --json FILE|-      also write the run's JSON document (- for stdout)\n"
    "  --monitor-hz HZ    monitor sampling rate, 0.1..1000  [10]\n"
    "  --watch NAME       also monitor the CPU use of processes named NAME (repeatable)\n"
    "  --quiet            no progress line\n"
    "  --help             this text\n";

enum core_option {
    OPT_JOBS = 1000, OPT_PIN, OPT_REPS, OPT_WARMUP, OPT_DURATION, OPT_LABEL, OPT_DB, OPT_JSON,
    OPT_MONITOR_HZ, OPT_WATCH, OPT_QUIET, OPT_HELP, OPT_BENCH_BASE,
};

struct given_option {
    const char *name;
    const char *value;
};

struct run_request {
    const struct vp_bench *benches[MAX_SELECTED];
    size_t bench_count;
    unsigned job_counts[VP_MAX_JOBS];
    size_t job_count_count;
    const char *jobs_text, *pin, *label, *db, *json;
    bool jobs_given, pin_given;
    unsigned reps, warmup;
    bool reps_given, warmup_given;
    double duration, monitor_hz;
    char *watch[MAX_WATCH];
    size_t watch_count;
    bool quiet;
    struct given_option given[MAX_GIVEN_OPTIONS];
    size_t given_count;
};

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

static unsigned parse_whole(const char *flag, const char *text, unsigned min, unsigned max)
{
    uint64_t value;
    if (vp_parse_count(text, &value) != 0 || value < min || value > max)
        vp_usage_error("%s: '%s' is not valid; accepted: a whole number from %u to %u", flag,
                       text, min, max);
    return (unsigned)value;
}

/* A preset's options go before the user's, so the user's override them. */
static void apply_preset(struct run_request *request, const struct vp_preset *preset)
{
    size_t added = 0;
    while (preset->options[added].name)
        added++;
    if (request->given_count + added > MAX_GIVEN_OPTIONS)
        vp_usage_error("run: too many benchmark options (at most %d)", MAX_GIVEN_OPTIONS);
    memmove(request->given + added, request->given, request->given_count * sizeof *request->given);
    for (size_t i = 0; i < added; i++)
        request->given[i] = (struct given_option){ preset->options[i].name, preset->options[i].value };
    request->given_count += added;
    for (size_t b = 0; preset->benches[b] && request->bench_count < MAX_SELECTED; b++)
        request->benches[request->bench_count++] = vp_bench_find(preset->benches[b]);
}

static void select_benches(struct run_request *request, int count, char **words)
{
    for (int i = 0; i < count; i++) {
        const struct vp_preset *preset = vp_preset_find(words[i]);
        if (preset) {
            apply_preset(request, preset);
            continue;
        }
        size_t before = request->bench_count;
        size_t word_len = strlen(words[i]);
        if (word_len > 2 && strcmp(words[i] + word_len - 2, ".*") == 0)
            word_len -= 2; /* "vcost.*" is the family vcost */
        for (size_t b = 0; b < vp_bench_count; b++) {
            const char *name = vp_benches[b]->name;
            bool family = strncmp(name, words[i], word_len) == 0 && name[word_len] == '.';
            bool exact = strlen(name) == word_len && strncmp(name, words[i], word_len) == 0;
            if ((exact || family) && request->bench_count < MAX_SELECTED)
                request->benches[request->bench_count++] = vp_benches[b];
        }
        if (request->bench_count == before) {
            char known[1024] = "";
            for (size_t b = 0; b < vp_bench_count; b++) {
                strncat(known, b ? ", " : "", sizeof known - strlen(known) - 1);
                strncat(known, vp_benches[b]->name, sizeof known - strlen(known) - 1);
            }
            vp_usage_error("unknown benchmark '%s'; accepted: %s, a family such as mem or "
                           "vcost.*, or a preset (dd, iozone)", words[i], known);
        }
    }
    if (request->bench_count == 0)
        for (size_t b = 0; b < vp_bench_count; b++)
            if (vp_benches[b]->in_quick_suite)
                request->benches[request->bench_count++] = vp_benches[b];
}

static void parse_request(struct run_request *request, int argc, char **argv)
{
    const struct vp_option *bench_options[VP_MAX_OPTIONS * 16];
    size_t bench_option_count = collect_bench_options(bench_options, VP_MAX_OPTIONS * 16);
    static const struct option core[] = {
        { "jobs", required_argument, NULL, OPT_JOBS },
        { "pin", required_argument, NULL, OPT_PIN },
        { "reps", required_argument, NULL, OPT_REPS },
        { "warmup", required_argument, NULL, OPT_WARMUP },
        { "duration", required_argument, NULL, OPT_DURATION },
        { "label", required_argument, NULL, OPT_LABEL },
        { "db", required_argument, NULL, OPT_DB },
        { "json", required_argument, NULL, OPT_JSON },
        { "monitor-hz", required_argument, NULL, OPT_MONITOR_HZ },
        { "watch", required_argument, NULL, OPT_WATCH },
        { "quiet", no_argument, NULL, OPT_QUIET },
        { "help", no_argument, NULL, OPT_HELP },
    };
    size_t core_count = sizeof core / sizeof core[0];
    struct option *options = calloc(core_count + bench_option_count + 1, sizeof *options);
    if (!options)
        abort();
    memcpy(options, core, sizeof core);
    for (size_t i = 0; i < bench_option_count; i++)
        options[core_count + i] = (struct option){
            bench_options[i]->name,
            vp_option_is_flag(bench_options[i]) ? optional_argument : required_argument, NULL,
            OPT_BENCH_BASE + (int)i };

    *request = (struct run_request){ .jobs_text = "1", .pin = "none", .reps = 5, .warmup = 1,
                                     .monitor_hz = 10 };
    opterr = 0;
    int option;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (option) {
        case OPT_JOBS: request->jobs_text = optarg; request->jobs_given = true; break;
        case OPT_PIN: request->pin = optarg; request->pin_given = true; break;
        case OPT_REPS:
            request->reps = parse_whole("--reps", optarg, 1, VP_MAX_REPS);
            request->reps_given = true;
            break;
        case OPT_WARMUP:
            request->warmup = parse_whole("--warmup", optarg, 0, 100);
            request->warmup_given = true;
            break;
        case OPT_DURATION:
            if (vp_parse_duration(optarg, &request->duration) != 0 || request->duration < 0.001 ||
                request->duration > 86400)
                vp_usage_error("--duration: '%s' is not valid; accepted: 1ms to 24h, such as "
                               "10s, 500ms or 2min", optarg);
            break;
        case OPT_LABEL:
            if (!*optarg || strlen(optarg) > 128)
                vp_usage_error("--label: accepted: 1 to 128 characters");
            request->label = optarg;
            break;
        case OPT_DB: request->db = optarg; break;
        case OPT_JSON: request->json = optarg; break;
        case OPT_MONITOR_HZ: {
            char *end;
            request->monitor_hz = strtod(optarg, &end);
            if (end == optarg || *end || !(request->monitor_hz >= 0.1 && request->monitor_hz <= 1000))
                vp_usage_error("--monitor-hz: '%s' is not valid; accepted: a rate from 0.1 to "
                               "1000 samples per second", optarg);
            break;
        }
        case OPT_WATCH:
            if (request->watch_count == MAX_WATCH || !*optarg)
                vp_usage_error("--watch: accepted: up to %d non-empty process names", MAX_WATCH);
            request->watch[request->watch_count++] = optarg;
            break;
        case OPT_QUIET: request->quiet = true; break;
        case OPT_HELP: fputs(run_usage, stdout); exit(0);
        case '?':
        case ':':
            vp_usage_error("run: unknown or incomplete option '%s'; see 'virtperf run --help' "
                           "and 'virtperf list BENCH'", argv[optind - 1]);
        default:
            if (request->given_count == MAX_GIVEN_OPTIONS)
                vp_usage_error("run: too many benchmark options (at most %d)", MAX_GIVEN_OPTIONS);
            request->given[request->given_count++] = (struct given_option){
                bench_options[option - OPT_BENCH_BASE]->name, optarg ? optarg : "on" };
        }
    }
    free(options);
    select_benches(request, argc - optind, argv + optind);
    if (vp_parse_jobs_spec(request->jobs_text, VP_MAX_JOBS, request->job_counts, VP_MAX_JOBS,
                           &request->job_count_count) != 0)
        vp_usage_error("--jobs: '%s' is not valid; accepted: N, a list 1,2,4 or a range 1..8 "
                       "(increasing, 1 to %d)", request->jobs_text, VP_MAX_JOBS);
}

/* Applies the given --NAME=VALUE options to one benchmark's params; returns how many
 * applied. Exits 2 on a bad value. */
static size_t apply_options(const struct run_request *request, const struct vp_bench *bench,
                            struct vp_params *params)
{
    size_t applied = 0;
    vp_params_init(params, bench->options, bench->option_count);
    for (size_t g = 0; g < request->given_count; g++) {
        int index = vp_params_find(params, request->given[g].name);
        if (index < 0)
            continue;
        char err[VP_ERROR_LEN];
        if (vp_option_parse(&bench->options[index], request->given[g].value,
                            &params->values[index], err, sizeof err) != 0)
            vp_usage_error("%s (%s)", err, bench->name);
        params->values[index].given = true;
        applied++;
    }
    return applied;
}

/* The job counts, pin spec and repetitions one benchmark runs with. A benchmark that
 * measures each CPU (one_job_per_cpu) runs, unless told otherwise, one job on each CPU
 * this run may use and pins its jobs to those CPUs; one that watches (one_observation)
 * runs one repetition without warm-up unless told otherwise; the rest take --jobs, --pin,
 * --reps and --warmup as given. */
struct bench_plan {
    const unsigned *counts;
    size_t count_count;
    const char *pin;
    unsigned reps, warmup;
    unsigned per_cpu_count;
    char per_cpu_pin[4096]; /* ranges, "0-63": long only for a scattered cpuset */
};

static void plan_bench(const struct run_request *request, const struct vp_bench *bench,
                       struct bench_plan *plan)
{
    plan->counts = request->job_counts;
    plan->count_count = request->job_count_count;
    plan->pin = request->pin;
    plan->reps = bench->one_observation && !request->reps_given ? 1 : request->reps;
    plan->warmup = bench->one_observation && !request->warmup_given ? 0 : request->warmup;
    if (!bench->one_job_per_cpu)
        return;
    vp_affinity_text(plan->per_cpu_pin, sizeof plan->per_cpu_pin);
    unsigned cpus = vp_allowed_cpus(NULL, 0);
    if (!plan->per_cpu_pin[0] || cpus == 0)
        return; /* the affinity cannot be read: as given */
    plan->per_cpu_count = cpus < VP_MAX_JOBS ? cpus : VP_MAX_JOBS;
    if (!request->jobs_given && !request->pin_given) {
        plan->counts = &plan->per_cpu_count;
        plan->count_count = 1;
    }
    if (!request->pin_given)
        plan->pin = plan->per_cpu_pin;
}

static void validate_request(const struct run_request *request)
{
    for (size_t g = 0; g < request->given_count; g++) {
        bool used = false;
        for (size_t b = 0; b < request->bench_count; b++) {
            const struct vp_bench *bench = request->benches[b];
            for (size_t o = 0; o < bench->option_count; o++)
                used = used || strcmp(bench->options[o].name, request->given[g].name) == 0;
        }
        if (!used)
            vp_usage_error("--%s: not an option of the selected benchmarks; see 'virtperf list "
                           "BENCH'", request->given[g].name);
    }
    bool timed = false;
    for (size_t b = 0; b < request->bench_count; b++) {
        const struct vp_bench *bench = request->benches[b];
        struct vp_params params;
        struct bench_plan plan;
        char err[VP_ERROR_LEN + 1200];
        apply_options(request, bench, &params);
        plan_bench(request, bench, &plan);
        unsigned max_jobs = plan.counts[plan.count_count - 1];
        if (bench->validate && bench->validate(&params, max_jobs, err, sizeof err) != 0)
            vp_usage_error("%s (%s)", err, bench->name);
        timed = timed || bench->uses_duration;
    }
    if (request->duration > 0 && !timed)
        vp_usage_error("--duration: none of the selected benchmarks is time-bound (see "
                       "'virtperf list BENCH'; cpu is)");
}

/* Number of sweep values of a benchmark's params (1 when it has none). */
static size_t sweep_length(const struct vp_bench *bench, const struct vp_params *params)
{
    if (!bench->sweep_option)
        return 1;
    return params->values[vp_params_find(params, bench->sweep_option)].list_len;
}

static char *joined_command(int argc, char **argv)
{
    size_t len = strlen("virtperf run") + 1;
    for (int i = 1; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *command = malloc(len);
    if (!command)
        abort();
    strcpy(command, "virtperf run");
    for (int i = 1; i < argc; i++) {
        strcat(command, " ");
        strcat(command, argv[i]);
    }
    return command;
}

int cmd_run(int argc, char **argv)
{
    struct run_request request;
    parse_request(&request, argc, argv);
    validate_request(&request);

    char err[VP_ERROR_LEN + 4200];
    struct vp_topology *topology;
    if (vp_topology_load(&topology, NULL, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    if (vp_pin_check(topology, request.pin, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    struct vp_json_output json_output;
    if (request.json && vp_json_output_open(&json_output, request.json, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    struct vp_store *store = vp_cli_open_store(request.db);

    json_t *host = vp_sysinfo_collect(topology);
    char *command = joined_command(argc, argv);
    int64_t run_id;
    if (vp_store_begin_run(store, request.label, command, host, &run_id, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        return 1;
    }
    free(command);
    json_decref(host);
    vp_engine_catch_signals();

    unsigned total_reps = 0;
    for (size_t b = 0; b < request.bench_count; b++) {
        struct vp_params params;
        struct bench_plan plan;
        apply_options(&request, request.benches[b], &params);
        plan_bench(&request, request.benches[b], &plan);
        total_reps += (unsigned)(sweep_length(request.benches[b], &params) *
                                 plan.count_count * (plan.reps + plan.warmup));
    }
    struct vp_progress progress;
    vp_progress_init(&progress, total_reps, !request.quiet);
    struct vp_run_settings settings = {
        .duration = request.duration, .monitor_hz = request.monitor_hz, .watch = request.watch,
        .watch_count = request.watch_count, .topology = topology, .progress = &progress,
    };
    FILE *table = request.json && json_output.to_stdout ? stderr : stdout;
    bool any_failed = false;
    fprintf(table, "run %lld%s%s\n\n", (long long)run_id, request.label ? "  label " : "",
            request.label ? request.label : "");
    for (size_t b = 0; b < request.bench_count && !vp_engine_interrupted(); b++) {
        const struct vp_bench *bench = request.benches[b];
        struct vp_params params;
        struct bench_plan plan;
        apply_options(&request, bench, &params);
        plan_bench(&request, bench, &plan);
        settings.pin_spec = plan.pin;
        settings.reps = plan.reps;
        settings.warmup = plan.warmup;
        int sweep_index = bench->sweep_option ? vp_params_find(&params, bench->sweep_option) : -1;
        size_t points = sweep_length(bench, &params);
        for (size_t p = 0; p < points && !vp_engine_interrupted(); p++) {
            if (sweep_index >= 0)
                vp_param_select(&params.options[sweep_index], &params.values[sweep_index], p);
            for (size_t j = 0; j < plan.count_count && !vp_engine_interrupted(); j++) {
                json_t *result = vp_engine_run(bench, &params, plan.counts[j], &settings);
                vp_progress_clear(&progress);
                if (vp_store_add_result(store, run_id, result, err, sizeof err) != 0)
                    fprintf(stderr, "virtperf: %s\n", err);
                vp_print_result(table, result);
                fflush(table);
                any_failed = any_failed ||
                             strcmp(json_string_value(json_object_get(result, "status")), "ok") != 0;
                json_decref(result);
            }
        }
    }
    vp_progress_clear(&progress);
    bool interrupted = vp_engine_interrupted();
    vp_store_finish_run(store, run_id, interrupted ? "interrupted" : any_failed ? "failed" : "ok");
    int exit_status = interrupted ? VP_EXIT_INTERRUPTED : any_failed ? 1 : 0;
    if (request.json) {
        json_t *document = NULL;
        if (vp_store_export_run(store, run_id, &document, err, sizeof err) != 0 ||
            vp_json_output_commit(&json_output, document, err, sizeof err) != 0) {
            fprintf(stderr, "virtperf: %s\n", err);
            exit_status = exit_status ? exit_status : 1;
        }
        json_decref(document);
    }
    fprintf(table, "stored as run %lld in the results database%s\n", (long long)run_id,
            interrupted ? " (interrupted: finished results kept)" : "");
    vp_store_close(store);
    vp_topology_free(topology);
    return exit_status;
}
