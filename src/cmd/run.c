/* `virtperf run`: parses the run's flags and each benchmark's own options into a plan
 * request, has the plan built and checked (engine/plan.c) so bad input is refused before
 * anything starts, then runs every point of the plan, storing and printing each result
 * as it finishes. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "cmd/background.h"
#include "cmd/common.h"
#include "cmd/run.h"
#include "cmd/run_plan.h"
#include "engine/engine.h"
#include "engine/plan.h"
#include "core/json.h"
#include "core/sysinfo.h"
#include "core/topology.h"
#include "core/units.h"
#include "analysis/combined.h"
#include "render/table.h"

/* The benchmarks with a flag set, comma-separated ("time.timer, ..."). */
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

void vp_run_print_usage(void)
{
    char per_cpu_names[256], watch_names[256], quick_names[256];
    names_where(per_cpu, per_cpu_names, sizeof per_cpu_names);
    names_where(watches, watch_names, sizeof watch_names);
    names_where(quick, quick_names, sizeof quick_names);
    printf("usage: virtperf run [BENCH...] [options] [--BENCH-OPTION=VALUE...]\n"
           "\n"
           "Runs each BENCH (a name such as mem.stream, a family such as mem, disk or vcost.*, a\n"
           "preset such as dd or iozone) at every job count of --jobs, stores each result and\n"
           "prints a table. No BENCH: the quick suite (%s).\n"
           "'virtperf list BENCH' shows a benchmark's own options; 'virtperf list' the presets.\n"
           "\n"
           "  --jobs SPEC        job counts: 4, 1,2,4 or 1..8 (a list is a sweep)  [1]\n"
           "  --pin SPEC         none | compact | spread | CPU list such as 0,2,4-6  [none]\n"
           "                     (%s: one job on each CPU this run may use, pinned)\n"
           "  --reps N           measured repetitions, 1..%d  [5; %s: 1]\n"
           "  --warmup N         unmeasured repetitions first, 0..100  [1; %s: 0]\n"
           "  --duration D       time per repetition for time-bound benchmarks (10s, 500ms)\n"
           "  --label L          tag the run (bare, kvm, xen-pv ...)\n"
           "  --db PATH          results database  [$VIRTPERF_DB or ~/.local/share/virtperf/results.db]\n"
           "  --json FILE|-      also write the run's JSON document (- for stdout)\n"
           "  --monitor-hz HZ    monitor sampling rate, 0.1..1000  [10]\n"
           "  --watch NAME       also monitor the CPU use of processes named NAME (repeatable)\n"
           "  --quiet            no progress line\n"
           "  --background BENCH run BENCH (a watch: net.probe) beside all the others, from\n"
           "                     before the first to after the last (at most 1 h)\n"
           "  --plan FILE        run a plan file instead (INI: [global] and one section per\n"
           "                     step, keys named as these flags; see plans/); with it:\n"
           "  --set STEP.KEY=V   override or add a key of the plan (repeatable)\n"
           "  --dry-run          print the command lines the plan stands for, run nothing\n"
           "  --help             this text\n",
           quick_names, per_cpu_names, VP_MAX_REPS, watch_names, watch_names);
}

enum core_option {
    OPT_JOBS = 1000, OPT_PIN, OPT_REPS, OPT_WARMUP, OPT_DURATION, OPT_LABEL, OPT_DB, OPT_JSON,
    OPT_MONITOR_HZ, OPT_WATCH, OPT_QUIET, OPT_HELP, OPT_BACKGROUND, OPT_BENCH_BASE,
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

void vp_run_parse(struct vp_run_request *request, int argc, char **argv)
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
        { "background", required_argument, NULL, OPT_BACKGROUND },
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

