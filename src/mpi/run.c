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
#include "core/json.h"
#include "core/limits.h"
#include "core/sysinfo.h"
#include "core/topology.h"
#include "core/units.h"
#include "engine/combine.h"
#include "engine/engine.h"
#include "mpi/liveness.h"
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
           "\n"
           "The options of 'virtperf run':\n\n");
    vp_run_print_usage();
}

/* Takes --ranks SPEC / --ranks=SPEC out of the words; NULL when not given. */
static const char *take_ranks(int *count, char **words)
{
    const char *spec = NULL;
    int kept = 0;
    for (int i = 0; i < *count; i++) {
        if (strcmp(words[i], "--ranks") == 0 && i + 1 < *count)
            spec = words[++i];
        else if (strncmp(words[i], "--ranks=", 8) == 0)
            spec = words[i] + 8;
        else if (strcmp(words[i], "--ranks") == 0)
            vp_usage_error("--ranks: needs a value such as 4, 1,2,4 or 1..8");
        else
            words[kept++] = words[i];
    }
    words[kept] = NULL;
    *count = kept;
    return spec;
}

/* One rank's contribution to a point, on rank 0: its result and a view of its region. */
struct gathered {
    struct vp_host_part part;
    struct vp_shared view;
    void *region;
};

/* Receives rank peer's result and region for point; a failure becomes that rank's
 * failed result. Returns -1 when a rank died or a signal came (reason says which). */
static int receive_part(const struct vp_world *world, struct vp_together *together,
                        const struct vp_plan_point *point, double duration, int peer,
                        struct gathered *into, char *reason, size_t reason_len)
{
    void *text, *region;
    size_t text_len, region_len;
    if (vp_world_receive(world, &text, &text_len, peer, together->comm, reason, reason_len) != 0)
        return -1;
    into->part.result = json_loads(text, 0, NULL);
    free(text);
    if (vp_world_receive(world, &region, &region_len, peer, together->comm, reason,
                         reason_len) != 0)
        return -1;
    if (!json_is_object(into->part.result)) {
        json_decref(into->part.result);
        into->part.result = json_pack("{s:s,s:s}", "status", "failed", "error",
                                      "its result did not arrive as a JSON object");
    }
    json_int_t jobs = json_integer_value(json_object_get(into->part.result, "jobs"));
    if (region_len && jobs > 0 && jobs <= VP_MAX_JOBS &&
        vp_shared_layout(&into->view, point->bench, &point->params, (unsigned)jobs,
                         point->warmup + point->reps, duration) == region_len) {
        vp_shared_attach(&into->view, region);
        into->region = region;
        into->part.shared = &into->view;
    } else {
        free(region);
    }
    return 0;
}

/* Rank 0: every rank's part of the point combined into one result. When a rank died or
 * a signal came, the ranks not heard from are given that reason. */
static json_t *gather_point(const struct vp_world *world, struct vp_together *together,
                            const struct vp_plan_point *point,
                            const struct vp_run_settings *settings, json_t *own,
                            json_t *const *fingerprints, bool *stopped)
{
    size_t count = (size_t)together->comm_size;
    struct gathered *parts = calloc(count, sizeof *parts);
    if (!parts)
        abort();
    char reason[VP_ERROR_LEN] = "";
    double duration = settings->duration > 0 ? settings->duration : point->bench->default_duration;
    for (size_t r = 0; r < count; r++) {
        parts[r].part.rank = (int)r;
        parts[r].part.fingerprint = fingerprints[r];
        parts[r].part.clock_offset_ns = together->offsets[r];
        parts[r].part.offset_bound_ns = together->bounds[r];
        if (r == 0) {
            parts[0].part.result = json_incref(own);
            if (together->region) {
                vp_shared_layout(&parts[0].view, point->bench, &point->params,
                                 together->region_jobs, point->warmup + point->reps, duration);
                vp_shared_attach(&parts[0].view, together->region);
                parts[0].part.shared = &parts[0].view;
            }
        } else if (*stopped || receive_part(world, together, point, duration, (int)r, &parts[r],
                                            reason, sizeof reason) != 0) {
            *stopped = true;
            bool died = vp_liveness_dead() == (int)r;
            parts[r].part.result = json_pack(
                "{s:s,s:s}", "status", died ? "failed" : "interrupted", "error",
                died ? "died: its connection closed without a word (killed, or its host vanished)"
                     : "not heard from: the run stopped");
        }
    }
    struct vp_host_part *host_parts = calloc(count, sizeof *host_parts);
    if (!host_parts)
        abort();
    for (size_t r = 0; r < count; r++)
        host_parts[r] = parts[r].part;
    json_t *result = vp_combine_hosts(point->bench, &point->params, point->jobs, settings,
                                      host_parts, count, together->stonewall, together->span);
    int dead = vp_liveness_dead();
    if (dead >= 0 && (size_t)dead < count) { /* the cause, not the ranks it stopped */
        char cause[VP_ERROR_LEN];
        snprintf(cause, sizeof cause, "rank %d (%s): %s", dead, world->hosts[dead],
                 json_string_value(json_object_get(parts[dead].part.result, "error")));
        vp_result_finish(result, "failed", cause);
    }
    for (size_t r = 0; r < count; r++) {
        json_decref(parts[r].part.result);
        free(parts[r].region);
    }
    free(host_parts);
    free(parts);
    return result;
}

/* Another rank: its result and its region (empty unless it ran ok) to rank 0. */
static int send_part(const struct vp_world *world, struct vp_together *together, json_t *result)
{
    char reason[VP_ERROR_LEN];
    char *text = json_dumps(result, JSON_COMPACT);
    int status = vp_world_send(world, text, strlen(text), 0, together->comm, reason,
                               sizeof reason);
    free(text);
    if (status == 0)
        status = vp_world_send(world, together->region, together->region_len, 0, together->comm,
                               reason, sizeof reason);
    return status;
}

