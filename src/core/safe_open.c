/* Opening names under a directory without following links, and regular files only. */
#define _GNU_SOURCE
#include "core/safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int vp_open_parent_beneath(int root_fd, const char *name, const char **leaf)
{
    int dir = dup(root_fd);
    const char *part = name;
    for (const char *slash; dir >= 0 && (slash = strchr(part, '/'));) {
        char component[NAME_MAX + 1];
        size_t len = (size_t)(slash - part);
        if (len == 0 || len > NAME_MAX) {
            close(dir);
            errno = EINVAL;
            return -1;
        }
        memcpy(component, part, len);
        component[len] = '\0';
        int next = openat(dir, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int error = errno;
        close(dir);
        errno = error;
        dir = next;
        part = slash + 1;
    }
    *leaf = part;
    return dir;
}

const char *vp_file_kind(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "not a regular file";
    }
}

int vp_open_regular(int dir_fd, const char *path, int extra_flags, struct stat *info, char *err,
                    size_t err_len)
{
    int fd = openat(dir_fd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | extra_flags);
    if (fd < 0) {
        snprintf(err, err_len, "%.300s: open: %s", path,
                 errno == ELOOP && (extra_flags & O_NOFOLLOW) ? "a symbolic link, not followed"
                                                              : strerror(errno));
        return -1;
    }
    struct stat seen;
    if (fstat(fd, &seen) != 0) {
        snprintf(err, err_len, "%.300s: fstat: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(seen.st_mode)) {
        snprintf(err, err_len, "%.300s: %s; accepted: a regular file", path,
                 vp_file_kind(seen.st_mode));
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        snprintf(err, err_len, "%.300s: fcntl: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (info)
        *info = seen;
    return fd;
}
