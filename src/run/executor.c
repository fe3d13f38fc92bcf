/* The run executor (executor.h): the session's sequence, written once, and the local
 * runner's step. */
#include "run/executor.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/combined.h"
#include "core/json.h"
#include "core/sysinfo.h"
#include "core/units.h"
#include "render/table.h"
#include "store/store.h"
#include "analysis/shown.h"


int vp_run_steps_build(struct vp_run_steps *steps, char *err, size_t err_len)
{
    for (size_t s = 0; s < steps->count; s++)
        if (vp_plan_build(&steps->step[s].request.plan, &steps->step[s].plan, err, err_len) != 0)
            return -1;
    return 0;
}

int vp_run_steps_check_here(struct vp_run_steps *steps, enum vp_steps_checked which, char *err,
                            size_t err_len)
{
    if (!steps->topology && vp_topology_load(&steps->topology, NULL, err, err_len) != 0)
        return -1;
    for (size_t s = 0; s < steps->count; s++) {
        const struct vp_run_step *step = &steps->step[s];
        bool in_members = vp_run_step_in_members(steps, step);
        bool this_hosts = !in_members || vp_run_step_and_host(steps, step);
        bool checked = which == VP_CHECK_EVERY_STEP ||
                       (which == VP_CHECK_MEMBERS ? in_members : this_hosts);
        if (!checked || vp_plan_check(&step->plan, steps->topology, err, err_len) == 0)
            continue;
        if (step->name) {
            char message[VP_PATH_ERROR_LEN];
            snprintf(message, sizeof message, "%s", err);
            snprintf(err, err_len, "[%s]: %s", step->name, message);
        }
        return -1;
    }
    return 0;
}

void vp_run_steps_take_session(struct vp_run_steps *steps, const struct vp_run_request *session)
{
    steps->label = session->label;
    steps->db = session->db;
    steps->json = session->json;
    steps->quiet = session->quiet;
    steps->guests = session->guests;
}

bool vp_run_words_want_plan(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--plan") == 0 || strncmp(argv[i], "--plan=", 7) == 0)
            return true;
    return false;
}

int vp_run_steps_of_command_line(struct vp_run_steps *steps, int argc, char **argv,
                                 unsigned scopes, char *err, size_t err_len)
{
    *steps = (struct vp_run_steps){ .count = 1 };
    struct vp_run_step *step = &steps->step[0];
    *step = (struct vp_run_step){ .argc = argc, .argv = argv };
    if (vp_run_parse(&step->request, argc, argv, scopes, err, err_len) != 0)
        return -1;
    vp_run_steps_take_session(steps, &step->request);
    return 0;
}

bool vp_run_step_in_members(const struct vp_run_steps *steps, const struct vp_run_step *step)
{
    return step->members_spec || steps->guests.spec;
}

bool vp_run_step_and_host(const struct vp_run_steps *steps, const struct vp_run_step *step)
{
    return step->and_host == VP_STEP_AND_HOST_OF_RUN ? steps->guests.and_host
                                                     : step->and_host == VP_STEP_AND_HOST_ON;
}

void vp_run_steps_free(struct vp_run_steps *steps)
{
    if (steps->guests_owned) {
        const struct vp_guests_request *g = &steps->guests;
        const char *texts[] = { g->spec, g->accel, g->uri, g->bridge, g->nic, g->disk_dir, g->disk_bus,
                                g->container_engine, g->container_runtime, g->container_net,
                                g->pin, g->programs, g->mount };
        for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++)
            free((char *)texts[t]);
        steps->guests_owned = false;
    }

    for (size_t s = 0; s < steps->count; s++) {
        struct vp_run_step *step = &steps->step[s];
        vp_plan_free(&step->plan);
        if (!step->owned)
            continue;
        for (int i = 0; i < step->argc; i++)
            free(step->argv[i]);
        free(step->argv);
        free((char *)step->name);
        free((char *)step->members_spec);
    }
    for (size_t t = 0; t < 3; t++)
        free(steps->plan_session[t]);
    for (size_t n = 0; n < steps->note_count; n++)
        free(steps->notes[n]);
    free(steps->kept_text);
    vp_topology_free(steps->topology);
    steps->topology = NULL;
    steps->count = steps->note_count = 0;
    steps->kept_text = NULL;
}

/* "PROGRAM ARG ..." from argv[1..], for the run's stored command; free it. */
static char *command_line(const char *program, int argc, char **argv)
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

/* The run's JSON document: what the database holds, with the results it refused put back
 * at their places (lost: [[position among the run's results, result]], in order). */
