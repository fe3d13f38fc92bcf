/* Fingerprint collection from uname, /proc, /sys, CPUID and hwloc, and advisories. */
#define _GNU_SOURCE
#include "core/sysinfo.h"

#include <cpuid.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/copy_speed.h"
#include "core/idle.h"
#include "core/procfs.h"
#include "core/json.h"

#define SMALL_TEXT 4096

/* First line of a small file, trimmed; "" when it cannot be read. */
static void read_line(const char *path, char *buf, size_t len)
{
    if (vp_read_text_file(path, buf, len) < 0) {
        buf[0] = '\0';
        return;
    }
    buf[strcspn(buf, "\n")] = '\0';
}

static void set_line_if_present(json_t *object, const char *key, const char *path)
{
    char value[256];
    read_line(path, value, sizeof value);
    if (value[0])
        json_object_set_new(object, key, json_string(value));
}

/* The basename of the target of a symlink such as /sys/class/net/X/device/driver. */
static void link_basename(const char *path, char *buf, size_t len)
{
    char target[PATH_MAX];
    buf[0] = '\0';
    ssize_t got = readlink(path, target, sizeof target - 1);
    if (got <= 0)
        return;
    target[got] = '\0';
    const char *slash = strrchr(target, '/');
    snprintf(buf, len, "%.*s", (int)(len - 1), slash ? slash + 1 : target);
}

/* The driver of the controller a disk hangs off (ahci, ata_piix, virtio_scsi, virtio-pci
 * for a virtio disk, nvme): that of the nearest device above /sys/block/NAME/device with
 * a driver other than the disk's own (sd for every SCSI, SATA and IDE disk). */
static void disk_controller(const char *name, const char *own, char *buf, size_t len)
{
    char path[PATH_MAX], resolved[PATH_MAX];
    buf[0] = '\0';
    snprintf(path, sizeof path, "/sys/block/%s/device", name);
    if (!realpath(path, resolved))
        return;
    for (char *slash = strrchr(resolved, '/'); slash && slash > resolved + strlen("/sys/devices");
         slash = strrchr(resolved, '/')) {
        char link[PATH_MAX + 16], driver[128];
        snprintf(link, sizeof link, "%s/driver", resolved);
        link_basename(link, driver, sizeof driver);
        if (driver[0] && strcmp(driver, own) != 0) {
            snprintf(buf, len, "%s", driver);
            return;
        }
        *slash = '\0';
    }
}

void vp_cpuid_hypervisor_signature(char *buf, size_t len)
{
    buf[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 31)))
        return;
    __cpuid(0x40000000, eax, ebx, ecx, edx);
    char signature[13];
    memcpy(signature, &ebx, 4);
    memcpy(signature + 4, &ecx, 4);
    memcpy(signature + 8, &edx, 4);
    signature[12] = '\0';
    snprintf(buf, len, "%s", signature);
#else
    (void)len;
#endif
}

/* Value of "key\t: value" in /proc/cpuinfo's first processor block. */
static void cpuinfo_field(const char *cpuinfo, const char *key, char *buf, size_t len)
{
    buf[0] = '\0';
    size_t key_len = strlen(key);
    for (const char *line = cpuinfo; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, key, key_len) != 0 || (line[key_len] != '\t' && line[key_len] != ' '))
            continue;
        const char *colon = strchr(line, ':');
        if (!colon)
            return;
        colon++;
        while (*colon == ' ')
            colon++;
        size_t value_len = strcspn(colon, "\n");
        if (value_len >= len)
            value_len = len - 1;
        memcpy(buf, colon, value_len);
        buf[value_len] = '\0';
        return;
    }
}

