/* `virtperf data prepare`: lays out a fileset of seeded, incompressible files and its
 * manifest. The plan (names, sizes, seed) is written first, each file appears under its
 * name only once complete, the manifest last; Ctrl-C removes what was laid out. What a
 * SIGKILL leaves the next prepare finds by the plan: the same plan resumes (files already
 * there are checked byte for byte and kept), another one clears them first. */
#define _GNU_SOURCE
#include "run/fileset_prepare.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/data_source.h"
#include "run/cli.h"
#include "core/fileset_files.h"
#include "core/progress.h"
#include "core/random.h"
#include "core/units.h"

/* Where a file's bytes go: a file under the source directory, or a URL's. */
struct file_writer {
    int fd;                     /* the local file; -1 for a URL */
    struct data_client *client; /* for a URL */
    struct data_handle handle;
};

static int write_out(struct file_writer *writer, const void *buf, size_t len, const char *name,
                     char *err, size_t err_len)
{
    if (writer->fd < 0)
        return data_url_write(writer->client, &writer->handle, buf, len, err, err_len) ==
                       (ssize_t)len ? 0 : -1;
    errno = 0;
    if (write(writer->fd, buf, len) == (ssize_t)len)
        return 0;
    snprintf(err, err_len, "%s: write: %s", name, errno ? strerror(errno) : "disk full");
    return -1;
}

/* Writes set's file index's generated content through writer (name for messages), its
 * SHA-256 into the set. */
static int write_content(struct vp_fileset *set, size_t index, struct file_writer *writer,
                         const char *name, char *err, size_t err_len)
{
    struct vp_fileset_file *file = &set->files[index];
    struct vp_hasher hasher;
    vp_hasher_start(&hasher);
    int status = 0;
    for (uint64_t done = 0; done < file->size && status == 0;) {
        size_t chunk = file->size - done < VP_HASHER_CHUNK ? (size_t)(file->size - done)
                                                           : VP_HASHER_CHUNK;
        vp_fileset_fill(set->seed, index, done, hasher.buffer, chunk);
        vp_sha256_add(hasher.digest, hasher.buffer, chunk);
        if (vp_data_stop_asked)
            status = -1, snprintf(err, err_len, "interrupted");
        else
            status = write_out(writer, hasher.buffer, chunk, name, err, err_len);
        done += chunk;
    }
    vp_hasher_finish(&hasher, file->sha256);
    return status;
}

/* Writes one file of generated content under a temporary name, then gives it its name
 * (never replacing anything there). */
static int lay_out_file(int dir_fd, struct vp_fileset *set, size_t index, char *err,
                        size_t err_len)
{
    const char *name = set->files[index].name;
    char temp[VP_FILESET_NAME_LEN + 32];
    snprintf(temp, sizeof temp, "%s" VP_FILESET_TEMP_SUFFIX, name);
    struct file_writer writer = {
        .fd = openat(dir_fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)
    };
    if (writer.fd < 0)
        return snprintf(err, err_len, "%s: %s", temp, strerror(errno)), -1;
    int status = write_content(set, index, &writer, temp, err, err_len);
    if (status == 0 && fsync(writer.fd) != 0)
        status = -1, snprintf(err, err_len, "%s: fsync: %s", temp, strerror(errno));
    if (close(writer.fd) != 0 && status == 0)
        status = -1, snprintf(err, err_len, "%s: close: %s", temp, strerror(errno));
    if (status == 0 && renameat2(dir_fd, temp, dir_fd, name, RENAME_NOREPLACE) != 0)
        status = -1, snprintf(err, err_len, "%s: %s (a fileset is laid out only where none of "
                              "its names exists)", name, strerror(errno));
    if (status != 0)
        unlinkat(dir_fd, temp, 0);
    return status;
}

/* The files' names and sizes, drawn from the seed; digests come as they are written. */
static struct vp_fileset plan_fileset(const struct vp_prepare_request *request)
{
    struct vp_fileset set = { .generated = true, .seed = request->seed, .count = request->files };
    set.files = calloc(set.count, sizeof *set.files);
    if (!set.files)
        abort();
    uint64_t random = request->seed * 2654435761u + 1;
    for (size_t i = 0; i < set.count; i++) {
        uint64_t span = request->size_max - request->size_min;
        uint64_t size = request->size_min + (span ? vp_xorshift64(&random) % (span + 1) : 0);
        if (span && size > 4096)
            size -= size % 4096;
        snprintf(set.files[i].name, sizeof set.files[i].name, "file-%05zu.dat", i);
        set.files[i].size = size;
        memset(set.files[i].sha256, '0', 64);
    }
    return set;
}

