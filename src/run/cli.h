/* What a command line's run and the subcommands share: exit statuses, usage errors, the
 * units --units chose, opening the store named by --db, and writing JSON documents (or
 * other text) without leaving half-written files. */
#ifndef VP_RUN_CLI_H
#define VP_RUN_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

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

#endif