    *request = (struct vp_run_request){ .monitor_hz = 10 };
    struct vp_plan_request *plan = &request->plan;
    opterr = 0;
    optind = 0; /* a plan file parses one command line per step */
    int option;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (option) {
        case OPT_JOBS: plan->jobs_text = optarg; break;
        case OPT_PIN: plan->pin = optarg; break;
        case OPT_REPS:
            plan->reps = parse_whole("--reps", optarg, 1, VP_MAX_REPS);
            plan->reps_given = true;
            break;
        case OPT_WARMUP:
            plan->warmup = parse_whole("--warmup", optarg, 0, 100);
            plan->warmup_given = true;
            break;
        case OPT_DURATION:
            if (vp_parse_duration(optarg, &plan->duration) != 0 || plan->duration < 0.001 ||
                plan->duration > 86400)
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
            if (request->watch_count == VP_RUN_MAX_WATCH || !*optarg)
                vp_usage_error("--watch: accepted: up to %d non-empty process names", VP_RUN_MAX_WATCH);
            request->watch[request->watch_count++] = optarg;
            break;
        case OPT_QUIET: request->quiet = true; break;
        case OPT_BACKGROUND: request->background = optarg; break;
        case OPT_HELP: vp_run_print_usage(); exit(0);
        case '?':
        case ':':
            vp_usage_error("run: unknown or incomplete option '%s'; see 'virtperf run --help' "
                           "and 'virtperf list BENCH'", argv[optind - 1]);
        default:
            if (plan->option_count == VP_PLAN_MAX_OPTIONS)
                vp_usage_error("run: too many benchmark options (at most %d)", VP_PLAN_MAX_OPTIONS);
            plan->options[plan->option_count++] = (struct vp_plan_option){
                bench_options[option - OPT_BENCH_BASE]->name, optarg ? optarg : "on" };
        }
    }
    free(options);
    plan->words = argv + optind;
    plan->word_count = (size_t)(argc - optind);
    if (request->background) { /* its options are the run's: it joins the plan's words */
        static char *words[VP_RUN_MAX_WORDS + 1];
        if (plan->word_count >= VP_RUN_MAX_WORDS)
            vp_usage_error("run: at most %d benchmarks with --background", VP_RUN_MAX_WORDS - 1);
        memcpy(words, plan->words, plan->word_count * sizeof *words);
        words[plan->word_count++] = (char *)request->background;
        plan->words = words;
    }
}

/* The run's JSON document: what the database holds, with the results it refused put back
 * at their places (lost: [[position among the run's results, result]], in order). */
static int write_document(struct vp_store *store, int64_t run_id, const char *status,
                          const json_t *lost, struct vp_json_output *output, char *err,
                          size_t err_len)
{
    json_t *document = NULL;
    if (vp_store_export_run(store, run_id, &document, err, err_len) != 0)
        return -1;
    /* the run's outcome, even when the database could not be told */
    json_object_set_new(json_object_get(document, "run"), "status", json_string(status));
    json_t *stored = json_object_get(document, "results"), *all = json_array();
    size_t next_stored = 0, next_lost = 0;
    for (size_t position = 0; next_stored < json_array_size(stored) ||
                              next_lost < json_array_size(lost); position++) {
        const json_t *entry = json_array_get(lost, next_lost);
        if (entry && (size_t)json_integer_value(json_array_get(entry, 0)) == position) {
            json_array_append(all, json_array_get(entry, 1));
            next_lost++;
        } else {
            json_array_append(all, json_array_get(stored, next_stored++));
        }
    }
    json_object_set_new(document, "results", all);
    int written = vp_json_output_commit(output, document, err, err_len);
    json_decref(document);
    return written;
}