static json_t *cpu_info(const struct vp_topology *topology, const char *text)
{
    static const char *const interesting_flags[] = {
        "hypervisor", "vmx", "svm", "constant_tsc", "nonstop_tsc", "tsc_known_freq", "rdtscp",
        "sse4_2", "avx", "avx2", "avx512f", "aes", "x2apic",
    };
    char model[256], flags[8192], mhz[64];
    cpuinfo_field(text, "model name", model, sizeof model);
    cpuinfo_field(text, "flags", flags, sizeof flags);
    cpuinfo_field(text, "cpu MHz", mhz, sizeof mhz);

    json_t *flag_list = json_array();
    for (size_t i = 0; i < sizeof interesting_flags / sizeof interesting_flags[0]; i++) {
        char padded[64];
        snprintf(padded, sizeof padded, " %s ", interesting_flags[i]);
        char haystack[sizeof flags + 2];
        snprintf(haystack, sizeof haystack, " %s ", flags);
        if (strstr(haystack, padded))
            json_array_append_new(flag_list, json_string(interesting_flags[i]));
    }
    struct vp_topology_counts counts;
    vp_topology_count(topology, &counts);
    json_t *cpu = json_pack("{s:s,s:o,s:i,s:i,s:i,s:i}", "model", model, "flags", flag_list,
                            "packages", (int)counts.packages, "cores", (int)counts.cores,
                            "threads", (int)counts.pus, "numa_nodes", (int)counts.numa_nodes);
    if (mhz[0])
        json_object_set_new(cpu, "mhz", json_real(atof(mhz)));
    set_line_if_present(cpu, "governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    set_line_if_present(cpu, "cpuidle_driver", "/sys/devices/system/cpu/cpuidle/current_driver");

    /* Recorded for the record only: a guest sees the host's caches, so never used to size. */
    json_t *caches = json_object();
    for (int index = 0; index < 8; index++) {
        char path[128], level[16], type[32], size[32], key[48];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
        read_line(path, level, sizeof level);
        if (!level[0])
            break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", index);
        read_line(path, type, sizeof type);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        read_line(path, size, sizeof size);
        snprintf(key, sizeof key, "L%s%s", level,
                 strcmp(type, "Data") == 0 ? "d" : strcmp(type, "Instruction") == 0 ? "i" : "");
        json_object_set_new(caches, key, json_string(size));
    }
    json_object_set_new(cpu, "caches", caches);
    return cpu;
}

static json_t *memory_info(void)
{
    struct vp_text meminfo = { 0 };
    unsigned long long total_kb = 0;
    if (vp_read_whole("/proc/meminfo", &meminfo) == 0)
        sscanf(meminfo.data, "MemTotal: %llu kB", &total_kb);
    vp_text_free(&meminfo);
    json_t *memory = json_pack("{s:I}", "total_bytes", (json_int_t)(total_kb * 1024));
    double copy_speed = vp_copy_speed_quiet(); /* kept for this boot, never measured here */
    if (copy_speed > 0)
        json_object_set_new(memory, "copy_bandwidth", json_real(copy_speed));
    char thp[128];
    read_line("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof thp);
    char *chosen = strchr(thp, '['), *end = chosen ? strchr(chosen, ']') : NULL;
    if (chosen && end) {
        *end = '\0';
        json_object_set_new(memory, "transparent_hugepages", json_string(chosen + 1));
    }
    return memory;
}

/* The kernel's view of the CPU's vulnerabilities and their mitigations, by name
 * (/sys/devices/system/cpu/vulnerabilities): mitigations change what a VM exit and a
 * system call cost, so two hosts' figures are compared knowing them. */
static json_t *vulnerabilities(void)
{
    json_t *found = json_object();
    DIR *dir = opendir("/sys/devices/system/cpu/vulnerabilities");
    struct dirent *entry;
    while (dir && (entry = readdir(dir))) {
        if (entry->d_name[0] == '.')
            continue;
        char path[320];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/vulnerabilities/%s", entry->d_name);
        set_line_if_present(found, entry->d_name, path);
    }
    if (dir)
        closedir(dir);
    return found;
}

/* cpuinfo: /proc/cpuinfo's text, read once for the fingerprint. */
static json_t *hypervisor_info(const char *cpuinfo)
{
    char signature[16];
    vp_cpuid_hypervisor_signature(signature, sizeof signature);
    static const struct { const char *signature, *name; } known[] = {
        { "KVMKVMKVM", "kvm" }, { "XenVMMXenVMM", "xen" }, { "VMwareVMware", "vmware" },
        { "Microsoft Hv", "hyper-v" }, { "TCGTCGTCGTCG", "qemu-tcg" }, { "VBoxVBoxVBox", "virtualbox" },
        { "bhyve bhyve ", "bhyve" }, { " lrpepyh  vr", "parallels" }, { "ACRNACRNACRN", "acrn" },
    };
    const char *name = signature[0] ? "unknown" : "none";
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(signature, known[i].signature) == 0)
            name = known[i].name;
    /* User-Mode Linux runs on the host's CPU, whose CPUID it passes on: its kernel says */
    char vendor[64];
    cpuinfo_field(cpuinfo, "vendor_id", vendor, sizeof vendor);
    if (strcmp(vendor, "User Mode Linux") == 0)
        name = "uml";
    json_t *hypervisor = json_pack("{s:s,s:s}", "name", name, "cpuid_signature", signature);
    set_line_if_present(hypervisor, "sys_hypervisor_type", "/sys/hypervisor/type");
    set_line_if_present(hypervisor, "dmi_vendor", "/sys/class/dmi/id/sys_vendor");
    set_line_if_present(hypervisor, "dmi_product", "/sys/class/dmi/id/product_name");
    set_line_if_present(hypervisor, "kvm_halt_poll_ns", "/sys/module/kvm/parameters/halt_poll_ns");
    set_line_if_present(hypervisor, "guest_halt_poll_ns",
                        "/sys/module/haltpoll/parameters/guest_halt_poll_ns");
    json_object_set_new(hypervisor, "vulnerabilities", vulnerabilities());
    return hypervisor;
}

static int path_exists(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0;
}

static json_t *container_info(void)
{
    struct vp_text cgroup = { 0 }, environ_text = { 0 };
    const char *kind = "none";
    if (path_exists("/.dockerenv"))
        kind = "docker";
    else if (path_exists("/run/.containerenv"))
        kind = "podman";
    if (strcmp(kind, "none") == 0 && vp_read_whole("/proc/1/cgroup", &cgroup) == 0) {
        if (strstr(cgroup.data, "docker")) kind = "docker";
        else if (strstr(cgroup.data, "kubepods")) kind = "kubernetes";
        else if (strstr(cgroup.data, "lxc")) kind = "lxc";
    }
    if (strcmp(kind, "none") == 0 && vp_read_whole("/proc/1/environ", &environ_text) == 0) {
        for (size_t at = 0; strcmp(kind, "none") == 0 && at < environ_text.len;
             at += strlen(environ_text.data + at) + 1)
            if (strncmp(environ_text.data + at, "container=", 10) == 0)
                kind = environ_text.data + at + 10;
    }
    json_t *container = json_pack("{s:s}", "kind", kind);
    vp_text_free(&cgroup);
    vp_text_free(&environ_text);
    /* Namespaces differing from PID 1's mean this process runs in its own. */
    static const char *const namespaces[] = { "pid", "net", "mnt", "uts", "cgroup" };
    json_t *own = json_array();
    for (size_t i = 0; i < sizeof namespaces / sizeof namespaces[0]; i++) {
        char self_path[64], init_path[64];
        struct stat self_ns, init_ns;
        snprintf(self_path, sizeof self_path, "/proc/self/ns/%s", namespaces[i]);
        snprintf(init_path, sizeof init_path, "/proc/1/ns/%s", namespaces[i]);
        if (stat(self_path, &self_ns) == 0 && stat(init_path, &init_ns) == 0 &&
            self_ns.st_ino != init_ns.st_ino)
            json_array_append_new(own, json_string(namespaces[i]));
    }
    json_object_set_new(container, "own_namespaces", own);
    json_object_set_new(container, "cgroup_version",
                        json_integer(path_exists("/sys/fs/cgroup/cgroup.controllers") ? 2 : 1));
    return container;
}

static json_t *nic_info(void)
{
    json_t *nics = json_array();
    DIR *dir = opendir("/sys/class/net");
    if (!dir)
        return nics;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (entry->d_name[0] == '.')
            continue;
        char path[512], driver[128], speed[32];
        snprintf(path, sizeof path, "/sys/class/net/%s/device/driver", entry->d_name);
        link_basename(path, driver, sizeof driver);
        snprintf(path, sizeof path, "/sys/class/net/%s/speed", entry->d_name);
        read_line(path, speed, sizeof speed);
        json_t *nic = json_pack("{s:s,s:s}", "name", entry->d_name, "driver",
                                driver[0] ? driver : "virtual");
        if (speed[0] && atoi(speed) > 0)
            json_object_set_new(nic, "speed_mbps", json_integer(atoi(speed)));
        json_array_append_new(nics, nic);
    }
    closedir(dir);
    return nics;
}

