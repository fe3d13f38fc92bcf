/* Opening and removing files that someone else may have planted: no symbolic link is
 * followed in any part of a name under a directory, and only regular files are opened
 * (a FIFO or a device would block a reader for ever, or not be the data it claims).
 * What lets `virtperf data remove` delete only what it laid out where other users can
 * write the directory, and a data job refuse a FIFO by name instead of hanging. */
#ifndef VP_SAFE_OPEN_H
#define VP_SAFE_OPEN_H

#include <stddef.h>
#include <sys/stat.h>

/* The directory that holds name's last part, opened under root_fd with no symbolic
 * link in any of name's directory parts; *leaf points at the last part within name.
 * Returns a descriptor the caller closes, or -1 with errno (ELOOP or ENOTDIR where a
 * part is a link or not a directory). */
int vp_open_parent_beneath(int root_fd, const char *name, const char **leaf);

/* Opens path read-only (with extra_flags) only when it is a regular file: opened
 * without blocking, checked with fstat, then made blocking again; a link as the last
 * part is refused too when extra_flags holds O_NOFOLLOW. info, when not NULL, gets the
 * file's stat. On refusal or error writes "PATH: REASON" into err and returns -1. */
int vp_open_regular(int dir_fd, const char *path, int extra_flags, struct stat *info, char *err,
                    size_t err_len);

/* What kind of file mode is, in words ("a FIFO", "a directory", ...). */
const char *vp_file_kind(mode_t mode);

#endif
