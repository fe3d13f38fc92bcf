/* The table of environment kinds (kinds.h) and its lookups. */
#include "run/kinds.h"

#include <stdio.h>
#include <string.h>

const struct vp_env_kind *const vp_env_kinds[] = {
    &vp_guests_kind,
    &vp_containers_kind,
    &vp_uml_kind,
    NULL,
};

const struct vp_env_kind *vp_env_kind_find(const char *name)
{
    for (size_t k = 0; vp_env_kinds[k]; k++)
        if (strcmp(vp_env_kinds[k]->name, name) == 0)
            return vp_env_kinds[k];
    return NULL;
}

const struct vp_env_kind *vp_env_kind_earlier(const struct vp_env_kind *a,
                                              const struct vp_env_kind *b)
{
    for (size_t k = 0; vp_env_kinds[k]; k++)
        if (vp_env_kinds[k] == a || vp_env_kinds[k] == b)
            return vp_env_kinds[k];
    return a;
}

bool vp_env_kind_takes(const struct vp_env_kind *kind, const char *flag)
{
    for (size_t s = 0; kind->settings[s]; s++)
        if (strcmp(kind->settings[s], flag) == 0)
            return true;
    return false;
}

void vp_env_kinds_list(const char *taking, char *buf, size_t len)
{
    const struct vp_env_kind *listed[16];
    size_t count = 0, used = 0;
    for (size_t k = 0; vp_env_kinds[k] && count < 16; k++)
        if (!taking || vp_env_kind_takes(vp_env_kinds[k], taking))
            listed[count++] = vp_env_kinds[k];
    buf[0] = '\0';
    for (size_t k = 0; k < count && used < len; k++) {
        int n = snprintf(buf + used, len - used, "%s%ss",
                         k == 0 ? "" : k + 1 < count ? ", " : " or ", listed[k]->noun);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}
