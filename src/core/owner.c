/* Owner marks (owner.h). */
#include "core/owner.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/procfs.h"

static void boot_id(char *out, size_t len)
{
    out[0] = '\0';
    vp_read_text_file("/proc/sys/kernel/random/boot_id", out, len);
    out[strcspn(out, "\n")] = '\0';
}

/* The mark of process pid: what tells it from a later one with its pid. */
static int mark_of(long pid, char *out, size_t len)
{
    char path[64], stat[1024], boot[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (vp_read_text_file(path, stat, sizeof stat) <= 0)
        return -1;
    const char *after_name = strrchr(stat, ')'); /* the name may hold spaces */
    unsigned long long start = 0;
    /* fields after the name: state (3) ... starttime (22) */
    if (!after_name ||
        sscanf(after_name + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
               "%*d %*d %*d %*d %llu", &start) != 1)
        return -1;
    boot_id(boot, sizeof boot);
    snprintf(out, len, "%ld %llu %s", pid, start, boot);
    return 0;
}

int vp_owner_mark(char *out, size_t len)
{
    return mark_of((long)getpid(), out, len);
}

bool vp_owner_gone(const char *mark)
{
    long pid;
    char now[VP_OWNER_MARK_LEN];
    if (sscanf(mark, "%ld", &pid) != 1 || pid <= 0)
        return false; /* not a mark: nothing said of it */
    return mark_of(pid, now, sizeof now) != 0 || strcmp(now, mark) != 0;
}

bool vp_owner_here(const char *mark)
{
    char boot[64];
    const char *last = strrchr(mark, ' ');
    boot_id(boot, sizeof boot);
    return last && boot[0] && strcmp(last + 1, boot) == 0;
}
