/* `virtperf-mpi run`: one run over every rank of an MPI launch, each rank a host or a
 * guest. Rank 0 sends its words to all (and the text of a --plan file: each of its steps
 * is then a part of the run, a command line of its own); each rank builds the plan from
 * them and checks it against its own machine, and one refusal anywhere stops every rank
 * with exit 2 and nothing stored. Each point then runs on the first k ranks (--ranks), started together
 * (engine/together.c over mpi/transport.c); rank 0 gathers every rank's result and jobs' figures, combines them
 * (engine/combine.c) and stores the one result before the next point starts. This is
 * the executor's MPI runner: the executor opens the session on rank 0 and stores what
 * rank 0 hands it. */
#include "mpi/run.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/cli.h"
#include "run/executor.h"
#include "run/run_flags.h"
#include "run/run_plan.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/sysinfo.h"
#include "core/topology.h"
#include "core/units.h"
#include "engine/engine.h"
#include "engine/gather.h"
#include "engine/layout.h"
#include "mpi/gather.h"
#include "mpi/liveness.h"
#include "mpi/members.h"
#include "mpi/servers.h"
#include "mpi/transport.h"
#include "store/store.h"

#define REFUSAL_LEN 1024

/* This rank's guests or containers once started: gone before any exit a refusal makes. */
static struct vp_mpi_members *started_members;

/* Every rank's refusal (or "" when it has none) to all; when one refused, rank 0 prints
 * them (once when every rank said the same) and every rank exits with the worst status
 * any refusal meant (2 for a mistake in the command, 1 for a store that is down). */
static void settle_refusals(const struct vp_world *world, const char *own, int own_status)
{
    /* whether any refused and the worst status, waited for napping (ranks check at
     * their own pace); the refusals themselves only when there are some */
    int64_t worst[2] = { own ? 1 : 0, own ? own_status : 0 };
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, worst, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD, &request);
    vp_world_await(world, &request);
    if (!worst[0])
        return;
    char mine[REFUSAL_LEN] = "";
    snprintf(mine, sizeof mine, "%s", own ? own : "");
    char *all = calloc((size_t)world->size, REFUSAL_LEN);
    if (!all)
        abort();
    MPI_Allgather(mine, REFUSAL_LEN, MPI_CHAR, all, REFUSAL_LEN, MPI_CHAR, MPI_COMM_WORLD);
    bool same = true;
    for (int r = 0; r < world->size; r++)
        same = same && strcmp(all + (size_t)r * REFUSAL_LEN, all) == 0;
    if (world->rank == 0) {
        if (same)
            fprintf(stderr, "virtperf: %s\n", all);
        for (int r = 0; !same && r < world->size; r++)
            if (all[(size_t)r * REFUSAL_LEN])
                fprintf(stderr, "virtperf-mpi: rank %d (%s): %s\n", r, world->hosts[r],
                        all + (size_t)r * REFUSAL_LEN);
    }
    free(all);
    if (started_members)
        vp_mpi_members_close(started_members);
    MPI_Finalize();
    exit((int)worst[1]);
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
           "with its error bound. --jobs counts jobs per rank; with --plan, each step's ranks,\n"
           "topology and start-with keys are these flags.\n"
           "\n"
           "With --guests SPEC or --containers SPEC every rank is a hypervisor: each starts its\n"
           "own guests or containers (and their --guest-* or --container-* settings), and each\n"
           "count of SPEC runs the benchmarks in that many members of every rank at once, each\n"
           "member's clock composed with its host's; one result holds every member, under the\n"
           "rank that started it, and each host's aggregate of its own. With --group, every\n"
           "rank starts every group's members, and each point gives a result per group.\n"
           "\n");
    vp_run_print_flags(stdout, VP_SCOPE_MPI, 0);
    printf("\nThe options of 'virtperf run':\n\n");
    vp_run_print_usage(stdout, VP_SCOPE_MPI);
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
    vp_params_set(params, "peer", peer >= 0 ? servers->peer[peer] : NULL, err, sizeof err);
    vp_params_set(params, "reverse", step->reverse ? "on" : NULL, err, sizeof err);
}

/* The params a step's result is stored with: the point's, the peer named by the topology
 * (and fan-out's direction: the servers sent). */