static json_t *disk_info(void)
{
    json_t *disks = json_array();
    DIR *dir = opendir("/sys/block");
    if (!dir)
        return disks;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        const char *name = entry->d_name;
        if (name[0] == '.' || strncmp(name, "loop", 4) == 0 || strncmp(name, "ram", 3) == 0)
            continue;
        char path[512], driver[128], controller[128], scheduler[128], rotational[8], sectors[32];
        snprintf(path, sizeof path, "/sys/block/%s/device/driver", name);
        link_basename(path, driver, sizeof driver);
        if (!driver[0]) { /* virtio disks: the driver sits one level up */
            snprintf(path, sizeof path, "/sys/block/%s/device/../driver", name);
            link_basename(path, driver, sizeof driver);
        }
        disk_controller(name, driver, controller, sizeof controller);
        snprintf(path, sizeof path, "/sys/block/%s/queue/scheduler", name);
        read_line(path, scheduler, sizeof scheduler);
        char *chosen = strchr(scheduler, '['), *end = chosen ? strchr(chosen, ']') : NULL;
        if (chosen && end)
            *end = '\0';
        snprintf(path, sizeof path, "/sys/block/%s/queue/rotational", name);
        read_line(path, rotational, sizeof rotational);
        snprintf(path, sizeof path, "/sys/block/%s/size", name);
        read_line(path, sectors, sizeof sectors);
        json_array_append_new(disks, json_pack("{s:s,s:s,s:s,s:b,s:I}", "name", name, "driver",
                                               driver[0] ? driver : "unknown", "scheduler",
                                               chosen && end ? chosen + 1 : scheduler,
                                               "rotational", rotational[0] == '1', "size_bytes",
                                               (json_int_t)(atoll(sectors) * 512)));
        if (controller[0])
            json_object_set_new(json_array_get(disks, json_array_size(disks) - 1), "controller",
                                json_string(controller));
    }
    closedir(dir);
    return disks;
}

