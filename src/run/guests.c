/* `virtperf run BENCH... --guests SPEC`: the guests kind of the fleet runner (fleet.h).
 * Each guest is a transient libvirt domain (env/domain.h) booted from the cached image
 * (env/image.h) into `virtperf guest-agent`, its channel a virtio-serial port whose
 * host end is a unix socket QEMU makes in the run's directory. Under --guest-accel auto
 * the first guest is tried under KVM and every guest runs under TCG when it does not
 * answer; each guest's fingerprint keeps the domain XML libvirt ran; what a guest costs
 * the host is its QEMU process's CPU, in its vCPU threads and in the rest. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "run/fleet.h"
#include "run/kinds.h"
#include "core/clock.h"
#include "core/guest_mount.h"
#include "core/limits.h"
#include "core/owner.h"
#include "core/printable.h"
#include "env/channel.h"
#include "env/console.h"
#include "core/program.h"
#include "core/scratch.h"
#include "core/topology.h"
#include "engine/engine.h"
#include "env/domain.h"
#include "env/image.h"
#include "env/qemu_cpu.h"
#include "env/process_memory.h"
#include "net/neighbour.h"

/* A guest under working KVM boots this initramfs far faster than TCG's 6 s here (not
 * measured: nested KVM runs no guest on these machines); a nested one that fails never
 * answers. */
#define KVM_PROBE_TIMEOUT_S 10
#define DEFAULT_CPUS 1
#define DEFAULT_MEMORY_MIB 512
#define DEFAULT_DISK_BYTES (1ull << 30)

static struct vp_fleet_kind guests_kind(void *state);

/* A guest's own part: its files, domain and QEMU. */
struct guest {
    char channel[VP_GUEST_PATH_LEN], console[VP_GUEST_PATH_LEN], disk[VP_GUEST_PATH_LEN];
    char address[64];      /* ADDRESS/PREFIX on --guest-net's bridge, "": none */
    char bare_address[INET_ADDRSTRLEN];
    struct vp_domain *domain;
    pid_t qemu;
    struct vp_qemu_cpu before;
    unsigned moves;        /* its migrations: its channel and console at NAME-mMOVE.* */
    bool moved;            /* migrated in this point: its QEMU's CPU since it arrived */
    int arrived_fd;        /* its channel there, connected while it moved; -1: none */
};

struct guests {
    struct vp_guest_config config;
    struct vp_guest_image image;
    const char *work;
    unsigned cpu_cap_pct, cpu_cap_guest;
    bool pinned;
    const char *pin_spec;        /* --guest-pin as given, NULL: none */
    int pins[VP_MAX_GUESTS * 64]; /* guest g's vCPU v on host CPU pins[g * cpus + v] */
    bool kvm;
    char accel_note[256];  /* why kvm was not used where auto would have */
    char gateway[64];      /* the host's address on --guest-net's bridge */
    char disks[VP_GUEST_PATH_LEN]; /* --guest-disk's scratch directory of images, "": none */
    const char *mount_spec;        /* --guest-mount as given, NULL: none */
    struct vp_guest_mount mount;
    char mount_word[700];
    bool migrates;                 /* --migrate-to: the first guest is not auto-destroyed */
    struct guest own[VP_MAX_GUESTS];
};

/* The bridge's IPv4 address and prefix; guest g gets the (first + g)-th address after it
 * (first: the guests of earlier groups on the bridge). */
