/* `virtperf data index` and `data remove` on a fileset at a URL (nfs://, root://...),
 * through the URL's library. */
#ifndef VP_RUN_FILESET_URL_H
#define VP_RUN_FILESET_URL_H

#include <stddef.h>

/* Writes a manifest for the regular files at source; the command's exit status (usage
 * errors exit 2 from inside). */
int vp_data_index_url(const char *source);

struct vp_removal_count {
    size_t listed, removed, kept;
};
/* Removes the files of source's manifest that prepare provably laid out (naming each one
 * kept on stderr), then the manifest when none was kept; counts into *count. Returns 0, or
 * 1 when the manifest could not be read (nothing removed) or removed. */
int vp_data_remove_url(const char *source, struct vp_removal_count *count);

#endif