json_t *vp_sysinfo_clock(void)
{
    char current[64], available[256];
    read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", current,
              sizeof current);
    read_line("/sys/devices/system/clocksource/clocksource0/available_clocksource", available,
              sizeof available);
    return json_pack("{s:s,s:s}", "clocksource", current, "available", available);
}

/* NAN when /proc/stat cannot be read or parsed: never a made-up 0. */
static double steal_percent_since_boot(void)
{
    struct vp_text text = { 0 };
    struct vp_proc_stat stat;
    int status = vp_read_whole("/proc/stat", &text) == 0 ? vp_parse_proc_stat(text.data, &stat) : -1;
    vp_text_free(&text);
    if (status != 0)
        return NAN;
    const struct vp_cpu_ticks *t = &stat.cpu;
    double total = (double)(t->user + t->nice + t->system + t->idle + t->iowait + t->irq +
                            t->softirq + t->steal);
    return total > 0 ? 100.0 * (double)t->steal / total : 0;
}

/* This machine's id: /etc/machine-id (systemd's, stable across boots), else the boot id
 * (stable for this boot), else "". Guests cloned from one image may share a machine-id:
 * the addresses and hostname tell them apart. */
static void host_id(char *id, size_t len)
{
    static const char *const sources[] = { "/etc/machine-id", "/var/lib/dbus/machine-id",
                                           "/proc/sys/kernel/random/boot_id" };
    id[0] = '\0';
    for (size_t i = 0; i < sizeof sources / sizeof sources[0] && !id[0]; i++)
        if (vp_read_text_file(sources[i], id, len) > 0)
            id[strcspn(id, " \n")] = '\0';
}

