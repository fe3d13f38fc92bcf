/* The rows of run's flag table (run_flags.h) that ask for members and set them: --guests,
 * --containers (a kind each, kinds.h), --and-host, and the --guest-* and --container-*
 * settings; and the check that the run starts a kind that takes each setting given. */
#include "run/run_flags.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/guest_devices.h"
#include "core/guest_mount.h"
#include "core/limits.h"
#include "core/units.h"

/* --qos RULE: what each count of a fill must meet, as virtperf scaling judges it. */
static int take_qos(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    return vp_qos_parse(value, &request->guests.qos, err, len);
}

/* --keep-free SIZE: the memory this host keeps free while a fill adds members. */
static int take_keep_free(struct vp_run_request *request, const char *value, char *err,
                          size_t len)
{
    uint64_t bytes;
    if (vp_parse_size(value, &bytes) != 0 || bytes < (1u << 20))
        return vp_run_flag_refuse(err, len, "--keep-free: '%s' is not valid; accepted: a size "
                                  "of at least 1M, such as 512M or 2G", value);
    request->guests.keep_free = bytes;
    return 0;
}

/* --guests SPEC, --containers SPEC: the members the run starts, of one kind (SPEC is
 * checked where they start). */
static int take_members(const struct vp_env_kind *kind, struct vp_run_request *request,
                        const char *value, char *err, size_t len)
{
    const struct vp_env_kind *before = request->guests.kind;
    if (before && before != kind) {
        const struct vp_env_kind *one = vp_env_kind_earlier(before, kind);
        const struct vp_env_kind *other = one == kind ? before : kind;
        return vp_run_flag_refuse(err, len, "%s and %s: one of them; accepted: %s SPEC or %s SPEC",
                      one->flag, other->flag, one->flag, other->flag);
    }
    request->guests.kind = kind;
    request->guests.spec = value;
    return 0;
}

static int take_guests(struct vp_run_request *request, const char *value, char *err,
                       size_t len)
{
    return take_members(&vp_guests_kind, request, value, err, len);
}

static int take_guest_cpus(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    return vp_run_flag_whole("--guest-cpus", value, 1, 64, &request->guests.cpus, err, len);
}

static int take_guest_memory(struct vp_run_request *request, const char *value, char *err,
                             size_t len)
{
    return vp_run_flag_whole("--guest-memory", value, 256, 1 << 20, &request->guests.memory_mib, err,
                      len);
}

static int take_guest_accel(struct vp_run_request *request, const char *value, char *err,
                            size_t len)
{
    if (strcmp(value, "auto") != 0 && strcmp(value, "kvm") != 0 && strcmp(value, "tcg") != 0)
        return vp_run_flag_refuse(err, len, "--guest-accel: '%s' is not valid; accepted: auto, kvm or tcg",
                      value);
    request->guests.accel = value;
    return 0;
}

static int take_guest_timeout(struct vp_run_request *request, const char *value, char *err,
                              size_t len)
{
    return vp_run_flag_whole("--guest-timeout", value, 10, 86400, &request->guests.timeout_s, err, len);
}

static int take_libvirt_uri(struct vp_run_request *request, const char *value, char *err,
                            size_t len)
{
    (void)err, (void)len;
    request->guests.uri = value;
    return 0;
}

static int take_guest_net(struct vp_run_request *request, const char *value, char *err,
                          size_t len)
{
    (void)err, (void)len;
    request->guests.bridge = value; /* an existing bridge: checked where the guests start */
    return 0;
}

static int take_and_host(struct vp_run_request *request, const char *value, char *err,
                         size_t len)
{
    (void)value, (void)err, (void)len;
    request->guests.and_host = true;
    return 0;
}

static int take_guest_disk(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    (void)err, (void)len;
    request->guests.disk_dir = value;
    return 0;
}

static int take_guest_disk_size(struct vp_run_request *request, const char *value, char *err,
                                size_t len)
{
    uint64_t bytes;
    if (vp_parse_size(value, &bytes) != 0 || bytes < (64u << 20))
        return vp_run_flag_refuse(err, len, "--guest-disk-size: '%s' is not valid; accepted: a size of at "
                      "least 64M, such as 512M or 4G", value);
    request->guests.disk_bytes = bytes;
    return 0;
}