/* This rank's fingerprint to rank 0; there, every rank's, by rank. */
static json_t **gather_fingerprints(const struct vp_world *world, const json_t *own)
{
    char reason[VP_ERROR_LEN];
    char *text = json_dumps(own, JSON_COMPACT);
    json_t **all = NULL;
    if (world->rank != 0) {
        if (vp_world_send(world, text, strlen(text), 0, MPI_COMM_WORLD, reason, sizeof reason) != 0)
            vp_world_abandon(world, 1);
    } else {
        all = calloc((size_t)world->size, sizeof *all);
        if (!all)
            abort();
        all[0] = json_incref((json_t *)own);
        for (int r = 1; r < world->size; r++) {
            void *data;
            size_t len;
            if (vp_world_receive(world, &data, &len, r, MPI_COMM_WORLD, reason, sizeof reason) != 0) {
                fprintf(stderr, "virtperf-mpi: %s\n", reason);
                vp_world_abandon(world, 1);
            }
            all[r] = json_loads(data, 0, NULL);
            free(data);
            if (!all[r])
                all[r] = json_pack("{s:s}", "hostname", world->hosts[r]);
        }
    }
    free(text);
    return all;
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
    const char *ranks_spec = take_ranks(&count, words);
    struct vp_run_request request;
    vp_run_parse(&request, count, words);
    unsigned rank_counts[VP_MAX_JOBS];
    size_t rank_count_n = 1;
    rank_counts[0] = (unsigned)world->size;
    if (ranks_spec && vp_parse_jobs_spec(ranks_spec, (unsigned)world->size, rank_counts,
                                         VP_MAX_JOBS, &rank_count_n) != 0)
        vp_usage_error("--ranks: '%s' is not valid; accepted: a count, a list such as 1,2,4 or a "
                       "range such as 1..4, each from 1 to %d (the ranks launched)", ranks_spec,
                       world->size);
    char err[VP_ERROR_LEN + 4200];
    struct vp_plan plan;
    if (vp_plan_build(&request.plan, &plan, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    struct vp_topology *topology;
    if (vp_topology_load(&topology, NULL, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    if (vp_plan_check(&plan, topology, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    struct vp_run_session session;
    if (world->rank == 0)
        vp_run_session_open(&session, &request);
    settle_refusals(NULL);
    vp_set_usage_error_hook(NULL);

    json_t *host = vp_sysinfo_collect(topology);
    json_t **fingerprints = gather_fingerprints(world, host);
    MPI_Comm *comms = calloc(rank_count_n, sizeof *comms);
    if (!comms)
        abort();
    for (size_t i = 0; i < rank_count_n; i++)
        MPI_Comm_split(MPI_COMM_WORLD, world->rank < (int)rank_counts[i] ? 0 : MPI_UNDEFINED,
                       world->rank, &comms[i]);
    if (world->rank == 0) {
        char *command = vp_run_command_line("virtperf-mpi run", argc, argv);
        vp_run_session_begin(&session, host, command);
        free(command);
    }

    struct vp_progress progress;
    vp_progress_init(&progress, plan.total_reps * (unsigned)rank_count_n,
                     world->rank == 0 && !request.quiet);
    struct vp_run_settings settings = {
        .duration = plan.duration, .monitor_hz = request.monitor_hz, .watch = request.watch,
        .watch_count = request.watch_count, .topology = topology,
        .progress = world->rank == 0 ? &progress : NULL,
    };
    bool stopped = false;
    char reason[VP_ERROR_LEN] = "";
    for (size_t p = 0; p < plan.count && !stopped; p++) {
        const struct vp_plan_point *point = &plan.points[p];
        settings.pin_spec = point->pin;
        settings.reps = point->reps;
        settings.warmup = point->warmup;
        for (size_t i = 0; i < rank_count_n && !stopped; i++) {
            if (comms[i] == MPI_COMM_NULL)
                continue; /* this rank idles while the first k run */
            struct vp_together together;
            json_t *result;
            if (vp_together_begin(&together, world, comms[i], point->warmup,
                                  point->warmup + point->reps, reason, sizeof reason) != 0) {
                stopped = true;
                result = json_pack("{s:s,s:s}", "status", "interrupted", "error", reason);
            } else {
                settings.sync = &together.sync;
                result = vp_engine_run(point->bench, &point->params, point->jobs, &settings);
            }
            vp_progress_clear(&progress);
            if (world->rank == 0) {
                json_t *combined = gather_point(world, &together, point, &settings, result,
                                                fingerprints, &stopped);
                vp_run_session_add(&session, combined);
                json_decref(combined);
            } else if (stopped || send_part(world, &together, result) != 0) {
                stopped = true;
            }
            stopped = stopped || vp_engine_interrupted() || vp_liveness_dead() >= 0;
            json_decref(result);
            vp_together_end(&together);
        }
    }
    vp_progress_clear(&progress);
    int status = 0;
    bool interrupted = vp_engine_interrupted() && vp_liveness_dead() < 0;
    if (world->rank == 0)
        status = vp_run_session_end(&session, interrupted);
    else if (stopped)
        status = interrupted ? VP_EXIT_INTERRUPTED : 1;
    if (stopped)
        vp_world_abandon(world, status); /* a rank is gone or a signal came: mpirun stops the rest */
    for (int r = 0; fingerprints && r < world->size; r++)
        json_decref(fingerprints[r]);
    free(fingerprints);
    json_decref(host);
    free(comms);
    vp_plan_free(&plan);
    vp_topology_free(topology);
    free(words_blob);
    free(words);
    return status;
}
