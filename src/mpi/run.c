/* `virtperf-mpi run`: one run over every rank of an MPI launch, each rank a host or a
 * guest. Rank 0 sends its words to all (and the text of a --plan file: each of its steps
 * is then a part of the run, a command line of its own); each rank builds the plan from
 * them and checks it against its own machine, and one refusal anywhere stops every rank
 * with exit 2 and nothing stored. Each point then runs on the first k ranks (--ranks), started together
 * (together.c); rank 0 gathers every rank's result and jobs' figures, combines them
 * (engine/combine.c) and stores the one result before the next point starts. */
#include "mpi/run.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "cmd/run.h"
#include "cmd/run_plan.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/sysinfo.h"
#include "core/topology.h"
#include "core/units.h"
#include "engine/engine.h"
#include "engine/layout.h"
#include "mpi/gather.h"
#include "mpi/liveness.h"
#include "mpi/servers.h"
#include "mpi/together.h"
#include "store/store.h"

#define REFUSAL_LEN 1024

static const struct vp_world *the_world; /* for the usage error hook */

/* Every rank's refusal (or "" when it has none) to all; when one refused, rank 0 prints
 * them (once when every rank said the same) and every rank exits 2. */
static void settle_refusals(const char *own)
{
    const struct vp_world *world = the_world;
    char mine[REFUSAL_LEN] = "";
    snprintf(mine, sizeof mine, "%s", own ? own : "");
    char *all = calloc((size_t)world->size, REFUSAL_LEN);
    if (!all)
        abort();
    MPI_Allgather(mine, REFUSAL_LEN, MPI_CHAR, all, REFUSAL_LEN, MPI_CHAR, MPI_COMM_WORLD);
    int refused = 0;
    bool same = true;
    for (int r = 0; r < world->size; r++) {
        const char *text = all + (size_t)r * REFUSAL_LEN;
        refused += text[0] != '\0';
        same = same && strcmp(text, all) == 0;
    }
    if (!refused) {
        free(all);
        return;
    }
    if (world->rank == 0) {
        if (same)
            fprintf(stderr, "virtperf: %s\n", all);
        for (int r = 0; !same && r < world->size; r++)
            if (all[(size_t)r * REFUSAL_LEN])
                fprintf(stderr, "virtperf-mpi: rank %d (%s): %s\n", r, world->hosts[r],
                        all + (size_t)r * REFUSAL_LEN);
    }
    free(all);
    MPI_Finalize();
    exit(VP_EXIT_USAGE);
}

static void refuse(const char *message)
{
    settle_refusals(message);
}

