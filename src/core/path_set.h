/* A set of this host's paths, each once, in sorted order: the files a guest's or a
 * container's image carries beside virtperf (env/image.h), gathered from the run's
 * --guest-programs and from what each benchmark of the run says it needs there. */
#ifndef VP_CORE_PATH_SET_H
#define VP_CORE_PATH_SET_H

#include <stddef.h>

struct vp_path_set {
    char **paths;
    size_t count;
};

/* Adds path (kept once; the set stays sorted). */
void vp_path_set_add(struct vp_path_set *set, const char *path);
void vp_path_set_free(struct vp_path_set *set);

#endif
