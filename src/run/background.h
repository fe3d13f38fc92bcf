/* run --background BENCH: a watch (a benchmark that ends_on_interrupt, net.probe) run in
 * a process of its own beside every other point of the run, and stopped when they end,
 * so that an interruption is measured while the machine is busy. */
#ifndef VP_BACKGROUND_H
#define VP_BACKGROUND_H

#include <jansson.h>
#include <sys/types.h>

#include "engine/engine.h"
#include "engine/plan.h"

#define VP_BACKGROUND_MAX_S 3600.0 /* the longest a background watch runs */

struct vp_background {
    pid_t pid;
    int fd; /* its result document arrives here */
    struct vp_plan_point point;
    struct vp_run_settings settings; /* its own: one repetition of up to the cap */
};

/* Takes the points of the bench named name out of plan, keeping its first as one job and
 * one repetition; exits 2 when it is not a watch. Before anything is stored. */
void vp_background_take(struct vp_background *background, const char *name, struct vp_plan *plan);
/* Starts it, for up to VP_BACKGROUND_MAX_S, with settings' monitor and topology. */
void vp_background_start(struct vp_background *background, const struct vp_run_settings *settings);

/* Asks it to end (SIGUSR1: its repetition ends as on Ctrl-C, the run not interrupted) and
 * returns its result; a failed result when it died without one. */
json_t *vp_background_finish(struct vp_background *background);

#endif