static bool same_plan(const struct vp_fileset *a, const struct vp_fileset *b)
{
    if (a->seed != b->seed || a->count != b->count || !a->generated)
        return false;
    for (size_t i = 0; i < a->count; i++)
        if (strcmp(a->files[i].name, b->files[i].name) != 0 || a->files[i].size != b->files[i].size)
            return false;
    return true;
}

/* Removes what an interrupted prepare of plan left (each file and its temporary one,
 * only where provably laid out), then the plan; the files kept are named on stderr.
 * Returns how many were kept. */
size_t vp_data_clear_plan(int dir_fd, const struct vp_fileset *plan, size_t *removed)
{
    size_t kept = 0;
    for (size_t i = 0; i < plan->count; i++) {
        for (int temp = 0; temp < 2; temp++) {
            char why[VP_FILESET_NAME_LEN + 256];
            switch (vp_data_remove_laid_out(dir_fd, plan, i, temp ? VP_FILESET_TEMP_SUFFIX : "",
                                            why, sizeof why)) {
            case VP_REMOVED: ++*removed; break;
            case VP_ABSENT: break;
            case VP_KEPT:
                fprintf(stderr, "virtperf: kept %s\n", why);
                kept++;
                break;
            }
        }
    }
    if (kept == 0)
        unlinkat(dir_fd, VP_FILESET_PLAN, 0);
    return kept;
}

/* Reads what an interrupted prepare planned, and clears its files unless the new plan
 * is the same one (then returns true: resume). */
static bool take_leftovers(int dir_fd, const char *source, const struct vp_fileset *plan)
{
    struct vp_fileset old;
    char err[PATH_MAX + 256];
    if (vp_data_read_set(dir_fd, VP_FILESET_PLAN, &old, err, sizeof err) != 0) {
        if (errno == ENOENT)
            return false;
        vp_usage_error("data prepare: %s/%s: %s (an interrupted prepare's plan; remove it to "
                       "start again)", source, VP_FILESET_PLAN, err);
    }
    bool resume = same_plan(&old, plan);
    if (!resume) {
        size_t removed = 0, kept = vp_data_clear_plan(dir_fd, &old, &removed);
        if (kept)
            vp_usage_error("data prepare: %s: an interrupted prepare left %zu files this one "
                           "cannot prove it laid out (named above); nothing laid out", source,
                           kept);
        fprintf(stderr, "virtperf: removed the %zu files an interrupted prepare of another "
                "fileset left in %s\n", removed, source);
    }
    vp_fileset_free(&old);
    return resume;
}

/* Keeps file index when an interrupted prepare of the same plan completed it (its every
 * byte the seeded content); its digest is then computed anew. */
static bool resume_file(int dir_fd, struct vp_fileset *set, size_t index)
{
    char why[VP_FILESET_NAME_LEN + 256];
    vp_data_remove_laid_out(dir_fd, set, index, VP_FILESET_TEMP_SUFFIX, why, sizeof why);
    uint64_t size;
    char hex[65];
    if (vp_data_checksum(dir_fd, set->files[index].name, set, index, &size, hex, why,
                         sizeof why) != 0 ||
        size != set->files[index].size) {
        vp_data_remove_laid_out(dir_fd, set, index, "", why, sizeof why);
        return false;
    }
    memcpy(set->files[index].sha256, hex, sizeof hex);
    return true;
}

int vp_data_url_sha256(struct data_client *client, const char *url, char *hex, uint64_t *size,
                       char *err, size_t err_len)
{
    struct data_handle handle = { .fd = -1 };
    if (data_open(client, url, &handle, err, err_len) != 0)
        return -1;
    struct vp_hasher hasher;
    vp_hasher_start(&hasher);
    ssize_t got = 0;
    *size = 0;
    while (!vp_data_stop_asked &&
           (got = data_read(client, &handle, hasher.buffer, VP_HASHER_CHUNK, err, err_len)) > 0) {
        vp_sha256_add(hasher.digest, hasher.buffer, (size_t)got);
        *size += (uint64_t)got;
    }
    if (vp_data_stop_asked)
        got = -1, snprintf(err, err_len, "interrupted");
    vp_hasher_finish(&hasher, hex);
    char ignored[64];
    data_close(client, &handle, ignored, sizeof ignored);
    return got < 0 ? -1 : 0;
}

/* Writes text or set's file index (text NULL) to a temporary URL beside url, renames it to
 * url when nothing is there, and reads it back: what the store keeps must be what was
 * written. */