static void result_params(const struct vp_step *step, const struct vp_plan_point *point,
                          enum vp_topology_kind topology, struct vp_params *params)
{
    *params = point->params;
    char err[VP_ERROR_LEN];
    vp_params_set(params, "peer", topology != VP_TOPOLOGY_NONE ? vp_topology_name(topology) : NULL,
                  err, sizeof err);
    vp_params_set(params, "reverse", step->reverse ? "on" : NULL, err, sizeof err);
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
        snprintf(reason, sizeof reason, "%.*s", (int)sizeof reason - 1, text ? "" : why);
        len = text ? strlen(text) : 0;
    }
    MPI_Bcast(reason, (int)sizeof reason, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    settle_refusals(world, reason[0] ? reason : NULL, VP_EXIT_USAGE);
    if (world->rank != 0) {
        text = calloc(1, len + 1);
        if (!text)
            abort();
    }
    MPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    return text;
}

/* How one step runs over the ranks. */
struct run_part {
    struct vp_layout layout;
    enum vp_topology_kind topology_kind;
    bool barrier;
    struct step_comms comms;
};

/* The MPI runner's state: the world, each step's part, the servers between ranks. */
struct mpi_run {
    const struct vp_world *world;
    struct run_part parts[VP_RUN_MAX_STEPS];
    struct vp_servers servers;
    size_t part_count;
    json_t **fingerprints;
    int *members;
    int argc;
    char **argv;                  /* rank 0's words */
    struct vp_mpi_members here;   /* this rank's guests or containers (--guests...) */
};

/* The steps of the command line (one) or of its plan file (each a part of the run), on
 * every rank alike; -1 with err when they are refused. */
static int steps_of_words(const struct vp_world *world, int count, char **words,
                          struct vp_run_steps *steps, char *err, size_t err_len)
{
    if (vp_run_words_want_plan(count, words)) {
        struct vp_run_request command;
        int status = vp_plan_command(&command, count, words, err, err_len);
        if (status == 0 && (command.dry_run || command.here))
            status = -1, snprintf(err, err_len, "%s: not taken by virtperf-mpi; accepted: "
                                  "virtperf run --plan FILE --dry-run, virtperf plan-check FILE "
                                  "--here", command.dry_run ? "--dry-run" : "--here");
        settle_refusals(world, status == 0 ? NULL : err, VP_EXIT_USAGE);
        char *text = world->rank == 0 ? vp_plan_read_text(command.plan_path, err, err_len) : NULL;
        text = text_of_rank0(world, text, err);
        status = vp_plan_compile(&command, text, true, steps, err, err_len);
        free(text);
        return status;
    }
    if (vp_run_steps_of_command_line(steps, count, words, VP_SCOPES_COMMAND_LINE | VP_SCOPE_MPI,
                                     err, err_len) != 0)
        return -1;
    struct vp_run_step *step = &steps->step[0];
    if (step->request.background) {
        snprintf(err, err_len, "--background: not accepted by virtperf-mpi yet; accepted: "
                 "virtperf run --background on each host, or net.probe as a step of its own");
        return -1;
    }
    /* its members (--guests, --containers) are checked below */
    return vp_plan_build(&step->request.plan, &step->plan, err, err_len);
}

/* A step's virtperf-mpi flags (--ranks, --topology, --start-with) and its plan checked
 * against this rank's machine: its layout over the ranks. */
static int prepare_part(const struct vp_world *world, struct vp_run_steps *steps, size_t index,
                        struct run_part *part, char *err, size_t err_len)
{
    const struct vp_run_request *request = &steps->step[index].request;
    unsigned rank_counts[VP_MAX_JOBS];
    size_t rank_count_n = 1;
    rank_counts[0] = (unsigned)world->size;
    if (request->ranks && vp_parse_jobs_spec(request->ranks, (unsigned)world->size, rank_counts,
                                             VP_MAX_JOBS, &rank_count_n) != 0) {
        snprintf(err, err_len, "--ranks: '%s' is not valid; accepted: a count, a list such as "
                 "1,2,4 or a range such as 1..4, each from 1 to %d (the ranks launched)",
                 request->ranks, world->size);
        return -1;
    }
    if (request->plan.reps_auto) { /* every host would have to agree when to stop */
        snprintf(err, err_len, "--reps auto: not under virtperf-mpi; accepted: --reps N");
        return -1;
    }
    part->barrier = request->start_with && strcmp(request->start_with, "barrier") == 0;
    if (vp_topology_parse(request->topology, &part->topology_kind, err, err_len) != 0)
        return -1;
    if (!steps->topology && vp_topology_load(&steps->topology, NULL, err, err_len) != 0)
        return -1;
    if (vp_plan_check(&steps->step[index].plan, steps->topology, err, err_len) != 0)
        return -1;
    return vp_layout_build(&steps->step[index].plan, world->size, rank_counts, rank_count_n,
                           part->topology_kind, -1, &part->layout, err, err_len);
}

static void settle_run(void *context, const char *refusal, int exit_status)
{
    const struct mpi_run *run = context;
    settle_refusals(run->world, refusal, exit_status);
}