/* Rank 0's words, so every rank builds the plan from the same ones. */
static char **words_of_rank0(const struct vp_world *world, int argc, char **argv, int *count)
{
    uint64_t len = 0;
    for (int i = 0; world->rank == 0 && i < argc; i++)
        len += strlen(argv[i]) + 1;
    MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    char *blob = calloc(1, len + 1);
    if (!blob)
        abort();
    for (int i = 0, at = 0; world->rank == 0 && i < argc; i++)
        at += sprintf(blob + at, "%s", argv[i]) + 1;
    MPI_Bcast(blob, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    *count = 0;
    for (uint64_t at = 0; at < len; at += strlen(blob + at) + 1)
        (*count)++;
    char **words = calloc((size_t)*count + 1, sizeof *words);
    if (!words)
        abort();
    for (uint64_t at = 0, i = 0; at < len; at += strlen(blob + at) + 1)
        words[i++] = blob + at;
    return words;
}

static void print_usage(void)
{
    printf("usage: mpirun -np N virtperf-mpi run [BENCH...] [--ranks SPEC] [run options]\n"
           "       mpirun -np N virtperf-mpi run --plan FILE [--set STEP.KEY=VALUE]...\n"
           "       srun -n N virtperf-mpi run ...\n"
           "\n"
           "Runs the benchmarks on every rank at once (each rank a host or a guest), started\n"
           "together at instants rank 0 picks, and stores one run in rank 0's database: per\n"
           "host and per job figures, the aggregate across hosts, the start skew across hosts\n"
           "with its error bound. --jobs counts jobs per rank.\n"
           "\n"
           "  --ranks SPEC       run on the first k ranks, for each k of SPEC (1..4, 1,2,4),\n"
           "                     the others idle  [every rank]\n"
           "  --topology T       network benchmarks between ranks: matrix (each ordered pair\n"
           "                     alone), pairs (rank i to i+k/2 at once), fan-in (every rank\n"
           "                     to rank 0 at once), fan-out (the same, rank 0 sending)\n"
           "                     [none: each rank to its own loopback server]\n"
           "  --start-with S     instant: each repetition at an instant rank 0 picks, on\n"
           "                     every rank's clock; barrier: when MPI_Barrier returns (for\n"
           "                     comparison; blind to a dead rank)  [instant]\n"
           "  --plan FILE        a plan file's steps over the ranks, one stored run (each\n"
           "                     step's ranks and topology keys are --ranks and --topology)\n"
           "\n"
           "The options of 'virtperf run':\n\n");
    vp_run_print_usage();
}

/* Takes --NAME VALUE / --NAME=VALUE out of the words; NULL when not given. */
static const char *take_option(int *count, char **words, const char *name, const char *example)
{
    const char *value = NULL;
    size_t len = strlen(name);
    int kept = 0, taken = 0;
    char **taken_words = calloc((size_t)*count + 1, sizeof *taken_words);
    if (!taken_words)
        abort();
    for (int i = 0; i < *count; i++) {
        if (strcmp(words[i], name) == 0 && i + 1 < *count) {
            taken_words[taken++] = words[i];
            value = taken_words[taken++] = words[++i];
        } else if (strncmp(words[i], name, len) == 0 && words[i][len] == '=') {
            value = (taken_words[taken++] = words[i]) + len + 1;
        } else if (strcmp(words[i], name) == 0) {
            vp_usage_error("%s: needs a value such as %s", name, example);
        } else {
            words[kept++] = words[i];
        }
    }
    /* the taken words stay in the array, past its end, for whoever frees the words */
    words[kept] = NULL;
    memcpy(words + kept + 1, taken_words, (size_t)taken * sizeof *words);
    free(taken_words);
    *count = kept;
    return value;
}

/* The value of a benchmark option as given on the command line, or NULL. */
static const char *given_option(const struct vp_plan_request *request, const char *name)
{
    const char *value = NULL;
    for (size_t i = 0; i < request->option_count; i++)
        if (strcmp(request->options[i].name, name) == 0)
            value = request->options[i].value;
    return value;
}

/* One communicator per distinct set of a step's ranks (rank 0 is in every one); made
 * before anything runs, as making one is a collective no rank may miss. */
struct step_comms {
    MPI_Comm *of_step;   /* by step; MPI_COMM_NULL where this rank sits it out */
};

/* Whether steps a and b take the same ranks (the same on every rank: the roles are). */
static bool same_members(const struct vp_layout *layout, size_t a, size_t b, int ranks)
{
    for (int r = 0; r < ranks; r++)
        if ((layout->steps[a].roles[r] == VP_ROLE_OFF) != (layout->steps[b].roles[r] == VP_ROLE_OFF))
            return false;
    return true;
}

static void make_comms(const struct vp_world *world, const struct vp_layout *layout,
                       struct step_comms *comms)
{
    comms->of_step = calloc(layout->count ? layout->count : 1, sizeof *comms->of_step);
    if (!comms->of_step)
        abort();
    for (size_t s = 0; s < layout->count; s++) {
        size_t same = s;
        for (size_t t = 0; t < s && same == s; t++)
            if (same_members(layout, t, s, world->size))
                same = t;
        if (same != s) {
            comms->of_step[s] = comms->of_step[same];
            continue;
        }
        bool member = layout->steps[s].roles[world->rank] != VP_ROLE_OFF;
        MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, world->rank,
                       &comms->of_step[s]);
    }
}

/* This rank's params for a step: the point's, talking to its peer's server when the
 * topology gives it one (and receiving, for fan-out). */
static void step_params(const struct vp_step *step, const struct vp_plan_point *point, int rank,
                        const struct vp_servers *servers, struct vp_params *params)
{
    *params = point->params;
    char err[VP_ERROR_LEN];
    int peer = step->peers[rank];
    int at = vp_params_find(params, "peer");
    if (peer >= 0 && at >= 0)
        vp_option_parse(&params->options[at], servers->peer[peer], &params->values[at], err,
                        sizeof err);
    at = vp_params_find(params, "reverse");
    if (step->reverse && at >= 0)
        vp_option_parse(&params->options[at], "on", &params->values[at], err, sizeof err);
}

