/* The guests `virtperf run --guests` starts: one throwaway libvirt domain each, booted
 * straight into the guest agent's initramfs (Debian's cloud kernel, or its generic one
 * for an emulated device; no disk image of an OS), with a virtio-serial channel to the
 * host and, where asked, a NIC on an existing bridge and a disk image on the storage
 * under test, each of the model asked (core/guest_devices.h). vp_domain_xml writes a domain's
 * XML (pure, tested alone); the rest drive libvirt (libvirt.c), built only where
 * libvirt-dev was found. */
#ifndef VP_GUEST_DOMAIN_H
#define VP_GUEST_DOMAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/guest_devices.h"

#define VP_GUEST_NAME_LEN 64
#define VP_GUEST_PATH_LEN 512
#define VP_GUEST_CHANNEL "org.virtperf.control"
#define VP_GUEST_OWNER "virtperf owner " /* a description's words before the owner mark */

enum vp_guest_accel { VP_ACCEL_AUTO, VP_ACCEL_KVM, VP_ACCEL_TCG };

/* How every guest of a run is made (the --guest-* flags). */
struct vp_guest_config {
    const char *uri;                /* libvirt's; NULL: qemu:///system */
    enum vp_guest_accel accel;
    unsigned cpus, memory_mib, timeout_s;
    const char *bridge;             /* --guest-net: an existing bridge, NULL: no NIC */
    const struct vp_guest_device *nic; /* --guest-nic: its model on the bridge */
    const char *disk_dir;           /* --guest-disk: images made there, NULL: no disk */
    const struct vp_guest_device *disk_bus; /* --guest-disk-bus */
    uint64_t disk_bytes;
    const char *kernel, *initrd;    /* the image the guests boot */
    const char *mount_word;         /* --guest-mount's word for the init, NULL: none */
};

/* One guest's own part of its domain. */
struct vp_guest_spec {
    const char *name;
    bool kvm;                       /* domain type kvm, else qemu (TCG) */
    const char *channel_path;       /* the channel's unix socket on the host */
    const char *console_path;       /* the serial console's file */
    const char *disk_path;          /* NULL: no disk */
    const char *address;            /* "A/P" on the bridge, NULL: none */
    const char *gateway;            /* the host's address on the bridge */
    const int *pin_cpus;            /* host CPU of each vCPU, NULL: not pinned */
    const char *owner;              /* core/owner.h's mark of the run, in the domain's
                                     * description (what vp_domains_sweep reads), NULL:
                                     * none (libvirt destroys it with this process) */
};

/* The domain XML of spec under config; a malloc'd string. */
char *vp_domain_xml(const struct vp_guest_config *config, const struct vp_guest_spec *spec);

/* A running guest (libvirt.c). */
struct vp_domain;
/* Whether this virtperf was built with libvirt. */
bool vp_domains_supported(void);
/* Connects to libvirt at uri (NULL: qemu:///system); -1 with what to install or start. */
int vp_domains_connect(const char *uri, char *err, size_t err_len);
/* Whether the hypervisor offers domain type kvm (its capabilities). */
bool vp_domains_offer_kvm(void);
/* Starts a transient domain from xml, destroyed by libvirt if this process dies unless
 * migratable (libvirt migrates no such domain); NULL with libvirt's reason. */
struct vp_domain *vp_domain_start(const char *xml, bool migratable, char *err, size_t err_len);
/* Opens the connection to the libvirt at uri guests migrate to; -1 with why. */
int vp_domains_reach(const char *uri, char *err, size_t err_len);
/* What libvirt says of a completed migration (its job statistics on the destination):
 * milliseconds from start to end and with the guest stopped, bytes sent, passes over its
 * memory; -1 where not given. */
struct vp_migration_figures {
    double total_ms, downtime_ms, data_bytes, memory_iterations;
};
/* Live-migrates the domain to the libvirt at uri (NULL: back to the run's own), as xml
 * there (its host-side paths its own); the domain is then that one. -1 with libvirt's
 * reason (the domain still where it was, or gone). */
int vp_domain_migrate(struct vp_domain *domain, const char *uri, const char *xml,
                      struct vp_migration_figures *figures, char *err, size_t err_len);
/* Aborts its migration under way (from another thread): vp_domain_migrate then fails
 * with libvirt's reason and the domain runs where it was. */
void vp_domain_abort_migration(struct vp_domain *domain);
/* Its XML as a migration's destination takes it (malloc'd). */
char *vp_domain_migratable_xml(struct vp_domain *domain);
/* Destroys every domain whose description holds the owner mark of a virtperf of this
 * machine that is gone (core/owner.h), here and where guests migrated: never one of
 * another machine's runs, nor of a run still alive. */
void vp_domains_sweep(void);
/* Whether it still runs. */
bool vp_domain_running(struct vp_domain *domain);
/* The domain's XML as libvirt runs it (malloc'd), its QEMU process. */
char *vp_domain_running_xml(struct vp_domain *domain);
pid_t vp_domain_pid(struct vp_domain *domain);
/* Caps each of its vCPUs at pct% of a host CPU from now on (libvirt's vcpu_quota over a
 * 100 ms period, the running domain's <cputune>); -1 with libvirt's reason. */
int vp_domain_cap_vcpus(struct vp_domain *domain, unsigned pct, char *err, size_t err_len);
/* Pauses or resumes its vCPUs. */
int vp_domain_pause(struct vp_domain *domain, bool pause);
/* Destroys it (gone at once) and frees the handle. */
void vp_domain_destroy(struct vp_domain *domain);
void vp_domains_disconnect(void);

#endif