/* One set of servers for every step that runs between ranks. */
static int open_run(void *context, struct vp_run_steps *steps, char *err, size_t err_len)
{
    struct mpi_run *run = context;
    for (size_t s = 0; s < steps->count; s++)
        if (run->parts[s].topology_kind != VP_TOPOLOGY_NONE)
            return vp_servers_start(run->world,
                                    given_option(&steps->step[s].request.plan, "key-file"),
                                    &run->servers, err, err_len);
    if (!steps->guests.kind && !steps->guests.group_count)
        return 0;
    started_members = &run->here; /* what started goes with a refusal, any rank's */
    /* every rank checks it can start its members before any starts one */
    int prepared = vp_mpi_members_prepare(run->world, &run->here, steps, run->argc, run->argv,
                                          err, err_len);
    settle_refusals(run->world, prepared == 0 ? NULL : err, VP_EXIT_USAGE);
    return vp_mpi_members_start(&run->here, steps, err, err_len);
}

/* Every machine's fingerprint, taken by its first rank (world.h) with its boot id, to
 * rank 0, the machine's other ranks sharing it; then the steps' communicators, as making
 * one is a collective no rank may miss. This rank's own fingerprint where it took one. */
static json_t *gather_fingerprints(void *context, const struct vp_topology *topology)
{
    struct mpi_run *run = context;
    const struct vp_world *world = run->world;
    json_t *host = NULL, *fingerprint = NULL;
    if (world->machine_first[world->rank] == world->rank) {
        host = vp_sysinfo_collect(topology);
        fingerprint = json_deep_copy(host);
        vp_sysinfo_add_boot_id(fingerprint);
    }
    run->fingerprints = vp_gather_fingerprints(world, fingerprint);
    json_decref(fingerprint);
    vp_world_meet(world); /* (rank 0 last, as it took and gathered the fingerprints) */
    for (size_t p = 0; p < run->part_count; p++)
        make_comms(world, &run->parts[p].layout, &run->parts[p].comms);
    return host;
}

/* The repetitions this rank runs, for its progress line (none in its members'). */
static unsigned rank_repetitions(void *context, const struct vp_run_steps *steps)
{
    struct mpi_run *run = context;
    unsigned total = 0;
    if (steps->guests.kind || steps->guests.group_count)
        return 0;
    for (size_t p = 0; p < steps->count; p++) {
        const struct vp_layout *layout = &run->parts[p].layout;
        for (size_t s = 0; s < layout->count; s++)
            if (layout->steps[s].roles[0] == VP_ROLE_RUN)
                total += steps->step[p].plan.points[layout->steps[s].point].reps +
                         steps->step[p].plan.points[layout->steps[s].point].warmup;
    }
    return total;
}

/* Whether the result rank 0 stored last says ok: a rank that died after it is then named
 * by no result. */
static bool last_result_ok(const struct vp_run_session *session)
{
    size_t count = json_array_size(session->results);
    return count > 0 &&
           strcmp(vp_json_text(json_array_get(session->results, count - 1), "status"), "ok") == 0;
}

/* A rank died after the last result was whole: no result names it, so rank 0 says it
 * (the run is stored failed, its remaining points not run). */
static void say_death_between_points(const struct vp_world *world)
{
    char death[VP_ERROR_LEN];
    vp_liveness_death(death, sizeof death);
    int rank = vp_liveness_dead();
    fprintf(stderr, "virtperf-mpi: rank %d (%s) %s; the run stopped before its next point\n",
            rank, world->hosts[rank], death);
}

/* A step run in every rank's members: each layout step of the ranks, at each count of
 * members per rank, rank 0 storing each combined result. Whether the run must stop. */