/* A device of kind called value into *into; else refused naming flag and the accepted. */
static int take_device(enum vp_guest_device_kind kind, const char *flag, const char *value,
                       const char **into, char *err, size_t len)
{
    if (!vp_guest_device_find(kind, value)) {
        char accepted[128];
        vp_guest_device_names(kind, accepted, sizeof accepted);
        return vp_run_flag_refuse(err, len, "%s: '%s' is not valid; accepted: %s", flag, value,
                                  accepted);
    }
    *into = value;
    return 0;
}

static int take_guest_disk_bus(struct vp_run_request *request, const char *value, char *err,
                               size_t len)
{
    return take_device(VP_GUEST_DISK_BUS, "--guest-disk-bus", value, &request->guests.disk_bus,
                       err, len);
}

static int take_guest_nic(struct vp_run_request *request, const char *value, char *err,
                          size_t len)
{
    return take_device(VP_GUEST_NIC, "--guest-nic", value, &request->guests.nic, err, len);
}

/* --guest-cpu-cap PCT[@N]: each vCPU of every guest (or of guest N) at most PCT% of a
 * host CPU, libvirt's vcpu_quota set once the guest is ready: a known cost to find in the
 * results. */
static int take_guest_cpu_cap(struct vp_run_request *request, const char *value, char *err,
                              size_t len)
{
    unsigned pct = 0, guest = 0;
    char extra;
    int n = sscanf(value, "%u@%u%c", &pct, &guest, &extra);
    if (!((n == 1 && strchr(value, '@') == NULL) || n == 2) || pct < 1 || pct > 100 ||
        (n == 2 && (guest < 1 || guest > VP_MAX_GUESTS)) || value[0] < '0' || value[0] > '9')
        return vp_run_flag_refuse(err, len, "--guest-cpu-cap: '%s' is not valid; accepted: PCT from 1 to "
                      "100, or PCT@N for guest N only (1 to %d)", value, VP_MAX_GUESTS);
    request->guests.cpu_cap_pct = pct;
    request->guests.cpu_cap_guest = guest;
    return 0;
}

static int take_guest_pin(struct vp_run_request *request, const char *value, char *err,
                          size_t len)
{
    (void)err, (void)len;
    request->guests.pin = value; /* checked against this host's CPUs where the guests start */
    return 0;
}

/* --guest-programs PATH[,PATH...]: each an absolute path of a file or directory here. */
static int take_guest_programs(struct vp_run_request *request, const char *value, char *err,
                               size_t len)
{
    char copy[VP_TEXT_LEN], *save, *path;
    snprintf(copy, sizeof copy, "%s", value);
    struct stat info;
    for (path = strtok_r(copy, ",", &save); path; path = strtok_r(NULL, ",", &save))
        if (path[0] != '/' || stat(path, &info) != 0)
            return vp_run_flag_refuse(err, len, "--guest-programs: '%s' is not %s; accepted: absolute "
                          "paths of this host's programs, files or directories, comma-separated",
                          path, path[0] != '/' ? "an absolute path" : "here");
    if (strspn(value, ",") == strlen(value))
        return vp_run_flag_refuse(err, len, "--guest-programs: empty; accepted: absolute paths of this "
                      "host's programs, files or directories, comma-separated");
    request->guests.programs = value;
    return 0;
}

static int take_guest_mount(struct vp_run_request *request, const char *value, char *err,
                            size_t len)
{
    struct vp_guest_mount mount;
    if (vp_guest_mount_parse(value, &mount, err, len) != 0)
        return -1;
    request->guests.mount = value;
    return 0;
}

static int take_migrate_to(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    /* a libvirt URI: a driver, "://", and no control characters for the log lines */
    bool printable = true;
    for (const char *c = value; *c; c++)
        printable = printable && (unsigned char)*c > ' ' && *c != 0x7f;
    if (!strstr(value, "://") || !printable || strlen(value) >= 400)
        return vp_run_flag_refuse(err, len, "--migrate-to: '%.100s' is not a libvirt URI; "
                                  "accepted: qemu+ssh://HOST/system, qemu+tcp://HOST/system, "
                                  "qemu:///system?socket=PATH", value);
    request->guests.migrate_to = value;
    return 0;
}