static int bridge_addresses(struct guests *guests, unsigned first, unsigned most, char *err,
                            size_t err_len)
{
    const char *bridge = guests->config.bridge;
    char path[300];
    snprintf(path, sizeof path, "/sys/class/net/%s/bridge", bridge);
    if (strchr(bridge, '/') || access(path, F_OK) != 0) {
        snprintf(err, err_len, "--guest-net: '%s' is not a bridge on this host; accepted: an "
                 "existing bridge with an IPv4 address (ip link add NAME type bridge)", bridge);
        return -1;
    }
    struct ifaddrs *all, *entry;
    uint32_t host = 0, mask = 0;
    if (getifaddrs(&all) != 0)
        return -1;
    for (entry = all; entry; entry = entry->ifa_next)
        if (entry->ifa_addr && entry->ifa_addr->sa_family == AF_INET &&
            strcmp(entry->ifa_name, bridge) == 0 && host == 0) {
            host = ntohl(((struct sockaddr_in *)entry->ifa_addr)->sin_addr.s_addr);
            mask = ntohl(((struct sockaddr_in *)entry->ifa_netmask)->sin_addr.s_addr);
        }
    freeifaddrs(all);
    int prefix = __builtin_popcount(mask);
    if (host == 0 || (uint64_t)(~mask) < first + most + 2u) {
        snprintf(err, err_len, "--guest-net: bridge '%s' has %s; accepted: a bridge with an "
                 "IPv4 address whose subnet holds %u more", bridge,
                 host ? "too small a subnet" : "no IPv4 address", first + most);
        return -1;
    }
    struct in_addr own = { htonl(host) };
    inet_ntop(AF_INET, &own, guests->gateway, sizeof guests->gateway);
    uint32_t next = host;
    for (unsigned g = 0; g < first + most; g++) {
        do
            next = (next & mask) | ((next + 1) & ~mask);
        while ((next & ~mask) == 0 || (next & ~mask) == ~mask || next == host);
        if (g < first)
            continue;
        struct in_addr address = { htonl(next) };
        char text[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &address, text, sizeof text);
        struct guest *guest = &guests->own[g - first];
        snprintf(guest->address, sizeof guest->address, "%s/%d", text, prefix);
        snprintf(guest->bare_address, sizeof guest->bare_address, "%s", text);
    }
    return 0;
}

static int check_disk_room(const struct guests *guests, unsigned most, char *err, size_t err_len)
{
    struct statvfs room;
    if (statvfs(guests->config.disk_dir, &room) != 0) {
        snprintf(err, err_len, "--guest-disk: '%s': %s; accepted: a writable directory",
                 guests->config.disk_dir, strerror(errno));
        return -1;
    }
    uint64_t free_bytes = (uint64_t)room.f_bavail * room.f_frsize;
    uint64_t needed = guests->config.disk_bytes * most;
    if (free_bytes < needed) {
        snprintf(err, err_len, "--guest-disk: %s has %.1f GiB free, and %u guests' disks need "
                 "%.1f GiB; accepted: a smaller --guest-disk-size, or fewer guests",
                 guests->config.disk_dir, (double)free_bytes / (1 << 30), most,
                 (double)needed / (1 << 30));
        return -1;
    }
    return 0;
}

/* libvirt's QEMU runs as its own user: every directory above the image must let others
 * through. */
static int readable_by_qemu(const char *path, char *err, size_t err_len)
{
    char dir[VP_GUEST_PATH_LEN];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *slash = strrchr(dir, '/'); slash && slash != dir; slash = strrchr(dir, '/')) {
        *slash = '\0';
        struct stat info;
        if (stat(dir, &info) == 0 && !(info.st_mode & S_IXOTH)) {
            snprintf(err, err_len, "--guests: libvirt's QEMU user cannot reach the guests' image "
                     "%s (%s is not open to others); accepted: VIRTPERF_CACHE set to a "
                     "directory others can reach (default /var/cache/virtperf)", path, dir);
            return -1;
        }
    }
    return 0;
}

/* --guest-pin: every guest's vCPUs, in guest order, as the jobs of one host are pinned. */
static int plan_pins(struct guests *guests, const char *spec, unsigned most, char *err,
                     size_t err_len)
{
    struct vp_topology *topology = NULL;
    char why[VP_ERROR_LEN];
    unsigned vcpus = most * guests->config.cpus;
    int status = vcpus <= sizeof guests->pins / sizeof guests->pins[0] &&
                         vp_topology_load(&topology, NULL, why, sizeof why) == 0 &&
                         vp_pin_check(topology, spec, why, sizeof why) == 0 &&
                         vp_pin_plan(topology, spec, vcpus, guests->pins, why, sizeof why) == 0
                     ? 0 : -1;
    if (topology)
        vp_topology_free(topology);
    if (status != 0 || strcmp(spec, "none") == 0) {
        if (status != 0)
            snprintf(err, err_len, "--guest-pin: %s", vcpus > sizeof guests->pins /
                     sizeof guests->pins[0] ? "too many vCPUs to pin" : why);
        return status;
    }
    guests->pinned = true;
    return 0;
}