static bool run_members_part(struct mpi_run *run, const struct vp_run_steps *steps, size_t index,
                             struct vp_run_session *session)
{
    const struct vp_world *world = run->world;
    const struct vp_run_step *run_step = &steps->step[index];
    const struct run_part *part = &run->parts[index];
    struct vp_run_settings settings = vp_run_settings_of(run_step, steps->topology, NULL);
    unsigned counts[VP_MAX_GUESTS];
    size_t count_n = vp_mpi_members_counts(&run->here, steps, index, counts);
    bool stopped = false;
    for (size_t s = 0; s < part->layout.count && !stopped; s++) {
        const struct vp_step *step = &part->layout.steps[s];
        if (step->roles[world->rank] == VP_ROLE_OFF)
            continue; /* this rank's members stay paused while others run */
        const struct vp_plan_point *point = &run_step->plan.points[step->point];
        settings.pin_spec = point->pin;
        settings.reps = point->reps;
        settings.warmup = point->warmup;
        struct vp_mpi_transport transport;
        vp_mpi_transport_init(&transport, world, part->comms.of_step[s]);
        size_t rank_count = step_members(step, world->size, run->members);
        for (size_t c = 0; c < count_n && !stopped; c++) {
            char reason[VP_ERROR_LEN] = "";
            struct vp_together together;
            int64_t began_ns = vp_now_ns();
            json_t *results = NULL; /* rank 0's: one, or one per --group */
            if (vp_together_begin(&together, &transport.transport,
                                  point->bench->ops_per_rep != NULL, false, point->warmup,
                                  point->warmup + point->reps, reason, sizeof reason) != 0) {
                stopped = true;
                if (world->rank == 0)
                    results = json_pack("[{s:s,s:s}]", "status", "interrupted", "error", reason);
            } else {
                results = vp_mpi_members_point(world, &run->here, steps, index, step->point,
                                               counts[c], &settings, &together, run->members,
                                               rank_count, began_ns, &stopped);
            }
            size_t r;
            json_t *result;
            json_array_foreach(results, r, result) {
                json_t *ranks = json_object_get(result, "ranks");
                if (ranks)
                    json_object_set_new(ranks, "start_with", json_string("instant"));
                vp_run_session_add(session, result);
            }
            json_decref(results);
            vp_together_end(&together);
            /* one rank that lost a member stops them all: every rank ends the run alike */
            int64_t stop = stopped || vp_engine_interrupted() || vp_liveness_dead() >= 0;
            if (transport.transport.max(transport.transport.context, &stop, 1, reason,
                                        sizeof reason) != 0)
                stop = 1;
            stopped = stop != 0;
        }
        vp_mpi_transport_end(&transport);
    }
    if (stopped && world->rank == 0 && vp_liveness_dead() >= 0 && last_result_ok(session))
        say_death_between_points(world);
    return stopped;
}

/* Runs a step's points on its ranks; rank 0 stores each combined result (marked with the
 * plan's step). Returns whether the run must stop (a rank gone, a signal). */
static bool run_part(void *context, const struct vp_run_steps *steps, size_t index,
                     struct vp_run_session *session, struct vp_progress *progress)
{
    struct mpi_run *run = context;
    if (run->here.fleet)
        return run_members_part(run, steps, index, session);
    const struct vp_world *world = run->world;
    const struct vp_run_step *run_step = &steps->step[index];
    const struct run_part *part = &run->parts[index];
    struct vp_run_settings settings = vp_run_settings_of(run_step, steps->topology,
                                                         world->rank == 0 ? progress : NULL);
    bool stopped = false;
    char reason[VP_ERROR_LEN] = "";
    for (size_t s = 0; s < part->layout.count && !stopped; s++) {
        const struct vp_step *step = &part->layout.steps[s];
        const struct vp_plan_point *point = &run_step->plan.points[step->point];
        enum vp_role role = step->roles[world->rank];
        if (role == VP_ROLE_OFF)
            continue; /* this rank idles while others run */
        settings.pin_spec = point->pin;
        settings.reps = point->reps;
        settings.warmup = point->warmup;
        struct vp_mpi_transport transport;
        vp_mpi_transport_init(&transport, world, part->comms.of_step[s]);
        if (world->rank != 0 && role == VP_ROLE_RUN) { /* a follower: its part to rank 0 */
            struct vp_params params;
            step_params(step, point, world->rank, &run->servers, &params);
            stopped = vp_gather_follow(&transport.transport, point, &params, point->jobs,
                                       &settings, part->barrier, reason, sizeof reason) != 0;
            stopped = stopped || vp_engine_interrupted() || vp_liveness_dead() >= 0;
            vp_mpi_transport_end(&transport);
            continue;
        }
        struct vp_together together;
        json_t *result = NULL;
        int64_t began_ns = vp_now_ns();
        if (vp_together_begin(&together, &transport.transport,
                              point->bench->ops_per_rep != NULL, part->barrier, point->warmup,
                              point->warmup + point->reps, reason, sizeof reason) != 0) {
            stopped = true;
            result = json_pack("{s:s,s:s}", "status", "interrupted", "error", reason);
        } else if (role == VP_ROLE_RUN) {
            struct vp_params params;
            step_params(step, point, world->rank, &run->servers, &params);
            settings.sync = &together.sync;
            result = vp_engine_run(point->bench, &params, point->jobs, &settings);
        } else if (vp_together_wait(&together, reason, sizeof reason) != 0) {
            stopped = true;
        }
        vp_progress_clear(progress);
        if (world->rank == 0) {
            struct vp_params params;
            result_params(step, point, part->topology_kind, &params);
            struct vp_gather_step what = {
                .step = step, .point = point, .params = &params, .members = run->members,
                .member_count = step_members(step, world->size, run->members),
                .topology = part->topology_kind, .labels = run->servers.labels,
                .fingerprints = run->fingerprints, .began_ns = began_ns,
            };
            json_t *combined = vp_gather_step(world, &together, &what, &settings, result,
                                              &stopped);
            if (run_step->name)
                json_object_set_new(combined, "step", json_string(run_step->name));
            json_t *ranks = json_object_get(combined, "ranks");
            if (ranks) /* --start-with: how the repetitions began */
                json_object_set_new(ranks, "start_with",
                                    json_string(part->barrier ? "barrier" : "instant"));
            vp_run_session_add(session, combined);
            json_decref(combined);
        }
        stopped = stopped || vp_engine_interrupted() || vp_liveness_dead() >= 0;
        json_decref(result);
        vp_together_end(&together);
        vp_mpi_transport_end(&transport);
        if (stopped && world->rank == 0 && vp_liveness_dead() >= 0 && last_result_ok(session))
            say_death_between_points(world);
    }
    return stopped;
}