static int lay_out_at_url(struct data_client *client, const char *url, struct vp_fileset *set,
                          size_t index, const char *text, char *err, size_t err_len)
{
    char temp[VP_TEXT_LEN + VP_FILESET_NAME_LEN + 40];
    size_t path_len = strcspn(url, "?"); /* the name ends before a query (?version=4) */
    snprintf(temp, sizeof temp, "%.*s" VP_FILESET_TEMP_SUFFIX "%s", (int)path_len, url,
             url + path_len);
    struct file_writer writer = { .fd = -1, .client = client, .handle = { .fd = -1 } };
    if (data_url_create(client, temp, &writer.handle, err, err_len) != 0)
        return -1;
    int status = text ? write_out(&writer, text, strlen(text), temp, err, err_len)
                      : write_content(set, index, &writer, temp, err, err_len);
    char ignored[VP_ERROR_LEN];
    if (data_close(client, &writer.handle, status == 0 ? err : ignored,
                   status == 0 ? err_len : sizeof ignored) != 0)
        status = -1;
    int there = status == 0 ? data_url_stat(client, url, NULL, NULL, err, err_len) : 0;
    if (there > 0)
        snprintf(err, err_len, "%.300s: exists (a fileset is laid out only where none of its "
                 "names exists)", url);
    if (status != 0 || there != 0 || data_url_rename(client, temp, url, err, err_len) != 0) {
        data_url_unlink(client, temp, ignored, sizeof ignored);
        return -1;
    }
    if (text)
        return 0;
    char hex[65];
    uint64_t size;
    int checked = vp_data_url_sha256(client, url, hex, &size, err, err_len);
    if (checked == 0 && strcmp(hex, set->files[index].sha256) != 0) {
        snprintf(err, err_len, "%.300s: read back, its SHA-256 is not what was written", url);
        checked = -1;
    }
    if (checked != 0)
        data_url_unlink(client, url, ignored, sizeof ignored);
    return checked;
}

int vp_data_put_text(struct data_client *client, const char *url, const char *text, char *err,
                     size_t err_len)
{
    return lay_out_at_url(client, url, NULL, 0, text, err, err_len);
}

/* prepare --source URL: the same fileset, laid out through the URL's library (root://,
 * https://, nfs://...). */