static int prepare(void *state, const struct vp_fleet_setup *setup, char *err, size_t err_len)
{
    struct guests *guests = state;
    const struct vp_guests_request *asked = setup->asked;
    guests->work = setup->work;
    guests->cpu_cap_pct = asked->cpu_cap_pct;
    guests->cpu_cap_guest = asked->cpu_cap_guest;
    guests->pinned = false;
    guests->pin_spec = asked->pin;
    guests->config = (struct vp_guest_config){
        .uri = asked->uri, .cpus = asked->cpus ? asked->cpus : DEFAULT_CPUS,
        .memory_mib = asked->memory_mib ? asked->memory_mib : DEFAULT_MEMORY_MIB,
        .bridge = asked->bridge, .disk_dir = asked->disk_dir,
        .nic = vp_guest_device_find(VP_GUEST_NIC, asked->nic ? asked->nic : "virtio"),
        .disk_bus = vp_guest_device_find(VP_GUEST_DISK_BUS,
                                         asked->disk_bus ? asked->disk_bus : "virtio"),
        .disk_bytes = asked->disk_bytes ? asked->disk_bytes : DEFAULT_DISK_BYTES,
        .accel = !asked->accel || strcmp(asked->accel, "auto") == 0 ? VP_ACCEL_AUTO
                 : strcmp(asked->accel, "kvm") == 0 ? VP_ACCEL_KVM : VP_ACCEL_TCG,
    };
    if (asked->nic && !asked->bridge) {
        snprintf(err, err_len, "--guest-nic: the guests have a NIC on --guest-net BRIDGE only; "
                 "accepted: --guest-net BRIDGE --guest-nic %s", asked->nic);
        return -1;
    }
    guests->mount_spec = asked->mount;
    if (asked->mount) {
        if (!asked->bridge) {
            snprintf(err, err_len, "--guest-mount: the guests reach an NFS server over "
                     "--guest-net BRIDGE only; accepted: --guest-net BRIDGE --guest-mount %.200s",
                     asked->mount);
            return -1;
        }
        if (vp_guest_mount_parse(asked->mount, &guests->mount, err, err_len) != 0)
            return -1;
        vp_guest_mount_word(&guests->mount, guests->mount_word, sizeof guests->mount_word);
        guests->config.mount_word = guests->mount_word;
        vp_guest_mount_publish(asked->mount); /* this host reads the export by nfs:// */
    }
    if (asked->disk_bus && !asked->disk_dir) {
        snprintf(err, err_len, "--guest-disk-bus: the guests have a disk with --guest-disk DIR "
                 "only; accepted: --guest-disk DIR --guest-disk-bus %s", asked->disk_bus);
        return -1;
    }
    if (guests->config.bridge &&
        bridge_addresses(guests, setup->first, setup->most, err, err_len) != 0)
        return -1;
    if (asked->pin && plan_pins(guests, asked->pin, setup->most, err, err_len) != 0)
        return -1;
    if (guests->config.disk_dir && check_disk_room(guests, setup->most, err, err_len) != 0)
        return -1;
    if (vp_domains_connect(guests->config.uri, err, err_len) != 0)
        return -1;
    guests->migrates = setup->migrate_to != NULL;
    if (guests->migrates) {
        if (vp_domains_reach(setup->migrate_to, err, err_len) != 0)
            return -1;
        vp_domains_sweep(); /* what a killed run's migratable guest left, here or there */
    }
    /* an emulated device's driver is in the generic kernel only */
    bool generic = (guests->config.bridge && guests->config.nic->generic_kernel) ||
                   (guests->config.disk_dir && guests->config.disk_bus->generic_kernel);
    if (vp_guest_image_find(&guests->image, generic, setup->files, err, err_len) != 0 ||
        readable_by_qemu(guests->image.initrd, err, err_len) != 0)
        return -1;
    guests->config.kernel = guests->image.kernel;
    guests->config.initrd = guests->image.initrd;
    bool kvm_here = access("/dev/kvm", R_OK | W_OK) == 0 && vp_domains_offer_kvm();
    if (guests->config.accel == VP_ACCEL_KVM && !kvm_here) {
        snprintf(err, err_len, "--guest-accel kvm: this host offers no KVM (/dev/kvm, libvirt's "
                 "kvm domain type); accepted here: --guest-accel tcg or auto");
        return -1;
    }
    guests->kvm = kvm_here && guests->config.accel != VP_ACCEL_TCG;
    if (!kvm_here && guests->config.accel == VP_ACCEL_AUTO)
        snprintf(guests->accel_note, sizeof guests->accel_note, "no KVM on this host: TCG");
    return 0;
}