/* A signal, not a rank gone. */
static bool run_interrupted(void *context)
{
    (void)context;
    return vp_engine_interrupted() && vp_liveness_dead() < 0;
}

static int close_run(void *context, int status, bool stopped)
{
    struct mpi_run *run = context;
    vp_servers_stop(&run->servers, run->world->size);
    vp_mpi_members_close(&run->here);
    started_members = NULL;
    if (stopped)
        vp_world_abandon(run->world, status); /* a rank is gone or a signal came: mpirun stops the rest */
    return status;
}

int vp_mpi_run(const struct vp_world *world, int argc, char **argv)
{
    int count;
    char **words = words_of_rank0(world, argc, argv, &count);
    char *words_blob = words[0];
    for (int i = 1; i < count; i++) {
        if (strcmp(words[i], "--help") == 0 || strcmp(words[i], "-h") == 0) {
            if (world->rank == 0)
                print_usage();
            free(words_blob);
            free(words);
            return 0;
        }
    }
    static struct vp_run_steps steps;
    static struct mpi_run run;
    run = (struct mpi_run){ .world = world, .servers = { .own = -1 }, .argc = count,
                            .argv = words };
    char err[VP_PATH_ERROR_LEN];
    int built = steps_of_words(world, count, words, &steps, err, sizeof err);
    /* (each --group's settings are checked with it, the run's over the group's) */
    const struct vp_env_kind *kind = built == 0 ? steps.guests.kind : NULL;
    if (built == 0 && ((!steps.guests.group_count &&
                        vp_run_members_check(&steps.guests, kind, err, sizeof err) != 0) ||
                       vp_mpi_members_refused(&run.here, &steps, err, sizeof err) != 0))
        built = -1;
    settle_refusals(world, built == 0 ? NULL : err, VP_EXIT_USAGE);
    char refusal[REFUSAL_LEN] = "";
    for (size_t s = 0; s < steps.count && !refusal[0]; s++) {
        if (prepare_part(world, &steps, s, &run.parts[s], err, sizeof err) == 0)
            continue;
        if (steps.step[s].name)
            snprintf(refusal, sizeof refusal, "plan step [%.60s]: %.900s", steps.step[s].name, err);
        else
            snprintf(refusal, sizeof refusal, "%.1000s", err);
    }
    settle_refusals(world, refusal[0] ? refusal : NULL, VP_EXIT_USAGE); /* every rank's steps built, or every rank stops */

    run.part_count = steps.count;
    run.members = calloc((size_t)world->size, sizeof *run.members);
    if (!run.members)
        abort();
    const struct vp_runner runner = {
        .program = "virtperf-mpi run", .keeps_session = world->rank == 0, .context = &run,
        .settle = settle_run, .open = open_run, .fingerprint = gather_fingerprints,
        .repetitions = rank_repetitions, .run_step = run_part,
        .interrupted = run_interrupted, .close = close_run,
    };
    int status = vp_run_execute(&runner, &steps, argc, argv);
    for (int r = 0; run.fingerprints && r < world->size; r++)
        json_decref(run.fingerprints[r]);
    free(run.fingerprints);
    free(run.members);
    for (size_t p = 0; p < steps.count; p++) {
        free(run.parts[p].comms.of_step);
        vp_layout_free(&run.parts[p].layout);
    }
    vp_run_steps_free(&steps);
    free(words_blob);
    free(words);
    return status;
}
