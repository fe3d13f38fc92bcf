/* Scratch directories that say who owns them, and the reclaiming of orphaned ones. */
#define _GNU_SOURCE
#include "core/scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/owner.h"

#define OWNER_FILE ".virtperf-owner"
#define MAX_DEPTH 64

/* Removes parent_fd/name and what is in it, down to MAX_DEPTH levels (each open level
 * holds a descriptor); a directory deeper than that is moved up into top_fd (the tree's
 * root) under a new name, for the next pass. Returns how many were moved. */
static unsigned remove_tree_at(int parent_fd, const char *name, int top_fd, int depth)
{
    int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) { /* a file, or a link: the entry itself goes */
        unlinkat(parent_fd, name, 0);
        return 0;
    }
    DIR *dir = fdopendir(fd);
    if (!dir) {
        close(fd);
        return 0;
    }
    unsigned moved = 0;
    static unsigned long serial;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        if (depth < MAX_DEPTH) {
            moved += remove_tree_at(dirfd(dir), entry->d_name, top_fd, depth + 1);
            continue;
        }
        char upper[64]; /* a member's tree of any depth goes, a level set at a time */
        snprintf(upper, sizeof upper, ".virtperf-deep-%ld-%lu", (long)getpid(), ++serial);
        if (renameat(dirfd(dir), entry->d_name, top_fd, upper) == 0)
            moved++;
    }
    closedir(dir);
    unlinkat(parent_fd, name, AT_REMOVEDIR);
    return moved;
}

void vp_scratch_remove(const char *dir)
{
    int top = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (top < 0) {
        unlinkat(AT_FDCWD, dir, 0);
        return;
    }
    /* the root's entries first, as long as deep ones keep coming up into it */
    unsigned moved;
    do {
        moved = 0;
        DIR *listing = fdopendir(dup(top));
        if (listing)
            rewinddir(listing); /* the duplicate shares the last pass's offset */
        struct dirent *entry;
        while (listing && (entry = readdir(listing)))
            if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
                moved += remove_tree_at(top, entry->d_name, top, 1);
        if (listing)
            closedir(listing);
    } while (moved > 0);
    close(top);
    rmdir(dir);
}

/* Whether PARENT/name is a scratch directory of this user whose owner is gone. */
static bool orphaned(int parent_fd, const char *name, long *owner_pid)
{
    struct stat info;
    if (fstatat(parent_fd, name, &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(info.st_mode) ||
        info.st_uid != geteuid())
        return false;
    int dir = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0)
        return false;
    int owner = openat(dir, OWNER_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    close(dir);
    if (owner < 0)
        return false; /* not one that says who owns it: never touched */
    char recorded[VP_OWNER_MARK_LEN] = "";
    ssize_t got = read(owner, recorded, sizeof recorded - 1);
    close(owner);
    if (got <= 0 || sscanf(recorded, "%ld", owner_pid) != 1)
        return false;
    recorded[strcspn(recorded, "\n")] = '\0';
    return vp_owner_gone(recorded);
}

static void reclaim_orphans(const char *parent)
{
    DIR *dir = opendir(parent);
    if (!dir)
        return;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        long pid;
        if (strncmp(entry->d_name, "virtperf-", 9) != 0 || !orphaned(dirfd(dir), entry->d_name, &pid))
            continue;
        fprintf(stderr, "virtperf: removing %s/%s, left by a virtperf (pid %ld) that is gone\n",
                parent, entry->d_name, pid);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", parent, entry->d_name);
        vp_scratch_remove(path);
    }
    closedir(dir);
}

int vp_scratch_make(const char *parent, const char *prefix, char *out, size_t out_len,
                    char *err, size_t err_len)
{
    reclaim_orphans(parent);
    snprintf(out, out_len, "%.4000s/%s-XXXXXX", parent, prefix);
    char identity[VP_OWNER_MARK_LEN];
    if (!mkdtemp(out)) {
        snprintf(err, err_len, "cannot make a private directory there: %s", strerror(errno));
        out[0] = '\0';
        return -1;
    }
    char owner_path[PATH_MAX + 32];
    snprintf(owner_path, sizeof owner_path, "%s/" OWNER_FILE, out);
    int fd = open(owner_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int status = fd >= 0 && vp_owner_mark(identity, sizeof identity) == 0 &&
                         dprintf(fd, "%s\n", identity) > 0 ? 0 : -1;
    if (fd >= 0)
        close(fd);
    if (status != 0) {
        snprintf(err, err_len, "cannot write %s: %s", owner_path, strerror(errno));
        vp_scratch_remove(out);
        out[0] = '\0';
    }
    return status;
}