/* An ext4 image of the configured size at guest->disk; -1 with why. */
static int make_disk(struct guests *guests, const struct vp_member *member,
                     struct guest *guest, char *err, size_t err_len)
{
    /* in a scratch directory of the run's: what a SIGKILL leaves is reclaimed next time */
    char why[VP_ERROR_LEN];
    if (!guests->disks[0]) {
        if (vp_scratch_make(guests->config.disk_dir, "virtperf-disks", guests->disks,
                            sizeof guests->disks, why, sizeof why) != 0) {
            snprintf(err, err_len, "--guest-disk: %s: %s", guests->config.disk_dir, why);
            return -1;
        }
        chmod(guests->disks, 0711); /* libvirt's QEMU user opens the images in it */
    }
    snprintf(guest->disk, sizeof guest->disk, "%.300s/%.60s.img", guests->disks, member->name);
    int fd = open(guest->disk, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        snprintf(err, err_len, "--guest-disk: cannot make %s: %s", guest->disk, strerror(errno));
        guest->disk[0] = '\0';
        return -1;
    }
    int sized = ftruncate(fd, (off_t)guests->config.disk_bytes);
    close(fd);
    char *argv[] = { "mkfs.ext4", "-q", "-F", guest->disk, NULL };
    if (sized != 0 || vp_run_program(argv, false, NULL, 0) != 0) {
        snprintf(err, err_len, "--guest-disk: cannot make an ext4 image %s (is e2fsprogs "
                 "installed, is %s full?)", guest->disk, guests->config.disk_dir);
        return -1;
    }
    return 0;
}

static int start_domain(struct guests *guests, struct vp_member *member, struct guest *guest,
                        bool kvm, char *err, size_t err_len)
{
    size_t index = (size_t)(guest - guests->own);
    struct vp_guest_spec spec = {
        .name = member->name, .kvm = kvm, .channel_path = guest->channel,
        .console_path = guest->console, .disk_path = guest->disk[0] ? guest->disk : NULL,
        .address = guest->address[0] ? guest->address : NULL,
        .gateway = guests->gateway[0] ? guests->gateway : NULL,
        .pin_cpus = guests->pinned ? &guests->pins[index * guests->config.cpus] : NULL,
    };
    /* the last run's guest at this address had another MAC: this host asks anew */
    char why[VP_ERROR_LEN];
    if (guest->bare_address[0] &&
        vp_neighbour_forget(guests->config.bridge, guest->bare_address, why, sizeof why) != 0) {
        snprintf(err, err_len, "--guest-net: %s", why);
        return -1;
    }
    /* a guest to migrate outlives a virtperf killed: its owner said, for the next run */
    char owner[VP_OWNER_MARK_LEN];
    bool migratable = guests->migrates && index == 0;
    if (migratable && vp_owner_mark(owner, sizeof owner) == 0)
        spec.owner = owner;
    char *xml = vp_domain_xml(&guests->config, &spec);
    guest->domain = vp_domain_start(xml, migratable, err, err_len);
    free(xml);
    if (!guest->domain)
        return -1;
    guest->qemu = vp_domain_pid(guest->domain);
    return 0;
}

/* A guest's file of the run's directory (its channel "sock", its "console") before its
 * first migration (move 0) or after migration move. */
static void guest_path(const struct guests *guests, const struct vp_member *member,
                       unsigned move, const char *what, char *path, size_t len)
{
    if (move == 0)
        snprintf(path, len, "%.200s/%.60s.%s", guests->work, member->name, what);
    else
        snprintf(path, len, "%.200s/%.60s-m%u.%s", guests->work, member->name, move, what);
}

