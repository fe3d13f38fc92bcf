/* Helpers shared by the subcommands: usage errors, opening the store named by --db,
 * and writing JSON documents without leaving half-written files. */
#ifndef VP_CMD_COMMON_H
#define VP_CMD_COMMON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "analysis/compare.h"

#include "core/options.h" /* VP_ERROR_LEN */
#include "core/units.h"
#include "store/store.h"

#define VP_EXIT_USAGE 2
#define VP_EXIT_INTERRUPTED 130

/* Prints "virtperf: MESSAGE" on stderr and exits with status 2. */
_Noreturn void vp_usage_error(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* How byte figures read (--units, any command): main sets it once from the command line
 * before the command runs; the commands hand it to every renderer (render/ and core/
 * keep none). */
void vp_cli_set_units(enum vp_unit_style units);
enum vp_unit_style vp_cli_units(void);

/* Opens the store at db_flag (a path or a postgresql:// URL), or the default one when it
 * is NULL; exits 2 when it cannot be used as given, 1 when it is a server that is down or
 * refusing. */
struct vp_store *vp_cli_open_store(const char *db_flag);
/* The same, returning -1 or VP_STORE_UNAVAILABLE with err instead of exiting. */
int vp_cli_store_open(const char *db_flag, struct vp_store **store, char *err, size_t err_len);
/* Exits for a read of the store that failed: 1 with err when the database is damaged
 * (vp_store_damaged), else 2, a refused reference; what (may be "") goes before err. */
__attribute__((noreturn)) void vp_cli_store_refusal(const struct vp_store *store,
                                                    const char *what, const char *err);

/* A JSON output target: "-" is stdout; a regular file (or a new one) is written to
 * FILE.tmp-PID and renamed into place on commit, so a reader never sees half a document;
 * a character device or a FIFO (/dev/null, a pipe) is written through as it is, never
 * replaced; a symbolic link, a socket, a block device or a directory is refused. Open
 * early (so an unwritable path is refused before work starts), commit at the end. */
struct vp_json_output {
    char flag[16]; /* the option that named it, for messages: "--json", "-o" */
    char path[4096];
    char temp_path[4200];
    int to_stdout;
    int through;   /* a character device or a FIFO: written to in place */
};
/* Checks that path ("-": stdout) can be written, creating nothing yet, and removes
 * temporary files a killed virtperf left beside it. */
int vp_json_output_open(struct vp_json_output *output, const char *flag, const char *path,
                        char *err, size_t err_len);
int vp_json_output_commit(struct vp_json_output *output, const json_t *document, char *err,
                          size_t err_len);
/* Commits text (an HTML page, CSV) the same way. */
int vp_output_commit_text(struct vp_json_output *output, const char *data, size_t len, char *err,
                          size_t err_len);

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
