/* --guest-mount nfs://SERVER/EXPORT[?version=4]:DIR: an NFS export each guest mounts at DIR
 * through its kernel's client before its jobs run, as the GridKa study's worker nodes read
 * their shared store. Parsed here (pure, tested alone) into the words the guest's init
 * mounts it with, which the result also keeps. */
#ifndef VP_GUEST_MOUNT_H
#define VP_GUEST_MOUNT_H

#include <stddef.h>

struct vp_guest_mount {
    char source[320];  /* SERVER:/EXPORT, as the kernel's mount takes it */
    char dir[256];     /* where the guest mounts it */
    const char *type;  /* "nfs" (v3) or "nfs4" */
    const char *options; /* the mount's -o options, "" for none */
};

/* spec into mount: 0, or -1 with a one-line refusal naming what is accepted. */
int vp_guest_mount_parse(const char *spec, struct vp_guest_mount *mount, char *err,
                         size_t err_len);

/* The kernel command line's word that asks a guest's init for it:
 * "virtperf.mount=TYPE;SOURCE;DIR;OPTIONS" (no character of it a space or ';'). */
void vp_guest_mount_word(const struct vp_guest_mount *mount, char *out, size_t len);

/* The run's --guest-mount, published by the guests once prepared, so that this host reads
 * what they see at its DIR through the same export: a path under DIR as the nfs:// URL of
 * the same file into url (0), or -1 (nothing published, or path not under DIR). */
void vp_guest_mount_publish(const char *spec);
int vp_guest_mount_url_of(const char *path, char *url, size_t len);

#endif
