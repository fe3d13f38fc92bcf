/* The members' engines and words (member_engines.h). */
#include "core/member_engines.h"

#include <string.h>

static const struct vp_member_engine engines[] = {
    { "libvirt", "guests" },
    { "podman", "containers" },
    { "docker", "containers" },
    { "uml", "UML instances" },
};
#define ENGINE_COUNT (sizeof engines / sizeof engines[0])

const struct vp_member_engine *vp_member_engine_find(const char *name)
{
    for (size_t i = 0; name && i < ENGINE_COUNT; i++)
        if (strcmp(engines[i].engine, name) == 0)
            return &engines[i];
    return NULL;
}

void vp_member_engine_choices(bool members, const char **choices, size_t most)
{
    size_t n = 0;
    for (size_t i = 0; i < ENGINE_COUNT && n + 1 < most; i++) {
        const char *word = members ? engines[i].members : engines[i].engine;
        bool seen = false;
        for (size_t j = 0; j < n; j++)
            seen = seen || strcmp(choices[j], word) == 0;
        if (!seen)
            choices[n++] = word;
    }
    choices[n] = NULL;
}