/* The params a step's result is stored with: the point's, the peer named by the topology. */
static void result_params(const struct vp_plan_point *point, enum vp_topology_kind topology,
                          struct vp_params *params)
{
    *params = point->params;
    char err[VP_ERROR_LEN];
    int at = vp_params_find(params, "peer");
    if (topology != VP_TOPOLOGY_NONE && at >= 0)
        vp_option_parse(&params->options[at], vp_topology_name(topology), &params->values[at],
                        err, sizeof err);
}

/* The ranks of a step, in the order of its communicator. */
static size_t step_members(const struct vp_step *step, int ranks, int *members)
{
    size_t count = 0;
    for (int r = 0; r < ranks; r++)
        if (step->roles[r] != VP_ROLE_OFF)
            members[count++] = r;
    return count;
}

/* Rank 0's text to every rank: the plan file it read, or (text NULL) the reason it could
 * not, which every rank then refuses with. */
static char *text_of_rank0(const struct vp_world *world, char *text, const char *why)
{
    char reason[VP_ERROR_LEN] = "";
    uint64_t len = 0;
    if (world->rank == 0) {
        snprintf(reason, sizeof reason, "%s", text ? "" : why);
        len = text ? strlen(text) : 0;
    }
    MPI_Bcast(reason, (int)sizeof reason, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (reason[0])
        vp_usage_error("%s", reason);
    if (world->rank != 0) {
        text = calloc(1, len + 1);
        if (!text)
            abort();
    }
    MPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    return text;
}

/* One command line of the run: the whole run, or one step of a plan file. */
struct run_part {
    const char *step; /* the plan's step, or NULL */
    struct vp_run_request request;
    struct vp_plan plan;
    struct vp_topology *topology;
    struct vp_layout layout;
    enum vp_topology_kind topology_kind;
    bool barrier;
    struct step_comms comms;
};

static const char *refusing_step; /* named before a refusal of a plan step's line */

static void refuse_in_step(const char *message)
{
    char line[REFUSAL_LEN];
    snprintf(line, sizeof line, "plan step [%s]: %s", refusing_step, message);
    settle_refusals(line);
}

/* A part's words checked and built (run's flags, --ranks, --topology, --start-with):
 * its plan against this rank's machine, its layout over the ranks. */
static void prepare_part(const struct vp_world *world, int count, char **words,
                         struct run_part *part)
{
    refusing_step = part->step;
    vp_set_usage_error_hook(part->step ? refuse_in_step : refuse);
    const char *ranks_spec = take_option(&count, words, "--ranks", "4, 1,2,4 or 1..8");
    const char *topology_text = take_option(&count, words, "--topology", "matrix or fan-in");
    const char *start_with = take_option(&count, words, "--start-with", "instant or barrier");
    if (vp_run_wants_plan(count, words))
        vp_usage_error("--plan: a plan file names no other plan");
    vp_run_parse(&part->request, count, words);
    if (part->request.background)
        vp_usage_error("--background: not accepted by virtperf-mpi yet; accepted: virtperf run "
                       "--background on each host, or net.probe as a step of its own");
    unsigned rank_counts[VP_MAX_JOBS];
    size_t rank_count_n = 1;
    rank_counts[0] = (unsigned)world->size;
    if (ranks_spec && vp_parse_jobs_spec(ranks_spec, (unsigned)world->size, rank_counts,
                                         VP_MAX_JOBS, &rank_count_n) != 0)
        vp_usage_error("--ranks: '%s' is not valid; accepted: a count, a list such as 1,2,4 or a "
                       "range such as 1..4, each from 1 to %d (the ranks launched)", ranks_spec,
                       world->size);
    if (start_with && strcmp(start_with, "instant") != 0 && strcmp(start_with, "barrier") != 0)
        vp_usage_error("--start-with: '%s' is not valid; accepted: instant or barrier", start_with);
    part->barrier = start_with && strcmp(start_with, "barrier") == 0;
    char err[VP_ERROR_LEN + 4200];
    if (vp_topology_parse(topology_text, &part->topology_kind, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    vp_run_prepare(&part->request, &part->plan, &part->topology);
    if (vp_layout_build(&part->plan, world->size, rank_counts, rank_count_n, part->topology_kind,
                        &part->layout, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    vp_set_usage_error_hook(refuse);
}

/* Runs a part's points on its ranks; rank 0 stores each combined result (marked with the
 * plan's step). Returns whether the run must stop (a rank gone, a signal). */
static bool run_part(const struct vp_world *world, struct run_part *part,
                     const struct vp_servers *servers, json_t **fingerprints,
                     struct vp_run_session *session, struct vp_run_settings *settings,
                     struct vp_progress *progress, int *members)
{
    bool stopped = false;
    char reason[VP_ERROR_LEN] = "";
    settings->duration = part->plan.duration;
    settings->topology = part->topology;
    for (size_t s = 0; s < part->layout.count && !stopped; s++) {
        const struct vp_step *step = &part->layout.steps[s];
        const struct vp_plan_point *point = &part->plan.points[step->point];
        enum vp_role role = step->roles[world->rank];
        if (role == VP_ROLE_OFF)
            continue; /* this rank idles while others run */
        settings->pin_spec = point->pin;
        settings->reps = point->reps;
        settings->warmup = point->warmup;
        struct vp_together together;
        json_t *result = NULL;
        if (vp_together_begin(&together, world, part->comms.of_step[s],
                              point->bench->ops_per_rep != NULL, part->barrier, point->warmup,
                              point->warmup + point->reps, reason, sizeof reason) != 0) {
            stopped = true;
            result = json_pack("{s:s,s:s}", "status", "interrupted", "error", reason);
        } else if (role == VP_ROLE_RUN) {
            struct vp_params params;
            step_params(step, point, world->rank, servers, &params);
            settings->sync = &together.sync;
            result = vp_engine_run(point->bench, &params, point->jobs, settings);
        } else if (vp_together_wait(&together, reason, sizeof reason) != 0) {
            stopped = true;
        }
        vp_progress_clear(progress);
        if (world->rank == 0) {
            struct vp_params params;
            result_params(point, part->topology_kind, &params);
            struct vp_gather_step what = {
                .step = step, .point = point, .params = &params, .members = members,
                .member_count = step_members(step, world->size, members),
                .topology = part->topology_kind, .labels = servers->labels,
                .fingerprints = fingerprints,
            };
            json_t *combined = vp_gather_step(world, &together, &what, settings, result, &stopped);
            if (part->step)
                json_object_set_new(combined, "step", json_string(part->step));
            vp_run_session_add(session, combined);
            json_decref(combined);
        } else if (role == VP_ROLE_RUN && !stopped &&
                   vp_gather_send(world, &together, result) != 0) {
            stopped = true;
        }
        stopped = stopped || vp_engine_interrupted() || vp_liveness_dead() >= 0;
        json_decref(result);
        vp_together_end(&together);
    }
    return stopped;
}

int vp_mpi_run(const struct vp_world *world, int argc, char **argv)
{
    the_world = world;
    int count;
    char **words = words_of_rank0(world, argc, argv, &count);
    char *words_blob = words[0];
    for (int i = 1; i < count; i++) {
        if (strcmp(words[i], "--help") == 0 || strcmp(words[i], "-h") == 0) {
            if (world->rank == 0)
                print_usage();
            return 0;
        }
    }
    vp_set_usage_error_hook(refuse);
    /* the parts: the command line, or each step of its plan file */
    static struct run_part parts[VP_PLAN_MAX_STEPS];
    struct vp_plan_steps plan_steps = { .count = 0 };
    size_t part_count = 1;
    struct vp_run_request session_request;
    if (vp_run_wants_plan(count, words)) {
        char err[VP_ERROR_LEN] = "";
        char *text = vp_plan_read(count, words, world->rank == 0, err, sizeof err);
        text = text_of_rank0(world, text, err);
        vp_plan_steps_build(count, words, text, refuse, &plan_steps);
        vp_set_usage_error_hook(refuse);
        part_count = plan_steps.count;
        for (size_t p = 0; p < part_count; p++) {
            parts[p].step = plan_steps.names[p];
            prepare_part(world, plan_steps.argc[p], plan_steps.argv[p], &parts[p]);
        }
        session_request = parts[0].request;
        session_request.label = plan_steps.session.label;
        session_request.db = plan_steps.session.db;
        session_request.json = plan_steps.session.json;
        session_request.quiet = plan_steps.session.quiet;
    } else {
        prepare_part(world, count, words, &parts[0]);
        session_request = parts[0].request;
    }
    settle_refusals(NULL); /* every rank's parts built, or every rank stops here */
    /* one set of servers for every part that runs between ranks */
    struct vp_servers servers = { .own = -1 };
    const struct run_part *between = NULL;
    for (size_t p = 0; p < part_count && !between; p++)
        if (parts[p].topology_kind != VP_TOPOLOGY_NONE)
            between = &parts[p];
    char err[VP_ERROR_LEN + 4200];
    if (between && vp_servers_start(world, given_option(&between->request.plan, "key-file"),
                                    &servers, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    struct vp_run_session session;
    if (world->rank == 0)
        vp_run_session_open(&session, &session_request);
    settle_refusals(NULL);
    vp_set_usage_error_hook(NULL);

    json_t *host = vp_sysinfo_collect(parts[0].topology);
    json_t *fingerprint = json_deep_copy(host);
    char boot_id[64] = ""; /* one per running kernel: ranks on one machine share it */
    FILE *boot = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (boot && fgets(boot_id, sizeof boot_id, boot))
        boot_id[strcspn(boot_id, "\n")] = '\0';
    if (boot)
        fclose(boot);
    json_object_set_new(fingerprint, "boot_id", json_string(boot_id));
    json_t **fingerprints = vp_gather_fingerprints(world, fingerprint);
    json_decref(fingerprint);
    for (size_t p = 0; p < part_count; p++)
        make_comms(world, &parts[p].layout, &parts[p].comms);
    if (world->rank == 0) {
        char *command = vp_run_command_line("virtperf-mpi run", argc, argv);
        vp_run_session_begin(&session, host, command);
        free(command);
        if (plan_steps.kept_text &&
            vp_store_set_run_plan(session.store, session.run_id, plan_steps.kept_text, err,
                                  sizeof err) != 0)
            fprintf(stderr, "virtperf: the plan's text was not kept: %s\n", err);
    }

    unsigned progress_total = 0;
    for (size_t p = 0; p < part_count; p++)
        for (size_t s = 0; s < parts[p].layout.count; s++)
            if (parts[p].layout.steps[s].roles[0] == VP_ROLE_RUN)
                progress_total += parts[p].plan.points[parts[p].layout.steps[s].point].reps +
                                  parts[p].plan.points[parts[p].layout.steps[s].point].warmup;
    struct vp_progress progress;
    vp_progress_init(&progress, progress_total, world->rank == 0 && !session_request.quiet);
    struct vp_run_settings settings = {
        .monitor_hz = session_request.monitor_hz, .watch = session_request.watch,
        .watch_count = session_request.watch_count,
        .progress = world->rank == 0 ? &progress : NULL,
    };
    int *members = calloc((size_t)world->size, sizeof *members);
    if (!members)
        abort();
    bool stopped = false;
    for (size_t p = 0; p < part_count && !stopped; p++) {
        if (world->rank == 0 && parts[p].step)
            fprintf(session.table, "step [%s]\n\n", parts[p].step);
        settings.monitor_hz = parts[p].request.monitor_hz;
        settings.watch = parts[p].request.watch;
        settings.watch_count = parts[p].request.watch_count;
        stopped = run_part(world, &parts[p], &servers, fingerprints, &session, &settings,
                           &progress, members);
    }
    vp_progress_clear(&progress);
    int status = 0;
    bool interrupted = vp_engine_interrupted() && vp_liveness_dead() < 0;
    if (world->rank == 0)
        status = vp_run_session_end(&session, interrupted);
    else if (stopped)
        status = interrupted ? VP_EXIT_INTERRUPTED : 1;
    vp_servers_stop(&servers, world->size);
    if (stopped)
        vp_world_abandon(world, status); /* a rank is gone or a signal came: mpirun stops the rest */
    for (int r = 0; fingerprints && r < world->size; r++)
        json_decref(fingerprints[r]);
    free(fingerprints);
    json_decref(host);
    free(members);
    for (size_t p = 0; p < part_count; p++) {
        free(parts[p].comms.of_step);
        vp_layout_free(&parts[p].layout);
        vp_plan_free(&parts[p].plan);
        vp_topology_free(parts[p].topology);
    }
    free(plan_steps.kept_text);
    free(words_blob);
    free(words);
    return status;
}