static int take_migrate_at(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    double *at = &request->guests.migrate_at_s;
    if (vp_parse_duration(value, at) != 0 || *at < 0.01 || *at > 86400)
        return vp_run_flag_refuse(err, len, "--migrate-at: '%s' is not valid; accepted: 10ms to "
                                  "24h, such as 2s", value);
    return 0;
}

static int take_migrate_back(struct vp_run_request *request, const char *value, char *err,
                             size_t len)
{
    (void)value, (void)err, (void)len;
    request->guests.migrate_back = true;
    return 0;
}

static int take_containers(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    return take_members(&vp_containers_kind, request, value, err, len);
}

static int take_uml(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    return take_members(&vp_uml_kind, request, value, err, len);
}

static int take_container_engine(struct vp_run_request *request, const char *value, char *err,
                                 size_t len)
{
    if (strcmp(value, "podman") != 0 && strcmp(value, "docker") != 0)
        return vp_run_flag_refuse(err, len, "--container-engine: '%s' is not valid; accepted: podman or "
                      "docker", value);
    request->guests.container_engine = value;
    return 0;
}

static int take_container_runtime(struct vp_run_request *request, const char *value, char *err,
                                  size_t len)
{
    if (strcmp(value, "runc") != 0 && strcmp(value, "crun") != 0)
        return vp_run_flag_refuse(err, len, "--container-runtime: '%s' is not valid; accepted: runc or crun",
                      value);
    request->guests.container_runtime = value;
    return 0;
}

static int take_container_net(struct vp_run_request *request, const char *value, char *err,
                              size_t len)
{
    /* a network's name as podman and docker take them */
    size_t length = strlen(value);
    bool named = length > 0 && length < 64 && isalnum((unsigned char)value[0]) &&
                 strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_.-") == length;
    if (!named)
        return vp_run_flag_refuse(err, len, "--container-net: '%s' is not valid; accepted: host, bridge or "
                      "the name of a network of the engine (letters, digits, _ . -)", value);
    request->guests.container_net = value;
    return 0;
}

/* --group NAME:KIND=N[,SETTING=VALUE...]: kept as given; run/groups.c reads each once
 * every flag is in (the run's settings are the groups' too). */
static int take_group(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    if (request->guests.group_count == VP_MAX_GROUPS)
        return vp_run_flag_refuse(err, len, "--group: more than %d groups; accepted: 2 to %d",
                                  VP_MAX_GROUPS, VP_MAX_GROUPS);
    request->guests.groups[request->guests.group_count++] = value;
    return 0;
}

