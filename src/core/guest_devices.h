/* The devices a guest can be given, one table each: its NIC models (--guest-nic) and its
 * disk buses (--guest-disk-bus), paravirtual (virtio) or emulated, as libvirt models
 * them and as the guest's kernel drives them. An emulated NIC's driver is not in
 * Debian's cloud kernel, which the guests boot otherwise: a guest given one boots the
 * generic kernel (linux-image-amd64) instead, whose modules the image carries too. The
 * CNAF 2007 study set the emulated NIC (Xen's ioemu, < 0.1 Gb/s) against the
 * paravirtual one (netfront, line rate). */
#ifndef VP_CORE_GUEST_DEVICES_H
#define VP_CORE_GUEST_DEVICES_H

#include <stdbool.h>
#include <stddef.h>

struct vp_guest_device {
    const char *name;    /* the flag's value: "e1000" */
    const char *model;   /* libvirt's: a NIC's <model type>, a disk's <target bus> */
    const char *driver;  /* the guest kernel's driver, as the guest's fingerprint names it */
    const char *target;  /* a disk's device name in the guest ("vda", "sda"), NULL: a NIC */
    bool generic_kernel; /* its driver is in Debian's generic kernel only */
};

enum vp_guest_device_kind { VP_GUEST_NIC, VP_GUEST_DISK_BUS };

/* The NIC model or disk bus called name, or NULL. */
const struct vp_guest_device *vp_guest_device_find(enum vp_guest_device_kind kind,
                                                   const char *name);
/* "virtio, e1000, e1000e or rtl8139": the names accepted, for a refusal. */
void vp_guest_device_names(enum vp_guest_device_kind kind, char *buf, size_t len);
/* The names into choices, NULL-ended (room for most, the NULL included), as
 * core/json_check.h's vp_check_choice takes them. */
void vp_guest_device_choices(enum vp_guest_device_kind kind, const char **choices, size_t most);

#endif
