/* The one run executor: whatever runs the benchmarks (this host, the ranks of an MPI
 * launch, and next the guests and containers virtperf starts), a run is steps (a command
 * line is a one-step plan), and the executor opens the session, collects the
 * fingerprint, begins the stored run, runs each step through a runner, stores and prints
 * every result as it finishes and ends the run with the right status, JSON document and
 * exit code. A runner says who runs, when they start, and how their results come back. */
#ifndef VP_CMD_EXECUTOR_H
#define VP_CMD_EXECUTOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "run/cli.h"
#include "run/run_flags.h"
#include "core/progress.h"
#include "core/topology.h"
#include "engine/engine.h"
#include "engine/plan.h"

#define VP_RUN_MAX_STEPS 64
#define VP_RUN_MAX_NOTES 16

/* One step: its command line (argv[0] "run"), what it asks and the plan built from it. */
struct vp_run_step {
    const char *name; /* the plan's section; NULL for a command line */
    int argc;
    char **argv;
    bool owned; /* name and argv are the step's, freed with it (a plan's) */
    struct vp_run_request request;
    struct vp_plan plan;
    /* a plan step's own guests = / containers = SPEC (NULL: the run's; owned with the
     * step), its kind, and its and-host = line */
    const char *members_spec;
    const struct vp_env_kind *members_kind;
    enum { VP_STEP_AND_HOST_OF_RUN, VP_STEP_AND_HOST_ON, VP_STEP_AND_HOST_OFF } and_host;
};

/* A run: its steps, the session's own flags, and for a plan its text and notes. */
struct vp_run_steps {
    struct vp_run_step step[VP_RUN_MAX_STEPS];
    size_t count;
    const char *label, *db, *json;
    char *plan_session[3];             /* the label, db and json a plan's [global] gave */
    bool quiet;
    struct vp_guests_request guests;   /* --guests / --containers and their flags */
    bool guests_owned;                 /* its texts are the run's (a plan's), freed with it */
    char *kept_text;                   /* the plan's text, kept with the run; NULL: none */
    char *notes[VP_RUN_MAX_NOTES];     /* what one host does instead of what needs many */
    size_t note_count;
    struct vp_topology *topology;      /* this machine's, once loaded */
};

/* The run's own flags (label, db, json, quiet, the members and their settings) taken
 * from session: a command line's request, or what a plan's compiler merged. */
void vp_run_steps_take_session(struct vp_run_steps *steps, const struct vp_run_request *session);
/* Whether a command's words ask for a plan (--plan anywhere). */
bool vp_run_words_want_plan(int argc, char **argv);
/* A command line (argv[0] "run") as a one-step run: its request parsed with the flags of
 * scopes and the run's own flags taken from it; the plan is not built. -1 with err. */
int vp_run_steps_of_command_line(struct vp_run_steps *steps, int argc, char **argv,
                                 unsigned scopes, char *err, size_t err_len);

/* Builds each step's plan from its request; -1 with err (named by the step) on refusal. */
int vp_run_steps_build(struct vp_run_steps *steps, char *err, size_t err_len);
/* Which steps a machine checks against itself: every one (plan check --here), those this
 * host runs (alone, or beside its guests or containers), those its members run. */
enum vp_steps_checked { VP_CHECK_EVERY_STEP, VP_CHECK_THIS_HOSTS, VP_CHECK_MEMBERS };
/* Checks those steps' plans against this machine (loading steps->topology); a named
 * step's refusal starts with "[NAME]: ". */
int vp_run_steps_check_here(struct vp_run_steps *steps, enum vp_steps_checked which, char *err,
                            size_t err_len);
void vp_run_steps_free(struct vp_run_steps *steps);
/* Whether step runs in guests or containers: its own guests = / containers = line, or the
 * run's --guests / --containers. */
bool vp_run_step_in_members(const struct vp_run_steps *steps, const struct vp_run_step *step);
/* Whether step's jobs also run on this host, beside its guests or containers: its own
 * and-host line, else the run's --and-host. */
bool vp_run_step_and_host(const struct vp_run_steps *steps, const struct vp_run_step *step);

/* The stored run while it runs. */
struct vp_run_session {
    struct vp_store *store;
    int64_t run_id;
    const char *label, *json;
    struct vp_json_output json_output;
    FILE *table;     /* stdout, or stderr when the JSON document goes to stdout */
    json_t *lost;    /* results the database refused: [[position, result]] */
    json_t *results; /* every result, for the summary lines at the end */
    json_t *begun;   /* the run's document as begun (no results): the JSON document's
                      * frame when the store cannot be read at the end (a server gone) */
    size_t count;
    bool any_failed;
};

/* Stores and prints one result (kept for the JSON document when the store refuses it). */
void vp_run_session_add(struct vp_run_session *session, json_t *result);

/* The engine's settings for one step's points, as its request asks. */
struct vp_run_settings vp_run_settings_of(const struct vp_run_step *step,
                                          struct vp_topology *topology,
                                          struct vp_progress *progress);

/* Who runs a run's steps. Every hook but run_step may be NULL. */
struct vp_runner {
    const char *program; /* "virtperf run": the stored command's first words */
    bool keeps_session;  /* this process stores the results (one host; rank 0) */
    void *context;
    /* Every participant's say: refusal is this one's reason not to go on (NULL: none),
     * exit_status the status it means (2 for a mistake in the command, 1 for a results
     * store that is down or refusing); returns only when no one refused. NULL: a refusal
     * is printed, exit with its status. */
    void (*settle)(void *context, const char *refusal, int exit_status);
    /* Before the session opens: what the run needs first (servers); -1 with err. */
    int (*open)(void *context, struct vp_run_steps *steps, char *err, size_t err_len);
    /* This host's fingerprint, before the run begins, taken from topology (NULL: the
     * executor takes it): a runner whose processes share machines takes it once a machine
     * and gathers them all; NULL where this process keeps no session. */
    json_t *(*fingerprint)(void *context, const struct vp_topology *topology);
    /* The repetitions this process shows progress for (NULL: every point's). */
    unsigned (*repetitions)(void *context, const struct vp_run_steps *steps);
    /* Once the run has begun, before the first step (signals, a background watch). */
    void (*begin)(void *context, const struct vp_run_steps *steps,
                  struct vp_progress *progress);
    /* Runs one step, adding each result to session (NULL where this process does not
     * keep it); returns true when the run must stop. */
    bool (*run_step)(void *context, const struct vp_run_steps *steps, size_t index,
                     struct vp_run_session *session, struct vp_progress *progress);
    /* After the last step, before the run ends (a background watch's result). */
    void (*finish)(void *context, struct vp_run_session *session);
    /* Whether the run was interrupted, not stopped by a failure (NULL: a signal came). */
    bool (*interrupted)(void *context);
    /* After the run ended with status; returns the process's exit status. */
    int (*close)(void *context, int status, bool stopped);
};

/* Runs steps (built and checked) with runner; argc/argv are the command's, stored.
 * Returns the exit status (0, 1 when a result failed or was not stored, 2 refused before
 * anything was stored, 130 interrupted). */
int vp_run_execute(const struct vp_runner *runner, struct vp_run_steps *steps, int argc,
                   char **argv);

/* The local runner's step: every point of the step on this host. */
bool vp_run_step_here(const struct vp_run_steps *steps, size_t index,
                      struct vp_run_session *session, struct vp_progress *progress);

#endif