static void remove_guest(void *state, struct vp_member *member)
{
    struct guest *guest = member->own;
    struct guests *guests = state;
    if (!guest)
        return;
    vp_domain_destroy(guest->domain);
    guest->domain = NULL;
    if (guest->arrived_fd >= 0)
        close(guest->arrived_fd);
    guest->arrived_fd = -1;
    char ignored[VP_ERROR_LEN]; /* nothing stale for whoever has the address next */
    if (guest->bare_address[0])
        vp_neighbour_forget(guests->config.bridge, guest->bare_address, ignored, sizeof ignored);
    unlink(guest->channel);
    unlink(guest->console);
    for (unsigned move = 0; move < guest->moves; move++) { /* where it ran before */
        char path[VP_GUEST_PATH_LEN];
        guest_path(guests, member, move, "sock", path, sizeof path);
        unlink(path);
        guest_path(guests, member, move, "console", path, sizeof path);
        unlink(path);
    }
    guest->moves = 0;
    if (guest->disk[0])
        unlink(guest->disk);
    guest->disk[0] = '\0';
}

/* Starts guest index; under auto the first is tried under KVM, and when it does not
 * answer every guest runs under TCG, the reason kept. */
static int start_guest(void *state, struct vp_member *member, size_t index, char *err,
                       size_t err_len)
{
    struct guests *guests = state;
    struct guest *guest = &guests->own[index];
    member->own = guest;
    guest->arrived_fd = -1;
    guest_path(guests, member, 0, "sock", guest->channel, sizeof guest->channel);
    guest_path(guests, member, 0, "console", guest->console, sizeof guest->console);
    if (guests->config.disk_dir && make_disk(guests, member, guest, err, err_len) != 0)
        return -1;
    bool probe = index == 0 && guests->kvm && guests->config.accel == VP_ACCEL_AUTO;
    if (start_domain(guests, member, guest, guests->kvm, err, err_len) != 0 && !probe)
        return -1;
    if (!probe)
        return 0;
    char why[512];
    if (!guest->domain) { /* libvirt could not start it under kvm at all: its words */
        snprintf(guests->accel_note, sizeof guests->accel_note,
                 "a guest under kvm did not start (%.160s): fell back to TCG", err);
    } else {
        struct vp_fleet_kind kind = guests_kind(guests);
        if (vp_fleet_hear(&kind, member, KVM_PROBE_TIMEOUT_S, why, sizeof why) == 0)
            return 0;
        close(member->fd);
        member->fd = -1;
        vp_domain_destroy(guest->domain);
        guest->domain = NULL;
        unlink(guest->channel);
        snprintf(guests->accel_note, sizeof guests->accel_note,
                 "a guest under kvm did not answer in %d s: fell back to TCG",
                 KVM_PROBE_TIMEOUT_S);
    }
    guests->kvm = false;
    fprintf(stderr, "virtperf: %s\n", guests->accel_note);
    if (vp_engine_interrupted()) {
        snprintf(err, err_len, "interrupted by a signal");
        return -1;
    }
    return start_domain(guests, member, guest, false, err, err_len);
}

/* Connects to the channel socket once QEMU has made it, before deadline. */
static int connect_guest(void *state, struct vp_member *member, int64_t deadline_ns, char *err,
                         size_t err_len)
{
    (void)state;
    struct guest *guest = member->own;
    if (guest->arrived_fd >= 0) { /* connected while it moved */
        member->fd = guest->arrived_fd;
        guest->arrived_fd = -1;
        return 0;
    }
    while (vp_now_ns() < deadline_ns && !vp_engine_interrupted()) {
        int fd = vp_channel_connect(guest->channel);
        if (fd >= 0) {
            member->fd = fd;
            return 0;
        }
        if (!vp_domain_running(guest->domain))
            break;
        usleep(50000);
    }
    snprintf(err, err_len, "%s: its channel never opened%s", member->name,
             vp_engine_interrupted() ? " (interrupted)" : "");
    return -1;
}

static bool guest_alive(void *state, struct vp_member *member)
{
    (void)state;
    struct guest *guest = member->own;
    return guest->domain && vp_domain_running(guest->domain);
}

static int pause_guest(void *state, struct vp_member *member, bool pause)
{
    (void)state;
    struct guest *guest = member->own;
    return vp_domain_pause(guest->domain, pause);
}

/* --guest-cpu-cap, set once the guest answered: its boot is not what the cap is a known
 * cost of (a guest capped at 30% took three times as long to be ready, and a fill's or
 * sweep's next count waited for it), and the domain described next shows the cap. */
