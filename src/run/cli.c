/* Usage errors, units, store opening and atomic JSON output (cli.h). */
#include "run/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <glob.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


void vp_usage_error(const char *format, ...)
{
    char message[8192];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    fprintf(stderr, "virtperf: %s\n", message);
    exit(VP_EXIT_USAGE);
}

static enum vp_unit_style cli_units = VP_UNITS_FIELD;

void vp_cli_set_units(enum vp_unit_style units)
{
    cli_units = units;
}

enum vp_unit_style vp_cli_units(void)
{
    return cli_units;
}

int vp_cli_store_open(const char *db_flag, struct vp_store **store, char *err, size_t err_len)
{
    char path[4096];
    if (db_flag) {
        if (!*db_flag) {
            snprintf(err, err_len, "--db: empty path; accepted: a file path for a SQLite "
                     "database, or postgresql://[USER@]HOST[:PORT]/DATABASE");
            return -1;
        }
        snprintf(path, sizeof path, "%s", db_flag);
    } else if (vp_store_default_path(path, sizeof path) != 0) {
        snprintf(err, err_len, "no database path: set VIRTPERF_DB, XDG_DATA_HOME or HOME, or "
                 "give --db");
        return -1;
    }
    return vp_store_open(path, store, err, err_len);
}

struct vp_store *vp_cli_open_store(const char *db_flag)
{
    struct vp_store *store;
    char err[VP_PATH_ERROR_LEN];
    int opened = vp_cli_store_open(db_flag, &store, err, sizeof err);
    if (opened == VP_STORE_UNAVAILABLE) { /* a server that is down or refuses */
        fprintf(stderr, "virtperf: %s\n", err);
        exit(1);
    }
    if (opened != 0)
        vp_usage_error("%s", err);
    return store;
}

void vp_cli_store_refusal(const struct vp_store *store, const char *what, const char *err)
{
    if (!vp_store_damaged(store))
        vp_usage_error("%s%s", what, err);
    fprintf(stderr, "virtperf: %s%s\n", what, err);
    exit(1);
}

/* Removes path.tmp-PID files that a killed virtperf left beside path (their PID is gone). */
static void sweep_stale_temps(const char *path)
{
    char pattern[4300];
    snprintf(pattern, sizeof pattern, "%s.tmp-*", path);
    glob_t found;
    if (glob(pattern, GLOB_NOSORT, NULL, &found) != 0)
        return;
    for (size_t i = 0; i < found.gl_pathc; i++) {
        char *end;
        long pid = strtol(strrchr(found.gl_pathv[i], '-') + 1, &end, 10);
        struct stat info;
        if (*end == '\0' && pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH &&
            lstat(found.gl_pathv[i], &info) == 0 && S_ISREG(info.st_mode) &&
            info.st_uid == geteuid())
            unlink(found.gl_pathv[i]);
    }
    globfree(&found);
}

int vp_json_output_open(struct vp_json_output *output, const char *flag, const char *path,
                        char *err, size_t err_len)
{
    memset(output, 0, sizeof *output);
    snprintf(output->flag, sizeof output->flag, "%s", flag);
    output->to_stdout = strcmp(path, "-") == 0;
    if (output->to_stdout)
        return 0;
    if (!*path || strlen(path) >= sizeof output->path) {
        snprintf(err, err_len, "%s: '%s' is not a usable path; accepted: a file path or -",
                 flag, path);
        return -1;
    }
    snprintf(output->path, sizeof output->path, "%s", path);
    /* Checked now, written at the end: nothing is created before there is something to
     * write, so a refusal in between leaves no file behind. */
    char directory[4096];
    snprintf(directory, sizeof directory, "%s", path);
    char *slash = strrchr(directory, '/');
    if (slash)
        slash[slash == directory ? 1 : 0] = '\0';
    struct stat info;
    const char *where = slash ? directory : ".";
    if (lstat(path, &info) == 0 && !S_ISREG(info.st_mode)) {
        output->through = S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode);
        if (output->through && access(path, W_OK) == 0)
            return 0;
        const char *kind = S_ISDIR(info.st_mode) ? "a directory" : S_ISLNK(info.st_mode)
                           ? "a symbolic link" : S_ISBLK(info.st_mode) ? "a block device"
                           : S_ISSOCK(info.st_mode) ? "a socket" : "not writable";
        snprintf(err, err_len, "%s: '%s' is %s; accepted: a regular file path, a character "
                 "device or FIFO it can write, or -", flag, path, kind);
        return -1;
    }
    if (access(where, W_OK) != 0) {
        snprintf(err, err_len, "%s: cannot write '%s': %s", flag, path, strerror(errno));
        return -1;
    }
    sweep_stale_temps(path);
    snprintf(output->temp_path, sizeof output->temp_path, "%s.tmp-%d", path, (int)getpid());
    return 0;
}

