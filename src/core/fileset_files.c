/* Checksums, whole-or-nothing manifests and the laid-out proof for `virtperf data`. */
#define _GNU_SOURCE
#include "core/fileset_files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/safe_open.h"

volatile sig_atomic_t vp_data_stop_asked;

static void on_interrupt(int signal_number)
{
    (void)signal_number;
    vp_data_stop_asked = 1;
}

void vp_data_catch_interrupts(void)
{
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
}

void vp_hasher_start(struct vp_hasher *hasher)
{
    hasher->buffer = malloc(VP_HASHER_CHUNK);
    hasher->digest = vp_sha256_new();
    if (!hasher->buffer)
        abort();
}

void vp_hasher_finish(struct vp_hasher *hasher, char *hex)
{
    vp_sha256_hex(hasher->digest, hex);
    vp_sha256_free(hasher->digest);
    free(hasher->buffer);
}

/* Why the directory holding name could not be opened beneath the source. */
static void parent_refusal(char *err, size_t err_len, const char *name, int error)
{
    snprintf(err, err_len, "%.300s: %s", name,
             error == ELOOP || error == ENOTDIR ? "a part of the name is a symbolic link or "
             "not a directory (not followed)" : strerror(error));
}

/* Opens dir_fd/name as a regular file with no link in any part of the name. */
static int open_beneath(int dir_fd, const char *name, struct stat *info, char *err,
                        size_t err_len)
{
    const char *leaf;
    int parent = vp_open_parent_beneath(dir_fd, name, &leaf);
    if (parent < 0) {
        parent_refusal(err, err_len, name, errno);
        return -1;
    }
    int fd = vp_open_regular(parent, leaf, O_NOFOLLOW, info, err, err_len);
    close(parent);
    return fd;
}

int vp_data_checksum(int dir_fd, const char *name, const struct vp_fileset *set, size_t index,
                     uint64_t *size, char *hex, char *err, size_t err_len)
{
    int fd = open_beneath(dir_fd, name, NULL, err, err_len);
    if (fd < 0)
        return -1;
    struct vp_hasher hasher;
    vp_hasher_start(&hasher);
    ssize_t got = 0;
    int64_t mismatch = -1;
    *size = 0;
    while (mismatch < 0 && !vp_data_stop_asked &&
           (got = read(fd, hasher.buffer, VP_HASHER_CHUNK)) > 0) {
        if (set)
            mismatch = vp_fileset_mismatch(set->seed, index, *size, hasher.buffer, (size_t)got);
        vp_sha256_add(hasher.digest, hasher.buffer, (size_t)got);
        *size += (uint64_t)got;
    }
    int error = errno;
    vp_hasher_finish(&hasher, hex);
    close(fd);
    if (vp_data_stop_asked)
        return snprintf(err, err_len, "%s: interrupted", name), -1;
    if (mismatch >= 0)
        return snprintf(err, err_len, "%s: not the seeded content at byte %llu", name,
                        (unsigned long long)(*size - (uint64_t)mismatch)), -1;
    if (got < 0)
        return snprintf(err, err_len, "%s: read: %s", name, strerror(error)), -1;
    return 0;
}