static int write_document(struct vp_run_session *session, const char *status, char *err,
                          size_t err_len)
{
    json_t *document = NULL;
    char why[VP_PATH_ERROR_LEN];
    if (vp_store_export_run(session->store, session->run_id, VP_EXPORT_WHOLE,
                            &document, why, sizeof why) != 0) {
        /* the store is gone (a server down since): every result from this process */
        if (!session->begun) {
            snprintf(err, err_len, "%s", why);
            return -1;
        }
        fprintf(stderr, "virtperf: %s: the JSON document holds the results this run made\n", why);
        document = json_deep_copy(session->begun);
        json_object_set_new(json_object_get(document, "run"), "status", json_string(status));
        json_object_set(document, "results", session->results);
        int written = vp_json_output_commit(&session->json_output, document, err, err_len);
        json_decref(document);
        return written;
    }
    /* the run's outcome, even when the database could not be told */
    json_object_set_new(json_object_get(document, "run"), "status", json_string(status));
    json_t *stored = json_object_get(document, "results"), *all = json_array();
    const json_t *lost = session->lost;
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
    int written = vp_json_output_commit(&session->json_output, document, err, err_len);
    json_decref(document);
    return written;
}

/* Opens the --json target and the store; -1 with err on a bad target or store,
 * VP_STORE_UNAVAILABLE for a store that is down or refusing. */
static int session_open(struct vp_run_session *session, const struct vp_run_steps *steps,
                        char *err, size_t err_len)
{
    *session = (struct vp_run_session){ .label = steps->label, .json = steps->json };
    if (steps->json &&
        vp_json_output_open(&session->json_output, "--json", steps->json, err, err_len) != 0)
        return -1;
    return vp_cli_store_open(steps->db, &session->store, err, err_len);
}

/* Begins the stored run with host as its fingerprint (and the plan's text), prints its
 * heading; -1 with err when the run cannot be begun. */
static int session_begin(struct vp_run_session *session, const struct vp_run_steps *steps,
                         const json_t *host, const char *command, char *err, size_t err_len)
{
    if (vp_store_begin_run(session->store, session->label, command, host, &session->run_id,
                           err, err_len) != 0)
        return -1;
    if (steps->kept_text && vp_store_set_run_plan(session->store, session->run_id,
                                                  steps->kept_text, err, err_len) != 0)
        fprintf(stderr, "virtperf: the plan's text was not kept: %s\n", err);
    if (session->json &&
        vp_store_export_run(session->store, session->run_id, VP_EXPORT_WHOLE,
                            &session->begun, err, err_len) != 0)
        session->begun = NULL;
    session->table = session->json && session->json_output.to_stdout ? stderr : stdout;
    session->lost = json_array();
    session->results = json_array();
    fprintf(session->table, "run %lld%s%s\n\n", (long long)session->run_id,
            session->label ? "  label " : "", session->label ? session->label : "");
    for (size_t n = 0; n < steps->note_count; n++)
        fprintf(session->table, "note: %s\n", steps->notes[n]);
    return 0;
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
    json_t *shown = vp_result_shown(result);
    vp_print_result(session->table, result, shown, vp_cli_units());
    json_decref(shown);
    fflush(session->table);
    json_array_append(session->results, result);
    session->any_failed = session->any_failed ||
                          strcmp(json_string_value(json_object_get(result, "status")), "ok") != 0;
}

/* Marks the run, writes the JSON document, says where the results are; returns the exit
 * status (0, 1 when a result failed or was not stored or the run stopped before its last
 * point, a rank or member gone, 130 when interrupted). */