const struct vp_run_flag vp_member_flags[] = {
    { "guests", "SPEC", VP_SCOPE_SESSION,
      "run in guests virtperf starts (libvirt): 4, 1,2,4 or 1..8, one\n"
      "result per count, the guests started together; 1..auto fills\n"
      "the host (see --qos)  [none]",
      "Runs the benchmarks in throwaway guests virtperf starts through libvirt (one\n"
      "transient domain each, booted straight into virtperf), for each count of SPEC\n"
      "(\\fB4\\fR, \\fB1,2,4\\fR, \\fB1..8\\fR), every guest's jobs started at one instant;\n"
      "one result per count, with each guest under ranks.hosts and the host's own monitor\n"
      "and each guest's QEMU CPU. \\fBA..auto\\fR (or \\fBA..auto:MOST\\fR) fills the host:\n"
      "see \\fB\\-\\-qos\\fR. See GUESTS.", take_guests },
    { "guest-cpus", "N", VP_SCOPE_SESSION, "vCPUs per guest  [1]", NULL, take_guest_cpus },
    { "guest-memory", "MiB", VP_SCOPE_SESSION, "memory per guest, MiB  [512]", NULL,
      take_guest_memory },
    { "guest-accel", "A", VP_SCOPE_SESSION,
      "auto (kvm where it runs a guest, else tcg, said), kvm or tcg  [auto]", NULL,
      take_guest_accel },
    { "guest-timeout", "S", VP_SCOPE_SESSION,
      "seconds a guest may take to boot or to answer  [300]", NULL, take_guest_timeout },
    { "libvirt-uri", "URI", VP_SCOPE_SESSION, "libvirt's  [qemu:///system]", NULL,
      take_libvirt_uri },
    { "guest-cpu-cap", "PCT[@N]", VP_SCOPE_SESSION,
      "each vCPU of every guest (of guest N only) at most PCT% of a\n"
      "host CPU once it is ready (libvirt's cputune quota)  [no cap]", NULL,
      take_guest_cpu_cap },
    { "guest-pin", "SPEC", VP_SCOPE_SESSION,
      "the guests' vCPUs onto this host's CPUs (libvirt's vcpupin), in\n"
      "guest order: compact, spread or a CPU list  [not pinned]", NULL, take_guest_pin },
    { "guest-programs", "PATHS", VP_SCOPE_SESSION,
      "this host's programs, files or directories (comma-separated,\n"
      "absolute) put in the guests' or containers' image at the same\n"
      "paths, a program with its libraries  [what the benchmarks need]",
      "Puts this host's programs, files or directories (absolute paths, comma-separated) into\n"
      "the image the guests boot or the containers run, at the same paths: a program with\n"
      "its libraries (and a script with its interpreter), a directory whole. What the\n"
      "benchmarks need is put in without it: \\fBapp \\-\\-preset\\fR's programs and their\n"
      "files, \\fBapp \\-\\-cmd\\fR's program; give here what \\fB\\-\\-cmd\\fR reads or starts.",
      take_guest_programs },
    { "guest-mount", "nfs://S/E:DIR", VP_SCOPE_SESSION,
      "each guest mounts the NFS export E of server S at DIR\n"
      "through its kernel's client before its jobs run (v3;\n"
      "nfs://S/E?version=4:DIR for v4)  [none]",
      "Each guest mounts the NFS export \\fIE\\fR of server \\fIS\\fR at \\fIDIR\\fR through its own\n"
      "kernel's client before its jobs run, so its jobs read a shared store from a\n"
      "directory as the GridKa study's worker nodes did (\\fB\\-\\-source\\fR \\fIDIR\\fR). NFSv3 by\n"
      "default (mounted with vers=3,nolock,proto=tcp,mountproto=tcp: a guest runs no\n"
      "rpcbind or lock daemon), \\fBnfs://\\fIS\\fB/\\fIE\\fB?version=4:\\fIDIR\\fR for v4 (\\fIE\\fR the pseudo\n"
      "path). The server is reached over \\fB\\-\\-guest\\-net\\fR's bridge. A mount that fails\n"
      "ends the run with the guest's own words before any job starts; this host reads the\n"
      "fileset's manifest from the same export (nfs://, through libnfs) to bound what the\n"
      "guests' jobs send back. The mount and its options are kept in the result.",
      take_guest_mount },
    { "guest-net", "BRIDGE", VP_SCOPE_SESSION,
      "a NIC on this existing bridge, each guest an address next\n"
      "to the bridge's own  [no NIC]", NULL, take_guest_net },
    { "guest-disk", "DIR", VP_SCOPE_SESSION,
      "a disk image per guest made in DIR (ext4, at /mnt/disk in\n"
      "the guest, its working directory), removed afterwards; a\n"
      "container's working directory /work is made there  [none; /work: here]", NULL,
      take_guest_disk },
    { "guest-disk-size", "SIZE", VP_SCOPE_SESSION, "each guest disk's size  [1G]", NULL,
      take_guest_disk_size },
    { "guest-disk-bus", "B", VP_SCOPE_SESSION,
      "virtio, or emulated: ide, sata (AHCI); scsi (virtio-scsi)\n"
      "[virtio]", NULL, take_guest_disk_bus },
    { "guest-nic", "MODEL", VP_SCOPE_SESSION,
      "the NIC's model on --guest-net: virtio, or emulated: e1000,\n"
      "e1000e, rtl8139 (the guests then boot Debian's generic\n"
      "kernel, which drives them)  [virtio]",
      "The model of each guest's NIC on \\fB\\-\\-guest\\-net\\fR's bridge: \\fBvirtio\\fR\n"
      "(paravirtual, the default), or an emulated one, \\fBe1000\\fR, \\fBe1000e\\fR or\n"
      "\\fBrtl8139\\fR, as the CNAF 2007 study set Xen's emulated NIC (ioemu) against its\n"
      "paravirtual one (netfront). Debian's cloud kernel, which the guests boot otherwise,\n"
      "has no driver for an emulated NIC: with one, the guests boot the generic kernel\n"
      "(\\fBlinux\\-image\\-amd64\\fR, installed by \\fBscripts/deps.sh guests\\fR). Each guest's\n"
      "fingerprint names the driver its kernel bound (e1000, 8139cp...), and the\n"
      "emulated-NIC advisory then fires from inside it.", take_guest_nic },
    { "migrate-to", "URI", VP_SCOPE_STEP,
      "while each point runs, live-migrate the first guest to the\n"
      "libvirt at URI (qemu+ssh://HOST/system...)  [no migration]",
      "While each point runs, live-migrates the first guest to the libvirt at \\fIURI\\fR\n"
      "(\\fBqemu+ssh://\\fIHOST\\fB/system\\fR, \\fBqemu:///system?socket=\\fIPATH\\fR), as\n"
      "the SPring-8 2005 study moved its Xen guests for maintenance: \\fB\\-\\-migrate\\-at\\fR\n"
      "after the point's first measured start, and with \\fB\\-\\-migrate\\-back\\fR back to\n"
      "this host's libvirt as long after it arrived. The guest's kernel, initramfs and the\n"
      "run's directory must be at the same paths there (one machine, or shared storage).\n"
      "Each result keeps every migration: libvirt's total time, downtime, bytes and memory\n"
      "passes (its job statistics on the destination) beside the longest gap \\fBnet.probe\\fR\n"
      "saw from this host meanwhile. A migration that fails, or has not ended\n"
      "\\fB\\-\\-guest\\-timeout\\fR after it began (then aborted), ends the run with libvirt's\n"
      "reason; the guest is destroyed wherever it is. Guests to migrate are not\n"
      "auto-destroyed by libvirt (it refuses to migrate those): a run killed with SIGKILL\n"
      "leaves them until the next run with \\fB\\-\\-migrate\\-to\\fR destroys them. In a plan,\n"
      "a step's own key (\\fB\\-\\-set\\fR \\fISTEP\\fB.migrate\\-to=\\fIURI\\fR): the steps that\n"
      "say it migrate, to one libvirt per run.",
      take_migrate_to },
    { "migrate-at", "T", VP_SCOPE_STEP,
      "with --migrate-to: when, after each point's first measured\n"
      "start  [1s]", NULL, take_migrate_at },
    { "migrate-back", NULL, VP_SCOPE_STEP,
      "with --migrate-to: back to this host's libvirt as long after\n"
      "it arrived, or at the point's end if that comes first  [it stays]", NULL,
      take_migrate_back },
    { "and-host", NULL, VP_SCOPE_SESSION,
      "with --guests or --containers: as many jobs on this host as\n"
      "there are guests, repetitions alternating host, guests (ABAB)",
      "Also runs each point on this host, with as many jobs as the count's guests or\n"
      "containers run in all, its repetitions alternating with theirs (host, guests, host,\n"
      "guests...), so that a drift of the machine becomes neither side's penalty: the\n"
      "IHEP 2010 study's processes on the hypervisor against its VMs. Each point gives\n"
      "two results, \\fBside\\fR host and guests; \\fBvirtperf compare RUN\\fR pairs them.\n"
      "With \\fB\\-\\-guest\\-disk\\fR DIR the host's jobs work in DIR. Not with net\n"
      "benchmarks yet.", take_and_host },
    { "containers", "SPEC", VP_SCOPE_SESSION,
      "run in containers virtperf starts (podman or docker): 4, 1,2,4 or 1..8,\n"
      "one result per count, started together  [none]",
      "Runs the benchmarks in containers virtperf starts through podman or docker, from a root\n"
      "directory of this virtperf and its libraries (no registry), for each count of SPEC,\n"
      "as \\fB\\-\\-guests\\fR does with guests. See GUESTS.", take_containers },
    { "container-engine", "E", VP_SCOPE_SESSION, "podman or docker  [podman]", NULL,
      take_container_engine },
    { "container-runtime", "R", VP_SCOPE_SESSION,
      "runc or crun  [runc where installed, else the engine's]", NULL, take_container_runtime },
    { "container-net", "N", VP_SCOPE_SESSION,
      "host (this host's network), bridge (the engine's default) or NETWORK (one made with\n"
      "podman/docker network create)  [host]", NULL, take_container_net },
    { "uml", "SPEC", VP_SCOPE_SESSION,
      "run in User-Mode Linux instances virtperf starts (Debian's\n"
      "user-mode-linux): 4, 1,2,4 or 1..8, one result per count  [none]",
      "Runs the benchmarks in User-Mode Linux instances virtperf starts (Debian's\n"
      "\\fBuser\\-mode\\-linux\\fR: a Linux kernel run as this host's processes), each booting\n"
      "the containers' root directory read-only, for each count of SPEC, as \\fB\\-\\-guests\\fR\n"
      "does with guests. No network yet: benchmarks that need none. See GUESTS.", take_uml },
    { "qos", "RULE", VP_SCOPE_SESSION,
      "with a fill (--guests 1..auto, any kind's A..auto[:MOST]): what\n"
      "each count must meet, as virtperf scaling judges it:\n"
      "per_job>=F, p99<=Fx or p99<=DURATION  [per-job >= 0.9x, p99 <= 1.2x]",
      "With a fill, \\fB\\-\\-guests A..auto\\fR (or \\fB\\-\\-containers\\fR, \\fB\\-\\-uml\\fR;\n"
      "\\fBA..auto:MOST\\fR caps it): members are added, A then doubling, until a count\n"
      "breaks the rule (judged against the first count as \\fBvirtperf scaling\\fR judges\n"
      "it: \\fBper_job>=F\\fR for rates, \\fBp99<=Fx\\fR or \\fBp99<=DURATION\\fR for\n"
      "latencies), the host's CPUs have no idle time left (under 5%), this host's free\n"
      "memory falls below \\fB\\-\\-keep\\-free\\fR (or another member's would, as the\n"
      "running ones measure), or MOST (32) held; then the gap between the largest count that\n"
      "held and the smallest that broke is halved until one apart. Every count measured is a\n"
      "result; each carries \\fBfill\\fR (its verdict and why), the last the optimum and\n"
      "what stopped it: the SPring-8 2005 study's \\(lqhow many VMs\\(rq, found by the tool.",
      take_qos },
    { "keep-free", "SIZE", VP_SCOPE_SESSION,
      "with a fill: this host's memory kept free (MemAvailable)  [10% of its memory]", NULL,
      take_keep_free },
    { "group", "NAME:KIND=N[,SET=V...]", VP_SCOPE_COMMAND,
      "a group of members with settings of its own (repeat: 2 to 8\n"
      "groups), e.g. --group pv:guests=2 --group emu:guests=2,guest-nic=e1000;\n"
      "all start together, one result per group  [none]",
      "Runs the benchmarks in two or more groups of members at once, each group its own kind\n"
      "and settings: \\fBNAME:KIND=N\\fR (\\fBguests=2\\fR, \\fBcontainers=2\\fR, \\fBuml=1\\fR),\n"
      "then any of \\fBguest\\-cpus\\fR, \\fBguest\\-memory\\fR, \\fBguest\\-accel\\fR,\n"
      "\\fBguest\\-cpu\\-cap\\fR, \\fBguest\\-net\\fR, \\fBguest\\-nic\\fR, \\fBguest\\-disk\\fR,\n"
      "\\fBguest\\-disk\\-size\\fR, \\fBguest\\-disk\\-bus\\fR, \\fBcontainer\\-engine\\fR,\n"
      "\\fBcontainer\\-runtime\\fR and \\fBcontainer\\-net\\fR as \\fBSETTING=VALUE\\fR, over the run's\n"
      "own \\fB\\-\\-guest\\-*\\fR and \\fB\\-\\-container\\-*\\fR flags. Every member of every group\n"
      "starts each repetition at one instant; each point gives one result per group, its\n"
      "\\fBside\\fR the group's name, combined over the group's members (without the\n"
      "stonewalled rates, which are summed across all of a point's members); \\fBvirtperf\n"
      "compare RUN\\fR sets every later group against the first: the CNAF 2007 study's\n"
      "paravirtual against emulated NIC, or its Xen and VMware guests side by side.\n"
      "A group's count is one number (no sweep); not with \\fB\\-\\-and\\-host\\fR,\n"
      "\\fB\\-\\-topology\\fR, \\fB\\-\\-guest\\-pin\\fR, \\fB\\-\\-libvirt\\-uri\\fR or a plan yet.",
      take_group },
};
const size_t vp_member_flag_count = sizeof vp_member_flags / sizeof vp_member_flags[0];

