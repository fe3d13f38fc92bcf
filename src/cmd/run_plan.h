/* Plan files: a run kept as an INI file (read by inih), as fio keeps its jobs. [global]
 * holds run options for every step; each other section is a step: `bench = WORDS`, then
 * its benchmark options and run options under the same names as run's flags. A plan
 * stands for one `virtperf run` command line per step, is validated by run's own flag
 * parser and option tables (every error names FILE:LINE), and runs as one stored run
 * that keeps the plan's text. */
#ifndef VP_CMD_RUN_PLAN_H
#define VP_CMD_RUN_PLAN_H

/* `virtperf run --plan FILE [--set STEP.KEY=VALUE]... [--dry-run] [--label L] [--db P]
 * [--json F] [--quiet]` (argv[0] is "run"). */
int vp_run_plan(int argc, char **argv);
/* Whether run's arguments ask for a plan (--plan anywhere). */
int vp_run_wants_plan(int argc, char **argv);
/* `virtperf plan-check FILE [--set ...]`: validates without running. */
int cmd_plan_check(int argc, char **argv);

#endif