static int session_end(struct vp_run_session *session, bool interrupted, bool stopped)
{
    char err[VP_PATH_ERROR_LEN];
    bool any_failed = session->any_failed || json_array_size(session->lost) > 0 || stopped;
    const char *status = interrupted ? "interrupted" : any_failed ? "failed" : "ok";
    int64_t run_id = session->run_id;
    if (vp_store_finish_run(session->store, run_id, status) != 0)
        fprintf(stderr, "virtperf: cannot mark run %lld %s in the results database\n",
                (long long)run_id, status);
    int exit_status = interrupted ? VP_EXIT_INTERRUPTED : any_failed ? 1 : 0;
    if (session->json && write_document(session, status, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        exit_status = exit_status ? exit_status : 1;
    }
    json_t *scores = vp_workload_scores(session->results);
    vp_print_workload_scores(session->table, scores);
    json_decref(scores);
    size_t lost = json_array_size(session->lost);
    if (lost == 0)
        fprintf(session->table, "stored as run %lld in the results database%s\n",
                (long long)run_id, interrupted ? " (interrupted: finished results kept)" : "");
    else
        fprintf(session->table, "run %lld: %zu result(s) NOT stored in the results database "
                "(errors above)%s\n", (long long)run_id, lost,
                session->json ? "; the JSON document holds every result"
                              : "; give --json to keep them");
    json_decref(session->lost);
    json_decref(session->results);
    json_decref(session->begun);
    vp_store_close(session->store);
    return exit_status;
}

/* --duration is per repetition: says how long the time-bound points take at least
 * (a 15 s time.ticks is 6 repetitions of 15 s, warm-up included). */
static void say_least_time(FILE *table, const struct vp_run_steps *steps)
{
    double seconds = 0;
    unsigned reps = 0;
    for (size_t s = 0; s < steps->count; s++) {
        const struct vp_plan *plan = &steps->step[s].plan;
        for (size_t p = 0; p < plan->count; p++) {
            const struct vp_plan_point *point = &plan->points[p];
            double duration = plan->duration > 0 ? plan->duration : point->bench->default_duration;
            if (!point->bench->uses_duration || duration <= 0)
                continue;
            seconds += duration * (point->reps + point->warmup);
            reps += point->reps + point->warmup;
        }
    }
    if (seconds < 10)
        return;
    char total[32];
    vp_format_seconds(seconds, total, sizeof total);
    fprintf(table, "time-bound repetitions: %u, at least %s in all (--duration is per "
            "repetition, warm-ups included)\n\n", reps, total);
}

struct vp_run_settings vp_run_settings_of(const struct vp_run_step *step,
                                          struct vp_topology *topology,
                                          struct vp_progress *progress)
{
    const struct vp_run_request *request = &step->request;
    return (struct vp_run_settings){
        .duration = step->plan.duration, .monitor_hz = request->monitor_hz,
        .watch = request->watch, .watch_count = request->watch_count, .topology = topology,
        .progress = progress,
    };
}

bool vp_run_step_here(const struct vp_run_steps *steps, size_t index,
                      struct vp_run_session *session, struct vp_progress *progress)
{
    const struct vp_run_step *step = &steps->step[index];
    struct vp_run_settings settings = vp_run_settings_of(step, steps->topology, progress);
    for (size_t p = 0; p < step->plan.count && !vp_engine_interrupted(); p++) {
        const struct vp_plan_point *point = &step->plan.points[p];
        settings.pin_spec = point->pin;
        settings.reps = point->reps;
        settings.warmup = point->warmup;
        settings.reps_target = point->reps_target;
        json_t *result = vp_engine_run(point->bench, &point->params, point->jobs, &settings);
        vp_progress_clear(progress);
        if (step->name)
            json_object_set_new(result, "step", json_string(step->name));
        vp_run_session_add(session, result);
        json_decref(result);
    }
    return vp_engine_interrupted();
}

static void settle(const struct vp_runner *runner, const char *refusal, int exit_status)
{
    if (runner->settle) {
        runner->settle(runner->context, refusal, exit_status);
    } else if (refusal) {
        fprintf(stderr, "virtperf: %s\n", refusal);
        exit(exit_status);
    }
}

int vp_run_execute(const struct vp_runner *runner, struct vp_run_steps *steps, int argc,
                   char **argv)
{
    void *context = runner->context;
    char err[VP_PATH_ERROR_LEN];
    const char *refusal = NULL;
    int refusal_status = VP_EXIT_USAGE, opened = 0;
    struct vp_run_session session = { .store = NULL };
    if (runner->open && runner->open(context, steps, err, sizeof err) != 0)
        refusal = err;
    else if (runner->keeps_session && (opened = session_open(&session, steps, err, sizeof err)) != 0)
        refusal = err;
    /* a site store that is down or refuses is not a mistake in the command */
    if (opened == VP_STORE_UNAVAILABLE)
        refusal_status = 1;
    settle(runner, refusal, refusal_status); /* nothing is stored unless every participant can go on */

    json_t *host = runner->fingerprint ? runner->fingerprint(context, steps->topology)
                                       : vp_sysinfo_collect(steps->topology);
    int begun = 0;
    if (runner->keeps_session) {
        char *command = command_line(runner->program, argc, argv);
        begun = session_begin(&session, steps, host, command, err, sizeof err);
        free(command);
    }
    json_decref(host);
    if (begun != 0) { /* what the runner started (guests, containers, ranks) goes too */
        fprintf(stderr, "virtperf: %s\n", err);
        vp_store_close(session.store);
        return runner->close ? runner->close(context, 1, true) : 1;
    }
    if (runner->keeps_session) {
        say_least_time(session.table, steps);
        fflush(session.table); /* the header shows when the run begins, through a pipe too */
    }

    unsigned total = 0;
    for (size_t s = 0; s < steps->count; s++)
        total += steps->step[s].plan.total_reps;
    if (runner->repetitions)
        total = runner->repetitions(context, steps);
    struct vp_progress progress;
    vp_progress_init(&progress, total, runner->keeps_session && !steps->quiet);
    if (runner->begin)
        runner->begin(context, steps, &progress);
    bool stopped = false;
    for (size_t s = 0; s < steps->count && !stopped; s++) {
        if (runner->keeps_session && steps->step[s].name)
            fprintf(session.table, "step [%s]\n\n", steps->step[s].name);
        stopped = runner->run_step(context, steps, s, runner->keeps_session ? &session : NULL,
                                   &progress);
    }
    vp_progress_clear(&progress);
    if (runner->finish)
        runner->finish(context, runner->keeps_session ? &session : NULL);
    bool interrupted = runner->interrupted ? runner->interrupted(context) : vp_engine_interrupted();
    int status = 0;
    if (runner->keeps_session)
        status = session_end(&session, interrupted, stopped);
    else if (stopped)
        status = interrupted ? VP_EXIT_INTERRUPTED : 1;
    return runner->close ? runner->close(context, status, stopped) : status;
}