static int cap_guest(void *state, struct vp_member *member, char *err, size_t err_len)
{
    struct guests *guests = state;
    struct guest *guest = member->own;
    size_t index = (size_t)(guest - guests->own);
    if (!guests->cpu_cap_pct || (guests->cpu_cap_guest && guests->cpu_cap_guest != index + 1))
        return 0;
    char why[VP_ERROR_LEN];
    if (vp_domain_cap_vcpus(guest->domain, guests->cpu_cap_pct, why, sizeof why) == 0)
        return 0;
    snprintf(err, err_len, "--guest-cpu-cap: %s: %s", member->name, why);
    return -1;
}

/* The domain libvirt runs, kvm or tcg, into the guest's fingerprint. */
static void describe_guest(void *state, struct vp_member *member)
{
    struct guests *guests = state;
    struct guest *guest = member->own;
    char *xml = vp_domain_running_xml(guest->domain);
    json_object_set_new(member->fingerprint, "domain",
                        json_pack("{s:s,s:s,s:s}", "name", member->name, "type",
                                  guests->kvm ? "kvm" : "tcg", "xml", xml ? xml : ""));
    free(xml);
}

/* The last lines of a guest's serial console, to stderr: why it did not answer. */
static void silent_guest(void *state, struct vp_member *member)
{
    (void)state;
    struct guest *guest = member->own;
    vp_console_tail(guest->console, member->name);
}

static void cost_begin(void *state, struct vp_member *member)
{
    (void)state;
    struct guest *guest = member->own;
    guest->moved = false;
    vp_qemu_cpu_read(guest->qemu, &guest->before);
}

/* Its QEMU's memory at the point's end: the process's Rss and Pss and, where its RAM's
 * mapping is seen, the Pss beyond the guest's RAM (what one more guest costs the host). */
static void memory_cost(const struct guests *guests, const struct guest *guest, json_t *entry)
{
    struct vp_process_memory memory;
    uint64_t ram_bytes = (uint64_t)guests->config.memory_mib << 20;
    if (vp_process_memory_read(guest->qemu, ram_bytes, &memory) != 0)
        return;
    json_object_set_new(entry, "qemu_rss_bytes", json_integer((json_int_t)memory.rss_bytes));
    json_object_set_new(entry, "qemu_pss_bytes", json_integer((json_int_t)memory.pss_bytes));
    if (!memory.ram_found)
        return;
    json_object_set_new(entry, "guest_ram_pss_bytes", json_integer((json_int_t)memory.ram_pss_bytes));
    json_object_set_new(entry, "qemu_overhead_pss_bytes",
                        json_integer((json_int_t)(memory.pss_bytes - memory.ram_pss_bytes)));
}

/* Its QEMU's CPU over the point, % of one host CPU, and its memory at the end. */
static json_t *cost_end(void *state, struct vp_member *member, double seconds)
{
    const struct guests *guests = state;
    struct guest *guest = member->own;
    struct vp_qemu_cpu after;
    json_t *entry = json_pack("{s:s,s:i}", "name", member->name, "qemu_pid", (int)guest->qemu);
    if (seconds > 0 && vp_qemu_cpu_read(guest->qemu, &after) == 0) {
        /* each thread's ticks are rounded on their own: a tick's difference of two
         * readings can go below zero, and is held at 0, said so */
        double vcpu = 100 * (after.vcpu_s - guest->before.vcpu_s) / seconds;
        double other = 100 * (after.other_s - guest->before.other_s) / seconds;
        json_object_set_new(entry, "qemu_vcpu_cpu_pct", json_real(vcpu > 0 ? vcpu : 0));
        json_object_set_new(entry, "qemu_other_cpu_pct", json_real(other > 0 ? other : 0));
        if (vcpu < 0 || other < 0)
            json_object_set_new(entry, "qemu_cpu_clamped", json_true());
        if (guest->moved) /* its QEMU there, from its arrival, over the point's seconds */
            json_object_set_new(entry, "qemu_cpu_since_migration", json_true());
    }
    memory_cost(guests, guest, entry);
    return entry;
}

/* text with every occurrence of from replaced by to (malloc'd). */
static char *replaced(const char *text, const char *from, const char *to)
{
    size_t from_len = strlen(from), to_len = strlen(to), count = 0;
    for (const char *at = strstr(text, from); at; at = strstr(at + from_len, from))
        count++;
    char *out = malloc(strlen(text) + count * to_len + 1), *end = out;
    if (!out)
        abort();
    for (const char *at; (at = strstr(text, from)); text = at + from_len) {
        memcpy(end, text, (size_t)(at - text));
        end += at - text;
        memcpy(end, to, to_len);
        end += to_len;
    }
    strcpy(end, text);
    return out;
}

