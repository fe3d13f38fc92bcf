/* Who owns what a run may leave behind when it is killed (a scratch directory, a guest
 * libvirt does not destroy with it): a mark naming the owning process by its pid, its
 * start time and the machine's boot, so that a later process given the same pid is not
 * taken for it. What a mark names is reclaimed only once that process is gone. */
#ifndef VP_OWNER_H
#define VP_OWNER_H

#include <stdbool.h>
#include <stddef.h>

#define VP_OWNER_MARK_LEN 160

/* This process's mark, "PID STARTTIME BOOT_ID"; -1 when /proc does not tell it. */
int vp_owner_mark(char *out, size_t len);
/* Whether the process mark names is gone: no such pid here, or another process with it
 * (started at another time, or before another boot). */
bool vp_owner_gone(const char *mark);
/* Whether mark was made on this machine since its last boot (its BOOT_ID is this one's):
 * its pid means a process here. */
bool vp_owner_here(const char *mark);

#endif