static int prepare_at_url(const struct vp_prepare_request *request)
{
    const char *source = request->source;
    char err[VP_TEXT_LEN + 512], url[VP_TEXT_LEN + VP_FILESET_NAME_LEN + 2];
    if (data_scheme_check(source, err, sizeof err) != 0)
        vp_usage_error("data prepare: %s", err);
    struct data_client client;
    if (data_client_init(&client, source, 30, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: data prepare: %s\n", err);
        return 1;
    }
    data_join(source, VP_FILESET_MANIFEST, url, sizeof url);
    int there = data_url_stat(&client, url, NULL, NULL, err, sizeof err);
    if (there != 0) {
        data_client_free(&client);
        if (there > 0)
            vp_usage_error("data: %s already holds a fileset (%s); choose another directory",
                           source, VP_FILESET_MANIFEST);
        fprintf(stderr, "virtperf: data prepare: %s\n", err);
        return 1;
    }
    struct vp_fileset set = plan_fileset(request);
    vp_data_catch_interrupts();
    size_t laid_out = 0;
    int status = 0;
    struct vp_progress progress;
    vp_progress_init(&progress, (unsigned)set.count, true);
    while (laid_out < set.count && status == 0) {
        data_join(source, set.files[laid_out].name, url, sizeof url);
        status = lay_out_at_url(&client, url, &set, laid_out, NULL, err, sizeof err);
        laid_out += status == 0;
        vp_progress_step(&progress, "files laid out");
    }
    vp_progress_clear(&progress);
    if (status == 0) {
        char *text = vp_fileset_dump(&set);
        data_join(source, VP_FILESET_MANIFEST, url, sizeof url);
        status = lay_out_at_url(&client, url, &set, 0, text, err, sizeof err);
        free(text);
    }
    if (status != 0) { /* nothing half-made stays */
        char ignored[VP_ERROR_LEN];
        for (size_t i = 0; i < laid_out; i++) {
            data_join(source, set.files[i].name, url, sizeof url);
            data_url_unlink(&client, url, ignored, sizeof ignored);
        }
        fprintf(stderr, "virtperf: data prepare: %s; the files laid out were removed from %s\n",
                err, source);
    } else {
        printf("laid out %zu files under %s (seed %llu), each read back and checked; manifest "
               "%s/%s\n", set.count, source, (unsigned long long)request->seed, source,
               VP_FILESET_MANIFEST);
    }
    data_client_free(&client);
    vp_fileset_free(&set);
    return status == 0 ? 0 : vp_data_stop_asked ? VP_EXIT_INTERRUPTED : 1;
}

/* Removes the directories make_directories made, innermost first, where they are empty. */
static void remove_made(const char *path, const size_t made[], int count)
{
    char partial[PATH_MAX];
    for (int i = count - 1; i >= 0; i--) {
        memcpy(partial, path, made[i]);
        partial[made[i]] = '\0';
        rmdir(partial);
    }
}

/* Makes the directories of path that do not exist yet (as mkdir -p), mode 0755; returns
 * how many it made, into made[] (offsets into path where each ends, outermost first), or
 * -1 with errno, having removed those it made. A name that exists and is not a directory
 * fails there. */
static int make_directories(const char *path, size_t made[], size_t most)
{
    char partial[PATH_MAX];
    size_t len = strlen(path), count = 0;
    if (len == 0 || len >= sizeof partial)
        return errno = ENAMETOOLONG, -1;
    for (size_t end = 1; end <= len; end++) {
        if (end < len && path[end] != '/')
            continue;
        memcpy(partial, path, end);
        partial[end] = '\0';
        if (mkdir(partial, 0755) == 0) {
            if (count < most)
                made[count++] = end;
        } else if (errno != EEXIST) {
            int error = errno;
            remove_made(path, made, (int)count);
            return errno = error, -1;
        }
    }
    return (int)count;
}

int vp_data_prepare(const struct vp_prepare_request *request)
{
    if (data_is_url(request->source))
        return prepare_at_url(request);
    const char *source = request->source;
    size_t made[64];
    int made_count = 0;
    int dir_fd = open(source, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0 && errno == ENOENT) { /* a new directory, as fio makes its files' */
        made_count = make_directories(source, made, sizeof made / sizeof *made);
        dir_fd = made_count < 0 ? -1 : open(source, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (dir_fd < 0)
        vp_usage_error("data prepare: --source %s: %s", source, strerror(errno));
    struct stat info;
    if (fstatat(dir_fd, VP_FILESET_MANIFEST, &info, AT_SYMLINK_NOFOLLOW) == 0)
        vp_usage_error("data: %s already holds a fileset (%s); 'virtperf data remove --source "
                       "%s' first, or choose another directory", source, VP_FILESET_MANIFEST,
                       source);
    struct vp_fileset set = plan_fileset(request);
    bool resume = take_leftovers(dir_fd, source, &set);
    vp_data_catch_interrupts();
    char err[PATH_MAX + 256];
    int status = vp_data_write_set(dir_fd, VP_FILESET_PLAN, &set, true, err, sizeof err);
    size_t resumed = 0;
    uint64_t total = 0;
    struct vp_progress progress;
    vp_progress_init(&progress, (unsigned)set.count, true);
    for (size_t i = 0; i < set.count && status == 0; i++) {
        if (resume && resume_file(dir_fd, &set, i))
            resumed++;
        else
            status = lay_out_file(dir_fd, &set, i, err, sizeof err);
        total += set.files[i].size;
        vp_progress_step(&progress, "files laid out");
    }
    vp_progress_clear(&progress);
    if (status == 0)
        status = vp_data_write_set(dir_fd, VP_FILESET_MANIFEST, &set, false, err, sizeof err);
    if (status != 0) { /* nothing half-made stays: every file of the plan goes */
        size_t removed = 0;
        vp_data_clear_plan(dir_fd, &set, &removed);
        fprintf(stderr, "virtperf: data prepare: %s; nothing was left in %s\n", err, source);
        vp_fileset_free(&set);
        close(dir_fd);
        remove_made(source, made, made_count);
        return vp_data_stop_asked ? VP_EXIT_INTERRUPTED : 1;
    }
    unlinkat(dir_fd, VP_FILESET_PLAN, 0);
    close(dir_fd);
    char amount[32];
    vp_format_bytes((double)total, amount, sizeof amount);
    if (resumed)
        printf("kept %zu complete files an interrupted prepare of this fileset left\n", resumed);
    printf("laid out %zu files, %s, under %s (seed %llu); manifest %s/%s\n", set.count, amount,
           source, (unsigned long long)request->seed, source, VP_FILESET_MANIFEST);
    vp_fileset_free(&set);
    return 0;
}