int vp_data_write_set(int dir_fd, const char *name, const struct vp_fileset *set, bool replace,
                      char *err, size_t err_len)
{
    char temp[NAME_MAX + 1];
    snprintf(temp, sizeof temp, "%s" VP_FILESET_TEMP_SUFFIX, name);
    char *text = vp_fileset_dump(set);
    size_t len = strlen(text);
    unlinkat(dir_fd, temp, 0); /* a killed writer's; only a name in this directory */
    int fd = openat(dir_fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    int status = fd >= 0 && write(fd, text, len) == (ssize_t)len && fsync(fd) == 0 ? 0 : -1;
    if (status != 0)
        snprintf(err, err_len, "%s: %s", temp, errno ? strerror(errno) : "disk full");
    if (fd >= 0 && close(fd) != 0 && status == 0)
        status = -1, snprintf(err, err_len, "%s: close: %s", temp, strerror(errno));
    if (status == 0 &&
        renameat2(dir_fd, temp, dir_fd, name, replace ? 0 : RENAME_NOREPLACE) != 0)
        status = -1, snprintf(err, err_len, "%s: %s", name, strerror(errno));
    if (status != 0)
        unlinkat(dir_fd, temp, 0);
    free(text);
    return status;
}

int vp_data_read_set(int dir_fd, const char *name, struct vp_fileset *set, char *err,
                     size_t err_len)
{
    memset(set, 0, sizeof *set);
    struct stat info;
    int fd = vp_open_regular(dir_fd, name, O_NOFOLLOW, &info, err, err_len);
    if (fd < 0)
        return -1;
    if ((uint64_t)info.st_size > VP_FILESET_MAX_MANIFEST) {
        close(fd);
        return snprintf(err, err_len, "%s: over 64 MiB", name), -1;
    }
    char *text = malloc((size_t)info.st_size + 1);
    if (!text)
        abort();
    size_t len = 0;
    ssize_t got;
    while (len < (size_t)info.st_size && (got = read(fd, text + len, (size_t)info.st_size - len)) > 0)
        len += (size_t)got;
    close(fd);
    char why[256];
    int status = vp_fileset_parse(text, len, set, why, sizeof why);
    if (status != 0)
        snprintf(err, err_len, "%s: %s", name, why);
    free(text);
    return status;
}

/* Whether the range [offset, offset + len) of fd holds the seeded content. */
static bool seeded_at(int fd, const struct vp_fileset *set, size_t index, uint64_t offset,
                      size_t len)
{
    unsigned char buffer[65536];
    if (len > sizeof buffer)
        len = sizeof buffer;
    return pread(fd, buffer, len, (off_t)offset) == (ssize_t)len &&
           vp_fileset_mismatch(set->seed, index, offset, buffer, len) < 0;
}

enum vp_removal vp_data_remove_laid_out(int dir_fd, const struct vp_fileset *set, size_t index,
                                        const char *suffix, char *why, size_t why_len)
{
    char name[VP_FILESET_NAME_LEN + 32];
    snprintf(name, sizeof name, "%s%s", set->files[index].name, suffix);
    const char *leaf;
    int parent = vp_open_parent_beneath(dir_fd, name, &leaf);
    int parent_error = errno;
    struct stat info;
    if (parent < 0 && parent_error == ENOENT)
        return VP_ABSENT;
    if (parent >= 0 && fstatat(parent, leaf, &info, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) {
        close(parent);
        return VP_ABSENT;
    }
    int fd = parent < 0 ? -1 : vp_open_regular(parent, leaf, O_NOFOLLOW, &info, why, why_len);
    if (parent < 0)
        parent_refusal(why, why_len, name, parent_error);
    enum vp_removal outcome = VP_KEPT;
    uint64_t want = set->files[index].size, size = fd >= 0 ? (uint64_t)info.st_size : 0;
    bool partial = suffix[0] != '\0';
    size_t probe = size < 65536 ? (size_t)size : 65536;
    if (fd < 0)
        ; /* why says it */
    else if (info.st_uid != geteuid())
        snprintf(why, why_len, "%s: owned by uid %u, not by this user", name,
                 (unsigned)info.st_uid);
    else if (partial ? size > want : size != want)
        snprintf(why, why_len, "%s: %llu bytes, the manifest says %llu", name,
                 (unsigned long long)size, (unsigned long long)want);
    else if (!seeded_at(fd, set, index, 0, probe) ||
             !seeded_at(fd, set, index, size - probe, probe))
        snprintf(why, why_len, "%s: not the content prepare laid out (seed %llu)", name,
                 (unsigned long long)set->seed);
    else if (unlinkat(parent, leaf, 0) != 0)
        snprintf(why, why_len, "%s: %s", name, strerror(errno));
    else
        outcome = VP_REMOVED;
    if (fd >= 0)
        close(fd);
    if (parent >= 0)
        close(parent);
    return outcome;
}
