/* Network interfaces told apart by what sysfs says of them (nic_kind.h). */
#include "core/nic_kind.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static bool has(const char *sysfs_net, const char *name, const char *entry)
{
    char path[512];
    struct stat info;
    snprintf(path, sizeof path, "%s/%s/%s", sysfs_net, name, entry);
    return stat(path, &info) == 0;
}

/* Whether the interface's uevent says DEVTYPE=type. */
static bool devtype_is(const char *sysfs_net, const char *name, const char *type)
{
    char path[512], line[128], wanted[64];
    snprintf(path, sizeof path, "%s/%s/uevent", sysfs_net, name);
    snprintf(wanted, sizeof wanted, "DEVTYPE=%s\n", type);
    FILE *uevent = fopen(path, "r");
    if (!uevent)
        return false;
    bool found = false;
    while (!found && fgets(line, sizeof line, uevent))
        found = strcmp(line, wanted) == 0;
    fclose(uevent);
    return found;
}

enum vp_nic_kind vp_nic_kind_of(const char *sysfs_net, const char *name)
{
    if (strcmp(name, "lo") == 0)
        return VP_NIC_LOOPBACK;
    if (has(sysfs_net, name, "bridge"))
        return VP_NIC_BRIDGE;
    if (has(sysfs_net, name, "device"))
        return VP_NIC_PHYSICAL; /* a port or not: what it carries came from outside */
    if (has(sysfs_net, name, "brport"))
        return VP_NIC_PORT;
    if (has(sysfs_net, name, "tun_flags"))
        return VP_NIC_TAP;
    if (devtype_is(sysfs_net, name, "vlan"))
        return VP_NIC_VLAN;
    return VP_NIC_VIRTUAL;
}

const char *vp_nic_kind_name(enum vp_nic_kind kind)
{
    static const char *const names[] = { "loopback", "physical", "bridge", "port",
                                          "tap",      "vlan",     "virtual" };
    return (size_t)kind < sizeof names / sizeof names[0] ? names[kind] : "virtual";
}

void vp_nic_counted(const enum vp_nic_kind *kinds, size_t count, bool *counted)
{
    bool physical = false;
    for (size_t i = 0; i < count; i++)
        physical = physical || kinds[i] == VP_NIC_PHYSICAL;
    for (size_t i = 0; i < count; i++)
        counted[i] = kinds[i] == VP_NIC_PHYSICAL || kinds[i] == VP_NIC_PORT ||
                     kinds[i] == VP_NIC_TAP || (!physical && kinds[i] == VP_NIC_VIRTUAL);
}
