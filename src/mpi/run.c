/* `virtperf-mpi run`: one run over every rank of an MPI launch, each rank a host or a
 * guest. Rank 0 sends its words to all; each rank builds the plan from them and checks
 * it against its own machine, and one refusal anywhere stops every rank with exit 2 and
 * nothing stored. Each point then runs on the first k ranks (--ranks), started together
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
           "\n"
           "The options of 'virtperf run':\n\n");
    vp_run_print_usage();
}

/* Takes --NAME VALUE / --NAME=VALUE out of the words; NULL when not given. */
static const char *take_option(int *count, char **words, const char *name, const char *example)
{
    const char *value = NULL;
    size_t len = strlen(name);
    int kept = 0;
    for (int i = 0; i < *count; i++) {
        if (strcmp(words[i], name) == 0 && i + 1 < *count)
            value = words[++i];
        else if (strncmp(words[i], name, len) == 0 && words[i][len] == '=')
            value = words[i] + len + 1;
        else if (strcmp(words[i], name) == 0)
            vp_usage_error("%s: needs a value such as %s", name, example);
        else
            words[kept++] = words[i];
    }
    words[kept] = NULL;
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
    const char *ranks_spec = take_option(&count, words, "--ranks", "4, 1,2,4 or 1..8");
    const char *topology_text = take_option(&count, words, "--topology", "matrix or fan-in");
    const char *start_with = take_option(&count, words, "--start-with", "instant or barrier");
    if (vp_run_wants_plan(count, words))
        vp_usage_error("--plan: not accepted by virtperf-mpi yet; accepted: virtperf run --plan "
                       "on one host (ranks become jobs), or under mpirun each step's command "
                       "line as 'virtperf run --plan FILE --dry-run' prints it");
    struct vp_run_request request;
    vp_run_parse(&request, count, words);
    if (request.background)
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
    bool barrier = start_with && strcmp(start_with, "barrier") == 0;
    char err[VP_ERROR_LEN + 4200];
    enum vp_topology_kind topology_kind;
    if (vp_topology_parse(topology_text, &topology_kind, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    struct vp_plan plan;
    struct vp_topology *topology;
    vp_run_prepare(&request, &plan, &topology);
    struct vp_layout layout;
    if (vp_layout_build(&plan, world->size, rank_counts, rank_count_n, topology_kind, &layout,
                        err, sizeof err) != 0)
        vp_usage_error("%s", err);
    struct vp_servers servers = { .own = -1 };
    if (topology_kind != VP_TOPOLOGY_NONE &&
        vp_servers_start(world, given_option(&request.plan, "key-file"), &servers, err,
                         sizeof err) != 0)
        vp_usage_error("%s", err);
    struct vp_run_session session;
    if (world->rank == 0)
        vp_run_session_open(&session, &request);
    settle_refusals(NULL);
    vp_set_usage_error_hook(NULL);

    json_t *host = vp_sysinfo_collect(topology);
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
    struct step_comms comms;
    make_comms(world, &layout, &comms);
    if (world->rank == 0) {
        char *command = vp_run_command_line("virtperf-mpi run", argc, argv);
        vp_run_session_begin(&session, host, command);
        free(command);
    }

    unsigned progress_total = 0;
    for (size_t s = 0; s < layout.count; s++)
        if (layout.steps[s].roles[0] == VP_ROLE_RUN)
            progress_total += plan.points[layout.steps[s].point].reps +
                              plan.points[layout.steps[s].point].warmup;
    struct vp_progress progress;
    vp_progress_init(&progress, progress_total, world->rank == 0 && !request.quiet);
    struct vp_run_settings settings = {
        .duration = plan.duration, .monitor_hz = request.monitor_hz, .watch = request.watch,
        .watch_count = request.watch_count, .topology = topology,
        .progress = world->rank == 0 ? &progress : NULL,
    };
    int *members = calloc((size_t)world->size, sizeof *members);
    if (!members)
        abort();
    bool stopped = false;
    char reason[VP_ERROR_LEN] = "";
    for (size_t s = 0; s < layout.count && !stopped; s++) {
        const struct vp_step *step = &layout.steps[s];
        const struct vp_plan_point *point = &plan.points[step->point];
        enum vp_role role = step->roles[world->rank];
        if (role == VP_ROLE_OFF)
            continue; /* this rank idles while others run */
        settings.pin_spec = point->pin;
        settings.reps = point->reps;
        settings.warmup = point->warmup;
        struct vp_together together;
        json_t *result = NULL;
        if (vp_together_begin(&together, world, comms.of_step[s], point->bench->ops_per_rep != NULL,
                              barrier, point->warmup, point->warmup + point->reps, reason,
                              sizeof reason) != 0) {
            stopped = true;
            result = json_pack("{s:s,s:s}", "status", "interrupted", "error", reason);
        } else if (role == VP_ROLE_RUN) {
            struct vp_params params;
            step_params(step, point, world->rank, &servers, &params);
            settings.sync = &together.sync;
            result = vp_engine_run(point->bench, &params, point->jobs, &settings);
        } else if (vp_together_wait(&together, reason, sizeof reason) != 0) {
            stopped = true;
        }
        vp_progress_clear(&progress);
        if (world->rank == 0) {
            struct vp_params params;
            result_params(point, topology_kind, &params);
            struct vp_gather_step what = {
                .step = step, .point = point, .params = &params, .members = members,
                .member_count = step_members(step, world->size, members),
                .topology = topology_kind, .labels = servers.labels, .fingerprints = fingerprints,
            };
            json_t *combined = vp_gather_step(world, &together, &what, &settings, result, &stopped);
            vp_run_session_add(&session, combined);
            json_decref(combined);
        } else if (role == VP_ROLE_RUN && !stopped &&
                   vp_gather_send(world, &together, result) != 0) {
            stopped = true;
        }
        stopped = stopped || vp_engine_interrupted() || vp_liveness_dead() >= 0;
        json_decref(result);
        vp_together_end(&together);
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
    free(members);
    free(comms.of_step);
    json_decref(host);
    vp_layout_free(&layout);
    vp_plan_free(&plan);
    vp_topology_free(topology);
    free(words_blob);
    free(words);
    return status;
}