/* The host's addresses other than loopback and link-local, IPv4 first. */
static json_t *address_info(void)
{
    json_t *addresses = json_array();
    struct ifaddrs *interfaces;
    if (getifaddrs(&interfaces) != 0)
        return addresses;
    for (int family = AF_INET; family; family = family == AF_INET ? AF_INET6 : 0) {
        for (struct ifaddrs *entry = interfaces; entry; entry = entry->ifa_next) {
            if (!entry->ifa_addr || entry->ifa_addr->sa_family != family ||
                (entry->ifa_flags & IFF_LOOPBACK))
                continue;
            char text[INET6_ADDRSTRLEN] = "";
            const void *where = family == AF_INET
                ? (const void *)&((struct sockaddr_in *)entry->ifa_addr)->sin_addr
                : (const void *)&((struct sockaddr_in6 *)entry->ifa_addr)->sin6_addr;
            if (family == AF_INET6 && IN6_IS_ADDR_LINKLOCAL((const struct in6_addr *)where))
                continue;
            inet_ntop(family, where, text, sizeof text);
            json_array_append_new(addresses, json_string(text));
        }
    }
    freeifaddrs(interfaces);
    return addresses;
}

json_t *vp_sysinfo_collect(const struct vp_topology *topology)
{
    struct utsname names;
    uname(&names);
    char distribution[256] = "", os_release[SMALL_TEXT];
    if (vp_read_text_file("/etc/os-release", os_release, sizeof os_release) >= 0) {
        const char *pretty = strstr(os_release, "PRETTY_NAME=");
        if (pretty) {
            pretty += strlen("PRETTY_NAME=");
            if (*pretty == '"')
                pretty++;
            size_t len = strcspn(pretty, "\"\n");
            snprintf(distribution, sizeof distribution, "%.*s", (int)len, pretty);
        }
    }
    double steal = steal_percent_since_boot();
    char id[128];
    host_id(id, sizeof id);
    struct vp_text cpuinfo = { 0 };
    const char *cpu_text =
        vp_read_whole("/proc/cpuinfo", &cpuinfo) == 0 && cpuinfo.data ? cpuinfo.data : "";
    json_t *host = json_pack("{s:s,s:s,s:o,s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "hostname",
                     names.nodename, "host_id", id, "addresses", address_info(), "kernel",
                     names.release, "arch", names.machine,
                     "distribution", distribution, "cpu", cpu_info(topology, cpu_text), "memory",
                     memory_info(), "clock", vp_sysinfo_clock(), "hypervisor",
                     hypervisor_info(cpu_text),
                     "container", container_info(), "nics", nic_info(), "disks", disk_info(),
                     "idle", vp_idle_policy(),
                     "steal_percent_since_boot", isnan(steal) ? json_null() : json_real(steal));
    vp_text_free(&cpuinfo);
    /* the hardware generator the kernel seeds its random numbers from ("none" when there
     * is none): a guest without one (no virtio-rng, a TCG CPU without RDRAND) stalls its
     * first read of /dev/urandom while the kernel gathers timing jitter, a second here */
    set_line_if_present(host, "hwrng", "/sys/class/misc/hw_random/rng_current");
    return host;
}

static int in_list(const char *value, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(value, *list) == 0)
            return 1;
    return 0;
}

