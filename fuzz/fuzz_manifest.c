/* libFuzzer target: the fileset manifest parser (a manifest is read from the store, so
 * anyone who can write there writes its bytes). Whatever it accepts must hold names that
 * stay under the source and must survive a write and a re-read unchanged. */
#include <stdlib.h>
#include <string.h>

#include "core/fileset.h"

/* Whether a name leaves its source: absolute, or a ".." part. */
static int climbs_out(const char *name)
{
    size_t len = strlen(name);
    return name[0] == '/' || strcmp(name, "..") == 0 || strncmp(name, "../", 3) == 0 ||
           strstr(name, "/../") || (len >= 3 && strcmp(name + len - 3, "/..") == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct vp_fileset set, again;
    char err[256];
    if (vp_fileset_parse((const char *)data, size, &set, err, sizeof err) != 0) {
        if (!err[0])
            __builtin_trap(); /* a refusal always says why */
        return 0;
    }
    if (set.count < 1 || set.count > VP_FILESET_MAX_FILES)
        __builtin_trap();
    for (size_t i = 0; i < set.count; i++)
        if (!vp_fileset_name_ok(set.files[i].name) || climbs_out(set.files[i].name))
            __builtin_trap();
    char *text = vp_fileset_dump(&set);
    if (vp_fileset_parse(text, strlen(text), &again, err, sizeof err) != 0 ||
        again.count != set.count || again.generated != set.generated || again.seed != set.seed ||
        memcmp(again.files, set.files, set.count * sizeof *set.files) != 0)
        __builtin_trap();
    free(text);
    vp_fileset_free(&again);
    vp_fileset_free(&set);
    return 0;
}
