/* `virtperf results push`: copies runs from the local store into a site store. */
#ifndef VP_CMD_RESULTS_PUSH_H
#define VP_CMD_RESULTS_PUSH_H

#include "store/store.h"

/* Pushes the runs refs name (every run when count is 0) from local into the store at to,
 * each in one transaction of its own; a run already there (by uuid) is left as it is.
 * Prints a line per run; returns the exit status (0, or 1 when a run was not pushed). */
int vp_results_push(struct vp_store *local, char **refs, int count, const char *to);

#endif
