/* The subcommands, and what several of them share beyond run/cli.h: loading a run,
 * compare's and report's flags. */
#ifndef VP_CMD_COMMON_H
#define VP_CMD_COMMON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "analysis/compare.h"

#include "core/options.h" /* VP_ERROR_LEN */
#include "core/units.h"
#include "run/cli.h"
#include "store/store.h"

/* The subcommands (one file each). */
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

/* --margin PCT ("2" or "2%") as a fraction; exits 2 unless 0 <= PCT < 100. */
double vp_parse_margin(const char *text);

/* What compare and report take alike: --margin PCT, --vary PARAM, --metric NAME
 * (repeatable), --normalize clock, --clock-ghz GHZ,GHZ... Give these codes to getopt_long; vp_compare_flag takes one it returned
 * (true) or says it is none of them (false), and exits 2 on a bad value. */
enum { VP_FLAG_MARGIN = 2000, VP_FLAG_VARY, VP_FLAG_METRIC, VP_FLAG_NORMALIZE,
       VP_FLAG_CLOCK_GHZ };
#define VP_MAX_METRIC_FLAGS 32
#define VP_COMPARE_FLAG_OPTIONS                                                             \
    { "margin", required_argument, NULL, VP_FLAG_MARGIN },                                  \
    { "vary", required_argument, NULL, VP_FLAG_VARY },                                      \
    { "metric", required_argument, NULL, VP_FLAG_METRIC },                                  \
    { "normalize", required_argument, NULL, VP_FLAG_NORMALIZE },                            \
    { "clock-ghz", required_argument, NULL, VP_FLAG_CLOCK_GHZ }
struct vp_compare_flags {
    struct vp_compare_options options;
    const char *metrics[VP_MAX_METRIC_FLAGS];
    double clock_ghz[64];
};
#define VP_COMPARE_FLAGS_DEFAULT { .options = { .margin = 0.02 } }
bool vp_compare_flag(int option, const char *value, struct vp_compare_flags *flags);

/* Loads a run's document (id, uuid, label or latest) from the store at db, or exits 2. */
json_t *vp_cli_load_run(const char *db, const char *ref);

#endif
