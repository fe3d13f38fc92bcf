/* `virtperf data prepare`, and the clearing of what an interrupted one left (which
 * `data remove` uses too). */
#ifndef VP_RUN_FILESET_PREPARE_H
#define VP_RUN_FILESET_PREPARE_H

#include <stddef.h>
#include <stdint.h>

#include "core/fileset.h"

struct data_client; /* bench/data_source.h */

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

/* Writes text as url through client (a manifest): under a temporary name beside it, then
 * renamed to url where nothing is there. 0, or -1 with err and nothing left. */
int vp_data_put_text(struct data_client *client, const char *url, const char *text, char *err,
                     size_t err_len);
/* The SHA-256 (hex, 65 bytes) and length of what url holds, read whole through client; -1
 * with err, also when Ctrl-C stops it. */
int vp_data_url_sha256(struct data_client *client, const char *url, char *hex, uint64_t *size,
                       char *err, size_t err_len);

#endif