bool vp_run_member_setting(const char *key)
{
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", key);
    for (size_t k = 0; vp_env_kinds[k]; k++) /* a setting is one some kind takes */
        if (vp_env_kind_takes(vp_env_kinds[k], flag))
            return true;
    return false;
}

/* flag refused under virtperf-mpi, which starts no members yet: -1 with err. */
size_t vp_run_members_given(const struct vp_guests_request *asked, const char **flags)
{
    /* every kind's settings (kinds.h says which kind takes which), whether each was given */
    const struct {
        const char *flag;
        bool given;
    } settings[] = {
        { "--and-host", asked->and_host },
        { "--guest-cpus", asked->cpus }, { "--guest-memory", asked->memory_mib },
        { "--guest-accel", asked->accel }, { "--libvirt-uri", asked->uri },
        { "--guest-net", asked->bridge }, { "--guest-pin", asked->pin },
        { "--guest-cpu-cap", asked->cpu_cap_pct },
        { "--guest-disk-size", asked->disk_bytes },
        { "--guest-disk-bus", asked->disk_bus },
        { "--guest-nic", asked->nic },
        { "--guest-disk", asked->disk_dir },
        { "--guest-programs", asked->programs },
        { "--guest-mount", asked->mount },
        { "--migrate-to", asked->migrate_to }, { "--migrate-at", asked->migrate_at_s > 0 },
        { "--migrate-back", asked->migrate_back },
        { "--guest-timeout", asked->timeout_s },
        { "--container-engine", asked->container_engine },
        { "--container-runtime", asked->container_runtime },
        { "--container-net", asked->container_net },
        { "--qos", asked->qos.given }, { "--keep-free", asked->keep_free },
    };
    size_t given = 0;
    for (size_t f = 0; f < sizeof settings / sizeof settings[0]; f++)
        if (settings[f].given)
            flags[given++] = settings[f].flag;
    return given;
}

