/* `virtperf run`'s parts that virtperf-mpi shares: its flags, and a run session that
 * stores, prints and accounts for each result as it finishes and ends the run with the
 * right status, JSON document and exit code. */
#ifndef VP_CMD_RUN_H
#define VP_CMD_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "cmd/common.h"
#include "core/progress.h"
#include "core/topology.h"
#include "engine/engine.h"
#include "engine/plan.h"

#define VP_RUN_MAX_WATCH 8
#define VP_RUN_MAX_WORDS 64 /* benchmarks named on one command line, with --background */

/* The flags of a run that are not the plan's. */
struct vp_run_request {
    struct vp_plan_request plan;
    const char *label, *db, *json;
    double monitor_hz;
    char *watch[VP_RUN_MAX_WATCH];
    size_t watch_count;
    bool quiet;
    const char *background; /* --background: a watch beside the others (net.probe) */
};

/* Parses run's flags (argv[0] is "run"); exits 2 on bad input, 0 after --help. */
void vp_run_parse(struct vp_run_request *request, int argc, char **argv);
void vp_run_print_usage(void);
/* The plan of the request, built and checked against this machine (its topology in
 * *topology); exits 2 with one line when either refuses. */
void vp_run_prepare(const struct vp_run_request *request, struct vp_plan *plan,
                    struct vp_topology **topology);
/* "PROGRAM ARG ..." from argv[1..], for the run's stored command; free it. */
char *vp_run_command_line(const char *program, int argc, char **argv);

struct vp_run_session {
    const struct vp_run_request *request;
    struct vp_store *store;
    int64_t run_id;
    struct vp_json_output json_output;
    FILE *table;        /* stdout, or stderr when the JSON document goes to stdout */
    json_t *lost;       /* results the database refused: [[position, result]] */
    json_t *results;    /* every result, for the summary lines at the end */
    size_t count;
    bool any_failed;
};

/* Opens the --json target and the store; exits 2 on a bad target or store. */
void vp_run_session_open(struct vp_run_session *session, const struct vp_run_request *request);
/* Begins the run with host as its fingerprint and prints its heading; exits 1 when the
 * run cannot be begun. */
void vp_run_session_begin(struct vp_run_session *session, const json_t *host,
                          const char *command);
/* Stores and prints one result (kept for the JSON document when the store refuses it). */
void vp_run_session_add(struct vp_run_session *session, json_t *result);
/* The engine's settings for the points of plan, as request asks. */
struct vp_run_settings vp_run_settings_of(const struct vp_run_request *request,
                                          const struct vp_plan *plan,
                                          struct vp_topology *topology,
                                          struct vp_progress *progress);
/* Runs every point of plan (until Ctrl-C) and adds each result to the session, marked
 * with the plan file's step it belongs to (NULL: none). */
void vp_run_points(struct vp_run_session *session, const struct vp_run_request *request,
                   const struct vp_plan *plan, struct vp_topology *topology,
                   struct vp_progress *progress, const char *step);
/* Marks the run, writes the JSON document, says where the results are; returns the exit
 * status (0, 1 when a result failed or was not stored, 130 when interrupted). */
int vp_run_session_end(struct vp_run_session *session, bool interrupted);

#endif
