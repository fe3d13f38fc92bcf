/* What the guests of `run --guests` boot: Debian's cloud kernel (the newest
 * /boot/vmlinuz-*-cloud-amd64; its generic one for an emulated device) and an initramfs holding this very virtperf, its
 * libraries, the virtio modules and an init that runs `virtperf guest-agent`. The
 * initramfs is made by the helper guest_agent_image.sh and cached by content (the
 * SHA-256 of this binary, the helpers, the kernel's name, and the names, sizes and times
 * of the host's files it carries beside virtperf: --guest-programs and what the run's
 * benchmarks need there) in $VIRTPERF_CACHE or /var/cache/virtperf, readable by
 * libvirt's QEMU user. Containers take the same contents as a directory, cached beside
 * it. */
#ifndef VP_GUEST_IMAGE_H
#define VP_GUEST_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/path_set.h"

struct vp_guest_image {
    char kernel[512];
    char initrd[512];
    bool cached; /* found made, not made now */
};

/* Finds or makes the image carrying files (this host's, at their own paths; none: NULL),
 * for Debian's generic kernel where generic (an emulated device's driver is there only,
 * core/guest_devices.h), else its cloud kernel; -1 with what is missing (and how to
 * install it). */
int vp_guest_image_find(struct vp_guest_image *image, bool generic,
                        const struct vp_path_set *files, char *err, size_t err_len);
/* The same contents as a root directory (a container's --rootfs) in image->initrd. */
int vp_guest_root_find(struct vp_guest_image *image, const struct vp_path_set *files,
                       char *err, size_t err_len);

#endif
