/* Usage errors, store opening and atomic JSON output for the subcommands. */
#include "cmd/common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


void vp_usage_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("virtperf: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(VP_EXIT_USAGE);
}

struct vp_store *vp_cli_open_store(const char *db_flag)
{
    char path[4096];
    if (db_flag) {
        if (!*db_flag)
            vp_usage_error("--db: empty path; accepted: a file path for the SQLite database");
        snprintf(path, sizeof path, "%s", db_flag);
    } else if (vp_store_default_path(path, sizeof path) != 0) {
        vp_usage_error("no database path: set VIRTPERF_DB, XDG_DATA_HOME or HOME, or give --db");
    }
    struct vp_store *store;
    char err[VP_ERROR_LEN + 4200];
    if (vp_store_open(path, &store, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    return store;
}

int vp_json_output_open(struct vp_json_output *output, const char *path, char *err,
                        size_t err_len)
{
    memset(output, 0, sizeof *output);
    output->to_stdout = strcmp(path, "-") == 0;
    if (output->to_stdout)
        return 0;
    if (!*path || strlen(path) >= sizeof output->path) {
        snprintf(err, err_len, "--json: '%s' is not a usable path; accepted: a file path or -",
                 path);
        return -1;
    }
    snprintf(output->path, sizeof output->path, "%s", path);
    snprintf(output->temp_path, sizeof output->temp_path, "%s.tmp-%d", path, (int)getpid());
    FILE *probe = fopen(output->temp_path, "w");
    if (!probe) {
        snprintf(err, err_len, "--json: cannot write '%s': %s", path, strerror(errno));
        output->temp_path[0] = '\0';
        return -1;
    }
    fclose(probe);
    return 0;
}

int vp_json_output_commit(struct vp_json_output *output, const json_t *document, char *err,
                          size_t err_len)
{
    int flags = JSON_INDENT(2) | JSON_REAL_PRECISION(17);
    if (output->to_stdout) {
        int rc = json_dumpf(document, stdout, flags);
        fputc('\n', stdout);
        fflush(stdout);
        return rc;
    }
    if (json_dump_file(document, output->temp_path, flags) != 0 ||
        rename(output->temp_path, output->path) != 0) {
        snprintf(err, err_len, "cannot write '%s': %s", output->path, strerror(errno));
        vp_json_output_abandon(output);
        return -1;
    }
    output->temp_path[0] = '\0';
    return 0;
}

int vp_output_commit_text(struct vp_json_output *output, const char *data, size_t len, char *err,
                          size_t err_len)
{
    FILE *file = output->to_stdout ? stdout : fopen(output->temp_path, "w");
    int ok = file && fwrite(data, 1, len, file) == len;
    if (file && file != stdout)
        ok = fclose(file) == 0 && ok;
    if (ok && !output->to_stdout)
        ok = rename(output->temp_path, output->path) == 0;
    if (!ok) {
        snprintf(err, err_len, "cannot write '%s': %s", output->to_stdout ? "-" : output->path,
                 strerror(errno));
        vp_json_output_abandon(output);
        return -1;
    }
    output->temp_path[0] = '\0';
    return 0;
}

void vp_json_output_abandon(struct vp_json_output *output)
{
    if (output->temp_path[0])
        unlink(output->temp_path);
    output->temp_path[0] = '\0';
}

json_t *vp_cli_load_run(const char *db, const char *ref)
{
    char err[VP_ERROR_LEN + 256];
    struct vp_store *store = vp_cli_open_store(db);
    int64_t run_id;
    json_t *document;
    if (vp_store_resolve_run(store, ref, &run_id, err, sizeof err) != 0 ||
        vp_store_export_run(store, run_id, &document, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    vp_store_close(store);
    return document;
}

double vp_parse_margin(const char *text)
{
    char *end;
    double margin = strtod(text, &end) / 100;
    if (end == text || (*end && strcmp(end, "%") != 0) || !(margin >= 0 && margin < 1))
        vp_usage_error("--margin: '%s' is not valid; accepted: a percentage from 0 to 99, such "
                       "as 2 or 2%%", text);
    return margin;
}