char *vp_run_command_line(const char *program, int argc, char **argv)
{
    size_t len = strlen(program) + 1;
    for (int i = 1; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *command = malloc(len);
    if (!command)
        abort();
    strcpy(command, program);
    for (int i = 1; i < argc; i++) {
        strcat(command, " ");
        strcat(command, argv[i]);
    }
    return command;
}

void vp_run_session_open(struct vp_run_session *session, const struct vp_run_request *request)
{
    char err[VP_ERROR_LEN + 4200];
    *session = (struct vp_run_session){ .request = request };
    if (request->json && vp_json_output_open(&session->json_output, "--json", request->json,
                                             err, sizeof err) != 0)
        vp_usage_error("%s", err);
    session->store = vp_cli_open_store(request->db);
}

void vp_run_session_begin(struct vp_run_session *session, const json_t *host,
                          const char *command)
{
    char err[VP_ERROR_LEN + 4200];
    const struct vp_run_request *request = session->request;
    if (vp_store_begin_run(session->store, request->label, command, host, &session->run_id, err,
                           sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        exit(1);
    }
    session->table = request->json && session->json_output.to_stdout ? stderr : stdout;
    session->lost = json_array();
    session->results = json_array();
    fprintf(session->table, "run %lld%s%s\n\n", (long long)session->run_id,
            request->label ? "  label " : "", request->label ? request->label : "");
}

void vp_run_session_add(struct vp_run_session *session, json_t *result)
{
    char err[VP_ERROR_LEN];
    size_t position = session->count++;
    if (vp_store_add_result(session->store, session->run_id, result, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s jobs=%lld: %s\n",
                json_string_value(json_object_get(result, "bench")),
                json_integer_value(json_object_get(result, "jobs")), err);
        vp_result_warn(result, "not in the results database: %s", err);
        json_array_append_new(session->lost, json_pack("[I,O]", (json_int_t)position, result));
    }
    vp_print_result(session->table, result);
    fflush(session->table);
    json_array_append(session->results, result);
    session->any_failed = session->any_failed ||
                          strcmp(json_string_value(json_object_get(result, "status")), "ok") != 0;
}

/* app --preset: the geometric mean of the workloads' scores, per job count. */
static void print_workload_scores(FILE *table, const json_t *results)
{
    json_t *scores = vp_workload_scores(results);
    size_t i;
    const json_t *score;
    json_array_foreach(scores, i, score) {
        fprintf(table, "score jobs=%lld: %.3f, the geometric mean of %lld workloads' speed "
                "against the reference machine (", (long long)json_integer_value(json_object_get(score, "jobs")),
                vp_json_number(score, "score"), (long long)json_integer_value(json_object_get(score, "workloads")));
        const char *name;
        const json_t *value;
        const char *separator = "";
        json_object_foreach((json_t *)json_object_get(score, "each"), name, value) {
            fprintf(table, "%s%s %.3f", separator, name, json_number_value(value));
            separator = ", ";
        }
        fprintf(table, ")\n");
    }
    if (json_array_size(scores))
        fputc('\n', table);
    json_decref(scores);
}

int vp_run_session_end(struct vp_run_session *session, bool interrupted)
{
    char err[VP_ERROR_LEN + 4200];
    const struct vp_run_request *request = session->request;
    bool any_failed = session->any_failed || json_array_size(session->lost) > 0;
    const char *status = interrupted ? "interrupted" : any_failed ? "failed" : "ok";
    int64_t run_id = session->run_id;
    if (vp_store_finish_run(session->store, run_id, status) != 0)
        fprintf(stderr, "virtperf: cannot mark run %lld %s in the results database\n",
                (long long)run_id, status);
    int exit_status = interrupted ? VP_EXIT_INTERRUPTED : any_failed ? 1 : 0;
    if (request->json && write_document(session->store, run_id, status, session->lost,
                                        &session->json_output, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        exit_status = exit_status ? exit_status : 1;
    }
    print_workload_scores(session->table, session->results);
    size_t lost = json_array_size(session->lost);
    if (lost == 0)
        fprintf(session->table, "stored as run %lld in the results database%s\n",
                (long long)run_id, interrupted ? " (interrupted: finished results kept)" : "");
    else
        fprintf(session->table, "run %lld: %zu result(s) NOT stored in the results database "
                "(errors above)%s\n", (long long)run_id, lost,
                request->json ? "; the JSON document holds every result"
                              : "; give --json to keep them");
    json_decref(session->lost);
    json_decref(session->results);
    vp_store_close(session->store);
    return exit_status;
}

void vp_run_prepare(const struct vp_run_request *request, struct vp_plan *plan,
                    struct vp_topology **topology)
{
    char err[VP_ERROR_LEN + 4200];
    if (vp_plan_build(&request->plan, plan, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    if (vp_topology_load(topology, NULL, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    if (vp_plan_check(plan, *topology, err, sizeof err) != 0)
        vp_usage_error("%s", err);
}

/* --duration is per repetition: says how long the time-bound points take at least
 * (a 15 s time.ticks is 6 repetitions of 15 s, warm-up included). */
static void say_least_time(FILE *table, const struct vp_plan *plan)
{
    double seconds = 0;
    unsigned reps = 0;
    for (size_t p = 0; p < plan->count; p++) {
        const struct vp_plan_point *point = &plan->points[p];
        double duration = plan->duration > 0 ? plan->duration : point->bench->default_duration;
        if (!point->bench->uses_duration || duration <= 0)
            continue;
        seconds += duration * (point->reps + point->warmup);
        reps += point->reps + point->warmup;
    }
    if (seconds < 10)
        return;
    char total[32];
    vp_format_seconds(seconds, total, sizeof total);
    fprintf(table, "time-bound repetitions: %u, at least %s in all (--duration is per "
            "repetition, warm-ups included)\n\n", reps, total);
}

struct vp_run_settings vp_run_settings_of(const struct vp_run_request *request,
                                          const struct vp_plan *plan,
                                          struct vp_topology *topology,
                                          struct vp_progress *progress)
{
    return (struct vp_run_settings){
        .duration = plan->duration, .monitor_hz = request->monitor_hz, .watch = request->watch,
        .watch_count = request->watch_count, .topology = topology, .progress = progress,
    };
}

void vp_run_points(struct vp_run_session *session, const struct vp_run_request *request,
                   const struct vp_plan *plan, struct vp_topology *topology,
                   struct vp_progress *progress, const char *step)
{
    struct vp_run_settings settings = vp_run_settings_of(request, plan, topology, progress);
    for (size_t p = 0; p < plan->count && !vp_engine_interrupted(); p++) {
        const struct vp_plan_point *point = &plan->points[p];
        settings.pin_spec = point->pin;
        settings.reps = point->reps;
        settings.warmup = point->warmup;
        json_t *result = vp_engine_run(point->bench, &point->params, point->jobs, &settings);
        vp_progress_clear(progress);
        if (step)
            json_object_set_new(result, "step", json_string(step));
        vp_run_session_add(session, result);
        json_decref(result);
    }
    vp_progress_clear(progress);
}

int cmd_run(int argc, char **argv)
{
    if (vp_run_wants_plan(argc, argv))
        return vp_run_plan(argc, argv);
    struct vp_run_request request;
    vp_run_parse(&request, argc, argv);
    struct vp_plan plan;
    struct vp_topology *topology;
    vp_run_prepare(&request, &plan, &topology);
    struct vp_background background = { .pid = 0 };
    if (request.background)
        vp_background_take(&background, request.background, &plan);

    json_t *host = vp_sysinfo_collect(topology);
    char *command = vp_run_command_line("virtperf run", argc, argv);
    struct vp_run_session session;
    vp_run_session_open(&session, &request);
    vp_run_session_begin(&session, host, command);
    free(command);
    json_decref(host);
    vp_engine_catch_signals();
    say_least_time(session.table, &plan);

    struct vp_progress progress;
    vp_progress_init(&progress, plan.total_reps, !request.quiet);
    if (request.background) {
        struct vp_run_settings settings = vp_run_settings_of(&request, &plan, topology, &progress);
        vp_background_start(&background, &settings);
    }
    vp_run_points(&session, &request, &plan, topology, &progress, NULL);
    if (background.pid > 0) {
        json_t *result = vp_background_finish(&background);
        vp_run_session_add(&session, result);
        json_decref(result);
    }
    vp_plan_free(&plan);
    int exit_status = vp_run_session_end(&session, vp_engine_interrupted());
    vp_topology_free(topology);
    return exit_status;
}
