/* Plan files: a run kept as an INI file (read by inih), as fio keeps its jobs. [global]
 * holds run options for every step; each other section is a step: `bench = WORDS`, then
 * its benchmark options and run options under the same names as run's flags. A plan
 * stands for one `virtperf run` command line per step, is validated by run's own flag
 * parser and option tables (every error names FILE:LINE), and runs as one stored run
 * that keeps the plan's text. */
#ifndef VP_CMD_RUN_PLAN_H
#define VP_CMD_RUN_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/run.h"

/* `virtperf run --plan FILE [--set STEP.KEY=VALUE]... [--dry-run] [--label L] [--db P]
 * [--json F] [--quiet]` (argv[0] is "run"). */
int vp_run_plan(int argc, char **argv);
/* Whether run's arguments ask for a plan (--plan anywhere). */
int vp_run_wants_plan(int argc, char **argv);
/* `virtperf plan-check FILE [--set ...]`: validates without running. */
int cmd_plan_check(int argc, char **argv);

/* virtperf-mpi's side. vp_plan_read: run's words checked (every rank does, so that a bad
 * flag is refused by all alike), then when read is true the text of the plan they name
 * (rank 0 reads it and sends it to every rank), or NULL with err saying why. vp_plan_steps_build: on
 * every rank alike, the plan's steps as run's words (each key checked as run --plan
 * checks it; `ranks` and `topology` kept as --ranks= and --topology=), the run's own
 * flags in session (label, db, json, quiet) and the text the run keeps; a usage error is
 * handed to refusal as one "FILE:LINE: ..." line (refusal must not return). */
#define VP_PLAN_MAX_STEPS 64
struct vp_plan_steps {
    size_t count;
    const char *names[VP_PLAN_MAX_STEPS];
    int argc[VP_PLAN_MAX_STEPS];
    char **argv[VP_PLAN_MAX_STEPS];
    struct vp_run_request session; /* only label, db, json and quiet */
    char *kept_text;
};
char *vp_plan_read(int argc, char **argv, bool read, char *err, size_t err_len);
void vp_plan_steps_build(int argc, char **argv, char *text, void (*refusal)(const char *),
                         struct vp_plan_steps *steps);

#endif