/* --migrate-to: the guest live-migrated to uri's libvirt (NULL: back to the run's), its
 * channel and console at paths of their own there (the two QEMUs are both alive while it
 * moves); its QEMU's CPU counted from its arrival. */
/* The destination's channel, connected as soon as its QEMU listens there, before the
 * guest resumes in it: QEMU drops what a guest writes to a channel nobody is connected to,
 * and the guest learns that its host end went away only a moment after it resumed. */
struct early_channel {
    const char *path;
    atomic_int done;
    int fd;
};

static void *connecting_early(void *context)
{
    struct early_channel *early = context;
    while (!atomic_load(&early->done) && (early->fd = vp_channel_connect(early->path)) < 0)
        vp_sleep_until_ns_or_stop(vp_now_ns() + 5000000, &early->done);
    return NULL;
}

static int migrate_guest(void *state, struct vp_member *member, const char *uri, json_t *moved,
                         char *err, size_t err_len)
{
    struct guests *guests = state;
    struct guest *guest = member->own;
    char channel[VP_GUEST_PATH_LEN], console[VP_GUEST_PATH_LEN], why[VP_ERROR_LEN];
    guest_path(guests, member, guest->moves + 1, "sock", channel, sizeof channel);
    guest_path(guests, member, guest->moves + 1, "console", console, sizeof console);
    char *xml = vp_domain_migratable_xml(guest->domain);
    if (!xml) {
        snprintf(err, err_len, "libvirt gave no XML of it to migrate");
        return -1;
    }
    char *with_channel = replaced(xml, guest->channel, channel);
    char *there = replaced(with_channel, guest->console, console);
    free(xml);
    free(with_channel);
    struct vp_migration_figures figures;
    struct early_channel early = { .path = channel, .fd = -1 };
    pthread_t connecting;
    if (pthread_create(&connecting, NULL, connecting_early, &early) != 0)
        abort();
    int status = vp_domain_migrate(guest->domain, uri, there, &figures, why, sizeof why);
    atomic_store(&early.done, 1);
    vp_wake_sleepers(&early.done);
    pthread_join(connecting, NULL);
    free(there);
    if (status != 0 && early.fd >= 0)
        close(early.fd);
    if (status != 0) {
        snprintf(err, err_len, "its migration to %.200s failed: %s (its kernel %s and "
                 "initramfs, and the run's directory %s, must be at the same paths there)",
                 uri ? uri : "this host's libvirt", why, guests->image.kernel, guests->work);
        return -1;
    }
    guest->moves++;
    guest->arrived_fd = early.fd; /* (-1: its QEMU was not listening yet; connect_guest waits) */
    snprintf(guest->channel, sizeof guest->channel, "%s", channel);
    snprintf(guest->console, sizeof guest->console, "%s", console);
    guest->qemu = vp_domain_pid(guest->domain);
    vp_qemu_cpu_read(guest->qemu, &guest->before);
    guest->moved = true;
    const struct {
        const char *key;
        double value;
    } said[] = { { "total_ms", figures.total_ms }, { "downtime_ms", figures.downtime_ms },
                 { "data_bytes", figures.data_bytes },
                 { "memory_iterations", figures.memory_iterations } };
    for (size_t f = 0; f < sizeof said / sizeof said[0]; f++)
        if (said[f].value >= 0) /* what libvirt gave: each an import's check takes */
            json_object_set_new(moved, said[f].key, json_real(said[f].value));
    return 0;
}

static void abort_guest_migration(void *state, struct vp_member *member)
{
    (void)state;
    struct guest *guest = member->own;
    vp_domain_abort_migration(guest->domain);
}

/* The host's address on the guests' bridge: without one they cannot reach it. */
static const char *server_address(void *state, char *err, size_t err_len)
{
    struct guests *guests = state;
    if (guests->gateway[0])
        return guests->gateway;
    snprintf(err, err_len, "--guests: a net benchmark talks to a server on this host, which "
             "guests reach only through a NIC; accepted: --guest-net BRIDGE (an existing "
             "bridge with an address), or --peer HOST of a server they reach");
    return NULL;
}