/* The temporary file, made new (never through a link or over another file). */
static FILE *create_temp(struct vp_json_output *output)
{
    int fd = open(output->temp_path, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0644);
    FILE *file = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && !file)
        close(fd);
    return file;
}

/* The character device or FIFO the target is, opened as it is (no link followed). */
static FILE *open_through(const struct vp_json_output *output)
{
    int fd = open(output->path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    struct stat info;
    if (fd >= 0 && (fstat(fd, &info) != 0 || !(S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)))) {
        close(fd); /* it became something else since it was checked */
        errno = EEXIST;
        return NULL;
    }
    FILE *file = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && !file)
        close(fd);
    return file;
}

#define DOCUMENT_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(17))

/* What a commit writes: text as it is, or a document encoded on its way into the file. */
struct output_content {
    const char *text;
    size_t len;
    const json_t *document; /* set: encoded into the file, no text of it held whole */
};

static bool write_content(FILE *file, const struct output_content *content)
{
    if (!content->document)
        return fwrite(content->text, 1, content->len, file) == content->len;
    if (json_dumpf(content->document, file, DOCUMENT_FLAGS) == 0)
        return true;
    if (!ferror(file))
        errno = EINVAL; /* jansson refused a value, not the file */
    return false;
}

/* Writes content through a temporary file renamed into place, to a device or FIFO as it
 * is, or to stdout. */
static int commit(struct vp_json_output *output, const struct output_content *content,
                  char *err, size_t err_len)
{
    FILE *file = output->to_stdout ? stdout
                 : output->through ? open_through(output) : create_temp(output);
    bool ok = file && write_content(file, content);
    if (file == stdout)
        ok = fflush(stdout) == 0 && ok;
    else if (file)
        ok = fclose(file) == 0 && ok;
    if (ok && !output->to_stdout && !output->through)
        ok = rename(output->temp_path, output->path) == 0;
    if (!ok) {
        snprintf(err, err_len, "%s: cannot write '%s': %s", output->flag,
                 output->to_stdout ? "-" : output->path, strerror(errno));
        if (file && file != stdout && !output->through)
            unlink(output->temp_path);
        return -1;
    }
    return 0;
}

int vp_json_output_commit(struct vp_json_output *output, const json_t *document, char *err,
                          size_t err_len)
{
    /* A file is written through a temporary one, so the document goes straight in (at
     * 20,000 compared results its text is 48 MB); stdout, a device or a FIFO get all of
     * it or nothing, so it is made whole first. */
    if (!output->to_stdout && !output->through)
        return commit(output, &(struct output_content){ .document = document }, err, err_len);
    char *text = json_dumps(document, DOCUMENT_FLAGS);
    if (!text) {
        snprintf(err, err_len, "%s: the document cannot be written as JSON", output->flag);
        return -1;
    }
    int status = commit(output, &(struct output_content){ .text = text, .len = strlen(text) },
                        err, err_len);
    if (status == 0 && output->to_stdout && (fputc('\n', stdout) == EOF || fflush(stdout) != 0)) {
        snprintf(err, err_len, "%s: cannot write '-': %s", output->flag, strerror(errno));
        status = -1;
    }
    free(text);
    return status;
}

int vp_output_commit_text(struct vp_json_output *output, const char *data, size_t len, char *err,
                          size_t err_len)
{
    return commit(output, &(struct output_content){ .text = data, .len = len }, err, err_len);
}
