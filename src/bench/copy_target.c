/* data.copy's --to: a local scratch directory or a server's directory (copy_target.h). */
#define _GNU_SOURCE
#include "bench/copy_target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/options.h" /* VP_ERROR_LEN */
#include "core/scratch.h"
#include "core/units.h"

/* The result's target, made by the parent and inherited by the forked jobs. */
static struct {
    char to[PATH_MAX];      /* --to as given: a URL, or "" for a local directory */
    char scratch[PATH_MAX]; /* a local directory's private scratch directory */
    char run[32];           /* in a URL's copies' names: the parent's pid and a random
                             * word, as pids repeat across hosts, guests and namespaces */
} place;

int vp_copy_target_check(const char *to, double needed, char *err, size_t err_len)
{
    if (data_is_url(to))
        return data_scheme_check(to, err, err_len); /* a server's room is the server's */
    struct stat info;
    if (stat(to, &info) != 0 || !S_ISDIR(info.st_mode) || access(to, W_OK) != 0) {
        snprintf(err, err_len, "--to %s: accepted: an existing, writable local directory, or "
                 "a directory's nfs://, root://, dav:// URL", to);
        return -1;
    }
    struct statvfs space;
    if (statvfs(to, &space) == 0 && space.f_blocks > 0 &&
        (double)space.f_bavail * (double)space.f_frsize < needed) {
        char want[32];
        vp_format_bytes(needed, want, sizeof want);
        snprintf(err, err_len, "--to %s: needs %s for the jobs' copies", to, want);
        return -1;
    }
    return 0;
}

int vp_copy_target_make(const char *to, char *err, size_t err_len)
{
    if (data_is_url(to)) {
        uint32_t word = 0;
        if (getrandom(&word, sizeof word, 0) != (ssize_t)sizeof word) {
            snprintf(err, err_len, "--to %s: no random word for the copies' names: %s", to,
                     strerror(errno));
            return -1;
        }
        snprintf(place.to, sizeof place.to, "%s", to);
        snprintf(place.run, sizeof place.run, "%d-%08x", (int)getpid(), (unsigned)word);
        return 0;
    }
    char why[VP_ERROR_LEN];
    if (vp_scratch_make(to, "virtperf-copy", place.scratch, sizeof place.scratch, why,
                        sizeof why) != 0) {
        snprintf(err, err_len, "--to %s: %s", to, why);
        return -1;
    }
    return 0;
}

void vp_copy_target_remove(void)
{
    if (place.scratch[0])
        vp_scratch_remove(place.scratch);
    place.scratch[0] = place.to[0] = '\0';
}

int vp_copy_target_start(struct copy_target *target, const char *to, unsigned job,
                         double timeout_s, char *err, size_t err_len)
{
    *target = (struct copy_target){ .on = place.scratch[0] || place.to[0], .job = job };
    if (!place.to[0])
        return 0;
    return data_client_init(&target->client, to, timeout_s, err, err_len) == 0 &&
                   data_client_attach(&target->client, to, err, err_len) == 0
               ? 0
               : -1;
}

void vp_copy_target_stop(struct copy_target *target)
{
    data_client_free(&target->client);
}

/* Where the job's n-th copy goes: a path, or a URL. */
static void copy_name(const struct copy_target *target, size_t n, char *out, size_t len)
{
    if (place.to[0]) {
        char name[96];
        snprintf(name, sizeof name, "virtperf-copy-%s-job%u-%zu.dat", place.run, target->job, n);
        data_join(place.to, name, out, len);
    } else {
        snprintf(out, len, "%.4000s/job%u-%zu.dat", place.scratch, target->job, n);
    }
}

int vp_copy_out_create(struct copy_target *target, size_t n, struct copy_out *out, char *err,
                       size_t err_len)
{
    *out = (struct copy_out){ .fd = -1, .handle = { .fd = -1 } };
    if (!target->on)
        return 0;
    char where[PATH_MAX + 128];
    copy_name(target, n, where, sizeof where);
    if (place.to[0]) {
        if (data_url_create(&target->client, where, &out->handle, err, err_len) != 0)
            return -1;
    } else if ((out->fd = open(where, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
        snprintf(err, err_len, "--to: %.180s: %s", where, strerror(errno));
        return -1;
    }
    out->open = true;
    return 0;
}

int vp_copy_out_write(struct copy_target *target, struct copy_out *out, const void *buf,
                      size_t len, char *err, size_t err_len)
{
    if (!out->open)
        return 0;
    if (out->fd < 0)
        return data_url_write(&target->client, &out->handle, buf, len, err, err_len) ==
                       (ssize_t)len ? 0 : -1;
    errno = 0;
    if (write(out->fd, buf, len) == (ssize_t)len)
        return 0;
    snprintf(err, err_len, "--to %.120s: write: %s", place.scratch,
             errno ? strerror(errno) : "short write");
    return -1;
}

int vp_copy_out_close(struct copy_target *target, struct copy_out *out, size_t n, bool failed,
                      char *err, size_t err_len)
{
    if (!out->open)
        return 0;
    out->open = false;
    int status = 0;
    char ignored[VP_ERROR_LEN];
    if (out->fd < 0) {
        status = data_close(&target->client, &out->handle, failed ? ignored : err,
                            failed ? sizeof ignored : err_len);
    } else if (close(out->fd) != 0) {
        char where[PATH_MAX + 128];
        copy_name(target, n, where, sizeof where);
        if (!failed)
            snprintf(err, err_len, "--to: %.180s: %s", where, strerror(errno));
        status = -1;
    }
    if (failed || status != 0)
        vp_copy_out_discard(target, n);
    return status;
}

void vp_copy_out_discard(struct copy_target *target, size_t n)
{
    if (!target->on)
        return;
    char where[PATH_MAX + 128], ignored[VP_ERROR_LEN];
    copy_name(target, n, where, sizeof where);
    if (place.to[0])
        data_url_unlink(&target->client, where, ignored, sizeof ignored);
    else
        unlink(where);
}