/* Guest index's address on the bridge, where its own server listens. */
static const char *member_address(void *state, size_t index)
{
    struct guests *guests = state;
    return guests->own[index].bare_address[0] ? guests->own[index].bare_address : NULL;
}

static json_t *summary(void *state)
{
    struct guests *guests = state;
    json_t *part = json_pack("{s:s,s:s}", "engine", "libvirt", "accel", guests->kvm ? "kvm" : "tcg");
    if (guests->accel_note[0])
        json_object_set_new(part, "accel_note", json_string(guests->accel_note));
    /* every setting the guests ran with, so that two runs tell what made them differ */
    json_t *settings = json_pack("{s:I,s:I}", "cpus", (json_int_t)guests->config.cpus,
                                 "memory_mib", (json_int_t)guests->config.memory_mib);
    if (guests->pin_spec)
        json_object_set_new(settings, "pin", json_string(guests->pin_spec));
    if (guests->cpu_cap_pct) {
        json_object_set_new(settings, "cpu_cap_pct", json_integer(guests->cpu_cap_pct));
        json_object_set_new(settings, "cpu_cap_guest", json_integer(guests->cpu_cap_guest));
    }
    if (guests->config.disk_dir) {
        json_object_set_new(settings, "disk_bus", json_string(guests->config.disk_bus->name));
        json_object_set_new(settings, "disk_mib",
                            json_integer((json_int_t)(guests->config.disk_bytes >> 20)));
    }
    if (guests->mount_spec) {
        char options[700];
        snprintf(options, sizeof options, "-t %s%s%s %s %s", guests->mount.type,
                 guests->mount.options[0] ? " -o " : "", guests->mount.options,
                 guests->mount.source, guests->mount.dir);
        json_object_set_new(settings, "mount", json_string(guests->mount_spec));
        json_object_set_new(settings, "mount_command", json_string(options));
    }
    if (guests->config.bridge) {
        json_object_set_new(settings, "net", json_string(guests->config.bridge));
        json_object_set_new(settings, "nic", json_string(guests->config.nic->name));
    }
    json_object_set_new(settings, "kernel", json_string(guests->image.kernel));
    json_object_set_new(part, "settings", settings);
    return part;
}

static void finish(void *state)
{
    struct guests *guests = state;
    vp_domains_disconnect();
    if (guests->disks[0])
        vp_scratch_remove(guests->disks);
    guests->disks[0] = '\0';
}

/* what a guest's init mounts its own of */
static const char *const own_dirs[] = { "/tmp", "/proc", "/sys", "/dev", "/run", NULL };

static struct vp_fleet_kind guests_kind(void *state)
{
    return (struct vp_fleet_kind){
        .env = &vp_guests_kind, .shared_work = true, .own_dirs = own_dirs, .state = state,
        .prepare = prepare,
        .start = start_guest, .connect = connect_guest, .alive = guest_alive,
        .pause = pause_guest, .once_ready = cap_guest, .describe = describe_guest,
        .silent = silent_guest,
        .cost_begin = cost_begin, .cost_end = cost_end, .server_address = server_address,
        .member_address = member_address, .migrate = migrate_guest,
        .abort_migration = abort_guest_migration, .summary = summary,
        .remove = remove_guest, .finish = finish,
    };
}

static struct guests *new_guests(void)
{
    struct guests *guests = calloc(1, sizeof *guests);
    if (!guests)
        abort();
    return guests;
}

static struct vp_fleet_kind fleet_of_guests(void)
{
    return guests_kind(new_guests());
}

static const char *const guest_settings[] = {
    "--and-host", "--guest-cpus", "--guest-memory", "--guest-accel", "--libvirt-uri",
    "--guest-net", "--guest-nic", "--guest-pin", "--guest-cpu-cap", "--guest-disk-size",
    "--guest-disk-bus", "--guest-disk", "--guest-programs", "--guest-mount", "--guest-timeout",
    "--migrate-to", "--migrate-at", "--migrate-back", "--qos", "--keep-free", NULL,
};

const struct vp_env_kind vp_guests_kind = {
    .name = "guests", .flag = "--guests", .noun = "guest", .settings = guest_settings,
    .fleet = fleet_of_guests, .under_mpi = true,
};
