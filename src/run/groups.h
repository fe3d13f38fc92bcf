/* --group NAME:KIND=N[,SETTING=VALUE...]: a run's members in groups, each of its own kind
 * and settings (two guests with a virtio NIC beside two with an emulated one; guests
 * beside containers), all started together and each group's results combined apart
 * (fleet.h). Here each group's words, kept by the flag (run_flags.h), become the request
 * its members start from: the run's --guest-* and --container-* settings, the group's
 * own over them. */
#ifndef VP_RUN_GROUPS_H
#define VP_RUN_GROUPS_H

#include <stddef.h>

#include "core/limits.h"
#include "core/options.h"
#include "core/side_name.h"
#include "run/run_flags.h"

struct vp_member_group {
    char name[VP_SIDE_NAME_MOST + 1];
    struct vp_guests_request asked; /* its kind (asked.kind), its settings */
    unsigned count;                 /* its members */
    char words[VP_TEXT_LEN];        /* its SETTING=VALUE words, which asked points into */
};

/* The groups run asks for (run->groups) into groups (room for VP_MAX_GROUPS), *count of
 * them; 0 with *count 0 when it asks for none. -1 with err naming the group and what is
 * accepted: a name that is not valid or not unique, a kind missing or twice, a setting a
 * group does not take or its kind does not, a run setting no group's kind takes, more
 * members than a run starts, one group alone, or --group beside --guests, --containers,
 * --uml, --and-host, --guest-pin or --libvirt-uri. */
int vp_member_groups_of(const struct vp_guests_request *run, struct vp_member_group *groups,
                        size_t *count, char *err, size_t err_len);

#endif
