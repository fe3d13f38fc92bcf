/* Plan files: a run kept as an INI file (read by inih), as fio keeps its jobs. [global]
 * holds run options for every step; each other section is a step: `bench = WORDS`, then
 * its benchmark options and run options under the same names as run's flags. A plan
 * stands for one `virtperf run` command line per step; the compiler here turns its text
 * into the executor's steps, judging every value with run's own flag table and the
 * benchmarks' option tables, and every error names FILE:LINE. */
#ifndef VP_CMD_RUN_PLAN_H
#define VP_CMD_RUN_PLAN_H

#include <stdbool.h>

#include "run/executor.h"
#include "run/run_flags.h"

/* The flags of `run --plan FILE ...` or `plan-check FILE ...` (argv[0] names it): only
 * those taken beside a plan, the file by --plan or as the one word. 0, or -1 with err. */
int vp_plan_command(struct vp_run_request *command, int argc, char **argv, char *err,
                    size_t err_len);
/* The text of the plan file at path (at most 64 KiB, no NUL), or NULL with err. */
char *vp_plan_read_text(const char *path, char *err, size_t err_len);

/* Compiles text (the file command->plan_path names, with command's --set applied) into
 * steps: each step's command line, request and built plan (not yet checked against this
 * machine), the session's flags (the command line's, else [global]'s), the text the run
 * keeps and, on one host, notes for what needs many. for_mpi: ranks, topology and
 * start-with stay virtperf-mpi's flags. Returns 0, or -1 with err "FILE:LINE: ..." (or
 * "--set STEP.KEY: ..."); steps then holds nothing to free. */
int vp_plan_compile(const struct vp_run_request *command, const char *text, bool for_mpi,
                    struct vp_run_steps *steps, char *err, size_t err_len);

/* A command line's words (argv[0] "run") as a run's steps, built: a one-step run, or
 * with --plan the steps plan_text compiles to (the file itself is not read). -1 with err. */
int vp_run_steps_of_words(struct vp_run_steps *steps, int argc, char **argv,
                          const char *plan_text, char *err, size_t err_len);

#endif