json_t *vp_sysinfo_advisories(const json_t *fingerprint)
{
    static const char *const emulated_nics[] = { "e1000", "e1000e", "8139too", "8139cp",
                                                 "pcnet32", "ne2k-pci", "tulip", NULL };
    static const char *const emulated_disks[] = { "ata_piix", "ahci", "pata_acpi", "ide-gd",
                                                  "ide-cd", "sym53c8xx", "mptspi", NULL };
    static const char *const fast_clocks[] = { "tsc", "kvm-clock", "xen", "hyperv_clocksource_tsc_page",
                                               "arch_sys_counter", NULL };
    json_t *advisories = json_array();
    char line[512];
    const json_t *hypervisor = json_object_get(fingerprint, "hypervisor");
    int virtualized = strcmp(vp_json_text(hypervisor, "name"), "none") != 0;

    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(fingerprint, "nics"), i, item) {
        if (virtualized && in_list(vp_json_text(item, "driver"), emulated_nics)) {
            snprintf(line, sizeof line,
                     "NIC %s uses the emulated %s driver: a paravirtual NIC (virtio_net, "
                     "xen-netfront, vmxnet3, hv_netvsc) is often ~10x faster (the CNAF 2007 study: "
                     "<0.1 vs 0.94 Gbit/s)", vp_json_text(item, "name"), vp_json_text(item, "driver"));
            json_array_append_new(advisories, json_string(line));
        }
    }
    json_array_foreach(json_object_get(fingerprint, "disks"), i, item) {
        const char *controller = vp_json_text(item, "controller");
        if (!in_list(controller, emulated_disks))
            controller = vp_json_text(item, "driver");
        if (virtualized && in_list(controller, emulated_disks)) {
            snprintf(line, sizeof line,
                     "disk %s uses the emulated %s controller: a paravirtual disk (virtio_blk, "
                     "virtio_scsi, xen-blkfront, pvscsi) avoids an exit per I/O",
                     vp_json_text(item, "name"), controller);
            json_array_append_new(advisories, json_string(line));
        }
    }
    const char *clocksource = vp_json_text(json_object_get(fingerprint, "clock"), "clocksource");
    if (clocksource[0] && !in_list(clocksource, fast_clocks)) {
        snprintf(line, sizeof line,
                 "clocksource %s has no fast user-space path: every clock read is a system "
                 "call (and in a guest may trap to the hypervisor)", clocksource);
        json_array_append_new(advisories, json_string(line));
    }
    const json_t *steal_json = json_object_get(fingerprint, "steal_percent_since_boot");
    double steal = json_real_value(steal_json);
    if (json_is_null(steal_json))
        vp_advise(advisories, "steal time unknown: /proc/stat could not be read or parsed");
    if (steal >= 0.5) {
        snprintf(line, sizeof line,
                 "steal time %.1f%% since boot: other guests take this guest's CPUs", steal);
        json_array_append_new(advisories, json_string(line));
    }
    const char *governor = vp_json_text(json_object_get(fingerprint, "cpu"), "governor");
    if (governor[0] && strcmp(governor, "performance") != 0) {
        snprintf(line, sizeof line,
                 "CPU frequency governor is %s: clock speed varies with load; use "
                 "'performance' for stable numbers", governor);
        json_array_append_new(advisories, json_string(line));
    }
    const char *host_poll = vp_json_text(hypervisor, "kvm_halt_poll_ns");
    const char *guest_poll = vp_json_text(hypervisor, "guest_halt_poll_ns");
    if (strcmp(host_poll, "0") == 0 || strcmp(guest_poll, "0") == 0) {
        json_array_append_new(advisories, json_string(
            "halt polling is disabled: a vCPU that idles pays a full exit and wake-up, "
            "which slows cross-CPU wake-ups and request/response latency"));
    }
    return advisories;
}

void vp_sysinfo_add_boot_id(json_t *host)
{
    char boot_id[64] = "";
    FILE *boot = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (boot && fgets(boot_id, sizeof boot_id, boot))
        boot_id[strcspn(boot_id, "\n")] = '\0';
    if (boot)
        fclose(boot);
    json_object_set_new(host, "boot_id", json_string(boot_id));
}
