/* The subcommands, one file each, and what they build on. */
#ifndef VP_CMD_COMMANDS_H
#define VP_CMD_COMMANDS_H

#include "core/options.h" /* VP_ERROR_LEN */
#include "core/units.h"
#include "run/cli.h"
#include "run/shared_flags.h"
#include "store/store.h"

int cmd_run(int argc, char **argv);
int cmd_plan_check(int argc, char **argv);
int cmd_guest_agent(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_sysinfo(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_scaling(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_data(int argc, char **argv);

/* The flag tables of the subcommands that have flags beyond --help (run's is
 * run/run_flags.h's), for their --help and the manual. */
extern const struct vp_command_table vp_compare_flags, vp_report_flags, vp_matrix_flags,
    vp_scaling_flags, vp_plan_flags, vp_serve_flags, vp_results_flags, vp_data_flags,
    vp_sysinfo_flags, vp_list_flags;

#endif
