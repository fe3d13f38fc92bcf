/* A sorted set of paths (see path_set.h). */
#include "core/path_set.h"

#include <stdlib.h>
#include <string.h>

void vp_path_set_add(struct vp_path_set *set, const char *path)
{
    size_t at = 0;
    while (at < set->count && strcmp(set->paths[at], path) < 0)
        at++;
    if (at < set->count && strcmp(set->paths[at], path) == 0)
        return;
    char **grown = realloc(set->paths, (set->count + 1) * sizeof *grown);
    char *copy = strdup(path);
    if (!grown || !copy)
        abort();
    memmove(grown + at + 1, grown + at, (set->count - at) * sizeof *grown);
    grown[at] = copy;
    set->paths = grown;
    set->count++;
}

void vp_path_set_free(struct vp_path_set *set)
{
    for (size_t i = 0; i < set->count; i++)
        free(set->paths[i]);
    free(set->paths);
    set->paths = NULL;
    set->count = 0;
}