int vp_run_members_check(const struct vp_guests_request *asked,
                         const struct vp_env_kind *running, char *err, size_t err_len)
{
    const char *given[VP_RUN_MEMBER_SETTINGS];
    size_t count = vp_run_members_given(asked, given);
    for (size_t f = 0; f < count; f++) {
        const char *flag = given[f];
        if (running && vp_env_kind_takes(running, flag))
            continue;
        /* the kinds that take it ("guests", "guests or containers"), the first's flag */
        const struct vp_env_kind *taker = NULL;
        for (size_t k = 0; vp_env_kinds[k] && !taker; k++)
            if (vp_env_kind_takes(vp_env_kinds[k], flag))
                taker = vp_env_kinds[k];
        char names[128];
        vp_env_kinds_list(flag, names, sizeof names);
        snprintf(err, err_len, "%s: only for the %s of a run; accepted: %s SPEC %s ...", flag,
                 names, taker ? taker->flag : "--guests", flag);
        return -1;
    }
    if ((asked->migrate_at_s > 0 || asked->migrate_back) && !asked->migrate_to) {
        snprintf(err, err_len, "%s: with --migrate-to URI only (the libvirt the guest moves "
                 "to); accepted: --migrate-to URI %s", asked->migrate_back ? "--migrate-back"
                 : "--migrate-at", asked->migrate_back ? "--migrate-back" : "--migrate-at T");
        return -1;
    }
    return 0;
}
