/* Private scratch directories (a disk job's files, data.copy's copies, an app
 * workload's tree): made with mkdtemp under a directory the user names, marked with the
 * process that owns them, and removed whole. What a SIGKILL leaves (nothing of the
 * killed run can clean up) is reclaimed by the next scratch directory made beside it:
 * a virtperf-* directory of this user whose owner process is gone (another pid, or the
 * same pid started at another time or boot) is removed, and named on stderr. */
#ifndef VP_SCRATCH_H
#define VP_SCRATCH_H

#include <stddef.h>

/* Makes PARENT/PREFIX-XXXXXX (mode 0700; PREFIX begins with "virtperf-") into out,
 * after reclaiming what killed runs left in PARENT. On error: -1 and the reason in err
 * ("cannot make a private directory there: ..."). */
int vp_scratch_make(const char *parent, const char *prefix, char *out, size_t out_len,
                    char *err, size_t err_len);

/* Removes dir and everything in it, following no link. */
void vp_scratch_remove(const char *dir);

#endif
