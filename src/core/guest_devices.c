/* The guests' NIC models and disk buses (guest_devices.h). The drivers were checked in TCG
 * guests of Debian 12's kernels: e1000e needs machine 'pc' (which the domains use);
 * QEMU's rtl8139 is a C+ chip that 8139cp drives (8139too refuses it); a SATA disk sits
 * on the AHCI controller libvirt adds, a SCSI one on the virtio-scsi controller the
 * domain names. */
#include "core/guest_devices.h"

#include <stdio.h>
#include <string.h>

static const struct vp_guest_device nics[] = {
    { "virtio", "virtio", "virtio_net", NULL, false },
    { "e1000", "e1000", "e1000", NULL, true },
    { "e1000e", "e1000e", "e1000e", NULL, true },
    { "rtl8139", "rtl8139", "8139cp", NULL, true },
};

static const struct vp_guest_device disk_buses[] = {
    { "virtio", "virtio", "virtio_blk", "vda", false },
    { "ide", "ide", "ata_piix", "hda", false },
    { "sata", "sata", "ahci", "sda", true },
    { "scsi", "scsi", "virtio_scsi", "sda", false },
};

struct table {
    const struct vp_guest_device *entries;
    size_t count;
};

static struct table table_of(enum vp_guest_device_kind kind)
{
    if (kind == VP_GUEST_NIC)
        return (struct table){ nics, sizeof nics / sizeof nics[0] };
    return (struct table){ disk_buses, sizeof disk_buses / sizeof disk_buses[0] };
}

const struct vp_guest_device *vp_guest_device_find(enum vp_guest_device_kind kind,
                                                   const char *name)
{
    struct table table = table_of(kind);
    for (size_t i = 0; name && i < table.count; i++)
        if (strcmp(table.entries[i].name, name) == 0)
            return &table.entries[i];
    return NULL;
}

void vp_guest_device_names(enum vp_guest_device_kind kind, char *buf, size_t len)
{
    struct table table = table_of(kind);
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < table.count && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i == 0 ? "" : i + 1 == table.count ? " or " : ", ",
                                 table.entries[i].name);
}

void vp_guest_device_choices(enum vp_guest_device_kind kind, const char **choices, size_t most)
{
    struct table table = table_of(kind);
    size_t n = 0;
    for (; n < table.count && n + 1 < most; n++)
        choices[n] = table.entries[n].name;
    choices[n] = NULL;
}
