/* `virtperf data prepare`, and the clearing of what an interrupted one left (which
 * `data remove` uses too). */
#ifndef VP_RUN_FILESET_PREPARE_H
#define VP_RUN_FILESET_PREPARE_H

#include <stddef.h>
#include <stdint.h>

#include "core/fileset.h"

struct vp_prepare_request {
    const char *source;
    uint64_t files, size_min, size_max, seed;
};

/* Lays the fileset out; the command's exit status (usage errors exit 2 from inside). */
int vp_data_prepare(const struct vp_prepare_request *request);

/* Removes each of plan's files (and temporary files) that is provably laid out, naming
 * the others on stderr, and the plan file when none was kept; counts the removed ones
 * into *removed and returns how many were kept. */
size_t vp_data_clear_plan(int dir_fd, const struct vp_fileset *plan, size_t *removed);

#endif
